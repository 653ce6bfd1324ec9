//! One etcd run with independent clients: every client its own `fencing-lab client --etcd`
//! process (`etcd_client.rs`) against the lab's three-member cluster (`etcd_cluster.rs`), the
//! faults done for real: a client's pause is `SIGSTOP`/`SIGCONT` of its process, its crash
//! `SIGKILL`, and a member's crash `SIGKILL` of that member (the leader, when the model's crashed
//! member leads then), restarted on its own data when the model brings it back.
//!
//! Time. etcd's TTLs are whole seconds, so the scale (real µs per simulated ms) is chosen so the
//! scenario's TTL is a whole number of seconds, and the cluster's election timeout and heartbeat
//! (a tenth of it) are the scenario's, scaled. etcd's leader looks for expired leases every
//! 500 ms, so a revocation comes up to half a second after the expiry the model names; the
//! scale is raised until that cannot reorder anything the model orders (`lessor_clash`).
//!
//! Revisions. One cluster serves every preset of a lab run (a fresh one only for a different
//! election timeout, or after a run whose members did not all come back), each run on keys of
//! its own (`lab<N>/…`). Its revision is therefore not the model's: the lab reads the cluster's
//! revision just before the run and compares every revision relative to it, the model's first
//! write (`firstFence`) standing for the first write of the run.

use crate::clock::{mono_us, signal, sleep_until_us};
use crate::etcd_cluster::EtcdCluster;
use crate::gateway::{b64, first_kv, header_revision, Gateway};
use crate::independent::{client_program, fail, prepare_storage, schedule, Happened, Signal};
use crate::pg::Pg;
use crate::servers::{niced, Postgres, TempDir, PG_USER};
use fencing_playground::sim::scenario::{Event, MemberEvent};
use fencing_playground::sim::trace::{Outcome, RevisionCause};
use fencing_playground::sim::{Scenario, Trace};
use serde_json::json;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

/// How late etcd's leader may notice an expired lease: its lessor checks every 500 ms.
pub const LESSOR_SWEEP_US: u64 = 500_000;
/// The largest TTL the lab will scale a scenario's to, in seconds.
const MAX_TTL_S: u64 = 16;
/// The smallest heartbeat etcd is started with, in ms.
const MIN_HEARTBEAT_MS: u64 = 10;

/// The lab's clusters, started when the first etcd run needs one and stopped with the lab.
#[derive(Default)]
pub struct Slot(RefCell<Vec<EtcdCluster>>);

/// An etcd run as it happened: the clients' history, and where its revisions start.
pub struct EtcdHappened {
    pub h: Happened,
    /// The cluster's revision before the run minus the model's revision before its first write:
    /// a real revision minus this is the model's.
    pub offset: i64,
    /// Which member was crashed, when (µs since the start).
    pub member_kills: Vec<(String, u64)>,
}

/// The real election timeout, in ms, for the scenario at this scale.
pub fn election_real_ms(s: &Scenario, scale_us: u64) -> u64 {
    let et = s.lock.etcd().map_or(10, |e| e.election_timeout_ms);
    (et * scale_us / 1000).max(5 * MIN_HEARTBEAT_MS)
}

/// The scale for try `n` (from 1): the smallest at or above `base_us` whose TTL is a whole
/// number of seconds and at which no lessor sweep can reorder the run, doubled on each rerun;
/// `Err` with the reason when no TTL up to 16 s will do.
pub fn scale_for(s: &Scenario, t: &Trace, base_us: u64, n: u32) -> Result<u64, String> {
    let ttl = s.lock.ttl_ms.max(1);
    let first_s = (ttl * base_us).div_ceil(1_000_000).max(1);
    for secs in first_s..=MAX_TTL_S {
        // The TTL is `secs` to within a microsecond per simulated ms.
        let scale = secs * 1_000_000 / ttl;
        if lessor_clash(s, t, scale).is_none() {
            let scale = scale.saturating_mul(1 << (n.saturating_sub(1)).min(4));
            return Ok(scale);
        }
    }
    let why = lessor_clash(s, t, MAX_TTL_S * 1_000_000 / ttl).unwrap_or_default();
    Err(format!(
        "too close to call at any scale the lab runs (TTL up to {MAX_TTL_S} s): {why}"
    ))
}

/// Something the model orders against a lease's revocation that the lessor's late sweep (and,
/// after a member crash, an election up to one more election timeout late) could put on the
/// other side, at this scale.
pub fn lessor_clash(s: &Scenario, t: &Trace, scale_us: u64) -> Option<String> {
    let e = t.etcd.as_ref()?;
    let tol = 0.4;
    let lag = LESSOR_SWEEP_US as f64 / scale_us as f64;
    let crash_at = e.outages.iter().map(|o| o.start_ms).min();
    // A revocation after the run's end still counts when the model shows a step it decides
    // (a waiter let through by a lease the stopped keepalives let run out).
    let last_step = t.steps.iter().map(|x| x.at_ms).max().unwrap_or(0);
    let end = run_end_ms(s, t).max(last_step);
    for r in e
        .revisions
        .iter()
        .filter(|r| r.cause == RevisionCause::Revoke && r.at_ms <= end)
    {
        let extra = match crash_at {
            Some(c) if c <= r.at_ms => e.election_timeout_ms as f64,
            _ => 0.0,
        };
        let (lo, hi) = (r.at_ms as f64 - tol, r.at_ms as f64 + lag + extra + tol);
        let inside = |at: u64| (at as f64) > lo && (at as f64) < hi;
        // The waiters this revocation lets through act after it whenever it comes.
        let woken: Vec<usize> = t
            .steps
            .iter()
            .filter(|x| {
                x.at_ms == r.at_ms
                    && matches!(
                        x.outcome,
                        Outcome::Granted { .. }
                            | Outcome::GrantedExpired { .. }
                            | Outcome::SessionExpired { by_lock: true }
                    )
            })
            .map(|x| x.client)
            .collect();
        if let Some(o) = e
            .revisions
            .iter()
            // A woken client's own writes follow the revocation whenever it comes; its own
            // lease running out does not.
            .find(|o| {
                o != &r
                    && inside(o.at_ms)
                    && (o.cause == RevisionCause::Revoke || !woken.contains(&o.client))
            })
        {
            return Some(format!(
                "the revocation of {}'s lease at {} ms may come up to {:.1} ms late, past {}'s \
                 write at {} ms",
                t.client_name(r.client),
                r.at_ms,
                lag + extra,
                t.client_name(o.client),
                o.at_ms
            ));
        }
        // The leader crashing before a late sweep revoked the lease: the next leader restarts
        // every lease at its full TTL, and the lease lives on.
        let leading = |m: usize, at: u64| {
            e.leaders
                .iter()
                .any(|l| l.member == m && l.start_ms <= at && at <= l.end_ms)
        };
        if let Some(o) = e
            .outages
            .iter()
            .find(|o| o.start_ms > r.at_ms && inside(o.start_ms) && leading(o.member, o.start_ms))
        {
            return Some(format!(
                "the revocation of {}'s lease at {} ms may come up to {:.1} ms late, past the \
                 leader's crash at {} ms, after which the next leader restarts the lease",
                t.client_name(r.client),
                r.at_ms,
                lag + extra,
                o.start_ms
            ));
        }
        // A client the revocation lets through that crashes soon after: a late sweep answers
        // its lock call after its death, or never.
        if let Some(x) = t.steps.iter().find(|x| {
            inside(x.at_ms)
                && x.at_ms > r.at_ms
                && woken.contains(&x.client)
                && matches!(x.outcome, Outcome::Crashed)
        }) {
            return Some(format!(
                "the revocation of {}'s lease at {} ms may come up to {:.1} ms late, past the \
                 crash at {} ms of {}, whose lock call it answers",
                t.client_name(r.client),
                r.at_ms,
                lag + extra,
                x.at_ms,
                t.client_name(x.client)
            ));
        }
        let clash = t.steps.iter().find(|x| {
            inside(x.at_ms)
                && !woken.contains(&x.client)
                && matches!(
                    x.outcome,
                    Outcome::DebitSent { .. } | Outcome::Stored { .. }
                )
        });
        if let Some(x) = clash {
            return Some(format!(
                "the revocation of {}'s lease at {} ms may come up to {:.1} ms late, past {}'s \
                 debit at {} ms",
                t.client_name(r.client),
                r.at_ms,
                lag + extra,
                t.client_name(x.client),
                x.at_ms
            ));
        }
    }
    None
}

/// The last instant the model shows anything, in simulated ms: the run ends a little after.
pub fn run_end_ms(s: &Scenario, t: &Trace) -> u64 {
    let last_step = t.steps.iter().map(|x| x.at_ms).max().unwrap_or(0);
    let last_event = s
        .clients
        .iter()
        .flat_map(|c| c.events.iter().map(|e| e.at_ms()))
        .max()
        .unwrap_or(0);
    (last_step.max(last_event) + 2).min(s.horizon_ms().max(1))
}

impl Slot {
    /// A cluster with this election timeout (for a run whose members fail), or any running one
    /// whose minimum TTL (1.5 election timeouts, whole seconds) is within `ttl_s`.
    fn cluster(
        &self,
        election_ms: u64,
        exact: bool,
        ttl_s: u64,
    ) -> std::io::Result<std::cell::RefMut<'_, EtcdCluster>> {
        let mut all = self.0.borrow_mut();
        all.retain_mut(|c| c.all_running());
        let fits = |c: &EtcdCluster| {
            c.election_ms == election_ms
                || (!exact && (c.election_ms * 3).div_ceil(2).div_ceil(1000) <= ttl_s)
        };
        let i = match all.iter().position(fits) {
            Some(i) => i,
            None => {
                let heartbeat = (election_ms / 10).max(MIN_HEARTBEAT_MS);
                all.push(EtcdCluster::start(3, heartbeat, election_ms)?);
                all.len() - 1
            }
        };
        Ok(std::cell::RefMut::map(all, |v| &mut v[i]))
    }
}

static RUNS: AtomicU64 = AtomicU64::new(0);

struct Proc {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

/// Replays `s` once, `scale_us` real µs per simulated ms.
pub fn replay(
    s: &Scenario,
    t: &Trace,
    pg: &Postgres,
    slot: &Slot,
    scale_us: u64,
) -> std::io::Result<EtcdHappened> {
    let e = s.lock.etcd().ok_or_else(|| fail("not an etcd scenario"))?;
    let ttl_s = (s.lock.ttl_ms * scale_us).div_ceil(1_000_000);
    let member_faults = e.members.iter().any(|m| !m.events.is_empty());
    let mut cluster = slot.cluster(election_real_ms(s, scale_us), member_faults, ttl_s)?;
    cluster.wait_for_leader(Duration::from_secs(20))?;
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let prefix = format!("lab{}-{run}/", std::process::id());
    let gw = Gateway::new(cluster.ports(), Duration::from_secs(10));
    prepare_storage(s, pg.port)?;
    let balance_key = format!("{prefix}balance/{}", s.key);
    if s.storage.create_guard {
        let put = json!({
            "key": b64(balance_key.as_bytes()),
            "value": b64(s.storage.balance.to_string().as_bytes()),
        });
        gw.call("kv/put", &put).map_err(fail)?;
    }
    let before = gw
        .call("kv/range", &json!({ "key": b64(balance_key.as_bytes()) }))
        .and_then(|v| header_revision(&v))
        .map_err(fail)?;
    let offset = before - (s.lock.first_fence as i64 - 1);
    let dir = TempDir::in_memory()?;
    let file = dir.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    // Every client asks a follower first: a killed leader is then the one it fails over from
    // only if that follower is the one killed.
    let leader = cluster.leader();
    let mut ports = cluster.ports();
    if let Some(l) = leader {
        let p = ports.remove(l);
        ports.push(p);
    }
    let ports_arg = ports
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let end_ms = run_end_ms(s, t);
    let start = Arc::new(AtomicU64::new(0));
    let exe = client_program()?;
    let mut procs = Vec::new();
    for (k, c) in s.clients.iter().enumerate() {
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
            .args(["--etcd", &ports_arg])
            .args(["--prefix", &prefix])
            .args(["--until-ms", &end_ms.to_string()])
            .args(["--pg", &pg_ports.join(",")])
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
    let result = conduct(s, t, &mut cluster, &mut procs, &start, scale_us, end_ms);
    for p in &mut procs {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    let (lines, signals, member_kills) = result?;
    // Every member back, and every lease of the run revoked, so that nothing of this run
    // writes into the next one's revisions.
    for i in 0..3 {
        cluster.restart(i)?;
    }
    cluster.wait_for_leader(Duration::from_secs(20))?;
    for l in &lines {
        for id in l.iter().filter_map(|x| lease_of(x)) {
            let _ = gw.call("lease/revoke", &json!({ "ID": id.to_string() }));
        }
    }
    let (balance, last_fence) = if s.storage.create_guard {
        let v = gw
            .call("kv/range", &json!({ "key": b64(balance_key.as_bytes()) }))
            .map_err(fail)?;
        let (_, value) = first_kv(&v)
            .map_err(fail)?
            .ok_or_else(|| fail("the balance key is gone"))?;
        let b = String::from_utf8_lossy(&value)
            .parse()
            .map_err(|_| fail("the balance key does not hold a number"))?;
        (b, -1)
    } else {
        let mut db = Pg::connect(pg.port, PG_USER, "run")?;
        let a = db.query(&fencing_playground::sim::commands::ops::final_state_sql())?;
        let row = a.rows.first().ok_or_else(|| fail("no account row"))?;
        let number = |i: usize| -> std::io::Result<i64> {
            row.get(i)
                .and_then(|v| v.as_deref())
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| fail("the account row is not two numbers"))
        };
        (number(0)?, number(1)?)
    };
    Ok(EtcdHappened {
        h: Happened {
            lines,
            signals,
            balance,
            last_fence,
            scale_us,
        },
        offset,
        member_kills,
    })
}

/// The lease id of a client's `op grant` line.
pub fn lease_of(line: &str) -> Option<i64> {
    let w: Vec<&str> = line.split(' ').collect();
    match w.as_slice() {
        ["op", "grant", _, _, _, id] => id.parse().ok(),
        _ => None,
    }
}

type Conducted = (
    Vec<Vec<String>>,
    Vec<(usize, Signal, u64)>,
    Vec<(String, u64)>,
);

enum Due {
    Client(usize, Signal),
    /// Crash the model's member: the one leading now if the model's leads then.
    Kill {
        leads: bool,
        member: usize,
    },
    Restart {
        member: usize,
    },
}

fn conduct(
    s: &Scenario,
    t: &Trace,
    cluster: &mut EtcdCluster,
    procs: &mut [Proc],
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
    if let (Some(e), Some(et)) = (s.lock.etcd(), &t.etcd) {
        for (m, member) in e.members.iter().enumerate() {
            for ev in &member.events {
                if let MemberEvent::Crash { at_ms, down_ms } = ev {
                    let leads = et
                        .leaders
                        .iter()
                        .any(|l| l.member == m && l.start_ms <= *at_ms && *at_ms <= l.end_ms);
                    plan.push((*at_ms, Due::Kill { leads, member: m }));
                    plan.push((at_ms + down_ms, Due::Restart { member: m }));
                }
            }
        }
    }
    plan.sort_by_key(|(at, _)| *at);
    crate::servers::prioritise_this_thread();
    let t0 = mono_us() + 30_000;
    start.store(t0, std::sync::atomic::Ordering::SeqCst);
    for p in procs.iter_mut() {
        let stdin = p.child.stdin.as_mut().ok_or_else(|| fail("no stdin"))?;
        writeln!(stdin, "{t0}")?;
        stdin.flush()?;
    }
    let mut signals = Vec::new();
    let mut kills = Vec::new();
    // The model's member number → the real member crashed in its place.
    let mut stand_in: Vec<Option<usize>> = vec![None; 3];
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
            Due::Kill { leads, member } => {
                let leader = cluster.leader();
                let real = if leads {
                    leader.ok_or_else(|| fail("no leader to crash"))?
                } else {
                    (0..3).find(|i| Some(*i) != leader).unwrap_or(0)
                };
                cluster.kill(real);
                kills.push((cluster.name(real).to_string(), mono_us().saturating_sub(t0)));
                if let Some(x) = stand_in.get_mut(member) {
                    *x = Some(real);
                }
            }
            Due::Restart { member } => {
                if let Some(real) = stand_in.get(member).copied().flatten() {
                    cluster.restart(real)?;
                }
            }
        }
    }
    let end = t0 + (end_ms + s.lock.ttl_ms) * scale_us + 10_000_000;
    for (k, p) in procs.iter_mut().enumerate() {
        loop {
            if p.child.try_wait()?.is_some() {
                break;
            }
            if mono_us() > end {
                return Err(fail(format!("client {k} did not finish")));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let lines = procs.iter().map(|p| p.lines.iter().collect()).collect();
    Ok((lines, signals, kills))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::run;

    #[test]
    fn the_scale_makes_the_ttl_whole_seconds_and_clears_the_lessor_sweep() {
        let s = preset("etcd-pause-fenced").expect("preset");
        let t = run(&s);
        // 30 ms at 20 real ms each is 0.6 s: one second is the first whole TTL, but a sweep
        // 15 ms late would pass A's debit at 61 ms; two seconds (7.5 ms late) do not.
        assert!(lessor_clash(&s, &t, 33_333).is_some());
        assert_eq!(scale_for(&s, &t, 20_000, 1), Ok(2_000_000 / 30));
        assert_eq!(scale_for(&s, &t, 20_000, 2), Ok(2 * (2_000_000 / 30)));
        // B's key is revoked at 35 ms and C puts its own at 40 ms: the sweep must be well
        // within 5 ms.
        let w = preset("etcd-34-expired-waiter").expect("preset");
        let tw = run(&w);
        assert!(lessor_clash(&w, &tw, 2_000_000 / 30).is_some());
        let scale = scale_for(&w, &tw, 20_000, 1).expect("a scale");
        assert!(LESSOR_SWEEP_US as f64 / scale as f64 + 0.4 < 5.0, "{scale}");
    }

    /// The long random run's case 461 of seed 10: A's lease is revoked at 50 ms, which lets
    /// B's waiting lock call through, and B crashes at 53 ms. A sweep more than 3 ms late
    /// answers B after its death: the scale must bring the sweep within that.
    #[test]
    fn a_woken_waiter_that_crashes_soon_after_needs_the_sweep_before_its_crash() {
        let file = crate::lab_file("findings/random-10-461.json");
        let text = std::fs::read_to_string(file).expect("the saved case");
        let s = Scenario::from_json(&text).expect("a scenario");
        let t = run(&s);
        let why = lessor_clash(&s, &t, 34_000).expect("a clash at scale 34");
        assert!(why.contains("past the crash at 53 ms of B"), "{why}");
        let scale = scale_for(&s, &t, 20_000, 1).expect("a scale");
        assert!(LESSOR_SWEEP_US as f64 / scale as f64 + 0.4 < 3.0, "{scale}");
    }

    /// The long random run's case 448 of seed 10: C's lease and A's run out at 130 ms, after
    /// the last keepalives before the run's end. The model revokes C's first, which lets A's
    /// waiting lock call through; etcd revoked both in one sweep, and A was answered with its
    /// key gone. No scale separates two leases that end at the same instant.
    #[test]
    fn two_leases_revoked_at_the_same_instant_are_too_close_at_any_scale() {
        let file = crate::lab_file("corpus/random-10-448.json");
        let text = std::fs::read_to_string(file).expect("the saved case");
        let s = Scenario::from_json(&text).expect("a scenario");
        let t = run(&s);
        let why = scale_for(&s, &t, 20_000, 1).expect_err("no scale");
        assert!(why.contains("past A's write at 130 ms"), "{why}");
    }

    /// A fresh random run's case 62 of seed 11: A's lease runs out at 30 ms and the leader
    /// crashes at 35 ms. At scale 34 the lessor's sweep may come after the crash; the next
    /// leader then restarted A's lease, and B waited for it. The scale must bring the sweep
    /// before the crash.
    #[test]
    fn a_leader_crash_soon_after_a_lease_ran_out_needs_the_sweep_before_it() {
        let file = crate::lab_file("findings/random-11-62.json");
        let text = std::fs::read_to_string(file).expect("the saved case");
        let s = Scenario::from_json(&text).expect("a scenario");
        let t = run(&s);
        let why = lessor_clash(&s, &t, 34_000).expect("a clash at scale 34");
        assert!(why.contains("past the leader's crash at 35 ms"), "{why}");
        let scale = scale_for(&s, &t, 20_000, 1).expect("a scale");
        assert!(LESSOR_SWEEP_US as f64 / scale as f64 + 0.4 < 5.0, "{scale}");
    }

    #[test]
    fn a_grant_line_names_its_lease() {
        assert_eq!(lease_of("op grant 0 10 900 7587869"), Some(7_587_869));
        assert_eq!(lease_of("op lock 0 10 900 granted 12"), None);
    }
}
#[cfg(test)]
mod dump {
    #[test]
    #[ignore]
    fn dump() {
        for id in ["etcd-34-expired-waiter", "etcd-failover"] {
            let s = fencing_playground::sim::presets::preset(id).expect("preset");
            let t = fencing_playground::sim::run(&s);
            let e = t.etcd.as_ref().expect("etcd");
            println!("{id} revisions {:?}", e.revisions);
            println!("leaders {:?}", e.leaders);
            for st in &t.steps {
                println!("  {} {} {}", st.at_ms, t.client_name(st.client), st.text);
            }
        }
    }
}
