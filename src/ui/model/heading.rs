//! The title and caption above the timeline. A preset's caption tells the story of that exact
//! schedule ("B takes fence 34…", "Five instances…"); once a person changes the schedule the
//! story may no longer be true, so an edited preset says it is edited and keeps its caption
//! out of sight until asked for. Whether a scenario is edited is derived from the scenario
//! alone (same name and caption as a preset, different content), never stored beside it:
//! undo back to the preset, a link to an edited preset and a file all come out right.

use crate::sim::presets::{presets, Preset};
use crate::sim::Scenario;

/// What the head of the page says about the scenario on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heading {
    /// A preset as shipped, or a scenario of a person's own: its name and caption as written.
    AsWritten { title: String, caption: String },
    /// A preset someone changed: the preset's name, and its caption only as the original.
    Edited { from: String, original: String },
}

/// Said instead of an edited preset's caption.
pub const EDITED_CAPTION: &str =
    "Edited: the preset's story may no longer hold. The verdict and the lanes show your version.";

impl Heading {
    pub fn title(&self) -> String {
        match self {
            Heading::AsWritten { title, .. } => title.clone(),
            Heading::Edited { from, .. } => format!("Edited from: {from}"),
        }
    }
}

/// The preset `s` is, or was edited from, for the picker: after an undo, a link or a file it
/// names the scenario on screen, not the preset loaded last.
pub fn preset_of(s: &Scenario) -> Option<&'static str> {
    let list = presets();
    let same_story = |p: &&Preset| p.scenario.name == s.name && p.scenario.caption == s.caption;
    list.iter()
        .find(|p| p.scenario == *s)
        .or_else(|| list.iter().find(same_story))
        .map(|p| p.id)
}

/// The heading for `s`.
/// The heading for `s`. It builds the presets to compare: the view asks once per scenario.
pub fn heading(s: &Scenario) -> Heading {
    let list = presets();
    let mut same_story = list
        .iter()
        .map(|p| &p.scenario)
        .filter(|p| p.name == s.name && p.caption == s.caption)
        .peekable();
    let told_by_a_preset = same_story.peek().is_some();
    if !told_by_a_preset || same_story.any(|p| p == s) {
        Heading::AsWritten {
            title: s.name.clone(),
            caption: s.caption.clone(),
        }
    } else {
        Heading::Edited {
            from: s.name.clone(),
            original: s.caption.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;
    use crate::ui::model::apply::apply;
    use crate::ui::model::item::Part;
    use crate::ui::model::selection::EventRef;
    use crate::ui::model::state::{Action, DragTarget, InstanceAction, State};

    const A_PAUSE: EventRef = EventRef {
        client: 0,
        event: 1,
    };

    fn shipped_heading(id: &str) -> Heading {
        let s = preset(id).expect("a preset");
        Heading::AsWritten {
            title: s.name,
            caption: s.caption,
        }
    }

    #[test]
    fn every_preset_as_shipped_tells_its_own_story() {
        for p in presets() {
            assert_eq!(
                heading(&p.scenario),
                Heading::AsWritten {
                    title: p.scenario.name.clone(),
                    caption: p.scenario.caption.clone()
                },
                "{}",
                p.id
            );
        }
    }

    #[test]
    fn any_edit_says_edited_and_undo_restores_the_story() {
        let start = State::default_page();
        let name = start.scenario.name.clone();
        let edits = [
            Action::Nudge {
                target: A_PAUSE.into(),
                part: Part::End,
                delta_ms: -20,
            },
            Action::Remove(
                EventRef {
                    client: 1,
                    event: 0,
                }
                .into(),
            ),
            Action::AddClient,
            Action::SetTtl(50),
            Action::Instance(InstanceAction::SetService(3)),
        ];
        for edit in edits {
            let s = apply(&start, edit.clone());
            let h = heading(&s.scenario);
            assert_eq!(
                h,
                Heading::Edited {
                    from: name.clone(),
                    original: start.scenario.caption.clone()
                },
                "{edit:?}"
            );
            assert_eq!(h.title(), format!("Edited from: {name}"));
            let back = apply(&s, Action::Undo);
            assert_eq!(
                heading(&back.scenario),
                shipped_heading(crate::sim::presets::DEFAULT_PRESET)
            );
        }
    }

    #[test]
    fn a_drag_is_edited_while_it_moves_and_not_once_it_is_back() {
        let s = apply(
            &State::default_page(),
            Action::DragStart {
                target: DragTarget::Item(A_PAUSE.into(), Part::End),
                pointer_ms: 45,
                axis_end_ms: 110,
            },
        );
        let moved = apply(
            &s,
            Action::DragMove {
                pointer_ms: 20,
                client: None,
                instance: None,
            },
        );
        assert!(matches!(heading(&moved.scenario), Heading::Edited { .. }));
        let back = apply(
            &moved,
            Action::DragMove {
                pointer_ms: 45,
                client: None,
                instance: None,
            },
        );
        assert_eq!(
            heading(&back.scenario),
            shipped_heading(crate::sim::presets::DEFAULT_PRESET)
        );
    }

    #[test]
    fn a_redlock_preset_turned_single_redis_no_longer_claims_five_instances() {
        let s = apply(
            &State::default_page(),
            Action::LoadPreset("redlock-clock-jump".into()),
        );
        assert!(s.scenario.caption.contains("R3"));
        let single = apply(&s, Action::Instance(InstanceAction::SetService(0)));
        assert!(single.scenario.lock.redlock().is_none());
        match heading(&single.scenario) {
            Heading::Edited { from, original } => {
                assert_eq!(from, s.scenario.name);
                assert_eq!(original, s.scenario.caption);
            }
            other => panic!("not edited: {other:?}"),
        }
        assert!(!EDITED_CAPTION.contains("R3"));
    }

    #[test]
    fn a_link_to_an_edited_preset_and_a_scenario_of_ones_own() {
        // A link or a file carries the preset's name with a changed schedule: still edited.
        let mut edited = preset("gc-pause-fenced").expect("a preset");
        edited.lock.ttl_ms = 45;
        let loaded = apply(
            &State::default_page(),
            Action::LoadScenario(Box::new(edited.clone())),
        );
        assert!(matches!(heading(&loaded.scenario), Heading::Edited { .. }));
        // A scenario named by its author tells the author's story, edited or not.
        edited.name = "Our checkout service".into();
        edited.caption = "What happens when the payment worker stalls.".into();
        assert_eq!(
            heading(&edited),
            Heading::AsWritten {
                title: edited.name.clone(),
                caption: edited.caption.clone()
            }
        );
    }

    #[test]
    fn the_picker_names_the_scenario_on_screen_after_undo_and_links() {
        let s = State::default_page();
        let clock = apply(&s, Action::LoadPreset("redlock-clock-jump".into()));
        assert_eq!(clock.preset_id.as_deref(), Some("redlock-clock-jump"));
        let back = apply(&clock, Action::Undo);
        assert_eq!(
            back.preset_id.as_deref(),
            Some(crate::sim::presets::DEFAULT_PRESET)
        );
        let again = apply(&back, Action::Redo);
        assert_eq!(again.preset_id.as_deref(), Some("redlock-clock-jump"));
        // An edited preset keeps its preset in the picker, through undo and from a link.
        let edited = apply(&again, Action::SetTtl(45));
        let other = apply(&edited, Action::LoadPreset("contract-1-nx".into()));
        let undone = apply(&other, Action::Undo);
        assert_eq!(undone.preset_id.as_deref(), Some("redlock-clock-jump"));
        let linked = apply(&s, Action::LoadScenario(Box::new(edited.scenario.clone())));
        assert_eq!(linked.preset_id.as_deref(), Some("redlock-clock-jump"));
        let mut own = edited.scenario.clone();
        own.name = "Ours".into();
        assert_eq!(preset_of(&own), None);
    }
}
