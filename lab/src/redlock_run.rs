//! One Redlock run with independent clients: a `redis-server` per instance, one
//! `fencing-lab client --redlock` process per client (`redlock_client.rs`), and between each
//! client and each instance a proxy of the lab's own (`redlock_proxy.rs`) that carries the
//! instance's latency and drops what the scenario cuts (a partition, the instance down). The
//! faults are real and in real time: a client's pause is `SIGSTOP`/`SIGCONT`, its crash
//! `SIGKILL`; an instance's crash is `SIGKILL` of its `redis-server` (with an append-only file,
//! `appendfsync always`, where the crash keeps its keys) and its restart a new process: on
//! the same port, started early enough to answer at the model's instant, where it reloads its
//! keys; where the crash loses them, an empty `redis-server` started before the run (as the
//! restart would come up), to which the proxies turn at the crash. The proxies keep the
//! instance unreachable until the model's restart instant. A moved instance clock is the lab's
//! clock shim. The conductor
//! decides nothing a client decides: it reads what the clients printed and the final balance.

use crate::clock::{mono_us, signal, sleep_until_us};
use crate::independent::{schedule, Happened, Signal};
use crate::redlock_proxy::{Delivery, Link};
use crate::resp::Redis;
use crate::servers::{niced, Postgres, RedisServer, TempDir};
use fencing_playground::sim::commands::{RedisCmd, RedisReply, Script};
use fencing_playground::sim::scenario::{InstanceEvent, Redlock};
use fencing_playground::sim::Scenario;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What the table says about how the lab does a Redlock scenario's instance faults.
pub const FAULTS_NOTE: &str = "instance crash: SIGKILL of its redis-server, restarted on the \
     same port (append-only file with fsync always where it keeps its keys); latency and \
     partition: the lab's proxy between each client and each instance delays every packet by \
     the latency and drops what a client sends while the two are cut off or the instance is \
     down (no answer, as from a crashed host)";

/// A Redlock run as it happened: the clients' lines and signals, the proxies' log, and what
/// went wrong with the instances' restarts, if anything.
pub struct Run {
    pub h: Happened,
    pub deliveries: Vec<Delivery>,
    /// A restart that was not answering by the model's instant (real µs late).
    pub late_restart: Option<String>,
}

/// An instance's outages: crashes whose down times overlap or touch merged, `(killed at, back
/// at, keys kept)`, the keys kept only if every crash of the outage keeps them.
pub fn outages(events: &[InstanceEvent]) -> Vec<(u64, u64, bool)> {
    let mut crashes: Vec<(u64, u64, bool)> = events
        .iter()
        .filter_map(|e| match e {
            InstanceEvent::Crash {
                at_ms,
                down_ms,
                persistent,
            } => Some((*at_ms, at_ms.saturating_add(*down_ms), *persistent)),
            _ => None,
        })
        .collect();
    crashes.sort();
    let mut out: Vec<(u64, u64, bool)> = Vec::new();
    for (at, back, kept) in crashes {
        match out.last_mut() {
            Some(last) if at <= last.1 => {
                last.1 = last.1.max(back);
                last.2 &= kept;
            }
            _ => out.push((at, back, kept)),
        }
    }
    out
}

/// When client `k` and instance `i` cannot talk, in simulated ms: a partition between them
/// (or from everyone), or the instance down.
pub fn cut_windows(s: &Scenario, r: &Redlock, k: usize, i: usize) -> Vec<(u64, u64)> {
    let name = &s.clients[k].name;
    let inst = &r.instances[i];
    let mut out: Vec<(u64, u64)> = outages(&inst.events)
        .into_iter()
        .map(|(a, b, _)| (a, b))
        .collect();
    for e in &inst.events {
        if let InstanceEvent::Partition {
            at_ms,
            duration_ms,
            client,
        } = e
        {
            if client.as_ref().is_none_or(|c| c == name) {
                out.push((*at_ms, at_ms.saturating_add(*duration_ms)));
            }
        }
    }
    out
}

fn fail(what: impl Into<String>) -> std::io::Error {
    std::io::Error::other(what.into())
}

/// An instance's starting state: no keys, the three scripts, the fence counter.
fn prepare_instance(port: u16, s: &Scenario, r: &Redlock) -> std::io::Result<()> {
    let mut c = Redis::connect(port)?;
    c.call(&["FLUSHALL".to_string()])?;
    load_scripts(&mut c)?;
    if r.fence {
        let counter = RedisCmd::SetCounter {
            fence_key: format!("fence:{}", s.key),
            value: s.lock.first_fence as i64 - 1,
        };
        c.call(&counter.args(1))?;
    }
    Ok(())
}

/// Scripts live in memory only: a started or restarted server needs them loaded.
fn load_scripts(c: &mut Redis) -> std::io::Result<()> {
    for x in Script::ALL {
        let reply = c.call(&RedisCmd::ScriptLoad(x).args(1))?;
        if reply != RedisReply::Bulk(x.sha().to_string()) {
            return Err(fail(format!("SCRIPT LOAD {} answered {reply:?}", x.name())));
        }
    }
    Ok(())
}

/// How long before the model's restart instant the lab starts the new process (real µs): a
/// `redis-server` takes some tens of ms to answer; the proxies keep it unreachable meanwhile.
const RESTART_LEAD_US: u64 = 300_000;

/// Replays `s` once, `scale` real ms per simulated ms.
pub fn replay(s: &Scenario, pg: &Postgres, scale: u64) -> std::io::Result<Run> {
    let r = s
        .lock
        .redlock()
        .cloned()
        .ok_or_else(|| fail("not a Redlock scenario"))?;
    let dir = TempDir::in_memory()?;
    let scale_us = scale * 1000;
    let moved = crate::check::moved_clocks(s);
    let mut clocks = Vec::new();
    let mut servers = Vec::new();
    let mut spares: Vec<Vec<RedisServer>> = Vec::new();
    for (i, inst) in r.instances.iter().enumerate() {
        let keeps = inst.events.iter().any(|e| {
            matches!(
                e,
                InstanceEvent::Crash {
                    persistent: true,
                    ..
                }
            )
        });
        let clock = match moved.get(i).cloned().flatten() {
            Some(c) => {
                let f = Arc::new(crate::shim::ClockFile::create(&dir.0, &format!("r{i}"))?);
                clocks.push((f.clone(), c));
                Some(f)
            }
            None => None,
        };
        let server =
            RedisServer::start_clocked(&dir.0.join(format!("r{i}")), keeps, clock.clone())?;
        prepare_instance(server.port, s, &r)?;
        servers.push(server);
        // One empty server for each restart that loses the keys: scripts loaded, no fence
        // counter, as a restarted server holds.
        let mut mine = Vec::new();
        for (n, _) in outages(&inst.events).iter().filter(|o| !o.2).enumerate() {
            let dir = dir.0.join(format!("r{i}-restart{n}"));
            let spare = RedisServer::start_clocked(&dir, keeps, clock.clone())?;
            let mut c = Redis::connect(spare.port)?;
            c.call(&["FLUSHALL".to_string()])?;
            load_scripts(&mut c)?;
            mine.push(spare);
        }
        mine.reverse();
        spares.push(mine);
    }
    let server_ports: Vec<Arc<AtomicU16>> = servers
        .iter()
        .map(|x| Arc::new(AtomicU16::new(x.port)))
        .collect();
    crate::independent::prepare_storage(s, pg.port)?;
    let file = dir.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    let start = Arc::new(AtomicU64::new(0));
    let epochs: Vec<Arc<AtomicU64>> = (0..servers.len())
        .map(|_| Arc::new(AtomicU64::new(0)))
        .collect();
    let log = Arc::new(Mutex::new(Vec::new()));
    let exe = crate::independent::client_program()?;
    let mut procs = Vec::new();
    // Stopped when the run is over.
    let mut proxies = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
        let mut ports = Vec::new();
        for (i, inst) in r.instances.iter().enumerate() {
            let link = Link {
                client: k,
                instance: i,
                server_port: server_ports[i].clone(),
                latency_us: inst.latency_ms * scale_us,
                cut_us: cut_windows(s, &r, k, i)
                    .into_iter()
                    .map(|(a, b)| (a * scale_us, b.saturating_mul(scale_us)))
                    .collect(),
                start: start.clone(),
                epoch: epochs[i].clone(),
                log: log.clone(),
            };
            let proxy = crate::redlock_proxy::start(link)?;
            ports.push(proxy.port.to_string());
            proxies.push(proxy);
        }
        let mut pg_ports = Vec::new();
        for (i, e) in c.events.iter().enumerate() {
            if let fencing_playground::sim::Event::Debit { delay_ms, .. } = e {
                let port = if *delay_ms == 0 {
                    pg.port
                } else {
                    crate::proxy::delaying(pg.port, start.clone(), delay_ms * scale_us)?
                };
                pg_ports.push(format!("{i}:{port}"));
            }
        }
        let mut cmd = niced(&exe.to_string_lossy());
        cmd.args(["client", "--redlock", &ports.join(",")])
            .args(["--index", &k.to_string()])
            .args(["--pg", &pg_ports.join(",")])
            .args(["--scale-us", &scale_us.to_string()])
            .arg("--scenario")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        procs.push(spawn(cmd)?);
    }
    let instances = Instances {
        servers,
        spares,
        ports: server_ports,
        epochs,
    };
    let result = conduct(s, &r, &mut procs, (&start, scale_us), clocks, instances);
    for p in &mut procs {
        let _ = p.0.kill();
        let _ = p.0.wait();
    }
    let (lines, signals, late_restart) = result?;
    let (balance, last_fence) = crate::independent::final_state(pg.port)?;
    let deliveries = log.lock().map(|l| l.clone()).unwrap_or_default();
    Ok(Run {
        h: Happened {
            lines,
            signals,
            balance,
            last_fence,
            scale_us,
        },
        deliveries,
        late_restart,
    })
}

type Proc = (Child, std::sync::mpsc::Receiver<String>);

fn spawn(mut cmd: std::process::Command) -> std::io::Result<Proc> {
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
    Ok((child, rx))
}

type Conducted = (Vec<Vec<String>>, Vec<(usize, Signal, u64)>, Option<String>);

fn conduct(
    s: &Scenario,
    r: &Redlock,
    procs: &mut [Proc],
    (start, scale_us): (&AtomicU64, u64),
    clocks: Vec<(
        Arc<crate::shim::ClockFile>,
        fencing_playground::sim::clock::Clock,
    )>,
    instances: Instances,
) -> std::io::Result<Conducted> {
    for (k, p) in procs.iter().enumerate() {
        match p.1.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(l) if l == "ready" => {}
            other => return Err(fail(format!("client {k} did not start: {other:?}"))),
        }
    }
    crate::servers::prioritise_this_thread();
    let t0 = mono_us() + 30_000;
    let end_ms = s.horizon_ms() + s.lock.ttl_ms;
    start.store(t0, Ordering::SeqCst);
    let _clock_driver =
        (!clocks.is_empty()).then(|| crate::shim::Driver::start(clocks, t0, scale_us, end_ms));
    let instances = instance_thread(r, instances, t0, scale_us);
    for p in procs.iter_mut() {
        let stdin = p.0.stdin.as_mut().ok_or_else(|| fail("no stdin"))?;
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
        signal(procs[k].0.id(), number);
        signals.push((k, sig, sent));
    }
    let end = t0 + end_ms * scale_us + 5_000_000;
    for (k, p) in procs.iter_mut().enumerate() {
        loop {
            if p.0.try_wait()?.is_some() {
                break;
            }
            if mono_us() > end {
                return Err(fail(format!("client {k} did not finish")));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    let (late, _instances) = instances
        .join()
        .map_err(|_| fail("the instances' thread panicked"))??;
    let mut lines = Vec::new();
    for (k, p) in procs.iter().enumerate() {
        lines.push(drain(&p.1, mono_us() + 10_000_000).ok_or_else(|| {
            fail(format!(
                "client {k}'s output did not end after its process had ended"
            ))
        })?);
    }
    Ok((lines, signals, late))
}

/// Every line a client printed, to the end of its output: its process having ended does not
/// mean the thread reading its pipe has passed on every line yet (on a busy machine the last
/// ones, often a debit's verdict, were still in the pipe, and the judge saw the client do
/// nothing there). `None` when the output has not ended by `until_us`.
fn drain(rx: &std::sync::mpsc::Receiver<String>, until_us: u64) -> Option<Vec<String>> {
    let mut out = Vec::new();
    loop {
        let left = until_us.saturating_sub(mono_us());
        match rx.recv_timeout(std::time::Duration::from_micros(left)) {
            Ok(l) => out.push(l),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Some(out),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return None,
        }
    }
}

/// The instances' servers and what the proxies read of them.
struct Instances {
    servers: Vec<RedisServer>,
    /// Per instance, the empty servers its restarts that lose the keys turn to, next last.
    spares: Vec<Vec<RedisServer>>,
    ports: Vec<Arc<AtomicU16>>,
    epochs: Vec<Arc<AtomicU64>>,
}

/// What the instances' thread does at an instant.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// Kill the server; its keys are kept on disk for the restart.
    KillKeeping,
    /// Kill the server and turn the proxies to an empty one.
    KillLosing,
    /// Start the killed server again on its files.
    Restart,
}

/// Kills and restarts the instances on the scenario's schedule, in a thread of its own so a
/// restart's wait does not hold back a client's signal; the restarts due at one instant start
/// side by side. Returns the first restart that was not answering by its instant.
fn instance_thread(
    r: &Redlock,
    mut x: Instances,
    t0: u64,
    scale_us: u64,
) -> std::thread::JoinHandle<std::io::Result<(Option<String>, Instances)>> {
    // (real µs, step, instance, the model's restart instant in real µs)
    let mut plan: Vec<(u64, Step, usize, u64)> = Vec::new();
    for (i, inst) in r.instances.iter().enumerate() {
        for (at, back, kept) in outages(&inst.events) {
            let kill = t0 + at * scale_us;
            let due = t0 + back.saturating_mul(scale_us);
            if kept {
                plan.push((kill, Step::KillKeeping, i, due));
                let restart = due.saturating_sub(RESTART_LEAD_US).max(kill);
                plan.push((restart, Step::Restart, i, due));
            } else {
                plan.push((kill, Step::KillLosing, i, due));
            }
        }
    }
    plan.sort();
    let names: Vec<String> = r.instances.iter().map(|i| i.name.clone()).collect();
    std::thread::spawn(move || {
        crate::servers::prioritise_this_thread();
        let mut late = None;
        let mut k = 0;
        while k < plan.len() {
            let at = plan[k].0;
            let group: Vec<(u64, Step, usize, u64)> = plan[k..]
                .iter()
                .take_while(|p| p.0 == at)
                .copied()
                .collect();
            k += group.len();
            sleep_until_us(at);
            for &(_, step, i, _) in &group {
                match step {
                    Step::KillKeeping => x.servers[i].kill(),
                    Step::KillLosing => {
                        x.servers[i].kill();
                        if let Some(spare) = x.spares[i].pop() {
                            x.ports[i].store(spare.port, Ordering::SeqCst);
                            x.servers[i] = spare;
                        }
                    }
                    Step::Restart => continue,
                }
                x.epochs[i].fetch_add(1, Ordering::SeqCst);
            }
            let restarts: Vec<(usize, u64)> = group
                .iter()
                .filter(|p| p.1 == Step::Restart)
                .map(|p| (p.2, p.3))
                .collect();
            let results: Vec<std::io::Result<()>> = std::thread::scope(|sc| {
                let handles: Vec<_> = x
                    .servers
                    .iter_mut()
                    .enumerate()
                    .filter(|(i, _)| restarts.iter().any(|r| r.0 == *i))
                    .map(|(_, server)| {
                        sc.spawn(move || {
                            server.up()?;
                            load_scripts(&mut Redis::connect(server.port)?)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(fail("a restart panicked"))))
                    .collect()
            });
            for r in results {
                r?;
            }
            let now = mono_us();
            if let Some(&(i, due)) = restarts.iter().find(|r| now > r.1) {
                late.get_or_insert(format!(
                    "{}'s restart answered {:.1} real ms after its instant",
                    names[i],
                    (now - due) as f64 / 1000.0
                ));
            }
        }
        // The servers live until the run is over.
        Ok((late, x))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_s_lines_are_read_to_the_end_of_its_output() {
        // The reader passes the last lines on some time after the process has ended.
        let (tx, rx) = std::sync::mpsc::channel();
        tx.send("op round 0 0 10 acquire 1 granted 1 50.000 ok".to_string())
            .expect("send");
        let late = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            tx.send("op store 3 1 2 rejected".to_string())
                .expect("send");
        });
        let lines = drain(&rx, mono_us() + 5_000_000).expect("the output ends");
        late.join().expect("the reader");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], "op store 3 1 2 rejected");
        // An output that does not end is no history.
        let (_tx, rx) = std::sync::mpsc::channel::<String>();
        assert_eq!(drain(&rx, mono_us() + 20_000), None);
    }
}
