//! Search throughput natively, for `scripts/bench.sh`: the two searches the benchmark names
//! (they find nothing, so they run their whole budget) and the time to find and shrink the
//! paused-holder double write. Prints one JSON object; `scripts/bench/search.mjs` reads it.
use fencing_playground::sim::presets::preset;
use fencing_playground::sim::search::{search, FaultKind, Plan, SearchSpec, Strategy};
use fencing_playground::sim::{Scenario, ViolationKind};
use std::time::Instant;

fn without_first_pause(id: &str) -> Scenario {
    let mut s = preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    let at = s.clients[0].events.iter().position(|e| e.kind() == "pause");
    if let Some(i) = at {
        s.clients[0].events.remove(i);
    }
    s
}

/// The benchmark's spec: k = 2 over pauses, debit delays and client crashes, stale writes.
fn spec(budget: u64) -> SearchSpec {
    SearchSpec {
        faults: vec![FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash],
        max_faults: 2,
        failure: Some(ViolationKind::StaleWriteAccepted),
        budget,
        // The grid in order, cut at the budget: what the figures have always measured.
        strategy: Strategy::Exhaustive,
        ..SearchSpec::default()
    }
}

fn throughput(name: &str, s: &Scenario, budget: u64) -> String {
    let plan = Plan::new(s, &spec(budget));
    let total = plan.total();
    let t = Instant::now();
    let found = plan.scan(0, total);
    let secs = t.elapsed().as_secs_f64();
    format!(
        "{{\"name\":\"{name}\",\"schedules\":{total},\"seconds\":{secs:.4},\"perSecond\":{:.0},\"found\":{}}}",
        total as f64 / secs,
        found.is_some()
    )
}

fn main() {
    let budget: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let two = without_first_pause("gc-pause-fenced");
    let mut five = without_first_pause("redlock-order-fenced");
    five.end_ms = 140;
    let runs = [
        throughput("two-client GC, strict fencing", &two, budget),
        throughput("five-instance Redlock, non-standard fence", &five, budget),
    ];
    // Found and shrunk: gc-pause-unfenced without its pause, best of 5.
    let story = without_first_pause("gc-pause-unfenced");
    let mut best = f64::INFINITY;
    let mut summary = String::new();
    for _ in 0..5 {
        let t = Instant::now();
        let r = search(&story, &SearchSpec::default());
        best = best.min(t.elapsed().as_secs_f64());
        summary = r.counterexample.map(|c| c.summary).unwrap_or_default();
    }
    println!(
        "{{\"throughput\":[{}],\"findAndShrinkSeconds\":{best:.6},\"summary\":{summary:?}}}",
        runs.join(",")
    );
}
