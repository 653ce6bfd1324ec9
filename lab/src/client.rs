//! `fencing-lab client`: one client of a single-lock scenario as its own OS process. It is
//! written from the algorithms' descriptions (the scenario format's event table), not from the
//! model: it shares the scenario reader and the commands' texts (the Lua scripts and the SQL),
//! and no engine, tally or decision code. It talks to the servers through the ecosystem's
//! clients (`redis`, `postgres`), runs its own agenda by the machine's monotonic clock, and
//! prints what it sent and got, with real times, one line per operation (`history` reads them).
//!
//! A pause is the conductor's `SIGSTOP`/`SIGCONT` and a crash its `SIGKILL`: the client knows
//! nothing of them. What fell due while it was stopped runs when it wakes, oldest first, as a
//! stopped process would; its watchdog is a timer of the same agenda, so it stalls too.

use crate::clock::{mono_us, sleep_until_us};
use fencing_playground::sim::commands::ops::Debit;
use fencing_playground::sim::commands::scripts::{ACQUIRE_SHA, EXTEND_SHA, RELEASE_SHA};
use fencing_playground::sim::scenario::{Event, ReleaseKind};
use fencing_playground::sim::{FenceRule, Scenario};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

/// Where the client finds its servers and how it keeps time, from the conductor's arguments.
pub struct Setup {
    pub index: usize,
    pub redis_port: u16,
    /// The PostgreSQL port each write event connects to, in event order (a delayed write goes
    /// through the lab's delaying proxy, the others straight to the server).
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    pub scenario: Scenario,
}

/// The lock this process believes it holds: the value it wrote and the fence it was given.
#[derive(Clone)]
struct Held {
    value: String,
    fence: Option<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Job {
    Event(usize),
    /// The write half of a check-then-write.
    Write(usize),
    /// A watchdog's renewal; the number tells watchdogs apart.
    Tick(u64),
}

/// Lines go to stdout whole, from the main thread and the writes' threads alike.
pub(crate) type Out = Arc<Mutex<std::io::Stdout>>;

pub(crate) fn say(out: &Out, line: String) {
    if let Ok(mut o) = out.lock() {
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    }
}

fn random_hex() -> String {
    let mut b = [0u8; 6];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = std::io::Read::read_exact(&mut f, &mut b);
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

struct Client {
    s: Scenario,
    name: String,
    scale: u64,
    start_us: u64,
    redis: redis::Connection,
    /// One PostgreSQL session per write event, opened before the run as a pool would.
    pg: Vec<(usize, Option<postgres::Client>)>,
    held: Option<Held>,
    watchdog: u64,
    agenda: Vec<(u64, u64, Job)>,
    seq: u64,
    /// When the job at hand began, in whole scenario ms: what it schedules counts from here,
    /// not from when its replies came back (the model's steps take no time).
    began_ms: u64,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

/// Reads that warm a session's caches before the run.
pub const WARM_UP: [&str; 3] = [
    "SELECT balance FROM accounts WHERE id = 1",
    "SELECT 1 FROM idempotency_keys LIMIT 1",
    "SELECT 1 FROM lock_values LIMIT 1",
];

pub(crate) fn pg_connect(port: u16) -> Result<postgres::Client, String> {
    let conf = format!(
        "host=127.0.0.1 port={port} user={} dbname=run",
        crate::servers::PG_USER
    );
    let mut c = postgres::Client::connect(&conf, postgres::NoTls).map_err(|e| e.to_string())?;
    for q in WARM_UP {
        c.simple_query(q).map_err(|e| e.to_string())?;
    }
    Ok(c)
}

/// Runs one client; its lines go to stdout. The conductor writes the start instant (the
/// monotonic clock in microseconds) on stdin once every client has said `ready`.
pub fn run(setup: Setup) -> Result<(), String> {
    let url = format!("redis://127.0.0.1:{}/", setup.redis_port);
    let redis = redis::Client::open(url.as_str())
        .and_then(|c| c.get_connection())
        .map_err(|e| format!("redis: {e}"))?;
    let mut pg = Vec::new();
    for (event, port) in &setup.pg_ports {
        pg.push((*event, Some(pg_connect(*port)?)));
    }
    // One round trip on each connection before the run, so the first request of the run does
    // not pay for code and pages touched the first time.
    let mut redis = redis;
    redis::cmd("PING")
        .query::<String>(&mut redis)
        .map_err(|e| format!("redis: {e}"))?;
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    say(&out, "ready".into());
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let start_us: u64 = line.trim().parse().map_err(|_| "no start instant")?;
    let name = setup.scenario.clients[setup.index].name.clone();
    let mut c = Client {
        name,
        scale: setup.scale,
        start_us,
        redis,
        pg,
        held: None,
        watchdog: 0,
        agenda: Vec::new(),
        seq: 0,
        began_ms: 0,
        out,
        writes: Vec::new(),
        s: setup.scenario,
    };
    let events = c.s.clients[setup.index].events.clone();
    for (i, e) in events.iter().enumerate() {
        // Pauses and crashes are done to the process; a clock jump makes the scenario one the
        // lab does not run.
        if !matches!(
            e,
            Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
        ) {
            c.push(e.at_ms(), Job::Event(i));
        }
    }
    while let Some(k) = (0..c.agenda.len()).min_by_key(|&k| (c.agenda[k].0, c.agenda[k].1)) {
        let (due_ms, _, job) = c.agenda.remove(k);
        sleep_until_us(c.start_us + due_ms * c.scale);
        c.job(job, &events);
    }
    for w in std::mem::take(&mut c.writes) {
        let _ = w.join();
    }
    Ok(())
}

impl Client {
    fn push(&mut self, due_ms: u64, job: Job) {
        self.seq += 1;
        self.agenda.push((due_ms, self.seq, job));
    }

    /// Microseconds since the start.
    fn now_us(&self) -> u64 {
        mono_us().saturating_sub(self.start_us)
    }

    /// The client's clock in whole scenario milliseconds, as it schedules by.
    fn now_ms(&self) -> u64 {
        (self.now_us() + self.scale / 2) / self.scale
    }

    fn ttl_wire(&self) -> u64 {
        self.s.lock.ttl_ms * self.scale / 1000
    }

    fn call(&mut self, cmd: &redis::Cmd) -> Result<redis::Value, String> {
        cmd.query::<redis::Value>(&mut self.redis)
            .map_err(|e| format!("redis: {e}"))
    }

    fn job(&mut self, job: Job, events: &[Event]) {
        self.began_ms = self.now_ms();
        let r = match job {
            Job::Event(i) => self.event(i, &events[i]),
            Job::Write(i) => {
                let t = self.now_us();
                self.send(i, &events[i], t);
                Ok(())
            }
            Job::Tick(id) if id == self.watchdog => self.tick(),
            Job::Tick(_) => Ok(()),
        };
        if let Err(e) = r {
            say(&self.out, format!("error {e}"));
        }
    }

    fn event(&mut self, i: usize, e: &Event) -> Result<(), String> {
        match e {
            Event::Acquire { .. } => self.acquire(i),
            Event::Renew { .. } => {
                let t0 = self.now_us();
                let ok = self.renew()?;
                let word = if ok { "ok" } else { "denied" };
                say(
                    &self.out,
                    format!("op renew {i} {t0} {} {word}", self.now_us()),
                );
                Ok(())
            }
            Event::Watchdog { .. } => {
                self.start_watchdog();
                Ok(())
            }
            Event::Release { mode, .. } => self.release(i, *mode),
            Event::CheckThenWrite { gap_ms, .. } => {
                let t0 = self.now_us();
                let held = self.is_held()?;
                let word = if held { "held" } else { "not" };
                say(
                    &self.out,
                    format!("op check {i} {t0} {} {word}", self.now_us()),
                );
                if held {
                    let at = self.began_ms + gap_ms;
                    self.push(at, Job::Write(i));
                }
                Ok(())
            }
            Event::Debit { .. } => {
                let t = self.now_us();
                self.send(i, e, t);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `SET key value NX PX ttl`, or the acquire script that also mints a fence.
    fn acquire(&mut self, i: usize) -> Result<(), String> {
        let value = format!("{}:{}", self.name, random_hex());
        let key = self.s.key.clone();
        let t0 = self.now_us();
        let reply = if self.s.lock.fencing {
            let mut c = redis::cmd("EVALSHA");
            c.arg(ACQUIRE_SHA)
                .arg(2)
                .arg(&key)
                .arg(format!("fence:{key}"));
            self.call(c.arg(&value).arg(self.ttl_wire()))?
        } else {
            let mut c = redis::cmd("SET");
            c.arg(&key).arg(&value).arg("NX").arg("PX");
            self.call(c.arg(self.ttl_wire()))?
        };
        let t1 = self.now_us();
        let fence = match reply {
            redis::Value::Int(f) => Some(Some(f)),
            redis::Value::Okay => Some(None),
            redis::Value::Nil => None,
            other => return Err(format!("acquire: unexpected reply {other:?}")),
        };
        let Some(fence) = fence else {
            say(&self.out, format!("op acquire {i} {t0} {t1} denied"));
            return Ok(());
        };
        let number = value_number(&value);
        let f = fence.map_or("-".to_string(), |f| f.to_string());
        say(
            &self.out,
            format!("op acquire {i} {t0} {t1} granted {f} {number}"),
        );
        self.held = Some(Held { value, fence });
        if self.s.lock.watchdog {
            self.start_watchdog();
        }
        Ok(())
    }

    /// Compare-and-expire with the value this client wrote; a client that holds nothing has
    /// nothing to extend.
    fn renew(&mut self) -> Result<bool, String> {
        let Some(h) = self.held.clone() else {
            return Ok(false);
        };
        let mut c = redis::cmd("EVALSHA");
        c.arg(EXTEND_SHA).arg(1).arg(&self.s.key).arg(&h.value);
        Ok(self.call(c.arg(self.ttl_wire()))? == redis::Value::Int(1))
    }

    /// A watchdog renews every TTL/2 until a renewal fails or the run is over.
    fn start_watchdog(&mut self) {
        self.watchdog += 1;
        self.next_tick();
    }

    fn next_tick(&mut self) {
        let at = self.began_ms + (self.s.lock.ttl_ms / 2).max(1);
        if at <= self.s.horizon_ms() {
            self.push(at, Job::Tick(self.watchdog));
        }
    }

    fn tick(&mut self) -> Result<(), String> {
        let t0 = self.now_us();
        let ok = self.renew()?;
        let word = if ok { "ok" } else { "denied" };
        say(
            &self.out,
            format!("op tick - {t0} {} {word}", self.now_us()),
        );
        if ok {
            self.next_tick();
        }
        Ok(())
    }

    fn release(&mut self, i: usize, mode: ReleaseKind) -> Result<(), String> {
        let t0 = self.now_us();
        let key = self.s.key.clone();
        let reply = match (mode, self.held.clone()) {
            (ReleaseKind::BareDel, _) => self.call(redis::cmd("DEL").arg(&key))?,
            (ReleaseKind::TokenChecked, Some(h)) => {
                let mut c = redis::cmd("EVALSHA");
                self.call(c.arg(RELEASE_SHA).arg(1).arg(&key).arg(&h.value))?
            }
            (ReleaseKind::TokenChecked, None) => redis::Value::Int(0),
        };
        let word = if reply == redis::Value::Int(1) {
            "deleted"
        } else {
            "nothing"
        };
        say(
            &self.out,
            format!("op release {i} {t0} {} {word}", self.now_us()),
        );
        self.held = None;
        self.watchdog += 1;
        Ok(())
    }

    /// `isHeld()`: the key still holds this client's value.
    fn is_held(&mut self) -> Result<bool, String> {
        let Some(h) = self.held.clone() else {
            return Ok(false);
        };
        let reply = self.call(redis::cmd("GET").arg(&self.s.key))?;
        Ok(reply == redis::Value::BulkString(h.value.into_bytes()))
    }

    /// Sends write event `i` with the token of the lock the client holds, on the session kept
    /// for it, in a thread of its own: the client goes on while the write is in the network.
    fn send(&mut self, i: usize, e: &Event, t0: u64) {
        let (amount, key) = match e {
            Event::Debit {
                amount,
                idempotency_key,
                ..
            }
            | Event::CheckThenWrite {
                amount,
                idempotency_key,
                ..
            } => (*amount, idempotency_key.clone()),
            _ => return,
        };
        let Some(h) = self.held.clone() else {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return;
        };
        let rule = self.s.storage.fence_rule;
        let token = match rule {
            FenceRule::CasValue => Some(value_number(&h.value)),
            _ => h.fence.and_then(|f| u64::try_from(f).ok()),
        };
        let debit = Debit {
            amount,
            token,
            key: key.filter(|_| self.s.storage.idempotency),
            rule,
        };
        let shown = token.map_or("-".to_string(), |t| t.to_string());
        say(&self.out, format!("op send {i} {t0} {t0} {shown}"));
        let Some(mut pg) = self
            .pg
            .iter_mut()
            .find(|(e, _)| *e == i)
            .and_then(|x| x.1.take())
        else {
            say(&self.out, format!("error no session kept for write {i}"));
            return;
        };
        let (out, start) = (self.out.clone(), self.start_us);
        self.writes.push(std::thread::spawn(move || {
            let line = match transaction(&mut pg, &debit, start) {
                Ok((t_in, t_end, word)) => format!("op store {i} {t_in} {t_end} {word}"),
                Err(e) => format!("error {e}"),
            };
            say(&out, line);
        }));
    }
}

/// The random part of a lock value, as a compare-and-set write carries it.
pub(crate) fn value_number(value: &str) -> u64 {
    let hex = value.rsplit(':').next().unwrap_or("");
    u64::from_str_radix(hex, 16).unwrap_or(0)
}

/// The debit's transaction, each next statement decided by the last reply: a stored key is a
/// duplicate, `UPDATE 0` a refusal. Returns when it reached the server (`BEGIN` answered),
/// when it ended, and how.
pub(crate) fn transaction(
    pg: &mut postgres::Client,
    d: &Debit,
    start: u64,
) -> Result<(u64, u64, String), String> {
    use postgres::SimpleQueryMessage as M;
    let mut q = |sql: &str| pg.simple_query(sql).map_err(|e| format!("{sql}: {e}"));
    let count = |ms: &[M]| {
        ms.iter().find_map(|m| match m {
            M::CommandComplete(n) => Some(*n),
            _ => None,
        })
    };
    q("BEGIN")?;
    let t_in = mono_us().saturating_sub(start);
    let end = |q: &mut dyn FnMut(&str) -> Result<Vec<M>, String>, sql: &str, word: String| {
        q(sql)?;
        Ok((t_in, mono_us().saturating_sub(start), word))
    };
    if let Some(insert) = d.key_insert() {
        if count(&q(&insert)?) == Some(0) {
            return end(&mut q, "ROLLBACK", "duplicate".into());
        }
    }
    let rows = q(&d.update())?;
    let balance = rows.iter().find_map(|m| match m {
        M::Row(r) => r.get(0).map(str::to_string),
        _ => None,
    });
    let Some(balance) = balance.filter(|_| count(&rows) == Some(1)) else {
        return end(&mut q, "ROLLBACK", "rejected".into());
    };
    if let Some(insert) = d.value_insert() {
        q(&insert)?;
    }
    end(&mut q, "COMMIT", format!("accepted {balance}"))
}
