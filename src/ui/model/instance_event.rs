//! How a person edits a Redlock instance's event: a crash and a partition have two edges, a
//! clock jump none; the inspector sets when it happens, how far a clock jumps and whether it
//! slews, whether a crash keeps its keys, and which client a partition cuts off. Text that is
//! no number is refused naming the field, as for a client's event; a number past the
//! scenario's limits is refused by `validate`, which names the JSON field.

use super::fields::{at_least, Field};
use super::item::{no_such_field, LaneItem, Part};
use crate::sim::scenario::InstanceEvent;

impl LaneItem for InstanceEvent {
    fn at_ms(&self) -> u64 {
        InstanceEvent::at_ms(self)
    }

    fn end_ms(&self) -> u64 {
        InstanceEvent::end_ms(self)
    }

    /// Crashes and partitions have two edges, a jump none.
    fn has_part(&self, part: Part) -> bool {
        part == Part::Body || !matches!(self, InstanceEvent::ClockJump { .. })
    }

    fn set_edge(&mut self, part: Part, to: u64) -> bool {
        if !self.has_part(part) {
            return false;
        }
        let (start, end) = (self.at_ms(), self.end_ms());
        let (at, len) = match part {
            Part::Body => {
                self.set_at_ms(to);
                return true;
            }
            Part::Start => {
                let at = to.min(end.saturating_sub(1));
                (at, end - at)
            }
            Part::End => (start, to.saturating_sub(start).max(1)),
        };
        match self {
            InstanceEvent::Crash { at_ms, down_ms, .. } => (*at_ms, *down_ms) = (at, len),
            InstanceEvent::Partition {
                at_ms, duration_ms, ..
            } => (*at_ms, *duration_ms) = (at, len),
            InstanceEvent::ClockJump { .. } => return false,
        }
        true
    }

    fn kind_label(&self) -> &'static str {
        match self {
            InstanceEvent::ClockJump { .. } => "clock jump",
            InstanceEvent::Crash { .. } => "crash",
            InstanceEvent::Partition { .. } => "partition",
        }
    }

    fn fields(&self) -> &'static [Field] {
        match self {
            InstanceEvent::ClockJump { .. } => &[Field::At, Field::By, Field::Over],
            InstanceEvent::Crash { .. } => &[Field::At, Field::Duration, Field::Keep],
            InstanceEvent::Partition { .. } => &[Field::At, Field::Duration, Field::Who],
        }
    }

    fn value(&self, f: Field) -> Option<String> {
        let v = match (self, f) {
            (e, Field::At) => e.at_ms().to_string(),
            (InstanceEvent::ClockJump { by_ms, .. }, Field::By) => by_ms.to_string(),
            (InstanceEvent::ClockJump { over_ms, .. }, Field::Over) => over_ms.to_string(),
            (InstanceEvent::Crash { down_ms: ms, .. }, Field::Duration)
            | (
                InstanceEvent::Partition {
                    duration_ms: ms, ..
                },
                Field::Duration,
            ) => ms.to_string(),
            (InstanceEvent::Crash { persistent, .. }, Field::Keep) => persistent.to_string(),
            (InstanceEvent::Partition { client, .. }, Field::Who) => {
                client.clone().unwrap_or_default()
            }
            _ => return None,
        };
        Some(v)
    }

    /// A length of 0 becomes 1 ms; a checkbox reads "true" or anything else; an empty client
    /// cuts the instance off from every client.
    fn with_field(&self, f: Field, v: &str) -> Result<InstanceEvent, String> {
        let ms = || at_least(f, v, 0).map(|n| n as u64);
        let mut e = self.clone();
        match (&mut e, f) {
            (e, Field::At) => e.set_at_ms(ms()?),
            (InstanceEvent::ClockJump { by_ms, .. }, Field::By) => {
                *by_ms = at_least(f, v, i64::MIN)?
            }
            (InstanceEvent::ClockJump { over_ms, .. }, Field::Over) => *over_ms = ms()?,
            (InstanceEvent::Crash { down_ms: len, .. }, Field::Duration)
            | (
                InstanceEvent::Partition {
                    duration_ms: len, ..
                },
                Field::Duration,
            ) => *len = ms()?.max(1),
            (InstanceEvent::Crash { persistent, .. }, Field::Keep) => *persistent = v == "true",
            (InstanceEvent::Partition { client, .. }, Field::Who) => {
                *client = (!v.is_empty()).then(|| v.to_string())
            }
            (e, f) => return Err(no_such_field(e.kind_label(), f)),
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::tools::InstanceTool;

    #[test]
    fn inspector_fields_parse_what_a_person_typed() {
        let jump = InstanceTool::ClockJump.event(15, 60);
        let cases: &[(Field, &str, Option<InstanceEvent>)] = &[
            (Field::At, "20", Some(InstanceTool::ClockJump.event(20, 60))),
            (Field::At, "-1", None),
            (
                Field::By,
                " -30 ",
                Some(InstanceEvent::ClockJump {
                    at_ms: 15,
                    by_ms: -30,
                    over_ms: 0,
                }),
            ),
            (
                Field::Over,
                "120",
                Some(InstanceEvent::ClockJump {
                    at_ms: 15,
                    by_ms: 60,
                    over_ms: 120,
                }),
            ),
            (Field::Over, "x", None),
            (Field::Keep, "true", None),
        ];
        for (field, v, want) in cases {
            let got = jump.with_field(*field, v);
            assert_eq!(&got.clone().ok(), want, "{field:?}={v}");
            // A refusal names the field.
            if let Err(why) = got {
                assert!(why.contains(field.label()), "{field:?}={v}: {why}");
            }
        }
        let crash = InstanceTool::Crash.event(0, 60);
        assert_eq!(
            crash.with_field(Field::Keep, "true"),
            Ok(InstanceEvent::Crash {
                at_ms: 0,
                down_ms: 10,
                persistent: true
            })
        );
        assert_eq!(
            crash.with_field(Field::Duration, "0"),
            Ok(InstanceEvent::Crash {
                at_ms: 0,
                down_ms: 1,
                persistent: false
            })
        );
        let cut = InstanceTool::Partition.event(0, 60);
        assert_eq!(
            cut.with_field(Field::Who, "A"),
            Ok(InstanceEvent::Partition {
                at_ms: 0,
                duration_ms: 40,
                client: Some("A".into())
            })
        );
        assert_eq!(cut.with_field(Field::Who, ""), Ok(cut.clone()));
    }

    #[test]
    fn text_that_is_no_number_is_refused_naming_the_field() {
        let jump = InstanceTool::ClockJump.event(15, 60);
        let crash = InstanceTool::Crash.event(0, 60);
        let cut = InstanceTool::Partition.event(0, 60);
        let cases: &[(&InstanceEvent, Field, &str, &str)] = &[
            (
                &jump,
                Field::At,
                "-1",
                "at ms: expected a whole number from 0, got \"-1\"",
            ),
            (
                &jump,
                Field::By,
                "",
                "by ms: expected a whole number, got \"\"",
            ),
            (
                &jump,
                Field::Over,
                "soon",
                "over ms: expected a whole number from 0, got \"soon\"",
            ),
            (
                &crash,
                Field::Duration,
                "1.5",
                "duration ms: expected a whole number from 0",
            ),
            (
                &cut,
                Field::Duration,
                "-3",
                "duration ms: expected a whole number from 0",
            ),
            (&jump, Field::Keep, "true", "a clock jump has no keeps keys"),
            (&crash, Field::Who, "A", "a crash has no cut off from"),
            (&cut, Field::Amount, "3", "a partition has no amount"),
        ];
        for (e, f, v, words) in cases {
            let why = e.with_field(*f, v).unwrap_err();
            assert!(why.starts_with(words), "{f:?}={v:?}: {why}");
        }
        // A pasted essay is echoed only in part.
        let why = jump.with_field(Field::By, &"x".repeat(500)).unwrap_err();
        assert!(why.len() < 80, "{why}");
    }

    #[test]
    fn every_listed_field_has_a_value_that_reads_back_unchanged() {
        let events = [
            InstanceTool::ClockJump.event(15, 60),
            InstanceTool::Crash.event(3, 60),
            InstanceEvent::Partition {
                at_ms: 7,
                duration_ms: 40,
                client: Some("B".into()),
            },
        ];
        for e in &events {
            for &f in e.fields() {
                let v = e.value(f).expect("a listed field has a value");
                assert_eq!(e.with_field(f, &v).as_ref(), Ok(e), "{f:?}");
            }
            assert_eq!(e.value(Field::Amount), None);
        }
    }

    #[test]
    fn parts_and_edges() {
        let mut jump = InstanceTool::ClockJump.event(15, 60);
        assert!(jump.has_part(Part::Body) && !jump.has_part(Part::End));
        assert!(!jump.set_edge(Part::Start, 3));
        assert!(jump.set_edge(Part::Body, 3));
        assert_eq!(jump.edge_ms(Part::Body), 3);
        let mut crash = InstanceTool::Crash.event(20, 60);
        assert_eq!(crash.edge_ms(Part::End), 30);
        assert!(crash.set_edge(Part::Start, 40));
        assert_eq!(
            (crash.at_ms(), crash.end_ms()),
            (29, 30),
            "a crash keeps 1 ms"
        );
        assert_eq!(crash.kind_label(), "crash");
    }
}
