//! ZooKeeper as the lock service, running the lock recipe: a client connects (a session, kept
//! alive by a ping every third of its timeout, which stall while its process is paused),
//! creates `/lock/lock-` as an ephemeral sequential node, and holds the lock when its node has
//! the lowest sequence; otherwise it waits for the lower nodes to go. The leader expires a
//! session it has not heard from for the session timeout, rounded up to the next tick, and
//! deletes its nodes in the same transaction. The client learns of that only when it hears
//! from the ensemble again (a ping after its pause, or the reconnection after a partition).
//! A client cut off from the ensemble declares itself disconnected (Curator's SUSPENDED) after
//! two thirds of the timeout without an answer. Every transaction takes the next zxid: a lock
//! node's `czxid` rises with every grant, while its sequence counts the creates under the
//! parent and starts again at 0 when the parent is removed and created again.

use super::queue::{Action, Item, Queue};
use super::world::World;
use crate::sim::planted::{self, Bug};
use crate::sim::scenario::{OnSuspended, ReleaseKind, Scenario, ZkEvent, ZkFence, Zookeeper};
use crate::sim::trace::*;
use crate::sim::words_zk;

/// `Action::Expire`'s instance for a session's expiry, a partition's detection by its client,
/// and a partition's end.
pub(super) const EXPIRY: usize = 0;
pub(super) const DETECT: usize = 1;
pub(super) const HEAL: usize = 2;
/// The first session id the ensemble hands out, in the style of a server with id 1.
pub(super) const FIRST_SESSION: u64 = 0x1000_0a5e_c0de_0000;

pub(super) struct Session {
    pub(super) client: usize,
    pub(super) alive: bool,
    pub(super) expires_at: u64,
}

pub(super) struct Waiter {
    pub(super) event: usize,
    pub(super) wait: usize,
    pub(super) node: usize,
}

pub struct ZkService {
    pub(super) tick: u64,
    pub(super) timeout: u64,
    pub(super) fencing: bool,
    pub(super) fence: ZkFence,
    pub(super) stop_writing: bool,
    /// The last zxid's counter.
    pub(super) zxid: u64,
    /// The next sequential node's suffix: the creates made under the parent so far (a
    /// child's delete does not advance it, as measured on ZooKeeper 3.8).
    pub(super) next_sequence: u64,
    pub(super) parent: bool,
    pub(super) sessions: Vec<Session>,
    pub(super) session_of: Vec<Option<usize>>,
    /// Indices into `out.nodes` of the nodes that exist, oldest first.
    pub(super) live: Vec<usize>,
    /// Per node, its lease span once granted.
    pub(super) span_of: Vec<Option<usize>>,
    pub(super) waiting: Vec<Option<Waiter>>,
    pub(super) blocked: Vec<Vec<Item>>,
    /// Per client, whether it is cut off from the ensemble now.
    pub(super) cut: Vec<bool>,
    /// Per client, its open connection-state span (SUSPENDED or LOST), if any.
    pub(super) state: Vec<Option<usize>>,
    pub(super) events: Vec<ZkEvent>,
    pub(super) out: ZkTrace,
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
            next_sequence: 0,
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

    pub(super) fn node_of(&self, client: usize) -> Option<usize> {
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

    pub(super) fn txn(&mut self, t: u64, cause: ZxidCause, client: Option<usize>) -> u64 {
        self.zxid = self.zxid.saturating_add(1);
        self.out.zxids.push(ZxidMark {
            at_ms: t,
            zxid: self.zxid,
            cause,
            client,
        });
        self.zxid
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
            // The recipe's create fails with NoNode (a failed request takes a zxid too), then
            // it creates the parent and tries again.
            self.parent = true;
            self.next_sequence = 0;
            self.txn(t, ZxidCause::FailedCreate, Some(client));
            self.txn(t, ZxidCause::CreateParent, Some(client));
            self.out.parent.push(ParentMark {
                at_ms: t,
                what: ParentChange::Created,
            });
        }
        let czxid = self.txn(t, ZxidCause::CreateNode, Some(client));
        let sequence = self.next_sequence;
        self.next_sequence = self.next_sequence.saturating_add(1);
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
    pub(super) fn lowest(&self) -> Option<usize> {
        self.live
            .iter()
            .copied()
            .min_by_key(|&k| (self.out.nodes[k].sequence, k))
    }

    pub(super) fn grant(&mut self, w: &mut World, t: u64, k: usize, event: usize) {
        let node = &mut self.out.nodes[k];
        node.granted_ms = Some(t);
        let (client, session, czxid) = (node.client, node.session, node.czxid);
        let fence = self.fencing.then_some(match self.fence {
            // The lab's mutation test may plant the sequence in the czxid's place.
            ZkFence::Czxid if planted::is(Bug::ZkSequence) => node.sequence,
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
        // The trace's record of the ensemble is written when the run ends: the words take the
        // node from here.
        if w.texts {
            let by_sequence = self.fence == ZkFence::Sequence;
            let text = words_zk::granted_as(self.out.nodes.get(k), by_sequence, fence);
            if let Some(step) = w.trace.steps.last_mut() {
                step.text = text;
            }
        }
    }

    /// Deletes node `k` at `t` (its client's unlock, or its session's end).
    pub(super) fn delete_node(&mut self, w: &mut World, t: u64, k: usize, end: ZkNodeEnd) {
        self.live.retain(|&x| x != k);
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
    pub(super) fn wake_waiters(&mut self, w: &mut World, t: u64) {
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

    pub(super) fn end_wait(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        wait: usize,
        end: ZkWaitEnd,
    ) {
        if let Some(span) = self.out.waits.get_mut(wait) {
            span.end_ms = t;
            span.end = end;
        }
        for item in std::mem::take(&mut self.blocked[client]) {
            w.queue.defer(item, t);
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
        // A node still open when the run stopped (its step limit reached) ends with its
        // session's last known expiry, never after it.
        for n in &mut self.out.nodes {
            if n.end == ZkNodeEnd::Open {
                if let Some(s) = self.out.sessions.get(n.session) {
                    n.end_ms = n.end_ms.min(s.end_ms).max(n.created_ms);
                }
            }
        }
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
