//! Which of the page's lock controls each lock service takes, decided in one place: the TTL,
//! the first fence, the watchdog, a renewal, a bare `DEL` and the storage's compare-and-set on
//! the lock's value. The page offers a control exactly when its service answers
//! `Offer::Offered`; validation refuses a scenario that uses one its service answers
//! `Offer::Refused` for (the tests below hold the two together); and a control the service
//! does not ask the client for (`Offer::NotAsked`: an advisory lock has no TTL, etcd's
//! revision and ZooKeeper's zxid are the server's own counters) is neither shown nor refused.
//! Every answer is a `match` on the service and then on the control, so a new service, or a new
//! control, does not compile until it has decided.

use super::lock::LockService;

/// A lock control the page may offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// `lock.ttlMs`: a lease's TTL (ZooKeeper: the session timeout the client asks for).
    Ttl,
    /// `lock.firstFence`: the fence of the first grant.
    FirstFence,
    /// `lock.watchdog` and a client's `watchdog` event: renew every TTL/2.
    Watchdog,
    /// A client's `renew` event.
    Renew,
    /// A `release` of mode `bare_del`: delete the key whoever holds it.
    BareDel,
    /// `storage.fenceRule: cas_value`: the storage compares the lock's random value.
    CasValue,
}

impl Control {
    pub const ALL: [Control; 6] = [
        Control::Ttl,
        Control::FirstFence,
        Control::Watchdog,
        Control::Renew,
        Control::BareDel,
        Control::CasValue,
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// What a service answers for a control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The page offers it.
    Offered,
    /// Validation refuses a scenario that uses it; the page does not offer it.
    Refused,
    /// The service does not ask the client for it: validation accepts any value (the run
    /// ignores it, or starts the server's own counter at it), and the page does not offer it.
    NotAsked,
}

/// The controls a service offers, as a set small enough to be a component's prop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offers(u8);

impl Offers {
    pub fn has(self, c: Control) -> bool {
        self.0 & c.bit() != 0
    }
}

impl LockService {
    /// What this service answers for `c`: the one place that decides it.
    pub fn offer(&self, c: Control) -> Offer {
        use Control::*;
        use Offer::*;
        match self {
            // A Redis key (one instance's or each of Redlock's) takes every control: it has a
            // TTL, the service mints fences from a counter the setup seeds, a holder can extend
            // it by hand or by a watchdog, a bare `DEL` deletes it, and its value is random.
            LockService::Redis | LockService::Redlock(_) => match c {
                Ttl | FirstFence | Watchdog | Renew | BareDel | CasValue => Offered,
            },
            // An etcd session's lease has a TTL and a renewal (a keepalive), but keeps itself
            // alive (no watchdog); an unlock deletes the caller's own key (no bare `DEL`); the
            // token is the key's create revision, the cluster's counter (no first fence, no
            // lock value to compare).
            LockService::Etcd(_) => match c {
                Ttl | Renew => Offered,
                FirstFence => NotAsked,
                Watchdog | BareDel | CasValue => Refused,
            },
            // An advisory lock lasts as long as its session: no TTL, nothing to renew, no
            // fence, no value; `pg_advisory_unlock` frees only the caller's own lock.
            LockService::Advisory(_) => match c {
                Ttl | FirstFence => NotAsked,
                Watchdog | Renew | BareDel | CasValue => Refused,
            },
            // ZooKeeper's TTL is the session timeout the client asks for; its pings keep the
            // session (no watchdog, no renewal); the recipe deletes the client's own node; the
            // token is the node's czxid, the ensemble's counter.
            LockService::Zookeeper(_) => match c {
                Ttl => Offered,
                FirstFence => NotAsked,
                Watchdog | Renew | BareDel | CasValue => Refused,
            },
            // A lease row has a TTL (its expiry), a first generation the row is inserted with,
            // and a renewal by hand or by a watchdog (an UPDATE guarded by holder and
            // generation); a release is guarded the same way (no bare `DEL`), and the row holds
            // no random value to compare.
            LockService::Lease(_) => match c {
                Ttl | FirstFence | Watchdog | Renew => Offered,
                BareDel | CasValue => Refused,
            },
        }
    }

    /// Whether the page offers `c` for this service.
    pub fn offers(&self, c: Control) -> bool {
        self.offer(c) == Offer::Offered
    }

    /// Every control the page offers for this service.
    pub fn offered(&self) -> Offers {
        Offers(
            Control::ALL
                .into_iter()
                .filter(|&c| self.offers(c))
                .map(Control::bit)
                .fold(0, |a, b| a | b),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Control::*;
    use super::Offer::*;
    use super::*;
    use crate::sim::scenario::{Advisory, Etcd, Instance, Lease, Redlock, Zookeeper};

    fn services() -> [(&'static str, LockService); 6] {
        let instances = (1..=3)
            .map(|i| Instance {
                name: format!("R{i}"),
                clock: Default::default(),
                latency_ms: 1,
                events: Vec::new(),
            })
            .collect();
        [
            ("redis", LockService::Redis),
            (
                "redlock",
                LockService::Redlock(Redlock::standard(instances)),
            ),
            ("etcd", LockService::Etcd(Etcd::cluster(3))),
            ("advisory", LockService::Advisory(Advisory::default())),
            ("zookeeper", LockService::Zookeeper(Zookeeper::default())),
            ("lease", LockService::Lease(Lease::default())),
        ]
    }

    /// Every service × every control, as the page is meant to show them.
    #[test]
    fn every_service_answers_for_every_control() {
        let table: [(&str, [Offer; 6]); 6] = [
            // Ttl, FirstFence, Watchdog, Renew, BareDel, CasValue
            (
                "redis",
                [Offered, Offered, Offered, Offered, Offered, Offered],
            ),
            (
                "redlock",
                [Offered, Offered, Offered, Offered, Offered, Offered],
            ),
            (
                "etcd",
                [Offered, NotAsked, Refused, Offered, Refused, Refused],
            ),
            (
                "advisory",
                [NotAsked, NotAsked, Refused, Refused, Refused, Refused],
            ),
            (
                "zookeeper",
                [Offered, NotAsked, Refused, Refused, Refused, Refused],
            ),
            (
                "lease",
                [Offered, Offered, Offered, Offered, Refused, Refused],
            ),
        ];
        for ((name, service), (row, answers)) in services().into_iter().zip(table) {
            assert_eq!(name, row);
            for (c, want) in Control::ALL.into_iter().zip(answers) {
                assert_eq!(service.offer(c), want, "{name} {c:?}");
                assert_eq!(service.offers(c), want == Offered, "{name} {c:?}");
                assert_eq!(service.offered().has(c), want == Offered, "{name} {c:?}");
            }
        }
    }

    #[test]
    fn the_set_of_offers_holds_each_control_apart() {
        let bits: Vec<u8> = Control::ALL.iter().map(|c| c.bit()).collect();
        for (i, b) in bits.iter().enumerate() {
            assert_eq!(b.count_ones(), 1);
            assert!(!bits[..i].contains(b), "{:?}", Control::ALL[i]);
        }
        assert!(Control::ALL.iter().all(|&c| !Offers::default().has(c)));
    }

    /// For every service and every control, a scenario that uses the control validates
    /// exactly when the service does not refuse it; the one that does not validates too.
    #[cfg(not(feature = "first-stage"))]
    #[test]
    fn validation_refuses_exactly_what_a_service_refuses() {
        use crate::sim::account::FenceRule;
        use crate::sim::presets::default_scenario;
        use crate::sim::scenario::{Event, ReleaseKind, Scenario};
        for (name, service) in services() {
            let mut base = default_scenario();
            base.lock.watchdog = false;
            base.lock.ttl_ms = 30;
            base.lock.fencing = !matches!(service, LockService::Advisory(_));
            base.lock.service = service.clone();
            base.storage.fence_rule = FenceRule::Off;
            base.clients.truncate(1);
            base.clients[0].events = vec![Event::Acquire { at_ms: 0 }];
            assert_eq!(base.validate(), Ok(()), "{name}: {base:?}");
            let with = |change: &dyn Fn(&mut Scenario)| {
                let mut s = base.clone();
                change(&mut s);
                s
            };
            let event = |e: Event| with(&|s| s.clients[0].events.push(e.clone()));
            for c in Control::ALL {
                // Each way a scenario can use the control: a setting, an event, or both.
                let uses: Vec<Scenario> = match c {
                    Ttl => vec![with(&|s| s.lock.ttl_ms = 45)],
                    FirstFence => vec![with(&|s| s.lock.first_fence = 1)],
                    Watchdog => vec![
                        with(&|s| s.lock.watchdog = true),
                        event(Event::Watchdog { at_ms: 1 }),
                    ],
                    Renew => vec![event(Event::Renew { at_ms: 5 })],
                    BareDel => vec![event(Event::Release {
                        at_ms: 5,
                        mode: ReleaseKind::BareDel,
                    })],
                    CasValue => vec![with(&|s| s.storage.fence_rule = FenceRule::CasValue)],
                };
                for s in uses {
                    assert_eq!(
                        s.validate().is_ok(),
                        service.offer(c) != Refused,
                        "{name} {c:?}: {:?}",
                        s.validate()
                    );
                }
            }
        }
    }
}
