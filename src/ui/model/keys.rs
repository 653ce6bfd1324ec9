//! The one keyboard map, for a focused client event and a focused instance event alike.
//! Left/Right move the focused part by 1 ms (Shift: 10 ms), so on an edge they resize;
//! Up/Down move an event to the lane of its kind above or below; Delete or Backspace removes
//! it; Escape cancels a drag or clears the selection; Ctrl+Z undoes, Ctrl+Shift+Z or Ctrl+Y
//! redoes.

use super::item::Part;
use super::selection::{ItemRef, Selection};
use super::state::{Action, BIG_STEP_MS};

/// The action for a key press, if it means one. `focus` is the event part whose element has
/// the focus, if any.
pub fn key_action(
    key: &str,
    shift: bool,
    ctrl: bool,
    dragging: bool,
    focus: Option<(ItemRef, Part)>,
) -> Option<Action> {
    if ctrl {
        return match key {
            "z" | "Z" if shift => Some(Action::Redo),
            "z" | "Z" => Some(Action::Undo),
            "y" | "Y" => Some(Action::Redo),
            _ => None,
        };
    }
    if key == "Escape" {
        return Some(if dragging {
            Action::DragCancel
        } else {
            Action::Select(Selection::None)
        });
    }
    let (target, part) = focus?;
    let step = if shift { BIG_STEP_MS } else { 1 };
    match key {
        "ArrowLeft" | "ArrowRight" => Some(Action::Nudge {
            target,
            part,
            delta_ms: if key == "ArrowLeft" { -step } else { step },
        }),
        "ArrowUp" | "ArrowDown" if part == Part::Body => Some(Action::ShiftLane {
            target,
            by: if key == "ArrowUp" { -1 } else { 1 },
        }),
        "Delete" | "Backspace" => Some(Action::Remove(target)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::selection::{EventRef, Slot};

    const A_PAUSE: EventRef = EventRef {
        client: 0,
        event: 1,
    };
    const A_DEBIT: EventRef = EventRef {
        client: 0,
        event: 2,
    };

    /// Key, Shift, Ctrl, focused part, expected action.
    type KeyCase = (
        &'static str,
        bool,
        bool,
        Option<(EventRef, Part)>,
        Option<Action>,
    );

    #[test]
    fn the_keyboard_map() {
        let end = Some((A_PAUSE, Part::End));
        let cases: &[KeyCase] = &[
            (
                "ArrowLeft",
                false,
                false,
                end,
                Some(Action::Nudge {
                    target: A_PAUSE.into(),
                    part: Part::End,
                    delta_ms: -1,
                }),
            ),
            (
                "ArrowRight",
                true,
                false,
                end,
                Some(Action::Nudge {
                    target: A_PAUSE.into(),
                    part: Part::End,
                    delta_ms: 10,
                }),
            ),
            ("ArrowUp", false, false, end, None),
            (
                "ArrowDown",
                false,
                false,
                Some((A_DEBIT, Part::Body)),
                Some(Action::ShiftLane {
                    target: A_DEBIT.into(),
                    by: 1,
                }),
            ),
            (
                "Delete",
                false,
                false,
                end,
                Some(Action::Remove(A_PAUSE.into())),
            ),
            ("ArrowLeft", false, false, None, None),
            ("z", false, true, None, Some(Action::Undo)),
            ("Z", true, true, end, Some(Action::Redo)),
            ("y", false, true, None, Some(Action::Redo)),
            (
                "Escape",
                false,
                false,
                None,
                Some(Action::Select(Selection::None)),
            ),
            ("a", false, false, end, None),
        ];
        for (key, shift, ctrl, focus, want) in cases {
            assert_eq!(
                &key_action(key, *shift, *ctrl, false, focus.map(|(r, p)| (r.into(), p))),
                want,
                "{key}"
            );
        }
        assert_eq!(
            key_action("Escape", false, false, true, None),
            Some(Action::DragCancel)
        );
        assert_eq!(EventRef::from_attr(&A_DEBIT.attr()), Some(A_DEBIT));
        assert_eq!(EventRef::from_attr("1-x"), None);
        assert_eq!(Part::from_attr(Part::End.attr()), Some(Part::End));
    }
}

#[cfg(test)]
mod one_map {
    use super::*;
    use crate::ui::model::selection::InstanceRef;

    #[test]
    fn instance_events_answer_the_same_keys() {
        let r = ItemRef::Instance(InstanceRef {
            instance: 2,
            event: 0,
        });
        let on = |key, shift, ctrl, part| key_action(key, shift, ctrl, false, Some((r, part)));
        assert_eq!(
            on("ArrowLeft", true, false, Part::End),
            Some(Action::Nudge {
                target: r,
                part: Part::End,
                delta_ms: -BIG_STEP_MS
            })
        );
        assert_eq!(
            on("ArrowUp", false, false, Part::Body),
            Some(Action::ShiftLane { target: r, by: -1 })
        );
        assert_eq!(on("ArrowDown", false, false, Part::Start), None);
        assert_eq!(
            on("Backspace", false, false, Part::Body),
            Some(Action::Remove(r))
        );
        assert_eq!(on("z", false, true, Part::Body), Some(Action::Undo));
        assert_eq!(
            on("ArrowLeft", false, true, Part::Body),
            None,
            "Ctrl+arrow is no nudge"
        );
        assert_eq!(
            on("Escape", false, false, Part::Body),
            Some(Action::Select(Selection::None))
        );
    }
}
