//! The worst cases: scenarios built to make a run as slow or its trace as large as the parse-time
//! caps allow, one per way a scenario can multiply work (debits in one lease, clock jumps on a
//! client and on the lock, instance events, watchdog renewals, contended Redlock retries,
//! overlapping pauses, overlapping slews, many short leases). Each is a generator of a size `n`,
//! the number of list entries it spends, so that the test (`tests/worst.rs`) and the benchmark
//! (`examples/worst.rs`, run by `scripts/bench.sh`) build the same inputs and follow the caps
//! when they move. Shared by `#[path]` includes, so it has no `use super`.

use fencing_playground::sim::clock::{ClockJump, ClockSpec};
use fencing_playground::sim::presets::preset;
use fencing_playground::sim::scenario::limits::{MAX_CLIENTS, MAX_INSTANCES, MAX_STEP_LIMIT};
use fencing_playground::sim::scenario::*;
use fencing_playground::sim::FenceRule;

/// The largest size at which the parser accepts `build`'s scenario, and that scenario: the
/// worst case exactly at today's caps (events, clock jumps, engine steps), whichever of them
/// binds first. Sizes grow every list of a case together, so acceptance falls as n grows.
pub fn at_caps(build: fn(usize) -> Scenario) -> (usize, Scenario) {
    let accepted = |n: usize| Scenario::from_json(&build(n).to_json()).is_ok();
    let (mut lo, mut hi) = (1usize, 200_000usize);
    if accepted(hi) {
        return (hi, build(hi));
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if accepted(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, build(lo))
}

/// One named worst case.
pub struct Case {
    pub id: &'static str,
    pub what: &'static str,
    pub build: fn(usize) -> Scenario,
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            id: "debits-in-one-lease",
            what: "one acquire, then every other entry a debit inside the same lease",
            build: debits_in_one_lease,
        },
        Case {
            id: "client-clock-jumps",
            what: "a client clock with n/2 jumps, and n/2 acquire/debit/release events",
            build: client_clock_jumps,
        },
        Case {
            id: "lock-clock-jumps",
            what: "the lock's clock with n/2 jumps, and n/2 acquisitions by two clients",
            build: lock_clock_jumps,
        },
        Case {
            id: "instance-events",
            what: "nine Redlock instances sharing n/2 crashes, partitions and jumps; 12 clients acquire n/2/9 times",
            build: instance_events,
        },
        Case {
            id: "watchdog-ttl-2",
            what: "a watchdog renewing a 2 ms TTL every millisecond for n ms",
            build: watchdog_ttl_2,
        },
        Case {
            id: "redlock-retries",
            what: "12 clients contending for 9 instances with 20 retries each",
            build: redlock_retries,
        },
        Case {
            id: "overlapping-pauses",
            what: "n/2 overlapping pauses and n/2 debits on one lease",
            build: overlapping_pauses,
        },
        Case {
            id: "overlapping-slews",
            what: "the lock's clock under n/2 slews all running at once, n/2 acquisitions all granted",
            build: overlapping_slews,
        },
        Case {
            id: "many-short-leases",
            what: "12 clients taking turns: n/4 acquire, debit, pause, release rounds",
            build: many_short_leases,
        },
    ]
}

fn base(id: &str) -> Scenario {
    let mut s = preset(id).unwrap_or_else(|| panic!("preset {id} exists"));
    s.step_limit = MAX_STEP_LIMIT;
    s.end_ms = 100;
    s
}

fn client(name: String, events: Vec<Event>) -> Client {
    Client {
        name,
        clock: ClockSpec::default(),
        events,
    }
}

fn names(k: usize) -> Vec<String> {
    (0..k).map(|i| format!("C{i}")).collect()
}

fn debit(at_ms: u64, amount: i64) -> Event {
    Event::Debit {
        at_ms,
        amount,
        idempotency_key: None,
        delay_ms: 0,
    }
}

fn jump(at_ms: u64, by_ms: i64) -> ClockJump {
    ClockJump {
        at_ms,
        by_ms,
        over_ms: 0,
    }
}

/// The quadratic checker's case: every debit is a write accepted in the same belief.
pub fn debits_in_one_lease(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    s.lock.ttl_ms = 10_000_000;
    s.storage.balance = 1_000_000_000;
    // Equal fences pass, so every debit is accepted and compared with every other one.
    s.storage.fence_rule = FenceRule::NonDecreasing;
    let mut events = vec![Event::Acquire { at_ms: 0 }];
    events.extend((1..n as u64).map(|i| debit(i, 1)));
    s.clients = vec![client("A".into(), events)];
    s
}

pub fn client_clock_jumps(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    let half = (n / 2) as u64;
    let mut a = client("A".into(), Vec::new());
    // Small steps back and forth every millisecond: each reading of A's clock sees all of them.
    a.clock.jumps = (0..half)
        .map(|i| jump(i, if i % 2 == 0 { 3 } else { -3 }))
        .collect();
    for i in 0..half / 3 {
        let t = i * 3;
        a.events.push(Event::Acquire { at_ms: t });
        a.events.push(debit(t + 1, 1));
        a.events.push(Event::Release {
            at_ms: t + 2,
            mode: ReleaseKind::TokenChecked,
        });
    }
    s.storage.balance = 1_000_000_000;
    s.clients = vec![a];
    s
}

pub fn lock_clock_jumps(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    let half = (n / 2) as u64;
    s.lock.clock.jumps = (0..half)
        .map(|i| jump(i * 2, if i % 2 == 0 { 5 } else { -5 }))
        .collect();
    let per = (half / 2) as usize;
    s.clients = ["A", "B"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let events = (0..per as u64)
                .map(|i| Event::Acquire {
                    at_ms: i * 4 + k as u64,
                })
                .collect();
            client(name.to_string(), events)
        })
        .collect();
    s
}

fn redlock_base(instances: usize) -> Scenario {
    let mut s = base("redlock-happy");
    let template = s
        .lock
        .redlock()
        .map(|r| r.instances[0].clone())
        .unwrap_or_else(|| panic!("redlock-happy is a Redlock preset"));
    let list = (0..instances)
        .map(|i| Instance {
            name: format!("R{}", i + 1),
            ..template.clone()
        })
        .collect();
    s.lock.service = LockService::Redlock(Redlock::standard(list));
    s
}

pub fn instance_events(n: usize) -> Scenario {
    let mut s = redlock_base(MAX_INSTANCES);
    let half = n / 2;
    let clients = names(MAX_CLIENTS);
    if let Some(r) = s.lock.redlock_mut() {
        for (i, inst) in r.instances.iter_mut().enumerate() {
            inst.latency_ms = 1;
            inst.events = (0..half / MAX_INSTANCES)
                .map(|k| {
                    let at_ms = (k * 7 + i) as u64;
                    match k % 3 {
                        0 => InstanceEvent::Crash {
                            at_ms,
                            down_ms: 3,
                            persistent: k % 2 == 0,
                        },
                        1 => InstanceEvent::Partition {
                            at_ms,
                            duration_ms: 4,
                            client: Some(clients[k % clients.len()].clone()),
                        },
                        _ => InstanceEvent::ClockJump {
                            at_ms,
                            by_ms: if k % 2 == 0 { 20 } else { -20 },
                            over_ms: 0,
                        },
                    }
                })
                .collect();
        }
    }
    // A client's acquisition addresses every instance: spend the other half on n/2/9 of them.
    let per = ((n - half) / MAX_INSTANCES / MAX_CLIENTS).max(1);
    s.clients = clients
        .into_iter()
        .enumerate()
        .map(|(c, name)| {
            let events = (0..per as u64)
                .map(|i| Event::Acquire {
                    at_ms: i * 60 + c as u64 * 5,
                })
                .collect();
            client(name, events)
        })
        .collect();
    s
}

pub fn watchdog_ttl_2(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    s.lock.ttl_ms = 2;
    s.lock.watchdog = true;
    s.end_ms = n as u64;
    s.clients = vec![client("A".into(), vec![Event::Acquire { at_ms: 0 }])];
    s
}

pub fn redlock_retries(n: usize) -> Scenario {
    let mut s = redlock_base(MAX_INSTANCES);
    if let Some(r) = s.lock.redlock_mut() {
        r.retries = 20;
        r.retry_delay_ms = 3;
        r.parallel = true;
    }
    s.lock.ttl_ms = 1_000;
    // Each acquisition can become 21 rounds of 9 requests: spend the size on rounds, not events.
    let per = (n / MAX_CLIENTS / 21 / MAX_INSTANCES).max(1);
    s.clients = names(MAX_CLIENTS)
        .into_iter()
        .enumerate()
        .map(|(c, name)| {
            let events = (0..per as u64)
                .map(|i| Event::Acquire {
                    at_ms: i * 40 + c as u64,
                })
                .collect();
            client(name, events)
        })
        .collect();
    s
}

pub fn overlapping_pauses(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    s.lock.ttl_ms = 10_000_000;
    s.storage.balance = 1_000_000_000;
    s.storage.fence_rule = FenceRule::NonDecreasing;
    let half = (n / 2) as u64;
    let mut events = vec![Event::Acquire { at_ms: 0 }];
    for i in 1..half {
        events.push(Event::Pause {
            at_ms: i,
            duration_ms: 1_000 + (i % 97),
            cause: PauseCause::Gc,
        });
        events.push(debit(i, 1));
    }
    s.clients = vec![client("A".into(), events)];
    s
}

pub fn overlapping_slews(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    let half = (n / 2) as u64;
    // Every slew starts in the first moments and lasts the whole run, so every reading of the
    // lock's clock is inside all of them; every acquisition is granted (31 ms apart, TTL 30),
    // so each one searches that clock for its expiry.
    let span = half * 31 + 1_000;
    s.lock.clock.jumps = (0..half)
        .map(|i| ClockJump {
            at_ms: i % 100,
            by_ms: if i % 2 == 0 { 7 } else { -7 },
            over_ms: span,
        })
        .collect();
    let per = (half / 2) as usize;
    s.clients = ["A", "B"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let events = (0..per as u64)
                .map(|i| Event::Acquire {
                    at_ms: 100 + i * 62 + k as u64 * 31,
                })
                .collect();
            client(name.to_string(), events)
        })
        .collect();
    s
}

pub fn many_short_leases(n: usize) -> Scenario {
    let mut s = base("contract-1-nx");
    s.lock.ttl_ms = 20;
    s.storage.balance = 1_000_000_000;
    let rounds = n / 4;
    let clients = names(MAX_CLIENTS);
    let mut lanes: Vec<Vec<Event>> = vec![Vec::new(); clients.len()];
    for r in 0..rounds {
        let c = r % clients.len();
        let t = r as u64 * 6;
        lanes[c].push(Event::Acquire { at_ms: t });
        lanes[c].push(Event::Pause {
            at_ms: t + 1,
            duration_ms: 30,
            cause: PauseCause::Gc,
        });
        lanes[c].push(debit(t + 1, 1));
        lanes[c].push(Event::Release {
            at_ms: t + 2,
            mode: ReleaseKind::BareDel,
        });
    }
    s.clients = clients
        .into_iter()
        .zip(lanes)
        .map(|(name, events)| client(name, events))
        .collect();
    s
}
