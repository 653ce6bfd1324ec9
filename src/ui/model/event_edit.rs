//! The fields of a client event that a drag cannot say: how much a debit takes, its idempotency
//! key and network delay, a check-then-write's gap, what stops a paused process and for how
//! long, how a release deletes the key, how far a client's clock jumps. Pure like `state`: the
//! inspector sends the text a person typed, and `with_field` either gives the edited event or
//! says, naming the field, why the text was refused, so the refusal is tested natively.

use crate::sim::scenario::{MAX_AMOUNT, MAX_TIME_MS};
use crate::sim::{Event, PauseCause, ReleaseKind};

/// One editable field of a client event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Amount,
    Key,
    Delay,
    Gap,
    Cause,
    Duration,
    Mode,
    By,
}

/// The pause causes the inspector offers, with the value each option carries.
pub const CAUSES: [(PauseCause, &str); 4] = [
    (PauseCause::Gc, "gc"),
    (PauseCause::Sigstop, "sigstop"),
    (PauseCause::PageFault, "page_fault"),
    (PauseCause::Network, "network"),
];

/// The release modes the inspector offers: (mode, option value, words).
pub const MODES: [(ReleaseKind, &str, &str); 2] = [
    (ReleaseKind::TokenChecked, "token_checked", "token-checked"),
    (ReleaseKind::BareDel, "bare_del", "bare DEL"),
];

impl Field {
    /// The words the inspector puts beside the field, and the name a refusal uses.
    pub fn label(self) -> &'static str {
        match self {
            Field::Amount => "amount",
            Field::Key => "idempotency key",
            Field::Delay => "delay ms",
            Field::Gap => "gap ms",
            Field::Cause => "cause",
            Field::Duration => "duration ms",
            Field::Mode => "release",
            Field::By => "by ms",
        }
    }

    /// The `data-testid` suffix of the field's input: `edit-amount`, `edit-key`, …
    pub fn attr(self) -> &'static str {
        match self {
            Field::Amount => "amount",
            Field::Key => "key",
            Field::Delay => "delay",
            Field::Gap => "gap",
            Field::Cause => "cause",
            Field::Duration => "duration",
            Field::Mode => "mode",
            Field::By => "by",
        }
    }
}

/// The fields an event has, in the order the inspector shows them.
pub fn fields(e: &Event) -> &'static [Field] {
    match e {
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

/// What the inspector calls an event.
pub fn kind_label(e: &Event) -> &'static str {
    match e {
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

/// The field's current value as its input shows it (the option value for a select), or `None`
/// if the event has no such field.
pub fn value(e: &Event, f: Field) -> Option<String> {
    let v = match (e, f) {
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
        (Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. }, Field::Delay) => {
            delay_ms.to_string()
        }
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

/// A whole number from `min` to `max` out of what a person typed, or a refusal naming `label`.
pub fn whole(label: &str, v: &str, min: i64, max: i64) -> Result<i64, String> {
    let t = v.trim();
    match t.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ if t.is_empty() => Err(format!(
            "{label}: expected a whole number from {min} to {max}"
        )),
        _ => {
            // Echo a bounded prefix: the notice is one line, whatever was pasted.
            let shown: String = t.chars().take(24).collect();
            Err(format!(
                "{label}: expected a whole number from {min} to {max}, got {shown:?}"
            ))
        }
    }
}

/// A copy of `e` with `f` set from the text `v`, or why the text was refused (naming the
/// field). Limits are the scenario's own, so an accepted value also passes `validate`.
pub fn with_field(e: &Event, f: Field, v: &str) -> Result<Event, String> {
    let max_ms = MAX_TIME_MS as i64;
    let ms = |min: i64| whole(f.label(), v, min, max_ms).map(|n| n as u64);
    let mut e = e.clone();
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
        (Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. }, Field::Delay) => {
            *delay_ms = ms(0)?
        }
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
        (e, f) => return Err(format!("a {} has no {}", kind_label(e), f.label())),
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let got = with_field(e, f, v);
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
        let refused = with_field(&d, Field::Amount, &long).unwrap_err();
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
            let e = with_field(&p, Field::Cause, v).expect("a cause");
            assert_eq!(value(&e, Field::Cause).as_deref(), Some(v));
            assert!(matches!(e, Event::Pause { cause: c, .. } if c == cause));
        }
        for (mode, v, _) in MODES {
            let r = Event::Release {
                at_ms: 5,
                mode: ReleaseKind::TokenChecked,
            };
            let e = with_field(&r, Field::Mode, v).expect("a mode");
            assert_eq!(e, Event::Release { at_ms: 5, mode });
            assert_eq!(value(&e, Field::Mode).as_deref(), Some(v));
        }
        assert!(with_field(
            &Event::Release {
                at_ms: 5,
                mode: ReleaseKind::TokenChecked
            },
            Field::Mode,
            "DEL"
        )
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
                let listed = fields(e).contains(&f);
                assert_eq!(value(e, f).is_some(), listed, "{e:?} {f:?}");
                // Writing a field's own value back changes nothing.
                if let Some(v) = value(e, f) {
                    assert_eq!(with_field(e, f, &v).as_ref(), Ok(e), "{f:?}");
                }
            }
        }
        assert_eq!(
            value(&check_then_write(), Field::Key).as_deref(),
            Some("k1")
        );
    }
}
