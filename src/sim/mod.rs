//! The pure simulation core. Nothing here reads a clock, touches the browser or draws a random
//! number without a seed: time is an argument, and `run` turns a scenario into a trace.

pub mod account;
pub mod breaks;
pub mod checker;
pub mod clock;
pub mod commands;
pub mod compare;
pub mod conformance;
pub mod engine;
pub mod invariants;
pub mod lease;
// The lessons (a path through the argument) are the full page's: the first stage has none.
#[cfg(not(feature = "first-stage"))]
pub mod lessons;
pub mod liveness;
pub mod narrate;
pub mod planted;
pub mod presets;
pub mod rng;
pub mod scenario;
pub mod search;
pub mod sort;
pub mod trace;
pub mod trace_advisory;
pub mod trace_etcd;
pub mod trace_kind;
pub mod trace_lease;
pub mod trace_zk;
pub mod words;
pub mod words_advisory;
pub mod words_lease;
pub mod words_token;
pub mod words_zk;

pub use account::{Account, DebitVerdict, FenceRule, Rejection};
pub use engine::run;
pub use scenario::{
    Client, Event, OnSuspended, PauseCause, ReleaseKind, Scenario, ScenarioError, Tier, ZkEvent,
    ZkFence,
};
pub use trace::{Trace, Verdict, ViolationKind};
