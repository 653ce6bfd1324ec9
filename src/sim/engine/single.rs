//! A single Redis as the lock service: one instance, no latency, every call answered at once.
//! Acquire is `SET NX PX`, renew moves the expiry for the live owner, release is a
//! token-checked script or a bare `DEL`, and a watchdog renews every TTL/2 until it fails.

use super::instance::{release_mode, Inst};
use super::world::World;
use crate::sim::lease::{LockError, Released};
use crate::sim::scenario::{ReleaseKind, Scenario};
use crate::sim::trace::{Outcome, SpanEnd, Target};

pub struct Single {
    inst: Inst,
}

impl Single {
    pub fn new(s: &Scenario) -> Single {
        Single {
            inst: Inst::single(s),
        }
    }

    pub fn instances(&self) -> &[Inst] {
        std::slice::from_ref(&self.inst)
    }

    pub fn instance_mut(&mut self) -> &mut Inst {
        &mut self.inst
    }

    pub fn acquire(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        let now = self.inst.clock.local(t);
        let name = w.name(client);
        w.message(client, Some(event), Target::Lock, "acquire", t, t);
        match self.inst.table.acquire(&w.s.key, &name, now) {
            Ok(lease) => {
                let end_ms = w.record_grant((0, &self.inst), t, client, &lease, lease.generation);
                // The client measures validity from when it sent the request, by its own clock.
                let deadline_local = w.clocks[client]
                    .local(t)
                    .saturating_add(self.inst.table.ttl_ms());
                w.believe(t, client, lease.fence, lease.generation, deadline_local);
                w.step(
                    t,
                    client,
                    Some(event),
                    Outcome::Granted {
                        fence: lease.fence,
                        lease_until_ms: end_ms,
                    },
                );
                if w.s.lock.watchdog {
                    w.start_watchdog(t, client);
                }
            }
            Err(e) => {
                let holder = match e {
                    LockError::Held { holder } => holder,
                    LockError::NotOwner { holder } => holder.unwrap_or_default(),
                };
                w.step(t, client, Some(event), Outcome::Denied { holder });
            }
        }
    }

    /// Renews the client's lease; `event` is `None` for a watchdog's renewal.
    pub fn renew(&mut self, w: &mut World, t: u64, client: usize, event: Option<usize>) -> bool {
        let now = self.inst.clock.local(t);
        let name = w.name(client);
        let by_watchdog = event.is_none();
        if !by_watchdog {
            w.message(client, event, Target::Lock, "renew", t, t);
        }
        match self.inst.table.renew(&w.s.key, &name, now) {
            Ok(lease) => {
                let end_ms = w.record_renewal((0, &self.inst), t, client, &lease);
                let deadline_local = w.clocks[client]
                    .local(t)
                    .saturating_add(self.inst.table.ttl_ms());
                w.extend_belief(t, client, deadline_local);
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
            Err(e) => {
                let holder = match e {
                    LockError::NotOwner { holder } => holder,
                    LockError::Held { holder } => Some(holder),
                };
                w.step(
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

    /// A watchdog's turn: renew, and schedule the next turn only while renewals succeed.
    pub fn tick(&mut self, w: &mut World, t: u64, client: usize) {
        if self.renew(w, t, client, None) {
            w.next_tick(t, client);
        } else {
            // A watchdog that lost the lease has nothing left to renew.
            w.clients[client].watchdog = 0;
        }
    }

    pub fn release(
        &mut self,
        w: &mut World,
        t: u64,
        client: usize,
        event: usize,
        mode: ReleaseKind,
    ) {
        let now = self.inst.clock.local(t);
        let name = w.name(client);
        let generation = self.inst.table.live(&w.s.key, now).map(|l| l.generation);
        w.message(client, Some(event), Target::Lock, "release", t, t);
        let result = self
            .inst
            .table
            .release(&w.s.key, &name, release_mode(mode), now);
        let (own, deleted) = match &result {
            Released::Own => (true, Some(name.clone())),
            Released::Other { victim } => (false, Some(victim.clone())),
            Released::Nothing => (false, None),
        };
        if let (Some(g), Some(_)) = (generation, &deleted) {
            let why = if own {
                SpanEnd::Released
            } else {
                SpanEnd::Deleted
            };
            w.end_grant(g, t, why);
        }
        w.clients[client].watchdog = 0;
        w.drop_belief(t, client, SpanEnd::Released);
        w.step(
            t,
            client,
            Some(event),
            Outcome::Released { mode, deleted, own },
        );
    }
}
