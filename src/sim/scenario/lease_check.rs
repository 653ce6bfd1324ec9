//! What the rest of a scenario may ask of a database lease row: no compare-and-set on a random value (the row has none), no bare
//! DEL (the release is an `UPDATE` guarded by holder and generation). Apart from `validate.rs`
//! so that each stays short.

use super::error::ScenarioError;
use super::limits as lim;
use super::types::{Event, Lease, LeaseEvent, ReleaseKind, Scenario};
use crate::sim::account::FenceRule;

fn refuse(path: String, why: &str) -> Result<(), ScenarioError> {
    Err(ScenarioError::new(path, why.to_string()))
}

impl Scenario {
    /// The lease row, and what the rest of the scenario may ask of it.
    pub(super) fn validate_lease(&self, l: &Lease) -> Result<(), ScenarioError> {
        self.no_create_guard()?;
        self.no_in_transaction()?;
        for (j, LeaseEvent::Failover { at_ms }) in l.events.iter().enumerate() {
            if !lim::AT_MS.allows(i128::from(*at_ms)) {
                return Err(ScenarioError::new(
                    format!("lock.lease.events[{j}].atMs"),
                    lim::AT_MS.refuse(i128::from(*at_ms)),
                ));
            }
        }
        if self.storage.fence_rule == FenceRule::CasValue {
            return refuse(
                "storage.fenceRule".into(),
                "cas_value compares a Redis lock's random value; a lease row has none: compare \
                 its generation (strict or non_decreasing), or use storage.leaseGuard",
            );
        }
        for (i, c) in self.clients.iter().enumerate() {
            for (j, ev) in c.events.iter().enumerate() {
                if let Event::Release {
                    mode: ReleaseKind::BareDel,
                    ..
                } = ev
                {
                    return refuse(
                        format!("clients[{i}].events[{j}].mode"),
                        "a lease row is released by an UPDATE guarded by holder and \
                         generation; there is no bare DEL",
                    );
                }
            }
        }
        Ok(())
    }
}
