//! What the page asks for when it mounts a playground (`MountOptions`), and the first state a
//! mount shows (`initial_state`): plain data and a pure function, read by `persist` beside it
//! and re-exported by `ui` for the JavaScript API.

use super::state;
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
    /// Read the scenario from the page's URL hash and keep the hash in step with it (the main
    /// page only: an embed must not touch its host's address).
    pub share: bool,
    /// Restore the last scenario from localStorage and save every change there (main page only).
    pub autosave: bool,
    /// `light`, `dark` or `auto`; set as `data-theme` on the mount element, which the CSS reads.
    pub theme: Option<String>,
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
