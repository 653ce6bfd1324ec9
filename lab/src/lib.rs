//! The lab: replays the playground's presets against real Redis and PostgreSQL servers and
//! compares every reply with the model. `servers` starts and stops the servers, `resp` and `pg`
//! speak their protocols, `conductor` replays one run, `check` judges one preset (rerunning a
//! run whose timing the machine missed) and `report` writes `docs/conformance.md` and the
//! generated `src/sim/conformance.rs` the page reads its "Reproduced" marks from.

pub mod check;
pub mod client;
pub mod clock;
pub mod conductor;
pub mod history;
pub mod independent;
pub mod input;
pub mod pg;
pub mod proxy;
pub mod random;
pub mod report;
pub mod resp;
pub mod servers;
pub mod tables;
