//! The lab: replays the playground's scenarios against real Redis and PostgreSQL servers and
//! compares what happened with the model. `servers` starts and stops the servers. Single-lock
//! runs use independent clients: `independent` starts one `client` process per client and
//! does the faults for real (signals, and the delaying `proxy`), on the shared `clock`, and
//! `history` compares what the clients printed with the model's trace. Redlock runs use the
//! stand-in `conductor`, which replays the page's commands in the model's order over `resp`
//! and `pg`. `check` judges one scenario (rerunning a run whose timing the machine missed or
//! whose events came too close to order) and `report` writes `docs/conformance.md` and the
//! generated `src/sim/conformance.rs` the page reads its "Reproduced" marks from.

pub mod check;
pub mod client;
pub mod clock;
pub mod conductor;
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
