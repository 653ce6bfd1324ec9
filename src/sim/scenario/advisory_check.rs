//! What the rest of a scenario may ask of a PostgreSQL advisory lock: no fence, no watchdog,
//! no renewal, no bare DEL, and one lock service at a time. Apart from `validate.rs` so that
//! each stays short.

use super::error::ScenarioError;
use super::limits as lim;
use super::types::{Advisory, Event, ReleaseKind, Scenario, ServerEvent};
use crate::sim::account::FenceRule;

fn refuse(path: String, why: &str) -> Result<(), ScenarioError> {
    Err(ScenarioError::new(path, why.to_string()))
}

fn within(path: &str, limit: &lim::Limit, n: u64) -> Result<(), ScenarioError> {
    if limit.allows(i128::from(n)) {
        Ok(())
    } else {
        Err(ScenarioError::new(path, limit.refuse(i128::from(n))))
    }
}

impl Scenario {
    /// The advisory lock, and what the rest of the scenario may ask of it.
    pub(super) fn validate_advisory(&self, a: &Advisory) -> Result<(), ScenarioError> {
        within("lock.advisory.lockId", &lim::LOCK_ID, a.lock_id)?;
        within(
            "lock.advisory.keepaliveMs",
            &lim::KEEPALIVE_MS,
            a.keepalive_ms,
        )?;
        let timeouts = [
            (
                "lock.advisory.idleSessionTimeoutMs",
                &lim::IDLE_SESSION_TIMEOUT_MS,
                a.idle_session_timeout_ms,
            ),
            (
                "lock.advisory.idleInTransactionTimeoutMs",
                &lim::IDLE_IN_TRANSACTION_TIMEOUT_MS,
                a.idle_in_transaction_timeout_ms,
            ),
        ];
        for (path, limit, ms) in timeouts {
            within(path, limit, ms.unwrap_or(0))?;
        }
        for (j, ServerEvent::Failover { at_ms }) in a.events.iter().enumerate() {
            within(
                &format!("lock.advisory.events[{j}].atMs"),
                &lim::AT_MS,
                *at_ms,
            )?;
        }
        if self.lock.fencing {
            return refuse(
                "lock.fencing".into(),
                "a PostgreSQL advisory lock mints no fence: set lock.fencing to false, or \
                 put the write inside the lock's transaction (storage.inTransaction)",
            );
        }
        if self.lock.watchdog {
            return refuse(
                "lock.watchdog".into(),
                "an advisory lock has no TTL to renew: it lasts as long as its session",
            );
        }
        if self.storage.fence_rule == FenceRule::CasValue {
            return refuse(
                "storage.fenceRule".into(),
                "cas_value compares a Redis lock's random value; an advisory lock has none \
                 (use off, or storage.inTransaction)",
            );
        }
        for (i, c) in self.clients.iter().enumerate() {
            for (j, ev) in c.events.iter().enumerate() {
                let at = |field: &str| format!("clients[{i}].events[{j}].{field}");
                match ev {
                    Event::Watchdog { .. } | Event::Renew { .. } => {
                        return refuse(
                            at("kind"),
                            "an advisory lock has no TTL to renew: it lasts as long as its \
                             session (or its transaction)",
                        )
                    }
                    Event::Release {
                        mode: ReleaseKind::BareDel,
                        ..
                    } => {
                        return refuse(
                            at("mode"),
                            "pg_advisory_unlock releases only the caller's own lock; there \
                             is no bare DEL",
                        )
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
