//! `fencing-lab client --advisory …`: one client of a PostgreSQL advisory-lock scenario as its
//! own OS process, written from PostgreSQL's documentation and not from the model: it shares
//! the scenario reader and the debit's SQL, and no engine or decision code.
//!
//! The lock lives in one connection of the client's (`application_name` `lock-<index>`, so the
//! conductor can find it): `pg_advisory_lock(k)` at session level, `BEGIN;
//! pg_advisory_xact_lock(k)` at transaction level, each blocking until the server grants it.
//! The scenario's `idle_session_timeout` and `idle_in_transaction_session_timeout` are set on
//! that connection, scaled, so the server ends it as PostgreSQL does. The client learns that
//! its session ended only when it next uses it (a statement fails); it then opens a new one for
//! its next lock. A debit goes to separate storage (its own connection, the storage's SQL) when
//! the client believes it holds the lock, or, with `storage.inTransaction`, is an `UPDATE` on
//! the lock's own connection (and its `COMMIT`, at transaction level, which ends the lock).
//! Each operation is one printed line with real times; `pg_history` reads them.

use crate::client::{pg_connect, say, transaction, Out};
use crate::clock::{mono_us, sleep_until_us};
use fencing_playground::sim::commands::ops::Debit;
use fencing_playground::sim::scenario::{Advisory, AdvisoryLevel, Event};
use fencing_playground::sim::Scenario;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

/// Where the client finds its server, from the conductor's arguments.
pub struct Setup {
    pub index: usize,
    /// The lock's server.
    pub port: u16,
    /// Each write event's storage port (a delaying proxy's for a delayed debit).
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    /// The run's end (scenario ms): the process and its sessions live until then, as the
    /// model's client does when it has nothing left to do.
    pub until_ms: u64,
    pub scenario: Scenario,
}

struct Client {
    s: Scenario,
    a: Advisory,
    index: usize,
    port: u16,
    scale: u64,
    start_us: u64,
    /// The lock's connection.
    lock: Option<postgres::Client>,
    /// A statement on `lock` failed: the server ended that session. The client keeps the
    /// dead connection (its next statement on it fails too) until it unlocks or locks again.
    dead: bool,
    /// Whether the client believes it holds the lock.
    held: bool,
    pg: Vec<(usize, Option<postgres::Client>)>,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

/// A PostgreSQL error in words: the server's message when it sent one.
fn why(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(
        || e.to_string(),
        |d| format!("{}: {}", d.severity(), d.message()),
    )
}

fn since(start_us: u64) -> u64 {
    mono_us().saturating_sub(start_us)
}

/// A scaled PostgreSQL duration setting, in whole ms (0: off).
fn scaled_ms(ms: Option<u64>, scale: u64) -> u64 {
    ms.map_or(0, |ms| (ms * scale).div_ceil(1000).max(1))
}

/// Opens a connection for the lock. The scenario's timeouts are set by the lock call itself
/// (`lock_sql`): the idle timers count from a session's last statement, and a connection
/// opened before the run must not time out before its first lock.
fn lock_connection(port: u16, index: usize) -> Result<postgres::Client, String> {
    let conf = format!(
        "host=127.0.0.1 port={port} user={} dbname=run application_name=lock-{index}",
        crate::servers::PG_USER
    );
    postgres::Client::connect(&conf, postgres::NoTls).map_err(|e| e.to_string())
}

/// The lock call, with the scenario's timeouts (scaled) set first in the same query.
fn lock_sql(a: &Advisory, scale: u64) -> String {
    let k = a.lock_id;
    let call = match a.level {
        AdvisoryLevel::Session => format!("SELECT pg_advisory_lock({k})"),
        AdvisoryLevel::Transaction => format!("BEGIN; SELECT pg_advisory_xact_lock({k})"),
    };
    format!(
        "SET idle_session_timeout = {}; SET idle_in_transaction_session_timeout = {}; {call}",
        scaled_ms(a.idle_session_timeout_ms, scale),
        scaled_ms(a.idle_in_transaction_timeout_ms, scale)
    )
}

/// Runs one client; the conductor writes the start instant on stdin after `ready`.
pub fn run(setup: Setup) -> Result<(), String> {
    let s = setup.scenario;
    let a = s
        .lock
        .advisory()
        .cloned()
        .ok_or("not an advisory-lock scenario")?;
    // The first lock connection is opened before the run, as a pool's would be.
    let spare = lock_connection(setup.port, setup.index)?;
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
    let events = s.clients[setup.index].events.clone();
    let mut c = Client {
        s,
        a,
        index: setup.index,
        port: setup.port,
        scale: setup.scale,
        start_us,
        lock: Some(spare),
        dead: false,
        held: false,
        pg,
        out,
        writes: Vec::new(),
    };
    let mut agenda: Vec<(u64, usize)> = events
        .iter()
        .enumerate()
        // Pauses and crashes are done to the process by the conductor.
        .filter(|(_, e)| !matches!(e, Event::Pause { .. } | Event::Crash { .. }))
        .map(|(i, e)| (e.at_ms(), i))
        .collect();
    agenda.sort();
    for (due_ms, i) in agenda {
        sleep_until_us(c.start_us + due_ms * c.scale);
        if let Err(e) = c.event(i, &events[i]) {
            say(&c.out, format!("error {e}"));
        }
    }
    for w in std::mem::take(&mut c.writes) {
        let _ = w.join();
    }
    sleep_until_us(c.start_us + setup.until_ms * c.scale);
    Ok(())
}

impl Client {
    fn now_us(&self) -> u64 {
        since(self.start_us)
    }

    fn event(&mut self, i: usize, e: &Event) -> Result<(), String> {
        match e {
            Event::Acquire { .. } => self.acquire(i),
            Event::Release { .. } => {
                self.release(i);
                Ok(())
            }
            Event::Debit {
                amount,
                idempotency_key,
                ..
            } => self.debit(i, *amount, idempotency_key.clone()),
            other => Err(format!(
                "the advisory-lock client does not do {:?} events",
                std::mem::discriminant(other)
            )),
        }
    }

    fn acquire(&mut self, i: usize) -> Result<(), String> {
        let t0 = self.now_us();
        if self.held {
            say(&self.out, format!("op lock {i} {t0} {t0} already"));
            return Ok(());
        }
        let sql = lock_sql(&self.a, self.scale);
        // A connection the client has not yet found dead is used as it is; one found dead is
        // replaced first. A statement that fails on a connection the client thought alive
        // tells it the session ended; it then opens a new one and asks again, as a pool does.
        let mut tries = 0;
        loop {
            tries += 1;
            if self.lock.is_none() || self.dead {
                self.lock = Some(lock_connection(self.port, self.index)?);
                self.dead = false;
            }
            let Some(c) = self.lock.as_mut() else {
                return Err("no lock connection".into());
            };
            match c.batch_execute(&sql) {
                Ok(()) => {
                    self.held = true;
                    say(
                        &self.out,
                        format!("op lock {i} {t0} {} granted", self.now_us()),
                    );
                    return Ok(());
                }
                Err(e) => {
                    self.dead = true;
                    eprintln!("lab client {}: lock call failed: {}", self.index, why(&e));
                    let waited = self.now_us().saturating_sub(t0) > self.scale;
                    if waited || tries > 1 {
                        // The session ended under a call that had waited: the call fails.
                        say(
                            &self.out,
                            format!("op lock {i} {t0} {} gone", self.now_us()),
                        );
                        return Ok(());
                    }
                }
            }
        }
    }

    fn release(&mut self, i: usize) {
        let t0 = self.now_us();
        let was_held = std::mem::take(&mut self.held);
        if self.dead {
            // The statement goes out on the dead connection and fails: the session is gone.
            self.lock = None;
            self.dead = false;
            say(
                &self.out,
                format!("op unlock {i} {t0} {} gone", self.now_us()),
            );
            return;
        }
        let Some(c) = self.lock.as_mut() else {
            say(&self.out, format!("op unlock {i} {t0} {t0} nothing"));
            return;
        };
        let k = self.a.lock_id;
        let word = match self.a.level {
            AdvisoryLevel::Session => {
                match c.simple_query(&format!("SELECT pg_advisory_unlock({k})")) {
                    Ok(rows) => {
                        let t = rows.iter().find_map(|m| match m {
                            postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                            _ => None,
                        });
                        if t.as_deref() == Some("t") {
                            "released"
                        } else {
                            "nothing"
                        }
                    }
                    Err(e) => {
                        eprintln!("lab client {}: unlock failed: {}", self.index, why(&e));
                        self.lock = None;
                        "gone"
                    }
                }
            }
            AdvisoryLevel::Transaction if !was_held => "nothing",
            AdvisoryLevel::Transaction => match c.batch_execute("COMMIT") {
                Ok(()) => "released",
                Err(e) => {
                    eprintln!("lab client {}: COMMIT failed: {}", self.index, why(&e));
                    self.lock = None;
                    "gone"
                }
            },
        };
        say(
            &self.out,
            format!("op unlock {i} {t0} {} {word}", self.now_us()),
        );
    }

    fn debit(&mut self, i: usize, amount: i64, key: Option<String>) -> Result<(), String> {
        let t0 = self.now_us();
        if !self.held {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return Ok(());
        }
        say(&self.out, format!("op send {i} {t0} {t0} -"));
        // An advisory lock hands out no token: under a fence rule the storage sees none.
        let debit = Debit {
            amount,
            token: None,
            key: key.filter(|_| self.s.storage.idempotency),
            rule: self.s.storage.fence_rule,
        };
        if self.s.storage.in_transaction {
            let line = self.debit_in_session(i, &debit);
            say(&self.out, line);
            return Ok(());
        }
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
            let line = match transaction(&mut pg, &debit, start) {
                Ok((t_in, t_end, word)) => format!("op store {i} {t_in} {t_end} {word}"),
                Err(e) => format!("error {e}"),
            };
            say(&out, line);
        }));
        Ok(())
    }

    /// The debit as an `UPDATE` on the lock's connection: in its own transaction at session
    /// level, in the lock's transaction (then `COMMIT`, which frees the lock) at transaction
    /// level. A connection the server ended answers with an error: nothing commits.
    fn debit_in_session(&mut self, i: usize, d: &Debit) -> String {
        let t_in = self.now_us();
        let level = self.a.level;
        let Some(c) = self.lock.as_mut().filter(|_| !self.dead) else {
            return format!("op store {i} {t_in} {t_in} gone");
        };
        let result = match level {
            AdvisoryLevel::Session => transaction(c, d, self.start_us).map(|x| x.2),
            AdvisoryLevel::Transaction => (|| {
                let rows = c.simple_query(&d.update()).map_err(|e| e.to_string())?;
                let balance = rows.iter().find_map(|m| match m {
                    postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                    _ => None,
                });
                c.batch_execute("COMMIT").map_err(|e| e.to_string())?;
                Ok(balance.map_or("rejected".to_string(), |b| format!("accepted {b}")))
            })(),
        };
        let t_end = self.now_us();
        match result {
            Ok(word) => {
                if level == AdvisoryLevel::Transaction {
                    self.held = false;
                }
                format!("op store {i} {t_in} {t_end} {word}")
            }
            Err(e) => {
                eprintln!(
                    "lab client {}: debit on the lock's session failed: {e}",
                    self.index
                );
                self.dead = true;
                format!("op store {i} {t_in} {t_end} gone")
            }
        }
    }
}
