//! Native `simulate()` throughput on a scenario file: parse, run and serialize the trace, as
//! the JS `simulate` does. Usage: `cargo run --release --example throughput -- FILE [REPEATS]`.
use fencing_playground::sim::{run, Scenario};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: throughput FILE [REPEATS]");
        std::process::exit(2);
    };
    let repeats: u32 = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut best = f64::MAX;
    let mut events = 0usize;
    let mut out_len = 0usize;
    for _ in 0..repeats {
        let start = Instant::now();
        let scenario = match Scenario::from_json(&text) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let trace = run(&scenario);
        out_len = serde_json::to_string(&trace).map(|s| s.len()).unwrap_or(0);
        best = best.min(start.elapsed().as_secs_f64());
        events = scenario.clients.iter().map(|c| c.events.len()).sum();
    }
    println!(
        "{{\"events\":{events},\"seconds\":{best:.6},\"eventsPerSecond\":{:.0},\"traceBytes\":{out_len}}}",
        events as f64 / best
    );
}
