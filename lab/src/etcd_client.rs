//! `fencing-lab client --etcd …`: one client of an etcd scenario as its own OS process, written
//! from etcd's documented API (the JSON gateway, `gateway.rs`) and not from the model: it
//! shares the scenario reader and the debit's SQL, and no engine or decision code.
//!
//! A session is a lease granted with the scenario's TTL and kept alive every TTL/3 by a thread
//! of this process, as etcd's client library does: a `SIGSTOP` of the process stalls it with
//! everything else. The lock is etcd's lock service (`/v3/lock/lock`), which puts a key under
//! the lock's name with the session's lease and answers once every key with a lower create
//! revision is gone (FIFO); the client then reads its key's create revision, its fence. A
//! debit goes to PostgreSQL with the storage's fence rule (the lab's debit SQL), or, when the
//! scenario keeps the account in etcd, is a transaction that commits only if the client's lock
//! key still has the create revision it was granted (`CREATE(key) == myRev`). A keepalive
//! answered with TTL 0 means the lease is gone: the client stops believing it holds the lock
//! (for its work due after that keepalive). Each operation is one printed line with real
//! times; `etcd_history` reads them.

use crate::client::{pg_connect, say, transaction, Out};
use crate::clock::{mono_us, sleep_until_us};
use crate::gateway::{b64, first_kv, int, Gateway};
use fencing_playground::sim::commands::ops::Debit;
use fencing_playground::sim::scenario::Event;
use fencing_playground::sim::Scenario;
use serde_json::json;
use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where the client finds its servers, from the conductor's arguments.
pub struct Setup {
    pub index: usize,
    /// The members' client ports, the one to ask first first.
    pub ports: Vec<u16>,
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    /// Prepended to the scenario's key: each run has keys of its own on the shared cluster.
    pub prefix: String,
    /// The run's end (scenario ms): the session is kept alive until then.
    pub until_ms: u64,
    pub scenario: Scenario,
}

/// What the keepalive thread found: the due time (scenario ms) of the keepalive that was told
/// the lease is gone.
#[derive(Default)]
struct Lease {
    id: i64,
    /// A keepalive was told the lease is gone: the next lock needs a new one.
    gone: bool,
    /// When that keepalive was due, while no lock answer has come since: work due after it
    /// is done as by a client that holds nothing.
    lost_due_ms: Option<u64>,
}

/// The lock this process believes it holds: its key, and the key's create revision (none
/// when the lock call answered with a key that no longer exists).
#[derive(Clone)]
struct Held {
    key: String,
    revision: Option<i64>,
}

struct Client {
    s: Scenario,
    until_ms: u64,
    scale: u64,
    start_us: u64,
    gw: Arc<Gateway>,
    /// Lock calls wait in the queue: they get a gateway with a timeout as long as the run.
    waiting_gw: Gateway,
    name: String,
    balance_key: String,
    ttl_s: i64,
    lease: Arc<Mutex<Lease>>,
    keepalive: Option<std::thread::JoinHandle<()>>,
    held: Option<Held>,
    pg: Vec<(usize, Option<postgres::Client>)>,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

/// The time since `start_us`, in µs.
fn since(start_us: u64) -> u64 {
    mono_us().saturating_sub(start_us)
}

/// Runs one client; the conductor writes the start instant on stdin after `ready`.
pub fn run(setup: Setup) -> Result<(), String> {
    let s = setup.scenario;
    let ttl_real_us = s.lock.ttl_ms.saturating_mul(setup.scale);
    let ttl_s = (ttl_real_us + 500_000) / 1_000_000;
    if ttl_s == 0 || ttl_real_us.abs_diff(ttl_s * 1_000_000) > 1000 {
        return Err(format!(
            "a TTL of {} ms at {} µs per ms is not a whole number of seconds",
            s.lock.ttl_ms, setup.scale
        ));
    }
    let run_us = (setup.until_ms + s.lock.ttl_ms) * setup.scale + 5_000_000;
    let gw = Arc::new(Gateway::new(
        setup.ports.clone(),
        Duration::from_micros(ttl_real_us),
    ));
    let waiting_gw = Gateway::new(setup.ports, Duration::from_micros(run_us));
    // One round trip before the run, so the first request does not pay for a cold start.
    gw.call("maintenance/status", &json!({}))?;
    let mut pg = Vec::new();
    for (event, port) in &setup.pg_ports {
        pg.push((*event, Some(pg_connect(*port)?)));
    }
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    say(&out, "ready".into());
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let start_us: u64 = line.trim().parse().map_err(|_| "no start instant")?;
    let mut c = Client {
        name: format!("{}{}", setup.prefix, s.key),
        balance_key: format!("{}balance/{}", setup.prefix, s.key),
        ttl_s: ttl_s as i64,
        scale: setup.scale,
        start_us,
        gw,
        waiting_gw,
        lease: Arc::new(Mutex::new(Lease::default())),
        keepalive: None,
        held: None,
        pg,
        out,
        writes: Vec::new(),
        until_ms: setup.until_ms,
        s,
    };
    let events = c.s.clients[setup.index].events.clone();
    let mut agenda: Vec<(u64, usize)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            // Pauses and crashes are done to the process by the conductor.
            !matches!(
                e,
                Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
            )
        })
        .map(|(i, e)| (e.at_ms(), i))
        .collect();
    agenda.sort();
    for (due_ms, i) in agenda {
        sleep_until_us(c.start_us + due_ms * c.scale);
        if let Err(e) = c.event(i, due_ms, &events[i]) {
            say(&c.out, format!("error {e}"));
        }
    }
    for w in std::mem::take(&mut c.writes) {
        let _ = w.join();
    }
    // The session lives on until the run's end, as the model's does.
    if let Some(k) = c.keepalive.take() {
        let _ = k.join();
    }
    Ok(())
}

impl Client {
    fn now_us(&self) -> u64 {
        since(self.start_us)
    }

    /// The client's clock in whole scenario milliseconds.
    fn now_ms(&self) -> u64 {
        (self.now_us() + self.scale / 2) / self.scale
    }

    fn event(&mut self, i: usize, due_ms: u64, e: &Event) -> Result<(), String> {
        match e {
            Event::Acquire { .. } => self.acquire(i),
            Event::Release { .. } => self.release(i),
            Event::Renew { .. } => self.renew(i),
            Event::Debit {
                amount,
                idempotency_key,
                ..
            } => {
                self.debit(i, due_ms, *amount, idempotency_key.clone());
                Ok(())
            }
            other => Err(format!(
                "the etcd client does not do {:?} events",
                std::mem::discriminant(other)
            )),
        }
    }

    /// Whether the client has no live lease to lock with.
    fn lease_gone(&self) -> bool {
        self.lease.lock().map_or(true, |l| l.id == 0 || l.gone)
    }

    /// Whether a keepalive due before `due_ms` was told the lease is gone, with no lock answer
    /// since.
    fn lost_before(&self, due_ms: u64) -> bool {
        self.lease
            .lock()
            .map_or(true, |l| l.lost_due_ms.is_some_and(|d| d < due_ms))
    }

    /// A live session: the current lease, or a new one with its keepalive thread.
    fn session(&mut self, i: usize) -> Result<i64, String> {
        if !self.lease_gone() {
            return self
                .lease
                .lock()
                .map(|l| l.id)
                .map_err(|_| "the lease state is poisoned".to_string());
        }
        let began_ms = self.now_ms();
        let t0 = self.now_us();
        let v = self.gw.call("lease/grant", &json!({ "TTL": self.ttl_s }))?;
        let t1 = self.now_us();
        let id = int(&v, "ID")?;
        if id == 0 {
            return Err(format!("lease grant answered {v}"));
        }
        say(&self.out, format!("op grant {i} {t0} {t1} {id}"));
        if let Some(old) = self.keepalive.take() {
            let _ = old.join();
        }
        if let Ok(mut l) = self.lease.lock() {
            *l = Lease {
                id,
                gone: false,
                lost_due_ms: None,
            };
        }
        let every_ms = (self.s.lock.ttl_ms / 3).max(1);
        let (gw, lease, out) = (self.gw.clone(), self.lease.clone(), self.out.clone());
        let (start_us, scale, horizon) = (self.start_us, self.scale, self.until_ms);
        self.keepalive = Some(std::thread::spawn(move || {
            let mut base_ms = began_ms;
            loop {
                let due = base_ms + every_ms;
                if due > horizon {
                    return;
                }
                sleep_until_us(start_us + due * scale);
                base_ms = (since(start_us) + scale / 2) / scale;
                let t0 = since(start_us);
                let ttl = gw
                    .call("lease/keepalive", &json!({ "ID": id.to_string() }))
                    .and_then(|v| int(&v, "TTL"));
                let t1 = since(start_us);
                match ttl {
                    Ok(0) => {
                        say(&out, format!("op keepalive - {t0} {t1} lost"));
                        if let Ok(mut l) = lease.lock() {
                            l.gone = true;
                            l.lost_due_ms = Some(due);
                        }
                        return;
                    }
                    Ok(_) => {}
                    // No leader to answer: the lease is neither refreshed nor expired.
                    Err(e) => say(&out, format!("note keepalive unanswered: {e}")),
                }
            }
        }));
        Ok(id)
    }

    fn acquire(&mut self, i: usize) -> Result<(), String> {
        let lease = self.session(i)?;
        let t0 = self.now_us();
        let v = self.waiting_gw.call(
            "lock/lock",
            &json!({ "name": b64(self.name.as_bytes()), "lease": lease.to_string() }),
        )?;
        let t1 = self.now_us();
        let Some(key) = v.get("key").and_then(|k| k.as_str()) else {
            let why = crate::gateway::error_of(&v).unwrap_or_else(|| v.to_string());
            say(
                &self.out,
                format!("op lock {i} {t0} {t1} refused {}", why.replace(' ', "_")),
            );
            return Ok(());
        };
        let key = crate::gateway::unb64(key)
            .and_then(|k| String::from_utf8(k).ok())
            .ok_or_else(|| format!("lock answered a key that is not base64 text: {key}"))?;
        // The lock call's answer is what the client believes from now on.
        if let Ok(mut l) = self.lease.lock() {
            l.lost_due_ms = None;
        }
        let revision = self.create_revision(&key)?;
        match revision {
            Some(r) => say(&self.out, format!("op lock {i} {t0} {t1} granted {r}")),
            None => say(&self.out, format!("op lock {i} {t0} {t1} gone")),
        }
        self.held = Some(Held { key, revision });
        Ok(())
    }

    /// The key's create revision, or `None` when it does not exist.
    fn create_revision(&self, key: &str) -> Result<Option<i64>, String> {
        let v = self
            .gw
            .call("kv/range", &json!({ "key": b64(key.as_bytes()) }))?;
        Ok(first_kv(&v)?.map(|(rev, _)| rev))
    }

    fn release(&mut self, i: usize) -> Result<(), String> {
        let t0 = self.now_us();
        let Some(h) = self.held.take() else {
            say(&self.out, format!("op unlock {i} {t0} {t0} nothing"));
            return Ok(());
        };
        let existed = self.create_revision(&h.key)?.is_some();
        self.gw
            .call("lock/unlock", &json!({ "key": b64(h.key.as_bytes()) }))?;
        let word = if existed { "deleted" } else { "nothing" };
        say(
            &self.out,
            format!("op unlock {i} {t0} {} {word}", self.now_us()),
        );
        Ok(())
    }

    /// An explicit keepalive of the session's lease. With no lease, or one its keepalive loop
    /// already found gone, there is nothing to keep alive and nothing is sent.
    fn renew(&mut self, i: usize) -> Result<(), String> {
        let id = self.lease.lock().map(|l| l.id).unwrap_or(0);
        let t0 = self.now_us();
        if self.lease_gone() {
            say(&self.out, format!("op renew {i} {t0} {t0} none"));
            return Ok(());
        }
        let ttl = if id == 0 {
            0
        } else {
            let v = self
                .gw
                .call("lease/keepalive", &json!({ "ID": id.to_string() }))?;
            int(&v, "TTL")?
        };
        let word = if ttl > 0 { "ok" } else { "lost" };
        say(
            &self.out,
            format!("op renew {i} {t0} {} {word}", self.now_us()),
        );
        Ok(())
    }

    fn debit(&mut self, i: usize, due_ms: u64, amount: i64, key: Option<String>) {
        let t0 = self.now_us();
        let held = self.held.clone().filter(|_| !self.lost_before(due_ms));
        let Some(h) = held else {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return;
        };
        let token = h
            .revision
            .filter(|_| self.s.lock.fencing)
            .and_then(|r| u64::try_from(r).ok());
        let shown = h.revision.map_or("-".to_string(), |r| r.to_string());
        say(&self.out, format!("op send {i} {t0} {t0} {shown}"));
        let (out, start) = (self.out.clone(), self.start_us);
        if self.s.storage.create_guard {
            let (gw, balance_key) = (self.gw.clone(), self.balance_key.clone());
            self.writes.push(std::thread::spawn(move || {
                let line = match guarded(&gw, &balance_key, &h, amount, start) {
                    Ok((t_in, t_end, word)) => format!("op store {i} {t_in} {t_end} {word}"),
                    Err(e) => format!("error {e}"),
                };
                say(&out, line);
            }));
            return;
        }
        let rule = self.s.storage.fence_rule;
        let debit = Debit {
            amount,
            token,
            key: key.filter(|_| self.s.storage.idempotency),
            rule,
        };
        let Some(mut pg) = self
            .pg
            .iter_mut()
            .find(|(e, _)| *e == i)
            .and_then(|x| x.1.take())
        else {
            say(&self.out, format!("error no session kept for write {i}"));
            return;
        };
        self.writes.push(std::thread::spawn(move || {
            let line = match transaction(&mut pg, &debit, start) {
                Ok((t_in, t_end, word)) => format!("op store {i} {t_in} {t_end} {word}"),
                Err(e) => format!("error {e}"),
            };
            say(&out, line);
        }));
    }
}

/// The account kept in etcd: read the balance, then one transaction that writes the new one
/// only if the lock key still exists with the create revision this client was granted.
fn guarded(
    gw: &Gateway,
    balance_key: &str,
    h: &Held,
    amount: i64,
    start: u64,
) -> Result<(u64, u64, String), String> {
    let rev = h
        .revision
        .ok_or("a guarded debit needs the lock key's create revision, and the key was gone")?;
    let t_in = since(start);
    let v = gw.call("kv/range", &json!({ "key": b64(balance_key.as_bytes()) }))?;
    let (_, value) = first_kv(&v)?.ok_or("the balance key is missing")?;
    let balance: i64 = String::from_utf8_lossy(&value)
        .parse()
        .map_err(|_| "the balance key does not hold a number".to_string())?;
    let new = balance - amount;
    let txn = json!({
        "compare": [{
            "target": "CREATE",
            "result": "EQUAL",
            "key": b64(h.key.as_bytes()),
            "create_revision": rev.to_string(),
        }],
        "success": [{
            "request_put": {
                "key": b64(balance_key.as_bytes()),
                "value": b64(new.to_string().as_bytes()),
            }
        }],
    });
    let reply = gw.call("kv/txn", &txn)?;
    if let Some(e) = crate::gateway::error_of(&reply) {
        return Err(format!("txn: {e}"));
    }
    let ok = reply
        .get("succeeded")
        .and_then(|b| b.as_bool())
        .unwrap_or(false);
    let word = if ok {
        format!("accepted {new}")
    } else {
        "rejected".to_string()
    };
    Ok((t_in, since(start), word))
}
