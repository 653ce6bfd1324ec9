//! One PostgreSQL advisory-lock run with independent clients: every client its own
//! `fencing-lab client --advisory` process (`pg_client.rs`) against the lab's PostgreSQL, the
//! faults done for real: a client's pause is `SIGSTOP`/`SIGCONT` of its process (its kernel
//! still answers the server, as the model says), its crash `SIGKILL` (the kernel closes the
//! socket and the server ends the session). A failover is stood in for: the lab runs no standby,
//! so at the model's instant it terminates every lock session (`pg_terminate_backend` of each
//! `lock-*` backend), which is what a promotion does to them: their sessions end and no
//! advisory lock survives, while the account's rows stay. The run's `note` says so.

use crate::clock::{mono_us, signal, sleep_until_us};
use crate::etcd_run::run_end_ms;
use crate::independent::{client_program, fail, prepare_storage, schedule, Happened, Signal};
use crate::pg::Pg;
use crate::servers::{niced, Postgres, TempDir, PG_USER};
use fencing_playground::sim::scenario::{Event, ServerEvent};
use fencing_playground::sim::{Scenario, Trace};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

/// What the lab says about a failover it stood in for.
pub const FAILOVER_NOTE: &str = "failover: every lock session terminated \
    (pg_terminate_backend) at the model's instant; the lab runs no standby";

/// A client process and its lines as they come.
pub(crate) struct Proc {
    pub(crate) child: Child,
    pub(crate) lines: std::sync::mpsc::Receiver<String>,
}

/// Starts a client process (its stdout read line by line on a thread of the conductor's).
pub(crate) fn spawn(mut cmd: std::process::Command) -> std::io::Result<Proc> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = cmd.spawn()?;
    let out = child.stdout.take().ok_or_else(|| fail("no stdout"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Ok(Proc { child, lines: rx })
}

/// Each debit event's port for a client's `--pg`: the server's, or a delaying proxy's for a
/// delayed debit (`event:port`, comma-separated).
pub(crate) fn debit_ports(
    c: &fencing_playground::sim::scenario::Client,
    port: u16,
    start: &Arc<AtomicU64>,
    scale_us: u64,
) -> std::io::Result<String> {
    let mut out = Vec::new();
    for (i, ev) in c.events.iter().enumerate() {
        let Event::Debit { delay_ms, .. } = ev else {
            continue;
        };
        let p = if *delay_ms == 0 {
            port
        } else {
            crate::proxy::delaying(port, start.clone(), delay_ms * scale_us)?
        };
        out.push(format!("{i}:{p}"));
    }
    Ok(out.join(","))
}

/// Replays `s` once, `scale_us` real µs per simulated ms.
pub fn replay(s: &Scenario, t: &Trace, pg: &Postgres, scale_us: u64) -> std::io::Result<Happened> {
    let a = s
        .lock
        .advisory()
        .ok_or_else(|| fail("not an advisory-lock scenario"))?;
    prepare_storage(s, pg.port)?;
    let dir = TempDir::in_memory()?;
    let file = dir.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    let end_ms = run_end_ms(s, t);
    let start = Arc::new(AtomicU64::new(0));
    let exe = client_program()?;
    // The conductor's own session, opened before the run.
    let mut admin = Pg::connect(pg.port, PG_USER, "run")?;
    let mut procs = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
        let pg_ports = debit_ports(c, pg.port, &start, scale_us)?;
        let mut cmd = niced(&exe.to_string_lossy());
        cmd.args(["client", "--index", &k.to_string()])
            .args(["--advisory", &pg.port.to_string()])
            .args(["--pg", &pg_ports])
            .args(["--until-ms", &end_ms.to_string()])
            .args(["--scale-us", &scale_us.to_string()])
            .arg("--scenario")
            .arg(&file);
        procs.push(spawn(cmd)?);
    }
    let failovers: Vec<u64> = a.events.iter().map(ServerEvent::at_ms).collect();
    let mut terminate = || -> std::io::Result<()> {
        let a = admin.query(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE application_name LIKE 'lock-%'",
        )?;
        match a.error {
            Some(e) => Err(fail(format!("the failover's pg_terminate_backend: {e}"))),
            None => Ok(()),
        }
    };
    let run = Run {
        s,
        failovers: &failovers,
        start: &start,
        scale_us,
        end_ms,
        clocks: Vec::new(),
    };
    let result = conduct(run, &mut procs, &mut terminate);
    for p in &mut procs {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    let (lines, signals) = result?;
    let mut db = Pg::connect(pg.port, PG_USER, "run")?;
    let answer = db.query(&fencing_playground::sim::commands::ops::final_state_sql())?;
    let row = answer.rows.first().ok_or_else(|| fail("no account row"))?;
    let number = |i: usize| -> std::io::Result<i64> {
        row.get(i)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| fail("the account row is not two numbers"))
    };
    Ok(Happened {
        lines,
        signals,
        balance: number(0)?,
        last_fence: number(1)?,
        scale_us,
    })
}

pub(crate) type Conducted = (Vec<Vec<String>>, Vec<(usize, Signal, u64)>);

/// What the conductor needs of a run: its scenario, the failovers' instants, the shared start
/// instant (for the delaying proxies), the scale and the run's end.
pub(crate) struct Run<'a> {
    pub(crate) s: &'a Scenario,
    pub(crate) failovers: &'a [u64],
    pub(crate) start: &'a AtomicU64,
    pub(crate) scale_us: u64,
    pub(crate) end_ms: u64,
    /// Clients' clocks under the shim, driven from the run's start, each reading at its
    /// instant (none for advisory locks).
    pub(crate) clocks: Vec<(
        Arc<crate::shim::ClockFile>,
        fencing_playground::sim::clock::Clock,
    )>,
}

enum Due {
    Client(usize, Signal),
    Failover,
}

/// Starts the clients together, sends each signal and does each failover (`failover`) at its
/// instant, and waits for the clients to end; shared by the advisory-lock and lease runs.
pub(crate) fn conduct(
    run: Run,
    procs: &mut [Proc],
    failover: &mut dyn FnMut() -> std::io::Result<()>,
) -> std::io::Result<Conducted> {
    let Run {
        s,
        failovers,
        start,
        scale_us,
        end_ms,
        clocks,
    } = run;
    for (k, p) in procs.iter().enumerate() {
        match p.lines.recv_timeout(Duration::from_secs(10)) {
            Ok(l) if l == "ready" => {}
            other => return Err(fail(format!("client {k} did not start: {other:?}"))),
        }
    }
    let mut plan: Vec<(u64, Due)> = schedule(s)
        .into_iter()
        .map(|(at, k, sig)| (at, Due::Client(k, sig)))
        .collect();
    plan.extend(failovers.iter().map(|&at| (at, Due::Failover)));
    plan.sort_by_key(|(at, _)| *at);
    crate::servers::prioritise_this_thread();
    let t0 = mono_us() + 30_000;
    start.store(t0, std::sync::atomic::Ordering::SeqCst);
    let drive = |c| crate::shim::Driver::start_leading(c, t0, scale_us, end_ms, 0);
    let _driver = (!clocks.is_empty()).then(|| drive(clocks));
    for p in procs.iter_mut() {
        let stdin = p.child.stdin.as_mut().ok_or_else(|| fail("no stdin"))?;
        writeln!(stdin, "{t0}")?;
        stdin.flush()?;
    }
    let mut signals = Vec::new();
    for (at_ms, due) in plan {
        if at_ms > end_ms {
            break;
        }
        sleep_until_us(t0 + at_ms * scale_us);
        match due {
            Due::Client(k, sig) => {
                let number = match sig {
                    Signal::Stop => libc::SIGSTOP,
                    Signal::Cont => libc::SIGCONT,
                    Signal::Kill => libc::SIGKILL,
                };
                let sent = mono_us().saturating_sub(t0);
                signal(procs[k].child.id(), number);
                signals.push((k, sig, sent));
            }
            Due::Failover => failover()?,
        }
    }
    // A lock call still waiting when the run ends never returns (the model's wait stays open
    // too): such a client is killed once every other has finished, its lines kept.
    let end = t0 + (end_ms + 5) * scale_us + 3_000_000;
    for p in procs.iter_mut() {
        while p.child.try_wait()?.is_none() {
            if mono_us() > end {
                let _ = p.child.kill();
                let _ = p.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let lines = procs.iter().map(|p| p.lines.iter().collect()).collect();
    Ok((lines, signals))
}
