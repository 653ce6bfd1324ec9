//! What the rest of a scenario may ask of ZooKeeper: no watchdog and no renewal (the client's
//! pings keep its session alive), no bare DEL, no `cas_value`, and a partition that names a
//! client of the scenario. Apart from `validate.rs` so that each stays short.

use super::error::ScenarioError;
use super::limits as lim;
use super::types::{Event, ReleaseKind, Scenario, ZkEvent, Zookeeper};
use crate::sim::account::FenceRule;

fn refuse(path: String, why: &str) -> Result<(), ScenarioError> {
    Err(ScenarioError::new(path, why.to_string()))
}

fn within(path: String, limit: &lim::Limit, n: u64) -> Result<(), ScenarioError> {
    if limit.allows(i128::from(n)) {
        Ok(())
    } else {
        Err(ScenarioError::new(path, limit.refuse(i128::from(n))))
    }
}

impl Scenario {
    /// The ZooKeeper ensemble, and what the rest of the scenario may ask of it.
    pub(super) fn validate_zookeeper(&self, z: &Zookeeper) -> Result<(), ScenarioError> {
        let l = &self.lock;
        within(
            "lock.zookeeper.tickTimeMs".into(),
            &lim::TICK_TIME_MS,
            z.tick_time_ms,
        )?;
        for (j, e) in z.events.iter().enumerate() {
            let at = |field: &str| format!("lock.zookeeper.events[{j}].{field}");
            within(at("atMs"), &lim::AT_MS, e.at_ms())?;
            if let ZkEvent::Partition {
                duration_ms,
                client,
                ..
            } = e
            {
                within(at("durationMs"), &lim::ZK_PARTITION_MS, *duration_ms)?;
                if !self.clients.iter().any(|c| &c.name == client) {
                    return Err(ScenarioError::new(
                        at("client"),
                        format!("no client is named {client:?}"),
                    ));
                }
            }
        }
        if l.watchdog {
            return refuse(
                "lock.watchdog".into(),
                "ZooKeeper has no watchdog: the client's pings keep its session alive",
            );
        }
        if self.storage.fence_rule == FenceRule::CasValue {
            return refuse(
                "storage.fenceRule".into(),
                "cas_value compares a Redis lock's random value; ZooKeeper's token is the lock \
                 node's czxid (use strict or non_decreasing)",
            );
        }
        for (i, c) in self.clients.iter().enumerate() {
            for (j, ev) in c.events.iter().enumerate() {
                let at = |field: &str| format!("clients[{i}].events[{j}].{field}");
                match ev {
                    Event::Watchdog { .. } | Event::Renew { .. } => {
                        return refuse(
                            at("kind"),
                            "a ZooKeeper session has no lease to renew: the client pings every \
                             third of its session timeout by itself",
                        )
                    }
                    Event::Release {
                        mode: ReleaseKind::BareDel,
                        ..
                    } => {
                        return refuse(
                            at("mode"),
                            "the lock recipe deletes the client's own node; there is no bare \
                             DEL",
                        )
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
