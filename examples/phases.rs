//! Where native `simulate()` time goes on a scenario file: parse, run, serialize.
//! Usage: `cargo run --release --example phases -- FILE`.
use fencing_playground::sim::{run, Scenario};
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: phases FILE");
        std::process::exit(2);
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {path}");
        std::process::exit(2);
    };
    for _ in 0..3 {
        let t0 = Instant::now();
        let Ok(s) = Scenario::from_json(&text) else {
            eprintln!("invalid scenario");
            std::process::exit(1);
        };
        let t1 = Instant::now();
        let trace = run(&s);
        let t2 = Instant::now();
        let out = serde_json::to_string(&trace).unwrap_or_default();
        let t3 = Instant::now();
        println!(
            "parse {:.1} ms, run {:.1} ms, serialize {:.1} ms ({} bytes)",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            (t3 - t2).as_secs_f64() * 1e3,
            out.len()
        );
    }
}
