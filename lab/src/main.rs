//! `fencing-lab`: replays scenarios against real Redis and PostgreSQL servers and compares what
//! happened with the model.
//!
//! - `fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [--jobs N] [PRESET…]`: every
//!   preset (or the ones named), then every saved case under `lab/corpus/`. It fails on a
//!   mismatch, on a preset whose outcome differs from the committed table (a preset committed
//!   as `match` that comes back late fails too), on an orphan row, and when the committed
//!   `docs/conformance.md` or `src/sim/conformance.rs` is not what this run writes (the date
//!   aside); `--write` regenerates both from this run instead.
//! - `fencing-lab replay FILE|LINK`: one scenario, from a JSON file, a file holding a share
//!   link, or a share link itself (`https://…/#s=1.…`).
//! - `fencing-lab random [--seed S] [--count N]`: generated scenarios (`random.rs`); a case
//!   the servers disagree on is shrunk and saved under `lab/corpus/`.
//! - `--jobs N` (presets and random): N scenarios at once, each worker with its own servers
//!   (`jobs.rs`); each scenario's lines come out as one block, the presets' as they end, the
//!   random cases' in case order. The tables are written from the results in preset order.
//! - `fencing-lab mutants [BUG…]`: the mutation test (`mutants.rs`): each planted model
//!   bug, caught by the servers on its seed's cases, and the true model matching the catch.
//! - `fencing-lab client …`: one client process of a single-lock run, started by the lab
//!   itself (`independent.rs`, `client.rs`); not meant to be run by hand.

use fencing_lab::check::{self, Outcome};
use fencing_lab::input::read_scenario;
use fencing_lab::jobs::{self, Queue, Work};
use fencing_lab::random;
use fencing_lab::say;
use fencing_lab::servers::{self, Postgres, TempDir};
use fencing_lab::{report, tables};
use fencing_playground::sim::conformance;
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::search::shrink::shrink_by;
use fencing_playground::sim::Scenario;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage:
  fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [--jobs N] [PRESET…]
  fencing-lab replay FILE|LINK [--scale N] [--tries N]
  fencing-lab random [--seed S] [--count N | --case N] [--scale N] [--tries N]
                     [--budget-s N] [--jobs N] [--no-shrink] [--expect-mismatch] [--record]
                     [--service redis|redlock|etcd|advisory|zookeeper|lease]
                     (cases are numbered from 1: `--case 5` is the fifth case of the seed;
                     `--service` draws from that lock service's presets alone)
  fencing-lab mutants [BUG…] [--count N] [--scale N] [--tries N] [--budget-s N]
                     [--jobs N]
                     (each planted model bug, or those named, must be caught by its seed's
                     cases and the true model must match the case that caught it)
  --jobs N: run N scenarios at once (1 by default), each of N workers with its own PostgreSQL,
            etcd and ZooKeeper; a scenario's lines come out together (presets as they end,
            random cases in case order). `--expect-mismatch` always runs one at a time.";

#[derive(PartialEq)]
enum Mode {
    Presets,
    Replay,
    Random,
    Mutants,
}

struct Args {
    mode: Mode,
    write: bool,
    scale: u64,
    tries: u32,
    /// Seconds the whole run may take; no retry starts that could not end in it.
    budget_s: u64,
    seed: u64,
    count: u64,
    /// Only this case of the seed.
    case: Option<u64>,
    shrink: bool,
    expect_mismatch: bool,
    /// Write the run's summary into docs/conformance.md.
    record: bool,
    /// Scenarios run at once, each worker with a lab of its own.
    jobs: usize,
    /// `random --service NAME`: cases drawn from that lock service's presets only.
    service: Option<jobs::Service>,
    /// Preset ids, or the one file or link to replay.
    rest: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1).peekable();
    let mode = match it.peek().map(String::as_str) {
        Some("replay") => Mode::Replay,
        Some("random") => Mode::Random,
        Some("mutants") => Mode::Mutants,
        _ => Mode::Presets,
    };
    if mode != Mode::Presets {
        it.next();
    }
    let mut a = Args {
        mode,
        write: false,
        scale: 20,
        tries: 3,
        budget_s: 210,
        seed: 1,
        count: 10,
        case: None,
        shrink: true,
        expect_mismatch: false,
        record: false,
        jobs: 1,
        service: None,
        rest: Vec::new(),
    };
    while let Some(x) = it.next() {
        let mut number = |name: &str, max: u64| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .filter(|v| *v >= 1 && *v <= max)
                .ok_or_else(|| format!("{name}: expected a whole number from 1 to {max}"))
        };
        match x.as_str() {
            "--write" if a.mode == Mode::Presets => a.write = true,
            "--scale" => a.scale = number("--scale", 1000)?,
            "--tries" => a.tries = number("--tries", 10)? as u32,
            "--budget-s" => a.budget_s = number("--budget-s", 100_000)?,
            "--jobs" if a.mode != Mode::Replay => a.jobs = number("--jobs", 32)? as usize,
            "--seed" if a.mode == Mode::Random => a.seed = number("--seed", u64::MAX)?,
            "--count" if matches!(a.mode, Mode::Random | Mode::Mutants) => {
                a.count = number("--count", 100_000)?
            }
            "--case" if a.mode == Mode::Random => {
                a.case = Some(number("--case", 100_000)?.saturating_sub(1))
            }
            "--no-shrink" if a.mode == Mode::Random => a.shrink = false,
            "--service" if a.mode == Mode::Random => {
                let names: Vec<&str> = jobs::Service::ALL.iter().map(|x| x.name()).collect();
                let v = it.next().unwrap_or_default();
                a.service = Some(jobs::Service::named(&v).ok_or_else(|| {
                    format!("--service: expected one of {}, got {v:?}", names.join(", "))
                })?);
            }
            "--expect-mismatch" if a.mode == Mode::Random => a.expect_mismatch = true,
            "--record" if a.mode == Mode::Random => a.record = true,
            "-h" | "--help" => return Err(USAGE.into()),
            flag if flag.starts_with("--") => {
                return Err(format!("{flag}: not an option here\n{USAGE}"))
            }
            id => a.rest.push(id.to_string()),
        }
    }
    match a.mode {
        Mode::Replay if a.rest.len() != 1 => Err(format!("replay: name one file or link\n{USAGE}")),
        Mode::Random if !a.rest.is_empty() => Err(format!(
            "random: unexpected {:?}\n{USAGE}",
            a.rest.join(" ")
        )),
        _ => Ok(a),
    }
}

/// The repository, found at run time: the current directory or the nearest one above it that
/// holds `Cargo.toml` and `lab/Cargo.toml` (the scripts run the lab from the repository's
/// root). Not the directory the binary was built in: a target directory shared between clones
/// would point at another clone's files.
fn root() -> Result<PathBuf, String> {
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    here.ancestors()
        .find(|d| d.join("Cargo.toml").is_file() && d.join("lab/Cargo.toml").is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            format!(
                "{}: not inside the repository (no directory from here up holds Cargo.toml and \
                 lab/Cargo.toml); run the lab from the repository's root",
                here.display()
            )
        })
}

fn corpus_dir() -> Result<PathBuf, String> {
    Ok(root()?.join("lab/corpus"))
}

fn date() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// `replay`'s argument: a file holding JSON or a link, or the link itself.
fn scenario_of_arg(arg: &str) -> Result<Scenario, String> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
        return read_scenario(&text).map_err(|e| format!("{}: {e}", path.display()));
    }
    if arg.trim_start().starts_with('{') || arg.contains("s=") {
        return read_scenario(arg);
    }
    Err(format!(
        "{arg}: no such file, and not a scenario or a share link (expected JSON or …#s=1.…)"
    ))
}

/// What a result says after its outcome, for one printed line.
fn extra(r: &check::Result) -> String {
    match &r.outcome {
        Outcome::Match => format!(": {}", r.compared),
        Outcome::Mismatch(d)
        | Outcome::NotReproducible(d)
        | Outcome::Late(d)
        | Outcome::Failed(d) => {
            format!(": {d}")
        }
    }
}

fn print_line(id: &str, r: &check::Result, secs: f64) {
    say!(
        "{id:<28} {:<16} tries {} (scale {}) · worst lateness {:>5.1} ms · {secs:>5.1} s{}",
        r.outcome.word(),
        r.tries,
        r.scale,
        r.worst_late_ms,
        extra(r)
    );
}

/// One scenario against the servers, with the hollow-pass rule applied: a run in which no
/// client sends anything is never a match.
fn judge(id: &str, s: &Scenario, lab: &Lab, a: &Args, deadline: Instant) -> (check::Result, f64) {
    let t0 = Instant::now();
    let mut r = check::check(
        id, s, &lab.pg, &lab.etcd, &lab.zk, a.scale, a.tries, deadline,
    );
    if let (Outcome::Match, Some(why)) = (&r.outcome, tables::nothing_to_compare(s)) {
        r.outcome = Outcome::NotReproducible(why);
    }
    (r, t0.elapsed().as_secs_f64())
}

struct Lab {
    _dir: TempDir,
    pg: Postgres,
    /// The etcd clusters, started by the first etcd run and stopped with the lab.
    etcd: fencing_lab::etcd_run::Slot,
    /// The ZooKeeper ensembles, started by the first ZooKeeper run and stopped with the lab.
    zk: fencing_lab::zk_run::Slot,
}

fn start_lab() -> Result<Lab, String> {
    let dir = TempDir::new().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let pg =
        Postgres::start(&dir.0.join("pg")).map_err(|e| format!("cannot start PostgreSQL: {e}"))?;
    Ok(Lab {
        _dir: dir,
        pg,
        etcd: Default::default(),
        zk: Default::default(),
    })
}

/// `--pg EVENT:PORT,…`: the PostgreSQL port each write event connects to.
fn pg_ports(arg: &str) -> Result<Vec<(usize, u16)>, String> {
    let mut out = Vec::new();
    for pair in arg.split(',').filter(|p| !p.is_empty()) {
        let (e, p) = pair
            .split_once(':')
            .ok_or("client: --pg takes EVENT:PORT,…")?;
        let e = e
            .parse()
            .map_err(|_| format!("client: {e}: not a number"))?;
        let p = p.parse().map_err(|_| format!("client: {p}: not a port"))?;
        out.push((e, p));
    }
    Ok(out)
}

/// What an advisory-lock or database-lease client is given: its index, the database's port
/// (after `flag`), each debit's port, the scale, the run's end and the scenario.
struct PgArgs {
    index: usize,
    port: u16,
    pg_ports: Vec<(usize, u16)>,
    scale: u64,
    until_ms: u64,
    scenario: Scenario,
}

fn pg_args(get: &dyn Fn(&str) -> Result<String, String>, flag: &str) -> Result<PgArgs, String> {
    let num = |v: String| {
        v.parse::<u64>()
            .map_err(|_| format!("client: {v}: not a number"))
    };
    let path = get("--scenario")?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    Ok(PgArgs {
        index: num(get("--index")?)? as usize,
        port: num(get(flag)?)? as u16,
        pg_ports: pg_ports(&get("--pg")?)?,
        scale: num(get("--scale-us")?)?,
        until_ms: num(get("--until-ms")?)?,
        scenario: Scenario::from_json(&text).map_err(|e| e.to_string())?,
    })
}

fn advisory_client(a: PgArgs) -> Result<(), String> {
    fencing_lab::pg_client::run(fencing_lab::pg_client::Setup {
        index: a.index,
        port: a.port,
        pg_ports: a.pg_ports,
        scale: a.scale,
        until_ms: a.until_ms,
        scenario: a.scenario,
    })
}

fn lease_client(a: PgArgs) -> Result<(), String> {
    fencing_lab::lease::client::run(fencing_lab::lease::client::Setup {
        index: a.index,
        port: a.port,
        pg_ports: a.pg_ports,
        scale: a.scale,
        until_ms: a.until_ms,
        scenario: a.scenario,
    })
}

/// A client process's exit: an error is printed as its last line (`error …`), which the
/// conductor reads.
fn exit_with(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("error {e}");
            ExitCode::from(2)
        }
    }
}

/// `fencing-lab client …`: one client process of an independent run (`client.rs`), or of an
/// etcd run with `--etcd PORT,…` (`etcd_client.rs`), or of the others by their flags.
fn client_main(argv: &[String]) -> ExitCode {
    // A client is the real world, never the model: no planted bug in it, whichever the lab
    // that started it plants in its own model.
    fencing_playground::sim::planted::plant(None);
    let get = |flag: &str| -> Result<String, String> {
        let i = argv
            .iter()
            .position(|a| a == flag)
            .ok_or_else(|| format!("client: {flag} is missing"))?;
        argv.get(i + 1)
            .cloned()
            .ok_or_else(|| format!("client: {flag} needs a value"))
    };
    let setup = (|| -> Result<fencing_lab::client::Setup, String> {
        let num = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("client: {v}: not a number"))
        };
        let path = get("--scenario")?;
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        Ok(fencing_lab::client::Setup {
            index: num(get("--index")?)? as usize,
            redis_port: num(get("--redis")?)? as u16,
            pg_ports: pg_ports(&get("--pg")?)?,
            scale: num(get("--scale-us")?)?,
            scenario: Scenario::from_json(&text).map_err(|e| e.to_string())?,
        })
    })();
    if argv.iter().any(|a| a == "--advisory") {
        return exit_with(pg_args(&get, "--advisory").and_then(advisory_client));
    }
    if argv.iter().any(|a| a == "--lease") {
        return exit_with(pg_args(&get, "--lease").and_then(lease_client));
    }
    if argv.iter().any(|a| a == "--zookeeper") {
        let setup = (|| -> Result<fencing_lab::zk_client::Setup, String> {
            let num = |v: String| {
                v.parse::<u64>()
                    .map_err(|_| format!("client: {v}: not a number"))
            };
            let path = get("--scenario")?;
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            let (scenario, zk) = fencing_lab::zk_client::read_scenario(&text)?;
            let zk = zk.ok_or("client: the scenario has no lock.zookeeper")?;
            let mut ports = Vec::new();
            for p in get("--zookeeper")?.split(',').filter(|p| !p.is_empty()) {
                ports.push(num(p.into())? as u16);
            }
            Ok(fencing_lab::zk_client::Setup {
                index: num(get("--index")?)? as usize,
                ports,
                pg_ports: pg_ports(&get("--pg")?)?,
                scale: num(get("--scale-us")?)?,
                dir: get("--dir")?,
                until_ms: num(get("--until-ms")?)?,
                scenario,
                zk,
            })
        })();
        return match setup.and_then(fencing_lab::zk_client::run) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("error {e}");
                ExitCode::from(2)
            }
        };
    }
    if argv.iter().any(|a| a == "--redlock") {
        let setup = (|| -> Result<fencing_lab::redlock_client::Setup, String> {
            let num = |v: String| {
                v.parse::<u64>()
                    .map_err(|_| format!("client: {v}: not a number"))
            };
            let path = get("--scenario")?;
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            let mut ports = Vec::new();
            for p in get("--redlock")?.split(',').filter(|p| !p.is_empty()) {
                ports.push(num(p.into())? as u16);
            }
            Ok(fencing_lab::redlock_client::Setup {
                index: num(get("--index")?)? as usize,
                ports,
                pg_ports: pg_ports(&get("--pg")?)?,
                scale: num(get("--scale-us")?)?,
                scenario: Scenario::from_json(&text).map_err(|e| e.to_string())?,
            })
        })();
        return match setup.and_then(fencing_lab::redlock_client::run) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("error {e}");
                ExitCode::from(2)
            }
        };
    }
    if argv.iter().any(|a| a == "--etcd") {
        let setup = (|| -> Result<fencing_lab::etcd_client::Setup, String> {
            let num = |v: String| {
                v.parse::<u64>()
                    .map_err(|_| format!("client: {v}: not a number"))
            };
            let path = get("--scenario")?;
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            let mut ports = Vec::new();
            for p in get("--etcd")?.split(',').filter(|p| !p.is_empty()) {
                ports.push(num(p.into())? as u16);
            }
            Ok(fencing_lab::etcd_client::Setup {
                index: num(get("--index")?)? as usize,
                ports,
                pg_ports: pg_ports(&get("--pg")?)?,
                scale: num(get("--scale-us")?)?,
                prefix: get("--prefix")?,
                until_ms: num(get("--until-ms")?)?,
                scenario: Scenario::from_json(&text).map_err(|e| e.to_string())?,
            })
        })();
        return match setup.and_then(fencing_lab::etcd_client::run) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("error {e}");
                ExitCode::from(2)
            }
        };
    }
    match setup.and_then(fencing_lab::client::run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("error {e}");
            ExitCode::from(2)
        }
    }
}

/// `fencing-lab zk-facts [--tick MS] [--session-ms MS] [--rounds N]`: measures the ZooKeeper
/// behaviour the model's ZooKeeper presets rest on (`zk_facts.rs`).
fn zk_facts_main(argv: &[String]) -> ExitCode {
    let mut o = fencing_lab::zk_facts::Options {
        tick_ms: 50,
        session_ms: 1000,
        rounds: 3,
    };
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let v = it
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|v| *v >= 1);
        match (flag.as_str(), v) {
            ("--tick", Some(v)) => o.tick_ms = v,
            ("--session-ms", Some(v)) => o.session_ms = v,
            ("--rounds", Some(v)) => o.rounds = v.min(20) as u32,
            _ => {
                eprintln!("usage: fencing-lab zk-facts [--tick MS] [--session-ms MS] [--rounds N]");
                return ExitCode::from(2);
            }
        }
    }
    match fencing_lab::zk_facts::run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zk-facts: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().is_some_and(|a| a == "client") {
        return client_main(&argv[1..]);
    }
    if argv.first().is_some_and(|a| a == "zk-facts") {
        return zk_facts_main(&argv[1..]);
    }
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let code = match a.mode {
        Mode::Presets => run_presets(&a),
        Mode::Replay => run_replay(&a),
        Mode::Random => run_random(&a),
        Mode::Mutants => run_mutants(&a),
    };
    match code {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("lab: {e}");
            ExitCode::from(2)
        }
    }
}

/// `mutants`: each planted model bug in turn (`fencing_lab::mutants::MUTANTS`, or the ones
/// named), its seed's cases against the servers until one disagrees with the planted model, then
/// that case with no bug planted, where the servers must agree. Fails on a bug not caught in
/// `--count` cases, and on a caught case the true model does not match either.
fn run_mutants(a: &Args) -> Result<bool, String> {
    use fencing_lab::mutants::{first_case_changed, MUTANTS};
    use fencing_playground::sim::planted::{self, Bug};
    let mut chosen = Vec::new();
    for name in &a.rest {
        let bug = Bug::named(name).ok_or_else(|| {
            let names: Vec<&str> = Bug::ALL.iter().map(|b| b.name()).collect();
            format!(
                "mutants: no planted bug named {name:?} (there are {})",
                names.join(", ")
            )
        })?;
        chosen.extend(MUTANTS.iter().copied().filter(|(b, _)| *b == bug));
    }
    if chosen.is_empty() {
        chosen = MUTANTS.to_vec();
    }
    if a.jobs > 1 && chosen.len() > 1 {
        return mutants_side_by_side(&chosen, a);
    }
    let lab = start_lab()?;
    let deadline = Instant::now() + Duration::from_secs(a.budget_s);
    let mut ok = true;
    for (bug, seed) in chosen {
        // Why the bug changes the seed's first case is read off the true model's run.
        planted::plant(None);
        let (_, why) = first_case_changed(bug, seed)?;
        println!(
            "mutant {}: planted; seed {seed}, whose first case it changes ({why})",
            bug.name()
        );
        // Drawn by the true model (the draws run it), judged against the planted one.
        let cases: Vec<random::Case> = (0..a.count).filter_map(|n| random::case(seed, n)).collect();
        planted::plant(Some(bug));
        let mut caught = None;
        for c in cases {
            if Instant::now() >= deadline {
                println!(
                    "mutant {}: the budget of {} s ran out",
                    bug.name(),
                    a.budget_s
                );
                break;
            }
            let (r, secs) = judge(&c.name, &c.scenario, &lab, a, deadline);
            print_line(&c.name, &r, secs);
            match r.outcome {
                Outcome::Mismatch(_) => {
                    caught = Some(c);
                    break;
                }
                Outcome::Failed(why) => {
                    planted::plant(None);
                    return Err(format!("{}: {why}", c.name));
                }
                _ => {}
            }
        }
        planted::plant(None);
        let Some(c) = caught else {
            println!(
                "mutant {}: NOT caught: every case run of seed {seed} agreed with the planted model",
                bug.name()
            );
            ok = false;
            continue;
        };
        // The caught case once more, with no bug planted: the true model must agree, so what
        // was caught is the planted bug and nothing else. One case: a budget of its own.
        let (r, secs) = judge(
            &c.name,
            &c.scenario,
            &lab,
            a,
            Instant::now() + Duration::from_secs(120),
        );
        print_line(&c.name, &r, secs);
        if matches!(r.outcome, Outcome::Match) {
            println!(
                "mutant {}: caught by {}; the true model matches the servers on it",
                bug.name(),
                c.name
            );
        } else {
            println!(
                "mutant {}: caught by {}, but the true model is `{}` on it too",
                bug.name(),
                c.name,
                r.outcome.word()
            );
            ok = false;
        }
    }
    Ok(ok)
}

/// `mutants --jobs N`: the bugs dealt round-robin to N processes of this binary, each with its
/// own lab (a planted bug is the whole process's), side by side; each one's output is shown
/// whole when all have ended. Whether every one passed.
fn mutants_side_by_side(
    chosen: &[(fencing_playground::sim::planted::Bug, u64)],
    a: &Args,
) -> Result<bool, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("mutants: cannot find this binary: {e}"))?;
    let n = a.jobs.min(chosen.len());
    let children = (0..n)
        .map(|k| {
            let names = chosen
                .iter()
                .skip(k)
                .step_by(n)
                .map(|(b, _)| b.name().to_string());
            std::process::Command::new(&exe)
                .arg("mutants")
                .args(names)
                .args(["--count", &a.count.to_string()])
                .args(["--tries", &a.tries.to_string()])
                .args(["--scale", &a.scale.to_string()])
                .args(["--budget-s", &a.budget_s.to_string()])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| format!("mutants: cannot start {}: {e}", exe.display()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut ok = true;
    for child in children {
        let out = child
            .wait_with_output()
            .map_err(|e| format!("mutants: a process of this binary failed: {e}"))?;
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        ok &= out.status.success();
    }
    Ok(ok)
}

fn run_replay(a: &Args) -> Result<bool, String> {
    let s = scenario_of_arg(&a.rest[0])?;
    let lab = start_lab()?;
    let deadline = Instant::now() + Duration::from_secs(a.budget_s);
    let name = if s.name.is_empty() {
        "scenario".to_string()
    } else {
        s.name.clone()
    };
    let (r, secs) = judge(&name, &s, &lab, a, deadline);
    print_line(&name, &r, secs);
    if !r.note.is_empty() {
        println!("{:<28} {}", "", r.note);
    }
    Ok(!matches!(
        r.outcome,
        Outcome::Mismatch(_) | Outcome::Late(_) | Outcome::Failed(_)
    ))
}

/// The saved cases, sorted by file name: each a scenario JSON file.
fn corpus() -> Result<Vec<(String, Scenario)>, String> {
    let dir = corpus_dir()?;
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p)
            .map_err(|e| format!("{}: cannot read it: {e}", p.display()))?;
        let s = read_scenario(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        let name = p
            .file_stem()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        out.push((name, s));
    }
    Ok(out)
}

/// One scenario of a presets run: a preset, held to the committed table, or a saved case.
struct Item<'a> {
    /// The preset's id, or the saved case's file name.
    id: &'a str,
    scenario: &'a Scenario,
    preset: bool,
}

/// One scenario of a presets run, on a worker's lab: its line (and why it fails), its result,
/// and whether it passes.
fn preset_job(item: &Item, lab: &Lab, a: &Args, deadline: Instant) -> (check::Result, bool) {
    let (r, secs) = judge(item.id, item.scenario, lab, a, deadline);
    if !item.preset {
        print_line(&format!("corpus/{}", item.id), &r, secs);
        let ok = matches!(r.outcome, Outcome::Match | Outcome::NotReproducible(_));
        if !ok {
            say!(
                "{:<28} fails: a saved case must match the servers on every run",
                ""
            );
        }
        return (r, ok);
    }
    print_line(item.id, &r, secs);
    let mut ok = !matches!(r.outcome, Outcome::Mismatch(_) | Outcome::Failed(_));
    // The committed table must say what this run found, or the page's marks are stale.
    let committed = committed_row(item.id);
    if let Err(why) = tables::against_committed(&r.outcome, committed) {
        say!("{:<28} fails: {why}", "");
        // `--write` records a changed outcome, but never a late one.
        if !a.write || matches!(r.outcome, Outcome::Late(_) | Outcome::Failed(_)) {
            ok = false;
        }
    }
    (r, ok)
}

/// The queue for `a.jobs` workers: one worker takes the jobs in the order given, several the
/// longest first, each keeping to its lock service.
fn queue_of<'a>(scenarios: impl Iterator<Item = &'a Scenario>, a: &Args, jobs: usize) -> Queue {
    let order = scenarios
        .enumerate()
        .map(|(i, s)| (i, jobs::service(s), jobs::cost(s, a.scale)));
    if jobs > 1 {
        Queue::longest_first(order.collect(), true)
    } else {
        Queue::new(order.map(|(i, s, _)| (i, s)).collect(), false)
    }
}

/// The results of a presets run in the items' order, whether each passed, and the ZooKeeper
/// version a worker's running ensemble gave.
type ItemsRun = (Vec<check::Result>, Vec<bool>, Option<String>);

/// Every item on `jobs` workers, each scenario's lines printed together as it ends.
fn run_items(items: &[Item], a: &Args, jobs: usize, deadline: Instant) -> Result<ItemsRun, String> {
    let queue = queue_of(items.iter().map(|it| it.scenario), a, jobs);
    let mut results: Vec<Option<(check::Result, bool)>> = items.iter().map(|_| None).collect();
    let versions = jobs::run(
        jobs,
        &queue,
        Work {
            start: &start_lab,
            ready: &|| {},
            run: &|lab, i| (preset_job(&items[i], lab, a, deadline), false),
            finish: &|lab: Lab| lab.zk.running_version(),
        },
        |i, (r, pass), lines| {
            jobs::print_block(&lines);
            results[i] = Some((r, pass));
        },
    )?;
    let results: Option<Vec<(check::Result, bool)>> = results.into_iter().collect();
    let (results, passes) = results
        .ok_or("a worker stopped before every scenario was run")?
        .into_iter()
        .unzip();
    Ok((results, passes, versions.into_iter().flatten().next()))
}

/// The committed table's row for a preset.
fn committed_row(id: &str) -> Option<&'static str> {
    conformance::ROWS
        .iter()
        .find(|row| row.id == id)
        .map(|row| row.outcome)
}

/// Runs once more, alone, the presets that failed only because their run beside other
/// scenarios compared nothing (`tables::rerun_alone`), and puts each new result and pass in
/// place of the first. A preset that compares nothing alone too still fails.
fn rerun_alone(
    items: &[Item],
    results: &mut [check::Result],
    passes: &mut [bool],
    a: &Args,
) -> Result<(), String> {
    let again: Vec<usize> = (0..results.len())
        .filter(|&i| {
            !passes[i] && tables::rerun_alone(&results[i].outcome, committed_row(items[i].id))
        })
        .collect();
    if again.is_empty() || a.jobs < 2 {
        return Ok(());
    }
    let names: Vec<&str> = again.iter().map(|&i| items[i].id).collect();
    println!(
        "rerun alone, after the others: {} (committed as `match`, compared nothing beside \
         other scenarios; each gets its tries again with nothing else of the lab running)",
        names.join(", ")
    );
    let alone: Vec<Item> = again
        .iter()
        .map(|&i| Item {
            id: items[i].id,
            scenario: items[i].scenario,
            preset: items[i].preset,
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(RERUN_BUDGET_S);
    let (new_results, new_passes, _) = run_items(&alone, a, 1, deadline)?;
    for ((&i, r), pass) in again.iter().zip(new_results).zip(new_passes) {
        results[i] = r;
        passes[i] = pass;
    }
    Ok(())
}

/// Seconds the presets rerun alone may take, beside the run's own budget.
const RERUN_BUDGET_S: u64 = 300;

fn run_presets(a: &Args) -> Result<bool, String> {
    let all = presets();
    if let Some(bad) = a
        .rest
        .iter()
        .find(|id| !all.iter().any(|p| p.id == id.as_str()))
    {
        return Err(format!("no preset named {bad:?}"));
    }
    let saved = if a.rest.is_empty() {
        corpus()?
    } else {
        Vec::new()
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs(a.budget_s);
    let chosen: Vec<_> = all
        .iter()
        .filter(|p| a.rest.is_empty() || a.rest.iter().any(|id| id == p.id))
        .collect();
    let mut items: Vec<Item> = chosen
        .iter()
        .map(|p| Item {
            id: p.id,
            scenario: &p.scenario,
            preset: true,
        })
        .collect();
    items.extend(saved.iter().map(|(name, s)| Item {
        id: name,
        scenario: s,
        preset: false,
    }));
    let (mut results, mut passes, zk_version) = run_items(&items, a, a.jobs, deadline)?;
    rerun_alone(&items, &mut results, &mut passes, a)?;
    let mut ok = passes.iter().all(|&p| p);
    // The saved cases' results were printed; the tables hold the presets', in preset order.
    results.truncate(chosen.len());
    let tolerance_ms = a.scale as f64 * 0.4;
    println!(
        "{} presets and {} saved cases in {:.1} s (scale {}, tolerance {tolerance_ms:.1} ms)",
        results.len(),
        saved.len(),
        started.elapsed().as_secs_f64(),
        a.scale
    );
    if !a.rest.is_empty() {
        if a.write {
            return Err("--write needs every preset; name none".into());
        }
        return Ok(ok);
    }
    let ids: Vec<&str> = all.iter().map(|p| p.id).collect();
    let rows: Vec<&str> = conformance::ROWS.iter().map(|r| r.id).collect();
    for orphan in tables::orphan_rows(&rows, &ids) {
        println!("{orphan:<28} fails: the committed table has a row for it, but no such preset");
        if !a.write {
            ok = false;
        }
    }
    let run = report::Run {
        redis: servers::redis_version(),
        postgres: Postgres::version(),
        etcd: fencing_lab::etcd_cluster::version(),
        zookeeper: zk_version.unwrap_or_else(fencing_lab::zk_cluster::version),
        date: date(),
        scale: a.scale,
        tolerance_ms,
        tries: a.tries,
        budget_s: a.budget_s,
        results,
    };
    write_tables(&run, a, ok)
}

/// `docs/conformance.md` and `src/sim/conformance.rs` as this run writes them: written with
/// `--write` (if the run passed), else compared with the committed ones. Whether the run passed.
fn write_tables(run: &report::Run, a: &Args, mut ok: bool) -> Result<bool, String> {
    let md_path = root()?.join("docs/conformance.md");
    let md_now = std::fs::read_to_string(&md_path)
        .map_err(|e| format!("cannot read {}: {e}", md_path.display()))?;
    // The last long random run's section is written by `random --record`: kept as it is.
    let (_, random_section) = tables::split_random_section(&md_now);
    let files = [
        (md_path.clone(), report::markdown(run) + random_section),
        (root()?.join("src/sim/conformance.rs"), report::rust(run)),
    ];
    for (path, text) in files {
        if a.write {
            if !ok {
                return Err("not writing the tables: this run failed (see above)".into());
            }
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", path.display());
            continue;
        }
        let committed = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if let Some(diff) = tables::first_changed_line(&committed, &text) {
            println!(
                "{} is not what this run writes ({diff}): run `bash scripts/lab.sh --write`",
                path.display()
            );
            ok = false;
        }
    }
    Ok(ok)
}

/// What became of one random case.
enum CaseRun {
    /// The budget had run out before it began.
    NotRun,
    Ran(Outcome),
    /// A mismatch, shrunk but not saved: why.
    NotSaved(String),
}

/// One random case on a worker's lab, its lines said: what became of it, and whether no
/// worker should start another (the budget ran out, the lab failed, or the mismatch
/// `--expect-mismatch` waits for came).
fn random_job(c: &random::Case, lab: &Lab, a: &Args, deadline: Instant) -> (CaseRun, bool) {
    if Instant::now() >= deadline {
        return (CaseRun::NotRun, true);
    }
    let (r, secs) = judge(&c.name, &c.scenario, lab, a, deadline);
    print_line(&c.name, &r, secs);
    say!(
        "{:<28} from {}, {} fault(s): {}",
        "",
        c.base_id,
        c.schedule.faults.len(),
        c.schedule
            .faults
            .iter()
            .map(|f| f.text(&c.base))
            .collect::<Vec<_>>()
            .join("; ")
    );
    match &r.outcome {
        // Not the model's fault and not a case to keep: the run stops here.
        Outcome::Failed(_) => (CaseRun::Ran(r.outcome), true),
        Outcome::Mismatch(_) if a.expect_mismatch => (CaseRun::Ran(r.outcome), true),
        Outcome::Mismatch(_) => {
            let saved = if a.shrink {
                shrink_case(c, lab, a, deadline)
            } else {
                c.scenario.clone()
            };
            match save_case(&c.name, &saved, &r) {
                Ok(()) => (CaseRun::Ran(r.outcome), false),
                Err(e) => (CaseRun::NotSaved(e), true),
            }
        }
        _ => (CaseRun::Ran(r.outcome), false),
    }
}

/// The cases a random run draws: `--case`'s one, or the first `--count` of the seed.
fn draw_cases(a: &Args) -> Result<Vec<random::Case>, String> {
    let numbers = match a.case {
        Some(n) => n..n + 1,
        None => 0..a.count,
    };
    numbers
        .map(|n| {
            random::case_of(a.seed, n, a.service)
                .ok_or_else(|| format!("case {n} of seed {}: no valid scenario drawn", a.seed))
        })
        .collect()
}

type Counts = std::collections::BTreeMap<String, u64>;

/// A random run's counts, over the cases it ran, in case order.
#[derive(Default)]
struct Tally {
    ran: u64,
    matched: u64,
    mismatched: u64,
    late: u64,
    skipped: u64,
    redlock: u64,
    by_base: Counts,
    by_rule: Counts,
    by_fault: Counts,
    /// The mismatching cases saved under `lab/corpus/`.
    found: Vec<String>,
    /// A case was not run: the budget ran out.
    ran_out: bool,
}

/// The cases' counts, in case order. Stops early: an error for a case the lab failed on (or
/// could not save), and with `--expect-mismatch` the lowest-numbered mismatching case's name.
fn tally(
    cases: &[random::Case],
    runs: Vec<Option<CaseRun>>,
    a: &Args,
) -> Result<Result<Tally, String>, String> {
    let mut t = Tally::default();
    for (c, run) in cases.iter().zip(runs) {
        let outcome = match run {
            None | Some(CaseRun::NotRun) => {
                t.ran_out = true;
                continue;
            }
            Some(CaseRun::NotSaved(e)) => return Err(e),
            Some(CaseRun::Ran(o)) => o,
        };
        t.ran += 1;
        *t.by_base.entry(c.base_id.to_string()).or_insert(0) += 1;
        *t.by_rule
            .entry(format!("{:?}", c.scenario.storage.fence_rule))
            .or_insert(0) += 1;
        if c.scenario.lock.redlock().is_some() {
            t.redlock += 1;
        }
        for f in &c.schedule.faults {
            *t.by_fault.entry(fault_kind(f).to_string()).or_insert(0) += 1;
        }
        match outcome {
            Outcome::Match => t.matched += 1,
            Outcome::Late(_) => t.late += 1,
            Outcome::NotReproducible(_) => t.skipped += 1,
            Outcome::Failed(why) => return Err(format!("{}: {why}", c.name)),
            Outcome::Mismatch(_) if a.expect_mismatch => return Ok(Err(c.name.clone())),
            Outcome::Mismatch(_) => {
                t.mismatched += 1;
                t.found.push(c.name.clone());
            }
        }
    }
    Ok(Ok(t))
}

fn run_random(a: &Args) -> Result<bool, String> {
    let cases = draw_cases(a)?;
    // The budget starts once the labs are up (a worker's PostgreSQL takes a while to start).
    let began = std::sync::OnceLock::new();
    let deadline = || *began.get_or_init(Instant::now) + Duration::from_secs(a.budget_s);
    // The mutation test wants the lowest-numbered case the planted bug changes: one at a time.
    let workers = if a.expect_mismatch { 1 } else { a.jobs };
    let queue = queue_of(cases.iter().map(|c| &c.scenario), a, workers);
    let mut runs: Vec<Option<CaseRun>> = cases.iter().map(|_| None).collect();
    let mut in_order = jobs::InOrder::default();
    jobs::run(
        workers,
        &queue,
        Work {
            start: &start_lab,
            ready: &|| {
                began.get_or_init(Instant::now);
            },
            run: &|lab, i| random_job(&cases[i], lab, a, deadline()),
            finish: &|_| (),
        },
        |i, r, lines| {
            jobs::print_block(&in_order.add(i, lines));
            runs[i] = Some(r);
        },
    )?;
    jobs::print_block(&in_order.flush());
    let t = match tally(&cases, runs, a)? {
        Ok(t) => t,
        Err(caught) => {
            println!("caught: {caught}: the servers disagree with this model");
            return Ok(true);
        }
    };
    if t.ran_out {
        println!(
            "the budget of {} s ran out after {} cases",
            a.budget_s, t.ran
        );
    }
    let secs = began.get().map_or(0.0, |t| t.elapsed().as_secs_f64());
    println!(
        "{} random cases (seed {}) in {:.1} s: {} match, {} mismatch, {} late, {} not reproducible",
        t.ran, a.seed, secs, t.matched, t.mismatched, t.late, t.skipped
    );
    if a.record {
        record(a, &t, secs)?;
    }
    if a.expect_mismatch {
        println!("not caught: every case agreed with this model");
        return Ok(false);
    }
    // A late case compared nothing (every try missed the timing on a busy machine): it is
    // counted and shown, and the batch fails when more than a third of the cases it could
    // reproduce went uncompared, so a loaded machine cannot pass a batch that checked little.
    let reproducible = t.ran - t.skipped;
    if t.late * 3 > reproducible {
        println!(
            "fails: {} of {reproducible} reproducible cases were late, more than a third: too little was compared",
            t.late
        );
    }
    Ok(t.mismatched == 0 && t.late * 3 <= reproducible)
}

/// `random --record`: the run's summary into docs/conformance.md.
fn record(a: &Args, t: &Tally, secs: f64) -> Result<(), String> {
    let count = |m: &Counts| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let section = format!(
        "{}\n\nRecorded by `fencing-lab random --seed {} --count {} --record` on {}: Redis \
         {}, PostgreSQL {}, scale {}, on a {}-core machine. **{} cases in {secs:.0} s: \
         {} match, {} mismatch, {} late, {} not \
         reproducible.**{}\n\n- Services: single lock {}, Redlock {}\n- Fence rules: {}\n\
         - Faults drawn: {}\n- Starting presets: {}\n",
        tables::RANDOM_SECTION,
        a.seed,
        a.count,
        date(),
        servers::redis_version(),
        Postgres::version(),
        a.scale,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        t.ran,
        t.matched,
        t.mismatched,
        t.late,
        t.skipped,
        if t.found.is_empty() {
            String::new()
        } else {
            format!(" Saved under `lab/corpus/`: {}.", t.found.join(", "))
        },
        t.ran - t.redlock,
        t.redlock,
        count(&t.by_rule),
        count(&t.by_fault),
        count(&t.by_base),
    );
    let path = root()?.join("docs/conformance.md");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (head, _) = tables::split_random_section(&text);
    // As the tables' writer leaves it (`--write`): the section right after the tables.
    std::fs::write(&path, format!("{}\n{section}", head.trim_end()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The smallest version of a mismatching case that still mismatches, each candidate replayed
/// against the servers (at most twelve of them).
fn shrink_case(c: &random::Case, lab: &Lab, a: &Args, deadline: Instant) -> Scenario {
    let shrunk = shrink_by(&c.base, &c.spec, c.schedule.clone(), 12, |cand| {
        let (r, _) = judge(&c.name, cand, lab, a, deadline);
        matches!(r.outcome, Outcome::Mismatch(_))
    });
    for step in &shrunk.steps {
        say!("{:<28} shrunk: {}", "", step.text);
    }
    fencing_playground::sim::search::fault::scenario_of(&c.base, &shrunk.schedule)
}

fn fault_kind(f: &fencing_playground::sim::search::Fault) -> &'static str {
    use fencing_playground::sim::search::Fault;
    match f {
        Fault::Pause { .. } => "pause",
        Fault::Delay { .. } => "debit delay",
        Fault::ClientClockJump { .. } => "client clock jump",
        Fault::LockClockJump { .. } => "lock clock jump",
        Fault::InstanceCrash { .. } => "instance crash",
        Fault::Partition { .. } => "partition",
        Fault::ClientCrash { .. } => "client crash",
        Fault::Failover { .. } => "failover",
    }
}

fn save_case(name: &str, s: &Scenario, r: &check::Result) -> Result<(), String> {
    let dir = corpus_dir()?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let mut s = s.clone();
    s.caption = format!(
        "{} The servers disagreed: {}",
        s.caption,
        extra(r).trim_start_matches(": ")
    );
    // A case of the same name already saved (the same seed and number drawn again) is kept:
    // it may be a fixed case the tests read. This one goes beside it with a suffix.
    let path = (1..)
        .map(|n| match n {
            1 => dir.join(format!("{name}.json")),
            n => dir.join(format!("{name}-{n}.json")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{name}.json")));
    std::fs::write(&path, s.to_json() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    say!("{:<28} saved as {}", "", path.display());
    Ok(())
}
