//! The fields of an event that a drag cannot say, as one enum for client and instance events,
//! and the reading of what a person typed into one. A refusal always starts with the field's
//! label, so the notice says which field was wrong; an accepted number is within the
//! scenario's own limits or left for `validate` to refuse by its JSON path.

use crate::sim::{PauseCause, ReleaseKind};

/// One editable field of an event on a lane.
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
    /// When the event happens (instance events).
    At,
    /// How long a clock jump slews (0: a step).
    Over,
    /// Whether a crashed instance keeps its keys.
    Keep,
    /// Which client a partition cuts off (empty: every client).
    Who,
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
            Field::At => "at ms",
            Field::Over => "over ms",
            Field::Keep => "keeps keys",
            Field::Who => "cut off from",
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
            Field::At => "at",
            Field::Over => "over",
            Field::Keep => "keep",
            Field::Who => "who",
        }
    }
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

/// A whole number of at least `min` for field `f`, or a refusal naming it. No upper limit:
/// a number past the scenario's limits is left for `validate`, which names the JSON field.
pub fn at_least(f: Field, v: &str, min: i64) -> Result<i64, String> {
    let t = v.trim();
    match t.parse::<i64>() {
        Ok(n) if n >= min => Ok(n),
        _ => {
            let shown: String = t.chars().take(24).collect();
            let from = if min == i64::MIN {
                String::new()
            } else {
                format!(" from {min}")
            };
            Err(format!(
                "{}: expected a whole number{from}, got {shown:?}",
                f.label()
            ))
        }
    }
}
