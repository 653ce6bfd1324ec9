//! The database-lease presets: a row in a `leases` table is the lock and its generation, raised
//! by every takeover, is the fence. TTL 30 ms, first generation 33, the database's `now()`
//! judges expiry and the account row compares generations strictly, unless a preset says
//! otherwise. Each caption names the assumption its outcome rests on; `tests/lease.rs` runs
//! each one and checks the outcome it tells, the broken variant beside the fixed one.

use super::{acquire, client, debit, keyed_debit};
use crate::sim::account::FenceRule;
use crate::sim::clock::{ClockJump, ClockSpec};
use crate::sim::scenario::*;

fn gc(at_ms: u64, duration_ms: u64) -> Event {
    Event::Pause {
        at_ms,
        duration_ms,
        cause: PauseCause::Gc,
    }
}

fn delayed(at_ms: u64, amount: i64, delay_ms: u64) -> Event {
    Event::Debit {
        at_ms,
        amount,
        idempotency_key: None,
        delay_ms,
    }
}

fn lease(name: &str, caption: &str, l: Lease, rule: FenceRule, clients: Vec<Client>) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_string(),
        caption: caption.to_string(),
        tier: Tier::Correctness,
        end_ms: 100,
        key: "acct:1".to_string(),
        lock: LockSettings {
            service: LockService::Lease(l),
            ..LockSettings::default()
        },
        storage: StorageSettings {
            fence_rule: rule,
            ..StorageSettings::default()
        },
        clients,
        step_limit: DEFAULT_STEP_LIMIT,
        seed: 0,
    }
}

/// A holds generation 33 and a GC pause outlives its lease; B takes the row over with 34 and
/// debits; A wakes and sends its debit with 33. `rule` is the account row's check.
pub fn paused_holder(rule: FenceRule) -> Scenario {
    let (name, outcome) = match rule {
        FenceRule::Off => (
            "Database lease: the paused holder, no check",
            "The account checks nothing, so A's late debit is accepted after B's: balance 80, \
             the lost update, although the database handed out generations all along.",
        ),
        _ => (
            "Database lease: the paused holder refused by its generation",
            "The debit is UPDATE accounts ... WHERE generation < $g: B's raised the account's \
             generation to 34, so A's with 33 updates no row. Balance 90.",
        ),
    };
    lease(
        name,
        &format!(
            "A takes the lease row at 0 ms (generation 33, expires_at = now() + 30 ms) and a GC \
             pause freezes it from 10 ms to 60 ms, its debit due at 15 ms. At 31 ms the \
             database's now() is past expires_at, so B's acquire takes the row over: generation \
             34. B debits at 32 ms. A wakes at 60 ms still believing it holds the lease and \
             sends its debit with 33. {outcome} Assumes the database's clock judges expiry and \
             the write carries the generation its statement returned."
        ),
        Lease::default(),
        rule,
        vec![
            client("A", vec![acquire(0), gc(10, 50), debit(15, 10)]),
            client("B", vec![acquire(31), debit(32, 10)]),
        ],
    )
}

/// The ledger's `UNIQUE(account, generation)`: one write per generation, the true retry
/// answered by its idempotency key, A's stale second write refused by the constraint.
pub fn unique_ledger() -> Scenario {
    let mut s = lease(
        "Database lease: a unique ledger refuses a second write with one generation",
        "Each debit inserts a ledger line under UNIQUE(account, generation); the account row \
         compares nothing. A takes generation 33 and sends debit pay-1 at 5 ms; the packet is \
         slow (10 ms), so A's client times out and retries pay-1 at 10 ms, which lands first. \
         When the original arrives at 15 ms, ON CONFLICT (account, idempotency_key) answers it: \
         already applied, not a constraint error. A GC pause then freezes A from 20 ms to \
         60 ms with a second debit, pay-2, due at 25 ms. B takes the row over at 31 ms \
         (generation 34) and debits pay-3. A wakes and sends pay-2 with 33: the ledger already \
         has a line with 33, and the constraint refuses it (unique_violation). Balance 80: \
         pay-1 once and pay-3. Assumes each holder writes once per generation: the constraint \
         refuses only an equal generation, so a stale holder that had not written under its \
         own would get through (the account's generation < $g is what refuses that).",
        Lease::default(),
        FenceRule::Off,
        vec![
            client(
                "A",
                vec![
                    acquire(0),
                    keyed_debit(5, 10, "pay-1", 10),
                    keyed_debit(10, 10, "pay-1", 0),
                    gc(20, 40),
                    keyed_debit(25, 10, "pay-2", 0),
                ],
            ),
            client("B", vec![acquire(31), keyed_debit(35, 10, "pay-3", 0)]),
        ],
    );
    s.storage.lease_guard = LeaseGuard::UniqueLedger;
    s
}

/// The write checks the live lease in its own statement: no number on the account at all.
pub fn live_lease() -> Scenario {
    let mut s = lease(
        "Database lease: the lease checked inside the write's statement",
        "The debit is one statement that also requires the live lease: UPDATE accounts ... \
         WHERE EXISTS (SELECT 1 FROM leases WHERE holder = $me AND generation = $g AND \
         expires_at > now() FOR SHARE). The account carries no generation. A takes generation \
         33 and sends a debit at 25 ms, while its lease is live, but the packet sits in the \
         network for 20 ms. B takes the row over at 31 ms (generation 34) and debits at \
         35 ms. A's statement runs when it arrives, at 45 ms: the row is B's, so it updates \
         nothing (lease_lost). Balance 90. Checking isHeld() in the client before sending \
         would have passed; the check counts only where the write commits. Assumes the \
         account and the lease are in one database, whose clock judges expiry.",
        Lease::default(),
        FenceRule::Off,
        vec![
            client("A", vec![acquire(0), delayed(25, 10, 20)]),
            client("B", vec![acquire(31), debit(35, 10)]),
        ],
    );
    s.storage.lease_guard = LeaseGuard::LiveLease;
    s
}

/// The waiter's clock judges expiry, and B's steps forward: B takes the row over while A's
/// lease is live by every other clock.
pub fn fast_waiter(rule: FenceRule) -> Scenario {
    let (name, outcome) = match rule {
        FenceRule::Off => (
            "Database lease: the waiter's fast clock, no check",
            "The account checks nothing: both debits land, balance 80, two writers at once.",
        ),
        _ => (
            "Database lease: the waiter's fast clock, fenced",
            "B's debit raised the account's generation to 34, so A's with 33 updates no row: \
             balance 90. Two clients believed they held the lease; one write counted.",
        ),
    };
    let mut b = client("B", vec![acquire(5), debit(16, 10)]);
    b.clock = ClockSpec {
        jumps: vec![ClockJump {
            at_ms: 10,
            by_ms: 20,
            over_ms: 0,
        }],
        ..ClockSpec::default()
    };
    lease(
        name,
        &format!(
            "Expiry judged by the waiter, as Kubernetes' Lease and DynamoDB's lock client do: \
             a waiter that sees the row unchanged for a TTL by its own clock takes it over with \
             a compare-and-set on the generation. A takes generation 33 at 0 ms and debits at \
             25 ms, inside its 30 ms lease by its own clock and the database's. B reads the row \
             at 5 ms, but NTP steps B's clock 20 ms forward at 10 ms, so B's 30 ms are up at \
             15 ms: B takes the row over (generation 34) and debits at 16 ms. {outcome} Assumes \
             nobody checks the database's clock, and A does not renew."
        ),
        Lease {
            expiry: LeaseExpiry::Waiter,
            ..Lease::default()
        },
        rule,
        vec![client("A", vec![acquire(0), debit(25, 10)]), b],
    )
}

/// A failover to an asynchronous standby that lost B's takeover: C takes the row over and
/// gets generation 34 again. `rule` decides whether the account refuses the equal one.
pub fn failover(rule: FenceRule) -> Scenario {
    let (name, check, outcome) = match rule {
        FenceRule::NonDecreasing => (
            "Database lease: a failover repeats a generation, <= lets it through",
            "generation <= $g",
            "34 <= 34, so B's debit lands after C's: balance 70, two holders of generation 34 \
             both wrote.",
        ),
        _ => (
            "Database lease: a failover repeats a generation, strict refuses it",
            "generation < $g",
            "34 < 34 is false, so B's debit updates no row: balance 80.",
        ),
    };
    let mut s = lease(
        name,
        &format!(
            "A takes generation 33 at 0 ms and debits. Its lease expires at 30 ms; B takes the \
             row over at 31 ms (generation 34). At 35 ms the primary fails over to an \
             asynchronous standby that never received B's takeover: the row is A's again, \
             expired, at 33. C takes it over at 40 ms and gets 34, the same generation B \
             holds, and debits at 42 ms. B, told nothing, debits at 45 ms with 34. The account \
             checks {check}: {outcome} Assumes the account's rows lost nothing in the failover \
             (only the lease row's last takeover was not yet replicated)."
        ),
        Lease {
            events: vec![LeaseEvent::Failover { at_ms: 35 }],
            ..Lease::default()
        },
        rule,
        vec![
            client("A", vec![acquire(0), debit(5, 10)]),
            client("B", vec![acquire(31), debit(45, 10)]),
            client("C", vec![acquire(40), debit(42, 10)]),
        ],
    );
    s.storage.idempotency = true;
    s
}
