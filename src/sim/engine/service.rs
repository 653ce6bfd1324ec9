//! The lock service a run uses, chosen from the scenario: a single Redis, Redlock, etcd, a
//! PostgreSQL advisory lock, ZooKeeper or a database lease row. The engine asks it what only some services answer (who waits in
//! a lock call) through the methods here, so no step asks which service it runs against.

use super::advisory::AdvisoryService;
use super::etcd::EtcdService;
use super::instance::Inst;
use super::lease::LeaseService;
use super::queue::Item;
use super::redlock::Redlock;
use super::single::Single;
use super::world::{self, World};
use super::zookeeper::ZkService;
use crate::sim::scenario::{LockService, ReleaseKind, Scenario};
use crate::sim::trace::{Outcome, ServiceKind, Trace};

/// The lock service a scenario runs against.
pub(super) enum Service {
    Single(Box<Single>),
    Redlock(Redlock),
    Etcd(Box<EtcdService>),
    Advisory(Box<AdvisoryService>),
    Zookeeper(Box<ZkService>),
    Lease(Box<LeaseService>),
}

impl Service {
    pub(super) fn instances(&self) -> &[Inst] {
        match self {
            Service::Single(x) => x.instances(),
            Service::Redlock(r) => r.instances(),
            Service::Etcd(_) | Service::Advisory(_) | Service::Zookeeper(_) | Service::Lease(_) => {
                &[]
            }
        }
    }

    pub(super) fn instance_mut(&mut self, i: usize) -> Option<&mut Inst> {
        match self {
            Service::Single(x) => (i == 0).then(|| x.instance_mut()),
            Service::Redlock(r) => r.instance_mut(i),
            Service::Etcd(_) | Service::Advisory(_) | Service::Zookeeper(_) | Service::Lease(_) => {
                None
            }
        }
    }

    /// Whether the client is blocked in a lock call (its other steps wait with it).
    pub(super) fn is_waiting(&self, client: usize) -> bool {
        match self {
            Service::Etcd(x) => x.is_waiting(client),
            Service::Advisory(x) => x.is_waiting(client),
            Service::Zookeeper(x) => x.is_waiting(client),
            Service::Lease(x) => x.is_waiting(client),
            Service::Single(_) | Service::Redlock(_) => false,
        }
    }

    pub(super) fn block(&mut self, client: usize, item: Item) {
        match self {
            Service::Etcd(x) => x.block(client, item),
            Service::Advisory(x) => x.block(client, item),
            Service::Zookeeper(x) => x.block(client, item),
            Service::Lease(x) => x.block(client, item),
            Service::Single(_) | Service::Redlock(_) => {}
        }
    }
}

impl Service {
    /// A watchdog's renewal, an etcd keepalive or a ZooKeeper ping falls due (its loop goes on
    /// while the client keeps its session).
    pub(super) fn tick(&mut self, w: &mut World, t: u64, client: usize) {
        match self {
            Service::Single(x) => x.tick(w, t, client),
            Service::Redlock(r) => r.start_extend(w, t, client, None),
            Service::Etcd(x) => {
                if x.keepalive(w, t, client, None) {
                    x.next_keepalive(w, t, client);
                }
            }
            // Validation refuses a watchdog on an advisory lock: it has no TTL.
            Service::Advisory(_) => {}
            Service::Zookeeper(x) => {
                if x.ping(w, t, client) {
                    x.next_ping(w, t, client);
                }
            }
            Service::Lease(x) => x.tick(w, t, client),
        }
    }

    /// The server's settings, for the steps' words, before anything ran (`finish` writes
    /// what it did).
    pub(super) fn write_settings(&self, trace: &mut Trace) {
        match self {
            Service::Advisory(x) => trace.advisory = Some(x.settings()),
            Service::Zookeeper(x) => trace.zookeeper = Some(x.settings()),
            Service::Lease(x) => trace.lease = Some(x.settings()),
            Service::Single(_) | Service::Redlock(_) | Service::Etcd(_) => {}
        }
    }

    /// Whether the client keeps its write back (ZooKeeper's SUSPENDED, with the stop-writing
    /// policy); if so, the step says why.
    pub(super) fn held_back(&self, w: &mut World, t: u64, client: usize, event: usize) -> bool {
        let Service::Zookeeper(x) = self else {
            return false;
        };
        let Some(state) = x.holds_back(client) else {
            return false;
        };
        w.step(t, client, Some(event), Outcome::WriteHeldBack { state });
        true
    }

    /// `isHeld()` as the service answers it at `t`: a Redis majority's live keys, etcd's key,
    /// the advisory lock's session, ZooKeeper's node.
    pub(super) fn holds(&self, w: &World, t: u64, client: usize) -> bool {
        match self {
            Service::Etcd(x) => x.holds(client),
            Service::Advisory(x) => x.holds(client),
            Service::Zookeeper(x) => x.holds(client),
            Service::Lease(x) => x.holds(w, t, client),
            Service::Single(_) | Service::Redlock(_) => {
                let name = &w.s.clients[client].name;
                let holding = self
                    .instances()
                    .iter()
                    .filter(|i| i.holds(&w.s.key, name, client, t))
                    .count();
                holding >= w.trace.majority
            }
        }
    }
}

impl Service {
    /// The client's lock call (`due`: when it first fell due, before a pause deferred it).
    pub(super) fn acquire(&mut self, w: &mut World, t: u64, due: u64, c: usize, event: usize) {
        match self {
            Service::Single(x) => x.acquire(w, t, c, event),
            Service::Redlock(r) => r.start_attempt(w, t, c, Some(event), 1),
            Service::Etcd(x) => x.acquire(w, t, due, c, event),
            Service::Advisory(x) => x.acquire(w, t, c, event),
            Service::Zookeeper(x) => x.acquire(w, t, c, event),
            Service::Lease(x) => x.acquire(w, t, c, event),
        }
    }

    /// The client's renewal. Validation refuses one on an advisory lock (it has no TTL) and
    /// on ZooKeeper (the client pings).
    pub(super) fn renew(&mut self, w: &mut World, t: u64, client: usize, event: usize) {
        match self {
            Service::Single(x) => {
                x.renew(w, t, client, Some(event));
            }
            Service::Redlock(r) => {
                r.start_extend(w, t, client, Some(event));
            }
            Service::Etcd(x) => {
                x.keepalive(w, t, client, Some(event));
            }
            Service::Lease(x) => {
                x.renew(w, t, client, Some(event));
            }
            Service::Advisory(_) | Service::Zookeeper(_) => {}
        }
    }

    /// The client's release (`mode` matters to Redis only).
    pub(super) fn release(
        &mut self,
        w: &mut World,
        t: u64,
        due: u64,
        (client, event): (usize, usize),
        mode: ReleaseKind,
    ) {
        match self {
            Service::Single(x) => x.release(w, t, client, event, mode),
            Service::Redlock(r) => r.release_all(w, t, client, event, mode),
            Service::Etcd(x) => x.release(w, t, due, client, event),
            Service::Advisory(x) => x.release(w, t, client, event),
            Service::Zookeeper(x) => x.release(w, t, client, event),
            Service::Lease(x) => x.release(w, t, client, event),
        }
    }

    /// The client's process is about to die: what the service drops with it first (an etcd
    /// session's keepalives, a ZooKeeper session's pings, a lease waiter's watch).
    pub(super) fn crashing(&mut self, w: &mut World, t: u64, client: usize) {
        match self {
            Service::Etcd(x) => x.crashed(w, t, client),
            Service::Zookeeper(x) => x.crashed(w, t, client),
            Service::Lease(x) => x.crashed(t, client),
            Service::Single(_) | Service::Redlock(_) | Service::Advisory(_) => {}
        }
    }
}

impl Service {
    /// The service of `s`, its kind, its instances' names and the majority it needs.
    pub(super) fn choose(s: &Scenario) -> (Service, ServiceKind, Vec<String>, usize) {
        let single = || {
            (
                Service::Single(Box::new(Single::new(s))),
                ServiceKind::Single,
                vec!["lock".to_string()],
                1,
            )
        };
        // An etcd, advisory or ZooKeeper service is `None` only in the first stage's build,
        // whose reader and `validate` refuse them: its stubs have no value.
        match &s.lock.service {
            LockService::Redis => single(),
            LockService::Redlock(r) => (
                Service::Redlock(Redlock::new(s, r)),
                ServiceKind::Redlock,
                r.instances.iter().map(|i| i.name.clone()).collect(),
                r.majority(),
            ),
            LockService::Etcd(e) => match EtcdService::new(s, e, world::run_limit(s)) {
                Some(x) => (
                    Service::Etcd(Box::new(x)),
                    ServiceKind::Etcd,
                    vec!["etcd".to_string()],
                    1,
                ),
                None => single(),
            },
            LockService::Advisory(a) => match AdvisoryService::new(s, a) {
                Some(x) => (
                    Service::Advisory(Box::new(x)),
                    ServiceKind::Advisory,
                    vec!["postgres".to_string()],
                    1,
                ),
                None => single(),
            },
            LockService::Zookeeper(z) => match ZkService::new(s, z) {
                Some(x) => (
                    Service::Zookeeper(Box::new(x)),
                    ServiceKind::Zookeeper,
                    vec!["zookeeper".to_string()],
                    1,
                ),
                None => single(),
            },
            LockService::Lease(l) => match LeaseService::new(s, l) {
                Some(x) => (
                    Service::Lease(Box::new(x)),
                    ServiceKind::Lease,
                    vec!["database".to_string()],
                    1,
                ),
                None => single(),
            },
        }
    }
}
