//! A database lease row as the lock service: `leases(name, holder, generation, expires_at)`.
//! Acquire is one statement that inserts the row or takes it over when it has expired,
//! raising the generation; nothing returned means held. Renew and release are `UPDATE`s
//! guarded by holder and generation (a release keeps the row, so the generation is never
//! lost). The generation is the fence.
//!
//! Who judges expiry is a setting. With `database`, the acquire compares `expires_at` with
//! the database's `now()` (`lock.clock`), and a renewal must find the lease still live. With
//! `waiter`, a client that finds the row held reads it and waits a TTL by its own clock; if
//! the row has not changed by then it takes it over with a compare-and-set on the generation,
//! whatever the database's clock says, and otherwise looks again. The database then judges
//! nothing, so a renewal needs only holder and generation.
//!
//! The write's own checks are the account's and the guard's (`lease_write.rs`). A failover
//! promotes a standby without the row's last takeover: the next one repeats its generation.

#[path = "lease_write.rs"]
mod write;

use super::queue::{Action, Item, Queue};
use super::world::World;
use crate::sim::clock::Clock;
use crate::sim::scenario::{Lease, LeaseExpiry, ReleaseKind, Scenario};
use crate::sim::trace::*;

/// The row as the primary holds it.
#[derive(Clone, Copy, Debug)]
struct Row {
    holder: Option<usize>,
    generation: u64,
    /// By the database's clock.
    expires_at: i64,
    /// The grant (counted from 1) that wrote the holder, for the spans and the beliefs.
    grant: u64,
    /// The holder's lease span.
    span: Option<usize>,
}

impl Row {
    /// Whether a waiter that read `seen` finds the same row now.
    fn same(&self, seen: &Row) -> bool {
        (self.holder, self.generation, self.expires_at)
            == (seen.holder, seen.generation, seen.expires_at)
    }
}

struct Waiter {
    event: usize,
    seen: Row,
    /// Its watch in the trace; also the id its deadline carries.
    watch: usize,
}

pub struct LeaseService {
    expiry: LeaseExpiry,
    guard: write::Guard,
    ttl_ms: u64,
    first_generation: u64,
    clock: Clock,
    row: Option<Row>,
    /// The row as it was before its last takeover: what an asynchronous standby still has.
    before_takeover: Option<Option<Row>>,
    grants: u64,
    waiting: Vec<Option<Waiter>>,
    /// Per client, the steps that fell due while it waited to take the row over.
    blocked: Vec<Vec<Item>>,
    out: LeaseTrace,
}

impl LeaseService {
    /// The service for `l` (always: `None` is the first stage's build, `lease_off.rs`).
    pub fn new(s: &Scenario, l: &Lease) -> Option<LeaseService> {
        let n = s.clients.len();
        let guard = write::Guard::new(s);
        Some(LeaseService {
            expiry: l.expiry,
            ttl_ms: s.lock.ttl_ms,
            first_generation: s.lock.first_fence,
            clock: Clock::new(&s.lock.clock, []),
            row: None,
            before_takeover: None,
            grants: 0,
            waiting: (0..n).map(|_| None).collect(),
            blocked: vec![Vec::new(); n],
            out: LeaseTrace {
                expiry: l.expiry.label().to_string(),
                guard: guard.label().to_string(),
                rows: Vec::new(),
                watches: Vec::new(),
                failovers_ms: Vec::new(),
            },
            guard,
        })
    }

    /// Every failover, as an instance event of the one database.
    pub fn schedule(&self, queue: &mut Queue, s: &Scenario) {
        let events = s.lock.lease().into_iter().flat_map(|l| l.events.iter());
        for (event, e) in events.enumerate() {
            queue.push(
                e.at_ms(),
                e.at_ms(),
                Action::InstanceEvent { instance: 0, event },
            );
        }
    }

    pub fn is_waiting(&self, client: usize) -> bool {
        self.waiting.get(client).is_some_and(Option::is_some)
    }

    pub fn block(&mut self, client: usize, item: Item) {
        if let Some(b) = self.blocked.get_mut(client) {
            b.push(item);
        }
    }

    fn db_now(&self, t: u64) -> i64 {
        self.clock.local(t)
    }

    fn ttl(&self) -> i64 {
        i64::try_from(self.ttl_ms).unwrap_or(i64::MAX)
    }

    /// Whether the row is live for its holder at `t` (by the database's clock, if it judges).
    fn live(&self, row: &Row, t: u64) -> bool {
        row.holder.is_some()
            && match self.expiry {
                LeaseExpiry::Database => row.expires_at > self.db_now(t),
                LeaseExpiry::Waiter => true,
            }
    }

    /// `isHeld()`: the row names the client, at the grant it believes, and is live.
    pub fn holds(&self, w: &World, t: u64, client: usize) -> bool {
        let grant = w.clients[client].held.map(|h| h.generation);
        self.row
            .is_some_and(|r| r.holder == Some(client) && Some(r.grant) == grant && self.live(&r, t))
    }

    /// The true instant the row's lease ends by the database's clock (or the run's limit when
    /// the waiter's clock judges: nothing on the server ends it).
    fn span_end(&self, w: &World, t: u64, expires_at: i64) -> (u64, SpanEnd) {
        let limit = w.limit.max(t);
        match self.expiry {
            LeaseExpiry::Database => match self.clock.first_reaching(expires_at, t, limit) {
                Some(end) => (end, SpanEnd::Expired),
                None => (limit, SpanEnd::Open),
            },
            LeaseExpiry::Waiter => (limit, SpanEnd::Open),
        }
    }

    /// The row changes at `t`: the version before ends, this one begins.
    fn write_row(&mut self, w: &World, t: u64, row: Option<Row>, why: RowChange) {
        if let Some(last) = self.out.rows.last_mut() {
            last.end_ms = t;
        }
        self.row = row;
        if let Some(r) = row {
            self.out.rows.push(LeaseRow {
                holder: r.holder,
                generation: r.generation,
                expires_at: r.expires_at,
                start_ms: t,
                end_ms: w.limit.max(t),
                why,
            });
        }
    }

    /// Ends the current holder's span at `t` (if it is still running).
    fn end_span(&mut self, w: &mut World, t: u64, why: SpanEnd) {
        let Some(k) = self.row.and_then(|r| r.span) else {
            return;
        };
        if let Some(span) = w.trace.leases.get_mut(k) {
            if span.end_ms > t {
                span.end_ms = t;
                span.end = why;
            }
        }
    }

    /// The holder of `row` (at its grant) is no longer the row's holder from `t`.
    fn end_validity(&self, w: &mut World, t: u64, row: &Row) {
        let Some(h) = row.holder else {
            return;
        };
        if w.clients[h].held.is_some_and(|x| x.generation == row.grant) {
            w.end_validity(t, h);
        }
    }

    /// A new holder span for `row` from `t`.
    fn open_span(&mut self, w: &mut World, t: u64, client: usize, row: &mut Row) -> u64 {
        let (end_ms, end) = self.span_end(w, t, row.expires_at);
        row.span = Some(w.trace.leases.len());
        w.trace.leases.push(LeaseSpan {
            instance: 0,
            holder: client,
            fence: Some(row.generation),
            generation: row.grant,
            start_ms: t,
            end_ms,
            end,
            renewals_ms: Vec::new(),
        });
        end_ms
    }

    pub fn acquire(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        w.message(client, Some(event), Target::Lock, "acquire", t, t);
        let row = self.row;
        match row {
            Some(r) if r.holder.is_some() && !self.takeable(&r, t) => match self.expiry {
                LeaseExpiry::Waiter if r.holder != Some(client) => {
                    self.watch(w, t, client, event, r)
                }
                _ => {
                    let holder = r.holder.map(|h| w.name(h)).unwrap_or_default();
                    w.step(t, client, Some(event), Outcome::Denied { holder });
                }
            },
            _ => self.grant(w, t, client, event),
        }
    }

    /// Whether the acquire statement's `WHERE` takes the row over at `t` without a wait.
    fn takeable(&self, r: &Row, t: u64) -> bool {
        r.holder.is_none() || self.expiry == LeaseExpiry::Database && r.expires_at <= self.db_now(t)
    }

    /// The waiter reads the held row and counts a TTL on its own clock.
    fn watch(&mut self, w: &mut World, t: u64, client: usize, event: usize, seen: Row) {
        let watch = self.out.watches.len();
        self.out.watches.push(LeaseWatch {
            client,
            generation: seen.generation,
            start_ms: t,
            end_ms: w.limit.max(t),
            end: WatchEnd::Open,
        });
        self.waiting[client] = Some(Waiter { event, seen, watch });
        let deadline = w.clocks[client].local(t).saturating_add(self.ttl());
        let limit = w.limit.max(t);
        if let Some(at) = w.clocks[client].first_reaching(deadline, t, limit) {
            w.queue.push(
                at,
                0,
                Action::Expire {
                    instance: client,
                    generation: watch as u64,
                    expires_at: 0,
                },
            );
        }
        let behind = seen.holder.map(|h| w.name(h)).unwrap_or_default();
        w.step(t, client, Some(event), Outcome::LockWaits { behind });
    }

    /// A waiter's own clock says a TTL has passed since it read the row (`watch`).
    pub fn deadline(&mut self, w: &mut World, t: u64, client: usize, watch: u64) {
        let ours = self
            .waiting
            .get(client)
            .and_then(Option::as_ref)
            .is_some_and(|x| x.watch as u64 == watch);
        if !ours || w.clients[client].crashed {
            return;
        }
        // A stopped process looks at nothing: it goes on when it wakes.
        if let Some(wake) = w.paused_until(client, t) {
            let action = Action::Expire {
                instance: client,
                generation: watch,
                expires_at: 0,
            };
            return w.queue.push(wake, 0, action);
        }
        let Some(waiter) = self.waiting[client].take() else {
            return;
        };
        let unchanged = self.row.is_some_and(|r| r.same(&waiter.seen));
        let end = if unchanged || self.row.is_none_or(|r| r.holder.is_none()) {
            WatchEnd::TookOver
        } else {
            WatchEnd::Changed
        };
        if let Some(x) = self.out.watches.get_mut(waiter.watch) {
            x.end_ms = t;
            x.end = end;
        }
        match self.row {
            Some(r) if end == WatchEnd::Changed && r.holder != Some(client) => {
                self.watch(w, t, client, waiter.event, r)
            }
            _ => {
                self.grant(w, t, client, waiter.event);
                for item in std::mem::take(&mut self.blocked[client]) {
                    w.queue.defer(item, t);
                }
            }
        }
    }

    /// The client gets the row: inserted at the first generation, or taken over at the next.
    fn grant(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        let before = self.row;
        let (generation, why) = match before {
            None => (self.first_generation, RowChange::Inserted),
            Some(r) => (write::next(r.generation), RowChange::TakenOver),
        };
        if let Some(r) = before {
            self.end_span(w, t, SpanEnd::Expired);
            self.before_takeover = Some(before);
            // The row names someone else now: whatever the old holder's clock says, its lock
            // is valid no longer (it is not told).
            self.end_validity(w, t, &r);
        }
        self.grants = self.grants.saturating_add(1);
        let mut row = Row {
            holder: Some(client),
            generation,
            expires_at: self.db_now(t).saturating_add(self.ttl()),
            grant: self.grants,
            span: None,
        };
        let end_ms = self.open_span(w, t, client, &mut row);
        self.write_row(w, t, Some(row), why);
        // Measured from the statement by the client's own clock; the generation returned is its
        // fence unless it ignores it (`lock.fencing` false).
        let deadline = w.clocks[client].local(t).saturating_add(self.ttl());
        let fence = w.s.lock.fencing.then_some(generation);
        w.believe(t, client, fence, row.grant, deadline);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Granted {
                fence: Some(generation),
                lease_until_ms: end_ms,
            },
        );
        if w.s.lock.watchdog {
            w.start_watchdog(t, client);
        }
    }

    /// The renewal's `UPDATE`, guarded by holder and generation (and, when the database
    /// judges expiry, by the lease still being live). `event` is `None` for a watchdog's.
    pub fn renew(&mut self, w: &mut World, t: u64, client: usize, event: Option<usize>) -> bool {
        let by_watchdog = event.is_none();
        if !by_watchdog {
            w.message(client, event, Target::Lock, "renew", t, t);
        }
        let grant = w.clients[client].held.map(|h| h.generation);
        let ok = self
            .row
            .filter(|r| r.holder == Some(client) && Some(r.grant) == grant && self.live(r, t));
        let Some(mut row) = ok else {
            let holder = self.row.and_then(|r| r.holder).map(|h| w.name(h));
            w.step(
                t,
                client,
                event,
                Outcome::RenewDenied {
                    holder,
                    by_watchdog,
                },
            );
            return false;
        };
        row.expires_at = self.db_now(t).saturating_add(self.ttl());
        let (end_ms, end) = self.span_end(w, t, row.expires_at);
        if let Some(span) = row.span.and_then(|k| w.trace.leases.get_mut(k)) {
            span.end_ms = end_ms;
            span.end = end;
            span.renewals_ms.push(t);
        }
        self.write_row(w, t, Some(row), RowChange::Renewed);
        let deadline = w.clocks[client].local(t).saturating_add(self.ttl());
        w.extend_belief(t, client, deadline);
        w.step(
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

    /// A watchdog's turn: renew, and schedule the next turn only while renewals succeed.
    pub fn tick(&mut self, w: &mut World, t: u64, client: usize) {
        match self.renew(w, t, client, None) {
            true => w.next_tick(t, client),
            false => w.clients[client].watchdog = 0,
        }
    }

    /// The release's `UPDATE ... SET holder = NULL, expires_at = now()`, guarded by holder and
    /// generation: the row stays, with its generation.
    pub fn release(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        w.message(client, Some(event), Target::Lock, "release", t, t);
        let grant = w.clients[client].held.map(|h| h.generation);
        let own = self
            .row
            .is_some_and(|r| r.holder == Some(client) && Some(r.grant) == grant);
        w.clients[client].watchdog = 0;
        w.drop_belief(t, client, SpanEnd::Released);
        if let Some(r) = self.row.filter(|_| own) {
            self.end_span(w, t, SpanEnd::Released);
            let freed = Row {
                holder: None,
                expires_at: self.db_now(t),
                span: None,
                ..r
            };
            self.write_row(w, t, Some(freed), RowChange::Released);
        }
        w.step(
            t,
            client,
            Some(event),
            Outcome::Released {
                mode: ReleaseKind::TokenChecked,
                deleted: own.then(|| w.name(client)),
                own,
            },
        );
    }

    /// The client died: its row stays until it expires or is taken; its watch ends.
    pub fn crashed(&mut self, t: u64, client: usize) {
        if let Some(waiter) = self.waiting[client].take() {
            if let Some(x) = self.out.watches.get_mut(waiter.watch) {
                x.end_ms = t;
                x.end = WatchEnd::Abandoned;
            }
            self.blocked[client].clear();
        }
    }

    /// The primary is lost and an asynchronous standby promoted, without the row's last
    /// takeover: the row is back as it was before it, and its holder's span with it.
    pub fn failover(&mut self, w: &mut World, t: u64) {
        self.out.failovers_ms.push(t);
        let Some(before) = self.before_takeover.take() else {
            return;
        };
        self.end_span(w, t, SpanEnd::Forgotten);
        if let Some(lost) = self.row {
            self.end_validity(w, t, &lost);
        }
        let Some(mut row) = before else {
            self.write_row(w, t, None, RowChange::FailedOver);
            return;
        };
        row.span = None;
        if let Some(holder) = row.holder.filter(|_| self.live(&row, t)) {
            self.open_span(w, t, holder, &mut row);
        }
        self.write_row(w, t, Some(row), RowChange::FailedOver);
    }

    /// A debit reached the database: the guard's refusal, if any (before the account's).
    pub fn write_arrives(&self, w: &World, t: u64, write: usize) -> Option<Rejection> {
        let wr = &w.trace.writes[write];
        let live = self.row.is_some_and(|r| {
            r.holder == Some(wr.client)
                && wr.token.is_none_or(|g| r.generation == g)
                && r.expires_at > self.db_now(t)
        });
        self.guard.refuses(wr, live)
    }

    /// The debit's statement ran (`failed`: in an error): the ledger keeps its line, if any.
    pub fn ran(&mut self, w: &World, write: usize, failed: bool) {
        self.guard.ran(&w.trace.writes[write], failed);
    }

    /// The table's settings, with nothing done yet.
    pub fn settings(&self) -> LeaseTrace {
        self.out.clone()
    }

    /// The table's record, the watches still open closed at the run's end.
    pub fn finish(mut self, end_ms: u64) -> LeaseTrace {
        for x in &mut self.out.watches {
            if x.end == WatchEnd::Open {
                x.end_ms = end_ms.max(x.start_ms);
            }
        }
        self.out
    }
}
