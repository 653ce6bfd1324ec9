//! The worst-case benchmark, native side: builds every case of `tests/worst/cases.rs` at the caps (or at a size),
//! checks that the parser accepts it, and times parse + run + serialize (best of `REPEATS`), as
//! the JS `simulate` does; then the checker and the narration alone on doubling numbers of
//! debits, with the time ratio per doubling.
//!
//! Usage: `cargo run --release --example worst -- [--size N] [--repeats R] [--write DIR]`;
//! `--write DIR` also saves each case as `DIR/<id>.json` for the wasm side
//! (`scripts/bench/worst-wasm.mjs`). Prints one JSON object.
#[path = "../tests/worst/cases.rs"]
mod cases;

use fencing_playground::sim::{checker, narrate, run, Scenario};
use std::time::Instant;

fn main() {
    let mut size: Option<usize> = None;
    let mut repeats = 3u32;
    let mut write: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--size" => size = args.next().and_then(|v| v.parse().ok()),
            "--repeats" => repeats = args.next().and_then(|v| v.parse().ok()).unwrap_or(repeats),
            "--write" => write = args.next(),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let mut rows = Vec::new();
    for case in cases::cases() {
        // Without --size, each case is built at the largest size the caps accept.
        let (size, scenario) = match size {
            Some(n) => (n, (case.build)(n)),
            None => cases::at_caps(case.build),
        };
        let text = scenario.to_json();
        if let Some(dir) = &write {
            let path = format!("{dir}/{}.json", case.id);
            if let Err(e) = std::fs::write(&path, &text) {
                eprintln!("cannot write {path}: {e}");
                std::process::exit(2);
            }
        }
        let accepted = Scenario::from_json(&text).map_err(|e| e.to_string());
        let mut best = f64::MAX;
        let mut bytes = 0usize;
        let mut steps = 0usize;
        if accepted.is_ok() {
            for _ in 0..repeats {
                let t0 = Instant::now();
                let Ok(s) = Scenario::from_json(&text) else {
                    break;
                };
                let trace = run(&s);
                let out = serde_json::to_string(&trace).unwrap_or_default();
                best = best.min(t0.elapsed().as_secs_f64());
                bytes = out.len();
                steps = trace.steps.len();
            }
        }
        eprintln!(
            "[worst] {:<22} {:>8.1} ms {:>10} B",
            case.id,
            best * 1e3,
            bytes
        );
        rows.push(format!(
            "{{\"id\":{:?},\"what\":{:?},\"size\":{size},\"accepted\":{},\"error\":{:?},\"seconds\":{:.6},\"traceBytes\":{bytes},\"steps\":{steps}}}",
            case.id,
            case.what,
            accepted.is_ok(),
            accepted.err().unwrap_or_default(),
            if best == f64::MAX { -1.0 } else { best },
        ));
    }
    let mut doubling = Vec::new();
    for n in [10_000usize, 20_000, 40_000, 80_000] {
        let trace = run(&cases::debits_in_one_lease(n));
        let mut best = f64::MAX;
        for _ in 0..repeats.max(7) {
            let t0 = Instant::now();
            let v = checker::check(&trace);
            let lines = narrate::narrate(&trace);
            best = best.min(t0.elapsed().as_secs_f64());
            std::hint::black_box((v, lines));
        }
        eprintln!("[worst] checker+narration n={n:<6} {:>8.2} ms", best * 1e3);
        doubling.push(format!("{{\"n\":{n},\"seconds\":{best:.6}}}"));
    }
    println!(
        "{{\"size\":{},\"cases\":[{}],\"doubling\":[{}]}}",
        size.map_or_else(|| "\"caps\"".to_string(), |n| n.to_string()),
        rows.join(","),
        doubling.join(",")
    );
}
