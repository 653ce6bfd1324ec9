//! The database lease in the lab (`leases(name, holder, generation, expires_at)` on the lab's
//! PostgreSQL 15): `client` is one client process sending the Commands view's statements,
//! `run` conducts a run (signals, delays, the clients' clocks under the shim, a failover's
//! stand-in), `history` judges its facts against the model's trace, and `check` says whether a
//! scenario can run, where its model decides on a tie, and retries a run that missed its timing.

pub mod check;
pub mod client;
pub mod history;
pub mod run;
