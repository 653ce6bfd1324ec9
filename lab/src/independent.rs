//! The conductor for independent clients: one single-lock run with every client its own OS
//! process (`fencing-lab client`, `client.rs`) and the faults done for real, in real time. A
//! pause is `SIGSTOP` then `SIGCONT` of that client's process, a crash `SIGKILL`, a delayed
//! write goes through the lab's delaying proxy (`proxy.rs`). The conductor prepares the
//! servers, starts the clients, sends the signals on the scenario's schedule, and reads the
//! final balance and last fence back; what each client did it reads from the client's own
//! lines. It decides nothing a client decides.

use crate::clock::{mono_us, signal, sleep_until_us};
use crate::pg::Pg;
use crate::resp::Redis;
use crate::servers::{niced, Postgres, RedisServer, TempDir, PG_USER};
use fencing_playground::sim::commands::{RedisCmd, RedisReply, Script};
use fencing_playground::sim::scenario::Event;
use fencing_playground::sim::Scenario;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the conductor did to a client's process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Stop,
    Cont,
    Kill,
}

/// One run as it happened.
pub struct Happened {
    /// Each client's lines, as it printed them.
    pub lines: Vec<Vec<String>>,
    /// Each signal with its client and the real instant it was sent (µs since the start).
    pub signals: Vec<(usize, Signal, u64)>,
    pub balance: i64,
    /// `last_fence` read back (-1: none yet).
    pub last_fence: i64,
    /// Real microseconds per simulated millisecond.
    pub scale_us: u64,
}

/// The signals a scenario asks for, in simulated ms: merged pauses (a stop and a continue)
/// and the first crash of each client; nothing is sent to a process after its crash.
pub fn schedule(s: &Scenario) -> Vec<(u64, usize, Signal)> {
    let mut out = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
        let crash = c
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Crash { at_ms } => Some(*at_ms),
                _ => None,
            })
            .min();
        let mut pauses: Vec<(u64, u64)> = c
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Pause {
                    at_ms, duration_ms, ..
                } => Some((*at_ms, at_ms + duration_ms)),
                _ => None,
            })
            .collect();
        pauses.sort();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (a, b) in pauses {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        for (a, b) in merged {
            if crash.is_some_and(|c| c <= a) {
                break;
            }
            out.push((a, k, Signal::Stop));
            if crash.is_none_or(|c| b < c) {
                out.push((b, k, Signal::Cont));
            }
        }
        if let Some(c) = crash {
            out.push((c, k, Signal::Kill));
        }
    }
    out.sort_by_key(|(t, k, _)| (*t, *k));
    out
}

pub(crate) fn fail(what: impl Into<String>) -> std::io::Error {
    std::io::Error::other(what.into())
}

/// The servers' starting state: the scripts, the fence counter, the account.
fn prepare(s: &Scenario, redis: &RedisServer, pg_port: u16) -> std::io::Result<()> {
    let mut r = Redis::connect(redis.port)?;
    r.call(&["FLUSHALL".to_string()])?;
    for x in Script::ALL {
        let reply = r.call(&RedisCmd::ScriptLoad(x).args(1))?;
        if reply != RedisReply::Bulk(x.sha().to_string()) {
            return Err(fail(format!("SCRIPT LOAD {} answered {reply:?}", x.name())));
        }
    }
    if s.lock.fencing {
        let counter = RedisCmd::SetCounter {
            fence_key: format!("fence:{}", s.key),
            value: s.lock.first_fence as i64 - 1,
        };
        r.call(&counter.args(1))?;
    }
    prepare_storage(s, pg_port)
}

/// The storage's starting state: a fresh `run` database with the schema and the account.
pub(crate) fn prepare_storage(s: &Scenario, pg_port: u16) -> std::io::Result<()> {
    let mut admin = Pg::connect(pg_port, PG_USER, "postgres")?;
    admin.query("DROP DATABASE IF EXISTS run")?;
    admin.query("CREATE DATABASE run")?;
    let mut db = Pg::connect(pg_port, PG_USER, "run")?;
    for q in fencing_playground::sim::commands::scripts::SCHEMA_SQL {
        db.query(q)?;
    }
    let seed = fencing_playground::sim::commands::ops::seed_account_sql(s.storage.balance);
    db.query(&seed)?;
    Ok(())
}

/// The program a client process runs: this one (`fencing-lab client`), or the one named by
/// `FENCING_LAB_CLIENT` (the lab's tests run from a test binary, which has no `client`).
pub(crate) fn client_program() -> std::io::Result<std::path::PathBuf> {
    match std::env::var_os("FENCING_LAB_CLIENT") {
        Some(p) => Ok(p.into()),
        None => std::env::current_exe(),
    }
}

struct Proc {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

/// Replays `s` once with one process per client, `scale` real ms per simulated ms.
pub fn replay(s: &Scenario, pg: &Postgres, scale: u64) -> std::io::Result<Happened> {
    let dir = TempDir::in_memory()?;
    // The lock server's own wall clock, where the scenario moves it (the lab's clock shim).
    let mut clocks = Vec::new();
    let mut clock_file = None;
    if let Some(c) = crate::check::moved_clocks(s).into_iter().next().flatten() {
        let f = Arc::new(crate::shim::ClockFile::create(&dir.0, "r0")?);
        clocks.push((f.clone(), c));
        clock_file = Some(f);
    }
    let redis = RedisServer::start_clocked(&dir.0.join("r0"), false, clock_file)?;
    prepare(s, &redis, pg.port)?;
    let file = dir.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    let scale_us = scale * 1000;
    let start = Arc::new(AtomicU64::new(0));
    let exe = client_program()?;
    let mut procs = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
        let mut ports = Vec::new();
        for (i, e) in c.events.iter().enumerate() {
            let delay = match e {
                Event::Debit { delay_ms, .. } | Event::CheckThenWrite { delay_ms, .. } => *delay_ms,
                _ => continue,
            };
            let port = if delay == 0 {
                pg.port
            } else {
                crate::proxy::delaying(pg.port, start.clone(), delay * scale_us)?
            };
            ports.push(format!("{i}:{port}"));
        }
        let mut cmd = niced(&exe.to_string_lossy());
        cmd.args(["client", "--index", &k.to_string()])
            .args(["--redis", &redis.port.to_string()])
            .args(["--pg", &ports.join(",")])
            .args(["--scale-us", &scale_us.to_string()])
            .arg("--scenario")
            .arg(&file)
            .stdin(Stdio::piped())
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
        procs.push(Proc { child, lines: rx });
    }
    let result = conduct(s, &mut procs, &start, scale_us, clocks);
    for p in &mut procs {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    let (lines, signals) = result?;
    let (balance, last_fence) = final_state(pg.port)?;
    Ok(Happened {
        lines,
        signals,
        balance,
        last_fence,
        scale_us,
    })
}

/// The account's balance and `last_fence` (-1: none yet), read back after a run.
pub(crate) fn final_state(pg_port: u16) -> std::io::Result<(i64, i64)> {
    let mut db = Pg::connect(pg_port, PG_USER, "run")?;
    let a = db.query(&fencing_playground::sim::commands::ops::final_state_sql())?;
    let row = a.rows.first().ok_or_else(|| fail("no account row"))?;
    let number = |i: usize| -> std::io::Result<i64> {
        row.get(i)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| fail("the account row is not two numbers"))
    };
    Ok((number(0)?, number(1)?))
}

type Conducted = (Vec<Vec<String>>, Vec<(usize, Signal, u64)>);

fn conduct(
    s: &Scenario,
    procs: &mut [Proc],
    start: &AtomicU64,
    scale_us: u64,
    clocks: Vec<(
        Arc<crate::shim::ClockFile>,
        fencing_playground::sim::clock::Clock,
    )>,
) -> std::io::Result<Conducted> {
    let ready_by = std::time::Duration::from_secs(10);
    for (k, p) in procs.iter().enumerate() {
        match p.lines.recv_timeout(ready_by) {
            Ok(l) if l == "ready" => {}
            other => return Err(fail(format!("client {k} did not start: {other:?}"))),
        }
    }
    crate::servers::prioritise_this_thread();
    let t0 = mono_us() + 30_000;
    start.store(t0, Ordering::SeqCst);
    let _clock_driver = (!clocks.is_empty())
        .then(|| crate::shim::Driver::start(clocks, t0, scale_us, s.horizon_ms() + s.lock.ttl_ms));
    for p in procs.iter_mut() {
        let stdin = p.child.stdin.as_mut().ok_or_else(|| fail("no stdin"))?;
        writeln!(stdin, "{t0}")?;
        stdin.flush()?;
    }
    let mut signals = Vec::new();
    for (at_ms, k, sig) in schedule(s) {
        sleep_until_us(t0 + at_ms * scale_us);
        let number = match sig {
            Signal::Stop => libc::SIGSTOP,
            Signal::Cont => libc::SIGCONT,
            Signal::Kill => libc::SIGKILL,
        };
        let sent = mono_us().saturating_sub(t0);
        signal(procs[k].child.id(), number);
        signals.push((k, sig, sent));
    }
    // Every client ends on its own once its agenda is done; one that does not by well after
    // the run's end has broken.
    let end = t0 + (s.horizon_ms() + s.lock.ttl_ms) * scale_us + 5_000_000;
    for (k, p) in procs.iter_mut().enumerate() {
        loop {
            if p.child.try_wait()?.is_some() {
                break;
            }
            if mono_us() > end {
                return Err(fail(format!("client {k} did not finish")));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    let lines = procs.iter().map(|p| p.lines.iter().collect()).collect();
    Ok((lines, signals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::PauseCause;

    #[test]
    fn overlapping_pauses_are_one_stop_and_nothing_follows_a_crash() {
        let mut s = preset("gc-pause-fenced").expect("preset");
        let pause = |at_ms, duration_ms| Event::Pause {
            at_ms,
            duration_ms,
            cause: PauseCause::Gc,
        };
        s.clients[0].events = vec![
            pause(1, 10),
            pause(5, 10),
            pause(40, 5),
            Event::Crash { at_ms: 42 },
            pause(60, 5),
        ];
        assert_eq!(
            schedule(&s),
            vec![
                (1, 0, Signal::Stop),
                (15, 0, Signal::Cont),
                (40, 0, Signal::Stop),
                (42, 0, Signal::Kill),
            ]
        );
    }
}
