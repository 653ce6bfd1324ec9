//! Lessons: a path through the argument, one preset each, with a question asked before the run
//! is shown and a challenge checked on every edit.
//!
//! Nothing here is an answer written by hand. A lesson names its preset and the *kind* of
//! question; the choices, the right one and the one-sentence reason are read off the run
//! ([`predict`]), so a change to the scenario or the model changes them. A challenge is a goal
//! on the run and a rule on what may be edited; whether an edited scenario meets it is decided
//! by running it ([`challenge_status`]).

pub mod catalog;
pub mod kinds;

use crate::sim::presets;
use crate::sim::scenario::Scenario;
use crate::sim::trace::Trace;
use crate::sim::words;

pub use catalog::LESSONS;
pub use kinds::{Challenge, Goal, Keep, Lesson, Question};

/// A question made concrete by a run: what to ask, the choices, which is right, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    pub prompt: String,
    pub choices: Vec<String>,
    /// Index into `choices`.
    pub answer: usize,
    /// One sentence, from the run, that says why the answer is right.
    pub reason: String,
}

/// Where an edited scenario stands against a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Met,
    NotYet,
    /// The edit changed what the challenge keeps: the words say what.
    OffLimits(String),
}

/// The lesson named `id`.
pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

/// The lesson's scenario: its preset.
pub fn scenario(l: &Lesson) -> Result<Scenario, String> {
    presets::preset(l.preset)
        .ok_or_else(|| format!("lesson {}: no preset named {:?}", l.id, l.preset))
}

/// The question made concrete by `trace`, the run of `s`.
pub fn predict(q: &Question, s: &Scenario, trace: &Trace) -> Result<Prediction, String> {
    match *q {
        Question::FinalBalance => Ok(final_balance(s, trace)),
        Question::Debit { client, nth } => debit(trace, client, nth),
        Question::HolderAt { at_ms } => Ok(holder_at(trace, at_ms)),
        Question::Safe => Ok(safe(trace)),
    }
}

fn client_name(trace: &Trace, i: usize) -> &str {
    trace.clients.get(i).map(String::as_str).unwrap_or("?")
}

/// The ledger in words: each debit that reached the storage, in the order it arrived, who sent
/// it and what it got.
fn ledger_words(trace: &Trace) -> String {
    let mut arrived: Vec<&crate::sim::trace::WriteRecord> = trace
        .writes
        .iter()
        .filter(|w| w.verdict.is_some())
        .collect();
    crate::sim::sort::sort_by_key(&mut arrived, |w| w.arrived_ms);
    let parts: Vec<String> = arrived
        .iter()
        .filter_map(|w| {
            let v = w.verdict.as_ref()?;
            Some(format!(
                "{}'s {} at {} ms: {}",
                client_name(trace, w.client),
                w.amount,
                w.arrived_ms,
                words::verdict_text(v)
            ))
        })
        .collect();
    if parts.is_empty() {
        "no debit reached the storage".to_string()
    } else {
        parts.join("; ")
    }
}

/// Choices: the true balance beside the two a reader is likely to believe (every debit went
/// through; only the first did), and the untouched balance when those coincide.
fn final_balance(s: &Scenario, trace: &Trace) -> Prediction {
    let start = s.storage.balance;
    let reached: Vec<i64> = trace
        .writes
        .iter()
        .filter(|w| w.verdict.is_some())
        .map(|w| w.amount)
        .collect();
    let mut values = vec![
        trace.final_balance,
        start - reached.iter().sum::<i64>(),
        start - reached.first().copied().unwrap_or(0),
        start,
    ];
    values.sort_unstable();
    values.dedup();
    values.reverse();
    let answer = values
        .iter()
        .position(|&v| v == trace.final_balance)
        .unwrap_or(0);
    Prediction {
        prompt: format!("The account starts at {start}. What is its balance when the run ends?"),
        choices: values.iter().map(|v| v.to_string()).collect(),
        answer,
        reason: format!(
            "{}: the balance is {}.",
            ledger_words(trace),
            trace.final_balance
        ),
    }
}

fn debit(trace: &Trace, client: &str, nth: usize) -> Result<Prediction, String> {
    let ci = trace
        .clients
        .iter()
        .position(|c| c == client)
        .ok_or_else(|| format!("no client named {client:?}"))?;
    let w = trace
        .writes
        .iter()
        .filter(|w| w.client == ci)
        .nth(nth)
        .ok_or_else(|| format!("{client} sends no debit number {}", nth + 1))?;
    let choices = vec![
        "accepted".to_string(),
        "refused by the storage".to_string(),
        "never reaches the storage".to_string(),
    ];
    let (answer, reason) = match &w.verdict {
        Some(v) if v.is_accepted() => (
            0,
            format!(
                "{client}'s debit of {} arrives at {} ms: {}.",
                w.amount,
                w.arrived_ms,
                words::verdict_text(v)
            ),
        ),
        Some(v) => (
            1,
            format!(
                "{client}'s debit of {} arrives at {} ms: {}.",
                w.amount,
                w.arrived_ms,
                words::verdict_text(v)
            ),
        ),
        None => (
            2,
            format!(
                "{client}'s debit of {}, sent at {} ms, is still on its way when the run ends.",
                w.amount, w.sent_ms
            ),
        ),
    };
    let which = if nth == 0 {
        "first debit".to_string()
    } else {
        format!("debit number {}", nth + 1)
    };
    Ok(Prediction {
        prompt: format!(
            "{client}'s {which} (of {}, sent at {} ms): what does the storage do with it?",
            w.amount, w.sent_ms
        ),
        choices,
        answer,
        reason,
    })
}

fn holder_at(trace: &Trace, at_ms: u64) -> Prediction {
    let holding = trace
        .majorities
        .iter()
        .find(|h| h.start_ms <= at_ms && at_ms < h.end_ms);
    let mut choices: Vec<String> = trace.clients.clone();
    choices.push("nobody".to_string());
    let (answer, reason) = match holding {
        Some(h) => (
            h.client,
            format!(
                "{} holds the lock from {} to {} ms.",
                client_name(trace, h.client),
                h.start_ms,
                h.end_ms
            ),
        ),
        None => {
            let before = trace
                .leases
                .iter()
                .filter(|l| l.end_ms <= at_ms)
                .max_by_key(|l| l.end_ms);
            let why = match before {
                Some(l) => format!(
                    "{}'s lease ended at {} ms ({}), and no one holds it at {at_ms} ms.",
                    client_name(trace, l.holder),
                    l.end_ms,
                    words::span_end_words(&l.end)
                ),
                None => format!("No one has been granted the lock by {at_ms} ms."),
            };
            (trace.clients.len(), why)
        }
    };
    Prediction {
        prompt: format!("Who holds the lock at {at_ms} ms, as the lock service sees it?"),
        choices,
        answer,
        reason,
    }
}

fn safe(trace: &Trace) -> Prediction {
    let answer = if trace.verdict.safe { 0 } else { 1 };
    Prediction {
        prompt: "Will the checker call this run safe, for the tier it is in?".to_string(),
        choices: vec!["safe".to_string(), "unsafe".to_string()],
        answer,
        reason: {
            let mut r = format!("{}. {}", ledger_words(trace), words::outcome_text(trace));
            for note in &trace.verdict.notes {
                r.push_str(&format!(". {note}"));
            }
            r
        },
    }
}

/// Whether `edited` (the reader's version of the lesson's `original`) meets the challenge, by
/// its run `trace`.
pub fn challenge_status(
    c: &Challenge,
    original: &Scenario,
    edited: &Scenario,
    trace: &Trace,
) -> Status {
    let lock_changed = original.lock != edited.lock;
    let storage_changed = original.storage != edited.storage;
    let off = match c.keep {
        Keep::Lock if lock_changed => Some("the lock's settings changed; this one keeps them"),
        Keep::Storage if storage_changed => {
            Some("the storage's settings changed; this one keeps them")
        }
        Keep::LockAndStorage if lock_changed || storage_changed => {
            Some("only the timeline may change here: the lock's and the storage's settings stay")
        }
        _ => None,
    };
    if let Some(why) = off {
        return Status::OffLimits(why.to_string());
    }
    let met = match c.goal {
        Goal::Unsafe => !trace.verdict.safe,
        Goal::SafeWithWork => {
            trace.verdict.safe
                && trace
                    .writes
                    .iter()
                    .any(|w| w.verdict.as_ref().is_some_and(|v| v.is_accepted()))
        }
    };
    if met {
        Status::Met
    } else {
        Status::NotYet
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{run, FenceRule};

    fn challenge(keep: Keep) -> Challenge {
        Challenge {
            text: "",
            goal: Goal::Unsafe,
            keep,
        }
    }

    #[test]
    fn what_a_challenge_keeps_decides_which_edits_are_off_limits() {
        let original = presets::preset("gc-pause-fenced").expect("the preset exists");
        let mut storage = original.clone();
        storage.storage.fence_rule = FenceRule::Off;
        let mut lock = original.clone();
        lock.lock.ttl_ms = 60;
        let mut timeline = original.clone();
        timeline.clients[0].events.pop();
        for (keep, edit, off) in [
            (Keep::Lock, &storage, false),
            (Keep::Lock, &lock, true),
            (Keep::Storage, &storage, true),
            (Keep::Storage, &lock, false),
            (Keep::LockAndStorage, &storage, true),
            (Keep::LockAndStorage, &lock, true),
            (Keep::LockAndStorage, &timeline, false),
        ] {
            let got = challenge_status(&challenge(keep), &original, edit, &run(edit));
            assert_eq!(
                matches!(got, Status::OffLimits(_)),
                off,
                "{keep:?}: {got:?}"
            );
        }
        // Off fencing loses B's update: the goal is met when the edit is allowed.
        assert_eq!(
            challenge_status(&challenge(Keep::Lock), &original, &storage, &run(&storage)),
            Status::Met
        );
    }
}
