//! The front end, by folder: `model` (the one State, its Actions and the pure `apply`, the
//! selection, drag, keys and undo, what links and saved data become), `lanes` (the timeline and
//! its lanes, with the pure `geometry`, `describe` and `redlock_view`), `inspect` (the verdict,
//! hint, inspectors, readout and narration), `controls` (palettes, settings, presets, toolbar)
//! and `share` (the hash and localStorage effect, exports). `model` and the pure parts of
//! `lanes` are plain Rust tested natively; the Yew components, one per file, exist only on
//! wasm32. `mount` is the entry point the JavaScript API calls.

pub mod lanes;
pub mod model;
pub mod style;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod controls;
#[cfg(target_arch = "wasm32")]
pub mod finder;
#[cfg(target_arch = "wasm32")]
mod inspect;
#[cfg(target_arch = "wasm32")]
mod live;
#[cfg(target_arch = "wasm32")]
mod runs;
#[cfg(target_arch = "wasm32")]
mod share;

#[cfg(target_arch = "wasm32")]
use lanes::dom;
#[cfg(target_arch = "wasm32")]
use model::persist;
#[cfg(target_arch = "wasm32")]
use share::sync;

// What a mount asks for, and the state it starts from: the model's, so that `model::persist`
// reads them from beside it, not from up here.
pub use model::mount::{initial_state, MountOptions};

/// A mounted playground.
#[cfg(target_arch = "wasm32")]
pub struct Mounted(yew::AppHandle<app::App>);

#[cfg(target_arch = "wasm32")]
impl std::fmt::Debug for Mounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Mounted")
    }
}

#[cfg(target_arch = "wasm32")]
impl Mounted {
    /// Unmounts the app, empties its element and stops listening to the page.
    pub fn destroy(self) {
        self.0.destroy();
    }
}

/// Mounts an independent playground into `element`. Several mounts on one page share nothing
/// but the style sheet (and, for the one mount with `share`/`autosave`, the hash and storage).
#[cfg(target_arch = "wasm32")]
pub fn mount(element: web_sys::Element, options: MountOptions) -> Result<Mounted, String> {
    mount_with(element, options, None)
}

/// `mount`, with the finder that runs "Find a failure" (the panel shows only with one).
#[cfg(target_arch = "wasm32")]
pub fn mount_with(
    element: web_sys::Element,
    options: MountOptions,
    finder: Option<finder::Finder>,
) -> Result<Mounted, String> {
    if !element.is_connected() {
        return Err("mount the element into a document first".to_string());
    }
    let hash = options.share.then(sync::page_hash).flatten();
    let saved = options.autosave.then(sync::saved).flatten();
    let initial = persist::startup(&options, hash.as_deref(), saved.as_deref())?;
    style::adopt(&element)?;
    if let Some(theme) = &options.theme {
        element
            .set_attribute("data-theme", theme)
            .map_err(|_| "could not set data-theme on the element".to_string())?;
    }
    let props = app::AppProps {
        initial: std::rc::Rc::new(initial),
        compact: options.compact,
        share: options.share,
        autosave: options.autosave,
        uid: dom::next_uid(),
        finder,
    };
    let handle = yew::Renderer::<app::App>::with_root_and_props(element, props).render();
    Ok(Mounted(handle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_pick_the_first_state() {
        let s = initial_state(&MountOptions::default()).unwrap();
        assert_eq!(
            s.preset_id.as_deref(),
            Some(crate::sim::presets::DEFAULT_PRESET)
        );
        let s = initial_state(&MountOptions {
            preset: Some("bare-del".into()),
            readonly: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(s.scenario.clients.len(), 3);
        assert!(s.readonly);
        let err = initial_state(&MountOptions {
            preset: Some("x".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            err.starts_with("unknown preset \"x\"; known: contract-1-nx, "),
            "{err}"
        );
        let mut bad = crate::sim::presets::preset("bare-del").unwrap();
        bad.clients.clear();
        let err = initial_state(&MountOptions {
            scenario: Some(bad),
            ..Default::default()
        })
        .unwrap_err();
        assert!(err.starts_with("scenario: clients"), "{err}");
    }
}
