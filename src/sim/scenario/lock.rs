//! The lock's settings and the lock service a scenario runs against, one of six, and the way
//! they are written: the JSON format keeps each service's settings under its own key of `lock`
//! (`redlock`, `etcd`, `advisory`, `zookeeper`, `lease`; none for one Redis), in that order, as every
//! saved scenario and link has them. The reader (`read.rs`) refuses a `lock` that names two.

use super::advisory::{Advisory, ServerEvent};
use super::etcd::{Etcd, MemberEvent};
use super::lease::{Lease, LeaseEvent};
use super::redlock::{InstanceEvent, Redlock};
use super::zookeeper::{ZkEvent, Zookeeper};
use crate::sim::clock::ClockSpec;
use serde::Serialize;

/// The lock's settings: what every service reads (the TTL, the first fence, the watchdog, the
/// single instance's clock) and the one service the scenario runs against. Written as the
/// JSON format has it (`LockWire` below): the service's settings under its own key, none for
/// one Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockSettings {
    pub ttl_ms: u64,
    pub first_fence: u64,
    /// Whether the service mints a fence with each grant; plain Redis answers only OK or nil.
    pub fencing: bool,
    /// Start a watchdog (renew every TTL/2) with every grant.
    pub watchdog: bool,
    /// The single Redis instance's clock, or the lease database's (`now()`); unused by the
    /// other services.
    pub clock: ClockSpec,
    /// The lock service, with its own settings: one per scenario.
    pub service: LockService,
}

fn default_ttl_ms() -> u64 {
    30
}
fn default_first_fence() -> u64 {
    33
}
impl Default for LockSettings {
    fn default() -> Self {
        LockSettings {
            ttl_ms: default_ttl_ms(),
            first_fence: default_first_fence(),
            fencing: true,
            watchdog: false,
            clock: ClockSpec::default(),
            service: LockService::Redis,
        }
    }
}

/// The lock service a scenario runs against, each with only its own settings. A scenario holds
/// exactly one, so every question "which service?" is a `match` the compiler checks: a new
/// service's variant lists the places that must answer for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LockService {
    /// One Redis instance (`SET NX PX`); the JSON has no service key for it.
    #[default]
    Redis,
    /// Redlock over independent instances (`lock.redlock`); `LockSettings::clock` is unused.
    Redlock(Redlock),
    /// An etcd cluster (`lock.etcd`); neither `clock` nor `watchdog` applies: sessions keep
    /// themselves alive. The first stage's reader refuses it.
    Etcd(Etcd),
    /// A PostgreSQL advisory lock (`lock.advisory`): no TTL, no fence, no watchdog; the lock
    /// lasts as long as the session or the transaction. The first stage's reader refuses it.
    Advisory(Advisory),
    /// A ZooKeeper ensemble running the lock recipe (`lock.zookeeper`; `ttlMs` is the session
    /// timeout the client asks for; no watchdog: the client pings). The first stage's reader
    /// refuses it.
    Zookeeper(Zookeeper),
    /// A database lease row with a generation column (`lock.lease`): `ttlMs` is the lease's
    /// duration, `firstFence` the first generation, `clock` the database's. The first stage's
    /// reader refuses it.
    Lease(Lease),
}

/// `LockSettings` as the JSON format writes it: the service under its own key (absent for one
/// Redis), the keys in the order every saved scenario and link has them. The first stage's
/// build, which reads no etcd, advisory or ZooKeeper scenario, has no code to write them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LockWire<'a> {
    ttl_ms: u64,
    first_fence: u64,
    fencing: bool,
    watchdog: bool,
    clock: &'a ClockSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    redlock: Option<&'a Redlock>,
    #[cfg(not(feature = "first-stage"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    etcd: Option<&'a Etcd>,
    #[cfg(not(feature = "first-stage"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    advisory: Option<&'a Advisory>,
    #[cfg(not(feature = "first-stage"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    zookeeper: Option<&'a Zookeeper>,
    #[cfg(not(feature = "first-stage"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    lease: Option<&'a Lease>,
}

impl Serialize for LockSettings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LockWire {
            ttl_ms: self.ttl_ms,
            first_fence: self.first_fence,
            fencing: self.fencing,
            watchdog: self.watchdog,
            clock: &self.clock,
            redlock: self.redlock(),
            #[cfg(not(feature = "first-stage"))]
            etcd: self.etcd(),
            #[cfg(not(feature = "first-stage"))]
            advisory: self.advisory(),
            #[cfg(not(feature = "first-stage"))]
            zookeeper: self.zookeeper(),
            #[cfg(not(feature = "first-stage"))]
            lease: self.lease(),
        }
        .serialize(serializer)
    }
}

impl LockSettings {
    /// Redlock's settings, when the service is Redlock.
    pub fn redlock(&self) -> Option<&Redlock> {
        match &self.service {
            LockService::Redlock(r) => Some(r),
            _ => None,
        }
    }

    /// The etcd cluster, when the service is etcd.
    pub fn etcd(&self) -> Option<&Etcd> {
        match &self.service {
            LockService::Etcd(e) => Some(e),
            _ => None,
        }
    }

    /// The advisory lock's settings, when the service is a PostgreSQL advisory lock.
    pub fn advisory(&self) -> Option<&Advisory> {
        match &self.service {
            LockService::Advisory(a) => Some(a),
            _ => None,
        }
    }

    /// The ensemble's settings, when the service is ZooKeeper.
    pub fn zookeeper(&self) -> Option<&Zookeeper> {
        match &self.service {
            LockService::Zookeeper(z) => Some(z),
            _ => None,
        }
    }

    /// The lease row's settings, when the service is a database lease.
    pub fn lease(&self) -> Option<&Lease> {
        match &self.service {
            LockService::Lease(l) => Some(l),
            _ => None,
        }
    }

    pub fn redlock_mut(&mut self) -> Option<&mut Redlock> {
        match &mut self.service {
            LockService::Redlock(r) => Some(r),
            _ => None,
        }
    }

    pub fn etcd_mut(&mut self) -> Option<&mut Etcd> {
        match &mut self.service {
            LockService::Etcd(e) => Some(e),
            _ => None,
        }
    }

    pub fn advisory_mut(&mut self) -> Option<&mut Advisory> {
        match &mut self.service {
            LockService::Advisory(a) => Some(a),
            _ => None,
        }
    }

    pub fn zookeeper_mut(&mut self) -> Option<&mut Zookeeper> {
        match &mut self.service {
            LockService::Zookeeper(z) => Some(z),
            _ => None,
        }
    }

    pub fn lease_mut(&mut self) -> Option<&mut Lease> {
        match &mut self.service {
            LockService::Lease(l) => Some(l),
            _ => None,
        }
    }
}

impl LockService {
    /// The key the service's settings go under in `lock` (none for one Redis).
    pub fn key(&self) -> Option<&'static str> {
        match self {
            LockService::Redis => None,
            LockService::Redlock(_) => Some("redlock"),
            LockService::Etcd(_) => Some("etcd"),
            LockService::Advisory(_) => Some("advisory"),
            LockService::Zookeeper(_) => Some("zookeeper"),
            LockService::Lease(_) => Some("lease"),
        }
    }

    /// How many timed events the service's own servers have (instances', members', the
    /// PostgreSQL server's, the ensemble's), toward the scenario's total.
    pub fn event_count(&self) -> usize {
        match self {
            LockService::Redis => 0,
            LockService::Redlock(r) => r.instances.iter().map(|i| i.events.len()).sum(),
            LockService::Etcd(e) => e.members.iter().map(|m| m.events.len()).sum(),
            LockService::Advisory(a) => a.events.len(),
            LockService::Zookeeper(z) => z.events.len(),
            LockService::Lease(l) => l.events.len(),
        }
    }

    /// The last instant any of the service's own events occupies (0 when it has none).
    pub fn events_end_ms(&self) -> u64 {
        match self {
            LockService::Redis => 0,
            LockService::Redlock(r) => r
                .instances
                .iter()
                .flat_map(|i| i.events.iter().map(InstanceEvent::end_ms))
                .fold(0, u64::max),
            LockService::Etcd(e) => e
                .members
                .iter()
                .flat_map(|m| m.events.iter().map(MemberEvent::end_ms))
                .fold(0, u64::max),
            LockService::Advisory(a) => a.events.iter().map(ServerEvent::at_ms).fold(0, u64::max),
            LockService::Zookeeper(z) => z.events.iter().map(ZkEvent::end_ms).fold(0, u64::max),
            LockService::Lease(l) => l.events.iter().map(LeaseEvent::at_ms).fold(0, u64::max),
        }
    }
}
