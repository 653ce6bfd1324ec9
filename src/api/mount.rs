//! `mount(element, options)`: one independent playground per call, and the handle that
//! unmounts it. `options.finder` (given by www/main.js and www/embed.js) is the object that runs
//! "Find a failure" in workers; without it the page shows no search panel.

use super::args::*;
use wasm_bindgen::prelude::*;

/// A mounted playground, as `mount` returns it.
#[wasm_bindgen]
pub struct Playground {
    app: Option<crate::ui::Mounted>,
}

#[wasm_bindgen]
impl Playground {
    /// Unmounts the playground and empties its element; calling it again does nothing.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
    }
}

/// Mounts one playground into `element`. Nothing is mounted when the module loads.
#[wasm_bindgen]
pub fn mount(
    element: JsValue,
    #[wasm_bindgen(unchecked_param_type = "MountOptions | undefined")] options: JsValue,
) -> Result<Playground, JsError> {
    let element: web_sys::Element = element
        .dyn_into()
        .map_err(|_| error("mount: element: expected a DOM element"))?;
    let opts = mount_options(&options)?;
    let finder = get(&options, "finder");
    let finder = (!finder.is_undefined() && !finder.is_null())
        .then(|| {
            if get(&finder, "search").is_function() {
                Ok(crate::ui::finder::Finder(finder))
            } else {
                Err(error(
                    "mount: options.finder: expected an object with search()",
                ))
            }
        })
        .transpose()?;
    let app =
        crate::ui::mount_with(element, opts, finder).map_err(|e| error(format!("mount: {e}")))?;
    Ok(Playground { app: Some(app) })
}

fn mount_options(options: &JsValue) -> Result<crate::ui::MountOptions, JsError> {
    let mut out = crate::ui::MountOptions::default();
    if options.is_undefined() || options.is_null() {
        return Ok(out);
    }
    if !options.is_object() {
        return Err(error("mount: options: expected an object"));
    }
    let preset = get(options, "preset");
    if !preset.is_undefined() {
        out.preset = Some(
            preset
                .as_string()
                .ok_or_else(|| error("mount: options.preset: expected text"))?,
        );
    }
    let scenario = get(options, "scenario");
    if !scenario.is_undefined() && !scenario.is_null() {
        out.scenario =
            Some(scenario_arg(&scenario).map_err(|e| error(format!("mount: options.{}", msg(e))))?);
    }
    out.readonly = flag(options, "readonly")?;
    out.compact = flag(options, "compact")?;
    out.share = flag(options, "share")?;
    out.autosave = flag(options, "autosave")?;
    let theme = get(options, "theme");
    if !theme.is_undefined() && !theme.is_null() {
        match theme.as_string().as_deref() {
            Some(t @ ("light" | "dark" | "auto")) => out.theme = Some(t.to_string()),
            _ => {
                return Err(error(
                    "mount: options.theme: expected \"light\", \"dark\" or \"auto\"",
                ))
            }
        }
    }
    Ok(out)
}
