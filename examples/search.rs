//! Runs a search from the command line and prints its report as JSON:
//! `cargo run --release --example search -- <preset-id> [spec JSON] [drop client:event,...]`.
//! The third argument leaves events out of the preset first (e.g. `0:1` drops A's pause).
use fencing_playground::sim::presets;
use fencing_playground::sim::search::{search, SearchSpec};

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args
        .next()
        .unwrap_or_else(|| "gc-pause-unfenced".to_string());
    let spec_json = args.next().unwrap_or_else(|| "{}".to_string());
    let Some(mut scenario) = presets::preset(&id) else {
        eprintln!("unknown preset {id:?}");
        std::process::exit(2);
    };
    for pair in args
        .next()
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
    {
        let (c, e) = pair.split_once(':').unwrap_or((pair, "0"));
        let (c, e): (usize, usize) = (c.parse().unwrap_or(0), e.parse().unwrap_or(0));
        scenario.clients[c].events.remove(e);
    }
    let value: serde_json::Value = match serde_json::from_str(&spec_json) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("spec: {e}");
            std::process::exit(2);
        }
    };
    let spec = match SearchSpec::from_value(&value) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t = std::time::Instant::now();
    let report = search(&scenario, &spec);
    let secs = t.elapsed().as_secs_f64();
    eprintln!("{}", report.statement);
    eprintln!(
        "{} schedules + {} shrink runs in {:.3} s",
        report.stats.schedules, report.stats.shrink_runs, secs
    );
    for s in &report.shrink_steps {
        eprintln!("  shrink: {}", s.text);
    }
    if let Some(c) = &report.counterexample {
        for v in &c.violations {
            eprintln!("  ! {}", v.text);
        }
    }
}
