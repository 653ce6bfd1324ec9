//! ZooKeeper's sessions as the lock service keeps them: the pings that push a session's
//! expiry out (and stall with their process), the leader's expiry on the next tick past the
//! timeout, a client cut off from the ensemble (SUSPENDED after two thirds of the timeout,
//! RECONNECTED or LOST when it heals), the lock parent's removal, and a client's crash. Apart
//! from `zookeeper.rs`, which holds the nodes, the waiters and the zxids.

use super::queue::Action;
use super::world::World;
use super::zookeeper::{Session, ZkService, DETECT, EXPIRY, FIRST_SESSION, HEAL};
use crate::sim::scenario::ZkEvent;
use crate::sim::trace::*;

impl ZkService {
    /// The leader heard from the session at `t`: it expires at the first tick boundary past
    /// `t` + the timeout (ZooKeeper's expiry queue works in whole ticks).
    pub(super) fn touch(&mut self, w: &mut World, t: u64, session: usize) {
        let at = t
            .saturating_add(self.timeout)
            .div_euclid(self.tick)
            .saturating_add(1)
            .saturating_mul(self.tick);
        let s = &mut self.sessions[session];
        s.expires_at = at;
        self.out.sessions[session].end_ms = at;
        w.queue.push(
            at,
            0,
            Action::Expire {
                instance: EXPIRY,
                generation: session as u64,
                expires_at: i64::try_from(at).unwrap_or(i64::MAX),
            },
        );
        let nodes = self.live.iter().copied();
        let spans: Vec<usize> = nodes
            .filter(|&k| self.out.nodes[k].session == session)
            .filter_map(|k| self.span_of[k])
            .collect();
        for span in spans {
            if let Some(l) = w.trace.leases.get_mut(span) {
                l.end_ms = at;
            }
        }
    }

    /// The client's live session, or a new one (`createSession`, a transaction).
    pub(super) fn session(&mut self, w: &mut World, t: u64, client: usize, event: usize) -> usize {
        if let Some(i) = self.session_of[client].filter(|&i| self.sessions[i].alive) {
            return i;
        }
        self.close_state(t, client, ZkStateEnd::Open);
        let i = self.sessions.len();
        self.sessions.push(Session {
            client,
            alive: true,
            expires_at: t,
        });
        self.out.sessions.push(ZkSession {
            client,
            id: format!("0x{:x}", FIRST_SESSION.wrapping_add(i as u64)),
            start_ms: t,
            end_ms: t,
            end: ZkSessionEnd::Open,
            pings_ms: Vec::new(),
        });
        self.session_of[client] = Some(i);
        w.message(client, Some(event), Target::Lock, "connect", t, t);
        self.txn(t, ZxidCause::CreateSession, Some(client));
        self.touch(w, t, i);
        // The ping loop runs under the session's number (never 0, which means none).
        w.clients[client].watchdog = i as u64 + 1;
        self.next_ping(w, t, client);
        i
    }

    /// Schedules the client's next ping, a third of the timeout on, while the timeline lasts.
    pub fn next_ping(&self, w: &mut World, t: u64, client: usize) {
        let at = t.saturating_add((self.timeout / 3).max(1));
        let watchdog = w.clients[client].watchdog;
        if at <= w.horizon && watchdog != 0 {
            w.queue.push(at, at, Action::Tick { client, watchdog });
        }
    }

    /// A ping from the client at `t`. False once the client learns its session is gone.
    pub fn ping(&mut self, w: &mut World, t: u64, client: usize) -> bool {
        let Some(i) = self.session_of[client] else {
            w.clients[client].watchdog = 0;
            return false;
        };
        if self.cut[client] {
            // Unanswered: the leader hears nothing, and the loop goes on.
            return true;
        }
        if !self.sessions[i].alive {
            self.learn_lost(w, t, client, None);
            return false;
        }
        self.out.sessions[i].pings_ms.push(t);
        self.touch(w, t, i);
        let spans: Vec<usize> = self
            .live
            .iter()
            .filter(|&&k| self.out.nodes[k].session == i)
            .filter_map(|&k| self.span_of[k])
            .collect();
        for span in spans {
            if let Some(l) = w.trace.leases.get_mut(span) {
                l.renewals_ms.push(t);
            }
        }
        true
    }

    /// The client hears that its session expired: Curator's LOST. It stops believing.
    pub(super) fn learn_lost(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: Option<usize>,
    ) {
        self.session_of[client] = None;
        w.clients[client].watchdog = 0;
        w.drop_belief(t, client, SpanEnd::Expired);
        self.close_state(t, client, ZkStateEnd::Lost);
        self.state[client] = Some(self.out.states.len());
        self.out.states.push(ZkStateSpan {
            client,
            start_ms: t,
            end_ms: w.limit.max(t),
            state: ZkState::Lost,
            end: ZkStateEnd::Open,
        });
        w.step(
            t,
            client,
            event,
            Outcome::ZkNotice {
                notice: ZkNotice::Lost,
            },
        );
    }

    pub(super) fn close_state(&mut self, t: u64, client: usize, end: ZkStateEnd) {
        if let Some(k) = self.state[client].take() {
            let s = &mut self.out.states[k];
            s.end_ms = t.max(s.start_ms);
            s.end = end;
        }
    }

    /// A session's expiry falls due: the leader closes it unless it heard from it since.
    pub fn expire(&mut self, w: &mut World, t: u64, instance: usize, id: u64, stamp: i64) {
        let k = usize::try_from(id).unwrap_or(usize::MAX);
        match instance {
            EXPIRY => self.expire_session(w, t, k, stamp),
            DETECT => self.detect(w, t, k),
            _ => self.heal(w, t, k),
        }
    }

    pub(super) fn expire_session(&mut self, w: &mut World, t: u64, session: usize, stamp: i64) {
        let Some(s) = self.sessions.get(session) else {
            return;
        };
        if !s.alive || i64::try_from(s.expires_at).unwrap_or(i64::MAX) != stamp {
            return;
        }
        let client = s.client;
        self.sessions[session].alive = false;
        self.out.sessions[session].end_ms = t;
        self.out.sessions[session].end = ZkSessionEnd::Expired;
        self.txn(t, ZxidCause::CloseSession, Some(client));
        let doomed: Vec<usize> = self
            .live
            .iter()
            .copied()
            .filter(|&k| self.out.nodes[k].session == session)
            .collect();
        for k in doomed {
            self.delete_node(w, t, k, ZkNodeEnd::SessionExpired);
        }
        w.end_validity(t, client);
        if let Some(waiter) = self.waiting[client].take() {
            self.end_wait(w, t, client, waiter.wait, ZkWaitEnd::Expired);
        }
        self.wake_waiters(w, t);
    }

    /// An ensemble event: a partition begins, or the lock parent is to be removed.
    pub fn ensemble_event(&mut self, w: &mut World, t: u64, event: usize) {
        match self.events.get(event).cloned() {
            Some(ZkEvent::Partition {
                duration_ms,
                client,
                ..
            }) => {
                let Some(c) = w.s.clients.iter().position(|x| x.name == client) else {
                    return;
                };
                self.cut[c] = true;
                let end = t.saturating_add(duration_ms);
                self.out.partitions.push(ZkPartition {
                    client: c,
                    start_ms: t,
                    end_ms: end,
                });
                let detect = t.saturating_add(self.timeout.saturating_mul(2) / 3);
                if detect < end {
                    let action = Action::Expire {
                        instance: DETECT,
                        generation: c as u64,
                        expires_at: 0,
                    };
                    w.queue.push(detect, 0, action);
                }
                let action = Action::Expire {
                    instance: HEAL,
                    generation: c as u64,
                    expires_at: 0,
                };
                w.queue.push(end, 0, action);
            }
            Some(ZkEvent::ParentRemoved { .. }) => {
                let what = if self.live.is_empty() && self.parent {
                    self.parent = false;
                    self.txn(t, ZxidCause::DeleteParent, None);
                    ParentChange::Removed
                } else {
                    ParentChange::Kept
                };
                self.out.parent.push(ParentMark { at_ms: t, what });
            }
            None => {}
        }
    }

    /// Two thirds of the timeout without an answer: the client declares itself disconnected
    /// (SUSPENDED), if it is still cut off, has a session, and is running to notice. A paused
    /// client notices when it wakes, after the steps that fell due while it slept: a stopped
    /// process's threads all resume at once, and its work does not wait for the library.
    pub(super) fn detect(&mut self, w: &mut World, t: u64, client: usize) {
        if !self.cut[client] || w.clients[client].crashed || self.state[client].is_some() {
            return;
        }
        if self.session_of[client].is_none() {
            return;
        }
        if let Some(wake) = w.paused_until(client, t) {
            let action = Action::Expire {
                instance: DETECT,
                generation: client as u64,
                expires_at: 0,
            };
            w.queue.push(wake, wake, action);
            return;
        }
        self.state[client] = Some(self.out.states.len());
        self.out.states.push(ZkStateSpan {
            client,
            start_ms: t,
            end_ms: w.limit.max(t),
            state: ZkState::Suspended,
            end: ZkStateEnd::Open,
        });
        let notice = ZkNotice::Suspended;
        w.step(t, client, None, Outcome::ZkNotice { notice });
    }

    /// The partition ends: the client reconnects (RECONNECTED if its session lives, LOST if
    /// it expired meanwhile).
    pub(super) fn heal(&mut self, w: &mut World, t: u64, client: usize) {
        let still_cut = self
            .out
            .partitions
            .iter()
            .any(|p| p.client == client && p.start_ms <= t && t < p.end_ms);
        if still_cut {
            return;
        }
        self.cut[client] = false;
        if w.clients[client].crashed {
            return;
        }
        if let Some(wake) = w.paused_until(client, t) {
            let action = Action::Expire {
                instance: HEAL,
                generation: client as u64,
                expires_at: 0,
            };
            w.queue.push(wake, wake, action);
            return;
        }
        let Some(i) = self.session_of[client] else {
            return;
        };
        if !self.sessions[i].alive {
            self.learn_lost(w, t, client, None);
            return;
        }
        self.touch(w, t, i);
        if self.state[client].is_some() {
            self.close_state(t, client, ZkStateEnd::Reconnected);
            let notice = ZkNotice::Reconnected;
            w.step(t, client, None, Outcome::ZkNotice { notice });
        }
    }

    /// The client crashed: a wait it was in is abandoned; its session lives on, unpinged,
    /// until the leader expires it.
    pub fn crashed(&mut self, w: &mut World, t: u64, client: usize) {
        if let Some(waiter) = self.waiting[client].take() {
            self.end_wait(w, t, client, waiter.wait, ZkWaitEnd::Abandoned);
            self.blocked[client].clear();
        }
    }
}
