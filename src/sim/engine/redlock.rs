//! Redlock over N independent instances, step by step as the algorithm is described: note the
//! start time, ask the instances one at a time with a per-instance timeout (or all at once),
//! count a majority, check that the time spent is below the TTL, and take validity = TTL −
//! elapsed − drift margin. On failure, release everywhere and retry after a seeded random delay.
//! Requests and replies travel with each instance's latency; a crashed or partitioned instance
//! answers nothing, and a paused client reads the replies waiting in its buffer only when it
//! wakes.

use super::instance::{release_mode, Inst};
use super::outages;
use super::queue::{Action, Queue};
use super::world::World;
use crate::sim::lease::{ReleaseMode, Released};
use crate::sim::planted::{self, Bug};
use crate::sim::rng::Seeded;
use crate::sim::scenario::{self, ReleaseKind, Scenario};
use crate::sim::trace::*;

/// What a round of requests asks the instances for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    Acquire,
    Extend,
    Release(ReleaseMode),
}

/// One round of requests from a client to the instances.
#[derive(Clone, Debug)]
struct Attempt {
    client: usize,
    event: Option<usize>,
    ask: Ask,
    number: u32,
    generation: u64,
    start_ms: u64,
    start_local: i64,
    /// Sequential mode: the instance the client is waiting for.
    next: usize,
    /// Per instance: the answer (granted?, fence) once the instance handled the request.
    answers: Vec<Option<(bool, Option<u64>)>>,
    /// Per instance: when the answer reached the client's buffer.
    arrived: Vec<Option<u64>>,
    votes: Vec<Option<u64>>,
}

/// A Redlock service: its settings, its instances and every round of requests so far.
pub struct Redlock {
    /// The service's settings, its own copy so that a run owns everything it reads.
    r: scenario::Redlock,
    inst: Vec<Inst>,
    attempts: Vec<Attempt>,
    /// Per instance: the lock generation (round) whose value the key was last set to.
    granted_by: Vec<Option<u64>>,
    /// Lock generations: one per acquisition round, in the order rounds start.
    next_generation: u64,
    rng: Seeded,
}

impl Redlock {
    pub fn new(s: &Scenario, r: &scenario::Redlock) -> Redlock {
        Redlock {
            r: r.clone(),
            inst: r.instances.iter().map(|i| Inst::redlock(s, r, i)).collect(),
            attempts: Vec::new(),
            granted_by: vec![None; r.instances.len()],
            next_generation: 1,
            rng: Seeded::new(s.seed),
        }
    }

    pub fn instances(&self) -> &[Inst] {
        &self.inst
    }

    pub fn instance_mut(&mut self, i: usize) -> Option<&mut Inst> {
        self.inst.get_mut(i)
    }

    /// Queues every instance's crashes, partitions and clock jumps.
    pub fn schedule(&self, queue: &mut Queue) {
        for (instance, i) in self.r.instances.iter().enumerate() {
            for (event, e) in i.events.iter().enumerate() {
                queue.push(e.at_ms(), 0, Action::InstanceEvent { instance, event });
            }
        }
    }

    /// The client who started round `attempt`.
    pub fn client_of(&self, attempt: usize) -> usize {
        self.attempts[attempt].client
    }

    /// How long the client waits for instance `i` when it asks at `t`.
    ///
    /// A reply that arrives exactly when the wait ends counts: replies are queued with due 0
    /// and a collect with its own instant as due, so at one instant the replies come first.
    fn wait_ms(&self, client: usize, i: usize, t: u64) -> u64 {
        let inst = &self.inst[i];
        let lat = inst.latency_ms;
        let answered = inst.reachable(client, t) && inst.reachable(client, t.saturating_add(lat));
        if answered && lat.saturating_mul(2) <= self.r.timeout_ms {
            lat.saturating_mul(2)
        } else {
            self.r.timeout_ms
        }
    }

    pub fn start_attempt(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: Option<usize>,
        number: u32,
    ) {
        self.begin(w, t, client, event, Ask::Acquire, number, None);
    }

    /// Extends the client's lock on every instance; `event` is `None` for a watchdog's turn,
    /// which reports back through `collect`, where the next turn is scheduled.
    pub fn start_extend(&mut self, w: &mut World, t: u64, client: usize, event: Option<usize>) {
        if w.clients[client].held.is_some() {
            self.begin(w, t, client, event, Ask::Extend, 1, None);
        } else {
            let by_watchdog = event.is_none();
            w.clients[client].watchdog = 0;
            w.step(
                t,
                client,
                event,
                Outcome::RenewDenied {
                    holder: None,
                    by_watchdog,
                },
            );
        }
    }

    pub fn release_all(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: usize,
        mode: ReleaseKind,
    ) {
        let name = w.name(client);
        self.begin(
            w,
            t,
            client,
            Some(event),
            Ask::Release(release_mode(mode)),
            1,
            None,
        );
        w.clients[client].watchdog = 0;
        w.drop_belief(t, client, SpanEnd::Released);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Released {
                mode,
                deleted: Some(name),
                own: true,
            },
        );
    }

    /// Starts a round of requests. A release deletes the keys of lock generation `undo` when
    /// given (the round that just failed), else those of the lock the client holds.
    #[allow(clippy::too_many_arguments)]
    fn begin(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: Option<usize>,
        ask: Ask,
        number: u32,
        undo: Option<u64>,
    ) {
        let n = self.inst.len();
        let generation = match (ask, undo) {
            (Ask::Acquire, _) => {
                let g = self.next_generation;
                self.next_generation += 1;
                g
            }
            (_, Some(g)) => g,
            _ => w.clients[client].held.map_or(0, |h| h.generation),
        };
        let a = self.attempts.len();
        self.attempts.push(Attempt {
            client,
            event,
            ask,
            number,
            generation,
            start_ms: t,
            start_local: w.clocks[client].local(t),
            next: 0,
            answers: vec![None; n],
            arrived: vec![None; n],
            votes: Vec::new(),
        });
        let release = matches!(ask, Ask::Release(_));
        if self.r.parallel || release {
            let mut wait = 0;
            for i in 0..n {
                self.send(w, t, a, i);
                wait = wait.max(self.wait_ms(client, i, t));
            }
            if !release {
                let at = t.saturating_add(wait);
                push_collect(w, at, a);
            }
        } else {
            self.send(w, t, a, 0);
            let at = t.saturating_add(self.wait_ms(client, 0, t));
            push_collect(w, at, a);
        }
    }

    fn send(&mut self, w: &mut World, t: u64, a: usize, i: usize) {
        let Attempt {
            client,
            event,
            ask,
            generation,
            ..
        } = self.attempts[a];
        let inst = &self.inst[i];
        let lat = inst.latency_ms;
        let lost = !inst.reachable(client, t);
        let label = match ask {
            Ask::Acquire => "SET NX PX",
            Ask::Extend => "extend",
            Ask::Release(ReleaseMode::TokenChecked) => "release",
            Ask::Release(ReleaseMode::BareDel) => "DEL",
        };
        w.trace.messages.push(MessageSpan {
            client,
            instance: Some(i),
            lost,
            event,
            target: Target::Lock,
            label: label.to_string(),
            sent_ms: t,
            arrived_ms: t.saturating_add(lat),
            generation,
        });
        if !lost {
            let request = Action::Request {
                attempt: a,
                instance: i,
            };
            w.queue.push(t.saturating_add(lat), 0, request);
        }
    }

    /// The instance handles a request at its own clock's time.
    pub fn request(&mut self, w: &mut World, t: u64, a: usize, i: usize) {
        let Attempt {
            client,
            ask,
            generation,
            ..
        } = self.attempts[a];
        if !self.inst[i].reachable(client, t) {
            return;
        }
        let name = w.name(client);
        let key = &w.s.key;
        let now = self.inst[i].clock.local(t);
        let answer = match ask {
            Ask::Acquire => match self.inst[i].table.acquire(key, &name, now) {
                Ok(lease) => {
                    self.granted_by[i] = Some(generation);
                    w.record_grant((i, &self.inst[i]), t, client, &lease, generation);
                    (true, lease.fence)
                }
                Err(_) => (false, None),
            },
            Ask::Extend => match self.inst[i].table.renew(key, &name, now) {
                Ok(lease) => {
                    w.record_renewal((i, &self.inst[i]), t, client, &lease);
                    (true, lease.fence)
                }
                Err(_) => (false, None),
            },
            Ask::Release(mode) => {
                // The key holds the value of the round that set it: a token-checked release
                // by another round of the same client (the undo of a failed round, while an
                // earlier lock of the client is still there) compares unequal and deletes
                // nothing.
                let other_round = self.granted_by[i] != Some(generation);
                let result = if mode == ReleaseMode::TokenChecked && other_round {
                    Released::Nothing
                } else {
                    self.inst[i].table.release(key, &name, mode, now)
                };
                self.released(w, t, a, i, result);
                return;
            }
        };
        self.attempts[a].answers[i] = Some(answer);
        let lat = self.inst[i].latency_ms;
        if self.inst[i].reachable(client, t) {
            let reply = Action::Reply {
                attempt: a,
                instance: i,
            };
            w.queue.push(t.saturating_add(lat), 0, reply);
        }
    }

    /// Ends the lease span a release deleted on instance `i`; a bare DEL that deleted another
    /// client's key is a step of its own.
    fn released(&mut self, w: &mut World, t: u64, a: usize, i: usize, result: Released) {
        let Attempt { client, event, .. } = self.attempts[a];
        let victim = match &result {
            Released::Own => Some(client),
            Released::Other { victim } => w.trace.clients.iter().position(|c| c == victim),
            Released::Nothing => None,
        };
        if let Some(v) = victim {
            let why = if v == client {
                SpanEnd::Released
            } else {
                SpanEnd::Deleted
            };
            w.end_live_lease(i, v, t, why);
        }
        if let Released::Other { victim } = result {
            let outcome = Outcome::Released {
                mode: ReleaseKind::BareDel,
                deleted: Some(victim),
                own: false,
            };
            w.step(t, client, event, outcome);
        }
    }

    pub fn reply(&mut self, t: u64, a: usize, i: usize) {
        self.attempts[a].arrived[i] = Some(t);
    }

    fn vote(&mut self, a: usize, i: usize, t: u64) {
        let at = &mut self.attempts[a];
        if at.arrived[i].is_some_and(|r| r <= t) {
            if let Some((true, fence)) = at.answers[i] {
                at.votes.push(fence);
            }
        }
    }

    /// The client reads its buffer: next instance (sequential) or the verdict on the attempt.
    pub fn collect(&mut self, w: &mut World, t: u64, a: usize) {
        let n = self.inst.len();
        if self.r.parallel {
            for i in 0..n {
                self.vote(a, i, t);
            }
            return self.judge(w, t, a);
        }
        let i = self.attempts[a].next;
        self.vote(a, i, t);
        if i + 1 < n {
            self.attempts[a].next = i + 1;
            self.send(w, t, a, i + 1);
            let client = self.attempts[a].client;
            let at = t.saturating_add(self.wait_ms(client, i + 1, t));
            push_collect(w, at, a);
        } else {
            self.judge(w, t, a);
        }
    }

    fn judge(&mut self, w: &mut World, t: u64, a: usize) {
        let at = self.attempts[a].clone();
        let ttl = w.s.lock.ttl_ms;
        let needed = self.r.majority();
        // The lab's mutation test may plant one vote too few here (`sim::planted`).
        let needed = if planted::is(Bug::RedlockMajority) {
            needed.saturating_sub(1).max(1)
        } else {
            needed
        };
        let drift_ms = self.r.drift_ms(ttl);
        let elapsed_ms = w.clocks[at.client].local(t) - at.start_local;
        let validity_ms = ttl as i64 - elapsed_ms - drift_ms as i64;
        // Kept as the client computed it, and flagged when its wall clock stepped back.
        let stepped = w.clocks[at.client].jumped_between(at.start_ms, t);
        let timing_hazard = (stepped < 0).then(|| TimingHazard::WallClockSteppedBack {
            by_ms: stepped.unsigned_abs(),
        });
        let votes = at.votes.len();
        let reason = if votes < needed {
            Some(Failure::NoMajority)
        } else if elapsed_ms >= ttl as i64 {
            Some(Failure::TooSlow)
        } else if validity_ms <= 0 {
            Some(Failure::NoValidityLeft)
        } else {
            None
        };
        let ok = reason.is_none();
        let fence = if self.r.fence {
            at.votes.iter().flatten().max().copied()
        } else {
            None
        };
        let record = w.trace.acquisitions.len();
        w.trace.acquisitions.push(Acquisition {
            client: at.client,
            event: at.event,
            purpose: match at.ask {
                Ask::Extend => Purpose::Extend,
                _ => Purpose::Acquire,
            },
            attempt: at.number,
            generation: at.generation,
            start_ms: at.start_ms,
            end_ms: t,
            votes,
            needed,
            elapsed_ms,
            drift_ms,
            validity_ms,
            ok,
            fence,
            reason,
            timing_hazard,
        });
        let deadline_local = at.start_local + ttl as i64 - drift_ms as i64;
        if !matches!(at.ask, Ask::Release(_)) {
            let outcome = Outcome::Redlock {
                attempt: record,
                ok,
            };
            w.step(t, at.client, at.event, outcome);
        }
        match (at.ask, ok) {
            (Ask::Acquire, true) => {
                w.believe(t, at.client, fence, at.generation, deadline_local);
                if w.s.lock.watchdog {
                    w.start_watchdog(t, at.client);
                }
            }
            (Ask::Acquire, false) => {
                // Undo the partial grants so a minority does not block the next client.
                let undo = Ask::Release(ReleaseMode::TokenChecked);
                self.begin(w, t, at.client, at.event, undo, 1, Some(at.generation));
                if let Some(event) = at.event.filter(|_| at.number <= self.r.retries) {
                    let delay =
                        self.rng
                            .retry_delay_ms(at.client, at.number, self.r.retry_delay_ms);
                    let when = t.saturating_add(delay);
                    let retry = Action::Retry {
                        client: at.client,
                        event,
                        attempt: at.number + 1,
                    };
                    w.queue.push(when, when, retry);
                }
            }
            (Ask::Extend, true) => {
                w.extend_belief(t, at.client, deadline_local);
                if at.event.is_none() && w.clients[at.client].watchdog != 0 {
                    w.next_tick(t, at.client);
                }
            }
            (Ask::Extend, false) => {
                if at.event.is_none() {
                    w.clients[at.client].watchdog = 0;
                }
            }
            (Ask::Release(_), _) => {}
        }
    }

    /// An instance crashes, is cut off, or has its clock moved.
    pub fn instance_event(&mut self, w: &mut World, t: u64, instance: usize, event: usize) {
        let spec = &self.r.instances[instance];
        if let (Some(e), Some(inst)) = (spec.events.get(event), self.inst.get_mut(instance)) {
            outages::apply(w, t, (instance, inst), &spec.name, e);
        }
    }
}

/// Queues the client's look at its replies at `at`. Its due is at least 1 so that it sorts
/// after the replies of that instant (due 0) even at 0 ms, where a zero-latency instance's
/// reply would otherwise be queued after the look and never counted.
fn push_collect(w: &mut World, at: u64, attempt: usize) {
    w.queue.push(at, at.max(1), Action::Collect { attempt });
}
