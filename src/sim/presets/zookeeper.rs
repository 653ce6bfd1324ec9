//! The ZooKeeper presets: the lock recipe on a three-server ensemble with a quorum throughout,
//! a 5 ms tick and a 30 ms session timeout (a ping every 10 ms; the leader expires a silent
//! session on the first tick past 30 ms of silence). Each caption names the assumption its
//! outcome rests on; `tests/zookeeper.rs` runs each one and checks the outcome it tells.

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

fn zookeeper(name: &str, caption: &str, z: Zookeeper, clients: Vec<Client>) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_string(),
        caption: caption.to_string(),
        tier: Tier::Correctness,
        end_ms: 100,
        key: "acct:1".to_string(),
        lock: LockSettings {
            service: LockService::Zookeeper(z),
            ..LockSettings::default()
        },
        storage: StorageSettings::default(),
        clients,
        step_limit: DEFAULT_STEP_LIMIT,
        seed: 0,
    }
}

/// A holds the lock and a GC pause freezes it, pings and all; the leader expires its session
/// and deletes its node, and B, waiting behind it, gets the lock. A wakes and debits.
pub fn paused_holder(rule: FenceRule) -> Scenario {
    let fenced = rule != FenceRule::Off;
    let mut s = zookeeper(
        if fenced {
            "ZooKeeper: the czxid fences the paused holder"
        } else {
            "ZooKeeper without fencing: the lost update"
        },
        if fenced {
            "A connects (session zxid 33) and creates lock-0000000000 with czxid 34: the lowest \
             node, so A holds the lock. A GC pause freezes A at 12 ms, before its debit due at \
             13 ms; its last ping was at 10 ms. B creates lock-0000000001 at 20 ms and waits. \
             The leader hears nothing from A and at 45 ms (30 ms after the ping, rounded up to \
             the 5 ms tick) expires A's session and deletes A's node; B now holds the lock with \
             czxid 36 and debits 10. A wakes at 62 ms and sends its debit with czxid 34; the \
             storage has seen 36 and refuses it: balance 90. Only then does A's next ping tell \
             it the session is gone (LOST). Safe because the storage checks the czxid (strict): \
             the session is a lease, and a lease alone is not mutual exclusion."
        } else {
            "The same run against storage that checks nothing. The leader expires A's session \
             during A's GC pause and B gets the lock and debits 10; A wakes at 62 ms still sure \
             it holds the lock and debits 10 too, before its client library tells it the \
             session is gone. Both are accepted: balance 80. ZooKeeper gives every lock node a \
             czxid that only goes up; nothing here compares it."
        },
        Zookeeper::default(),
        vec![
            client(
                "A",
                vec![acquire(0), gc(12, 50), debit(13, 10), release(70)],
            ),
            client("B", vec![acquire(20), debit(50, 10), release(60)]),
        ],
    );
    s.storage.fence_rule = rule;
    s
}

/// The lock parent is removed while empty and created again: the sequence starts at 0 again,
/// while the czxid goes on rising. `fence` says which one the clients send.
pub fn recreated_parent(fence: ZkFence) -> Scenario {
    let by_sequence = fence == ZkFence::Sequence;
    let z = Zookeeper {
        fence,
        events: vec![ZkEvent::ParentRemoved { at_ms: 50 }],
        ..Zookeeper::default()
    };
    zookeeper(
        if by_sequence {
            "ZooKeeper: a sequence number is not a fence"
        } else {
            "ZooKeeper: the czxid survives a recreated parent"
        },
        if by_sequence {
            "The clients send their node's sequence suffix as the fence. C takes \
             lock-0000000000 at 0 ms and unlocks at 8 ms without writing. A takes \
             lock-0000000001 at 12 ms (the suffix counts the creates made under the parent: \
             C's was the first) and is frozen by a GC pause before its debit. At \
             45 ms the leader expires A's session and deletes its node; at 50 ms the empty \
             container /lock is removed. B's lock call at 55 ms creates /lock again and gets \
             lock-0000000000: B debits 10 with fence 0, accepted. A wakes at 74 ms and sends \
             fence 1, which strict storage takes for a newer holder's: accepted, balance 80, \
             the lost update. The suffix orders the nodes under one parent; it is not a token \
             that only goes up."
        } else {
            "The same run, with each node's czxid as the fence. C's node has czxid 34, A's 37; \
             expiring A's session and removing the parent are transactions too, so B's node, \
             created after them (and after its own create that failed on the missing parent), \
             has czxid 43. B's debit is accepted and A's late one, with 37, \
             is refused: balance 90. The zxid orders every change to the ensemble; removing a \
             parent cannot turn it back."
        },
        z,
        vec![
            client("C", vec![acquire(0), release(8)]),
            client(
                "A",
                vec![acquire(12), gc(14, 60), debit(15, 10), release(80)],
            ),
            client("B", vec![acquire(55), debit(57, 10), release(65)]),
        ],
    )
}

/// A is cut off from the ensemble while it runs. Its client reports SUSPENDED after two thirds
/// of the session timeout; the leader expires the session after all of it.
pub fn suspended(on_suspended: OnSuspended) -> Scenario {
    let stops = on_suspended == OnSuspended::StopWriting;
    let z = Zookeeper {
        on_suspended,
        events: vec![ZkEvent::Partition {
            at_ms: 12,
            duration_ms: 50,
            client: "A".to_string(),
        }],
        ..Zookeeper::default()
    };
    let mut s = zookeeper(
        if stops {
            "ZooKeeper: SUSPENDED means stop"
        } else {
            "ZooKeeper: writing through SUSPENDED"
        },
        if stops {
            "The same partition, with A written as Curator advises: SUSPENDED means you may no \
             longer hold the lock. A reports SUSPENDED at 32 ms and holds its debit due at 48 \
             ms back; B gets the lock at 45 ms and debits: balance 90, safe with no fence at \
             all. It is safe because A was running when the answers stopped: a paused process \
             notices nothing until it wakes (see the paused-holder presets), so a fence is \
             still what makes the write safe."
        } else {
            "No fence is checked here. A holds the lock and is cut off from the ensemble at \
             12 ms; it keeps running and the storage stays reachable. Its pings go unanswered: \
             at 32 ms (two thirds of the 30 ms timeout) its client reports SUSPENDED, and A \
             carries on. At 45 ms the leader expires A's session and deletes its node, and B, \
             waiting since 20 ms, gets the lock. A debits 10 at 48 ms and B at 50 ms: both \
             accepted, balance 80. A learns it lost the lock (LOST) only when the partition \
             heals at 62 ms."
        },
        z,
        vec![
            client("A", vec![acquire(0), debit(48, 10), release(70)]),
            client("B", vec![acquire(20), debit(50, 10), release(60)]),
        ],
    );
    s.lock.fencing = false;
    s.storage.fence_rule = FenceRule::Off;
    s
}
