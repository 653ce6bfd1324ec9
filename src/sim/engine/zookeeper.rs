//! ZooKeeper as the lock service, running the lock recipe: a client connects (a session, kept
//! alive by a ping every third of its timeout, which stall while its process is paused),
//! creates `/lock/lock-` as an ephemeral sequential node, and holds the lock when its node has
//! the lowest sequence; otherwise it waits for the lower nodes to go. The leader expires a
//! session it has not heard from for the session timeout, rounded up to the next tick, and
//! deletes its nodes in the same transaction. The client learns of that only when it hears
//! from the ensemble again (a ping after its pause, or the reconnection after a partition).
//! A client cut off from the ensemble declares itself disconnected (Curator's SUSPENDED) after
//! two thirds of the timeout without an answer. Every transaction takes the next zxid: a lock
//! node's `czxid` rises with every grant, while its sequence is the parent's child version and
//! starts again at 0 when the parent is removed and created again.

use super::queue::{Action, Item, Queue};
use super::world::World;
use crate::sim::scenario::{OnSuspended, ReleaseKind, Scenario, ZkEvent, ZkFence, Zookeeper};
use crate::sim::trace::*;

/// `Action::Expire`'s instance for a session's expiry, a partition's detection by its client,
/// and a partition's end.
const EXPIRY: usize = 0;
const DETECT: usize = 1;
const HEAL: usize = 2;
/// The first session id the ensemble hands out, in the style of a server with id 1.
const FIRST_SESSION: u64 = 0x1000_0a5e_c0de_0000;

struct Session {
    client: usize,
    alive: bool,
    expires_at: u64,
}

struct Waiter {
    event: usize,
    wait: usize,
    node: usize,
}

pub struct ZkService {
    tick: u64,
    timeout: u64,
    fencing: bool,
    fence: ZkFence,
    stop_writing: bool,
    /// The last zxid's counter.
    zxid: u64,
    /// The lock parent's child version: the next sequential node's suffix.
    cversion: u64,
    parent: bool,
    sessions: Vec<Session>,
    session_of: Vec<Option<usize>>,
    /// Indices into `out.nodes` of the nodes that exist, oldest first.
    live: Vec<usize>,
    /// Per node, its lease span once granted.
    span_of: Vec<Option<usize>>,
    waiting: Vec<Option<Waiter>>,
    blocked: Vec<Vec<Item>>,
    /// Per client, whether it is cut off from the ensemble now.
    cut: Vec<bool>,
    /// Per client, its open connection-state span (SUSPENDED or LOST), if any.
    state: Vec<Option<usize>>,
    events: Vec<ZkEvent>,
    out: ZkTrace,
}

impl ZkService {
    /// The service for `z` (always: `None` is the first stage's build, `zookeeper_off.rs`).
    pub fn new(s: &Scenario, z: &Zookeeper) -> Option<ZkService> {
        let n = s.clients.len();
        let timeout = z.negotiated_timeout_ms(s.lock.ttl_ms);
        Some(ZkService {
            tick: z.tick_time_ms.max(1),
            timeout,
            fencing: s.lock.fencing,
            fence: z.fence,
            stop_writing: z.on_suspended == OnSuspended::StopWriting,
            // The first transaction takes `firstFence`.
            zxid: s.lock.first_fence.saturating_sub(1),
            cversion: 0,
            parent: true,
            sessions: Vec::new(),
            session_of: vec![None; n],
            live: Vec::new(),
            span_of: Vec::new(),
            waiting: (0..n).map(|_| None).collect(),
            blocked: vec![Vec::new(); n],
            cut: vec![false; n],
            state: vec![None; n],
            events: z.events.clone(),
            out: ZkTrace {
                tick_time_ms: z.tick_time_ms,
                requested_timeout_ms: s.lock.ttl_ms,
                session_timeout_ms: timeout,
                fence: z.fence.label().to_string(),
                on_suspended: z.on_suspended.label().to_string(),
                pings_until_ms: s.horizon_ms(),
                sessions: Vec::new(),
                nodes: Vec::new(),
                waits: Vec::new(),
                states: Vec::new(),
                partitions: Vec::new(),
                parent: Vec::new(),
                zxids: Vec::new(),
            },
        })
    }

    /// Every ensemble event, as an instance event of the one service.
    pub fn schedule(&self, queue: &mut Queue) {
        for (event, e) in self.events.iter().enumerate() {
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

    fn node_of(&self, client: usize) -> Option<usize> {
        self.live
            .iter()
            .copied()
            .find(|&k| self.out.nodes[k].client == client)
    }

    /// `exists` on the client's own granted node: false when it is gone, not yet granted, or
    /// the client cannot reach the ensemble.
    pub fn holds(&self, client: usize) -> bool {
        !self.cut[client]
            && self
                .node_of(client)
                .is_some_and(|k| self.out.nodes[k].granted_ms.is_some())
    }

    /// Whether the client would rather not write now: it stops while SUSPENDED (or LOST).
    pub fn holds_back(&self, client: usize) -> Option<ZkState> {
        let k = self.state[client].filter(|_| self.stop_writing)?;
        self.out.states.get(k).map(|s| s.state)
    }

    fn txn(&mut self, t: u64, cause: ZxidCause, client: Option<usize>) -> u64 {
        self.zxid = self.zxid.saturating_add(1);
        self.out.zxids.push(ZxidMark {
            at_ms: t,
            zxid: self.zxid,
            cause,
            client,
        });
        self.zxid
    }

    /// The leader heard from the session at `t`: it expires at the first tick boundary past
    /// `t` + the timeout (ZooKeeper's expiry queue works in whole ticks).
    fn touch(&mut self, w: &mut World, t: u64, session: usize) {
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
    fn session(&mut self, w: &mut World, t: u64, client: usize, event: usize) -> usize {
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
    fn learn_lost(&mut self, w: &mut World, t: u64, client: usize, event: Option<usize>) {
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

    fn close_state(&mut self, t: u64, client: usize, end: ZkStateEnd) {
        if let Some(k) = self.state[client].take() {
            let s = &mut self.out.states[k];
            s.end_ms = t.max(s.start_ms);
            s.end = end;
        }
    }

    pub fn acquire(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        if let Some(k) = self.node_of(client) {
            let reason = format!(
                "{} already has a lock node ({})",
                w.s.clients[client].name,
                self.out.nodes[k].name()
            );
            w.step(t, client, Some(event), Outcome::Skipped { reason });
            return;
        }
        if self.cut[client] {
            w.message(client, Some(event), Target::Lock, "create", t, t);
            w.step(t, client, Some(event), Outcome::ConnectionLoss);
            return;
        }
        let session = self.session(w, t, client, event);
        if !self.parent {
            self.parent = true;
            self.cversion = 0;
            self.txn(t, ZxidCause::CreateParent, Some(client));
            self.out.parent.push(ParentMark {
                at_ms: t,
                what: ParentChange::Created,
            });
        }
        let czxid = self.txn(t, ZxidCause::CreateNode, Some(client));
        let sequence = self.cversion;
        self.cversion = self.cversion.saturating_add(1);
        w.message(client, Some(event), Target::Lock, "create -e -s", t, t);
        let k = self.out.nodes.len();
        self.out.nodes.push(ZkNode {
            client,
            session,
            sequence,
            czxid,
            created_ms: t,
            granted_ms: None,
            end_ms: w.limit.max(t),
            end: ZkNodeEnd::Open,
        });
        self.span_of.push(None);
        self.live.push(k);
        self.touch(w, t, session);
        match self.lowest() {
            Some(low) if low != k => {
                let behind = w.name(self.out.nodes[low].client);
                self.waiting[client] = Some(Waiter {
                    event,
                    wait: self.out.waits.len(),
                    node: k,
                });
                self.out.waits.push(ZkWait {
                    client,
                    node: k,
                    start_ms: t,
                    end_ms: t,
                    end: ZkWaitEnd::Open,
                });
                let node = self.out.nodes[k].name();
                w.step(t, client, Some(event), Outcome::NodeWaits { node, behind });
            }
            _ => self.grant(w, t, k, event),
        }
    }

    /// The live node with the lowest sequence (ties, which a recreated parent cannot make
    /// while a node lives, go to the older).
    fn lowest(&self) -> Option<usize> {
        self.live
            .iter()
            .copied()
            .min_by_key(|&k| (self.out.nodes[k].sequence, k))
    }

    fn grant(&mut self, w: &mut World, t: u64, k: usize, event: usize) {
        let node = &mut self.out.nodes[k];
        node.granted_ms = Some(t);
        let (client, session, czxid) = (node.client, node.session, node.czxid);
        let fence = self.fencing.then_some(match self.fence {
            ZkFence::Czxid => czxid,
            ZkFence::Sequence => node.sequence,
        });
        let until = self.sessions[session].expires_at.max(t);
        self.span_of[k] = Some(w.trace.leases.len());
        w.trace.leases.push(LeaseSpan {
            instance: 0,
            holder: client,
            fence,
            generation: czxid,
            start_ms: t,
            end_ms: until,
            end: SpanEnd::Expired,
            renewals_ms: Vec::new(),
        });
        // No deadline of its own: the client holds the lock until it hears otherwise.
        w.believe(t, client, fence, czxid, i64::MAX);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Granted {
                fence,
                lease_until_ms: until,
            },
        );
    }

    /// Deletes node `k` at `t` (its client's unlock, or its session's end).
    fn delete_node(&mut self, w: &mut World, t: u64, k: usize, end: ZkNodeEnd) {
        self.live.retain(|&x| x != k);
        self.cversion = self.cversion.saturating_add(1);
        let node = &mut self.out.nodes[k];
        node.end_ms = t;
        node.end = end;
        if let Some(span) = self.span_of[k].and_then(|s| w.trace.leases.get_mut(s)) {
            span.end_ms = t;
            span.end = match end {
                ZkNodeEnd::Deleted => SpanEnd::Released,
                _ => SpanEnd::Expired,
            };
        }
    }

    /// Every waiter whose node is now the lowest gets the lock.
    fn wake_waiters(&mut self, w: &mut World, t: u64) {
        let Some(low) = self.lowest() else {
            return;
        };
        let client = self.out.nodes[low].client;
        let waits_for_it = self.waiting[client].as_ref().is_some_and(|x| x.node == low);
        if waits_for_it {
            if let Some(waiter) = self.waiting[client].take() {
                self.grant(w, t, low, waiter.event);
                self.end_wait(w, t, client, waiter.wait, ZkWaitEnd::Granted);
            }
        }
    }

    fn end_wait(&mut self, w: &mut World, t: u64, client: usize, wait: usize, end: ZkWaitEnd) {
        if let Some(span) = self.out.waits.get_mut(wait) {
            span.end_ms = t;
            span.end = end;
        }
        for item in std::mem::take(&mut self.blocked[client]) {
            w.queue.defer(item, t);
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

    fn expire_session(&mut self, w: &mut World, t: u64, session: usize, stamp: i64) {
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
    /// (SUSPENDED), if it is still cut off, has a session, and is running to notice.
    fn detect(&mut self, w: &mut World, t: u64, client: usize) {
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
            w.queue.push(wake, 0, action);
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
    fn heal(&mut self, w: &mut World, t: u64, client: usize) {
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
            w.queue.push(wake, 0, action);
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

    /// The unlock: `delete` of the client's own node.
    pub fn release(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        w.message(client, Some(event), Target::Lock, "delete", t, t);
        if self.cut[client] {
            w.drop_belief(t, client, SpanEnd::Released);
            w.step(t, client, Some(event), Outcome::ConnectionLoss);
            return;
        }
        let dead = self.session_of[client].filter(|&i| !self.sessions[i].alive);
        if dead.is_some() {
            self.learn_lost(w, t, client, Some(event));
            return;
        }
        w.drop_belief(t, client, SpanEnd::Released);
        let node = self.node_of(client);
        let own = node.is_some();
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
        if let Some(k) = node {
            self.txn(t, ZxidCause::DeleteNode, Some(client));
            self.delete_node(w, t, k, ZkNodeEnd::Deleted);
            if let Some(i) = self.session_of[client] {
                self.touch(w, t, i);
            }
            self.wake_waiters(w, t);
        }
    }

    /// The ensemble's record, with what is still open closed at the run's end.
    pub fn finish(mut self, end_ms: u64) -> ZkTrace {
        for w in &mut self.out.waits {
            if w.end == ZkWaitEnd::Open {
                w.end_ms = end_ms.max(w.start_ms);
            }
        }
        self.out
    }

    /// The ensemble's settings, with nothing done yet.
    pub fn settings(&self) -> ZkTrace {
        self.out.clone()
    }
}
