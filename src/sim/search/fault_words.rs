//! A fault in words, for the one-line summary and "found by search": "A paused by GC for
//! 31 ms at 4 ms".

use super::fault::Fault;
use crate::sim::scenario::{Event, Scenario};

impl Fault {
    /// The fault in words: "A paused by GC for 31 ms at 4 ms".
    pub fn text(&self, s: &Scenario) -> String {
        let client = |c: &usize| s.clients.get(*c).map_or("?", |c| c.name.as_str());
        let instance = |i: &usize| {
            s.lock
                .redlock()
                .and_then(|r| r.instances.get(*i))
                .map_or("?", |i| i.name.as_str())
        };
        match self {
            Fault::Pause {
                client: c,
                at_ms,
                duration_ms,
                cause,
            } => format!(
                "{} paused by {} for {duration_ms} ms at {at_ms} ms",
                client(c),
                cause.label()
            ),
            Fault::Delay {
                client: c,
                event,
                delay_ms,
            } => {
                let at = s
                    .clients
                    .get(*c)
                    .and_then(|cl| cl.events.get(*event))
                    .map_or(0, Event::at_ms);
                format!(
                    "{}'s debit at {at} ms held in the network for {delay_ms} ms",
                    client(c)
                )
            }
            Fault::ClientClockJump {
                client: c,
                at_ms,
                by_ms,
            } => format!("{}'s clock jumped {by_ms:+} ms at {at_ms} ms", client(c)),
            Fault::LockClockJump {
                instance: i,
                at_ms,
                by_ms,
            } => format!(
                "{}'s clock jumped {by_ms:+} ms at {at_ms} ms",
                i.as_ref().map_or("the lock", instance)
            ),
            Fault::InstanceCrash {
                instance: i,
                at_ms,
                down_ms,
                persistent,
            } => format!(
                "{} crashed at {at_ms} ms for {down_ms} ms ({})",
                instance(i),
                if *persistent {
                    "keys kept"
                } else {
                    "keys lost"
                }
            ),
            Fault::Partition {
                at_ms,
                duration_ms,
                client: Some(c),
                ..
            } if s.lock.zookeeper().is_some() => format!(
                "{} cut off from the ZooKeeper ensemble for {duration_ms} ms at {at_ms} ms",
                client(c)
            ),
            Fault::Partition {
                instance: i,
                at_ms,
                duration_ms,
                client: c,
            } => format!(
                "{} cut off from {} for {duration_ms} ms at {at_ms} ms",
                instance(i),
                c.as_ref().map_or("every client", client)
            ),
            Fault::ClientCrash { client: c, at_ms } => {
                format!("{} crashed at {at_ms} ms", client(c))
            }
            Fault::Failover { at_ms } => {
                format!("PostgreSQL failed over to a standby at {at_ms} ms")
            }
        }
    }
}
