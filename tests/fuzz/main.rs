//! The fuzz target for the doors a stranger's bytes come in by: the scenario reader, the link
//! decoder, and the engine with its checker behind them. `cargo test --test fuzz` replays every
//! reproducer saved in `tests/fuzz/corpus/`; with `FUZZ_SECONDS` set it then generates inputs
//! from `FUZZ_SEED` for that long (`scripts/fuzz.sh` runs it in the test profile), reports
//! inputs per second, and saves a shrunk reproducer for every failure: a panic, a run that
//! differs between two runs, a scenario that does not survive its JSON or its link, a run that
//! needs more steps than `validate` counted, a trace over 10 MB, a trace that breaks
//! `sim::invariants`, or a lean run that disagrees with the full run. A run slower than 250 ms (timed
//! only while fuzzing a release build) is saved into `tests/fuzz/slow/` instead: it is a
//! finding for the engine's benchmark, not a failure, since no test here depends on a clock.

#![cfg(not(target_arch = "wasm32"))]

mod gen;
mod oracle;

use oracle::{check_link, check_scenario, Failure};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The crate's directory, read at run time (cargo sets it for every test binary; a compile-time
/// `env!` would keep the path of whichever clone built a shared target directory).
fn crate_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .expect("cargo test sets CARGO_MANIFEST_DIR")
}

fn corpus_dir() -> PathBuf {
    crate_root().join("tests/fuzz/corpus")
}

fn slow_dir() -> PathBuf {
    crate_root().join("tests/fuzz/slow")
}

/// A saved input: `{ "target": "scenario" | "link" | …, "found": …, "input": … }`.
fn replay(file: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let input = v["input"].as_str().unwrap_or_default();
    let result = match v["target"].as_str() {
        Some("scenario") => check_scenario(input),
        Some("link") => check_link(input),
        // The JS surface is replayed by tests/fuzz/node.mjs.
        _ => Ok(()),
    };
    result.err().map(|f| format!("{}: {f}", file.display()))
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn save(target: &str, failure: &Failure, input: &str) -> PathBuf {
    let dir = match failure {
        Failure::Slow { .. } => slow_dir(),
        _ => corpus_dir(),
    };
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join(format!(
        "{target}-{}-{:016x}.json",
        failure.kind(),
        fnv(input)
    ));
    let body = json!({"target": target, "found": failure.kind(), "detail": failure.to_string(),
                      "input": input});
    let text = serde_json::to_string_pretty(&body).unwrap_or_default() + "\n";
    if let Err(e) = std::fs::write(&file, text) {
        eprintln!("cannot save {}: {e}", file.display());
    }
    file
}

#[test]
fn fuzz() {
    oracle::quiet_panics_in_guarded();
    let mut files: Vec<PathBuf> = [corpus_dir(), slow_dir()]
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|d| d.filter_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let failed: Vec<String> = files.iter().filter_map(|f| replay(f)).collect();
    println!("fuzz: replayed {} saved inputs", files.len());
    assert!(
        failed.is_empty(),
        "saved inputs still fail:\n{}",
        failed.join("\n")
    );

    let Some(seconds) = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    else {
        return;
    };
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut r = gen::Rng::new(seed);
    let seeds = gen::seeds();
    let links: Vec<String> = fencing_playground::sim::presets::presets()
        .iter()
        .map(|p| fencing_playground::link::encode(&p.scenario))
        .collect();
    oracle::time_runs(true);
    // The inputs kept for being slow are timed again: what is no longer slow is reported.
    for file in files.iter().filter(|f| f.starts_with(slow_dir())) {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let v: Value = serde_json::from_str(&text).unwrap_or_default();
        let input = v["input"].as_str().unwrap_or_default();
        let now = match v["target"].as_str() {
            Some("link") => check_link(input),
            _ => check_scenario(input),
        };
        let verdict = now
            .err()
            .map_or("no longer slow".to_string(), |f| f.to_string());
        println!("fuzz: {}: {verdict}", file.display());
    }
    let start = Instant::now();
    let budget = Duration::from_secs_f64(seconds);
    let (mut inputs, mut found, mut slow) = (0u64, Vec::new(), Vec::new());
    while start.elapsed() < budget {
        for _ in 0..64 {
            inputs += 1;
            let (target, input) = if r.chance(20) {
                let good = r.pick(&links).clone();
                ("link", gen::link(&mut r, &good))
            } else {
                ("scenario", gen::scenario(&mut r, &seeds))
            };
            let check = if target == "link" {
                check_link
            } else {
                check_scenario
            };
            if let Err(f) = check(&input) {
                let small = oracle::shrink(target, &input, &f);
                let file = save(target, &f, &small);
                match f {
                    Failure::Slow { .. } => slow.push(file),
                    _ => found.push(file),
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fuzz: native, seed {seed}: {inputs} inputs in {secs:.1} s ({:.0} inputs/s, {} of them \
         valid scenarios run and checked), {} found, {} slow",
        inputs as f64 / secs,
        oracle::RUNS.load(std::sync::atomic::Ordering::Relaxed),
        found.len(),
        slow.len()
    );
    for f in found.iter().chain(&slow) {
        println!("  saved {}", f.display());
    }
    assert!(
        found.is_empty(),
        "the fuzzer found {} failing inputs",
        found.len()
    );
}
