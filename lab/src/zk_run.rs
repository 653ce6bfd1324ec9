//! One ZooKeeper run with independent clients: every client its own `fencing-lab client
//! --zookeeper` process (`zk_client.rs`, the documented lock recipe on the `zookeeper-client`
//! crate) against the lab's three-member ensemble (`zk_cluster.rs`), the debits to the lab's
//! PostgreSQL, the faults done for real: a client's pause is `SIGSTOP`/`SIGCONT` of its
//! process, its crash `SIGKILL`; a `partition` of a client is a tap in front of every member
//! for that client (`zk_facts::Tap`) that holds its traffic both ways while the partition
//! lasts, the connections left open, and delivers it when the partition heals (as TCP's
//! retransmissions would); the lock parent's removal (`parent_removed`) is the
//! conductor's own `delete` of it at the model's instant, only if it has no children, as the
//! model does.
//!
//! Time. The ensemble's `tickTime` is the scenario's tick scaled (a whole number of real ms, at
//! least 10, with sessions of at least 100 ms), so a session expires on the same tick in
//! simulated time. One ensemble serves every run at that tick (the JVMs take 1–2.5 s to
//! start), each run under a lock parent of its own (`/lock-<pid>-<run>`) that the conductor
//! creates, persistent, before the run: the model's `/lock` exists when the run begins.
//! Empty container nodes are not reaped during a lab run (`znode.container.checkIntervalMs` is
//! a day): the model removes the parent only by its event.
//!
//! Zxids. They count every transaction of the ensemble, so the conductor reads the leader's
//! zxid just before the run and every czxid is compared relative to it (the model counts from
//! `firstFence`). Nothing of one run may write into the next run's zxids: each client closes
//! its session when its run ends, and after a run with a killed client the conductor waits
//! until the server has expired the sessions left behind.

use crate::clock::{mono_us, signal, sleep_until_us};
use crate::etcd_run::run_end_ms;
use crate::independent::{client_program, fail, prepare_storage, schedule, Happened, Signal};
use crate::pg::Pg;
use crate::servers::{niced, Postgres, TempDir, PG_USER};
use crate::zk_cluster::{zxid, ZkCluster, ZkConfig};
use crate::zk_facts::Tap;
use fencing_playground::sim::scenario::{Event, ZkEvent};
use fencing_playground::sim::{Scenario, Trace};
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use zookeeper_client as zk;

/// The smallest real tick and session the lab runs (`lab/ZOOKEEPER-NOTES.md`).
const MIN_TICK_MS: u64 = 10;
const MIN_SESSION_MS: u64 = 100;
/// How the lab stands in for a partition, for the run's note.
pub const PARTITION_NOTE: &str = "partition: a tap in front of every member for the cut-off \
    client holds its traffic both ways (connections left open; what it held is delivered when \
    the partition heals, as TCP would)";

/// One ensemble with the conductor's own session (the admin that makes and removes the lock
/// parents).
pub struct Ensemble {
    pub cluster: ZkCluster,
    rt: tokio::runtime::Runtime,
    admin: zk::Client,
    /// Whether a session of an earlier run may still be open (a killed client's): the next run
    /// waits until the server has expired it.
    lingering_until_us: u64,
}

/// The lab's ensembles, started when the first ZooKeeper run needs one (one per real tick) and
/// stopped with the lab.
#[derive(Default)]
pub struct Slot(RefCell<Vec<Ensemble>>);

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A ZooKeeper run as it happened.
pub struct ZkHappened {
    /// Every line the clients printed (`zk …` and `op …`), the signals, the storage's state.
    pub h: Happened,
    /// The leader's zxid before the run minus the model's before its first transaction: a real
    /// zxid minus this is the model's.
    pub offset: i64,
    /// When the conductor removed the lock parent, or found it not empty (µs since the start).
    pub parent: Vec<(u64, bool)>,
}

impl ZkHappened {
    /// A czxid (or fence) the lab printed, in the model's numbering.
    pub fn relative(&self, zxid: i64) -> i64 {
        zxid - self.offset
    }
}

/// The real tick (ms) and the scale (real µs per simulated ms) for try `n` (from 1): the
/// smallest at or above `base_us` whose tick is a whole number of real ms, at least
/// `MIN_TICK_MS`, with a session of at least `MIN_SESSION_MS`, doubled on each rerun.
pub fn scale_for(s: &Scenario, base_us: u64, n: u32) -> Option<(u64, u64)> {
    let z = s.lock.zookeeper()?;
    let tick = z.tick_time_ms.max(1);
    let session = z.negotiated_timeout_ms(s.lock.ttl_ms).max(1);
    let want_us = base_us
        .max(MIN_TICK_MS * 1000 / tick)
        .max((MIN_SESSION_MS * 1000).div_ceil(session));
    let mut tick_real = (tick * want_us).div_ceil(1000);
    while (tick_real * 1000) % tick != 0 {
        tick_real += 1;
    }
    let factor = 1u64 << n.saturating_sub(1).min(4);
    let tick_real = tick_real * factor;
    Some((tick_real, tick_real * 1000 / tick))
}

impl Slot {
    fn ensemble(&self, tick_ms: u64) -> std::io::Result<std::cell::RefMut<'_, Ensemble>> {
        let mut all = self.0.borrow_mut();
        all.retain_mut(|e| e.cluster.all_running());
        let i = match all.iter().position(|e| e.cluster.config.tick_ms == tick_ms) {
            Some(i) => i,
            None => {
                let mut config = ZkConfig::new(tick_ms);
                config.container_check_ms = 86_400_000;
                let cluster = ZkCluster::start(config)?;
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("zk-admin")
                    .build()?;
                let hosts = cluster.connect_string();
                let admin = rt
                    .block_on(
                        zk::Client::connector()
                            .with_session_timeout(Duration::from_millis(tick_ms * 20))
                            .connect(&hosts),
                    )
                    .map_err(|e| fail(format!("the conductor's ZooKeeper session: {e}")))?;
                all.push(Ensemble {
                    cluster,
                    rt,
                    admin,
                    lingering_until_us: 0,
                });
                all.len() - 1
            }
        };
        Ok(std::cell::RefMut::map(all, |v| &mut v[i]))
    }

    /// The version the lab's ensembles run (from a running member's `srvr`, else the jar).
    pub fn version(&self) -> String {
        self.running_version()
            .unwrap_or_else(crate::zk_cluster::version)
    }

    /// The version a running member of the lab's ensembles gives in `srvr`, if one runs.
    pub fn running_version(&self) -> Option<String> {
        self.0.borrow().iter().find_map(|e| {
            let port = *e.cluster.ports().first()?;
            let srvr = crate::zk_cluster::four_letter(port, "srvr", Duration::from_secs(1))?;
            let v = srvr
                .lines()
                .find_map(|l| l.strip_prefix("Zookeeper version: "))?;
            Some(v.split(['-', ',']).next().unwrap_or(v).trim().to_string())
        })
    }
}

impl Ensemble {
    /// The leader's last zxid, once two reads 20 ms apart agree (nothing is in flight).
    fn settled_zxid(&self) -> std::io::Result<i64> {
        let mut last = None;
        for _ in 0..200 {
            let port = self
                .cluster
                .leader()
                .and_then(|l| self.cluster.ports().get(l).copied());
            let now = port.and_then(zxid);
            if now.is_some() && now == last {
                return now.ok_or_else(|| fail("no zxid"));
            }
            last = now;
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(fail("the ensemble's zxid did not settle"))
    }

    fn create_parent(&self, dir: &str) -> std::io::Result<()> {
        let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
        self.rt
            .block_on(self.admin.create(dir, b"", &options))
            .map(|_| ())
            .map_err(|e| fail(format!("cannot create {dir}: {e}")))
    }

    /// The model's `parent_removed`: the parent is deleted if it has no children. Whether it
    /// was.
    fn remove_parent(&self, dir: &str) -> std::io::Result<bool> {
        let children = self.rt.block_on(self.admin.list_children(dir));
        match children {
            Err(zk::Error::NoNode) => Ok(false),
            Err(e) => Err(fail(format!("cannot list {dir}: {e}"))),
            Ok(c) if !c.is_empty() => Ok(false),
            Ok(_) => match self.rt.block_on(self.admin.delete(dir, None)) {
                Ok(()) => Ok(true),
                Err(zk::Error::NotEmpty | zk::Error::NoNode) => Ok(false),
                Err(e) => Err(fail(format!("cannot delete {dir}: {e}"))),
            },
        }
    }
}

struct Proc {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

/// Replays `s` once at `tick_ms` real ms per tick, `scale_us` real µs per simulated ms.
pub fn replay(
    s: &Scenario,
    t: &Trace,
    pg: &Postgres,
    slot: &Slot,
    tick_ms: u64,
    scale_us: u64,
) -> std::io::Result<ZkHappened> {
    let z = s
        .lock
        .zookeeper()
        .ok_or_else(|| fail("not a ZooKeeper scenario"))?;
    let ens = slot.ensemble(tick_ms)?;
    ens.cluster.wait_until_serving(Duration::from_secs(20))?;
    let wait = ens.lingering_until_us.saturating_sub(mono_us());
    if wait > 0 {
        std::thread::sleep(Duration::from_micros(wait));
    }
    let run = RUNS.fetch_add(1, Ordering::SeqCst);
    let dir = format!("/lock-{}-{run}", std::process::id());
    prepare_storage(s, pg.port)?;
    ens.create_parent(&dir)?;
    let before = ens.settled_zxid()?;
    let offset = before - (s.lock.first_fence as i64 - 1);
    let tmp = TempDir::in_memory()?;
    let file = tmp.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    let end_ms = run_end_ms(s, t);
    let start = Arc::new(AtomicU64::new(0));
    let exe = client_program()?;
    let ports = ens.cluster.ports();
    let mut taps: Vec<Vec<Tap>> = Vec::new();
    let mut procs = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
        let cut = z
            .events
            .iter()
            .any(|e| matches!(e, ZkEvent::Partition { client, .. } if *client == c.name));
        let mut mine = Vec::new();
        if cut {
            for p in &ports {
                mine.push(Tap::start(*p)?);
            }
        }
        let zk_ports: Vec<String> = if cut {
            mine.iter().map(|t| t.port.to_string()).collect()
        } else {
            ports.iter().map(u16::to_string).collect()
        };
        taps.push(mine);
        let mut pg_ports = Vec::new();
        for (i, ev) in c.events.iter().enumerate() {
            let Event::Debit { delay_ms, .. } = ev else {
                continue;
            };
            let port = if *delay_ms == 0 {
                pg.port
            } else {
                crate::proxy::delaying(pg.port, start.clone(), delay_ms * scale_us)?
            };
            pg_ports.push(format!("{i}:{port}"));
        }
        let mut cmd = niced(&exe.to_string_lossy());
        cmd.args(["client", "--index", &k.to_string()])
            .args(["--zookeeper", &zk_ports.join(",")])
            .args(["--dir", &dir])
            .args(["--pg", &pg_ports.join(",")])
            .args(["--until-ms", &end_ms.to_string()])
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
    let result = conduct(s, &ens, &dir, &mut procs, &taps, &start, scale_us, end_ms);
    let mut killed = false;
    for p in &mut procs {
        if !matches!(p.child.try_wait(), Ok(Some(st)) if st.success()) {
            killed = true;
        }
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    for tap in taps.iter().flatten() {
        tap.hold.store(false, Ordering::SeqCst);
    }
    let (lines, signals, parent) = result?;
    drop(ens);
    if killed {
        // A killed client's session lives on until the server expires it: a session timeout
        // and two ticks (the expiry is rounded up to a tick, and goes through the quorum).
        let session_us = z.negotiated_timeout_ms(s.lock.ttl_ms) * scale_us;
        let until = mono_us() + session_us + 2 * tick_ms * 1000 + 200_000;
        if let Some(e) = slot
            .0
            .borrow_mut()
            .iter_mut()
            .find(|e| e.cluster.config.tick_ms == tick_ms)
        {
            e.lingering_until_us = until;
        }
    }
    let mut db = Pg::connect(pg.port, PG_USER, "run")?;
    let answer = db.query(&fencing_playground::sim::commands::ops::final_state_sql())?;
    let row = answer.rows.first().ok_or_else(|| fail("no account row"))?;
    let number = |i: usize| -> std::io::Result<i64> {
        row.get(i)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| fail("the account row is not two numbers"))
    };
    Ok(ZkHappened {
        h: Happened {
            lines,
            signals,
            balance: number(0)?,
            last_fence: number(1)?,
            scale_us,
        },
        offset,
        parent,
    })
}

type Conducted = (
    Vec<Vec<String>>,
    Vec<(usize, Signal, u64)>,
    Vec<(u64, bool)>,
);

enum Due {
    Client(usize, Signal),
    Cut(usize, bool),
    RemoveParent,
}

#[allow(clippy::too_many_arguments)]
fn conduct(
    s: &Scenario,
    ens: &Ensemble,
    dir: &str,
    procs: &mut [Proc],
    taps: &[Vec<Tap>],
    start: &AtomicU64,
    scale_us: u64,
    end_ms: u64,
) -> std::io::Result<Conducted> {
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
    for e in s.lock.zookeeper().into_iter().flat_map(|z| &z.events) {
        match e {
            ZkEvent::Partition {
                at_ms,
                duration_ms,
                client,
            } => {
                if let Some(k) = s.clients.iter().position(|c| c.name == *client) {
                    plan.push((*at_ms, Due::Cut(k, true)));
                    plan.push((at_ms + duration_ms, Due::Cut(k, false)));
                }
            }
            ZkEvent::ParentRemoved { at_ms } => plan.push((*at_ms, Due::RemoveParent)),
        }
    }
    plan.sort_by_key(|(at, _)| *at);
    crate::servers::prioritise_this_thread();
    let t0 = mono_us() + 30_000;
    start.store(t0, Ordering::SeqCst);
    for p in procs.iter_mut() {
        let stdin = p.child.stdin.as_mut().ok_or_else(|| fail("no stdin"))?;
        writeln!(stdin, "{t0}")?;
        stdin.flush()?;
    }
    let mut signals = Vec::new();
    let mut parent = Vec::new();
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
            Due::Cut(k, on) => {
                for tap in taps.get(k).into_iter().flatten() {
                    tap.hold.store(on, Ordering::SeqCst);
                }
            }
            Due::RemoveParent => {
                let at = mono_us().saturating_sub(t0);
                parent.push((at, ens.remove_parent(dir)?));
            }
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
    Ok((lines, signals, parent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;

    #[test]
    fn the_scale_gives_a_whole_tick_and_the_floors() {
        let s = preset("zk-pause-czxid").expect("preset");
        // 5 ms ticks at 20 real ms per simulated ms: 100 ms ticks, 600 ms sessions.
        assert_eq!(scale_for(&s, 20_000, 1), Some((100, 20_000)));
        assert_eq!(scale_for(&s, 20_000, 2), Some((200, 40_000)));
        // 1 real ms per simulated ms would give 5 ms ticks and 30 ms sessions: raised to the
        // 100 ms session floor (scale 3334 µs, a 16.67 ms tick, made a whole 17 ms).
        let (tick, scale) = scale_for(&s, 1_000, 1).expect("a scale");
        assert!(
            tick >= MIN_TICK_MS && scale * 30 >= MIN_SESSION_MS * 1000,
            "{tick} {scale}"
        );
        assert_eq!(tick * 1000, scale * 5);
    }
}
