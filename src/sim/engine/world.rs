//! What every part of a run shares: the scenario, each client's clock and state, the queue,
//! and the trace being written. The lock services and the storage act on it; it knows none
//! of them, so they can be read one at a time.

use super::instance::Inst;
use super::queue::{Action, Item, Pauses, Queue};
use crate::sim::clock::Clock;
use crate::sim::lease::Lease;
use crate::sim::scenario::{Scenario, MAX_TIME_MS};
use crate::sim::trace::*;
use crate::sim::words;
use std::rc::Rc;

/// A lock the client believes it holds.
#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub fence: Option<u64>,
    pub generation: u64,
    /// The client's own clock reading at which it stops believing it holds the lock.
    pub deadline_local: i64,
    /// Index of its belief span in the trace.
    pub belief: usize,
}

#[derive(Clone, Debug, Default)]
pub struct ClientState {
    pub crashed: bool,
    pub held: Option<Held>,
    /// Id of the running watchdog; 0 when none runs.
    pub watchdog: u64,
    pub pauses: Pauses,
}

pub struct World {
    /// The scenario, shared with the run that owns this world, so a run can be kept between
    /// slices of work without borrowing its caller's copy.
    pub s: Rc<Scenario>,
    /// The last instant a scenario event occupies; watchdogs stop ticking after it.
    pub horizon: u64,
    /// Where open-ended spans stop: far enough past the horizon to show every expiry.
    pub limit: u64,
    pub clocks: Vec<Clock>,
    pub clients: Vec<ClientState>,
    pub queue: Queue,
    next_watchdog: u64,
    pub trace: Trace,
    /// Lease spans by instance and holder, oldest first: the latest one always, and the older
    /// ones only while they may still end after now (a span that is not its holder's latest
    /// on an instance is never lengthened again). Renewals, releases and restarts find their
    /// spans here instead of searching the whole trace.
    /// Indexed by `instance × clients + holder`.
    leases_of: Vec<Vec<usize>>,
    /// The lease span of each grant of a single instance, indexed by generation (generations
    /// count the grants, so the list is as long as the run's grants).
    lease_by_generation: Vec<Option<usize>>,
    /// False in a lean run (the search's): steps get no text and messages no label. Nothing
    /// the verdict reads is skipped.
    pub texts: bool,
}

/// Where open-ended spans stop: ten TTLs past the horizon.
pub fn run_limit(s: &Scenario) -> u64 {
    s.horizon_ms()
        .saturating_add(s.lock.ttl_ms.saturating_mul(10))
        .min(MAX_TIME_MS.saturating_mul(4))
}

impl World {
    /// A fresh run of `s` against a service of this kind with these instance names and majority.
    pub fn new(
        s: Rc<Scenario>,
        service: ServiceKind,
        instances: Vec<String>,
        majority: usize,
    ) -> World {
        let horizon = s.horizon_ms();
        let limit = run_limit(&s);
        World {
            horizon,
            limit,
            clocks: s
                .clients
                .iter()
                .map(|c| Clock::new(&c.clock, Scenario::client_jumps(c)))
                .collect(),
            clients: s
                .clients
                .iter()
                .map(|c| ClientState {
                    pauses: Pauses::of(&c.events),
                    ..ClientState::default()
                })
                .collect(),
            queue: Queue::default(),
            next_watchdog: 1,
            leases_of: Vec::new(),
            lease_by_generation: Vec::new(),
            trace: Trace {
                clients: s.clients.iter().map(|c| c.name.clone()).collect(),
                tier: s.tier,
                fence_rule: s.storage.fence_rule,
                service,
                instances,
                majority,
                majorities: Vec::new(),
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
                etcd: None,
                advisory: None,
                zookeeper: None,
                lease: None,
            },
            s,
            texts: true,
        }
    }

    pub fn name(&self, client: usize) -> String {
        self.s.clients[client].name.clone()
    }

    /// The end of the pause covering `t`, if the client is paused at `t`.
    pub fn paused_until(&self, client: usize, t: u64) -> Option<u64> {
        self.clients[client].pauses.until(t)
    }

    pub fn step(&mut self, at_ms: u64, client: usize, event: Option<usize>, outcome: Outcome) {
        let text = if self.texts {
            words::describe(&outcome, &self.trace)
        } else {
            String::new()
        };
        self.trace.steps.push(Step {
            at_ms,
            client,
            event,
            outcome,
            text,
        });
    }

    /// Whether a client step can run now; otherwise it is deferred to the end of the pause
    /// (keeping its due time, so deferred steps keep their order) or dropped after a crash.
    pub fn ready(&mut self, item: Item) -> bool {
        match item.action.client_step() {
            Some(client) => self.ready_for(item, client),
            None => true,
        }
    }

    pub fn ready_for(&mut self, item: Item, client: usize) -> bool {
        if self.clients[client].crashed {
            if let Action::Event { event, .. } = item.action {
                let reason = words::crashed_reason(&self.s.clients[client].name);
                self.step(item.at, client, Some(event), Outcome::Skipped { reason });
            }
            return false;
        }
        if let Some(wake) = self.paused_until(client, item.at) {
            self.queue.defer(item, wake);
            return false;
        }
        true
    }

    /// A message from a client to the single lock (instance 0) or to the storage.
    pub fn message(
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
            label: if self.texts {
                label.to_string()
            } else {
                String::new()
            },
            sent_ms,
            arrived_ms,
            generation: 0,
        });
    }

    /// Where a span that opens at `t` is looked at up to: the run's limit, or as far past `t`
    /// when the span opens later than that (a Redlock reply can arrive long after the last
    /// event), so that no span ends before it starts.
    fn limit_after(&self, t: u64) -> u64 {
        self.limit
            .max(t.saturating_add(self.s.lock.ttl_ms.saturating_mul(10)))
    }

    /// The true instant a lease expiring at `expires_at` (the instance's clock) ends.
    fn lease_end(&self, inst: &Inst, t: u64, expires_at: i64) -> (u64, SpanEnd) {
        let limit = self.limit_after(t);
        match inst.clock.first_reaching(expires_at, t, limit) {
            Some(end) => (end, SpanEnd::Expired),
            None => (limit, SpanEnd::Open),
        }
    }

    /// Records a fresh grant on `instance` as a lease span, schedules its expiry, and returns
    /// the true instant it will end.
    pub fn record_grant(
        &mut self,
        (instance, inst): (usize, &Inst),
        t: u64,
        client: usize,
        lease: &Lease,
        generation: u64,
    ) -> u64 {
        let (end_ms, end) = self.lease_end(inst, t, lease.expires_at);
        let span = self.trace.leases.len();
        let slot = self.lease_slot(instance, client);
        if self.leases_of.len() <= slot {
            self.leases_of.resize_with(slot + 1, Vec::new);
        }
        self.leases_of[slot].push(span);
        let g = usize::try_from(generation).unwrap_or(usize::MAX);
        if g < usize::MAX {
            if self.lease_by_generation.len() <= g {
                self.lease_by_generation.resize(g + 1, None);
            }
            self.lease_by_generation[g] = Some(span);
        }
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
    pub fn record_renewal(
        &mut self,
        (instance, inst): (usize, &Inst),
        t: u64,
        client: usize,
        lease: &Lease,
    ) -> u64 {
        let (end_ms, end) = self.lease_end(inst, t, lease.expires_at);
        let latest = self
            .leases_of
            .get(self.lease_slot(instance, client))
            .and_then(|l| l.last().copied());
        if let Some(span) = latest.and_then(|k| self.trace.leases.get_mut(k)) {
            span.end_ms = end_ms;
            span.end = end;
            span.renewals_ms.push(t);
        }
        self.schedule_expiry(instance, end_ms, lease);
        end_ms
    }

    fn lease_slot(&self, instance: usize, holder: usize) -> usize {
        instance
            .saturating_mul(self.clients.len())
            .saturating_add(holder)
    }

    /// Ends, at `t` and for `why`, the span of the single instance's grant `generation`.
    pub fn end_grant(&mut self, generation: u64, t: u64, why: SpanEnd) {
        let k = usize::try_from(generation)
            .ok()
            .and_then(|g| self.lease_by_generation.get(g).copied().flatten());
        if let Some(span) = k.and_then(|k| self.trace.leases.get_mut(k)) {
            span.end_ms = t;
            span.end = why;
        }
    }

    /// Forgets the spans of `instance` and `holder` that can no longer end after `t`, keeping
    /// the latest; returns the ones left, oldest first.
    fn live_leases(&mut self, instance: usize, holder: usize, t: u64) -> Vec<usize> {
        let leases = &self.trace.leases;
        let slot = self.lease_slot(instance, holder);
        match self.leases_of.get_mut(slot) {
            Some(list) => {
                let last = list.last().copied();
                list.retain(|&k| Some(k) == last || leases[k].end_ms > t);
                list.clone()
            }
            None => Vec::new(),
        }
    }

    /// Ends, at `t` and for `why`, `holder`'s latest lease span on `instance` that was still
    /// running at `t` (a release deleted its key).
    pub fn end_live_lease(&mut self, instance: usize, holder: usize, t: u64, why: SpanEnd) {
        let live = self.live_leases(instance, holder, t);
        let found = live
            .into_iter()
            .rev()
            .find(|&k| self.trace.leases[k].end_ms > t);
        if let Some(k) = found {
            let span = &mut self.trace.leases[k];
            span.end_ms = t;
            span.end = why;
        }
    }

    /// Ends at `t` every lease span on `instance` running at `t`: the instance restarted
    /// without persistence and forgot its keys.
    pub fn forget_leases(&mut self, instance: usize, t: u64) {
        for holder in 0..self.clients.len() {
            for k in self.live_leases(instance, holder, t) {
                let span = &mut self.trace.leases[k];
                if span.end_ms > t && span.start_ms <= t {
                    span.end_ms = t;
                    span.end = SpanEnd::Forgotten;
                }
            }
        }
    }

    fn schedule_expiry(&mut self, instance: usize, end_ms: u64, lease: &Lease) {
        self.queue.push(
            end_ms,
            0,
            Action::Expire {
                instance,
                generation: lease.generation,
                expires_at: lease.expires_at,
            },
        );
    }

    /// The true instant a client stops believing: its own clock reaches the deadline, or, if
    /// it is paused then, the moment it wakes (a stopped process cannot look at its clock).
    /// Returns the belief's end, why it ends, and the validity end without the pause extension.
    fn belief_end(&self, client: usize, t: u64, deadline_local: i64) -> (u64, SpanEnd, u64) {
        let limit = self.limit_after(t);
        match self.clocks[client].first_reaching(deadline_local, t, limit) {
            Some(end) => (
                self.paused_until(client, end).unwrap_or(end),
                SpanEnd::Expired,
                end,
            ),
            None => (limit, SpanEnd::Open, limit),
        }
    }

    /// Opens a belief span for a fresh grant and records it as the client's holding.
    pub fn believe(
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
    pub fn extend_belief(&mut self, t: u64, client: usize, deadline_local: i64) {
        let (end_ms, end, valid_until_ms) = self.belief_end(client, t, deadline_local);
        if let Some(held) = self.clients[client].held.as_mut() {
            held.deadline_local = deadline_local;
            let b = &mut self.trace.beliefs[held.belief];
            b.end_ms = end_ms;
            b.end = end;
            b.valid_until_ms = valid_until_ms;
        }
    }

    /// The service let the client's lock go at `t` without telling it: the client still
    /// believes, but its lock is valid no longer (an advisory lock's session ended).
    #[cfg_attr(feature = "first-stage", allow(dead_code))]
    pub fn end_validity(&mut self, t: u64, client: usize) {
        if let Some(held) = self.clients[client].held {
            let b = &mut self.trace.beliefs[held.belief];
            b.valid_until_ms = b.valid_until_ms.min(t).max(b.start_ms);
        }
    }

    pub fn drop_belief(&mut self, t: u64, client: usize, why: SpanEnd) {
        if let Some(held) = self.clients[client].held.take() {
            let b = &mut self.trace.beliefs[held.belief];
            if b.end_ms > t {
                b.end_ms = t;
                b.end = why;
            }
            b.valid_until_ms = b.valid_until_ms.min(t);
        }
    }

    /// Starts a watchdog that renews every TTL/2 while the horizon lasts.
    pub fn start_watchdog(&mut self, t: u64, client: usize) {
        let id = self.next_watchdog;
        self.next_watchdog += 1;
        self.clients[client].watchdog = id;
        self.next_tick(t, client);
    }

    /// Schedules the client's running watchdog's next renewal, if it falls in the horizon.
    pub fn next_tick(&mut self, t: u64, client: usize) {
        let watchdog = self.clients[client].watchdog;
        let at = t.saturating_add((self.s.lock.ttl_ms / 2).max(1));
        if at <= self.horizon {
            self.queue.push(at, at, Action::Tick { client, watchdog });
        }
    }
}
