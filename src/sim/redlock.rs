//! Redlock over N independent instances, step by step as the algorithm is described: note the
//! start time, ask the instances one at a time with a per-instance timeout (or all at once),
//! count a majority, check that the time spent is below the TTL, and take validity = TTL −
//! elapsed − drift margin. On failure, release everywhere and retry after a seeded random delay.
//! Requests and replies travel with each instance's latency; a crashed or partitioned instance
//! answers nothing, and a paused client reads the replies waiting in its buffer only when it
//! wakes.

use super::clock::Clock;
use super::engine::{Action, Inst, Sim};
use super::lease::{LeaseTable, ReleaseMode, Released};
use super::rng::Seeded;
use super::scenario::{Instance, InstanceEvent, Redlock, ReleaseKind, Scenario};
use super::trace::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    Acquire,
    Extend,
    Release(ReleaseMode),
}

/// One round of requests from a client to the instances.
#[derive(Clone, Debug)]
pub(super) struct Attempt {
    pub(super) client: usize,
    event: Option<usize>,
    purpose: Purpose,
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

/// Builds one instance from its settings: its clock (with its jump events), its outages.
pub(super) fn instance(s: &Scenario, r: &Redlock, i: &Instance) -> Inst {
    let mut down = Vec::new();
    let mut cuts = Vec::new();
    for e in &i.events {
        match e {
            InstanceEvent::Crash { at_ms, down_ms, .. } => {
                down.push((*at_ms, at_ms.saturating_add(*down_ms)))
            }
            InstanceEvent::Partition {
                at_ms,
                duration_ms,
                client,
            } => cuts.push((
                *at_ms,
                at_ms.saturating_add(*duration_ms),
                client
                    .as_ref()
                    .and_then(|c| s.clients.iter().position(|k| &k.name == c)),
            )),
            InstanceEvent::ClockJump { .. } => {}
        }
    }
    Inst {
        // Every instance counts its grants; the counter is a fence only in the variant that
        // asks for one (`redlock.fence`).
        table: LeaseTable::new(s.lock.ttl_ms, s.lock.first_fence, r.fence),
        clock: Clock::new(&i.clock, i.clock_jumps()),
        latency_ms: i.latency_ms,
        down,
        cuts,
    }
}

impl Sim<'_> {
    fn redlock(&self) -> &Redlock {
        // Only called on the Redlock path, where the settings exist.
        self.s
            .lock
            .redlock
            .as_ref()
            .unwrap_or_else(|| unreachable!("Redlock step without Redlock settings"))
    }

    /// How long the client waits for instance `i` when it asks at `t`.
    fn wait_ms(&self, client: usize, i: usize, t: u64) -> u64 {
        let timeout = self.redlock().timeout_ms;
        let inst = &self.inst[i];
        let lat = inst.latency_ms;
        let answered = inst.reachable(client, t) && inst.reachable(client, t.saturating_add(lat));
        if answered && lat.saturating_mul(2) <= timeout {
            lat.saturating_mul(2)
        } else {
            timeout
        }
    }

    pub(super) fn start_attempt(
        &mut self,
        t: u64,
        client: usize,
        event: Option<usize>,
        number: u32,
    ) {
        self.begin(t, client, event, Purpose::Acquire, number);
    }

    pub(super) fn start_extend(&mut self, t: u64, client: usize, event: Option<usize>) {
        let generation = self.clients[client].held.map(|h| h.generation);
        match generation {
            Some(_) => self.begin(t, client, event, Purpose::Extend, 1),
            None => {
                let by_watchdog = event.is_none();
                self.clients[client].watchdog = 0;
                self.step(
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
    }

    pub(super) fn release_all(&mut self, t: u64, client: usize, event: usize, mode: ReleaseKind) {
        let how = match mode {
            ReleaseKind::TokenChecked => ReleaseMode::TokenChecked,
            ReleaseKind::BareDel => ReleaseMode::BareDel,
        };
        let name = self.s.clients[client].name.clone();
        self.begin(t, client, Some(event), Purpose::Release(how), 1);
        self.clients[client].watchdog = 0;
        self.drop_belief(t, client, SpanEnd::Released);
        self.step(
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

    fn begin(
        &mut self,
        t: u64,
        client: usize,
        event: Option<usize>,
        purpose: Purpose,
        number: u32,
    ) {
        let n = self.inst.len();
        let generation = match purpose {
            Purpose::Acquire => {
                let g = self.next_generation;
                self.next_generation += 1;
                g
            }
            _ => self.clients[client].held.map_or(0, |h| h.generation),
        };
        let a = self.attempts.len();
        self.attempts.push(Attempt {
            client,
            event,
            purpose,
            number,
            generation,
            start_ms: t,
            start_local: self.clocks[client].local(t),
            next: 0,
            answers: vec![None; n],
            arrived: vec![None; n],
            votes: Vec::new(),
        });
        let parallel = self.redlock().parallel || matches!(purpose, Purpose::Release(_));
        if parallel {
            let mut wait = 0;
            for i in 0..n {
                self.send(t, a, i);
                wait = wait.max(self.wait_ms(client, i, t));
            }
            if !matches!(purpose, Purpose::Release(_)) {
                let at = t.saturating_add(wait);
                self.push(at, at, Action::Collect { attempt: a });
            }
        } else {
            self.send(t, a, 0);
            let at = t.saturating_add(self.wait_ms(client, 0, t));
            self.push(at, at, Action::Collect { attempt: a });
        }
    }

    fn send(&mut self, t: u64, a: usize, i: usize) {
        let (client, event, purpose) = {
            let at = &self.attempts[a];
            (at.client, at.event, at.purpose)
        };
        let inst = &self.inst[i];
        let lat = inst.latency_ms;
        let lost = !inst.reachable(client, t);
        let label = match purpose {
            Purpose::Acquire => "SET NX PX",
            Purpose::Extend => "extend",
            Purpose::Release(ReleaseMode::TokenChecked) => "release",
            Purpose::Release(ReleaseMode::BareDel) => "DEL",
        };
        self.trace.messages.push(MessageSpan {
            client,
            instance: Some(i),
            lost,
            event,
            target: Target::Lock,
            label: label.to_string(),
            sent_ms: t,
            arrived_ms: t.saturating_add(lat),
        });
        if !lost {
            self.push(
                t.saturating_add(lat),
                0,
                Action::Request {
                    attempt: a,
                    instance: i,
                },
            );
        }
    }

    /// The instance handles a request at its own clock's time.
    pub(super) fn request(&mut self, t: u64, a: usize, i: usize) {
        let (client, purpose, generation) = {
            let at = &self.attempts[a];
            (at.client, at.purpose, at.generation)
        };
        if !self.inst[i].reachable(client, t) {
            return;
        }
        let name = self.s.clients[client].name.clone();
        let key = self.s.key.clone();
        let now = self.inst[i].clock.local(t);
        let answer = match purpose {
            Purpose::Acquire => match self.inst[i].table.acquire(&key, &name, now) {
                Ok(lease) => {
                    self.record_grant(i, t, client, &lease, generation);
                    (true, lease.fence)
                }
                Err(_) => (false, None),
            },
            Purpose::Extend => match self.inst[i].table.renew(&key, &name, now) {
                Ok(lease) => {
                    self.record_renewal(i, t, client, &lease);
                    (true, lease.fence)
                }
                Err(_) => (false, None),
            },
            Purpose::Release(mode) => {
                let result = self.inst[i].table.release(&key, &name, mode, now);
                let victim = match &result {
                    Released::Own => Some(client),
                    Released::Other { victim } => {
                        self.trace.clients.iter().position(|c| c == victim)
                    }
                    Released::Nothing => None,
                };
                if let Some(v) = victim {
                    if let Some(span) = self
                        .trace
                        .leases
                        .iter_mut()
                        .rev()
                        .find(|l| l.instance == i && l.holder == v && l.end_ms > t)
                    {
                        span.end_ms = t;
                        span.end = if v == client {
                            SpanEnd::Released
                        } else {
                            SpanEnd::Deleted
                        };
                    }
                }
                if let Released::Other { victim } = result {
                    let event = self.attempts[a].event;
                    self.step(
                        t,
                        client,
                        event,
                        Outcome::Released {
                            mode: ReleaseKind::BareDel,
                            deleted: Some(victim),
                            own: false,
                        },
                    );
                }
                return;
            }
        };
        self.attempts[a].answers[i] = Some(answer);
        let lat = self.inst[i].latency_ms;
        if self.inst[i].reachable(client, t) {
            self.push(
                t.saturating_add(lat),
                0,
                Action::Reply {
                    attempt: a,
                    instance: i,
                },
            );
        }
    }

    pub(super) fn reply(&mut self, t: u64, a: usize, i: usize) {
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
    pub(super) fn collect(&mut self, t: u64, a: usize) {
        let n = self.inst.len();
        if self.redlock().parallel {
            for i in 0..n {
                self.vote(a, i, t);
            }
            return self.judge(t, a);
        }
        let i = self.attempts[a].next;
        self.vote(a, i, t);
        if i + 1 < n {
            self.attempts[a].next = i + 1;
            self.send(t, a, i + 1);
            let client = self.attempts[a].client;
            let at = t.saturating_add(self.wait_ms(client, i + 1, t));
            self.push(at, at, Action::Collect { attempt: a });
        } else {
            self.judge(t, a);
        }
    }

    fn judge(&mut self, t: u64, a: usize) {
        let at = self.attempts[a].clone();
        let r = self.redlock().clone();
        let ttl = self.s.lock.ttl_ms;
        let needed = r.majority();
        let drift_ms = r.drift_ms(ttl);
        let elapsed_ms = self.clocks[at.client].local(t) - at.start_local;
        let validity_ms = ttl as i64 - elapsed_ms - drift_ms as i64;
        let votes = at.votes.len();
        let reason = if votes < needed {
            Some(format!(
                "only {votes} of {} instances agreed, {needed} needed",
                self.inst.len()
            ))
        } else if elapsed_ms >= ttl as i64 {
            Some(format!("{elapsed_ms} ms spent, not below the {ttl} ms TTL"))
        } else if validity_ms <= 0 {
            Some(format!(
                "no validity left ({validity_ms} ms after drift margin)"
            ))
        } else {
            None
        };
        let ok = reason.is_none();
        let fence = if r.fence {
            at.votes.iter().flatten().max().copied()
        } else {
            None
        };
        let record = self.trace.acquisitions.len();
        self.trace.acquisitions.push(Acquisition {
            client: at.client,
            event: at.event,
            purpose: match at.purpose {
                Purpose::Extend => "extend",
                _ => "acquire",
            }
            .to_string(),
            attempt: at.number,
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
        });
        let deadline_local = at.start_local + ttl as i64 - drift_ms as i64;
        if !matches!(at.purpose, Purpose::Release(_)) {
            self.step(
                t,
                at.client,
                at.event,
                Outcome::Redlock {
                    attempt: record,
                    ok,
                },
            );
        }
        match (at.purpose, ok) {
            (Purpose::Acquire, true) => {
                self.believe(t, at.client, fence, at.generation, deadline_local);
                if self.s.lock.watchdog {
                    self.start_watchdog(t, at.client);
                }
            }
            (Purpose::Acquire, false) => {
                // Undo the partial grants so a minority does not block the next client.
                self.begin(
                    t,
                    at.client,
                    at.event,
                    Purpose::Release(ReleaseMode::TokenChecked),
                    1,
                );
                if at.number <= r.retries {
                    if let Some(event) = at.event {
                        let delay = Seeded::new(self.s.seed).retry_delay_ms(
                            at.client,
                            at.number,
                            r.retry_delay_ms,
                        );
                        let when = t.saturating_add(delay);
                        self.push(
                            when,
                            when,
                            Action::Retry {
                                client: at.client,
                                event,
                                attempt: at.number + 1,
                            },
                        );
                    }
                }
            }
            (Purpose::Extend, true) => {
                self.extend_belief(t, at.client, deadline_local);
                if at.event.is_none() {
                    let id = self.clients[at.client].watchdog;
                    let next = t.saturating_add(self.watchdog_period());
                    if id != 0 && next <= self.horizon {
                        self.push(
                            next,
                            next,
                            Action::Tick {
                                client: at.client,
                                watchdog: id,
                            },
                        );
                    }
                }
            }
            (Purpose::Extend, false) => {
                if at.event.is_none() {
                    self.clients[at.client].watchdog = 0;
                }
            }
            (Purpose::Release(_), _) => {}
        }
    }

    /// An instance crashes, is cut off, or has its clock moved.
    pub(super) fn instance_event(&mut self, t: u64, instance: usize, event: usize) {
        let Some(r) = self.s.lock.redlock.as_ref() else {
            return;
        };
        let spec = &r.instances[instance];
        let name = spec.name.clone();
        let Some(e) = spec.events.get(event).cloned() else {
            return;
        };
        let text = match e {
            InstanceEvent::ClockJump { by_ms, over_ms, .. } => {
                if over_ms > 0 {
                    format!("{name}'s clock slews {by_ms:+} ms over {over_ms} ms")
                } else {
                    format!("{name}'s clock jumps {by_ms:+} ms")
                }
            }
            InstanceEvent::Crash {
                down_ms,
                persistent,
                ..
            } => {
                self.trace.outages.push(Outage {
                    instance,
                    start_ms: t,
                    end_ms: t.saturating_add(down_ms),
                    kind: "crash".to_string(),
                    persistent,
                    client: None,
                });
                if !persistent {
                    self.inst[instance].table.forget_all();
                    for span in self
                        .trace
                        .leases
                        .iter_mut()
                        .filter(|l| l.instance == instance && l.end_ms > t && l.start_ms <= t)
                    {
                        span.end_ms = t;
                        span.end = SpanEnd::Forgotten;
                    }
                }
                format!(
                    "{name} crashes for {down_ms} ms{}",
                    if persistent {
                        " and keeps its keys (persistence)"
                    } else {
                        " and comes back with no keys"
                    }
                )
            }
            InstanceEvent::Partition {
                duration_ms,
                client,
                ..
            } => {
                let who = client
                    .as_ref()
                    .and_then(|c| self.trace.clients.iter().position(|k| k == c));
                self.trace.outages.push(Outage {
                    instance,
                    start_ms: t,
                    end_ms: t.saturating_add(duration_ms),
                    kind: "partition".to_string(),
                    persistent: false,
                    client: who,
                });
                format!(
                    "{name} is cut off from {} for {duration_ms} ms",
                    client.unwrap_or_else(|| "every client".to_string())
                )
            }
        };
        self.trace.instance_marks.push(InstanceMark {
            instance,
            at_ms: t,
            text,
        });
    }
}
