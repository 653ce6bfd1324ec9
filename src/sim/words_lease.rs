//! The words of a database-lease run, for the steps and the narration: "the lease row",
//! "generation 34", and whose clock judged expiry. Apart from `words.rs` and `narrate.rs` so
//! that each stays short.

use super::trace::*;

fn waiter_judges(trace: &Trace) -> bool {
    trace.lease.as_ref().is_some_and(|l| l.expiry == "waiter")
}

/// The guard's name, as the words use it (empty when there is none).
fn guard(trace: &Trace) -> &str {
    trace.lease.as_ref().map_or("none", |l| l.guard.as_str())
}

pub fn granted(fence: Option<u64>, lease_until_ms: u64, trace: &Trace) -> String {
    let g = fence.unwrap_or(0);
    if waiter_judges(trace) {
        format!("lease row taken: generation {g} (the fence); waiters judge its expiry by their own clocks")
    } else {
        format!("lease row taken: generation {g} (the fence), expires_at by the database's clock at {lease_until_ms} ms")
    }
}

pub fn denied(holder: &str) -> String {
    format!("acquire returned no row: {holder} holds a live lease")
}

pub fn waits(behind: &str) -> String {
    format!("reads the lease row, held by {behind}: waits a TTL by its own clock for it to change")
}

pub fn released(own: bool) -> String {
    if own {
        "released: holder set to NULL, the row keeps its generation".to_string()
    } else {
        "release updated no row: it no longer holds that generation".to_string()
    }
}

pub fn rejected_text(verdict: &DebitVerdict) -> String {
    match verdict {
        DebitVerdict::Rejected {
            reason: Rejection::UniqueViolation,
            token,
            ..
        } => format!(
            "rejected unique_violation: the ledger already has a line with generation {}",
            token.unwrap_or(0)
        ),
        DebitVerdict::Rejected { token, .. } => format!(
            "rejected lease_lost: no live lease row with its holder and generation {}, nothing committed",
            token.unwrap_or(0)
        ),
        _ => String::new(),
    }
}

/// The narration's sentence for a step of a lease run, where it differs from the others.
pub fn narrate(trace: &Trace, step: &Step) -> Option<String> {
    let who = trace.client_name(step.client);
    let t = step.at_ms;
    Some(match &step.outcome {
        Outcome::Granted {
            fence,
            lease_until_ms,
        } => {
            let g = fence.unwrap_or(0);
            if waiter_judges(trace) {
                format!(
                    "At {t} ms {who} got the lease row with generation {g}, its fence. The database judges no expiry: a waiter that sees the row unchanged for a TTL by its own clock takes it over."
                )
            } else {
                format!(
                    "At {t} ms {who} got the lease row with generation {g}, its fence; the database's now() says it expires at {lease_until_ms} ms."
                )
            }
        }
        Outcome::Denied { holder } => format!(
            "At {t} ms {who}'s acquire returned no row: {holder}'s lease is live by the database's clock."
        ),
        Outcome::LockWaits { behind } => format!(
            "At {t} ms {who} read the lease row, held by {behind}, and waits a TTL by its own clock; if the row has not changed by then, it takes it over."
        ),
        Outcome::Released { own, .. } => format!("At {t} ms {who}: {}.", released(*own)),
        Outcome::Crashed => format!(
            "At {t} ms {who} crashed; its row stays until {}.",
            if waiter_judges(trace) {
                "a waiter's clock says it expired"
            } else {
                "the database's clock passes its expires_at"
            }
        ),
        Outcome::Stored {
            verdict:
                verdict @ DebitVerdict::Rejected {
                    reason: Rejection::UniqueViolation | Rejection::LeaseLost,
                    ..
                },
            ..
        } => format!(
            "The database refused {who}'s debit: {} ({}).",
            rejected_text(verdict),
            guard(trace)
        ),
        _ => return None,
    })
}

/// The table's side of the story: takeovers a waiter made and failovers, one line each.
pub fn server_lines(trace: &Trace) -> Vec<(u64, String)> {
    let Some(l) = &trace.lease else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &at in &l.failovers_ms {
        let row = l
            .rows
            .iter()
            .find(|r| r.start_ms == at && r.why == RowChange::FailedOver);
        let back = match row {
            Some(r) => format!(
                "the row is back at generation {}{}, so the next takeover mints generation {} again",
                r.generation,
                r.holder
                    .map_or(String::new(), |h| format!(" held by {}", trace.client_name(h))),
                r.generation.saturating_add(1)
            ),
            None => "it had every change of the row".to_string(),
        };
        out.push((
            at,
            format!(
                "At {at} ms the primary failed over to an asynchronous standby that had not received the last takeover: {back}."
            ),
        ));
    }
    out
}
