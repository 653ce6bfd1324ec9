//! etcd as the lock service. A session is a lease the client keeps alive every TTL/3 (the
//! keepalives stall while it is paused); the lock puts `prefix/<lease>` at the next revision
//! and waits until every key with a lower create revision is gone (FIFO). Every write raises
//! the revision. The leader expires leases; without one nothing expires, and a new leader
//! restarts every lease at TTL + one election timeout (`Promote`). When a wait ends on a key
//! that is gone, 3.5 answers "session expired" and 3.4 "locked" (etcd-io/etcd#11456).

use super::cluster::Cluster;
use super::queue::{Action, Item};
use super::world::World;
use crate::sim::planted::{self, Bug};
use crate::sim::scenario::{Etcd, EtcdVersion, ReleaseKind, Scenario};
use crate::sim::trace::*;

/// The first lease id the cluster hands out; etcd's ids are large, and shown in hexadecimal.
const FIRST_LEASE: u64 = 0x694d_7f3a_2c10_4e00;

pub(super) struct Session {
    pub(super) client: usize,
    pub(super) expires_at: u64,
    pub(super) alive: bool,
}

/// A key on the lock's prefix.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) client: usize,
    pub(super) revision: u64,
    pub(super) session: usize,
    /// The lease span of its holding, once the lock was granted.
    pub(super) span: Option<usize>,
}

/// A lock call that waits.
pub(super) struct Waiter {
    revision: u64,
    event: usize,
    wait: usize,
}

pub struct EtcdService {
    pub(super) cluster: Cluster,
    pub(super) version: EtcdVersion,
    pub(super) election_ms: u64,
    pub(super) ttl_ms: u64,
    /// The TTL as a client's clock reading adds it.
    pub(super) ttl_local: i64,
    pub(super) fencing: bool,
    revision: u64,
    pub(super) sessions: Vec<Session>,
    /// Per client, its current session (index into `sessions`).
    pub(super) session_of: Vec<Option<usize>>,
    pub(super) keys: Vec<Key>,
    pub(super) waiting: Vec<Option<Waiter>>,
    /// Per client, the steps that fell due while it waited in a lock call.
    pub(super) blocked: Vec<Vec<Item>>,
    pub(super) out: EtcdTrace,
}

impl EtcdService {
    /// The service for `e` (always: `None` is the first stage's build, `etcd_off.rs`).
    pub fn new(s: &Scenario, e: &Etcd, limit: u64) -> Option<EtcdService> {
        let cluster = Cluster::new(e, limit);
        let n = s.clients.len();
        Some(EtcdService {
            out: EtcdTrace {
                members: e.members.iter().map(|m| m.name.clone()).collect(),
                version: e.version.label().to_string(),
                election_timeout_ms: e.election_timeout_ms,
                leaders: cluster.leaders.clone(),
                outages: cluster.outages.clone(),
                sessions: Vec::new(),
                waits: Vec::new(),
                revisions: Vec::new(),
            },
            cluster,
            version: e.version,
            election_ms: e.election_timeout_ms,
            ttl_ms: s.lock.ttl_ms,
            ttl_local: i64::try_from(s.lock.ttl_ms).unwrap_or(i64::MAX),
            fencing: s.lock.fencing,
            // The first key put gets `firstFence`.
            revision: s.lock.first_fence.saturating_sub(1),
            sessions: Vec::new(),
            session_of: vec![None; n],
            keys: Vec::new(),
            waiting: (0..n).map(|_| None).collect(),
            blocked: vec![Vec::new(); n],
        })
    }

    /// Every election after the first leader's: each one extends the leases.
    pub fn schedule(&self, queue: &mut super::queue::Queue) {
        for (k, l) in self.cluster.leaders.iter().enumerate().skip(1) {
            queue.push(l.start_ms, l.start_ms, Action::Elected { leader: k });
        }
    }

    /// Whether the client waits in a lock call (its other steps wait with it).
    pub fn is_waiting(&self, client: usize) -> bool {
        self.waiting.get(client).is_some_and(Option::is_some)
    }

    pub fn block(&mut self, client: usize, item: Item) {
        if let Some(b) = self.blocked.get_mut(client) {
            b.push(item);
        }
    }

    /// Whether the client holds a granted key that still exists (`isHeld()` as etcd answers).
    pub fn holds(&self, client: usize) -> bool {
        self.keys
            .iter()
            .any(|k| k.client == client && k.span.is_some())
    }

    /// Whether a granted key with this create revision still exists: the guard's compare.
    pub fn key_live(&self, rev: u64) -> bool {
        self.keys
            .iter()
            .any(|k| k.revision == rev && k.span.is_some())
    }

    pub(super) fn bump(&mut self, t: u64, cause: RevisionCause, client: usize) -> u64 {
        self.revision = self.revision.saturating_add(1);
        self.out.revisions.push(RevisionMark {
            at_ms: t,
            revision: self.revision,
            cause,
            client,
        });
        self.revision
    }

    /// A guarded debit's transaction committed: one more revision.
    pub fn committed(&mut self, t: u64, client: usize) {
        self.bump(t, RevisionCause::Txn, client);
    }

    /// No leader at `t`: the request waits for the next one (or is never answered).
    fn without_leader(&self, w: &mut World, t: u64, due: u64, client: usize, event: usize) -> bool {
        if self.cluster.leader_at(t).is_some() {
            return false;
        }
        w.step(t, client, Some(event), Outcome::NoLeader);
        if let Some(at) = self.cluster.next_leader(t) {
            w.queue.push(at, due, Action::Event { client, event });
        }
        true
    }

    fn key_of(&self, client: usize) -> Option<usize> {
        self.keys.iter().position(|k| k.client == client)
    }

    /// A live session for the client: its current one, or a fresh lease with keepalives.
    fn session(&mut self, w: &mut World, t: u64, client: usize, event: usize) -> usize {
        if let Some(i) = self.session_of[client].filter(|&i| self.sessions[i].alive) {
            return i;
        }
        let i = self.sessions.len();
        let expires_at = t.saturating_add(self.ttl_ms);
        self.sessions.push(Session {
            client,
            expires_at,
            alive: true,
        });
        self.out.sessions.push(SessionSpan {
            client,
            lease: format!("{:x}", FIRST_LEASE.wrapping_add(i as u64)),
            start_ms: t,
            end_ms: expires_at,
            keepalives_ms: Vec::new(),
            extended_ms: Vec::new(),
        });
        self.session_of[client] = Some(i);
        w.message(client, Some(event), Target::Lock, "lease grant", t, t);
        w.queue.push(expires_at, 0, expiry(i, expires_at));
        // The keepalive loop runs under the session's number (never 0, which means none).
        w.clients[client].watchdog = i as u64 + 1;
        self.next_keepalive(w, t, client);
        i
    }

    pub fn acquire(&mut self, w: &mut World, t: u64, due: u64, client: usize, event: usize) {
        if self.without_leader(w, t, due, client, event) {
            return;
        }
        if let Some(k) = self.key_of(client).filter(|&k| self.keys[k].span.is_some()) {
            self.regrant(w, t, k, event);
            return;
        }
        if let Some(k) = self.key_of(client) {
            let reason = format!(
                "{} already has a key on the lock (create revision {})",
                w.s.clients[client].name, self.keys[k].revision
            );
            w.step(t, client, Some(event), Outcome::Skipped { reason });
            return;
        }
        let session = self.session(w, t, client, event);
        let revision = self.bump(t, RevisionCause::Put, client);
        w.message(client, Some(event), Target::Lock, "lock", t, t);
        self.keys.push(Key {
            client,
            revision,
            session,
            span: None,
        });
        let lowest = self
            .keys
            .iter()
            .min_by_key(|k| k.revision)
            .map(|k| k.client);
        match lowest {
            Some(c) if c != client => {
                self.waiting[client] = Some(Waiter {
                    revision,
                    event,
                    wait: self.out.waits.len(),
                });
                self.out.waits.push(WaitSpan {
                    client,
                    revision,
                    start_ms: t,
                    end_ms: t,
                    answer: WaitAnswer::Open,
                });
                let behind = w.name(c);
                w.step(t, client, Some(event), Outcome::Queued { revision, behind });
            }
            _ => self.grant(w, t, self.keys.len() - 1, event),
        }
    }

    /// A lock call from a client that holds the lock: etcd's lock service puts the key only if
    /// the session has none, finds the client's own key with the lowest create revision and
    /// answers at once with it. Nothing changes on the server; the client hears it holds.
    fn regrant(&mut self, w: &mut World, t: u64, k: usize, event: usize) {
        w.message(self.keys[k].client, Some(event), Target::Lock, "lock", t, t);
        self.tell_holder(w, t, k, event);
    }

    fn grant(&mut self, w: &mut World, t: u64, k: usize, event: usize) {
        let Key {
            client,
            revision,
            session,
            ..
        } = self.keys[k];
        self.keys[k].span = Some(w.trace.leases.len());
        w.trace.leases.push(LeaseSpan {
            instance: 0,
            holder: client,
            fence: self.fencing.then_some(revision),
            generation: revision,
            start_ms: t,
            end_ms: self.sessions[session].expires_at.max(t),
            end: SpanEnd::Expired,
            renewals_ms: Vec::new(),
        });
        self.tell_holder(w, t, k, event);
    }

    /// Key `k`'s client hears that it holds the lock: it believes so, fenced by the key's
    /// create revision, until its session's TTL runs out on its own clock.
    fn tell_holder(&self, w: &mut World, t: u64, k: usize, event: usize) {
        let Key {
            client,
            revision,
            session,
            ..
        } = self.keys[k];
        // The lab's mutation test may plant the revision before the key's (`sim::planted`).
        let fence = self.fencing.then_some(if planted::is(Bug::EtcdRevision) {
            revision.saturating_sub(1)
        } else {
            revision
        });
        let lease_until_ms = self.sessions[session].expires_at.max(t);
        let deadline = w.clocks[client].local(t).saturating_add(self.ttl_local);
        w.believe(t, client, fence, revision, deadline);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Granted {
                fence,
                lease_until_ms,
            },
        );
    }

    /// Deletes key `k` at `t` (an unlock or a revoked lease), then lets waiters through.
    pub(super) fn delete_key(&mut self, w: &mut World, t: u64, k: usize, why: SpanEnd) {
        let key = self.keys.remove(k);
        if let Some(span) = key.span.and_then(|s| w.trace.leases.get_mut(s)) {
            span.end_ms = t;
            span.end = why;
        }
        self.wake_waiters(w, t);
    }

    /// Every waiter with no lower key left gets its answer.
    fn wake_waiters(&mut self, w: &mut World, t: u64) {
        let mut order: Vec<(u64, usize)> = self
            .waiting
            .iter()
            .enumerate()
            .filter_map(|(c, x)| x.as_ref().map(|x| (x.revision, c)))
            .collect();
        crate::sim::sort::sort(&mut order);
        for (revision, client) in order {
            if self.keys.iter().any(|k| k.revision < revision) {
                continue;
            }
            let Some(waiter) = self.waiting[client].take() else {
                continue;
            };
            let own = self
                .keys
                .iter()
                .position(|k| k.client == client && k.revision == revision);
            let answer = match (own, self.version) {
                (Some(k), _) => {
                    self.grant(w, t, k, waiter.event);
                    WaitAnswer::Granted
                }
                (None, EtcdVersion::V34) => {
                    // The lock call answers with the key's name only; a client that reads its
                    // create revision to fence with finds the key gone: it holds no fence.
                    let fence = None;
                    let expired_ms = self
                        .out
                        .sessions
                        .iter()
                        .rfind(|x| x.client == client)
                        .map_or(t, |x| x.end_ms);
                    let deadline = w.clocks[client].local(t).saturating_add(self.ttl_local);
                    w.believe(t, client, fence, revision, deadline);
                    w.step(
                        t,
                        client,
                        Some(waiter.event),
                        Outcome::GrantedExpired { expired_ms },
                    );
                    WaitAnswer::GrantedExpired
                }
                (None, EtcdVersion::V35) => {
                    w.step(
                        t,
                        client,
                        Some(waiter.event),
                        Outcome::SessionExpired { by_lock: true },
                    );
                    WaitAnswer::SessionExpired
                }
            };
            self.end_wait(w, t, client, waiter.wait, answer);
        }
    }

    fn end_wait(&mut self, w: &mut World, t: u64, client: usize, wait: usize, answer: WaitAnswer) {
        if let Some(span) = self.out.waits.get_mut(wait) {
            span.end_ms = t;
            span.answer = answer;
        }
        for item in std::mem::take(&mut self.blocked[client]) {
            w.queue.defer(item, t);
        }
    }

    /// The client crashed: a wait it was in is abandoned (its key stays until its lease ends).
    pub fn crashed(&mut self, w: &mut World, t: u64, client: usize) {
        if let Some(waiter) = self.waiting[client].take() {
            self.end_wait(w, t, client, waiter.wait, WaitAnswer::Abandoned);
            self.blocked[client].clear();
        }
    }

    pub fn release(&mut self, w: &mut World, t: u64, due: u64, client: usize, event: usize) {
        if self.without_leader(w, t, due, client, event) {
            return;
        }
        w.message(client, Some(event), Target::Lock, "unlock", t, t);
        w.drop_belief(t, client, SpanEnd::Released);
        let key = self.key_of(client);
        let deleted = key.map(|_| w.name(client));
        let own = deleted.is_some();
        let mode = ReleaseKind::TokenChecked;
        w.step(
            t,
            client,
            Some(event),
            Outcome::Released { mode, deleted, own },
        );
        if let Some(k) = key {
            self.bump(t, RevisionCause::Unlock, client);
            self.delete_key(w, t, k, SpanEnd::Released);
        }
    }

    /// The cluster's record, with the waits still open closed at the run's end.
    pub fn finish(mut self, end_ms: u64) -> EtcdTrace {
        for w in &mut self.out.waits {
            if w.answer == WaitAnswer::Open {
                w.end_ms = end_ms.max(w.start_ms);
            }
        }
        self.out
    }
}

pub(super) fn expiry(session: usize, at: u64) -> Action {
    Action::Expire {
        instance: 0,
        generation: session as u64,
        expires_at: i64::try_from(at).unwrap_or(i64::MAX),
    }
}
