//! How a person edits a client's event: which parts a drag moves (a pause's two edges, a
//! debit's network delay) and the fields a drag cannot say (a debit's amount, idempotency key
//! and delay, a check-then-write's gap, what stops a paused process and for how long, how a
//! release deletes the key, how far a client's clock jumps). A refusal names the field.

use super::fields::{whole, Field, CAUSES, MODES};
use super::item::{no_such_field, LaneItem, Part};
use crate::sim::scenario::{MAX_AMOUNT, MAX_TIME_MS};
use crate::sim::Event;

impl LaneItem for Event {
    fn at_ms(&self) -> u64 {
        Event::at_ms(self)
    }

    fn end_ms(&self) -> u64 {
        Event::end_ms(self)
    }

    fn has_part(&self, part: Part) -> bool {
        match part {
            Part::Body => true,
            Part::Start => matches!(self, Event::Pause { .. }),
            Part::End => matches!(self, Event::Pause { .. } | Event::Debit { .. }),
        }
    }

    fn set_edge(&mut self, part: Part, to: u64) -> bool {
        match (part, self) {
            (Part::Body, e) => e.set_at_ms(to),
            (
                Part::Start,
                Event::Pause {
                    at_ms, duration_ms, ..
                },
            ) => {
                let end = at_ms.saturating_add(*duration_ms);
                let start = to.min(end.saturating_sub(1));
                *at_ms = start;
                *duration_ms = end - start;
            }
            (
                Part::End,
                Event::Pause {
                    at_ms, duration_ms, ..
                },
            ) => *duration_ms = to.saturating_sub(*at_ms).max(1),
            (
                Part::End,
                Event::Debit {
                    at_ms, delay_ms, ..
                },
            ) => *delay_ms = to.saturating_sub(*at_ms),
            _ => return false,
        }
        true
    }

    fn kind_label(&self) -> &'static str {
        match self {
            Event::Acquire { .. } => "acquire",
            Event::Debit { .. } => "debit",
            Event::Pause { .. } => "pause",
            Event::CheckThenWrite { .. } => "isHeld() + debit",
            Event::Renew { .. } => "renew",
            Event::Watchdog { .. } => "watchdog",
            Event::Release { .. } => "release",
            Event::Crash { .. } => "crash",
            Event::ClockJump { .. } => "clock jump",
        }
    }

    fn fields(&self) -> &'static [Field] {
        match self {
            Event::Debit { .. } => &[Field::Amount, Field::Key, Field::Delay],
            Event::CheckThenWrite { .. } => &[Field::Amount, Field::Key, Field::Delay, Field::Gap],
            Event::Pause { .. } => &[Field::Cause, Field::Duration],
            Event::Release { .. } => &[Field::Mode],
            Event::ClockJump { .. } => &[Field::By],
            Event::Acquire { .. }
            | Event::Renew { .. }
            | Event::Watchdog { .. }
            | Event::Crash { .. } => &[],
        }
    }

    fn value(&self, f: Field) -> Option<String> {
        let v = match (self, f) {
            (Event::Debit { amount, .. } | Event::CheckThenWrite { amount, .. }, Field::Amount) => {
                amount.to_string()
            }
            (
                Event::Debit {
                    idempotency_key, ..
                }
                | Event::CheckThenWrite {
                    idempotency_key, ..
                },
                Field::Key,
            ) => idempotency_key.clone().unwrap_or_default(),
            (
                Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. },
                Field::Delay,
            ) => delay_ms.to_string(),
            (Event::CheckThenWrite { gap_ms, .. }, Field::Gap) => gap_ms.to_string(),
            (Event::Pause { cause, .. }, Field::Cause) => CAUSES
                .iter()
                .find(|(c, _)| c == cause)
                .map(|(_, v)| v.to_string())?,
            (Event::Pause { duration_ms, .. }, Field::Duration) => duration_ms.to_string(),
            (Event::Release { mode, .. }, Field::Mode) => MODES
                .iter()
                .find(|(m, ..)| m == mode)
                .map(|(_, v, _)| v.to_string())?,
            (Event::ClockJump { by_ms, .. }, Field::By) => by_ms.to_string(),
            _ => return None,
        };
        Some(v)
    }

    fn with_field(&self, f: Field, v: &str) -> Result<Event, String> {
        let max_ms = MAX_TIME_MS as i64;
        let ms = |min: i64| whole(f.label(), v, min, max_ms).map(|n| n as u64);
        let mut e = self.clone();
        match (&mut e, f) {
            (Event::Debit { amount, .. } | Event::CheckThenWrite { amount, .. }, Field::Amount) => {
                *amount = whole(f.label(), v, 0, MAX_AMOUNT)?
            }
            (
                Event::Debit {
                    idempotency_key, ..
                }
                | Event::CheckThenWrite {
                    idempotency_key, ..
                },
                Field::Key,
            ) => {
                let k = v.trim();
                *idempotency_key = (!k.is_empty()).then(|| k.to_string());
            }
            (
                Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. },
                Field::Delay,
            ) => *delay_ms = ms(0)?,
            (Event::CheckThenWrite { gap_ms, .. }, Field::Gap) => *gap_ms = ms(0)?,
            (Event::Pause { cause, .. }, Field::Cause) => {
                *cause = CAUSES
                    .iter()
                    .find(|(_, name)| *name == v)
                    .map(|(c, _)| *c)
                    .ok_or_else(|| format!("cause: no pause cause is called {v:?}"))?
            }
            (Event::Pause { duration_ms, .. }, Field::Duration) => *duration_ms = ms(1)?,
            (Event::Release { mode, .. }, Field::Mode) => {
                *mode = MODES
                    .iter()
                    .find(|(_, name, _)| *name == v)
                    .map(|(m, ..)| *m)
                    .ok_or_else(|| format!("release: no release mode is called {v:?}"))?
            }
            (Event::ClockJump { by_ms, .. }, Field::By) => {
                *by_ms = whole(f.label(), v, -max_ms, max_ms)?
            }
            (e, f) => return Err(no_such_field(e.kind_label(), f)),
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{PauseCause, ReleaseKind};

    fn debit() -> Event {
        Event::Debit {
            at_ms: 40,
            amount: 10,
            idempotency_key: None,
            delay_ms: 0,
        }
    }

    fn check_then_write() -> Event {
        Event::CheckThenWrite {
            at_ms: 40,
            amount: 10,
            idempotency_key: Some("k1".into()),
            delay_ms: 0,
            gap_ms: 2,
        }
    }

    #[track_caller]
    fn check(e: &Event, f: Field, v: &str, want: Result<Event, &str>) {
        let got = e.with_field(f, v);
        match (&got, &want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{f:?}={v:?}"),
            (Err(g), Err(w)) => assert!(g.contains(w), "{f:?}={v:?}: {g:?} lacks {w:?}"),
            _ => panic!("{f:?}={v:?}: got {got:?}, wanted {want:?}"),
        }
    }

    #[test]
    fn numbers_within_the_scenario_limits_are_taken() {
        let d = debit();
        let with = |amount, key: Option<&str>, delay_ms| Event::Debit {
            at_ms: 40,
            amount,
            idempotency_key: key.map(str::to_string),
            delay_ms,
        };
        check(&d, Field::Amount, "25", Ok(with(25, None, 0)));
        check(&d, Field::Amount, " 0 ", Ok(with(0, None, 0)));
        check(
            &d,
            Field::Amount,
            "1000000000",
            Ok(with(1_000_000_000, None, 0)),
        );
        check(&d, Field::Delay, "20", Ok(with(10, None, 20)));
        check(&d, Field::Key, " pay-1 ", Ok(with(10, Some("pay-1"), 0)));
        let keyed = with(10, Some("pay-1"), 0);
        check(&keyed, Field::Key, "", Ok(with(10, None, 0)));
        let c = check_then_write();
        check(
            &c,
            Field::Gap,
            "0",
            Ok(Event::CheckThenWrite {
                at_ms: 40,
                amount: 10,
                idempotency_key: Some("k1".into()),
                delay_ms: 0,
                gap_ms: 0,
            }),
        );
        let jump = Event::ClockJump {
            at_ms: 5,
            by_ms: 30,
        };
        check(
            &jump,
            Field::By,
            "-45",
            Ok(Event::ClockJump {
                at_ms: 5,
                by_ms: -45,
            }),
        );
    }

    #[test]
    fn negative_huge_and_non_numbers_are_refused_naming_the_field() {
        let d = debit();
        let amount = "amount: expected a whole number from 0 to 1000000000";
        check(&d, Field::Amount, "-3", Err(amount));
        check(&d, Field::Amount, "-3", Err("got \"-3\""));
        check(&d, Field::Amount, "1000000001", Err(amount));
        check(&d, Field::Amount, "99999999999999999999999", Err(amount));
        check(&d, Field::Amount, "ten", Err("got \"ten\""));
        check(&d, Field::Amount, "1.5", Err(amount));
        check(&d, Field::Amount, "", Err(amount));
        check(&d, Field::Delay, "-1", Err("delay ms: expected"));
        check(&d, Field::Delay, "10000001", Err("delay ms: expected"));
        check(&check_then_write(), Field::Gap, "x", Err("gap ms:"));
        let pause = Event::Pause {
            at_ms: 5,
            duration_ms: 40,
            cause: PauseCause::Gc,
        };
        check(&pause, Field::Duration, "0", Err("duration ms: expected"));
        check(&pause, Field::Cause, "nap", Err("cause:"));
        let jump = Event::ClockJump { at_ms: 5, by_ms: 0 };
        check(&jump, Field::By, "-10000001", Err("by ms: expected"));
        // A field the event does not have.
        check(&d, Field::Gap, "3", Err("a debit has no gap ms"));
        // A pasted essay is echoed only in part.
        let long = "9".repeat(500);
        let refused = d.with_field(Field::Amount, &long).unwrap_err();
        assert!(refused.len() < 120, "{refused}");
    }

    #[test]
    fn selects_round_trip_through_their_option_values() {
        for (cause, v) in CAUSES {
            let p = Event::Pause {
                at_ms: 5,
                duration_ms: 40,
                cause: PauseCause::Gc,
            };
            let e = p.with_field(Field::Cause, v).expect("a cause");
            assert_eq!(e.value(Field::Cause).as_deref(), Some(v));
            assert!(matches!(e, Event::Pause { cause: c, .. } if c == cause));
        }
        for (mode, v, _) in MODES {
            let r = Event::Release {
                at_ms: 5,
                mode: ReleaseKind::TokenChecked,
            };
            let e = r.with_field(Field::Mode, v).expect("a mode");
            assert_eq!(e, Event::Release { at_ms: 5, mode });
            assert_eq!(e.value(Field::Mode).as_deref(), Some(v));
        }
        assert!(Event::Release {
            at_ms: 5,
            mode: ReleaseKind::TokenChecked
        }
        .with_field(Field::Mode, "DEL")
        .is_err());
    }

    #[test]
    fn every_listed_field_has_a_value_and_no_other_does() {
        let all = [
            Field::Amount,
            Field::Key,
            Field::Delay,
            Field::Gap,
            Field::Cause,
            Field::Duration,
            Field::Mode,
            Field::By,
        ];
        let events = [
            Event::Acquire { at_ms: 0 },
            debit(),
            check_then_write(),
            Event::Pause {
                at_ms: 1,
                duration_ms: 2,
                cause: PauseCause::Sigstop,
            },
            Event::Release {
                at_ms: 3,
                mode: ReleaseKind::BareDel,
            },
            Event::ClockJump { at_ms: 4, by_ms: 7 },
            Event::Crash { at_ms: 9 },
        ];
        for e in &events {
            for f in all {
                let listed = e.fields().contains(&f);
                assert_eq!(e.value(f).is_some(), listed, "{e:?} {f:?}");
                // Writing a field's own value back changes nothing.
                if let Some(v) = e.value(f) {
                    assert_eq!(e.with_field(f, &v).as_ref(), Ok(e), "{f:?}");
                }
            }
        }
        assert_eq!(check_then_write().value(Field::Key).as_deref(), Some("k1"));
    }
}
