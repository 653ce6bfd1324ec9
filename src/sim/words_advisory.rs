//! The words of a PostgreSQL advisory-lock run, for the steps and the narration: "session",
//! "advisory lock 42", and never a fence, because the lock mints none. Apart from `words.rs`
//! and `narrate.rs` so that each stays short.

use super::trace::*;

/// "advisory lock 42".
pub fn lock_name(trace: &Trace) -> String {
    match &trace.advisory {
        Some(a) => format!("advisory lock {}", a.lock_id),
        None => "the advisory lock".to_string(),
    }
}

fn transaction_level(trace: &Trace) -> bool {
    trace
        .advisory
        .as_ref()
        .is_some_and(|a| a.level == "transaction")
}

/// The SQL that takes the lock, as the client sends it.
pub fn lock_sql(trace: &Trace) -> String {
    let id = trace.advisory.as_ref().map_or(0, |a| a.lock_id);
    if transaction_level(trace) {
        format!("BEGIN; SELECT pg_advisory_xact_lock({id})")
    } else {
        format!("SELECT pg_advisory_lock({id})")
    }
}

/// The SQL that gives it back.
pub fn unlock_sql(trace: &Trace) -> String {
    let id = trace.advisory.as_ref().map_or(0, |a| a.lock_id);
    if transaction_level(trace) {
        "COMMIT".to_string()
    } else {
        format!("SELECT pg_advisory_unlock({id})")
    }
}

pub fn granted(trace: &Trace) -> String {
    format!(
        "{} held by its session: no expiry, no fence",
        lock_name(trace)
    )
}

pub fn waits(trace: &Trace, behind: &str) -> String {
    format!("{} waits: {behind}'s session holds it", lock_sql(trace))
}

pub fn gone(why: SessionEnd) -> String {
    format!("its session is gone ({}): the lock with it", why.text())
}

pub fn released(trace: &Trace, own: bool) -> String {
    match (own, transaction_level(trace)) {
        (true, false) => format!("pg_advisory_unlock: released {}", lock_name(trace)),
        (true, true) => format!(
            "COMMIT: the transaction ends and {} with it",
            lock_name(trace)
        ),
        (false, false) => format!(
            "pg_advisory_unlock returned false: its session does not hold {}",
            lock_name(trace)
        ),
        (false, true) => "COMMIT: no transaction in progress (it already ended)".to_string(),
    }
}

pub fn rejected_text() -> String {
    "rejected session_gone: the writer's session had ended, nothing committed".to_string()
}

/// The narration's sentence for a step of an advisory run, where it differs from the others.
pub fn narrate(trace: &Trace, step: &Step) -> Option<String> {
    let who = trace.client_name(step.client);
    let t = step.at_ms;
    let lock = lock_name(trace);
    Some(match &step.outcome {
        Outcome::Granted { .. } => format!(
            "At {t} ms {who}'s session got {lock} ({}). PostgreSQL mints no fence and sets no expiry: the lock lasts as long as the session{}.",
            lock_sql(trace),
            if transaction_level(trace) { "'s transaction" } else { "" }
        ),
        Outcome::LockWaits { behind } => format!(
            "At {t} ms {who} asked for {lock} and blocks: {behind}'s session holds it, and PostgreSQL frees it only when that session unlocks or ends."
        ),
        Outcome::SessionGone { why } => format!(
            "At {t} ms {who} found its session gone ({}); whatever it believed, it no longer holds {lock}.",
            why.text()
        ),
        Outcome::Released { own, .. } => format!("At {t} ms {who}: {}.", released(trace, *own)),
        Outcome::Crashed => format!(
            "At {t} ms {who} crashed; its kernel closed the connection, so the server ended its session at once and {lock} with it."
        ),
        Outcome::Stored {
            verdict:
                DebitVerdict::Rejected {
                    reason: Rejection::SessionGone,
                    ..
                },
            ..
        } => format!(
            "PostgreSQL refused {who}'s UPDATE: it went on {who}'s own session, which had ended, so nothing committed (session_gone)."
        ),
        _ => return None,
    })
}

/// The server's side of the story: sessions it ended and failovers, one line each.
pub fn server_lines(trace: &Trace) -> Vec<(u64, String)> {
    let Some(a) = &trace.advisory else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &at in &a.failovers_ms {
        out.push((
            at,
            format!(
                "At {at} ms the primary failed over to a standby: advisory locks are not replicated, so the new primary holds no lock and every session is gone."
            ),
        ));
    }
    for s in &a.sessions {
        let holding = trace
            .leases
            .iter()
            .any(|l| l.holder == s.client && l.end_ms == s.end_ms && l.start_ms <= s.end_ms);
        let why = match s.end {
            SessionEnd::IdleTimeout
            | SessionEnd::IdleInTransactionTimeout
            | SessionEnd::Keepalive => s.end.text(),
            _ => continue,
        };
        let lost = if holding {
            format!(
                ", releasing {}; {} is not told",
                lock_name(trace),
                trace.client_name(s.client)
            )
        } else {
            String::new()
        };
        out.push((
            s.end_ms,
            format!(
                "At {} ms the server ended {}'s session (pid {}): {why}{lost}.",
                s.end_ms,
                trace.client_name(s.client),
                s.pid
            ),
        ));
    }
    out
}
