//! The leases of etcd's sessions: the keepalives that push a lease out (and stall with their
//! process), the leader's revocation when one runs out, and the election that restarts them
//! all. Apart from `etcd.rs`, which holds the keys, the waiters and the revisions.

use super::etcd::{expiry, EtcdService};
use super::queue::Action;
use super::world::World;
use crate::sim::trace::*;

impl EtcdService {
    /// Schedules the client's keepalive loop's next turn, while the timeline lasts.
    pub fn next_keepalive(&self, w: &mut World, t: u64, client: usize) {
        let at = t.saturating_add((self.ttl_ms / 3).max(1));
        let watchdog = w.clients[client].watchdog;
        if at <= w.horizon && watchdog != 0 {
            w.queue.push(at, at, Action::Tick { client, watchdog });
        }
    }

    /// A keepalive from the client at `t` (`event`: an explicit one, else the loop's). False
    /// once the client learns that its lease is gone.
    pub fn keepalive(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: Option<usize>,
    ) -> bool {
        let Some(i) = self.session_of[client] else {
            if let Some(e) = event {
                let reason = format!("{} has no session to keep alive", w.name(client));
                w.step(t, client, Some(e), Outcome::Skipped { reason });
            }
            return false;
        };
        if !self.sessions[i].alive {
            self.session_of[client] = None;
            w.clients[client].watchdog = 0;
            w.drop_belief(t, client, SpanEnd::Expired);
            w.step(t, client, event, Outcome::SessionExpired { by_lock: false });
            return false;
        }
        if self.cluster.leader_at(t).is_none() {
            // Unanswered: the lease is neither refreshed nor, without a leader, expired.
            if event.is_some() {
                w.step(t, client, event, Outcome::NoLeader);
            }
            return true;
        }
        let until = t.saturating_add(self.ttl_ms);
        self.sessions[i].expires_at = until;
        let span = &mut self.out.sessions[i];
        span.end_ms = until;
        span.keepalives_ms.push(t);
        w.queue.push(until, 0, expiry(i, until));
        if let Some(l) = self
            .lease_span_of(i)
            .and_then(|s| w.trace.leases.get_mut(s))
        {
            l.end_ms = until;
            l.renewals_ms.push(t);
        }
        if w.clients[client].held.is_some() {
            let deadline = w.clocks[client].local(t).saturating_add(self.ttl_local);
            w.extend_belief(t, client, deadline);
        }
        if event.is_some() {
            let outcome = Outcome::Renewed {
                lease_until_ms: until,
                by_watchdog: false,
            };
            w.step(t, client, event, outcome);
        }
        true
    }

    fn lease_span_of(&self, session: usize) -> Option<usize> {
        self.keys
            .iter()
            .find(|k| k.session == session)
            .and_then(|k| k.span)
    }

    /// A lease's expiry falls due: the leader revokes it (and deletes its key) unless a
    /// keepalive or an election moved it, or there is no leader to do it.
    pub fn expire(&mut self, w: &mut World, t: u64, session: usize, expires_at: u64) {
        let Some(s) = self.sessions.get(session) else {
            return;
        };
        if !s.alive || s.expires_at != expires_at || self.cluster.leader_at(t).is_none() {
            return;
        }
        let client = s.client;
        self.sessions[session].alive = false;
        self.out.sessions[session].end_ms = t;
        self.bump(t, RevisionCause::Revoke, client);
        if let Some(k) = self.keys.iter().position(|k| k.session == session) {
            self.delete_key(w, t, k, SpanEnd::Expired);
        }
    }

    /// A new leader: every live lease restarts at its TTL plus one election timeout.
    pub fn elected(&mut self, w: &mut World, t: u64) {
        let until = t
            .saturating_add(self.election_ms)
            .saturating_add(self.ttl_ms);
        for i in 0..self.sessions.len() {
            if !self.sessions[i].alive {
                continue;
            }
            self.sessions[i].expires_at = until;
            let span = &mut self.out.sessions[i];
            span.end_ms = until;
            span.extended_ms.push(t);
            w.queue.push(until, 0, expiry(i, until));
            if let Some(l) = self
                .lease_span_of(i)
                .and_then(|s| w.trace.leases.get_mut(s))
            {
                l.end_ms = until;
            }
        }
    }
}
