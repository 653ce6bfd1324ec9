//! The lab: replays the playground's scenarios against real Redis, PostgreSQL, etcd and
//! ZooKeeper servers and compares what happened with the model. `servers` starts and stops the
//! servers. Every service runs with independent clients: one OS process per client, the faults
//! done for real (signals, the delaying `proxy`, killed servers) on the shared `clock`. Single
//! lock: `independent` + `client` + `history`; Redlock: `redlock_run` + `redlock_client` (over
//! `redlock_wire`, through the latency and partition proxy `redlock_proxy`), judged by
//! `redlock_history` against `redlock_model`'s reading of the trace; etcd, advisory locks and
//! ZooKeeper: their `*_run`, `*_client` and `*_history`. `check` judges one scenario (rerunning
//! a run whose timing the machine missed or whose events came too close to order) and `report`
//! writes `docs/conformance.md` and the generated `src/sim/conformance.rs` the page reads its
//! "Reproduced" marks from.

pub mod check;
pub mod client;
pub mod clock;
pub mod etcd_client;
pub mod etcd_cluster;
pub mod etcd_history;
pub mod etcd_run;
pub mod gateway;
pub mod history;
pub mod independent;
pub mod input;
pub mod pg;
pub mod pg_client;
pub mod pg_history;
pub mod pg_run;
pub mod proxy;
pub mod random;
pub mod redlock_check;
pub mod redlock_client;
pub mod redlock_history;
pub mod redlock_model;
pub mod redlock_proxy;
pub mod redlock_run;
pub mod redlock_wire;
pub mod report;
pub mod resp;
pub mod servers;
pub mod shim;
pub mod tables;
pub mod zk_client;
pub mod zk_cluster;
pub mod zk_facts;
pub mod zk_history;
pub mod zk_run;

/// A file of the lab crate, for the unit tests: found through `CARGO_MANIFEST_DIR` as cargo sets
/// it when it runs the tests, not as it was when they were built (a target directory shared
/// between clones would point at another clone's files).
#[cfg(test)]
pub(crate) fn lab_file(rel: &str) -> std::path::PathBuf {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR: run the lab's tests with cargo test");
    std::path::PathBuf::from(dir).join(rel)
}
