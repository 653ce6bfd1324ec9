//! Prints a preset's steps, verdict and narration: `cargo run --example trace -- <preset-id>`.
use fencing_playground::sim::{presets, run};

fn main() {
    let id = std::env::args()
        .nth(1)
        .unwrap_or_else(|| presets::DEFAULT_PRESET.to_string());
    let Some(scenario) = presets::preset(&id) else {
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
