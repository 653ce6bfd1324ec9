//! Prints a run's steps, verdict and narration:
//! `cargo run --example trace -- <preset-id | scenario.json>`.
use fencing_playground::sim::{presets, run, Scenario};

fn main() {
    let id = std::env::args()
        .nth(1)
        .unwrap_or_else(|| presets::DEFAULT_PRESET.to_string());
    let from_file = std::fs::read_to_string(&id).ok().map(|text| {
        Scenario::from_json(&text).unwrap_or_else(|e| {
            eprintln!("{id}: {e}");
            std::process::exit(2);
        })
    });
    let Some(scenario) = from_file.or_else(|| presets::preset(&id)) else {
        let ids: Vec<&str> = presets::presets().iter().map(|p| p.id).collect();
        eprintln!("unknown preset {id:?}; known: {}", ids.join(", "));
        std::process::exit(2);
    };
    let trace = run(&scenario);
    for s in &trace.steps {
        println!(
            "{:>5} ms  {:<3} {}",
            s.at_ms, trace.clients[s.client], s.text
        );
    }
    println!(
        "--- verdict: {}",
        if trace.verdict.safe { "safe" } else { "UNSAFE" }
    );
    for v in &trace.verdict.violations {
        println!("  ! {}", v.text);
    }
    for line in &trace.narration {
        println!("  {line}");
    }
}
