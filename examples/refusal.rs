//! How long a scenario far past its limits takes to be refused natively: JSON text with a
//! million entries in one limited list (a clock's jumps, a client's events), read by
//! `Scenario::from_json`, beside `serde_json` building the text's whole value (what the reader
//! once did first) and skimming the text without building anything (the least any refusal of
//! that text can cost), best of 5 each.
//!
//! Usage: `cargo run --release --example refusal`. Prints one line per case.
use fencing_playground::sim::Scenario;
use serde::de::IgnoredAny;
use std::time::Instant;

/// One client whose list at `open … close` holds `n` copies of `entry`.
fn huge(open: &str, entry: &str, n: usize, close: &str) -> String {
    let items = vec![entry; n].join(",");
    format!(r#"{{"version":1,"clients":[{{"name":"A",{open}[{items}]{close}}}]}}"#)
}

fn best_ms(f: impl Fn()) -> f64 {
    (0..5)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let cases = [
        (
            "1 000 000 clock jumps",
            huge(
                r#""clock":{"jumps":"#,
                r#"{"atMs":1,"byMs":1}"#,
                1_000_000,
                "}",
            ),
        ),
        (
            "1 000 000 events",
            huge(
                r#""events":"#,
                r#"{"kind":"acquire","atMs":1}"#,
                1_000_000,
                "",
            ),
        ),
    ];
    for (what, text) in cases {
        let error = Scenario::from_json(&text).map_or_else(|e| e.to_string(), |_| "ok".into());
        let refuse = best_ms(|| {
            std::hint::black_box(Scenario::from_json(&text).is_err());
        });
        let build = best_ms(|| {
            std::hint::black_box(serde_json::from_str::<serde_json::Value>(&text).is_ok());
        });
        let skim = best_ms(|| {
            std::hint::black_box(serde_json::from_str::<IgnoredAny>(&text).is_ok());
        });
        println!(
            "{what} ({:.1} MB): refused in {refuse:.1} ms; serde_json builds its value in \
             {build:.1} ms and skims it in {skim:.1} ms: {error}",
            text.len() as f64 / 1e6
        );
    }
}
