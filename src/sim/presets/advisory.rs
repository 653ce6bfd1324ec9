//! The PostgreSQL advisory-lock presets: a lock with no expiry and no fence, and the server
//! settings and events that end a session behind its client's back. Lock 42 at session level
//! unless a preset says otherwise; the account is separate storage that checks nothing, except
//! where the write goes inside the lock's transaction. Each caption names the assumption its
//! outcome rests on; `tests/advisory.rs` runs each one and checks the outcome it tells.

use super::{acquire, client, debit};
use crate::sim::account::FenceRule;
use crate::sim::scenario::*;

fn gc(at_ms: u64, duration_ms: u64) -> Event {
    Event::Pause {
        at_ms,
        duration_ms,
        cause: PauseCause::Gc,
    }
}

fn release(at_ms: u64) -> Event {
    Event::Release {
        at_ms,
        mode: ReleaseKind::TokenChecked,
    }
}

fn advisory(name: &str, caption: &str, a: Advisory, clients: Vec<Client>) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_string(),
        caption: caption.to_string(),
        tier: Tier::Correctness,
        end_ms: 100,
        key: "acct:1".to_string(),
        lock: LockSettings {
            fencing: false,
            service: LockService::Advisory(a),
            ..LockSettings::default()
        },
        storage: StorageSettings {
            fence_rule: FenceRule::Off,
            ..StorageSettings::default()
        },
        clients,
        step_limit: DEFAULT_STEP_LIMIT,
        seed: 0,
    }
}

/// A holds lock 42 and is frozen by a GC pause; its kernel keeps answering, so its session and
/// its lock stay. B's `pg_advisory_lock` blocks until A wakes and unlocks.
pub fn paused_holder() -> Scenario {
    advisory(
        "PostgreSQL: the paused holder keeps the lock",
        "A's session takes advisory lock 42 at 0 ms and a GC pause freezes A from 10 ms to \
         70 ms. A stopped process's kernel still answers TCP, so the server sees nothing wrong: \
         the session and its lock stay (no expiry). B asks at 20 ms and blocks. A wakes, \
         debits 10 and unlocks at 75 ms; only then does B get the lock and debit: balance 80. \
         Safe but stuck: an advisory lock trades the lease's risk for a liveness problem, B \
         waited 55 ms behind a process that did nothing. Assumes no idle timeout and no \
         failover.",
        Advisory::default(),
        vec![
            client(
                "A",
                vec![acquire(0), gc(10, 60), debit(72, 10), release(75)],
            ),
            client("B", vec![acquire(20), debit(80, 10), release(85)]),
        ],
    )
}

/// `idle_session_timeout` ends the paused holder's session: the lock becomes a lease.
pub fn idle_timeout() -> Scenario {
    advisory(
        "PostgreSQL: idle_session_timeout makes the lock a lease",
        "The paused holder again, with idle_session_timeout = 20 ms. A takes advisory lock 42 \
         at 0 ms and a GC pause freezes it from 5 ms, before its debit due at 10 ms. At 20 ms \
         the server ends A's idle session, and the lock goes with it; A is not told. B takes \
         lock 42 at 30 ms and debits 10. A wakes at 65 ms and sends the debit it had due, to \
         storage that never asks PostgreSQL: accepted, balance 80, the lost update. The \
         timeout bought liveness with the lease's risk, and no fence came with it. Assumes the \
         write goes to separate storage (not on A's session).",
        Advisory {
            idle_session_timeout_ms: Some(20),
            ..Advisory::default()
        },
        vec![
            client("A", vec![acquire(0), gc(5, 60), debit(10, 10), release(70)]),
            client("B", vec![acquire(30), debit(35, 10), release(45)]),
        ],
    )
}

/// The write goes inside the lock's transaction: a holder whose session died cannot commit.
pub fn in_transaction() -> Scenario {
    let mut s = advisory(
        "PostgreSQL: the write inside the lock's transaction",
        "The same pause, but the account is a table in the lock's own database and each debit \
         is an UPDATE in the lock's transaction: BEGIN; SELECT pg_advisory_xact_lock(42); \
         UPDATE ...; COMMIT. Inside an open transaction the setting that applies is \
         idle_in_transaction_session_timeout, here 20 ms: the server ends A's session at \
         20 ms, rolling the transaction back and freeing lock 42. B takes it at 30 ms, and its \
         UPDATE and COMMIT end its transaction and its lock. A wakes at 65 ms and sends its UPDATE on \
         its dead session: nothing commits (session_gone): balance 90. Safe because the write \
         and the lock are one session; no fence needed.",
        Advisory {
            level: AdvisoryLevel::Transaction,
            idle_in_transaction_timeout_ms: Some(20),
            ..Advisory::default()
        },
        vec![
            client("A", vec![acquire(0), gc(5, 60), debit(10, 10), release(70)]),
            client("B", vec![acquire(30), debit(35, 10)]),
        ],
    );
    s.storage.in_transaction = true;
    s
}

/// A failover to a standby loses every advisory lock: two holders.
pub fn failover() -> Scenario {
    advisory(
        "PostgreSQL: a failover loses the lock",
        "A takes advisory lock 42 at 0 ms. At 30 ms the primary fails over to a standby; \
         advisory locks live in the primary's memory and are not replicated, so the new \
         primary holds none. B takes lock 42 at 40 ms and debits 10 at 45 ms. A, which sent \
         nothing to PostgreSQL since, still believes it holds the lock and debits 10 at \
         50 ms: both are accepted, balance 80, two holders. Assumes the write goes to separate \
         storage; on A's own session it would have failed with the session.",
        Advisory {
            events: vec![ServerEvent::Failover { at_ms: 30 }],
            ..Advisory::default()
        },
        vec![
            client("A", vec![acquire(0), debit(50, 10), release(70)]),
            client("B", vec![acquire(40), debit(45, 10), release(60)]),
        ],
    )
}

/// A killed holder: its kernel closes the socket, and the server frees the lock at once.
pub fn killed_holder() -> Scenario {
    advisory(
        "PostgreSQL: a killed holder frees the lock at once",
        "A takes advisory lock 42 at 0 ms and debits 10; B asks at 10 ms and blocks. A's \
         process is killed at 20 ms: its kernel closes the connection, the server sees it at \
         once and ends A's session, and B's pg_advisory_lock returns at 20 ms. B debits: \
         balance 80. Safe, with no wait for a timeout. Assumes a kill, not a partition: a \
         client cut off by the network keeps its lock until the server's TCP keepalive gives \
         up (Linux's defaults: 7200 s + 9 × 75 s, about 2 h 11 min).",
        Advisory::default(),
        vec![
            client(
                "A",
                vec![acquire(0), debit(5, 10), Event::Crash { at_ms: 20 }],
            ),
            client("B", vec![acquire(10), debit(25, 10), release(30)]),
        ],
    )
}
