//! The lab: replays the playground's scenarios against real Redis, PostgreSQL, etcd and
//! ZooKeeper servers and compares what happened with the model. `servers` starts and stops the
//! servers. Every service runs with independent clients: one OS process per client, the faults
//! done for real (signals, the delaying `proxy`, killed servers) on the shared `clock`. Single
//! lock: `independent` + `client` + `history`; Redlock: `redlock_run` + `redlock_client` (over
//! `redlock_wire`, through the latency and partition proxy `redlock_proxy`), judged by
//! `redlock_history` against `redlock_model`'s reading of the trace; etcd, advisory locks and
//! ZooKeeper: their `*_run`, `*_client` and `*_history`; the database lease: its folder `lease/`. `check` judges one scenario (rerunning
//! a run whose timing the machine missed or whose events came too close to order) and `report`
//! writes `docs/conformance.md` and the generated `src/sim/conformance.rs` the page reads its
//! "Reproduced" marks from. `jobs` runs scenarios side by side, each worker with a lab of its
//! own; `say!` is how a line about a scenario being judged is printed, so that a worker can hold
//! a scenario's lines back and print them together.

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
pub mod jobs;
pub mod lease;
pub mod mutants;
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

use std::cell::RefCell;

thread_local! {
    /// The lines `say!` holds back on this thread while a `held` call runs.
    static HELD: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Prints a line as `println!` does, or, inside `held` on this thread, keeps it for the caller
/// to print with the rest of the scenario's lines.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::say_line(format!($($arg)*))
    };
}

/// `say!`'s line: held back when this thread is inside `held`, printed otherwise.
pub fn say_line(line: String) {
    let unheld = HELD.with(|h| match h.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push(line);
            None
        }
        None => Some(line),
    });
    if let Some(line) = unheld {
        println!("{line}");
    }
}

/// Runs `f` with every line it says on this thread held back, and returns them with its result
/// (a `held` inside another keeps its own lines; the outer one's go on after it).
pub fn held<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    /// Puts the outer call's lines back, also when `f` panics.
    struct Restore(Option<Vec<String>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            HELD.with(|h| *h.borrow_mut() = outer);
        }
    }
    let outer = HELD.with(|h| h.borrow_mut().replace(Vec::new()));
    let restore = Restore(outer);
    let r = f();
    let lines = HELD.with(|h| h.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (r, lines)
}

/// A file of the lab crate, for the unit tests: found through `CARGO_MANIFEST_DIR` as cargo sets
/// it when it runs the tests, not as it was when they were built (a target directory shared
/// between clones would point at another clone's files).
#[cfg(test)]
pub(crate) fn lab_file(rel: &str) -> std::path::PathBuf {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR: run the lab's tests with cargo test");
    std::path::PathBuf::from(dir).join(rel)
}
