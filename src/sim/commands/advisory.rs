//! The SQL each client sends for a PostgreSQL advisory-lock run, with what the server answers:
//! `pg_advisory_lock` / `pg_advisory_xact_lock`, `pg_advisory_unlock` / `COMMIT`, and each
//! debit as an `UPDATE` (on the lock's own session when the write goes there). The lab does not
//! replay these yet: every entry is a `Note` to it, so nothing here claims a real server
//! answered so.

use super::command::{Act, Command, Who};
use super::ops::Line;
use crate::sim::scenario::Scenario;
use crate::sim::trace::*;
use crate::sim::words;
use crate::sim::words_advisory::{lock_sql, unlock_sql};

fn entry(at_ms: u64, who: Who, step: Option<usize>, lines: Vec<Line>) -> Command {
    Command {
        at_ms,
        who,
        step,
        act: Act::Note,
        lines,
    }
}

/// The backend pid of the client's session at `t`.
fn pid_at(a: &AdvisoryTrace, client: usize, t: u64) -> Option<u64> {
    a.sessions
        .iter()
        .rfind(|x| x.client == client && x.start_ms <= t)
        .map(|x| x.pid)
}

/// Every statement of the run of `s` that produced `t`, in time order.
pub fn plan(s: &Scenario, t: &Trace) -> Vec<Command> {
    let Some(a) = &t.advisory else {
        return Vec::new();
    };
    let mut out = vec![entry(
        0,
        Who::Setup,
        None,
        vec![
            Line::note(format!(
                "PostgreSQL 15, {}-level advisory lock {}; no fence, no expiry",
                a.level, a.lock_id
            )),
            Line::new(
                format!(
                    "ALTER SYSTEM SET idle_session_timeout = '{}ms'",
                    a.idle_session_timeout_ms.unwrap_or(0)
                ),
                "ALTER SYSTEM",
            ),
            Line::new(
                format!(
                    "ALTER SYSTEM SET idle_in_transaction_session_timeout = '{}ms'",
                    a.idle_in_transaction_timeout_ms.unwrap_or(0)
                ),
                "ALTER SYSTEM",
            ),
            Line::note(format!(
                "the server's TCP keepalive gives up on a silent client after {} ms",
                a.keepalive_ms
            )),
        ],
    )];
    let mut timed: Vec<(u64, usize, Command)> = Vec::new();
    for (k, &at) in a.failovers_ms.iter().enumerate() {
        let line =
            Line::note("failover: the standby is promoted, with no sessions and no advisory locks");
        timed.push((at, k, entry(at, Who::Instance(0), None, vec![line])));
    }
    for x in &a.sessions {
        if matches!(
            x.end,
            SessionEnd::IdleTimeout | SessionEnd::IdleInTransactionTimeout | SessionEnd::Keepalive
        ) {
            let line = Line::note(format!(
                "the server ends backend {} ({}'s): {}",
                x.pid,
                t.client_name(x.client),
                x.end.text()
            ));
            timed.push((
                x.end_ms,
                0,
                entry(x.end_ms, Who::Instance(0), None, vec![line]),
            ));
        }
    }
    let id = a.lock_id;
    for (i, step) in t.steps.iter().enumerate() {
        let c = step.client;
        let at = step.at_ms;
        let pid = pid_at(a, c, at).map_or(String::new(), |p| format!("  (backend {p})"));
        let waited = a.waits.iter().any(|w| w.client == c && w.end_ms == at);
        let lines = match &step.outcome {
            Outcome::Granted { .. } if waited => vec![Line::new(
                "(the waiting lock call returns)",
                format!("locked{pid}"),
            )],
            Outcome::Granted { .. } => vec![Line::new(lock_sql(t), format!("locked{pid}"))],
            Outcome::LockWaits { behind } => vec![Line::new(
                lock_sql(t),
                format!("(blocks: {behind}'s session holds lock {id}){pid}"),
            )],
            Outcome::SessionGone { why } => vec![Line::new(
                "(the next statement on the connection)",
                format!("ERROR: server closed the connection ({})", why.text()),
            )],
            Outcome::Released { own, .. } => {
                let reply = match (own, a.level.as_str()) {
                    (true, "transaction") => "COMMIT",
                    (false, "transaction") => "WARNING: there is no transaction in progress",
                    (true, _) => "t",
                    (false, _) => "f  (WARNING: you don't own a lock of type ExclusiveLock)",
                };
                vec![Line::new(unlock_sql(t), reply)]
            }
            Outcome::DebitSent { write } if a.in_transaction => {
                let amount = t.writes.get(*write).map_or(0, |w| w.amount);
                let sql = if a.level == "transaction" {
                    format!(
                        "UPDATE accounts SET balance = balance - {amount} WHERE id = '{}'; COMMIT",
                        s.key
                    )
                } else {
                    format!("BEGIN; UPDATE accounts SET balance = balance - {amount} WHERE id = '{}'; COMMIT", s.key)
                };
                vec![Line::new(sql, "(on the lock's own session)")]
            }
            Outcome::Stored { verdict, .. } if a.in_transaction => vec![Line::note(format!(
                "PostgreSQL: {}",
                words::verdict_text(verdict)
            ))],
            Outcome::Stored { verdict, .. } => vec![Line::note(format!(
                "storage: {}",
                words::verdict_text(verdict)
            ))],
            _ => vec![Line::note(step.text.clone())],
        };
        timed.push((at, usize::MAX, entry(at, Who::Client(c), Some(i), lines)));
    }
    // Server events first at an instant, then the clients' steps in the run's order.
    crate::sim::sort::sort_by_key(&mut timed, |(at, class, _)| (*at, *class == usize::MAX));
    out.extend(timed.into_iter().map(|(_, _, c)| c));
    out
}
