//! `fencing-lab zk-facts [--tick MS] [--session-ms MS] [--rounds N]`: measures, against a real
//! ensemble, the ZooKeeper behaviour the model's ZooKeeper presets depend on, and prints each
//! fact with its numbers (`lab/ZOOKEEPER-NOTES.md` records a run). Nothing here is judged:
//! it is what the lab's ZooKeeper runs and the model are checked against.
//!
//! 1. the ensemble's start time and each member's memory;
//! 2. which operations consume a zxid, and the czxid and sequence of each node for: A
//!    connects, creates; B connects, creates; A deletes, creates again; a failed create; idle
//!    pings; A closes;
//! 3. whether an empty container parent is deleted and a new one starts its sequence at 0;
//! 4. a client process stopped with `SIGSTOP`: when the server deletes its ephemeral node,
//!    from the last bytes the client sent (seen by a tap in front of the server), and what the
//!    client reports, and when, after `SIGCONT`;
//! 5. a client whose traffic a proxy drops (without closing the connection): when its library
//!    reports it disconnected, and expired.

use crate::clock::{mono_us, signal};
use crate::zk_cluster::{zxid, ZkCluster, ZkConfig};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use zookeeper_client as zk;

/// A TCP tap in front of one member: it forwards both ways, notes when the client last sent
/// bytes, and while `drop` is set swallows everything both ways with the connections open;
/// while `hold` is set it forwards nothing and delivers what it holds once `hold` is cleared,
/// as TCP's retransmissions would after a partition (the lab's `partition` event).
pub(crate) struct Tap {
    pub(crate) port: u16,
    last_c2s_us: Arc<AtomicU64>,
    pub(crate) drop: Arc<AtomicBool>,
    pub(crate) hold: Arc<AtomicBool>,
}

impl Tap {
    pub(crate) fn start(to_port: u16) -> std::io::Result<Tap> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let last = Arc::new(AtomicU64::new(0));
        let drop = Arc::new(AtomicBool::new(false));
        let hold = Arc::new(AtomicBool::new(false));
        let (l2, d2, h2) = (last.clone(), drop.clone(), hold.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", to_port)) else {
                    continue;
                };
                let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (l3, d3, d4) = (l2.clone(), d2.clone(), d2.clone());
                let (h3, h4) = (h2.clone(), h2.clone());
                std::thread::spawn(move || pump(client, server, Some(l3), d3, h3));
                std::thread::spawn(move || pump(s2, c2, None, d4, h4));
            }
        });
        Ok(Tap {
            port,
            last_c2s_us: last,
            drop,
            hold,
        })
    }
}

fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    last: Option<Arc<AtomicU64>>,
    drop: Arc<AtomicBool>,
    hold: Arc<AtomicBool>,
) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if drop.load(Ordering::SeqCst) {
            continue;
        }
        while hold.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_micros(100));
        }
        if let Some(l) = &last {
            l.store(mono_us(), Ordering::SeqCst);
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn dms(a: u64, b: u64) -> f64 {
    (a as f64 - b as f64) / 1000.0
}

/// The leader's last zxid (the members agree once a write is acknowledged).
fn leader_zxid(c: &ZkCluster) -> i64 {
    let ports = c.ports();
    c.leader()
        .and_then(|l| ports.get(l).copied())
        .and_then(zxid)
        .unwrap_or(-1)
}

/// The zxid's counter (its low 32 bits; the high 32 are the leader's epoch).
fn counter(z: i64) -> i64 {
    z & 0xffff_ffff
}

pub struct Options {
    pub tick_ms: u64,
    pub session_ms: u64,
    pub rounds: u32,
}

pub fn run(o: &Options) -> Result<(), String> {
    let t0 = std::time::Instant::now();
    let mut config = ZkConfig::new(o.tick_ms);
    config.container_check_ms = 100;
    let mut c = ZkCluster::start(config).map_err(|e| e.to_string())?;
    let started = t0.elapsed();
    println!(
        "ensemble: {} members, tickTime {} ms, serving {:.2} s after the start; leader zk{}",
        c.len(),
        o.tick_ms,
        started.as_secs_f64(),
        c.leader().map_or(0, |l| l + 1)
    );
    println!("members (pid, VmRSS kB, CPU ms): {:?}", c.usage());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    zxids(&c, &rt, o)?;
    after_leader_change(&mut c, &rt)?;
    containers(&c, &rt)?;
    for round in 1..=o.rounds {
        paused(&c, &rt, o, round)?;
    }
    for round in 1..=o.rounds {
        dropped(&c, o, round)?;
    }
    println!(
        "members at the end (pid, VmRSS kB, CPU ms): {:?}",
        c.usage()
    );
    Ok(())
}

fn connect(
    rt: &tokio::runtime::Runtime,
    hosts: &str,
    session_ms: u64,
) -> Result<zk::Client, String> {
    rt.block_on(
        zk::Client::connector()
            .with_session_timeout(Duration::from_millis(session_ms))
            .connect(hosts),
    )
    .map_err(|e| format!("connect: {e}"))
}

fn opts(mode: zk::CreateMode) -> zk::CreateOptions<'static> {
    mode.with_acls(zk::Acls::anyone_all())
}

/// Facts (a), (b): sequences, cversion and zxids.
fn zxids(c: &ZkCluster, rt: &tokio::runtime::Runtime, o: &Options) -> Result<(), String> {
    let hosts = c.connect_string();
    let step = |what: &str, before: i64| -> i64 {
        std::thread::sleep(Duration::from_millis(50));
        let now = leader_zxid(c);
        println!(
            "  {what:<44} zxid {:#x} (+{})",
            now,
            counter(now) - counter(before)
        );
        now
    };
    let e = |x: zk::Error| x.to_string();
    println!("zxids (leader's last zxid after each step):");
    let mut z = leader_zxid(c);
    println!("  {:<44} zxid {z:#x}", "start");
    let admin = connect(rt, &hosts, o.session_ms)?;
    z = step("admin session connects", z);
    rt.block_on(admin.create("/facts", b"", &opts(zk::CreateMode::Persistent)))
        .map_err(e)?;
    z = step("admin creates /facts (persistent)", z);
    let a = connect(rt, &hosts, o.session_ms)?;
    z = step("A connects (createSession)", z);
    let (sa, qa) = rt
        .block_on(a.create(
            "/facts/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    println!(
        "    A's node lock-{:010}: czxid {:#x}",
        qa.into_i64(),
        sa.czxid
    );
    z = step("A creates /facts/lock- EPHEMERAL_SEQUENTIAL", z);
    let b = connect(rt, &hosts, o.session_ms)?;
    z = step("B connects", z);
    let (sb, qb) = rt
        .block_on(b.create(
            "/facts/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    println!(
        "    B's node lock-{:010}: czxid {:#x}",
        qb.into_i64(),
        sb.czxid
    );
    z = step("B creates", z);
    let parent = |when: &str| {
        if let Ok(Some(s)) = rt.block_on(admin.check_stat("/facts")) {
            println!(
                "    /facts after {when}: cversion {}, pzxid {:#x}, {} children",
                s.cversion, s.pzxid, s.num_children
            );
        }
    };
    parent("two creates");
    rt.block_on(a.delete(&format!("/facts/lock-{:010}", qa.into_i64()), None))
        .map_err(e)?;
    z = step("A deletes its node", z);
    parent("A's delete");
    let (sa2, qa2) = rt
        .block_on(a.create(
            "/facts/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    println!(
        "    A's second node lock-{:010}: czxid {:#x}",
        qa2.into_i64(),
        sa2.czxid
    );
    z = step("A creates again", z);
    parent("A's second create");
    let failed = rt.block_on(a.create("/facts", b"", &opts(zk::CreateMode::Persistent)));
    println!("    A creates /facts again: {:?}", failed.err());
    z = step("a failed create (NodeExists)", z);
    let failed = rt.block_on(a.delete("/facts/nothing", None));
    println!("    A deletes /facts/nothing: {:?}", failed.err());
    z = step("a failed delete (NoNode)", z);
    let _ = rt.block_on(a.check_stat("/facts"));
    let _ = rt.block_on(a.list_children("/facts"));
    z = step("reads (exists, getChildren)", z);
    std::thread::sleep(Duration::from_millis(o.session_ms));
    z = step("idle a session timeout (pings only)", z);
    drop(a);
    std::thread::sleep(Duration::from_millis(200));
    z = step("A's client dropped (closeSession)", z);
    parent("A's close");
    drop(b);
    std::thread::sleep(Duration::from_millis(200));
    let _ = step("B's client dropped", z);
    parent("B's close");
    cycles(rt, &admin, 0)?;
    cycles(rt, &admin, 500)?;
    Ok(())
}

/// The next sequence under `/cycles-0` (4 creates, 3 deletes so far) once its leader was
/// killed and another leads, and the zxid epoch.
fn after_leader_change(c: &mut ZkCluster, rt: &tokio::runtime::Runtime) -> Result<(), String> {
    let e = |x: zk::Error| x.to_string();
    let Some(old) = c.leader() else {
        return Err("no leader".into());
    };
    let t = std::time::Instant::now();
    c.kill(old);
    let new = c
        .wait_until_serving(Duration::from_secs(30))
        .map_err(|e| e.to_string())?;
    let elected = t.elapsed();
    let a = connect(rt, &c.connect_string(), 4000)?;
    let (st, q) = rt
        .block_on(a.create(
            "/cycles-0/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    println!(
        "leader zk{} killed: zk{} leads {:.2} s later; the next create under /cycles-0 gets \
         sequence {} (czxid {:#x}: epoch {}, counter {})",
        old + 1,
        new + 1,
        elected.as_secs_f64(),
        q.into_i64(),
        st.czxid,
        st.czxid >> 32,
        counter(st.czxid)
    );
    let t = std::time::Instant::now();
    c.restart(old).map_err(|e| e.to_string())?;
    c.wait_until_serving(Duration::from_secs(30))
        .map_err(|e| e.to_string())?;
    println!(
        "  zk{} restarted: serving again {:.2} s later, leader zk{}",
        old + 1,
        t.elapsed().as_secs_f64(),
        c.leader().map_or(0, |l| l + 1)
    );
    Ok(())
}

/// Create, delete, create… on a fresh parent with `gap_ms` between steps: each node's
/// sequence, and the parent's cversion after each step.
fn cycles(rt: &tokio::runtime::Runtime, c: &zk::Client, gap_ms: u64) -> Result<(), String> {
    let e = |x: zk::Error| x.to_string();
    let dir = format!("/cycles-{gap_ms}");
    rt.block_on(c.create(&dir, b"", &opts(zk::CreateMode::Persistent)))
        .map_err(e)?;
    let prefix = format!("{dir}/lock-");
    let mut seen = Vec::new();
    let cv = |dir: &str| {
        rt.block_on(c.check_stat(dir))
            .ok()
            .flatten()
            .map_or(-1, |s| s.cversion)
    };
    // One node stays throughout, so the parent is never empty.
    let (_, keep) = rt
        .block_on(c.create(&prefix, b"", &opts(zk::CreateMode::EphemeralSequential)))
        .map_err(e)?;
    seen.push(format!(
        "create {} (cversion {})",
        keep.into_i64(),
        cv(&dir)
    ));
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(gap_ms));
        let (_, q) = rt
            .block_on(c.create(&prefix, b"", &opts(zk::CreateMode::EphemeralSequential)))
            .map_err(e)?;
        seen.push(format!("create {} (cversion {})", q.into_i64(), cv(&dir)));
        std::thread::sleep(Duration::from_millis(gap_ms));
        rt.block_on(c.delete(&format!("{prefix}{:010}", q.into_i64()), None))
            .map_err(e)?;
        seen.push(format!("delete (cversion {})", cv(&dir)));
    }
    println!(
        "  create/delete cycles, {gap_ms} ms apart: {}",
        seen.join(", ")
    );
    Ok(())
}

/// Fact (e): an empty container parent is deleted by the server; the next create remakes it.
fn containers(c: &ZkCluster, rt: &tokio::runtime::Runtime) -> Result<(), String> {
    let hosts = c.connect_string();
    let a = connect(rt, &hosts, 4000)?;
    let e = |x: zk::Error| x.to_string();
    println!(
        "container parent (znode.container.checkIntervalMs {} ms):",
        c.config.container_check_ms
    );
    for round in 1..=2 {
        let _ = rt.block_on(a.create("/cont", b"", &opts(zk::CreateMode::Container)));
        let mut seqs = Vec::new();
        for _ in 0..2 {
            let (_, q) = rt
                .block_on(a.create(
                    "/cont/lock-",
                    b"",
                    &opts(zk::CreateMode::EphemeralSequential),
                ))
                .map_err(e)?;
            seqs.push(q.into_i64());
        }
        for q in &seqs {
            rt.block_on(a.delete(&format!("/cont/lock-{q:010}"), None))
                .map_err(e)?;
        }
        let t = mono_us();
        let mut gone_after = None;
        while mono_us() - t < 5_000_000 {
            if let Ok(None) = rt.block_on(a.check_stat("/cont")) {
                gone_after = Some(mono_us() - t);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        println!(
            "  round {round}: sequences {seqs:?}; the empty container was deleted {}",
            gone_after.map_or("not within 5 s".to_string(), |us| format!(
                "{:.0} ms after the last delete",
                ms(us)
            ))
        );
    }
    // A persistent parent deleted by hand and made again.
    rt.block_on(a.create("/pers", b"", &opts(zk::CreateMode::Persistent)))
        .map_err(e)?;
    let (_, q1) = rt
        .block_on(a.create(
            "/pers/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    rt.block_on(a.delete(&format!("/pers/lock-{:010}", q1.into_i64()), None))
        .map_err(e)?;
    rt.block_on(a.delete("/pers", None)).map_err(e)?;
    rt.block_on(a.create("/pers", b"", &opts(zk::CreateMode::Persistent)))
        .map_err(e)?;
    let (_, q2) = rt
        .block_on(a.create(
            "/pers/lock-",
            b"",
            &opts(zk::CreateMode::EphemeralSequential),
        ))
        .map_err(e)?;
    println!(
        "  a persistent parent: sequence {} before it was deleted and made again, {} after",
        q1.into_i64(),
        q2.into_i64()
    );
    Ok(())
}

/// A scenario for a probe client: one client that acquires at 0 and debits once later (with
/// no storage session given, its debit prints `op send` and then an error line).
fn probe_scenario(session_ms: u64, scale: u64) -> Result<String, String> {
    let mut v = fencing_playground::sim::presets::presets()
        .into_iter()
        .filter_map(|p| serde_json::to_value(&p.scenario).ok())
        .find(|v| {
            ["redlock", "etcd", "advisory", "zookeeper"]
                .iter()
                .all(|k| v["lock"].get(k).is_none())
        })
        .ok_or("no single-lock preset to start from")?;
    let end_ms = 100_000_000 / scale;
    if let Some(cl) = v.get_mut("clients").and_then(|c| c.as_array_mut()) {
        cl.truncate(1);
        if let Some(first) = cl.first_mut() {
            // A debit due while the probe holds the process stopped (it stops it about half
            // a session in and keeps it stopped until a session after the node is gone): on
            // waking, its `op send` line shows whether it still believed it held the lock.
            first["events"] = serde_json::json!([
                { "kind": "acquire", "atMs": 0 },
                { "kind": "debit", "atMs": 2 * session_ms, "amount": 1, "delayMs": 0 }
            ]);
        }
    }
    v["endMs"] = serde_json::json!(end_ms);
    v["lock"]["ttlMs"] = serde_json::json!(session_ms);
    v["lock"]["zookeeper"] = serde_json::json!({ "fence": "czxid" });
    Ok(v.to_string())
}

/// A probe client process: `fencing-lab client --zookeeper PORT …` with its lines on a channel
/// (each with the instant it was read).
struct Probe {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    start_us: u64,
    /// The session timeout the server granted, as the client printed it.
    negotiated_ms: String,
    _file: crate::servers::TempDir,
}

impl Probe {
    fn start(port: u16, dir: &str, session_ms: u64) -> Result<Probe, String> {
        // Scale 1000: the scenario's ms are real ms.
        let scale = 1000;
        let tmp = crate::servers::TempDir::new().map_err(|e| e.to_string())?;
        let file = tmp.0.join("scenario.json");
        std::fs::write(&file, probe_scenario(session_ms, scale)?).map_err(|e| e.to_string())?;
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .args([
                "client",
                "--zookeeper",
                &port.to_string(),
                "--index",
                "0",
                "--pg",
                "",
            ])
            .args(["--scale-us", &scale.to_string(), "--dir", dir])
            .args(["--until-ms", "100000", "--scenario"])
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let ready = rx
            .recv_timeout(Duration::from_secs(20))
            .map_err(|_| "the probe client did not start")?;
        let mut p = Probe {
            child,
            lines: rx,
            start_us: 0,
            negotiated_ms: String::new(),
            _file: tmp,
        };
        let mut seen = vec![ready];
        while seen.last().is_none_or(|l| l != "ready") {
            seen.push(
                p.lines
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(|_| format!("the probe client said {seen:?}"))?,
            );
        }
        p.start_us = mono_us();
        let stdin = p.child.stdin.as_mut().ok_or("no stdin")?;
        writeln!(stdin, "{}", p.start_us).map_err(|e| e.to_string())?;
        Ok(p)
    }

    /// Reads up to the client's grant: its node's path (the negotiated timeout is kept).
    fn until_granted(&mut self) -> Result<String, String> {
        let mut node = None;
        loop {
            let l = self
                .line(5000)
                .ok_or("the probe client was not granted the lock")?;
            let f: Vec<&str> = l.split_whitespace().collect();
            match (f.first(), f.get(1)) {
                (Some(&"zk"), Some(&"session")) => {
                    self.negotiated_ms = f.get(5).unwrap_or(&"?").to_string();
                }
                (Some(&"zk"), Some(&"node")) => node = f.get(5).map(|n| n.to_string()),
                (Some(&"op"), Some(&"lock")) => {
                    return node.ok_or_else(|| format!("granted without a node: {l}"))
                }
                (Some(&"error"), _) => return Err(l),
                _ => {}
            }
        }
    }

    /// The next line within `ms`.
    fn line(&self, ms: u64) -> Option<String> {
        self.lines.recv_timeout(Duration::from_millis(ms)).ok()
    }

    /// A line's time field (µs since the probe's start) as an absolute instant.
    fn at(&self, line: &str, field: usize) -> Option<u64> {
        line.split_whitespace()
            .nth(field)
            .and_then(|t| t.parse::<u64>().ok())
            .map(|t| t + self.start_us)
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let _ = signal(self.child.id(), libc::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Facts (c), (d): a stopped client's session expiry, and what it sees on waking.
fn paused(
    c: &ZkCluster,
    rt: &tokio::runtime::Runtime,
    o: &Options,
    round: u32,
) -> Result<(), String> {
    let ports = c.ports();
    let tap = Tap::start(ports[0]).map_err(|e| e.to_string())?;
    let dir = format!("/paused-{round}");
    let mut p = Probe::start(tap.port, &dir, o.session_ms)?;
    let node = p.until_granted()?;
    // Let pings settle, then stop it at a random point of its ping cycle.
    std::thread::sleep(Duration::from_millis(
        o.session_ms / 2 + u64::from(round) * 37 % 50,
    ));
    let watcher = connect(rt, &c.connect_string(), 10_000)?;
    let (stat, w) = rt
        .block_on(watcher.check_and_watch_stat(&node))
        .map_err(|e| e.to_string())?;
    if stat.is_none() {
        return Err(format!("{node} is gone before the pause"));
    }
    let stop_us = mono_us();
    signal(p.child.id(), libc::SIGSTOP);
    let last_us = tap.last_c2s_us.load(Ordering::SeqCst);
    let ev = rt.block_on(w.changed());
    let deleted_us = mono_us();
    let last_after = tap.last_c2s_us.load(Ordering::SeqCst);
    let s = o.session_ms * 1000;
    let t = o.tick_ms * 1000;
    println!(
        "paused client, round {round} (session {} ms asked, {} negotiated, tick {} ms): \
         last bytes from it {:.1} ms before the stop{}; {:?} {:.1} ms after its last bytes \
         ({:.1} ms after the stop); last bytes + S = {:.1} ms, rounded up to the next tick \
         boundary after it at most {:.1} ms",
        o.session_ms,
        p.negotiated_ms,
        o.tick_ms,
        dms(stop_us, last_us),
        if last_after != last_us {
            " (it sent more after!)"
        } else {
            ""
        },
        ev.event_type,
        dms(deleted_us, last_us),
        dms(deleted_us, stop_us),
        ms(s),
        ms(s + t)
    );
    std::thread::sleep(Duration::from_millis(o.session_ms));
    let cont_us = mono_us();
    signal(p.child.id(), libc::SIGCONT);
    let mut seen = Vec::new();
    // Everything it prints until 200 ms pass with nothing more.
    let mut wait = o.session_ms * 3;
    while let Some(l) = p.line(wait) {
        let at = p.at(&l, if l.starts_with("op ") { 3 } else { 2 });
        seen.push(format!(
            "{l} (+{:.1} ms after SIGCONT)",
            at.map_or(f64::NAN, |a| dms(a, cont_us))
        ));
        wait = 200;
    }
    println!(
        "  after SIGCONT ({:.0} ms after the node's deletion) the client printed:",
        dms(cont_us, deleted_us)
    );
    for l in seen {
        println!("    {l}");
    }
    Ok(())
}

/// Fact (f): a client whose traffic is dropped.
fn dropped(c: &ZkCluster, o: &Options, round: u32) -> Result<(), String> {
    let ports = c.ports();
    let tap = Tap::start(ports[0]).map_err(|e| e.to_string())?;
    let mut p = Probe::start(tap.port, &format!("/dropped-{round}"), o.session_ms)?;
    p.until_granted()?;
    std::thread::sleep(Duration::from_millis(
        o.session_ms / 2 + u64::from(round) * 37 % 50,
    ));
    let drop_us = mono_us();
    tap.drop.store(true, Ordering::SeqCst);
    let last_us = tap.last_c2s_us.load(Ordering::SeqCst);
    let mut seen = Vec::new();
    while let Some(l) = p.line(o.session_ms * 4) {
        let at = p.at(&l, if l.starts_with("op ") { 3 } else { 2 });
        seen.push(format!(
            "{l} (+{:.1} ms after the drop, {:.1} ms after the last bytes through)",
            at.map_or(f64::NAN, |a| dms(a, drop_us)),
            at.map_or(f64::NAN, |a| dms(a, last_us))
        ));
        if l.contains(" expired ") || l.contains(" closed ") {
            break;
        }
    }
    println!(
        "dropped traffic, round {round} (session {} ms asked, {} negotiated): the client printed:",
        o.session_ms, p.negotiated_ms
    );
    for l in seen {
        println!("    {l}");
    }
    Ok(())
}
