//! The etcd presets: the tier the seeds recommend, and where it still breaks. A three-member
//! cluster, 30 ms leases (a keepalive every 10 ms), a 10 ms election timeout. Each caption
//! names the assumption its outcome rests on; `tests/etcd.rs` runs each one and checks the
//! outcome its caption tells.

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

fn etcd(name: &str, caption: &str, end_ms: u64, clients: Vec<Client>) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_string(),
        caption: caption.to_string(),
        tier: Tier::Correctness,
        end_ms,
        key: "acct:1".to_string(),
        lock: LockSettings {
            service: LockService::Etcd(Etcd::cluster(3)),
            ..LockSettings::default()
        },
        storage: StorageSettings::default(),
        clients,
        step_limit: DEFAULT_STEP_LIMIT,
        seed: 0,
    }
}

/// A holds the lock and is frozen by a GC pause past its lease; B's lock call, waiting since
/// 40 ms, returns when the leader revokes A's lease. A wakes and sends the debit it had due.
pub fn paused_holder(rule: FenceRule) -> Scenario {
    let fenced = rule != FenceRule::Off;
    let mut s = etcd(
        if fenced {
            "etcd: the revision fences the paused holder"
        } else {
            "etcd without fencing: the lost update"
        },
        if fenced {
            "A's lock key gets create revision 33; A keeps its lease alive every 10 ms until a \
             GC pause freezes it at 21 ms, keepalives and all. The leader revokes the lease at \
             50 ms (a write of its own: revision 35) and B, waiting since 40 ms with revision \
             34, gets the lock and debits 10. A wakes at 61 ms and sends its debit with \
             revision 33; the storage has seen 34 and refuses it: balance 90. Safe because the storage checks the revision \
             (strict), not the lease: the lease alone is not mutual exclusion."
        } else {
            "The same run against storage that checks nothing, as in Jepsen's test of etcd \
             3.4.3. B holds the lock with revision 34 and debits 10; A wakes from its GC pause \
             still sure of its lease and debits 10 too. Both are accepted: balance 80. etcd \
             hands out a revision with every lock; nothing here compares it."
        },
        80,
        vec![
            client("A", vec![acquire(0), gc(21, 40), debit(22, 10)]),
            client("B", vec![acquire(40), debit(52, 10)]),
        ],
    );
    s.storage.fence_rule = rule;
    s
}

/// A waiter whose lease runs out while it waits, on etcd 3.4 and 3.5.
pub fn expired_waiter(version: EtcdVersion) -> Scenario {
    let old = version == EtcdVersion::V34;
    let mut s = etcd(
        if old {
            "etcd 3.4: a waiter told it holds an expired lock"
        } else {
            "etcd 3.5: the expired waiter is told so"
        },
        if old {
            "A holds the lock (revision 33). B asks at 5 ms (revision 34) and waits; a GC pause \
             stalls B's keepalives from 12 ms, so the leader revokes B's lease at 35 ms and \
             deletes its key. C asks at 40 ms (revision 36). A unlocks at 70 ms: no lower key is \
             left for B or for C, and etcd 3.4 tells both that they hold the lock \
             (etcd-io/etcd#11456). Both debit, and the unfenced storage takes both: balance \
             80. Assumes 3.4's lock call: 3.5 checks the waiter's own key first."
        } else {
            "The same run on etcd 3.5. When A unlocks at 70 ms, B's wait ends, but its key is \
             gone with its lease, so the lock call answers \"session expired\" and B writes \
             nothing. C alone holds the lock and debits: balance 90. Safe without a fence, as long as every \
             other assumption holds (no holder is paused past its lease)."
        },
        100,
        vec![
            client("A", vec![acquire(0), release(70)]),
            client("B", vec![acquire(5), gc(12, 40), debit(60, 10)]),
            client("C", vec![acquire(40), debit(71, 10)]),
        ],
    );
    s.storage.fence_rule = FenceRule::Off;
    if let Some(e) = s.lock.etcd_mut() {
        e.version = version;
    }
    s
}

/// A leader crash while the holder is already dead: the new leader restarts A's lease.
pub fn failover() -> Scenario {
    let mut s = etcd(
        "etcd: a failover makes a lease outlive its TTL",
        "A takes the lock and crashes at 12 ms; its last keepalive was at 10 ms, so its lease \
         should end at 40 ms. But the leader n1 crashes at 35 ms: without a leader no lease \
         expires, and n2, elected an election timeout later at 45 ms, restarts every lease at \
         its TTL plus one election timeout. A's lease lasts until 85 ms and B, waiting since \
         50 ms, gets the lock only then and debits: balance 80. Safe: a failover only ever lengthens a lease, so it \
         costs waiting, not safety.",
        110,
        vec![
            client("A", vec![acquire(0), debit(2, 10), Event::Crash { at_ms: 12 }]),
            client("B", vec![acquire(50), debit(90, 10)]),
        ],
    );
    if let Some(e) = s.lock.etcd_mut() {
        e.members[0].events.push(MemberEvent::Crash {
            at_ms: 35,
            down_ms: 60,
        });
    }
    s
}

/// Keepalives stall with the process; the first one after the pause tells A it lost the lock.
pub fn stalled_keepalives() -> Scenario {
    let mut s = etcd(
        "etcd: a GC pause stalls the keepalives",
        "A's session sends a keepalive every 10 ms, but they run in A's process: a GC pause \
         from 25 ms freezes them, and the leader revokes A's lease at 50 ms. B, waiting since \
         30 ms, gets the lock and debits 10. A wakes at 70 ms, its keepalive is answered \
         \"lease not found\", and A drops the lock before its debit at 72 ms: balance 90. Safe without \
         a fence only because A's write came after its keepalive; a write already due when it \
         woke would have gone out first.",
        100,
        vec![
            client("A", vec![acquire(0), gc(25, 45), debit(72, 10)]),
            client("B", vec![acquire(30), debit(55, 10)]),
        ],
    );
    s.storage.fence_rule = FenceRule::Off;
    s
}

/// The account lives in etcd, and each debit is a transaction guarded by the lock key.
pub fn create_guard() -> Scenario {
    let mut s = paused_holder(FenceRule::Off);
    s.name = "etcd: the CREATE == myRev guard".to_string();
    s.caption = "The paused holder again, but the account is a key in etcd and each debit is a \
                 transaction that commits only if the writer's lock key still exists with the \
                 create revision it was granted (CREATE(key) == myRev), the guard etcd's own \
                 lock recipe uses. B's debit commits. A's late debit compares revision 33, a key \
                 revoked with A's lease at 50 ms, and fails: balance 90. Safe because the write \
                 and the check are one transaction in the lock service itself."
        .to_string();
    s.storage.create_guard = true;
    s
}
