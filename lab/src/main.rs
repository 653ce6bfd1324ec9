//! `fencing-lab`: replays every preset (or the ones named) against real servers and prints one
//! line per preset. It exits non-zero on any mismatch, and on a preset whose outcome differs
//! from the committed table unless `--write` regenerates `docs/conformance.md` and
//! `src/sim/conformance.rs` from this run.
//!
//! Usage: `fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [PRESET…]`

use fencing_lab::check::{self, Outcome};
use fencing_lab::report;
use fencing_lab::servers::{self, Postgres, TempDir};
use fencing_playground::sim::conformance;
use fencing_playground::sim::presets::presets;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    write: bool,
    scale: u64,
    tries: u32,
    /// Seconds the whole run may take; no retry starts that could not end in it.
    budget_s: u64,
    only: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        write: false,
        scale: 20,
        tries: 3,
        budget_s: 170,
        only: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .filter(|v| *v >= 1 && *v <= 1000)
                .ok_or_else(|| format!("{name}: expected a whole number from 1 to 1000"))
        };
        match x.as_str() {
            "--write" => a.write = true,
            "--scale" => a.scale = number("--scale")?,
            "--tries" => a.tries = number("--tries")? as u32,
            "--budget-s" => a.budget_s = number("--budget-s")?,
            "-h" | "--help" => {
                return Err(
                    "usage: fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [PRESET…]"
                        .into(),
                )
            }
            id => a.only.push(id.to_string()),
        }
    }
    Ok(a)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn date() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let all = presets();
    if let Some(bad) = a
        .only
        .iter()
        .find(|id| !all.iter().any(|p| p.id == id.as_str()))
    {
        eprintln!("no preset named {bad:?}");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let dir = match TempDir::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("lab: cannot make a temporary directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let pg = match Postgres::start(&dir.0.join("pg")) {
        Ok(pg) => pg,
        Err(e) => {
            eprintln!("lab: cannot start PostgreSQL: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut results = Vec::new();
    let mut failed = false;
    for p in all
        .iter()
        .filter(|p| a.only.is_empty() || a.only.iter().any(|id| id == p.id))
    {
        let t0 = Instant::now();
        let deadline = started + std::time::Duration::from_secs(a.budget_s);
        let r = check::check(p.id, &p.scenario, &pg, a.scale, a.tries, deadline);
        let extra = match &r.outcome {
            Outcome::Match => String::new(),
            Outcome::Mismatch(d) | Outcome::NotReproducible(d) | Outcome::Late(d) => {
                format!(": {d}")
            }
        };
        println!(
            "{:<28} {:<16} tries {} (scale {}) · worst lateness {:>5.1} ms · {:>5.1} s{extra}",
            p.id,
            r.outcome.word(),
            r.tries,
            r.scale,
            r.worst_late_ms,
            t0.elapsed().as_secs_f64()
        );
        if matches!(r.outcome, Outcome::Mismatch(_)) {
            failed = true;
        }
        // The committed table must say what this run found, or the page's marks are stale.
        let committed = conformance::ROWS.iter().find(|row| row.id == p.id);
        let stale = match (&r.outcome, committed) {
            (Outcome::Late(_), _) => false,
            (o, Some(row)) => row.outcome != o.word(),
            (_, None) => true,
        };
        if stale && !a.write {
            println!(
                "{:<28} the committed table says {:?}: run `bash scripts/lab.sh --write`",
                "",
                committed.map_or("nothing", |row| row.outcome)
            );
            failed = true;
        }
        results.push(r);
    }
    let tolerance_ms = a.scale as f64 * 0.4;
    println!(
        "{} presets in {:.1} s (scale {}, tolerance {tolerance_ms:.1} ms)",
        results.len(),
        started.elapsed().as_secs_f64(),
        a.scale
    );
    if a.write {
        if !a.only.is_empty() {
            eprintln!("lab: --write needs every preset; name none");
            return ExitCode::from(2);
        }
        let run = report::Run {
            redis: servers::redis_version(),
            postgres: Postgres::version(),
            date: date(),
            scale: a.scale,
            tolerance_ms,
            tries: a.tries,
            results,
        };
        let files = [
            (root().join("docs/conformance.md"), report::markdown(&run)),
            (root().join("src/sim/conformance.rs"), report::rust(&run)),
        ];
        for (path, text) in files {
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("lab: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            println!("wrote {}", path.display());
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
