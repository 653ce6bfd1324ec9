//! `fencing-lab client --redlock`: one client of a Redlock scenario as its own OS process,
//! written from the algorithm's description (the Redis documentation's "Distributed locks with
//! Redis" and antirez's reference client `redlock-rb`), not from the model. It shares the
//! scenario reader, the Lua scripts and the SQL, and no engine, tally or decision code:
//!
//! 1. note the time; 2. ask every instance in turn (or all at once, as the scenario says) with
//!    `SET key value NX PX ttl` (the non-standard fenced variant: the acquire script, whose
//!    `INCR` answers a counter), waiting for each at most the per-instance timeout;
//! 3. the lock is acquired if a majority (N/2 + 1) granted it and the time spent, by the
//!    process's own clock, is below the TTL; its validity is TTL − elapsed − drift, with
//!    drift = ⌊TTL × factor⌋ + 2 ms as in `redlock-rb`; no validity left is a failure too;
//! 4. after a failure, unlock every instance (the compare-and-delete script, no waiting for
//!    the replies) and, while tries are left, try again after a delay drawn from the
//!    scenario's seed (the delay is input; the decision to retry is the client's).
//!
//! An extension (a renewal or a watchdog's turn) is the same round with the compare-and-expire
//! script. Debits go through PostgreSQL as the single-lock client's do. Every operation is one
//! line on stdout with its real times (µs since the start), for `redlock_history`.

use crate::client::{pg_connect, say, transaction, Out};
use crate::clock::{mono_us, sleep_until_us};
use crate::redlock_wire::{wait_readable, Conn, Tag};
use fencing_playground::sim::commands::ops::Debit;
use fencing_playground::sim::commands::scripts::{ACQUIRE_SHA, EXTEND_SHA, RELEASE_SHA};
use fencing_playground::sim::rng::Seeded;
use fencing_playground::sim::scenario::{Event, Redlock, ReleaseKind};
use fencing_playground::sim::{FenceRule, Scenario};
use std::io::BufRead;
use std::sync::{Arc, Mutex};

/// Where the client finds its instances and storage, and how it keeps time.
pub struct Setup {
    pub index: usize,
    /// The proxy port in front of each instance, in the instances' order.
    pub ports: Vec<u16>,
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    pub scenario: Scenario,
}

#[derive(Clone)]
struct Held {
    value: String,
    fence: Option<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Job {
    Event(usize),
    /// Try `attempt` of the acquisition of event `event`.
    Retry(usize, u32),
    /// A watchdog's turn; the number tells watchdogs apart.
    Tick(u64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    Acquire,
    Extend,
}

struct Client {
    s: Scenario,
    r: Redlock,
    /// This client's events.
    events: Vec<Event>,
    index: usize,
    name: String,
    scale: u64,
    start_us: u64,
    conns: Vec<Conn>,
    pg: Vec<(usize, Option<postgres::Client>)>,
    held: Option<Held>,
    watchdog: u64,
    agenda: Vec<(u64, u64, Job)>,
    seq: u64,
    rounds: u64,
    /// When the job at hand began, in whole scenario ms (the model's steps take no time).
    began_ms: u64,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

fn random_hex() -> String {
    let mut b = [0u8; 6];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = std::io::Read::read_exact(&mut f, &mut b);
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs one client; the conductor writes the start instant on stdin once all are ready.
pub fn run(setup: Setup) -> Result<(), String> {
    let r = setup
        .scenario
        .lock
        .redlock()
        .cloned()
        .ok_or("client: the scenario has no lock.redlock")?;
    let mut conns: Vec<Conn> = setup.ports.iter().map(|p| Conn::new(*p)).collect();
    // One round trip on each connection before the run, as a pool would have made.
    for c in &mut conns {
        c.send(
            &redis::cmd("PING").get_packed_command(),
            Tag::Ping,
            mono_us() + 5_000_000,
        );
        let until = mono_us() + 5_000_000;
        while c.waiting() && mono_us() < until {
            wait_readable(&c.fds(), until);
            c.read_ready();
        }
    }
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
        name: setup.scenario.clients[setup.index].name.clone(),
        events: setup.scenario.clients[setup.index].events.clone(),
        index: setup.index,
        r,
        scale: setup.scale,
        start_us,
        conns,
        pg,
        held: None,
        watchdog: 0,
        agenda: Vec::new(),
        seq: 0,
        rounds: 0,
        began_ms: 0,
        out,
        writes: Vec::new(),
        s: setup.scenario,
    };
    let events = c.s.clients[setup.index].events.clone();
    for (i, e) in events.iter().enumerate() {
        // Pauses and crashes are done to the process.
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
        c.began_ms = c.now_ms();
        if let Err(e) = c.job(job, &events) {
            say(&c.out, format!("error {e}"));
        }
    }
    // The unlocks' replies, for the record: a timeout's worth of waiting at most.
    let until = mono_us() + c.r.timeout_ms.max(1) * c.scale * 2;
    while c.conns.iter().any(Conn::waiting) && mono_us() < until {
        c.read_until(until, None);
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

    fn now_us(&self) -> u64 {
        mono_us().saturating_sub(self.start_us)
    }

    fn now_ms(&self) -> u64 {
        (self.now_us() + self.scale / 2) / self.scale
    }

    fn job(&mut self, job: Job, events: &[Event]) -> Result<(), String> {
        match job {
            Job::Event(i) => match &events[i] {
                Event::Acquire { .. } => self.acquire(i, 1),
                Event::Renew { .. } => self.extend(Some(i)),
                Event::Watchdog { .. } => {
                    self.start_watchdog();
                    Ok(())
                }
                Event::Release { mode, .. } => {
                    self.release(i, *mode);
                    Ok(())
                }
                Event::Debit { .. } => {
                    let t = self.now_us();
                    self.send_debit(i, &events[i], t);
                    Ok(())
                }
                _ => Ok(()),
            },
            Job::Retry(i, attempt) => self.acquire(i, attempt),
            Job::Tick(id) if id == self.watchdog => self.extend(None),
            Job::Tick(_) => Ok(()),
        }
    }

    fn packed(&self, ask: Ask, value: &str) -> Vec<u8> {
        let key = &self.s.key;
        let ttl = self.s.lock.ttl_ms * self.scale / 1000;
        match ask {
            Ask::Acquire if self.r.fence => redis::cmd("EVALSHA")
                .arg(ACQUIRE_SHA)
                .arg(2)
                .arg(key)
                .arg(format!("fence:{key}"))
                .arg(value)
                .arg(ttl)
                .get_packed_command(),
            Ask::Acquire => redis::cmd("SET")
                .arg(key)
                .arg(value)
                .arg("NX")
                .arg("PX")
                .arg(ttl)
                .get_packed_command(),
            Ask::Extend => redis::cmd("EVALSHA")
                .arg(EXTEND_SHA)
                .arg(1)
                .arg(key)
                .arg(value)
                .arg(ttl)
                .get_packed_command(),
        }
    }

    /// Reads replies until `until_us` or until round `round` has every answer it waits for
    /// (`want`: the instances asked); returns the answers that came in.
    fn read_until(&mut self, until_us: u64, round: Option<(u64, &mut [Option<redis::Value>])>) {
        let mut round = round;
        loop {
            for (i, c) in self.conns.iter_mut().enumerate() {
                for (tag, reply) in c.read_ready() {
                    match (tag, &mut round) {
                        (Tag::Round(id), Some((want, answers))) if id == *want => {
                            answers[i] = Some(reply.unwrap_or(redis::Value::Nil));
                        }
                        (Tag::Unlock, _) => {
                            let word = match reply {
                                Ok(redis::Value::Int(n)) => n.to_string(),
                                other => format!("{other:?}").replace(' ', ""),
                            };
                            let at = mono_us().saturating_sub(self.start_us);
                            say(&self.out, format!("reply unlock {i} {at} {word}"));
                        }
                        _ => {}
                    }
                }
            }
            let done = match &round {
                Some((_, answers)) => answers.iter().all(Option::is_some),
                None => !self.conns.iter().any(Conn::waiting),
            };
            if done || mono_us() >= until_us {
                return;
            }
            let next_debit = self.run_due_debits();
            let fds: Vec<i32> = self.conns.iter().flat_map(Conn::fds).collect();
            wait_readable(&fds, next_debit.map_or(until_us, |d| d.min(until_us)));
        }
    }

    /// Sends the debits that fell due while a round waits (the client's work runs beside its
    /// lock calls, on the lock it holds now); returns when the next debit falls due.
    fn run_due_debits(&mut self) -> Option<u64> {
        loop {
            let next = (0..self.agenda.len())
                .filter(|&k| match self.agenda[k].2 {
                    Job::Event(i) => matches!(self.events.get(i), Some(Event::Debit { .. })),
                    _ => false,
                })
                .min_by_key(|&k| (self.agenda[k].0, self.agenda[k].1))?;
            let due = self.start_us + self.agenda[next].0 * self.scale;
            if due > mono_us() {
                return Some(due);
            }
            if let (_, _, Job::Event(i)) = self.agenda.remove(next) {
                let t = self.now_us();
                let e = self.events[i].clone();
                self.send_debit(i, &e, t);
            }
        }
    }

    /// One round of requests: each instance's answer (`None`: none by its deadline).
    fn round(&mut self, ask: Ask, value: &str) -> Vec<Option<redis::Value>> {
        self.rounds += 1;
        let id = self.rounds;
        let n = self.conns.len();
        let timeout = self.r.timeout_ms * self.scale;
        let packed = self.packed(ask, value);
        let mut answers: Vec<Option<redis::Value>> = vec![None; n];
        // An instance that cannot even be dialled answers nothing: the client waits its
        // timeout all the same (it cannot tell a dead host from a slow one).
        // Replies already in (an earlier unlock's) are read first, so that a connection whose
        // unlock never got an answer is known before it is used again.
        self.read_until(0, None);
        if self.r.parallel {
            let deadline = mono_us() + timeout;
            for i in 0..n {
                self.conns[i].send(&packed, Tag::Round(id), deadline);
            }
            self.read_until_round(id, deadline, &mut answers, None);
        } else {
            for i in 0..n {
                let deadline = mono_us() + timeout;
                self.conns[i].send(&packed, Tag::Round(id), deadline);
                self.read_until_round(id, deadline, &mut answers, Some(i));
            }
        }
        for (i, a) in answers.iter().enumerate() {
            if a.is_none() {
                self.conns[i].close();
            }
        }
        answers
    }

    /// Waits for round `id`'s answers (all, or instance `only`'s) until `deadline`, then reads
    /// what is in the buffers once more: a reply that came while the process was stopped is in.
    fn read_until_round(
        &mut self,
        id: u64,
        deadline: u64,
        answers: &mut [Option<redis::Value>],
        only: Option<usize>,
    ) {
        let n = answers.len();
        let mut view: Vec<Option<redis::Value>> = (0..n)
            .map(|i| match only {
                Some(k) if k != i => Some(redis::Value::Nil),
                _ => None,
            })
            .collect();
        self.read_until(deadline, Some((id, &mut view)));
        for i in 0..n {
            if only.is_none_or(|k| k == i) {
                answers[i] = view[i].take();
            }
        }
    }

    fn acquire(&mut self, event: usize, attempt: u32) -> Result<(), String> {
        let value = format!("{}:{}", self.name, random_hex());
        let t0 = self.now_us();
        let answers = self.round(Ask::Acquire, &value);
        let t1 = self.now_us();
        let granted = |v: &redis::Value| matches!(v, redis::Value::Okay | redis::Value::Int(_));
        let ok = self.judge(
            ("acquire", Some(event), attempt),
            (t0, t1),
            &answers,
            granted,
        );
        if let Some(validity) = ok {
            let fence = if self.r.fence {
                answers
                    .iter()
                    .flatten()
                    .filter_map(|v| match v {
                        redis::Value::Int(f) => Some(*f),
                        _ => None,
                    })
                    .max()
            } else {
                None
            };
            let f = fence.map_or("-".to_string(), |f| f.to_string());
            say(
                &self.out,
                format!(
                    "op held {event} {t1} {t1} {f} {} {validity:.3}",
                    crate::client::value_number(&value)
                ),
            );
            self.held = Some(Held { value, fence });
            if self.s.lock.watchdog {
                self.start_watchdog();
            }
            return Ok(());
        }
        // Undo the partial grants so that a minority blocks nobody.
        let unlock = redis::cmd("EVALSHA")
            .arg(RELEASE_SHA)
            .arg(1)
            .arg(&self.s.key)
            .arg(&value)
            .get_packed_command();
        let due = mono_us() + self.r.timeout_ms * self.scale;
        for c in &mut self.conns {
            c.send(&unlock, Tag::Unlock, due);
        }
        say(&self.out, format!("op unlock {event} {t1} {t1} undo"));
        if attempt <= self.r.retries {
            let delay =
                Seeded::new(self.s.seed).retry_delay_ms(self.index, attempt, self.r.retry_delay_ms);
            let at = self.now_ms() + delay;
            self.push(at, Job::Retry(event, attempt + 1));
        }
        Ok(())
    }

    /// Counts the votes and measures the round; prints it. Returns the validity when the lock
    /// (or its extension) is had.
    fn judge(
        &mut self,
        (what, event, attempt): (&str, Option<usize>, u32),
        (t0, t1): (u64, u64),
        answers: &[Option<redis::Value>],
        granted: impl Fn(&redis::Value) -> bool,
    ) -> Option<f64> {
        let n = answers.len();
        let votes = answers.iter().flatten().filter(|v| granted(v)).count();
        let ttl = self.s.lock.ttl_ms as f64;
        let elapsed = (t1 - t0) as f64 / self.scale as f64;
        let drift = (self.s.lock.ttl_ms * self.r.drift_factor_ppm / 1_000_000 + 2) as f64;
        let validity = ttl - elapsed - drift;
        let result = if votes < n / 2 + 1 {
            "no-majority"
        } else if elapsed >= ttl {
            "too-slow"
        } else if validity <= 0.0 {
            "no-validity"
        } else {
            "ok"
        };
        let words: Vec<&str> = answers
            .iter()
            .map(|a| match a {
                None => "none",
                Some(v) if granted(v) => "granted",
                Some(_) => "refused",
            })
            .collect();
        let e = event.map_or("-".to_string(), |e| e.to_string());
        say(
            &self.out,
            format!(
                "op round {e} {t0} {t1} {what} {attempt} {} {votes} {validity:.3} {result}",
                words.join(",")
            ),
        );
        (result == "ok").then_some(validity)
    }

    /// A renewal (`event`) or a watchdog's turn (`None`): the extend script on every instance.
    fn extend(&mut self, event: Option<usize>) -> Result<(), String> {
        let Some(h) = self.held.clone() else {
            let t = self.now_us();
            let e = event.map_or("-".to_string(), |e| e.to_string());
            say(&self.out, format!("op nothing-to-renew {e} {t} {t}"));
            if event.is_none() {
                self.watchdog += 1;
            }
            return Ok(());
        };
        let t0 = self.now_us();
        let answers = self.round(Ask::Extend, &h.value);
        let t1 = self.now_us();
        let ok = self
            .judge(("extend", event, 1), (t0, t1), &answers, |v| {
                *v == redis::Value::Int(1)
            })
            .is_some();
        if event.is_none() {
            if ok {
                self.next_tick();
            } else {
                self.watchdog += 1;
            }
        }
        Ok(())
    }

    fn start_watchdog(&mut self) {
        self.watchdog += 1;
        self.next_tick();
    }

    fn next_tick(&mut self) {
        let at = self.now_ms() + (self.s.lock.ttl_ms / 2).max(1);
        if at <= self.s.horizon_ms() {
            self.push(at, Job::Tick(self.watchdog));
        }
    }

    /// Deletes the key on every instance: with the compare-and-delete script (only if it still
    /// holds this client's value) or a bare `DEL`; the replies are not waited for.
    fn release(&mut self, event: usize, mode: ReleaseKind) {
        let t = self.now_us();
        let key = self.s.key.clone();
        let packed = match (mode, &self.held) {
            (ReleaseKind::BareDel, _) => Some(redis::cmd("DEL").arg(&key).get_packed_command()),
            (ReleaseKind::TokenChecked, Some(h)) => Some(
                redis::cmd("EVALSHA")
                    .arg(RELEASE_SHA)
                    .arg(1)
                    .arg(&key)
                    .arg(&h.value)
                    .get_packed_command(),
            ),
            (ReleaseKind::TokenChecked, None) => None,
        };
        if let Some(p) = packed {
            self.read_until(0, None);
            let due = mono_us() + self.r.timeout_ms * self.scale;
            for c in &mut self.conns {
                c.send(&p, Tag::Unlock, due);
            }
        }
        say(&self.out, format!("op release {event} {t} {t}"));
        self.held = None;
        self.watchdog += 1;
    }

    /// Sends debit `i` with the token of the lock held, on its own session, in a thread.
    fn send_debit(&mut self, i: usize, e: &Event, t0: u64) {
        let Event::Debit {
            amount,
            idempotency_key,
            ..
        } = e
        else {
            return;
        };
        let Some(h) = self.held.clone() else {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return;
        };
        let rule = self.s.storage.fence_rule;
        let token = match rule {
            FenceRule::CasValue => Some(crate::client::value_number(&h.value)),
            _ => h.fence.and_then(|f| u64::try_from(f).ok()),
        };
        let debit = Debit {
            amount: *amount,
            token,
            key: idempotency_key
                .clone()
                .filter(|_| self.s.storage.idempotency),
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
