//! The presets: small scenarios that each make one point, with a caption in plain words. The
//! first six replay the seeds' contracts with their numbers; the rest show the failure stories
//! and the fixes. Every outcome shown for them is computed by `run`, and tests pin it.

use super::account::FenceRule;
use super::scenario::*;

#[cfg(not(feature = "first-stage"))]
mod advisory;
#[cfg(not(feature = "first-stage"))]
mod etcd;
#[cfg(not(feature = "first-stage"))]
mod lease;
#[cfg(not(feature = "first-stage"))]
mod zookeeper;

/// A named scenario a reader can load.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    pub id: &'static str,
    pub scenario: Scenario,
}

/// The preset a newcomer sees first: the lock alone, and unsafe. Its hint turns fencing on,
/// which makes the big verdict change; the fenced page's hint then shows what the fence
/// refuses and what it lets through.
pub const DEFAULT_PRESET: &str = "gc-pause-unfenced";

fn scenario(name: &str, caption: &str, clients: Vec<Client>) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_string(),
        caption: caption.to_string(),
        tier: Tier::Correctness,
        end_ms: 80,
        key: "acct:1".to_string(),
        lock: LockSettings::default(),
        storage: StorageSettings::default(),
        clients,
        step_limit: DEFAULT_STEP_LIMIT,
        seed: 0,
    }
}

fn client(name: &str, events: Vec<Event>) -> Client {
    Client {
        name: name.to_string(),
        clock: Default::default(),
        events,
    }
}

fn acquire(at_ms: u64) -> Event {
    Event::Acquire { at_ms }
}

fn debit(at_ms: u64, amount: i64) -> Event {
    Event::Debit {
        at_ms,
        amount,
        idempotency_key: None,
        delay_ms: 0,
    }
}

fn keyed_debit(at_ms: u64, amount: i64, key: &str, delay_ms: u64) -> Event {
    Event::Debit {
        at_ms,
        amount,
        idempotency_key: Some(key.to_string()),
        delay_ms,
    }
}

fn pause(at_ms: u64, duration_ms: u64, cause: PauseCause) -> Event {
    Event::Pause {
        at_ms,
        duration_ms,
        cause,
    }
}

/// The well-known story: A pauses past its TTL, B acquires and debits, A wakes and debits.
/// The contract presets replay it bare, with the seeds' numbers.
fn gc_pause(rule: FenceRule) -> Scenario {
    let fenced = rule != FenceRule::Off;
    let mut s = scenario(
        if fenced {
            "Contract 4: fenced storage rejects the stale debit"
        } else {
            "Contract 3: without fencing both debits land"
        },
        if fenced {
            "A takes fence 33 and is frozen past its 30 ms TTL. B takes fence 34 at 31 ms and \
             debits 10. A wakes and debits 10 with fence 33; the storage has seen 34, so it \
             rejects 33 as stale_fence. The balance stays at 90 and the last fence is 34."
        } else {
            "The same schedule against storage that checks nothing. B debits 10 with fence 34; A \
             wakes from its pause and debits 10 with fence 33, and both are accepted: the balance \
             is 80 and the last write came from a lock that had already expired."
        },
        vec![
            client(
                "A",
                vec![acquire(0), pause(1, 44, PauseCause::Gc), debit(2, 10)],
            ),
            client("B", vec![acquire(31), debit(32, 10)]),
        ],
    );
    s.storage.fence_rule = rule;
    s
}

/// The playground's opening story: the same pause, with a watchdog renewing A's lease, so that
/// a pause shorter than the TTL keeps B out and a longer one does not.
fn gc_pause_with_watchdog(rule: FenceRule) -> Scenario {
    let fenced = rule != FenceRule::Off;
    let mut s = gc_pause(rule);
    s.lock.watchdog = true;
    s.name = if fenced {
        "GC pause, fenced storage".to_string()
    } else {
        "GC pause, no fencing".to_string()
    };
    s.caption = if fenced {
        "A takes the lock with fence 33, and a watchdog in A's process renews it every 15 ms. \
         A garbage-collection pause freezes A, watchdog and all, so the lease runs out at 30 ms. \
         B takes fence 34 and debits 10. A wakes still sure it holds the lock and sends its \
         debit with fence 33; the storage has already seen 34 and rejects it. The balance stays \
         at 90."
    } else {
        "\"We use a Redis lock, so it's safe.\" A GC pause outlives A's lease; B takes the lock \
         and debits 10; A wakes and debits 10 too. Nothing checks: balance 80."
    }
    .to_string();
    s
}

pub fn presets() -> Vec<Preset> {
    let mut list = vec![
        Preset {
            id: "contract-1-nx",
            scenario: scenario(
                "Contract 1: one holder while the lease is live",
                "A acquires with fence 33. B asks for the same key ten milliseconds later and is \
                 refused with lock_held, naming A. This is the NX in SET NX PX: without it there \
                 is no lock at all.",
                vec![client("A", vec![acquire(0)]), client("B", vec![acquire(10)])],
            ),
        },
        Preset {
            id: "contract-2-ttl",
            scenario: scenario(
                "Contract 2: the TTL frees the lock",
                "A acquires at 0 ms with a 30 ms TTL and then does nothing. At 31 ms the lease has \
                 expired, so A no longer holds it and B acquires with fence 34, one more than A's. \
                 The TTL is a liveness feature: a vanished holder cannot block everyone forever.",
                vec![client("A", vec![acquire(0)]), client("B", vec![acquire(31)])],
            ),
        },
        Preset {
            id: "contract-3-unfenced",
            scenario: gc_pause(FenceRule::Off),
        },
        Preset {
            id: "contract-4-fenced",
            scenario: gc_pause(FenceRule::Strict),
        },
        Preset {
            id: "contract-5-equal-is-stale",
            scenario: scenario(
                "Contract 5: an equal token is stale",
                "A holds fence 33 and debits 5, then sends a second debit of 5 with the same fence. \
                 Strict storage demands a token greater than the last one, so the second debit is \
                 rejected: 33 ≤ 33. A retry of one intent should carry the same idempotency key, \
                 not lean on the fence being accepted twice.",
                vec![client("A", vec![acquire(0), debit(5, 5), debit(10, 5)])],
            ),
        },
        Preset {
            id: "contract-6-check-then-write",
            scenario: scenario(
                "Contract 6: isHeld() before the write is theater",
                "A asks the lock service isHeld() at 28 ms and gets true, then a GC pause hits \
                 between the check and the write. B acquires with fence 34 and debits. A's write \
                 goes out at 45 ms with fence 33 and the storage refuses it. The check was true \
                 when it ran; it says nothing about the moment the write lands.",
                vec![
                    client(
                        "A",
                        vec![
                            acquire(0),
                            Event::CheckThenWrite {
                                at_ms: 28,
                                amount: 10,
                                idempotency_key: None,
                                delay_ms: 0,
                                gap_ms: 2,
                            },
                            pause(29, 16, PauseCause::Gc),
                        ],
                    ),
                    client("B", vec![acquire(31), debit(32, 10)]),
                ],
            ),
        },
        Preset {
            id: "gc-pause-unfenced",
            scenario: gc_pause_with_watchdog(FenceRule::Off),
        },
        Preset {
            id: "gc-pause-fenced",
            scenario: gc_pause_with_watchdog(FenceRule::Strict),
        },
    ];
    list.extend(stories());
    list.extend(redlock_presets());
    // The first stage's build has no etcd: its `validate` refuses it.
    #[cfg(not(feature = "first-stage"))]
    list.extend(etcd_presets());
    #[cfg(not(feature = "first-stage"))]
    list.extend(advisory_presets());
    #[cfg(not(feature = "first-stage"))]
    list.extend(zookeeper_presets());
    #[cfg(not(feature = "first-stage"))]
    list.extend(lease_presets());
    list.push(Preset {
        id: "blank-single",
        scenario: blank_single(),
    });
    list.push(Preset {
        id: "redlock-empty",
        scenario: empty_redlock(),
    });
    list
}

/// The etcd presets (`presets/etcd.rs`), broken variants beside the fixed ones.
#[cfg(not(feature = "first-stage"))]
fn etcd_presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "etcd-pause-unfenced",
            scenario: etcd::paused_holder(FenceRule::Off),
        },
        Preset {
            id: "etcd-pause-fenced",
            scenario: etcd::paused_holder(FenceRule::Strict),
        },
        Preset {
            id: "etcd-34-expired-waiter",
            scenario: etcd::expired_waiter(EtcdVersion::V34),
        },
        Preset {
            id: "etcd-35-expired-waiter",
            scenario: etcd::expired_waiter(EtcdVersion::V35),
        },
        Preset {
            id: "etcd-failover",
            scenario: etcd::failover(),
        },
        Preset {
            id: "etcd-stalled-keepalives",
            scenario: etcd::stalled_keepalives(),
        },
        Preset {
            id: "etcd-create-guard",
            scenario: etcd::create_guard(),
        },
    ]
}

/// The PostgreSQL advisory-lock presets (`presets/advisory.rs`), the unsafe beside the safe.
#[cfg(not(feature = "first-stage"))]
fn advisory_presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "advisory-paused-holder",
            scenario: advisory::paused_holder(),
        },
        Preset {
            id: "advisory-idle-timeout",
            scenario: advisory::idle_timeout(),
        },
        Preset {
            id: "advisory-in-transaction",
            scenario: advisory::in_transaction(),
        },
        Preset {
            id: "advisory-failover",
            scenario: advisory::failover(),
        },
        Preset {
            id: "advisory-killed-holder",
            scenario: advisory::killed_holder(),
        },
    ]
}

/// The database-lease presets (`presets/lease.rs`), the unsafe beside the safe.
#[cfg(not(feature = "first-stage"))]
fn lease_presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "lease-paused-holder",
            scenario: lease::paused_holder(FenceRule::Strict),
        },
        Preset {
            id: "lease-paused-unchecked",
            scenario: lease::paused_holder(FenceRule::Off),
        },
        Preset {
            id: "lease-unique-ledger",
            scenario: lease::unique_ledger(),
        },
        Preset {
            id: "lease-live-lease",
            scenario: lease::live_lease(),
        },
        Preset {
            id: "lease-fast-waiter-fenced",
            scenario: lease::fast_waiter(FenceRule::Strict),
        },
        Preset {
            id: "lease-fast-waiter-unfenced",
            scenario: lease::fast_waiter(FenceRule::Off),
        },
        Preset {
            id: "lease-failover-strict",
            scenario: lease::failover(FenceRule::Strict),
        },
        Preset {
            id: "lease-failover-non-decreasing",
            scenario: lease::failover(FenceRule::NonDecreasing),
        },
    ]
}

/// The ZooKeeper presets (`presets/zookeeper.rs`), the unsafe beside the safe.
#[cfg(not(feature = "first-stage"))]
fn zookeeper_presets() -> Vec<Preset> {
    vec![
        Preset {
            id: "zk-pause-unfenced",
            scenario: zookeeper::paused_holder(FenceRule::Off),
        },
        Preset {
            id: "zk-pause-czxid",
            scenario: zookeeper::paused_holder(FenceRule::Strict),
        },
        Preset {
            id: "zk-parent-sequence",
            scenario: zookeeper::recreated_parent(ZkFence::Sequence),
        },
        Preset {
            id: "zk-parent-czxid",
            scenario: zookeeper::recreated_parent(ZkFence::Czxid),
        },
        Preset {
            id: "zk-suspended-ignored",
            scenario: zookeeper::suspended(OnSuspended::KeepGoing),
        },
        Preset {
            id: "zk-suspended-stops",
            scenario: zookeeper::suspended(OnSuspended::StopWriting),
        },
    ]
}

/// A clean start on a single Redis: fencing strict, TTL 30, two clients, nothing scheduled.
pub fn blank_single() -> Scenario {
    let mut s = scenario(
        "Blank: single Redis",
        "One Redis with a 30 ms TTL that mints fences, strict storage, and two clients with \
         nothing scheduled.",
        vec![client("A", vec![]), client("B", vec![])],
    );
    s.storage.fence_rule = FenceRule::Strict;
    s.lock.ttl_ms = 30;
    s.lock.fencing = true;
    s
}

/// Five instances R1..R5, one millisecond away, with the given events.
fn instances(events: &[(usize, InstanceEvent)]) -> Vec<Instance> {
    (0..5)
        .map(|i| Instance {
            name: format!("R{}", i + 1),
            clock: Default::default(),
            latency_ms: 1,
            events: events
                .iter()
                .filter(|(at, _)| *at == i)
                .map(|(_, e)| e.clone())
                .collect(),
        })
        .collect()
}

fn redlock(
    name: &str,
    caption: &str,
    events: &[(usize, InstanceEvent)],
    clients: Vec<Client>,
) -> Scenario {
    let mut s = scenario(name, caption, clients);
    s.end_ms = 140;
    s.lock.ttl_ms = 60;
    s.lock.service = LockService::Redlock(Redlock::standard(instances(events)));
    // Standard Redlock hands out no fence, so the storage has nothing to compare.
    s.storage.fence_rule = FenceRule::Off;
    s
}

/// A cut between client A and instances R4 and R5 for the whole run.
fn a_cut_from_r4_r5() -> Vec<(usize, InstanceEvent)> {
    [3, 4]
        .into_iter()
        .map(|i| {
            (
                i,
                InstanceEvent::Partition {
                    at_ms: 0,
                    duration_ms: 140,
                    client: Some("A".to_string()),
                },
            )
        })
        .collect()
}

fn jump_r3(over_ms: u64) -> (usize, InstanceEvent) {
    (
        2,
        InstanceEvent::ClockJump {
            at_ms: 15,
            by_ms: 60,
            over_ms,
        },
    )
}

fn two_debits() -> Vec<Client> {
    vec![
        client("A", vec![acquire(0), debit(40, 10)]),
        client("B", vec![acquire(20), debit(35, 10)]),
    ]
}

fn redlock_presets() -> Vec<Preset> {
    let mut jump = a_cut_from_r4_r5();
    jump.push(jump_r3(0));
    let mut slew = a_cut_from_r4_r5();
    slew.push(jump_r3(120));
    let mut monotonic = redlock(
        "Redlock: a monotonic clock makes the jump harmless",
        "The same schedule as the clock-jump preset, but R3 measures its TTLs with a monotonic \
         clock, which a wall-clock step does not move. A's key on R3 lives its full TTL, B \
         collects only R4 and R5, and A stays the only holder. This holds when every instance \
         expires keys by a clock that never jumps.",
        &{
            let mut e = a_cut_from_r4_r5();
            e.push(jump_r3(0));
            e
        },
        two_debits(),
    );
    if let Some(r) = monotonic.lock.redlock_mut() {
        r.instances[2].clock.monotonic = true;
    }
    let mut gc = redlock(
        "Redlock: a GC pause during acquisition",
        "A asks all five instances at once and every grant comes back within 2 ms, but A is \
         frozen by a GC pause before it reads them. The grants wait in its socket buffer. When A \
         wakes at 71 ms it counts five votes, yet 71 ms have passed: not below the 60 ms TTL, \
         so A treats the attempt as failed and releases. The elapsed-time check is what saves \
         Redlock here; it assumes the client's clock measures the pause.",
        &[],
        vec![
            client(
                "A",
                vec![acquire(0), pause(1, 70, PauseCause::Gc), debit(3, 10)],
            ),
            client("B", vec![acquire(65), debit(75, 10)]),
        ],
    );
    if let Some(r) = gc.lock.redlock_mut() {
        r.parallel = true;
    }
    let order = |fenced: bool| {
        let mut s = redlock(
            if fenced {
                "Lock order is not access order (with a fence)"
            } else {
                "Lock order is not access order (standard Redlock)"
            },
            if fenced {
                "A non-standard variant: every instance counts its grants and the client uses the \
                 largest count of its majority as a fence. A gets 33 and B later gets 34, but a GC \
                 pause makes A reach the storage after B. Strict storage refuses 33 ≤ 34. This \
                 relies on a majority that remembers its counters across restarts."
            } else {
                "A holds the lock first and B second, as Redlock promises, but a GC pause makes A's \
                 write reach the storage after B's. Standard Redlock hands out no fence, so the \
                 storage cannot tell the old holder from the new one and accepts both."
            },
            &[],
            vec![
                client(
                    "A",
                    vec![acquire(0), pause(12, 68, PauseCause::Gc), debit(15, 10)],
                ),
                client("B", vec![acquire(62), debit(75, 10)]),
            ],
        );
        if fenced {
            s.storage.fence_rule = FenceRule::Strict;
            if let Some(r) = s.lock.redlock_mut() {
                r.fence = true;
            }
        }
        s
    };
    // R1, R2 and R3 restart without their keys once A's lease is over; B, cut off from R4 and
    // R5, gets its majority from them alone.
    let mut backwards = redlock(
        "Redlock with a fence: a restart sends the fence back",
        "The non-standard fence again: each instance counts its grants in a key, and the \
         client uses the largest count of its majority. A gets 33 from all five and writes. At \
         70 ms, after A's lease is over, R1, R2 and R3 restart without persistence: the counter \
         is a key like any other, so the next INCR answers 1. B cannot reach R4 and R5, gets R1, \
         R2 and R3, a majority, and its fence is 1. B holds the lock alone, yet strict storage \
         refuses 1 ≤ 33: safe, but stuck until the counters climb past 33. A fence from \
         instances holds only as long as their counters survive restarts.",
        &{
            let mut e: Vec<(usize, InstanceEvent)> = (0..3)
                .map(|i| {
                    (
                        i,
                        InstanceEvent::Crash {
                            at_ms: 70,
                            down_ms: 5,
                            persistent: false,
                        },
                    )
                })
                .collect();
            e.extend([3, 4].into_iter().map(|i| {
                (
                    i,
                    InstanceEvent::Partition {
                        at_ms: 0,
                        duration_ms: 140,
                        client: Some("B".to_string()),
                    },
                )
            }));
            e
        },
        vec![
            client("A", vec![acquire(0), debit(15, 10)]),
            client("B", vec![acquire(80), debit(110, 10)]),
        ],
    );
    backwards.storage.fence_rule = FenceRule::Strict;
    if let Some(r) = backwards.lock.redlock_mut() {
        r.fence = true;
    }
    let mut cas = order(false);
    cas.name = "Compare-and-set on the lock's random value".to_string();
    cas.caption = "Instead of a fence, each holder first stores the random value it put in the \
        lock into the resource (the writes of 0), and every write must carry the value the \
        resource holds now. B's claim replaces A's value; A's late debit carries A's old value \
        and is refused. This needs a resource that can compare-and-set atomically, and a claim \
        that lands before the holder's lease can run out."
        .to_string();
    cas.storage.fence_rule = FenceRule::CasValue;
    // Each holder first stores its value in the resource (a write of 0), then does its work.
    cas.clients[0].events.insert(1, debit(11, 0));
    cas.clients[1].events.insert(1, debit(73, 0));
    vec![
        Preset {
            id: "redlock-happy",
            scenario: redlock(
                "Redlock: the happy path",
                "Five independent instances, asked one at a time. A collects all five grants in \
                 10 ms, so its validity is 60 ms TTL − 10 ms elapsed − 2 ms drift margin = 48 ms. \
                 B asks at 20 ms and every instance answers nil. This holds while clocks run at \
                 about the same rate and no instance forgets a key.",
                &[],
                two_debits(),
            ),
        },
        Preset {
            id: "redlock-one-down",
            scenario: redlock(
                "Redlock: one instance down",
                "R3 is down for the whole run. A waits 5 ms for it, moves on, and still gets four \
                 of five: a majority. This is why Redlock exists: one crashed Redis does not take \
                 the lock service down with it. This holds as long as a majority stays up and \
                 reachable.",
                &[(
                    2,
                    InstanceEvent::Crash {
                        at_ms: 0,
                        down_ms: 140,
                        persistent: true,
                    },
                )],
                two_debits(),
            ),
        },
        Preset {
            id: "redlock-clock-jump",
            scenario: redlock(
                "Redlock: a clock jump hands out a second lock",
                "A cannot reach R4 and R5 and gets R1, R2, R3: a bare majority. At 15 ms R3's \
                 wall clock steps 60 ms forward, so R3 thinks A's key has expired. B then gets R3, \
                 R4 and R5: another majority. B holds the lock while A's is still valid by its own \
                 clock, and both debits land. The assumption that failed: clocks on the instances \
                 move at roughly the same rate.",
                &jump,
                two_debits(),
            ),
        },
        Preset {
            id: "redlock-monotonic",
            scenario: monotonic,
        },
        Preset {
            id: "redlock-slew",
            scenario: redlock(
                "Redlock: slewing instead of stepping",
                "The same 60 ms correction on R3, applied gently over 120 ms the way NTP slews, \
                 instead of as a step. R3 still expires A's key a little early, but not before B \
                 asks at 20 ms, so B gets only R4 and R5 and fails. Redlock's safety depends on \
                 clocks that drift by a bounded rate, not on clocks that are exact.",
                &slew,
                two_debits(),
            ),
        },
        Preset {
            id: "redlock-restart",
            scenario: redlock(
                "Redlock: a restart without persistence",
                "A gets R1, R2, R3. R3 crashes at 20 ms and comes back 5 ms later with no keys. B \
                 then gets R3, R4, R5, a majority, while A's lock is still valid by its own clock. \
                 This holds unless the instance keeps its keys on disk or stays down longer than \
                 the TTL.",
                &{
                    let mut e = a_cut_from_r4_r5();
                    e.push((
                        2,
                        InstanceEvent::Crash {
                            at_ms: 20,
                            down_ms: 5,
                            persistent: false,
                        },
                    ));
                    e
                },
                vec![
                    client("A", vec![acquire(0), debit(40, 10)]),
                    client("B", vec![acquire(30), debit(45, 10)]),
                ],
            ),
        },
        Preset {
            id: "redlock-delayed-restart",
            scenario: redlock(
                "Redlock: a restart delayed by the TTL",
                "The same crash, but R3 stays down for 70 ms, longer than the 60 ms TTL. By the \
                 time it is back, every key it forgot would have expired anyway. B reaches only R4 \
                 and R5 and fails. Delayed restarts keep safety without persistence.",
                &{
                    let mut e = a_cut_from_r4_r5();
                    e.push((
                        2,
                        InstanceEvent::Crash {
                            at_ms: 20,
                            down_ms: 70,
                            persistent: false,
                        },
                    ));
                    e
                },
                vec![
                    client("A", vec![acquire(0), debit(40, 10)]),
                    client("B", vec![acquire(30), debit(45, 10)]),
                ],
            ),
        },
        Preset {
            id: "redlock-gc-during-acquire",
            scenario: gc,
        },
        Preset {
            id: "redlock-order-unfenced",
            scenario: order(false),
        },
        Preset {
            id: "redlock-order-fenced",
            scenario: order(true),
        },
        Preset {
            id: "redlock-cas",
            scenario: cas,
        },
        Preset {
            id: "redlock-fence-backwards",
            scenario: backwards,
        },
    ]
}

/// An empty Redlock scenario with two clients, for building the presets by hand.
pub fn empty_redlock() -> Scenario {
    let mut s = redlock(
        "Blank: Redlock",
        "Five instances and two clients with nothing scheduled. Add acquisitions, pauses, clock \
         jumps, crashes and partitions.",
        &[],
        vec![client("A", vec![]), client("B", vec![])],
    );
    s.end_ms = 140;
    s
}

fn stories() -> Vec<Preset> {
    let mut watchdog_saves = scenario(
        "Watchdog renewal saves a slow holder",
        "A's work takes 50 ms, longer than the 30 ms TTL, but a watchdog renews the lease every \
         15 ms while A runs. B keeps getting lock_held and A's debit is accepted. Renewal keeps a \
         healthy but slow holder in charge.",
        vec![
            client("A", vec![acquire(0), debit(50, 10)]),
            client("B", vec![acquire(31), acquire(52)]),
        ],
    );
    watchdog_saves.lock.watchdog = true;

    let mut watchdog_stalls = scenario(
        "The watchdog stalls with its paused process",
        "The watchdog lives in A's process, so the GC pause that freezes A freezes its renewals \
         too. The lease expires at 30 ms, B takes fence 34, and the late renewal at 50 ms is \
         refused. Renewal narrows the window; it does not close it. The fence still saves the \
         account.",
        vec![
            client(
                "A",
                vec![acquire(0), pause(10, 40, PauseCause::Gc), debit(20, 10)],
            ),
            client("B", vec![acquire(31), debit(32, 10)]),
        ],
    );
    watchdog_stalls.lock.watchdog = true;

    let mut efficiency = scenario(
        "Efficiency tier: a cache fill",
        "Here the lock only stops two workers from rebuilding the same cache entry. A stalls, B \
         takes over, and both fill the cache (writes of 0). Plain SET NX PX without fencing is \
         enough: doing the work twice costs a little compute, not money. Know which tier you \
         are in.",
        vec![
            client(
                "A",
                vec![acquire(0), pause(1, 44, PauseCause::Gc), debit(2, 0)],
            ),
            client("B", vec![acquire(31), debit(32, 0)]),
        ],
    );
    efficiency.tier = Tier::Efficiency;
    efficiency.lock.fencing = false;
    efficiency.storage.fence_rule = FenceRule::Off;

    let mut non_decreasing = scenario(
        "Strict vs non-decreasing fences",
        "A holds fence 33 and makes two different debits. With the non-decreasing rule (token ≥ \
         last, as some fenced locks document) both are accepted; strict storage would allow one \
         write per grant.",
        vec![client(
            "A",
            vec![
                acquire(0),
                keyed_debit(5, 10, "rent", 0),
                keyed_debit(10, 20, "fee", 0),
            ],
        )],
    );
    non_decreasing.storage.fence_rule = FenceRule::NonDecreasing;

    let mut plain_redis = scenario(
        "Plain Redis: nothing to check",
        "SET NX PX answers OK or nil; it mints no fence. Storage that insists on a fence can only \
         refuse every debit (missing_token), and storage that does not insist is back to the \
         unfenced story. A correctness lock needs a service that hands out a number that only \
         goes up.",
        vec![
            client("A", vec![acquire(0), debit(5, 10)]),
            client("B", vec![acquire(31), debit(32, 10)]),
        ],
    );
    plain_redis.lock.fencing = false;

    vec![
        Preset {
            id: "delayed-packet",
            scenario: scenario(
                "A delayed packet",
                "A sends its debit at 10 ms while its lease is live, but the packet sits in the \
                 network for 40 ms. B acquires at 31 ms with fence 34 and debits. A's packet lands \
                 at 50 ms with fence 33 and is rejected. No pause in A is needed: the write was \
                 already in flight when the lease died.",
                vec![
                    client("A", vec![acquire(0), keyed_debit(10, 10, "a-1", 40)]),
                    client("B", vec![acquire(31), debit(32, 10)]),
                ],
            ),
        },
        Preset {
            id: "watchdog-saves",
            scenario: watchdog_saves,
        },
        Preset {
            id: "watchdog-stalls",
            scenario: watchdog_stalls,
        },
        Preset {
            id: "bare-del",
            scenario: scenario(
                "A bare DEL deletes the next holder's lease",
                "A is paused past its TTL, B acquires, and A wakes up and releases with a plain \
                 DEL. The DEL does not ask whose lease it is, so it deletes B's. C then acquires \
                 while B still believes it holds the lock. A token-checked release (compare, then \
                 delete, in one script) would have deleted nothing.",
                vec![
                    client("A", vec![acquire(0), pause(5, 35, PauseCause::Sigstop), Event::Release {
                        at_ms: 20,
                        mode: ReleaseKind::BareDel,
                    }]),
                    client("B", vec![acquire(31)]),
                    client("C", vec![acquire(45)]),
                ],
            ),
        },
        Preset {
            id: "crash-ttl",
            scenario: scenario(
                "A crash that only the TTL ends",
                "A acquires and crashes at 10 ms without releasing. Nobody deletes its key, so B \
                 is refused at 15 ms; once the 30 ms TTL runs out, B acquires with fence 34. This \
                 is what the TTL is for.",
                vec![
                    client("A", vec![acquire(0), Event::Crash { at_ms: 10 }]),
                    client("B", vec![acquire(15), acquire(31), debit(33, 10)]),
                ],
            ),
        },
        Preset {
            id: "idempotent-retry",
            scenario: scenario(
                "An idempotent retry",
                "A's first debit is slow to arrive, so A retries it with the same idempotency key. \
                 The retry lands first and is applied; when the original arrives the storage \
                 recognises the key and answers duplicate. The fence orders lock generations; the \
                 key makes one intent run once. You usually want both.",
                vec![client(
                    "A",
                    vec![
                        acquire(0),
                        keyed_debit(5, 10, "pay-7", 20),
                        keyed_debit(15, 10, "pay-7", 0),
                    ],
                )],
            ),
        },
        Preset {
            id: "efficiency-tier",
            scenario: efficiency,
        },
        Preset {
            id: "strict-vs-non-decreasing",
            scenario: non_decreasing,
        },
        Preset {
            id: "plain-redis",
            scenario: plain_redis,
        },
    ]
}

/// The preset with `id`, if there is one.
pub fn preset(id: &str) -> Option<Scenario> {
    presets()
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| p.scenario)
}

/// The scenario a newcomer sees first: the preset `DEFAULT_PRESET` names.
pub fn default_scenario() -> Scenario {
    gc_pause_with_watchdog(FenceRule::Off)
}

/// The id of the preset `s` is exactly, so the picker can show it after a link or a file.
pub fn matching_preset(s: &Scenario) -> Option<&'static str> {
    presets()
        .into_iter()
        .find(|p| p.scenario == *s)
        .map(|p| p.id)
}

/// What the "Try it" line suggests: the act (shown in bold), then what to watch, and, when one
/// click can do it, the button that does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub act: String,
    pub watch: String,
    pub button: Option<HintButton>,
}

/// A hint's one-click act, with the words on its button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HintButton {
    pub label: &'static str,
    pub act: HintAct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintAct {
    /// Set the storage's fence rule.
    FenceRule(FenceRule),
    /// Load the preset that tells the same story with the change made, so its title and caption
    /// stay true (and one undo step takes it back).
    Preset(&'static str),
}

fn hint(act: &str, watch: &str) -> Hint {
    Hint {
        act: act.to_string(),
        watch: watch.to_string(),
        button: None,
    }
}

/// "Turn fencing on", as a step to the fenced preset `id` that tells the same story.
fn fenced_story(id: &'static str) -> Hint {
    Hint {
        button: Some(HintButton {
            label: "Turn fencing on",
            act: HintAct::Preset(id),
        }),
        ..hint(
            "Turn fencing on",
            ": the storage then refuses a fence not above the last one it accepted. Watch A's \
             late debit.",
        )
    }
}

/// The hints written for a preset, beside its caption; the others are derived from the
/// scenario (`derived_hint`), as are those of an edited or blank scenario.
fn preset_hint(id: &str) -> Option<Hint> {
    Some(match id {
        "contract-1-nx" => hint(
            "drag B's acquire past 30 ms",
            ", after A's lease ends, and watch B get the next fence.",
        ),
        "contract-2-ttl" => hint(
            "drag B's acquire left of 30 ms",
            ", while A's lease is live, and watch B get lock_held.",
        ),
        "gc-pause-unfenced" => fenced_story("gc-pause-fenced"),
        "bare-del" => hint(
            "select A's release and make it token-checked",
            ": the release then finds B's value, not A's, and deletes nothing, so C's acquire at \
             45 ms gets lock_held while B holds the lease.",
        ),
        "contract-3-unfenced" => fenced_story("contract-4-fenced"),
        "etcd-pause-unfenced" => fenced_story("etcd-pause-fenced"),
        "etcd-34-expired-waiter" => Hint {
            button: Some(HintButton {
                label: "Run it on etcd 3.5",
                act: HintAct::Preset("etcd-35-expired-waiter"),
            }),
            ..hint(
                "Run it on etcd 3.5",
                ": the lock call checks the waiter's own key, and B is told its session expired.",
            )
        },
        "redlock-order-unfenced" => Hint {
            button: Some(HintButton {
                label: "Give Redlock a fence",
                act: HintAct::Preset("redlock-order-fenced"),
            }),
            ..hint(
                "Give Redlock a fence",
                ": a non-standard counter per instance, checked by strict storage.",
            )
        },
        "advisory-paused-holder" => hint(
            "set idle_session_timeout to 20 ms",
            ": the server then ends A's idle session during the pause, and the lock goes with \
             it while A still believes it holds it.",
        ),
        "advisory-idle-timeout" => hint(
            "tick \"debit on the lock's own session\"",
            ": A's late debit then goes on its dead session, and nothing commits (session_gone).",
        ),
        "advisory-in-transaction" => hint(
            "untick \"debit on the lock's own session\"",
            ": A's late debit then goes to separate storage, which accepts it after B's.",
        ),
        "advisory-failover" => hint(
            "drag A's debit left of 30 ms",
            ", before the failover, while A's session still holds lock 42.",
        ),
        "advisory-killed-holder" => hint(
            "drag A's crash to the right",
            ": B's pg_advisory_lock returns only when A's process dies.",
        ),
        "lease-paused-unchecked" => fenced_story("lease-paused-holder"),
        "lease-paused-holder" => hint(
            "drag the right edge of A's GC pause left of 15 ms",
            ": A then debits with 33 before B takes the row over, and both debits count, one \
             after the other.",
        ),
        "lease-unique-ledger" => hint(
            "drag A's first pay-1 debit right of 10 ms",
            ": the retry lands first either way, and the original is answered as already \
             applied.",
        ),
        "lease-live-lease" => hint(
            "drag A's debit left of 10 ms",
            ": its statement then arrives while A's lease is live, and it commits.",
        ),
        "lease-fast-waiter-unfenced" => fenced_story("lease-fast-waiter-fenced"),
        "lease-fast-waiter-fenced" => hint(
            "drag B's acquire right of 25 ms",
            ": A's debit then lands under 33 before B's clock can call the lease expired.",
        ),
        "lease-failover-strict" => hint(
            "set storage fencing to non-decreasing",
            ": the account's generation <= $g then lets B's equal generation through after C's.",
        ),
        "lease-failover-non-decreasing" => Hint {
            button: Some(HintButton {
                label: "Make the check strict",
                act: HintAct::Preset("lease-failover-strict"),
            }),
            ..hint(
                "Make the check strict",
                ": the account then refuses B's equal generation.",
            )
        },
        "zk-pause-unfenced" => fenced_story("zk-pause-czxid"),
        "zk-pause-czxid" => hint(
            "set the session timeout to 100 ms",
            ": A's session then outlives its 50 ms pause, B's lock call waits until A unlocks at \
             70 ms, and both debits are accepted, one after the other.",
        ),
        "zk-parent-sequence" => Hint {
            button: Some(HintButton {
                label: "Fence with the czxid",
                act: HintAct::Preset("zk-parent-czxid"),
            }),
            ..hint(
                "Fence with the czxid",
                ": B's node, created after /lock came back, has a higher czxid than A's, and the \
                 storage refuses A's late debit.",
            )
        },
        "zk-parent-czxid" => hint(
            "set the fence to the sequence suffix",
            ": B's node in the new /lock is lock-0000000000, so A's late fence, the larger \
             suffix of its older node, beats B's 0 and is accepted.",
        ),
        "zk-suspended-ignored" => hint(
            "set \"on SUSPENDED\" to stop writing",
            ": A then holds its debit at 48 ms back, and only B's is accepted.",
        ),
        "zk-suspended-stops" => hint(
            "drag A's debit left of 32 ms",
            ", before its client reports SUSPENDED: A writes while its session still holds the \
             lock, and both debits are accepted in turn.",
        ),
        "contract-5-equal-is-stale" => Hint {
            button: Some(HintButton {
                label: "Use non-decreasing",
                act: HintAct::FenceRule(FenceRule::NonDecreasing),
            }),
            ..hint(
                "let the holder write again",
                ": non-decreasing (token ≥ last) accepts a second write with the same fence.",
            )
        },
        "strict-vs-non-decreasing" => Hint {
            button: Some(HintButton {
                label: "Use strict",
                act: HintAct::FenceRule(FenceRule::Strict),
            }),
            ..hint(
                "switch the storage to strict",
                ": one write per grant, so A's second debit is refused.",
            )
        },
        _ => return None,
    })
}

/// The hint for `s`: its preset's, if it is one exactly, or one derived from what it holds.
pub fn hint_for(s: &Scenario) -> Hint {
    matching_preset(s)
        .and_then(preset_hint)
        .unwrap_or_else(|| derived_hint(s))
}

/// A hint that fits any scenario, from what it holds: how to add the first event when it is
/// blank; the fence check when the service mints fences the storage ignores; Redlock's
/// instance events; a pause's end; otherwise any event.
pub fn derived_hint(s: &Scenario) -> Hint {
    let redlock = s.lock.redlock();
    let instance_events = redlock.is_some_and(|r| r.instances.iter().any(|i| !i.events.is_empty()));
    let client_events = s.clients.iter().any(|c| !c.events.is_empty());
    if !client_events && !instance_events {
        return hint(
            "Add the first event",
            ": double-click a client's lane to add the palette's chosen kind there, or click a \
             palette button to add it at the playhead.",
        );
    }
    let mints = redlock.map_or(s.lock.fencing, |r| r.fence);
    let writes = s.clients.iter().any(|c| {
        c.events
            .iter()
            .any(|e| matches!(e, Event::Debit { .. } | Event::CheckThenWrite { .. }))
    });
    if mints && writes && s.storage.fence_rule == FenceRule::Off {
        return Hint {
            button: Some(HintButton {
                label: "Turn fencing on",
                act: HintAct::FenceRule(FenceRule::Strict),
            }),
            ..hint(
                "Turn fencing on",
                ": the storage then refuses a fence not above the last one it accepted.",
            )
        };
    }
    if instance_events {
        return hint(
            "select a clock jump, crash or partition and change it",
            ", and watch whether two clients get a majority at once.",
        );
    }
    let pause = s.clients.iter().find_map(|c| {
        c.events.iter().find_map(|e| match e {
            Event::Pause { cause, .. } => Some((c.name.clone(), cause.label())),
            _ => None,
        })
    });
    let until = if redlock.is_some() {
        "while its lock is still valid, and watch the verdict"
    } else if let Some(a) = s.lock.advisory() {
        if a.idle_session_timeout_ms.is_some() || a.idle_in_transaction_timeout_ms.is_some() {
            "before an idle timeout ends its session, and the lock with it"
        } else {
            "sooner: the lock never expires, so the pause makes only the waiters wait"
        }
    } else if writes && s.storage.fence_rule != FenceRule::Off {
        "before its lease runs out: the fence refuses only stale writes"
    } else {
        "before its lease runs out"
    };
    match (pause, redlock) {
        (Some((who, cause)), _) => hint(
            &format!("drag the right edge of {who}'s {cause} pause to the left"),
            &format!(", so {who} wakes {until}."),
        ),
        (None, Some(_)) => hint(
            "double-click an instance lane",
            " to add a clock jump, crash or partition, and watch whether two clients get a \
             majority at once.",
        ),
        (None, None) => hint(
            "drag any event along its lane",
            ", or drop it on another client's lane, and watch the verdicts change.",
        ),
    }
}
