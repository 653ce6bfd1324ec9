//! A schedule: the faults a search injects into a scenario and the scenario's own events it
//! leaves out. `materialize` turns it into an ordinary `Scenario` (the faults become events a
//! reader can drag) and says where each injected fault landed, so the page can mark them
//! "found by search". The words for a fault are in `fault_words.rs`.

use super::spec::Range;
use crate::sim::clock::ClockJump;
use crate::sim::scenario::{Event, InstanceEvent, PauseCause, Scenario};
use serde::Serialize;

/// One injected fault. Clients and instances are indices into the scenario; a delay names the
/// debit by its index among the client's events in the original scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Fault {
    Pause {
        client: usize,
        at_ms: u64,
        duration_ms: u64,
        cause: PauseCause,
    },
    Delay {
        client: usize,
        event: usize,
        delay_ms: u64,
    },
    ClientClockJump {
        client: usize,
        at_ms: u64,
        by_ms: i64,
    },
    /// The single lock's clock (`instance` absent) or one Redlock instance's.
    LockClockJump {
        #[serde(skip_serializing_if = "Option::is_none")]
        instance: Option<usize>,
        at_ms: u64,
        by_ms: i64,
    },
    InstanceCrash {
        instance: usize,
        at_ms: u64,
        down_ms: u64,
        persistent: bool,
    },
    Partition {
        instance: usize,
        at_ms: u64,
        duration_ms: u64,
        /// Cut off from this client only; from every client when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<usize>,
    },
    ClientCrash {
        client: usize,
        at_ms: u64,
    },
    /// The advisory lock's PostgreSQL fails over to a standby.
    Failover {
        at_ms: u64,
    },
}

impl Fault {
    /// When the fault starts; a delay starts with its debit, which the fault does not move.
    pub fn at_ms(&self) -> Option<u64> {
        match self {
            Fault::Delay { .. } => None,
            Fault::Pause { at_ms, .. }
            | Fault::ClientClockJump { at_ms, .. }
            | Fault::LockClockJump { at_ms, .. }
            | Fault::InstanceCrash { at_ms, .. }
            | Fault::Partition { at_ms, .. }
            | Fault::ClientCrash { at_ms, .. }
            | Fault::Failover { at_ms } => Some(*at_ms),
        }
    }

    pub fn with_at_ms(&self, t: u64) -> Fault {
        let mut f = self.clone();
        match &mut f {
            Fault::Delay { .. } => {}
            Fault::Pause { at_ms, .. }
            | Fault::ClientClockJump { at_ms, .. }
            | Fault::LockClockJump { at_ms, .. }
            | Fault::InstanceCrash { at_ms, .. }
            | Fault::Partition { at_ms, .. }
            | Fault::ClientCrash { at_ms, .. }
            | Fault::Failover { at_ms } => *at_ms = t,
        }
        f
    }

    /// How strong the fault is: a length, or a jump (signed). A client crash has no size.
    pub fn size(&self) -> Option<i64> {
        match self {
            Fault::Pause { duration_ms, .. } | Fault::Partition { duration_ms, .. } => {
                Some(*duration_ms as i64)
            }
            Fault::Delay { delay_ms, .. } => Some(*delay_ms as i64),
            Fault::ClientClockJump { by_ms, .. } | Fault::LockClockJump { by_ms, .. } => {
                Some(*by_ms)
            }
            Fault::InstanceCrash { down_ms, .. } => Some(*down_ms as i64),
            Fault::ClientCrash { .. } | Fault::Failover { .. } => None,
        }
    }

    pub fn with_size(&self, v: i64) -> Fault {
        let mut f = self.clone();
        let u = v.max(0) as u64;
        match &mut f {
            Fault::Pause { duration_ms, .. } | Fault::Partition { duration_ms, .. } => {
                *duration_ms = u
            }
            Fault::Delay { delay_ms, .. } => *delay_ms = u,
            Fault::ClientClockJump { by_ms, .. } | Fault::LockClockJump { by_ms, .. } => *by_ms = v,
            Fault::InstanceCrash { down_ms, .. } => *down_ms = u,
            Fault::ClientCrash { .. } | Fault::Failover { .. } => {}
        }
        f
    }
}

/// One of the scenario's own events: a client's or a Redlock instance's, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "lane", rename_all = "snake_case")]
pub enum Own {
    Client { client: usize, event: usize },
    Instance { instance: usize, event: usize },
}

/// Faults to inject and own events to leave out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    pub faults: Vec<Fault>,
    pub dropped: Vec<Own>,
}

/// Where an injected fault landed in the materialized scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Injected {
    /// Index into the schedule's faults.
    pub fault: usize,
    /// The client or instance event it became or changed; `None` for a jump of the single
    /// lock's clock, which lives in `lock.clock.jumps[jump]`.
    pub at: Option<Own>,
    pub jump: Option<usize>,
    pub text: String,
}

/// The scenario with the schedule applied, and where each fault went. Faults aimed at
/// something the scenario lacks (a dropped debit, an instance of a single lock) are skipped.
pub fn materialize(base: &Scenario, schedule: &Schedule) -> (Scenario, Vec<Injected>) {
    apply(base, schedule, true)
}

/// The scenario alone, without the words for each fault: what the search runs.
pub fn scenario_of(base: &Scenario, schedule: &Schedule) -> Scenario {
    apply(base, schedule, false).0
}

/// Injects `faults` into `work` in place (nothing left out), runs `f` on it, and takes them
/// out again, so that `work` is `base` before and after. The search's inner loop: no copy of
/// the scenario per schedule.
pub fn with_faults<T>(
    work: &mut Scenario,
    base: &Scenario,
    faults: &[Fault],
    f: impl FnOnce(&Scenario) -> T,
) -> T {
    let identity: Vec<Vec<Option<usize>>> = Vec::new();
    for fault in faults {
        match fault {
            // Delays name the debit by its index, which nothing has moved.
            Fault::Delay {
                client,
                event,
                delay_ms: d,
            } => {
                if let Some(
                    Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. },
                ) = work
                    .clients
                    .get_mut(*client)
                    .and_then(|c| c.events.get_mut(*event))
                {
                    *delay_ms = *d;
                }
            }
            other => {
                inject(work, &identity, other);
            }
        }
    }
    let out = f(work);
    // Undo: every lane back to the base's length, every delay back to the base's value.
    for (w, b) in work.clients.iter_mut().zip(&base.clients) {
        w.events.truncate(b.events.len());
    }
    work.lock.clock.jumps.truncate(base.lock.clock.jumps.len());
    if let (Some(w), Some(b)) = (work.lock.advisory_mut(), base.lock.advisory()) {
        w.events.truncate(b.events.len());
    }
    if let (Some(w), Some(b)) = (work.lock.zookeeper_mut(), base.lock.zookeeper()) {
        w.events.truncate(b.events.len());
    }
    if let (Some(w), Some(b)) = (work.lock.lease_mut(), base.lock.lease()) {
        w.events.truncate(b.events.len());
    }
    if let (Some(w), Some(b)) = (work.lock.redlock_mut(), base.lock.redlock()) {
        for (wi, bi) in w.instances.iter_mut().zip(&b.instances) {
            wi.events.truncate(bi.events.len());
        }
    }
    for fault in faults {
        if let Fault::Delay { client, event, .. } = fault {
            if let (Some(w), Some(b)) = (
                work.clients
                    .get_mut(*client)
                    .and_then(|c| c.events.get_mut(*event)),
                base.clients.get(*client).and_then(|c| c.events.get(*event)),
            ) {
                *w = b.clone();
            }
        }
    }
    out
}

fn apply(base: &Scenario, schedule: &Schedule, texts: bool) -> (Scenario, Vec<Injected>) {
    let mut s = base.clone();
    // New index of each kept client event, so delays find their debit.
    let mut new_index: Vec<Vec<Option<usize>>> = Vec::with_capacity(s.clients.len());
    for (c, client) in s.clients.iter_mut().enumerate() {
        let mut next = 0;
        let mut map = Vec::with_capacity(client.events.len());
        let mut i = 0;
        client.events.retain(|_| {
            let keep = !schedule.dropped.contains(&Own::Client {
                client: c,
                event: i,
            });
            map.push(keep.then_some(next));
            next += usize::from(keep);
            i += 1;
            keep
        });
        new_index.push(map);
    }
    if let Some(r) = s.lock.redlock_mut() {
        for (n, inst) in r.instances.iter_mut().enumerate() {
            let mut i = 0;
            inst.events.retain(|_| {
                i += 1;
                !schedule.dropped.contains(&Own::Instance {
                    instance: n,
                    event: i - 1,
                })
            });
        }
    }
    let mut injected = Vec::with_capacity(schedule.faults.len());
    for (n, f) in schedule.faults.iter().enumerate() {
        let text = if texts { f.text(base) } else { String::new() };
        let (at, jump) = match inject(&mut s, &new_index, f) {
            Some(place) => place,
            None => continue,
        };
        injected.push(Injected {
            fault: n,
            at,
            jump,
            text,
        });
    }
    (s, injected)
}

fn push_client(s: &mut Scenario, client: usize, e: Event) -> Option<(Option<Own>, Option<usize>)> {
    let events = &mut s.clients.get_mut(client)?.events;
    events.push(e);
    Some((
        Some(Own::Client {
            client,
            event: events.len() - 1,
        }),
        None,
    ))
}

fn push_instance(
    s: &mut Scenario,
    instance: usize,
    e: InstanceEvent,
) -> Option<(Option<Own>, Option<usize>)> {
    let events = &mut s.lock.redlock_mut()?.instances.get_mut(instance)?.events;
    events.push(e);
    Some((
        Some(Own::Instance {
            instance,
            event: events.len() - 1,
        }),
        None,
    ))
}

fn inject(
    s: &mut Scenario,
    new_index: &[Vec<Option<usize>>],
    f: &Fault,
) -> Option<(Option<Own>, Option<usize>)> {
    match *f {
        // The PostgreSQL lane draws the failover itself; it has no event to frame.
        Fault::Failover { at_ms } => {
            if let Some(l) = s.lock.lease_mut() {
                l.events
                    .push(crate::sim::scenario::LeaseEvent::Failover { at_ms });
                return Some((None, None));
            }
            let a = s.lock.advisory_mut()?;
            a.events
                .push(crate::sim::scenario::ServerEvent::Failover { at_ms });
            Some((None, None))
        }
        // ZooKeeper: the client cut off from the ensemble, drawn by the ZooKeeper lane.
        Fault::Partition {
            at_ms,
            duration_ms,
            client: Some(client),
            ..
        } if s.lock.zookeeper().is_some() => {
            let name = s.clients.get(client)?.name.clone();
            let z = s.lock.zookeeper_mut()?;
            z.events.push(crate::sim::scenario::ZkEvent::Partition {
                at_ms,
                duration_ms,
                client: name,
            });
            Some((None, None))
        }
        Fault::Pause {
            client,
            at_ms,
            duration_ms,
            cause,
        } => push_client(
            s,
            client,
            Event::Pause {
                at_ms,
                duration_ms,
                cause,
            },
        ),
        Fault::Delay {
            client,
            event,
            delay_ms: d,
        } => {
            let i = (*new_index.get(client)?.get(event)?)?;
            match s.clients.get_mut(client)?.events.get_mut(i)? {
                Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. } => {
                    *delay_ms = d
                }
                _ => return None,
            }
            Some((Some(Own::Client { client, event: i }), None))
        }
        Fault::ClientClockJump {
            client,
            at_ms,
            by_ms,
        } => push_client(s, client, Event::ClockJump { at_ms, by_ms }),
        Fault::ClientCrash { client, at_ms } => push_client(s, client, Event::Crash { at_ms }),
        Fault::LockClockJump {
            instance: None,
            at_ms,
            by_ms,
        } => {
            let jumps = &mut s.lock.clock.jumps;
            jumps.push(ClockJump {
                at_ms,
                by_ms,
                over_ms: 0,
            });
            Some((None, Some(jumps.len() - 1)))
        }
        Fault::LockClockJump {
            instance: Some(i),
            at_ms,
            by_ms,
        } => push_instance(
            s,
            i,
            InstanceEvent::ClockJump {
                at_ms,
                by_ms,
                over_ms: 0,
            },
        ),
        Fault::InstanceCrash {
            instance,
            at_ms,
            down_ms,
            persistent,
        } => push_instance(
            s,
            instance,
            InstanceEvent::Crash {
                at_ms,
                down_ms,
                persistent,
            },
        ),
        Fault::Partition {
            instance,
            at_ms,
            duration_ms,
            client,
        } => {
            let name = match client {
                Some(c) => Some(s.clients.get(c)?.name.clone()),
                None => None,
            };
            push_instance(
                s,
                instance,
                InstanceEvent::Partition {
                    at_ms,
                    duration_ms,
                    client: name,
                },
            )
        }
    }
}

/// The range a fault's size is drawn from and weakened within.
pub fn bounds_of(f: &Fault, spec: &super::spec::SearchSpec) -> Range {
    match f {
        Fault::Pause { .. } => spec.pause_ms,
        Fault::Delay { .. } => spec.delay_ms,
        Fault::ClientClockJump { .. } | Fault::LockClockJump { .. } => spec.jump_ms,
        Fault::InstanceCrash { .. } => spec.down_ms,
        Fault::Partition { .. } => spec.partition_ms,
        Fault::ClientCrash { .. } | Fault::Failover { .. } => Range { min: 0, max: 0 },
    }
}
