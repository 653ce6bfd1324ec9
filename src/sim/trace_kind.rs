//! Which lock service a run used, as the trace records it (`Trace::service`), and the same
//! answer as a build can meet it, to `match` on.

use serde::Serialize;

/// Which lock service a run used: `single` (one Redis), `redlock`, `etcd`, `advisory`,
/// `zookeeper` or `lease` (a database lease row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceKind {
    Single,
    Redlock,
    Etcd,
    Advisory,
    Zookeeper,
    Lease,
}

impl ServiceKind {
    /// The kind, for a `match` whose arms the compiler lists for a new service. Never etcd,
    /// advisory, ZooKeeper or a lease in the first stage's build, whose reader refuses them: there
    /// their arms (and every `Trace::is_etcd` branch) go out of the first download.
    pub fn in_this_build(self) -> ServiceKind {
        let full_only = matches!(
            self,
            ServiceKind::Etcd | ServiceKind::Advisory | ServiceKind::Zookeeper | ServiceKind::Lease
        );
        if cfg!(feature = "first-stage") && full_only {
            return ServiceKind::Single;
        }
        self
    }
}
