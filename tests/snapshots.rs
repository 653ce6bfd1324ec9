//! Every preset's run in full: the steps, the narration, the verdict and the whole trace as
//! JSON, pinned in `tests/snapshots/` with `expect-test`. A change in behaviour shows up as a
//! diff a reviewer can read; `UPDATE_EXPECT=1 cargo test --test suite snapshots::` rewrites the files
//! after a deliberate change. Native only: the files are read from disk.
#![cfg(not(target_arch = "wasm32"))]

use expect_test::expect_file;
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::run;
use fencing_playground::sim::trace::Trace;
use std::fmt::Write;

/// The run as a person reads it: one line per step, the narration, then the verdict.
fn readable(id: &str, trace: &Trace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "preset {id}");
    let _ = writeln!(out, "clients {}", trace.clients.join(", "));
    let _ = writeln!(out, "instances {}", trace.instances.join(", "));
    let _ = writeln!(out, "\nsteps");
    for s in &trace.steps {
        let who = trace.client_name(s.client);
        let _ = writeln!(out, "{:>6} {who}: {}", s.at_ms, s.text);
    }
    let _ = writeln!(out, "\nnarration");
    for (i, line) in trace.narration.iter().enumerate() {
        let _ = writeln!(out, "{}. {line}", i + 1);
    }
    let _ = writeln!(
        out,
        "\nverdict {}",
        if trace.verdict.safe { "safe" } else { "unsafe" }
    );
    for v in &trace.verdict.violations {
        let _ = writeln!(out, "  violation {:?} at {}: {}", v.kind, v.at_ms, v.text);
    }
    for n in &trace.verdict.notes {
        let _ = writeln!(out, "  note {n}");
    }
    for o in &trace.verdict.liveness {
        let _ = writeln!(out, "  liveness {:?} at {}: {}", o.kind, o.at_ms, o.text);
    }
    let _ = writeln!(
        out,
        "final balance {}, last fence {:?}, step limit hit {}",
        trace.final_balance, trace.last_fence, trace.step_limit_hit
    );
    out
}

#[test]
fn every_preset_run_is_pinned() {
    for p in presets() {
        let trace = run(&p.scenario);
        let dir = crate_root().join("tests/snapshots");
        expect_file![dir.join(format!("{}.txt", p.id))].assert_eq(&readable(p.id, &trace));
        let json = serde_json::to_string_pretty(&trace).expect("a trace serializes");
        expect_file![dir.join(format!("{}.json", p.id))].assert_eq(&format!("{json}\n"));
    }
}

/// The crate's directory, read when the test runs: cargo sets it for every test binary, and a
/// compile-time `env!` would keep the path of whichever clone built a shared target directory.
fn crate_root() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .expect("cargo test sets CARGO_MANIFEST_DIR")
}
