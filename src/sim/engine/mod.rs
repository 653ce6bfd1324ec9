//! The deterministic engine: `run(&Scenario) -> Trace`. A priority queue of actions ordered by
//! true time replays every client's events against the lock service and the storage. A paused
//! client executes nothing; what falls due during its pause runs when it wakes, in order. The
//! number of actions is bounded by the scenario's step limit, and hitting it is reported.
//! `Run` is the same work in slices (`advance` a number of actions, then `finish`), for a
//! caller that must stay responsive while a large scenario runs.
//!
//! The parts are children of this module and never import it: `queue` (the agenda and the
//! pauses), `intervals` (pauses, crashes and partitions as merged intervals), `world` (what
//! every part shares, the trace being written), `instance` (one lock instance), `single` and
//! `redlock` (the two lock services), `outages` (what an instance's own events do), `storage`
//! (debits and verdicts) and `spans` (what the finished lease spans imply). This file composes
//! them: the service is a `Service`, so the Redlock path gets its
//! settings through its type and no step asks whether Redlock is configured.

use crate::sim::sort;
#[cfg(not(feature = "first-stage"))]
mod cluster;
// The first stage's build has neither etcd nor advisory locks (its `validate` refuses them).
#[cfg_attr(feature = "first-stage", path = "advisory_off.rs")]
mod advisory;
#[cfg_attr(feature = "first-stage", path = "etcd_off.rs")]
mod etcd;
#[cfg(not(feature = "first-stage"))]
mod etcd_lease;
mod instance;
mod intervals;
#[cfg_attr(feature = "first-stage", path = "lease_off.rs")]
mod lease;
mod outages;
mod queue;
mod redlock;
mod service;
mod single;
mod spans;
mod storage;
mod world;
#[cfg(not(feature = "first-stage"))]
mod zk_session;
#[cfg_attr(feature = "first-stage", path = "zookeeper_off.rs")]
mod zookeeper;

use super::checker;
#[cfg(debug_assertions)]
use super::invariants;
use super::narrate;
use super::scenario::{Event, Scenario};
use super::trace::*;
use queue::{Action, Item};
use service::Service;
use std::rc::Rc;
use storage::Storage;
use world::World;

struct Sim {
    w: World,
    service: Service,
    storage: Storage,
    /// Actions taken so far, against the scenario's step limit.
    steps: u32,
    done: bool,
    /// Whether `finish` tells the run in words.
    narrate: bool,
}

/// Runs a validated scenario to completion (or to its step limit).
pub fn run(s: &Scenario) -> Trace {
    Run::new(s).finish()
}

/// The same run without the words: no step texts, message labels or narration. Everything the
/// verdict reads is computed as in `run`, so the verdict is the same; the search runs this.
pub fn run_lean(s: &Scenario) -> Trace {
    Run::with_words(s, Words::None).finish()
}

/// Which words a run writes. Everything the verdict reads is computed in every case, so the
/// verdict is the same (`tests/lean.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// Step texts, message labels and the narration: `run`.
    All,
    /// Step texts and message labels, no narration (`narrate::narrate` tells the trace
    /// later): what a page draws while a drag moves an event.
    Steps,
    /// None at all: the lean run of the search and of a comparison drawn without words.
    None,
}

/// A run that can be taken a slice at a time, so a caller with a deadline (the page, which
/// must keep answering input) can stop between slices: `advance` takes at most a given number
/// of actions off the agenda, and `finish` does what is left and judges the trace. `run` is
/// the same code in one call.
pub struct Run {
    sim: Sim,
}

/// Where a run stands after a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Actions are still due; `steps` have been taken so far.
    Running { steps: u32 },
    /// Nothing is left to do (or the step limit was reached): `finish` only judges.
    Done,
}

impl Run {
    /// A run of a validated scenario with nothing done yet.
    pub fn new(s: &Scenario) -> Run {
        Run::with_words(s, Words::All)
    }

    /// A run that writes only the given words.
    pub fn with_words(s: &Scenario, words: Words) -> Run {
        let mut sim = Sim::new(Rc::new(s.clone()));
        sim.w.texts = words != Words::None;
        sim.narrate = words == Words::All;
        sim.schedule_events();
        Run { sim }
    }

    /// Takes at most `step_budget` actions.
    pub fn advance(&mut self, step_budget: u32) -> Progress {
        self.sim.advance(step_budget)
    }

    /// Runs what is left, then marks the spans, judges the trace and narrates it.
    pub fn finish(mut self) -> Trace {
        while self.sim.advance(u32::MAX) != Progress::Done {}
        self.sim.finish()
    }

    /// The trace of the scenario before anything ran: its clients, instances and opening
    /// balance, no steps, and no verdict yet. What a page shows while a run is computed.
    pub fn not_started(s: &Scenario) -> Trace {
        Sim::new(Rc::new(s.clone())).w.trace
    }
}

impl Sim {
    fn new(s: Rc<Scenario>) -> Sim {
        let (service, kind, instances, majority) = Service::choose(&s);
        let storage = Storage::new(&s);
        let mut w = World::new(s, kind, instances, majority);
        // The server's settings, for the steps' words; `finish` adds what it did.
        service.write_settings(&mut w.trace);
        Sim {
            w,
            service,
            storage,
            steps: 0,
            done: false,
            narrate: true,
        }
    }

    fn schedule_events(&mut self) {
        let mut all: Vec<(u64, usize, usize)> = Vec::new();
        for (c, client) in self.w.s.clients.iter().enumerate() {
            for (i, e) in client.events.iter().enumerate() {
                all.push((e.at_ms(), c, i));
            }
        }
        sort::sort(&mut all);
        for (at, client, event) in all {
            self.w.queue.push(at, at, Action::Event { client, event });
        }
        match &self.service {
            Service::Redlock(r) => r.schedule(&mut self.w.queue),
            Service::Etcd(e) => e.schedule(&mut self.w.queue),
            Service::Advisory(x) => x.schedule(&mut self.w.queue, &self.w.s),
            Service::Zookeeper(x) => x.schedule(&mut self.w.queue),
            Service::Lease(x) => x.schedule(&mut self.w.queue, &self.w.s),
            Service::Single(_) => {}
        }
    }

    fn advance(&mut self, step_budget: u32) -> Progress {
        for _ in 0..step_budget {
            if self.done {
                break;
            }
            let Some(item) = self.w.queue.pop() else {
                self.done = true;
                break;
            };
            if self.steps >= self.w.s.step_limit {
                self.w.trace.step_limit_hit = true;
                self.done = true;
                break;
            }
            self.steps += 1;
            self.w.trace.end_ms = self.w.trace.end_ms.max(item.at);
            self.act(item);
        }
        if self.done || self.w.queue.is_empty() {
            self.done = true;
            Progress::Done
        } else {
            Progress::Running { steps: self.steps }
        }
    }

    fn act(&mut self, item: Item) {
        let t = item.at;
        let w = &mut self.w;
        match (item.action, &mut self.service) {
            (
                Action::Expire {
                    generation,
                    expires_at,
                    ..
                },
                Service::Etcd(e),
            ) => {
                let session = usize::try_from(generation).unwrap_or(usize::MAX);
                e.expire(w, t, session, u64::try_from(expires_at).unwrap_or(0));
            }
            (
                Action::Expire {
                    instance,
                    generation,
                    expires_at,
                },
                Service::Advisory(x),
            ) => x.expire(w, t, instance, generation, expires_at),
            (Action::InstanceEvent { .. }, Service::Advisory(x)) => x.failover(w, t),
            (
                Action::Expire {
                    instance,
                    generation,
                    expires_at,
                },
                Service::Zookeeper(x),
            ) => x.expire(w, t, instance, generation, expires_at),
            (Action::InstanceEvent { event, .. }, Service::Zookeeper(x)) => {
                x.ensemble_event(w, t, event)
            }
            // A waiter's own clock says a TTL has passed since it read the row.
            (
                Action::Expire {
                    instance,
                    generation,
                    ..
                },
                Service::Lease(x),
            ) => x.deadline(w, t, instance, generation),
            (Action::InstanceEvent { .. }, Service::Lease(x)) => x.failover(w, t),
            (Action::Elected { .. }, Service::Etcd(e)) => e.elected(w, t),
            (
                Action::Elected { .. },
                Service::Single(_)
                | Service::Redlock(_)
                | Service::Advisory(_)
                | Service::Zookeeper(_)
                | Service::Lease(_),
            ) => {}
            (
                Action::Expire {
                    instance,
                    generation,
                    expires_at,
                },
                service,
            ) => {
                if let Some(i) = service.instance_mut(instance) {
                    i.expire(&w.s.key, t, generation, expires_at);
                }
            }
            (Action::InstanceEvent { instance, event }, Service::Redlock(r)) => {
                r.instance_event(w, t, instance, event)
            }
            (Action::Request { attempt, instance }, Service::Redlock(r)) => {
                r.request(w, t, attempt, instance)
            }
            (Action::Reply { attempt, instance }, Service::Redlock(r)) => {
                r.reply(t, attempt, instance)
            }
            (Action::Collect { attempt }, Service::Redlock(r)) => {
                let client = r.client_of(attempt);
                if !w.clients[client].crashed && w.ready_for(item, client) {
                    r.collect(w, t, attempt);
                }
            }
            (
                Action::Retry {
                    client,
                    event,
                    attempt,
                },
                Service::Redlock(r),
            ) => {
                if !w.clients[client].crashed && w.ready_for(item, client) {
                    r.start_attempt(w, t, client, Some(event), attempt);
                }
            }
            // Only Redlock schedules these.
            (
                Action::InstanceEvent { .. }
                | Action::Request { .. }
                | Action::Reply { .. }
                | Action::Collect { .. }
                | Action::Retry { .. },
                Service::Single(_)
                | Service::Etcd(_)
                | Service::Advisory(_)
                | Service::Zookeeper(_)
                | Service::Lease(_),
            ) => {}
            (Action::Wake { client, event }, _) => {
                if !w.clients[client].crashed && w.paused_until(client, t).is_none() {
                    w.step(t, client, Some(event), Outcome::Woke);
                }
            }
            (Action::Event { client, event }, _) => {
                let e = &w.s.clients[client].events[event];
                let immediate = matches!(
                    e,
                    Event::Pause { .. } | Event::ClockJump { .. } | Event::Crash { .. }
                );
                // A client blocked in a lock call does nothing else until it returns.
                if !immediate && self.service.is_waiting(client) && !w.clients[client].crashed {
                    self.service.block(client, item);
                    return;
                }
                if immediate || w.ready(item) {
                    self.event(t, item.due, client, event);
                }
            }
            (Action::CheckWrite { client, .. }, service) if service.is_waiting(client) => {
                service.block(client, item)
            }
            (Action::CheckWrite { client, event }, service) => {
                if w.ready(item) && !service.held_back(w, t, client, event) {
                    self.storage.send(w, t, item.due, client, event);
                }
            }
            (Action::Tick { client, watchdog }, service) => {
                if w.clients[client].watchdog == watchdog
                    && !w.clients[client].crashed
                    && w.ready(item)
                {
                    service.tick(w, t, client);
                }
            }
            (Action::Arrive { write }, Service::Etcd(x)) if w.s.storage.create_guard => {
                let live = w.trace.writes[write]
                    .generation
                    .is_some_and(|g| x.key_live(g));
                let refused = (!live).then_some(Rejection::CompareFailed);
                if self.storage.arrive(w, t, write, refused) {
                    x.committed(t, w.trace.writes[write].client);
                }
            }
            (Action::Arrive { write }, Service::Advisory(x)) => {
                let generation = w.trace.writes[write].generation.unwrap_or(0);
                let refused = x.write_arrives(w, t, generation);
                self.storage.arrive(w, t, write, refused);
                if refused.is_some() {
                    // The client's statement failed on a dead connection: now it knows.
                    let client = w.trace.writes[write].client;
                    w.drop_belief(t, client, SpanEnd::Expired);
                }
            }
            (Action::Arrive { write }, Service::Lease(x)) => {
                let refused = x.write_arrives(w, t, write);
                let errs = refused.is_some();
                self.storage.arrive(w, t, write, refused);
                x.ran(w, write, errs);
            }
            (Action::Arrive { write }, _) => {
                self.storage.arrive(w, t, write, None);
            }
        }
    }

    fn event(&mut self, t: u64, due: u64, client: usize, event: usize) {
        let w = &mut self.w;
        let e = w.s.clients[client].events[event].clone();
        match (e, &mut self.service) {
            (Event::Acquire { .. }, service) => service.acquire(w, t, due, client, event),
            (Event::Debit { .. }, service) => {
                if !service.held_back(w, t, client, event) {
                    self.storage.send(w, t, due, client, event)
                }
            }
            (
                Event::Pause {
                    duration_ms, cause, ..
                },
                _,
            ) => {
                let until_ms = t.saturating_add(duration_ms);
                if w.clients[client].crashed {
                    return;
                }
                w.trace.pauses.push(PauseSpan {
                    client,
                    event,
                    cause,
                    start_ms: t,
                    end_ms: until_ms,
                });
                w.step(t, client, Some(event), Outcome::Paused { cause, until_ms });
                if let Service::Advisory(x) = &mut self.service {
                    x.paused(w, t, client, cause, duration_ms);
                }
                w.queue.push(until_ms, 0, Action::Wake { client, event });
            }
            (Event::CheckThenWrite { gap_ms, .. }, service) => {
                let held = service.holds(w, t, client);
                w.message(client, Some(event), Target::Lock, "isHeld", t, t);
                if held {
                    w.step(t, client, Some(event), Outcome::CheckPassed);
                    let at = t.saturating_add(gap_ms);
                    w.queue.push(at, at, Action::CheckWrite { client, event });
                } else {
                    w.step(t, client, Some(event), Outcome::CheckFailed);
                }
            }
            (Event::Renew { .. }, service) => service.renew(w, t, client, event),
            // Validation refuses a watchdog on etcd (sessions keep themselves alive), on an
            // advisory lock (it has no TTL) and on ZooKeeper (the client pings).
            (Event::Watchdog { .. }, Service::Etcd(_) | Service::Advisory(_))
            | (Event::Watchdog { .. }, Service::Zookeeper(_)) => {}
            (Event::Watchdog { .. }, _) => {
                w.start_watchdog(t, client);
                w.step(t, client, Some(event), Outcome::WatchdogStarted);
            }
            (Event::Release { mode, .. }, service) => {
                service.release(w, t, due, (client, event), mode)
            }
            (Event::Crash { .. }, service) => {
                if w.clients[client].crashed {
                    return;
                }
                service.crashing(w, t, client);
                w.clients[client].crashed = true;
                w.clients[client].watchdog = 0;
                w.drop_belief(t, client, SpanEnd::Crashed);
                w.step(t, client, Some(event), Outcome::Crashed);
                // The server sees the socket close after the death, and hands the lock on.
                if let Service::Advisory(x) = service {
                    x.crashed(w, t, client);
                }
            }
            (Event::ClockJump { by_ms, .. }, _) => {
                w.step(t, client, Some(event), Outcome::ClockJumped { by_ms });
            }
        }
    }

    fn finish(self) -> Trace {
        let Sim {
            w,
            storage,
            narrate: tell,
            service,
            ..
        } = self;
        let mut trace = w.trace;
        match service {
            Service::Etcd(x) => trace.etcd = Some(x.finish(trace.end_ms)),
            Service::Advisory(x) => trace.advisory = Some(x.finish(trace.end_ms)),
            Service::Zookeeper(x) => trace.zookeeper = Some(x.finish(trace.end_ms)),
            Service::Lease(x) => trace.lease = Some(x.finish(trace.end_ms)),
            Service::Single(_) | Service::Redlock(_) => {}
        }
        spans::mark_stale_beliefs(&mut trace);
        trace.majorities = spans::majority_spans(&trace);
        trace.final_balance = storage.balance();
        trace.last_fence = storage.last_fence();
        trace.verdict = checker::check(&trace);
        // Every run a debug build makes (every test's, the lean runs of the search included)
        // is held to the invariants the trace format promises, but a run with a bug planted on
        // purpose (`sim::planted`, the lab's mutation test), which may break them.
        #[cfg(debug_assertions)]
        if !crate::sim::planted::any() {
            let broken = invariants::check(&w.s, &trace);
            debug_assert!(
                broken.is_empty(),
                "the run of {:?} broke its invariants: {broken:#?}",
                w.s.name
            );
        }
        if tell {
            trace.narration = narrate::narrate(&trace);
        }
        trace
    }
}

#[cfg(test)]
// The invariants are asserted in debug builds only, so these tests exist only there.
#[cfg(debug_assertions)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;

    /// A run whose trace gains, before it finishes, a balance point no debit made.
    fn tampered(words: Words) -> Trace {
        let s = preset("gc-pause-fenced").expect("the preset");
        let mut r = Run::with_words(&s, words);
        r.advance(3);
        r.sim.w.trace.balance.push(BalancePoint {
            at_ms: 1,
            balance: 7,
        });
        r.finish()
    }

    #[test]
    #[should_panic(expected = "broke its invariants")]
    fn a_full_run_checks_its_invariants_when_it_ends() {
        tampered(Words::All);
    }

    #[test]
    #[should_panic(expected = "broke its invariants")]
    fn a_lean_run_checks_its_invariants_when_it_ends() {
        tampered(Words::None);
    }
}
