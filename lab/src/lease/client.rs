//! `fencing-lab client --lease PORT …`: one client of a database-lease scenario as its own OS
//! process, written from the statements and not from the model: it shares the scenario reader
//! and the SQL text (`sim::commands::lease`, which the Commands view prints), and no engine or
//! decision code.
//!
//! The lease's statements go on one connection of the client's, opened before the run as a
//! pool's would be; each debit on a connection of its own (a delaying proxy's for a delayed
//! one), in a thread, so a debit in flight does not hold up the client's next statement. The
//! TTL in the statements is the scenario's, scaled to the run (`interval '… microseconds'`).
//! With the waiter's clock judging expiry, a client whose acquire returns nothing reads the row
//! and counts a TTL on its own wall clock (`SystemTime`, which the lab's clock shim moves when
//! the scenario moves this client's clock), then tries the compare-and-set with the values it
//! read; a row that changed meanwhile is read again. Each operation is one printed line with
//! real times (µs since the run's start); `history.rs` reads them.

use crate::client::{say, Out};
use crate::clock::{mono_us, sleep_until_us};
use fencing_playground::sim::commands::lease::{self as sql, LeaseDebit};
use fencing_playground::sim::scenario::{Event, LeaseExpiry};
use fencing_playground::sim::Scenario;
use postgres::SimpleQueryMessage as M;
use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// Where the client finds its server, from the conductor's arguments.
pub struct Setup {
    pub index: usize,
    /// The database's port.
    pub port: u16,
    /// Each debit event's port (a delaying proxy's for a delayed debit).
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    /// The run's end (scenario ms): the process lives until then.
    pub until_ms: u64,
    pub scenario: Scenario,
}

struct Client {
    s: Scenario,
    me: String,
    waiter: bool,
    /// The TTL as the statements write it, scaled.
    ttl: String,
    ttl_real: Duration,
    start_us: u64,
    lock: postgres::Client,
    /// The generation its last grant returned (0 before any): renew and release name it.
    generation: u64,
    /// Whether it believes it holds the lease (from a grant to its release).
    held: bool,
    pg: Vec<(usize, Option<postgres::Client>)>,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

/// A connection to the run's database, its caches warmed by reads of the tables it writes.
pub fn connect(port: u16) -> Result<postgres::Client, String> {
    let conf = format!(
        "host=127.0.0.1 port={port} user={} dbname=run",
        crate::servers::PG_USER
    );
    let mut c = postgres::Client::connect(&conf, postgres::NoTls).map_err(|e| e.to_string())?;
    for q in [
        "SELECT 1 FROM accounts LIMIT 1",
        "SELECT 1 FROM leases LIMIT 1",
    ] {
        c.simple_query(q).map_err(|e| e.to_string())?;
    }
    Ok(c)
}

/// A PostgreSQL error in words: the server's message when it sent one.
fn why(e: &postgres::Error) -> String {
    e.as_db_error()
        .map_or_else(|| e.to_string(), |d| d.message().to_string())
}

/// The first row's values of a statement's answer.
fn first_row(ms: &[M]) -> Option<Vec<Option<String>>> {
    ms.iter().find_map(|m| match m {
        M::Row(r) => Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect()),
        _ => None,
    })
}

/// How many rows the statement touched.
fn count(ms: &[M]) -> u64 {
    ms.iter()
        .find_map(|m| match m {
            M::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .unwrap_or(0)
}

/// Runs one client; the conductor writes the start instant on stdin after `ready`.
pub fn run(setup: Setup) -> Result<(), String> {
    let s = setup.scenario;
    let l = s
        .lock
        .lease()
        .cloned()
        .ok_or("not a database-lease scenario")?;
    let lock = connect(setup.port)?;
    let mut pg = Vec::new();
    for (event, port) in &setup.pg_ports {
        pg.push((*event, Some(connect(*port)?)));
    }
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    say(&out, "ready".into());
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let start_us: u64 = line.trim().parse().map_err(|_| "no start instant")?;
    let events = s
        .clients
        .get(setup.index)
        .ok_or("no such client")?
        .events
        .clone();
    let ttl_us = s.lock.ttl_ms.saturating_mul(setup.scale);
    let mut c = Client {
        me: s.clients[setup.index].name.clone(),
        waiter: l.expiry == LeaseExpiry::Waiter,
        ttl: sql::interval_us(ttl_us),
        ttl_real: Duration::from_micros(ttl_us),
        s,
        start_us,
        lock,
        generation: 0,
        held: false,
        pg,
        out,
        writes: Vec::new(),
    };
    let mut agenda: Vec<(u64, usize)> = events
        .iter()
        .enumerate()
        // Pauses and crashes are done to the process by the conductor, a clock jump by its
        // clock shim.
        .filter(|(_, e)| {
            !matches!(
                e,
                Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
            )
        })
        .map(|(i, e)| (e.at_ms(), i))
        .collect();
    agenda.sort();
    for (due_ms, i) in agenda {
        sleep_until_us(c.start_us + due_ms * setup.scale);
        if let Err(e) = c.event(i, &events[i]) {
            say(&c.out, format!("error {e}"));
        }
    }
    for w in std::mem::take(&mut c.writes) {
        let _ = w.join();
    }
    sleep_until_us(c.start_us + setup.until_ms * setup.scale);
    Ok(())
}

impl Client {
    fn now_us(&self) -> u64 {
        mono_us().saturating_sub(self.start_us)
    }

    fn event(&mut self, i: usize, e: &Event) -> Result<(), String> {
        match e {
            Event::Acquire { .. } => self.acquire(i),
            Event::Renew { .. } => self.guarded(i, "renew"),
            Event::Release { .. } => self.guarded(i, "release"),
            Event::Debit {
                amount,
                idempotency_key,
                ..
            } => self.debit(i, *amount, idempotency_key.clone()),
            other => Err(format!(
                "the lease client does not do {:?} events",
                std::mem::discriminant(other)
            )),
        }
    }

    fn query(&mut self, q: &str) -> Result<Vec<M>, String> {
        self.lock
            .simple_query(q)
            .map_err(|e| format!("{q}: {}", why(&e)))
    }

    fn granted(&mut self, kind: &str, i: usize, t0: u64, g: &str) -> Result<(), String> {
        self.generation = g.parse().map_err(|_| format!("generation {g:?}"))?;
        self.held = true;
        let t1 = self.now_us();
        say(&self.out, format!("op {kind} {i} {t0} {t1} granted {g}"));
        Ok(())
    }

    fn acquire(&mut self, i: usize) -> Result<(), String> {
        let t0 = self.now_us();
        let first = self.s.lock.first_fence;
        let q = sql::acquire_sql(&self.s.key, &self.me, first, &self.ttl, self.waiter);
        let rows = self.query(&q)?;
        if let Some(Some(g)) = first_row(&rows).and_then(|r| r.into_iter().next()) {
            return self.granted("lock", i, t0, &g);
        }
        if !self.waiter {
            let t1 = self.now_us();
            say(&self.out, format!("op lock {i} {t0} {t1} held"));
            return Ok(());
        }
        // The waiter's way: read the row, count a TTL on its own clock, compare and set.
        let mut t0 = t0;
        loop {
            let q = sql::read_sql(&self.s.key);
            let read = first_row(&self.query(&q)?).ok_or("the waiter's read found no row")?;
            let seen_generation = read.first().cloned().flatten().ok_or("no generation")?;
            let seen_expires = read.get(1).cloned().flatten().ok_or("no expires_at")?;
            if read.get(2).cloned().flatten().as_deref() == Some(self.me.as_str()) {
                // Its own row: nothing to wait for, the acquire is refused.
                let t1 = self.now_us();
                say(&self.out, format!("op lock {i} {t0} {t1} held"));
                return Ok(());
            }
            let read_at = SystemTime::now();
            say(
                &self.out,
                format!("op wait {i} {t0} {} {seen_generation}", self.now_us()),
            );
            wait_on_own_clock(read_at + self.ttl_real);
            t0 = self.now_us();
            let q = sql::takeover_sql(
                &self.s.key,
                &self.me,
                &self.ttl,
                &seen_generation,
                &sql::lit(&seen_expires),
            );
            let rows = self.query(&q)?;
            if let Some(Some(g)) = first_row(&rows).and_then(|r| r.into_iter().next()) {
                return self.granted("lock", i, t0, &g);
            }
        }
    }

    /// A renewal or a release, guarded by holder and generation.
    fn guarded(&mut self, i: usize, kind: &str) -> Result<(), String> {
        let t0 = self.now_us();
        let (key, me, g) = (self.s.key.clone(), self.me.clone(), self.generation);
        let q = match kind {
            "renew" => sql::renew_sql(&key, &me, g, &self.ttl, self.waiter),
            _ => {
                self.held = false;
                sql::release_sql(&key, &me, g)
            }
        };
        let n = count(&self.query(&q)?);
        let t1 = self.now_us();
        say(&self.out, format!("op {kind} {i} {t0} {t1} UPDATE {n}"));
        Ok(())
    }

    fn debit(&mut self, i: usize, amount: i64, key: Option<String>) -> Result<(), String> {
        let t0 = self.now_us();
        if !self.held {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return Ok(());
        }
        let token = self.s.lock.fencing.then_some(self.generation);
        let sent = token.map_or("none".to_string(), |g| g.to_string());
        say(&self.out, format!("op send {i} {t0} {t0} {sent}"));
        let d = LeaseDebit {
            account: &self.s.key,
            who: &self.me,
            amount,
            token,
            rule: self.s.storage.fence_rule,
            guard: self.s.storage.lease_guard,
            key: key.as_deref().filter(|_| self.s.storage.idempotency),
        };
        let (q, tags) = (d.sql(), d.tags());
        let Some(mut pg) = self
            .pg
            .iter_mut()
            .find(|(e, _)| *e == i)
            .and_then(|x| x.1.take())
        else {
            return Err(format!("no session kept for write {i}"));
        };
        let (out, start) = (self.out.clone(), self.start_us);
        self.writes.push(std::thread::spawn(move || {
            let reply = match pg.simple_query(&q) {
                // The tag's word from the statement, its count from the server.
                Ok(ms) => format!(
                    "{} {}",
                    tags.1.rsplit_once(' ').map_or("", |x| x.0),
                    count(&ms)
                ),
                Err(e) => format!("ERROR: {}", why(&e)),
            };
            let t1 = mono_us().saturating_sub(start);
            say(&out, format!("op store {i} {t0} {t1} {reply}"));
        }));
        Ok(())
    }
}

/// Sleeps until the wall clock (this process's own, as the shim may move it) reads `at`.
fn wait_on_own_clock(at: SystemTime) {
    loop {
        let left = at
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        if left.is_zero() {
            return;
        }
        // Short slices: a step of the clock is seen within one.
        std::thread::sleep(left.min(Duration::from_micros(200)));
    }
}
