//! The front end. `state` (the one State, Action and `apply`), `geometry` (time ↔ pixels, lane
//! layout) and `describe` (words and playhead readings taken from the trace) are pure and
//! tested natively; the Yew components, one per file, exist only on wasm32. `mount` is the
//! entry point the JavaScript API calls.

pub mod describe;
pub mod geometry;
pub mod state;
pub mod style;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod axis;
#[cfg(target_arch = "wasm32")]
mod banner;
#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
mod hint;
#[cfg(target_arch = "wasm32")]
mod lane_client;
#[cfg(target_arch = "wasm32")]
mod lane_lock;
#[cfg(target_arch = "wasm32")]
mod lane_storage;
#[cfg(target_arch = "wasm32")]
mod messages;
#[cfg(target_arch = "wasm32")]
mod narration;
#[cfg(target_arch = "wasm32")]
mod palette;
#[cfg(target_arch = "wasm32")]
mod playhead;
#[cfg(target_arch = "wasm32")]
mod preset_picker;
#[cfg(target_arch = "wasm32")]
mod readout;
#[cfg(target_arch = "wasm32")]
mod settings;
#[cfg(target_arch = "wasm32")]
mod timeline;

use crate::sim::Scenario;

/// What the page asks for when it mounts a playground.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MountOptions {
    /// A scenario to show instead of a preset.
    pub scenario: Option<Scenario>,
    /// A preset id (see `sim::presets`); ignored when `scenario` is given.
    pub preset: Option<String>,
    /// Show the run without letting anyone edit it.
    pub readonly: bool,
    /// Leave out the caption, the narration and the key help.
    pub compact: bool,
}

/// The first state a mount shows, or why the options cannot be shown.
pub fn initial_state(options: &MountOptions) -> Result<state::State, String> {
    use crate::sim::presets::{preset, presets};
    let (scenario, preset_id) = match (&options.scenario, &options.preset) {
        (Some(s), _) => {
            s.validate().map_err(|e| format!("scenario: {e}"))?;
            (s.clone(), None)
        }
        (None, Some(id)) => match preset(id) {
            Some(s) => (s, Some(id.clone())),
            None => {
                let known: Vec<&str> = presets().iter().map(|p| p.id).collect();
                return Err(format!(
                    "unknown preset {id:?}; known: {}",
                    known.join(", ")
                ));
            }
        },
        (None, None) => {
            let page = state::State::default_page();
            return Ok(state::State {
                readonly: options.readonly,
                ..page
            });
        }
    };
    Ok(state::State::new(scenario, preset_id, options.readonly))
}

/// Mounts an independent playground into `element`. Several mounts on one page share nothing
/// but the style sheet.
#[cfg(target_arch = "wasm32")]
pub fn mount(element: web_sys::Element, options: MountOptions) -> Result<(), String> {
    let initial = initial_state(&options)?;
    style::adopt(&element)?;
    let props = app::AppProps {
        initial: std::rc::Rc::new(initial),
        compact: options.compact,
        uid: dom::next_uid(),
    };
    yew::Renderer::<app::App>::with_root_and_props(element, props).render();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_pick_the_first_state() {
        let s = initial_state(&MountOptions::default()).unwrap();
        assert_eq!(s.preset_id.as_deref(), Some("gc-pause-fenced"));
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
