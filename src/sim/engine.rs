//! The deterministic engine: `run(&Scenario) -> Trace`. A priority queue of actions ordered by
//! true time replays every client's events against one lock instance and the storage. A paused
//! client executes nothing; what falls due during its pause runs when it wakes, in order. The
//! number of actions is bounded by the scenario's step limit, and hitting it is reported.

use super::account::{Account, DebitVerdict, FenceRule};
use super::checker;
use super::clock::Clock;
use super::lease::{Lease, LeaseTable, ReleaseMode, Released};
use super::narrate;
use super::rng::Seeded;
use super::scenario::{Event, ReleaseKind, Scenario, MAX_TIME_MS};
use super::trace::*;
use super::words;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Action {
    Expire {
        instance: usize,
        generation: u64,
        expires_at: i64,
    },
    InstanceEvent {
        instance: usize,
        event: usize,
    },
    /// A Redlock request reaches an instance.
    Request {
        attempt: usize,
        instance: usize,
    },
    /// An instance's answer reaches the client's socket buffer.
    Reply {
        attempt: usize,
        instance: usize,
    },
    /// The client looks at its replies: next instance, or judge the attempt.
    Collect {
        attempt: usize,
    },
    Retry {
        client: usize,
        event: usize,
        attempt: u32,
    },
    Wake {
        client: usize,
        event: usize,
    },
    Event {
        client: usize,
        event: usize,
    },
    CheckWrite {
        client: usize,
        event: usize,
    },
    Tick {
        client: usize,
        watchdog: u64,
    },
    Arrive {
        write: usize,
    },
}

/// Queue order: true time, then the time the action was first due (so steps deferred by a
/// pause run before fresh ones at the wake instant), then insertion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Item {
    at: u64,
    due: u64,
    seq: u64,
    action: Action,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    pub(super) fence: Option<u64>,
    pub(super) generation: u64,
    /// The client's own clock reading at which it stops believing it holds the lock.
    pub(super) deadline_local: i64,
    pub(super) belief: usize,
}

#[derive(Clone, Debug, Default)]
pub(super) struct ClientState {
    pub(super) crashed: bool,
    pub(super) held: Option<Held>,
    /// Id of the running watchdog; 0 when none runs.
    pub(super) watchdog: u64,
    /// Merged pause intervals `[start, end)`.
    pub(super) pauses: Vec<(u64, u64)>,
}

/// One lock instance: its keys, its clock, and when it cannot be reached.
pub(super) struct Inst {
    pub(super) table: LeaseTable,
    pub(super) clock: Clock,
    pub(super) latency_ms: u64,
    /// `[start, end)` while crashed.
    pub(super) down: Vec<(u64, u64)>,
    /// `[start, end)` cut off from one client, or from all (`None`).
    pub(super) cuts: Vec<(u64, u64, Option<usize>)>,
}

impl Inst {
    pub(super) fn reachable(&self, client: usize, t: u64) -> bool {
        !self.down.iter().any(|(s, e)| *s <= t && t < *e)
            && !self
                .cuts
                .iter()
                .any(|(s, e, c)| *s <= t && t < *e && c.is_none_or(|c| c == client))
    }
}

pub(super) struct Sim<'a> {
    pub(super) s: &'a Scenario,
    pub(super) horizon: u64,
    pub(super) limit: u64,
    pub(super) inst: Vec<Inst>,
    pub(super) clocks: Vec<Clock>,
    pub(super) account: Account,
    queue: BinaryHeap<Reverse<Item>>,
    seq: u64,
    next_watchdog: u64,
    /// Redlock generations: one per attempt, in the order attempts start.
    pub(super) next_generation: u64,
    pub(super) attempts: Vec<super::redlock::Attempt>,
    pub(super) clients: Vec<ClientState>,
    pub(super) trace: Trace,
}

/// Runs a validated scenario to completion (or to its step limit).
pub fn run(s: &Scenario) -> Trace {
    let mut sim = Sim::new(s);
    sim.schedule_events();
    sim.drain();
    sim.finish()
}

impl<'a> Sim<'a> {
    fn new(s: &'a Scenario) -> Sim<'a> {
        let horizon = s.horizon_ms();
        let ttl = s.lock.ttl_ms;
        let limit = horizon
            .saturating_add(ttl.saturating_mul(10))
            .min(MAX_TIME_MS.saturating_mul(4));
        let clients = s
            .clients
            .iter()
            .map(|c| ClientState {
                pauses: merged_pauses(&c.events),
                ..ClientState::default()
            })
            .collect();
        let inst = match &s.lock.redlock {
            None => vec![Inst {
                table: LeaseTable::new(ttl, s.lock.first_fence, s.lock.fencing),
                clock: Clock::new(&s.lock.clock, []),
                latency_ms: 0,
                down: Vec::new(),
                cuts: Vec::new(),
            }],
            Some(r) => r
                .instances
                .iter()
                .map(|i| super::redlock::instance(s, r, i))
                .collect(),
        };
        let instances = match &s.lock.redlock {
            None => vec!["lock".to_string()],
            Some(r) => r.instances.iter().map(|i| i.name.clone()).collect(),
        };
        let majority = s.lock.redlock.as_ref().map_or(1, |r| r.majority());
        Sim {
            s,
            horizon,
            limit,
            inst,
            clocks: s
                .clients
                .iter()
                .map(|c| Clock::new(&c.clock, Scenario::client_jumps(c)))
                .collect(),
            account: Account::new(
                s.storage.balance,
                s.storage.fence_rule,
                s.storage.idempotency,
            ),
            queue: BinaryHeap::new(),
            seq: 0,
            next_watchdog: 1,
            next_generation: 1,
            attempts: Vec::new(),
            clients,
            trace: Trace {
                clients: s.clients.iter().map(|c| c.name.clone()).collect(),
                tier: s.tier,
                fence_rule: s.storage.fence_rule,
                instances,
                majority,
                end_ms: horizon,
                steps: Vec::new(),
                leases: Vec::new(),
                beliefs: Vec::new(),
                pauses: Vec::new(),
                messages: Vec::new(),
                acquisitions: Vec::new(),
                outages: Vec::new(),
                instance_marks: Vec::new(),
                writes: Vec::new(),
                balance: vec![BalancePoint {
                    at_ms: 0,
                    balance: s.storage.balance,
                }],
                final_balance: s.storage.balance,
                last_fence: None,
                step_limit_hit: false,
                verdict: Verdict::default(),
                narration: Vec::new(),
            },
        }
    }

    pub(super) fn push(&mut self, at: u64, due: u64, action: Action) {
        self.seq += 1;
        self.queue.push(Reverse(Item {
            at,
            due,
            seq: self.seq,
            action,
        }));
    }

    fn schedule_events(&mut self) {
        let mut all: Vec<(u64, usize, usize)> = Vec::new();
        for (c, client) in self.s.clients.iter().enumerate() {
            for (i, e) in client.events.iter().enumerate() {
                all.push((e.at_ms(), c, i));
            }
        }
        all.sort();
        for (at, client, event) in all {
            self.push(at, at, Action::Event { client, event });
        }
        if let Some(r) = &self.s.lock.redlock {
            for (instance, i) in r.instances.iter().enumerate() {
                for (event, e) in i.events.iter().enumerate() {
                    self.push(e.at_ms(), 0, Action::InstanceEvent { instance, event });
                }
            }
        }
    }

    fn drain(&mut self) {
        let mut steps: u32 = 0;
        while let Some(Reverse(item)) = self.queue.pop() {
            if steps >= self.s.step_limit {
                self.trace.step_limit_hit = true;
                break;
            }
            steps += 1;
            self.trace.end_ms = self.trace.end_ms.max(item.at);
            self.act(item);
        }
    }

    /// The end of the pause covering `t`, if the client is paused at `t`.
    pub(super) fn paused_until(&self, client: usize, t: u64) -> Option<u64> {
        self.clients[client]
            .pauses
            .iter()
            .find(|(s, e)| *s <= t && t < *e)
            .map(|(_, e)| *e)
    }

    pub(super) fn step(
        &mut self,
        at_ms: u64,
        client: usize,
        event: Option<usize>,
        outcome: Outcome,
    ) {
        let text = words::describe(&outcome, &self.trace);
        self.trace.steps.push(Step {
            at_ms,
            client,
            event,
            outcome,
            text,
        });
    }

    fn act(&mut self, item: Item) {
        let t = item.at;
        match item.action {
            Action::Expire {
                instance,
                generation,
                expires_at,
            } => {
                let i = &mut self.inst[instance];
                let now = i.clock.local(t);
                if now >= expires_at {
                    i.table.purge_expired(&self.s.key, generation, now);
                }
            }
            Action::InstanceEvent { instance, event } => self.instance_event(t, instance, event),
            Action::Request { attempt, instance } => self.request(t, attempt, instance),
            Action::Reply { attempt, instance } => self.reply(t, attempt, instance),
            Action::Collect { attempt } => {
                let client = self.attempts[attempt].client;
                if !self.clients[client].crashed && self.ready_for(item, client) {
                    self.collect(t, attempt);
                }
            }
            Action::Retry {
                client,
                event,
                attempt,
            } => {
                if !self.clients[client].crashed && self.ready_for(item, client) {
                    self.start_attempt(t, client, Some(event), attempt);
                }
            }
            Action::Wake { client, event } => {
                if !self.clients[client].crashed && self.paused_until(client, t).is_none() {
                    self.step(t, client, Some(event), Outcome::Woke);
                }
            }
            Action::Event { client, event } => {
                let e = &self.s.clients[client].events[event];
                let immediate = matches!(
                    e,
                    Event::Pause { .. } | Event::ClockJump { .. } | Event::Crash { .. }
                );
                if !immediate && !self.ready(item) {
                    return;
                }
                self.event(t, item.due, client, event);
            }
            Action::CheckWrite { client, event } => {
                if self.ready(item) {
                    self.debit(t, item.due, client, event);
                }
            }
            Action::Tick { client, watchdog } => {
                if self.clients[client].watchdog == watchdog
                    && !self.clients[client].crashed
                    && self.ready(item)
                {
                    self.tick(t, client);
                }
            }
            Action::Arrive { write } => self.arrive(t, write),
        }
    }

    /// Whether a client step can run now; otherwise it is deferred to the end of the pause
    /// (keeping its due time, so deferred steps keep their order) or dropped after a crash.
    fn ready(&mut self, item: Item) -> bool {
        let client = match item.action {
            Action::Event { client, .. }
            | Action::CheckWrite { client, .. }
            | Action::Tick { client, .. } => client,
            _ => return true,
        };
        self.ready_for(item, client)
    }

    fn ready_for(&mut self, item: Item, client: usize) -> bool {
        if self.clients[client].crashed {
            if let Action::Event { event, .. } = item.action {
                let reason = format!("{} had crashed", self.s.clients[client].name);
                self.step(item.at, client, Some(event), Outcome::Skipped { reason });
            }
            return false;
        }
        if let Some(wake) = self.paused_until(client, item.at) {
            self.seq += 1;
            self.queue.push(Reverse(Item {
                at: wake,
                seq: self.seq,
                ..item
            }));
            return false;
        }
        true
    }

    fn event(&mut self, t: u64, due: u64, client: usize, event: usize) {
        let e = self.s.clients[client].events[event].clone();
        match e {
            Event::Acquire { .. } if self.s.lock.redlock.is_some() => {
                self.start_attempt(t, client, Some(event), 1)
            }
            Event::Acquire { .. } => self.acquire(t, client, event),
            Event::Debit { .. } => self.debit(t, due, client, event),
            Event::Pause {
                duration_ms, cause, ..
            } => {
                let until_ms = t.saturating_add(duration_ms);
                if self.clients[client].crashed {
                    return;
                }
                self.trace.pauses.push(PauseSpan {
                    client,
                    event,
                    cause,
                    start_ms: t,
                    end_ms: until_ms,
                });
                self.step(t, client, Some(event), Outcome::Paused { cause, until_ms });
                self.push(until_ms, 0, Action::Wake { client, event });
            }
            Event::CheckThenWrite { gap_ms, .. } => {
                let name = &self.s.clients[client].name;
                let holding = self
                    .inst
                    .iter()
                    .filter(|i| {
                        i.reachable(client, t)
                            && i.table.is_held(&self.s.key, name, i.clock.local(t))
                    })
                    .count();
                let held = holding >= self.trace.majority;
                self.message(client, Some(event), Target::Lock, "isHeld", t, t);
                if held {
                    self.step(t, client, Some(event), Outcome::CheckPassed);
                    let at = t.saturating_add(gap_ms);
                    self.push(at, at, Action::CheckWrite { client, event });
                } else {
                    self.step(t, client, Some(event), Outcome::CheckFailed);
                }
            }
            Event::Renew { .. } if self.s.lock.redlock.is_some() => {
                self.start_extend(t, client, Some(event));
            }
            Event::Renew { .. } => {
                self.renew(t, client, Some(event));
            }
            Event::Watchdog { .. } => {
                self.start_watchdog(t, client);
                self.step(t, client, Some(event), Outcome::WatchdogStarted);
            }
            Event::Release { mode, .. } if self.s.lock.redlock.is_some() => {
                self.release_all(t, client, event, mode)
            }
            Event::Release { mode, .. } => self.release(t, client, event, mode),
            Event::Crash { .. } => {
                if self.clients[client].crashed {
                    return;
                }
                self.clients[client].crashed = true;
                self.clients[client].watchdog = 0;
                self.drop_belief(t, client, SpanEnd::Crashed);
                self.step(t, client, Some(event), Outcome::Crashed);
            }
            Event::ClockJump { by_ms, .. } => {
                self.step(t, client, Some(event), Outcome::ClockJumped { by_ms });
            }
        }
    }

    pub(super) fn message(
        &mut self,
        client: usize,
        event: Option<usize>,
        target: Target,
        label: &str,
        sent_ms: u64,
        arrived_ms: u64,
    ) {
        let instance = (target == Target::Lock).then_some(0);
        self.trace.messages.push(MessageSpan {
            client,
            instance,
            lost: false,
            event,
            target,
            label: label.to_string(),
            sent_ms,
            arrived_ms,
        });
    }

    /// The true instant a lease expiring at `expires_at` (the instance's clock) ends.
    pub(super) fn lease_end(&self, instance: usize, t: u64, expires_at: i64) -> (u64, SpanEnd) {
        match self.inst[instance]
            .clock
            .first_reaching(expires_at, t, self.limit)
        {
            Some(end) => (end, SpanEnd::Expired),
            None => (self.limit, SpanEnd::Open),
        }
    }

    /// The true instant a client stops believing: its own clock reaches the deadline, or, if
    /// it is paused then, the moment it wakes (a stopped process cannot look at its clock).
    /// Returns the belief's end, why it ends, and the validity end without the pause extension.
    pub(super) fn belief_end(
        &self,
        client: usize,
        t: u64,
        deadline_local: i64,
    ) -> (u64, SpanEnd, u64) {
        match self.clocks[client].first_reaching(deadline_local, t, self.limit) {
            Some(end) => (
                self.paused_until(client, end).unwrap_or(end),
                SpanEnd::Expired,
                end,
            ),
            None => (self.limit, SpanEnd::Open, self.limit),
        }
    }

    /// Opens a belief span for a fresh grant and records it as the client's holding.
    pub(super) fn believe(
        &mut self,
        t: u64,
        client: usize,
        fence: Option<u64>,
        generation: u64,
        deadline_local: i64,
    ) {
        self.drop_belief(t, client, SpanEnd::Replaced);
        let (end_ms, end, valid_until_ms) = self.belief_end(client, t, deadline_local);
        self.trace.beliefs.push(BeliefSpan {
            client,
            fence,
            generation,
            start_ms: t,
            end_ms,
            end,
            valid_until_ms,
            stale_from_ms: None,
        });
        self.clients[client].held = Some(Held {
            fence,
            generation,
            deadline_local,
            belief: self.trace.beliefs.len() - 1,
        });
    }

    /// Moves the client's belief deadline after a successful renewal.
    pub(super) fn extend_belief(&mut self, t: u64, client: usize, deadline_local: i64) {
        let (end_ms, end, valid_until_ms) = self.belief_end(client, t, deadline_local);
        if let Some(held) = self.clients[client].held.as_mut() {
            held.deadline_local = deadline_local;
            let b = &mut self.trace.beliefs[held.belief];
            b.end_ms = end_ms;
            b.end = end;
            b.valid_until_ms = valid_until_ms;
        }
    }

    pub(super) fn drop_belief(&mut self, t: u64, client: usize, why: SpanEnd) {
        if let Some(held) = self.clients[client].held.take() {
            let b = &mut self.trace.beliefs[held.belief];
            if b.end_ms > t {
                b.end_ms = t;
                b.end = why;
            }
            b.valid_until_ms = b.valid_until_ms.min(t);
        }
    }

    fn acquire(&mut self, t: u64, client: usize, event: usize) {
        let now = self.inst[0].clock.local(t);
        let name = self.s.clients[client].name.clone();
        self.message(client, Some(event), Target::Lock, "acquire", t, t);
        match self.inst[0].table.acquire(&self.s.key, &name, now) {
            Ok(lease) => {
                let end_ms = self.record_grant(0, t, client, &lease, lease.generation);
                // The client measures validity from when it sent the request, by its own clock.
                let deadline_local = self.clocks[client]
                    .local(t)
                    .saturating_add(self.inst[0].table.ttl_ms());
                self.believe(t, client, lease.fence, lease.generation, deadline_local);
                self.step(
                    t,
                    client,
                    Some(event),
                    Outcome::Granted {
                        fence: lease.fence,
                        lease_until_ms: end_ms,
                    },
                );
                if self.s.lock.watchdog {
                    self.start_watchdog(t, client);
                }
            }
            Err(e) => {
                let holder = match e {
                    super::lease::LockError::Held { holder } => holder,
                    super::lease::LockError::NotOwner { holder } => holder.unwrap_or_default(),
                };
                self.step(t, client, Some(event), Outcome::Denied { holder });
            }
        }
    }

    fn renew(&mut self, t: u64, client: usize, event: Option<usize>) -> bool {
        let now = self.inst[0].clock.local(t);
        let name = self.s.clients[client].name.clone();
        let by_watchdog = event.is_none();
        if !by_watchdog {
            self.message(client, event, Target::Lock, "renew", t, t);
        }
        match self.inst[0].table.renew(&self.s.key, &name, now) {
            Ok(lease) => {
                let end_ms = self.record_renewal(0, t, client, &lease);
                let deadline_local = self.clocks[client]
                    .local(t)
                    .saturating_add(self.inst[0].table.ttl_ms());
                self.extend_belief(t, client, deadline_local);
                self.step(
                    t,
                    client,
                    event,
                    Outcome::Renewed {
                        lease_until_ms: end_ms,
                        by_watchdog,
                    },
                );
                true
            }
            Err(e) => {
                let holder = match e {
                    super::lease::LockError::NotOwner { holder } => holder,
                    super::lease::LockError::Held { holder } => Some(holder),
                };
                self.step(
                    t,
                    client,
                    event,
                    Outcome::RenewDenied {
                        holder,
                        by_watchdog,
                    },
                );
                false
            }
        }
    }

    /// Records a fresh grant on `instance` as a lease span, schedules its expiry, and returns
    /// the true instant it will end.
    pub(super) fn record_grant(
        &mut self,
        instance: usize,
        t: u64,
        client: usize,
        lease: &Lease,
        generation: u64,
    ) -> u64 {
        let (end_ms, end) = self.lease_end(instance, t, lease.expires_at);
        self.trace.leases.push(LeaseSpan {
            instance,
            holder: client,
            fence: lease.fence,
            generation,
            start_ms: t,
            end_ms,
            end,
            renewals_ms: Vec::new(),
        });
        self.schedule_expiry(instance, end_ms, lease);
        end_ms
    }

    /// Moves the end of `client`'s latest lease span on `instance` after a renewal and
    /// schedules the new expiry; returns the new true end.
    pub(super) fn record_renewal(
        &mut self,
        instance: usize,
        t: u64,
        client: usize,
        lease: &Lease,
    ) -> u64 {
        let (end_ms, end) = self.lease_end(instance, t, lease.expires_at);
        if let Some(span) = self
            .trace
            .leases
            .iter_mut()
            .rev()
            .find(|l| l.instance == instance && l.holder == client)
        {
            span.end_ms = end_ms;
            span.end = end;
            span.renewals_ms.push(t);
        }
        self.schedule_expiry(instance, end_ms, lease);
        end_ms
    }

    fn schedule_expiry(&mut self, instance: usize, end_ms: u64, lease: &Lease) {
        self.push(
            end_ms,
            0,
            Action::Expire {
                instance,
                generation: lease.generation,
                expires_at: lease.expires_at,
            },
        );
    }

    pub(super) fn start_watchdog(&mut self, t: u64, client: usize) {
        let id = self.next_watchdog;
        self.next_watchdog += 1;
        self.clients[client].watchdog = id;
        let at = t.saturating_add(self.watchdog_period());
        if at <= self.horizon {
            self.push(
                at,
                at,
                Action::Tick {
                    client,
                    watchdog: id,
                },
            );
        }
    }

    pub(super) fn watchdog_period(&self) -> u64 {
        (self.s.lock.ttl_ms / 2).max(1)
    }

    fn tick(&mut self, t: u64, client: usize) {
        if self.s.lock.redlock.is_some() {
            // A Redlock extension reports back through `collect`, which schedules the next tick.
            self.start_extend(t, client, None);
            return;
        }
        if self.renew(t, client, None) {
            let id = self.clients[client].watchdog;
            let at = t.saturating_add(self.watchdog_period());
            if at <= self.horizon {
                self.push(
                    at,
                    at,
                    Action::Tick {
                        client,
                        watchdog: id,
                    },
                );
            }
        } else {
            // A watchdog that lost the lease has nothing left to renew.
            self.clients[client].watchdog = 0;
        }
    }

    fn release(&mut self, t: u64, client: usize, event: usize, mode: ReleaseKind) {
        let now = self.inst[0].clock.local(t);
        let name = self.s.clients[client].name.clone();
        let how = match mode {
            ReleaseKind::TokenChecked => ReleaseMode::TokenChecked,
            ReleaseKind::BareDel => ReleaseMode::BareDel,
        };
        let generation = self.inst[0]
            .table
            .live(&self.s.key, now)
            .map(|l| l.generation);
        self.message(client, Some(event), Target::Lock, "release", t, t);
        let result = self.inst[0].table.release(&self.s.key, &name, how, now);
        let (own, deleted) = match &result {
            Released::Own => (true, Some(name.clone())),
            Released::Other { victim } => (false, Some(victim.clone())),
            Released::Nothing => (false, None),
        };
        if let (Some(g), Some(_)) = (generation, &deleted) {
            if let Some(span) = self
                .trace
                .leases
                .iter_mut()
                .rev()
                .find(|l| l.generation == g)
            {
                span.end_ms = t;
                span.end = if own {
                    SpanEnd::Released
                } else {
                    SpanEnd::Deleted
                };
            }
        }
        self.clients[client].watchdog = 0;
        self.drop_belief(t, client, SpanEnd::Released);
        self.step(
            t,
            client,
            Some(event),
            Outcome::Released { mode, deleted, own },
        );
    }

    fn debit(&mut self, t: u64, due: u64, client: usize, event: usize) {
        let (amount, key, delay) = match &self.s.clients[client].events[event] {
            Event::Debit {
                amount,
                idempotency_key,
                delay_ms,
                ..
            }
            | Event::CheckThenWrite {
                amount,
                idempotency_key,
                delay_ms,
                ..
            } => (*amount, idempotency_key.clone(), *delay_ms),
            _ => return,
        };
        let held = self.clients[client].held;
        if held.is_none() {
            // Client code enters its critical section only after it got the lock.
            let reason = format!(
                "{} does not hold the lock, so it does not write",
                self.s.clients[client].name
            );
            self.step(t, client, Some(event), Outcome::Skipped { reason });
            return;
        }
        let believed_held = held.is_some_and(|h| due < self.trace.beliefs[h.belief].end_ms);
        let arrived_ms = t.saturating_add(delay);
        let write = self.trace.writes.len();
        self.trace.writes.push(WriteRecord {
            client,
            event: Some(event),
            sent_ms: t,
            arrived_ms,
            amount,
            token: match self.s.storage.fence_rule {
                // Compare-and-set carries the lock's random value instead of a fence.
                FenceRule::CasValue => {
                    held.map(|h| Seeded::new(self.s.seed).lock_value(h.generation))
                }
                _ => held.and_then(|h| h.fence),
            },
            idempotency_key: key,
            generation: held.map(|h| h.generation),
            believed_held,
            verdict: None,
        });
        self.message(client, Some(event), Target::Storage, "debit", t, arrived_ms);
        self.step(t, client, Some(event), Outcome::DebitSent { write });
        self.push(arrived_ms, arrived_ms, Action::Arrive { write });
    }

    fn arrive(&mut self, t: u64, write: usize) {
        let w = &self.trace.writes[write];
        let (client, event, amount, token) = (w.client, w.event, w.amount, w.token);
        let key = w.idempotency_key.clone();
        let verdict = self.account.debit(amount, token, key.as_deref());
        if let DebitVerdict::Accepted { balance } = verdict {
            self.trace.balance.push(BalancePoint { at_ms: t, balance });
        }
        self.trace.writes[write].verdict = Some(verdict.clone());
        self.step(t, client, event, Outcome::Stored { write, verdict });
    }

    fn finish(mut self) -> Trace {
        let majority = self.trace.majority.max(1);
        let mut ends: std::collections::BTreeMap<(usize, u64), Vec<u64>> = Default::default();
        for l in &self.trace.leases {
            ends.entry((l.holder, l.generation))
                .or_default()
                .push(l.end_ms);
        }
        for b in &mut self.trace.beliefs {
            // The lock is lost when fewer than a majority of instances still hold this grant.
            let mut e = ends.remove(&(b.client, b.generation)).unwrap_or_default();
            e.sort_unstable_by(|x, y| y.cmp(x));
            let lost_at = e.get(majority - 1).copied().unwrap_or(b.start_ms);
            if b.end_ms > lost_at {
                b.stale_from_ms = Some(lost_at.max(b.start_ms));
            }
        }
        self.trace.final_balance = self.account.balance();
        self.trace.last_fence = self.account.last_fence();
        self.trace.verdict = checker::check(&self.trace);
        self.trace.narration = narrate::narrate(&self.trace);
        self.trace
    }
}

/// Pause intervals of one client, merged so that overlapping pauses defer as one.
fn merged_pauses(events: &[Event]) -> Vec<(u64, u64)> {
    let mut spans: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Pause {
                at_ms, duration_ms, ..
            } => Some((*at_ms, at_ms.saturating_add(*duration_ms))),
            _ => None,
        })
        .collect();
    spans.sort();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}
