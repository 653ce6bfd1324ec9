//! A PostgreSQL advisory lock as the lock service. A lock is held by a session (a backend)
//! until `pg_advisory_unlock` (or `COMMIT` at transaction level) or until the session ends; it
//! has no expiry and mints no fence. A waiter blocks in `pg_advisory_lock`, in arrival order.
//! The server ends a session only when it has a reason: the client's process died (its kernel
//! closes the socket: at once), the client stopped answering (a partition: after the TCP
//! keepalive gives up), an idle timeout (`idle_session_timeout`, or
//! `idle_in_transaction_session_timeout` inside an open transaction), or a failover (the
//! standby has no sessions and no advisory locks). A paused process's kernel still answers,
//! so a paused holder keeps the lock for as long as it sleeps.

use super::queue::{Action, Item, Queue};
use super::world::World;
use crate::sim::planted::{self, Bug};
use crate::sim::scenario::{Advisory, AdvisoryLevel, PauseCause, ReleaseKind, Scenario};
use crate::sim::trace::*;

/// The first backend pid the server hands out.
const FIRST_PID: u64 = 4_242;
/// `Action::Expire`'s instance for an idle-timeout check, and for a keepalive's.
const IDLE: usize = 0;
const KEEPALIVE: usize = 1;

struct Session {
    client: usize,
    alive: bool,
    /// Bumped by every statement the server finishes; an idle check that finds another number
    /// was overtaken by later work.
    activity: u64,
    /// Whether a lock call is running on it (a running statement is not idle).
    busy: bool,
}

/// The lock as the server holds it.
#[derive(Clone, Copy)]
struct Holding {
    client: usize,
    session: usize,
    generation: u64,
    span: usize,
}

struct Waiter {
    event: usize,
    wait: usize,
    session: usize,
}

pub struct AdvisoryService {
    level: AdvisoryLevel,
    idle_ms: Option<u64>,
    idle_in_tx_ms: Option<u64>,
    keepalive_ms: u64,
    in_transaction: bool,
    sessions: Vec<Session>,
    session_of: Vec<Option<usize>>,
    holder: Option<Holding>,
    /// Grants so far: each grant's generation (no fence: nothing leaves the server with it).
    grants: u64,
    /// Clients waiting in a lock call, first come first.
    queue: Vec<usize>,
    waiting: Vec<Option<Waiter>>,
    /// Per client, the steps that fell due while it waited in a lock call.
    blocked: Vec<Vec<Item>>,
    /// Per grant (generation − 1), the session that holds or held it.
    session_of_grant: Vec<usize>,
    out: AdvisoryTrace,
}

impl AdvisoryService {
    /// The service for `a` (always: `None` is the first stage's build, `advisory_off.rs`).
    pub fn new(s: &Scenario, a: &Advisory) -> Option<AdvisoryService> {
        let n = s.clients.len();
        Some(AdvisoryService {
            level: a.level,
            idle_ms: a.idle_session_timeout_ms,
            idle_in_tx_ms: a.idle_in_transaction_timeout_ms,
            keepalive_ms: a.keepalive_ms,
            in_transaction: s.storage.in_transaction,
            sessions: Vec::new(),
            session_of: vec![None; n],
            holder: None,
            grants: 0,
            queue: Vec::new(),
            waiting: (0..n).map(|_| None).collect(),
            blocked: vec![Vec::new(); n],
            session_of_grant: Vec::new(),
            out: AdvisoryTrace {
                lock_id: a.lock_id,
                level: a.level.label().to_string(),
                idle_session_timeout_ms: a.idle_session_timeout_ms,
                idle_in_transaction_timeout_ms: a.idle_in_transaction_timeout_ms,
                keepalive_ms: a.keepalive_ms,
                in_transaction: s.storage.in_transaction,
                sessions: Vec::new(),
                waits: Vec::new(),
                failovers_ms: Vec::new(),
            },
        })
    }

    /// Every failover, as an instance event of the one server.
    pub fn schedule(&self, queue: &mut Queue, s: &Scenario) {
        let events = s.lock.advisory().into_iter().flat_map(|a| a.events.iter());
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

    /// Whether the client's session holds the lock now (`isHeld()` as `pg_locks` answers).
    pub fn holds(&self, client: usize) -> bool {
        self.holder.is_some_and(|h| h.client == client)
    }

    /// Whether the session that was granted `generation` still lives: a write on it commits.
    pub fn grant_live(&self, generation: u64) -> bool {
        let k = usize::try_from(generation.saturating_sub(1)).unwrap_or(usize::MAX);
        self.session_of_grant
            .get(k)
            .and_then(|&s| self.sessions.get(s))
            .is_some_and(|s| s.alive)
    }

    /// The lock's transaction is open on this client's session (transaction level, held).
    fn in_open_transaction(&self, session: usize) -> bool {
        self.level == AdvisoryLevel::Transaction
            && self.holder.is_some_and(|h| h.session == session)
    }

    /// The client's live session, or a new connection's.
    fn session(&mut self, w: &mut World, t: u64, client: usize) -> usize {
        if let Some(i) = self.session_of[client].filter(|&i| self.sessions[i].alive) {
            return i;
        }
        let i = self.sessions.len();
        self.sessions.push(Session {
            client,
            alive: true,
            activity: 0,
            busy: false,
        });
        self.out.sessions.push(PgSession {
            client,
            pid: FIRST_PID + i as u64,
            start_ms: t,
            end_ms: w.limit.max(t),
            end: SessionEnd::Open,
        });
        self.session_of[client] = Some(i);
        i
    }

    /// The server finished a statement on `session` at `t`: its idle clock starts again.
    fn statement_done(&mut self, w: &mut World, t: u64, session: usize) {
        let timeout = if self.in_open_transaction(session) {
            self.idle_in_tx_ms
        } else {
            self.idle_ms
        };
        let s = &mut self.sessions[session];
        s.activity = s.activity.saturating_add(1);
        if let Some(ms) = timeout {
            let at = t.saturating_add(ms);
            let stamp = i64::try_from(s.activity).unwrap_or(i64::MAX);
            w.queue.push(
                at,
                0,
                Action::Expire {
                    instance: IDLE,
                    generation: session as u64,
                    expires_at: stamp,
                },
            );
        }
    }

    pub fn acquire(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        let sql = match self.level {
            AdvisoryLevel::Session => "pg_advisory_lock",
            AdvisoryLevel::Transaction => "pg_advisory_xact_lock",
        };
        // The client decides from what it believes: a session the server ended (an idle
        // timeout) leaves it believing it holds the lock until a statement fails, so it does
        // not ask again, as a real client with a `held` flag does not.
        if self.holds(client) || w.clients[client].held.is_some() {
            let name = &w.s.clients[client].name;
            let reason = if self.holds(client) {
                format!(
                    "{name}'s session already holds advisory lock {}",
                    self.out.lock_id
                )
            } else {
                format!(
                    "{name} still believes it holds advisory lock {}: the server ended its \
                     session and nothing has told {name} yet, so it does not ask again",
                    self.out.lock_id
                )
            };
            w.step(t, client, Some(event), Outcome::Skipped { reason });
            return;
        }
        let session = self.session(w, t, client);
        w.message(client, Some(event), Target::Lock, sql, t, t);
        match self.holder {
            Some(h) => {
                self.sessions[session].busy = true;
                self.waiting[client] = Some(Waiter {
                    event,
                    wait: self.out.waits.len(),
                    session,
                });
                self.queue.push(client);
                self.out.waits.push(PgWait {
                    client,
                    start_ms: t,
                    end_ms: t,
                    end: PgWaitEnd::Open,
                });
                let behind = w.name(h.client);
                w.step(t, client, Some(event), Outcome::LockWaits { behind });
            }
            None => self.grant(w, t, client, session, event),
        }
    }

    fn grant(&mut self, w: &mut World, t: u64, client: usize, session: usize, event: usize) {
        self.grants = self.grants.saturating_add(1);
        let generation = self.grants;
        self.session_of_grant.push(session);
        let span = w.trace.leases.len();
        w.trace.leases.push(LeaseSpan {
            instance: 0,
            holder: client,
            fence: None,
            generation,
            start_ms: t,
            end_ms: w.limit.max(t),
            end: SpanEnd::Open,
            renewals_ms: Vec::new(),
        });
        self.holder = Some(Holding {
            client,
            session,
            generation,
            span,
        });
        self.sessions[session].busy = false;
        // No deadline: the client believes it holds the lock until it learns otherwise.
        w.believe(t, client, None, generation, i64::MAX);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Granted {
                fence: None,
                lease_until_ms: w.limit.max(t),
            },
        );
        self.statement_done(w, t, session);
    }

    /// The lock is free at `t`: the first waiter whose session lives gets it.
    fn hand_over(&mut self, w: &mut World, t: u64) {
        while self.holder.is_none() && !self.queue.is_empty() {
            let client = self.queue.remove(0);
            let Some(waiter) = self.waiting[client].take() else {
                continue;
            };
            self.grant(w, t, client, waiter.session, waiter.event);
            self.end_wait(w, t, client, waiter.wait, PgWaitEnd::Granted);
        }
    }

    fn end_wait(&mut self, w: &mut World, t: u64, client: usize, wait: usize, end: PgWaitEnd) {
        if let Some(span) = self.out.waits.get_mut(wait) {
            span.end_ms = t;
            span.end = end;
        }
        for item in std::mem::take(&mut self.blocked[client]) {
            w.queue.defer(item, t);
        }
    }

    /// The server ends `session` at `t`: its lock (if any) is released, and a call waiting on
    /// it fails.
    fn end_session(&mut self, w: &mut World, t: u64, session: usize, why: SessionEnd) {
        let Some(s) = self.sessions.get_mut(session).filter(|s| s.alive) else {
            return;
        };
        s.alive = false;
        s.busy = false;
        let client = s.client;
        if let Some(p) = self.out.sessions.get_mut(session) {
            p.end_ms = t;
            p.end = why;
        }
        if let Some(h) = self.holder.filter(|h| h.session == session) {
            let span = &mut w.trace.leases[h.span];
            span.end_ms = t;
            span.end = match why {
                SessionEnd::ClientCrashed => SpanEnd::Crashed,
                SessionEnd::Failover => SpanEnd::Forgotten,
                _ => SpanEnd::Expired,
            };
            self.holder = None;
            w.end_validity(t, h.client);
        }
        let waits_here = self.waiting[client]
            .as_ref()
            .is_some_and(|x| x.session == session);
        if waits_here && !w.clients[client].crashed {
            if let Some(waiter) = self.waiting[client].take() {
                self.queue.retain(|&c| c != client);
                w.step(t, client, Some(waiter.event), Outcome::SessionGone { why });
                self.end_wait(w, t, client, waiter.wait, PgWaitEnd::Failed);
            }
        }
        self.hand_over(w, t);
    }

    /// An idle check (`instance` IDLE) or a keepalive's verdict (KEEPALIVE) falls due.
    pub fn expire(&mut self, w: &mut World, t: u64, instance: usize, session: u64, stamp: i64) {
        let k = usize::try_from(session).unwrap_or(usize::MAX);
        let Some(s) = self.sessions.get(k).filter(|s| s.alive) else {
            return;
        };
        if instance == KEEPALIVE {
            return self.end_session(w, t, k, SessionEnd::Keepalive);
        }
        let idle = !s.busy && i64::try_from(s.activity).unwrap_or(i64::MAX) == stamp;
        if idle {
            let why = if self.in_open_transaction(k) {
                SessionEnd::IdleInTransactionTimeout
            } else {
                SessionEnd::IdleTimeout
            };
            // The lab's mutation test may plant a server that ignores `idle_session_timeout`.
            if matches!(why, SessionEnd::IdleTimeout) && planted::is(Bug::AdvisoryIdle) {
                return;
            }
            self.end_session(w, t, k, why);
        }
    }

    /// A pause began. A stopped process's kernel still answers the server; a network pause
    /// (a partition) does not, and the server's keepalive drops the session if it lasts.
    pub fn paused(&mut self, w: &mut World, t: u64, client: usize, cause: PauseCause, ms: u64) {
        let session = self.session_of[client].filter(|&i| self.sessions[i].alive);
        if let (PauseCause::Network, Some(k)) = (cause, session) {
            if ms >= self.keepalive_ms {
                let at = t.saturating_add(self.keepalive_ms);
                w.queue.push(
                    at,
                    0,
                    Action::Expire {
                        instance: KEEPALIVE,
                        generation: k as u64,
                        expires_at: 0,
                    },
                );
            }
        }
    }

    /// The client's process died: its kernel closes the socket and the server ends the
    /// session at once, releasing its lock.
    pub fn crashed(&mut self, w: &mut World, t: u64, client: usize) {
        if let Some(waiter) = self.waiting[client].take() {
            self.queue.retain(|&c| c != client);
            self.end_wait(w, t, client, waiter.wait, PgWaitEnd::Abandoned);
            self.blocked[client].clear();
        }
        if let Some(k) = self.session_of[client] {
            self.end_session(w, t, k, SessionEnd::ClientCrashed);
        }
    }

    /// The primary is lost and a standby promoted: every session ends, and no lock survives.
    pub fn failover(&mut self, w: &mut World, t: u64) {
        self.out.failovers_ms.push(t);
        for k in 0..self.sessions.len() {
            self.end_session(w, t, k, SessionEnd::Failover);
        }
    }

    /// `pg_advisory_unlock` (session level) or `COMMIT` (transaction level).
    pub fn release(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        let label = match self.level {
            AdvisoryLevel::Session => "pg_advisory_unlock",
            AdvisoryLevel::Transaction => "COMMIT",
        };
        w.message(client, Some(event), Target::Lock, label, t, t);
        let gone = self.session_of[client]
            .and_then(|k| self.out.sessions.get(k))
            .filter(|p| p.end != SessionEnd::Open)
            .map(|p| p.end);
        w.drop_belief(t, client, SpanEnd::Released);
        if let Some(why) = gone.filter(|_| !self.holds(client)) {
            // The statement goes out on a dead connection: the client learns the session
            // ended and its lock with it.
            self.session_of[client] = None;
            w.step(t, client, Some(event), Outcome::SessionGone { why });
            return;
        }
        let own = self.holds(client);
        let deleted = own.then(|| w.name(client));
        w.step(
            t,
            client,
            Some(event),
            Outcome::Released {
                mode: ReleaseKind::TokenChecked,
                deleted,
                own,
            },
        );
        if let Some(h) = self.holder.filter(|h| h.client == client) {
            let span = &mut w.trace.leases[h.span];
            span.end_ms = t;
            span.end = SpanEnd::Released;
            self.holder = None;
            self.statement_done(w, t, h.session);
            self.hand_over(w, t);
        }
    }

    /// A debit sent on the holder's session reached the server: it commits only if the
    /// session that was granted `generation` lives. Returns the rejection, if any.
    pub fn write_arrives(&mut self, w: &mut World, t: u64, generation: u64) -> Option<Rejection> {
        if !self.in_transaction {
            return None;
        }
        if !self.grant_live(generation) {
            return Some(Rejection::SessionGone);
        }
        let k = usize::try_from(generation.saturating_sub(1)).unwrap_or(usize::MAX);
        let &session = self.session_of_grant.get(k)?;
        let held = self
            .holder
            .filter(|h| h.session == session && h.generation == generation);
        match (self.level, held) {
            // `UPDATE ...; COMMIT` in the lock's transaction: the commit ends the transaction
            // and its lock with it.
            (AdvisoryLevel::Transaction, Some(h)) => {
                let span = &mut w.trace.leases[h.span];
                span.end_ms = t;
                span.end = SpanEnd::Released;
                self.holder = None;
                w.drop_belief(t, h.client, SpanEnd::Released);
                self.statement_done(w, t, session);
                self.hand_over(w, t);
            }
            _ => self.statement_done(w, t, session),
        }
        None
    }

    /// The server's settings, with nothing done yet.
    pub fn settings(&self) -> AdvisoryTrace {
        self.out.clone()
    }

    /// The server's record, with the waits still open closed at the run's end.
    pub fn finish(mut self, end_ms: u64) -> AdvisoryTrace {
        for w in &mut self.out.waits {
            if w.end == PgWaitEnd::Open {
                w.end_ms = end_ms.max(w.start_ms);
            }
        }
        self.out
    }
}
