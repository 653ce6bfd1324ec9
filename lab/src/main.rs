//! `fencing-lab`: replays scenarios against real Redis and PostgreSQL servers and compares what
//! happened with the model.
//!
//! - `fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [PRESET…]`: every preset
//!   (or the ones named), then every saved case under `lab/corpus/`. It fails on a mismatch, on
//!   a preset whose outcome differs from the committed table (a preset committed as `match`
//!   that comes back late fails too), on an orphan row, and when the committed
//!   `docs/conformance.md` or `src/sim/conformance.rs` is not what this run writes (the date
//!   aside); `--write` regenerates both from this run instead.
//! - `fencing-lab replay FILE|LINK`: one scenario, from a JSON file, a file holding a share
//!   link, or a share link itself (`https://…/#s=1.…`).
//! - `fencing-lab random [--seed S] [--count N]`: generated scenarios (`random.rs`); a case
//!   the servers disagree on is shrunk and saved under `lab/corpus/`.
//! - `fencing-lab client …`: one client process of a single-lock run, started by the lab
//!   itself (`independent.rs`, `client.rs`); not meant to be run by hand.

use fencing_lab::check::{self, Outcome};
use fencing_lab::input::read_scenario;
use fencing_lab::random;
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
  fencing-lab [--write] [--scale N] [--tries N] [--budget-s N] [PRESET…]
  fencing-lab replay FILE|LINK [--scale N] [--tries N]
  fencing-lab random [--seed S] [--count N | --case N] [--scale N] [--tries N]
                     [--budget-s N] [--no-shrink] [--expect-mismatch] [--record]
                     (cases are numbered from 1: `--case 5` is the fifth case of the seed)";

#[derive(PartialEq)]
enum Mode {
    Presets,
    Replay,
    Random,
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
    /// Preset ids, or the one file or link to replay.
    rest: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1).peekable();
    let mode = match it.peek().map(String::as_str) {
        Some("replay") => Mode::Replay,
        Some("random") => Mode::Random,
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
            "--seed" if a.mode == Mode::Random => a.seed = number("--seed", u64::MAX)?,
            "--count" if a.mode == Mode::Random => a.count = number("--count", 100_000)?,
            "--case" if a.mode == Mode::Random => {
                a.case = Some(number("--case", 100_000)?.saturating_sub(1))
            }
            "--no-shrink" if a.mode == Mode::Random => a.shrink = false,
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
    println!(
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

/// `fencing-lab client …`: one client process of an independent run (`client.rs`), or of an
/// etcd run with `--etcd PORT,…` (`etcd_client.rs`).
fn client_main(argv: &[String]) -> ExitCode {
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
        let setup = (|| -> Result<fencing_lab::pg_client::Setup, String> {
            let num = |v: String| {
                v.parse::<u64>()
                    .map_err(|_| format!("client: {v}: not a number"))
            };
            let path = get("--scenario")?;
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            Ok(fencing_lab::pg_client::Setup {
                index: num(get("--index")?)? as usize,
                port: num(get("--advisory")?)? as u16,
                pg_ports: pg_ports(&get("--pg")?)?,
                scale: num(get("--scale-us")?)?,
                until_ms: num(get("--until-ms")?)?,
                scenario: Scenario::from_json(&text).map_err(|e| e.to_string())?,
            })
        })();
        return match setup.and_then(fencing_lab::pg_client::run) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("error {e}");
                ExitCode::from(2)
            }
        };
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
    let lab = start_lab()?;
    let mut results = Vec::new();
    let mut ok = true;
    for p in all
        .iter()
        .filter(|p| a.rest.is_empty() || a.rest.iter().any(|id| id == p.id))
    {
        let (r, secs) = judge(p.id, &p.scenario, &lab, a, deadline);
        print_line(p.id, &r, secs);
        if matches!(r.outcome, Outcome::Mismatch(_) | Outcome::Failed(_)) {
            ok = false;
        }
        // The committed table must say what this run found, or the page's marks are stale.
        let committed = conformance::ROWS
            .iter()
            .find(|row| row.id == p.id)
            .map(|row| row.outcome);
        if let Err(why) = tables::against_committed(&r.outcome, committed) {
            println!("{:<28} fails: {why}", "");
            // `--write` records a changed outcome, but never a late one.
            if !a.write || matches!(r.outcome, Outcome::Late(_) | Outcome::Failed(_)) {
                ok = false;
            }
        }
        results.push(r);
    }
    for (name, s) in &saved {
        let (r, secs) = judge(name, s, &lab, a, deadline);
        print_line(&format!("corpus/{name}"), &r, secs);
        if !matches!(r.outcome, Outcome::Match | Outcome::NotReproducible(_)) {
            println!(
                "{:<28} fails: a saved case must match the servers on every run",
                ""
            );
            ok = false;
        }
    }
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
        zookeeper: lab.zk.version(),
        date: date(),
        scale: a.scale,
        tolerance_ms,
        tries: a.tries,
        budget_s: a.budget_s,
        results,
    };
    let md_path = root()?.join("docs/conformance.md");
    let md_now = std::fs::read_to_string(&md_path)
        .map_err(|e| format!("cannot read {}: {e}", md_path.display()))?;
    // The last long random run's section is written by `random --record`: kept as it is.
    let (_, random_section) = tables::split_random_section(&md_now);
    let files = [
        (md_path.clone(), report::markdown(&run) + random_section),
        (root()?.join("src/sim/conformance.rs"), report::rust(&run)),
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

fn run_random(a: &Args) -> Result<bool, String> {
    let lab = start_lab()?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(a.budget_s);
    let (mut matched, mut mismatched, mut late, mut skipped) = (0, 0, 0, 0);
    let mut ran = 0;
    type Counts = std::collections::BTreeMap<String, u64>;
    let (mut by_base, mut by_rule, mut by_fault) = (Counts::new(), Counts::new(), Counts::new());
    let mut redlock = 0;
    let mut found = Vec::new();
    let cases = match a.case {
        Some(n) => n..n + 1,
        None => 0..a.count,
    };
    for n in cases {
        if Instant::now() >= deadline {
            println!("the budget of {} s ran out after {ran} cases", a.budget_s);
            break;
        }
        let Some(c) = random::case(a.seed, n) else {
            return Err(format!(
                "case {n} of seed {}: no valid scenario drawn",
                a.seed
            ));
        };
        ran += 1;
        *by_base.entry(c.base_id.to_string()).or_insert(0) += 1;
        *by_rule
            .entry(format!("{:?}", c.scenario.storage.fence_rule))
            .or_insert(0) += 1;
        if c.scenario.lock.redlock.is_some() {
            redlock += 1;
        }
        for f in &c.schedule.faults {
            *by_fault.entry(fault_kind(f).to_string()).or_insert(0) += 1;
        }
        let (r, secs) = judge(&c.name, &c.scenario, &lab, a, deadline);
        print_line(&c.name, &r, secs);
        println!(
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
        match r.outcome {
            Outcome::Match => matched += 1,
            Outcome::Late(_) => late += 1,
            Outcome::NotReproducible(_) => skipped += 1,
            Outcome::Failed(why) => {
                // Not the model's fault and not a case to keep: the run stops here.
                return Err(format!("{}: {why}", c.name));
            }
            Outcome::Mismatch(_) => {
                mismatched += 1;
                if a.expect_mismatch {
                    println!("caught: {}: the servers disagree with this model", c.name);
                    return Ok(true);
                }
                let saved = if a.shrink {
                    shrink_case(&c, &lab, a, deadline)
                } else {
                    c.scenario.clone()
                };
                save_case(&c.name, &saved, &r)?;
                found.push(c.name.clone());
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{ran} random cases (seed {}) in {:.1} s: {matched} match, {mismatched} mismatch, \
         {late} late, {skipped} not reproducible",
        a.seed, secs
    );
    if a.record {
        let count = |m: &Counts| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let section = format!(
            "{}\n\nRecorded by `fencing-lab random --seed {} --count {} --record` on {}: Redis \
             {}, PostgreSQL {}, scale {}, on a {}-core machine. **{ran} cases in {secs:.0} s: \
             {matched} match, {mismatched} mismatch, {late} late, {skipped} not \
             reproducible.**{}\n\n- Services: single lock {}, Redlock {redlock}\n- Fence rules: {}\n\
             - Faults drawn: {}\n- Starting presets: {}\n",
            tables::RANDOM_SECTION,
            a.seed,
            a.count,
            date(),
            servers::redis_version(),
            Postgres::version(),
            a.scale,
            std::thread::available_parallelism().map_or(0, |n| n.get()),
            if found.is_empty() {
                String::new()
            } else {
                format!(" Saved under `lab/corpus/`: {}.", found.join(", "))
            },
            ran - redlock,
            count(&by_rule),
            count(&by_fault),
            count(&by_base),
        );
        let path = root()?.join("docs/conformance.md");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (head, _) = tables::split_random_section(&text);
        // As the tables' writer leaves it (`--write`): the section right after the tables.
        std::fs::write(&path, format!("{}\n{section}", head.trim_end()))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if a.expect_mismatch {
        println!("not caught: every case agreed with this model");
        return Ok(false);
    }
    // A late case compared nothing (every try missed the timing on a busy machine): it is
    // counted and shown, and the batch fails when more than a third of the cases it could
    // reproduce went uncompared, so a loaded machine cannot pass a batch that checked little.
    let reproducible = ran - skipped;
    if late * 3 > reproducible {
        println!(
            "fails: {late} of {reproducible} reproducible cases were late, more than a third: too little was compared"
        );
    }
    Ok(mismatched == 0 && late * 3 <= reproducible)
}

/// The smallest version of a mismatching case that still mismatches, each candidate replayed
/// against the servers (at most twelve of them).
fn shrink_case(c: &random::Case, lab: &Lab, a: &Args, deadline: Instant) -> Scenario {
    let shrunk = shrink_by(&c.base, &c.spec, c.schedule.clone(), 12, |cand| {
        let (r, _) = judge(&c.name, cand, lab, a, deadline);
        matches!(r.outcome, Outcome::Mismatch(_))
    });
    for step in &shrunk.steps {
        println!("{:<28} shrunk: {}", "", step.text);
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
    println!("{:<28} saved as {}", "", path.display());
    Ok(())
}
