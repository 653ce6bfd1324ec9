//! One Redlock scenario against real servers with independent clients (`redlock_run`): whether
//! it can be reproduced at all, then runs at growing scales while the machine misses the
//! timing or two events come too close to order, each judged by its history
//! (`redlock_history`).

use crate::check::{expiry_tie, moved_clocks, outcome_of, reclaim_tie, unreproducible};
use crate::check::{Outcome, Result};
use crate::servers::Postgres;
use fencing_playground::sim::commands;
use fencing_playground::sim::scenario::InstanceEvent;
use fencing_playground::sim::{Event, Scenario, Trace};
use std::time::{Duration, Instant};

/// What the lab's Redlock client does not run: an `isHeld()` check, which the model answers
/// by looking at every instance at one instant, with no network time.
pub fn redlock_unreproducible(s: &Scenario) -> Option<String> {
    s.lock.redlock()?;
    let c = s.clients.iter().find(|c| {
        c.events
            .iter()
            .any(|e| matches!(e, Event::CheckThenWrite { .. }))
    })?;
    Some(format!(
        "{}'s isHeld() + debit on Redlock: the model reads every instance's key at one instant, \
         with no network time and no timeout, which no client over a network does",
        c.name
    ))
}

/// How the lab does this scenario's instance faults, for the table.
pub fn notes(s: &Scenario) -> String {
    let Some(r) = s.lock.redlock() else {
        return String::new();
    };
    let has = |f: fn(&InstanceEvent) -> bool| r.instances.iter().any(|i| i.events.iter().any(f));
    let mut notes = Vec::new();
    if has(|e| matches!(e, InstanceEvent::Crash { .. })) {
        notes.push(
            "instance crash: SIGKILL of its redis-server; where it keeps its keys (append-only \
             file, fsync always) a new process on its files, else an empty redis-server started \
             before the run, as the restart would come up; while it is down the lab's proxy \
             in front of it answers nothing, as a crashed host",
        );
    }
    if has(|e| matches!(e, InstanceEvent::Partition { .. })) {
        notes.push(
            "partition: a real cut in the lab's proxy between that client and that instance, \
             which drops what the client sends while they are cut off (no netns)",
        );
    }
    if moved_clocks(s).iter().any(Option::is_some) {
        notes.push(
            "clock: a moved instance's redis-server runs with the lab's clock shim (LD_PRELOAD), \
             its wall clock offset as the model's clock for it reads",
        );
    }
    notes.join("; ")
}

/// A Redlock scenario: independent client processes against one `redis-server` per instance,
/// rerun at twice the scale while the timing is missed.
pub fn check_redlock(
    s: &Scenario,
    t: &Trace,
    pg: &Postgres,
    (scale, tries): (u64, u32),
    deadline: Instant,
    mut result: Result,
) -> Result {
    let plan = commands::commands(s, t);
    result.compared = crate::redlock_history::compared(s, t, &plan);
    result.note = notes(s);
    if let Some(why) = unreproducible(s)
        .or_else(|| expiry_tie(s, t, &plan))
        .or_else(|| crate::redlock_model::tie(s, t, &plan))
    {
        result.outcome = Outcome::NotReproducible(why);
        return result;
    }
    if Instant::now() >= deadline {
        result.outcome = Outcome::Late("the lab's time budget ran out before this preset".into());
        return result;
    }
    let mut last_run = Duration::ZERO;
    for n in 1..=tries.max(1) {
        if n > 1 && Instant::now() + last_run * 2 > deadline {
            break;
        }
        let scale = scale.saturating_mul(1 << (n - 1).min(4));
        if let Some(why) = reclaim_tie(s, t, scale) {
            crate::say!("{:<28} try {n} at scale {scale} is not run: {why}", "");
            result.outcome =
                Outcome::NotReproducible(format!("too close to call at every scale tried: {why}"));
            continue;
        }
        let began = Instant::now();
        result.tries = n;
        result.scale = scale;
        let run = match crate::redlock_run::replay(s, pg, scale) {
            Ok(r) => r,
            Err(e) => {
                result.outcome = Outcome::Failed(format!("the lab failed: {e}"));
                return result;
            }
        };
        last_run = began.elapsed();
        if std::env::var_os("FENCING_LAB_SHOW_LINES").is_some() {
            show(s, t, &plan, &run);
        }
        result.worst_late_ms = crate::redlock_history::worst_offset_ms(s, t, &plan, &run);
        let (outcome, again) = outcome_of(crate::redlock_history::judge(s, t, &plan, &run));
        result.outcome = outcome;
        if !again {
            return result;
        }
        crate::say!(
            "{:<28} try {n} at scale {scale} is rerun: {}",
            "",
            match &result.outcome {
                Outcome::Late(w) | Outcome::NotReproducible(w) => w.as_str(),
                _ => "",
            }
        );
    }
    result
}

/// Each client's facts as the model has them and as the run gave them, and its raw lines:
/// for looking into a run by hand.
fn show(s: &Scenario, t: &Trace, plan: &[commands::Command], run: &crate::redlock_run::Run) {
    let model = crate::redlock_model::model_facts(s, t, plan);
    let ops = crate::redlock_history::ops(&run.h).unwrap_or_default();
    let lab = crate::redlock_history::lab_facts(s, run, &ops);
    for (side, facts) in [("model", &model), ("lab", &lab)] {
        for (k, list) in facts.iter().enumerate() {
            for f in list {
                crate::say!(
                    "{:<28} {side:<5} {} {:>7.2} ms {} {:?}",
                    "",
                    t.client_name(k),
                    f.at_ms,
                    f.text,
                    f.validity
                );
            }
        }
    }
    for (k, lines) in run.h.lines.iter().enumerate() {
        for l in lines {
            crate::say!("{:<28} line  {} {l}", "", t.client_name(k));
        }
    }
}
