//! The conductor: replays one run's command list against real servers. Each client sends its
//! commands on its own connections, in the order the simulation did, at the simulated instant
//! times the scale, so TTLs expire and renewals land in real time on the servers' own clocks.
//! A pause is a stretch in which that client sends nothing, a crash closes its connections,
//! a delayed debit is held by the conductor until it lands, an instance crash kills its
//! `redis-server` and a restart starts it again. A partition drops the client's requests
//! (the conductor never sends them).
//!
//! Everything the servers decide comes from their replies: fences from the real `INCR`, a
//! Redlock client's votes from the real `SET`s, verdicts from the real `UPDATE`'s row count.
//! The conductor writes what it sent and got with the page's own words, so the result compares
//! with the model line by line.

use crate::pg::Pg;
use crate::resp::Redis;
use crate::servers::{RedisServer, PG_USER};
use fencing_playground::sim::commands::ops::{lock_value_number, update_reply};
use fencing_playground::sim::commands::{
    Act, Command, Debit, Line, RedisCmd, RedisReply, Tally, Who,
};
use fencing_playground::sim::{FenceRule, Scenario, Trace};
use std::collections::BTreeMap;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Reads that warm a session's caches before the run.
pub const WARM_UP: [&str; 3] = [
    "SELECT balance FROM accounts WHERE id = 1",
    "SELECT 1 FROM idempotency_keys LIMIT 1",
    "SELECT 1 FROM lock_values LIMIT 1",
];

/// The lock a lab client believes it holds: taken from the servers' replies.
#[derive(Clone, Debug)]
struct Held {
    fence: Option<u64>,
    value: String,
}

#[derive(Default)]
struct ClientConns {
    redis: BTreeMap<usize, Redis>,
    pg: Option<Pg>,
    held: Option<Held>,
    crashed: bool,
}

/// A Redlock round as the lab client saw it: the replies and when each reached it.
#[derive(Default)]
struct Round {
    /// Each reply with the instants its request left and its reply arrived, and the value.
    replies: Vec<(RedisReply, (u64, u64), String)>,
    /// When each of the round's requests leaves, by the plan (all of them, also those that
    /// reach their instance after the client judges), in the order they leave.
    sends: Vec<u64>,
}

/// What one replay produced.
pub struct Replay {
    /// One entry per command of the plan: the lines the lab wrote for it.
    pub lines: Vec<Vec<Line>>,
    /// The largest delay between a command's scheduled instant and its completion, in real ms.
    pub worst_late_ms: f64,
    /// The first command that finished later than the tolerance allows, if any.
    pub late: Option<String>,
}

pub struct Conductor<'a> {
    pub s: &'a Scenario,
    pub t: &'a Trace,
    /// Real milliseconds per simulated millisecond.
    pub scale: u64,
    pub redis: &'a mut [RedisServer],
    pub pg_port: u16,
    /// The instances whose wall clock the model moves: each server's offset file (its
    /// `redis-server` runs with the clock shim) and the model's clock for it.
    pub clocks: Vec<(
        std::sync::Arc<crate::shim::ClockFile>,
        fencing_playground::sim::clock::Clock,
    )>,
}

impl Conductor<'_> {
    /// How late a command may finish, in real ms, before the run's timing counts as missed:
    /// under half a simulated millisecond, so no instant can cross an expiry or round to
    /// another elapsed time.
    pub fn tolerance_ms(&self) -> f64 {
        self.scale as f64 * 0.4
    }

    pub fn replay(&mut self, plan: &[Command]) -> std::io::Result<Replay> {
        crate::servers::prioritise_this_thread();
        let mut clients: Vec<ClientConns> = (0..self.t.clients.len())
            .map(|_| ClientConns::default())
            .collect();
        let mut admin_pg = Pg::connect(self.pg_port, PG_USER, "postgres")?;
        // A fresh database per run: nothing of a previous run can leak into this one.
        admin_pg.query("DROP DATABASE IF EXISTS run")?;
        admin_pg.query("CREATE DATABASE run")?;
        let mut admin = Pg::connect(self.pg_port, PG_USER, "run")?;
        let mut admin_redis: Vec<Option<Redis>> = Vec::new();
        for r in self.redis.iter_mut() {
            let mut c = Redis::connect(r.port)?;
            c.call(&["FLUSHALL".to_string()])?;
            admin_redis.push(Some(c));
        }
        // Each client opens its connections before the run, as a pool would: connecting is
        // not part of what the run measures.
        for cl in clients.iter_mut() {
            for (i, r) in self.redis.iter().enumerate() {
                cl.redis.insert(i, Redis::connect(r.port)?);
            }
            cl.pg = Some(Pg::connect(self.pg_port, PG_USER, "run")?);
        }
        let mut rounds: BTreeMap<usize, Round> = BTreeMap::new();
        // Every request of a round leaves when the plan says, whether or not it reaches its
        // instance before the client judges: a sequential client reads a reply when it sends
        // the next request, which may still be on its way when the round ends.
        for c in plan {
            if let Act::Redis {
                instance,
                round: Some(r),
                reply,
                ..
            } = &c.act
            {
                let sent = match reply {
                    RedisReply::Cut | RedisReply::Down => c.at_ms,
                    _ => c.at_ms.saturating_sub(self.latency(*instance)),
                };
                rounds.entry(*r).or_default().sends.push(sent);
            }
        }
        for r in rounds.values_mut() {
            r.sends.sort_unstable();
        }
        let mut tokens: BTreeMap<usize, Option<u64>> = BTreeMap::new();
        let mut out = Replay {
            lines: Vec::new(),
            worst_late_ms: 0.0,
            late: None,
        };
        let mut start: Option<Instant> = None;
        // Each moved clock reads the model's offset at 0 during the setup, then follows it.
        let mut clock_driver: Option<crate::shim::Driver> = None;
        for (f, c) in &self.clocks {
            f.set_ns(crate::shim::offset_ns(c, 0, self.scale * 1000));
        }
        for c in plan {
            let timed = c.who != Who::Setup;
            if timed && start.is_none() {
                // Each client's first statements load the tables into its session's cache; done
                // before the run, so that no debit pays for it.
                for cl in clients.iter_mut() {
                    if let Some(pg) = cl.pg.as_mut() {
                        for q in WARM_UP {
                            pg.query(q)?;
                        }
                    }
                }
                start = Some(Instant::now());
                if !self.clocks.is_empty() {
                    clock_driver = Some(crate::shim::Driver::start(
                        self.clocks.clone(),
                        crate::clock::mono_us(),
                        self.scale * 1000,
                        self.t.end_ms.max(self.s.horizon_ms()),
                    ));
                }
            }
            let deadline = start.map(|s| s + Duration::from_millis(c.at_ms * self.scale));
            if let (true, Some(d)) = (timed, deadline) {
                wait_until(d);
            }
            // When the command really starts: its lateness, and the instant a judging client
            // reads its clock.
            let began = Instant::now();
            let notes: Vec<Line> = c
                .lines
                .iter()
                .filter(|l| l.reply.is_empty())
                .cloned()
                .collect();
            let mut lines = Vec::new();
            match (&c.act, c.who) {
                (Act::Redis { instance, cmd, .. }, Who::Setup) => {
                    let reply = match admin_redis.get_mut(*instance).and_then(Option::as_mut) {
                        Some(conn) => conn.call(&cmd.args(self.scale))?,
                        None => RedisReply::Down,
                    };
                    lines.push(Line::new(cmd.text(), reply.text()));
                }
                (Act::Sql(q), _) => {
                    lines.push(Line::new(q.clone(), admin.query(q)?.text()));
                }
                (
                    Act::Redis {
                        instance,
                        cmd,
                        reply: expected,
                        round,
                        reply_at_ms,
                    },
                    Who::Client(k),
                ) => {
                    let reply = if *expected == RedisReply::Cut {
                        // A partition: the request never leaves.
                        RedisReply::Cut
                    } else {
                        self.send(&mut clients[k], *instance, cmd)
                    };
                    lines.push(Line::new(cmd.text(), reply.text()));
                    match round {
                        // The model runs a delivered request when it arrives, one network
                        // time (the instance's latency) after it left; a request that never
                        // got through is listed when it left.
                        Some(r) => {
                            let sent = match reply {
                                RedisReply::Cut | RedisReply::Down => c.at_ms,
                                _ => c.at_ms.saturating_sub(self.latency(*instance)),
                            };
                            rounds.entry(*r).or_default().replies.push((
                                reply,
                                (sent, *reply_at_ms),
                                value_of(cmd),
                            ))
                        }
                        None => take_grant(&mut clients[k], cmd, &reply),
                    }
                }
                (Act::Send { write }, Who::Client(k)) => {
                    lines.extend(notes.clone());
                    let held = clients[k].held.clone();
                    let token = held.as_ref().and_then(|h| match self.s.storage.fence_rule {
                        FenceRule::CasValue => lock_value_number(&h.value),
                        _ => h.fence,
                    });
                    if held.is_none() {
                        lines.push(Line::note(format!(
                            "{} holds no lock in the lab, yet the model sends a debit",
                            self.t.client_name(k)
                        )));
                    }
                    tokens.insert(*write, token);
                }
                (Act::Store { write, debit, .. }, Who::Client(k)) => {
                    lines.extend(notes.clone());
                    let mine = Debit {
                        token: tokens.get(write).copied().flatten(),
                        ..debit.clone()
                    };
                    let conn = match clients[k].pg.as_mut() {
                        Some(p) => p,
                        None => clients[k]
                            .pg
                            .insert(Pg::connect(self.pg_port, PG_USER, "run")?),
                    };
                    lines.extend(transaction(conn, &mine)?);
                }
                (Act::Judge { acquisition }, Who::Client(k)) => {
                    let line = self.judge(
                        &mut clients[k],
                        *acquisition,
                        &rounds,
                        (start, began),
                        c.at_ms,
                    );
                    lines.push(Line::note(line));
                }
                (Act::Forget, Who::Client(k)) => {
                    lines.extend(notes.clone());
                    clients[k].held = None;
                }
                (Act::Crash, Who::Client(k)) => {
                    lines.extend(notes.clone());
                    let cl = &mut clients[k];
                    (cl.redis, cl.pg, cl.held, cl.crashed) = (BTreeMap::new(), None, None, true);
                }
                (
                    Act::Down {
                        instance,
                        persistent,
                    },
                    _,
                ) => {
                    lines.extend(notes.clone());
                    if let Some(r) = self.redis.get_mut(*instance) {
                        if *persistent {
                            r.kill();
                        } else {
                            r.crash_losing_keys()?;
                        }
                    }
                }
                (Act::Up { instance, .. }, _) => {
                    lines.extend(notes.clone());
                    if let Some(r) = self.redis.get_mut(*instance) {
                        r.up()?;
                        let mut conn = Redis::connect(r.port)?;
                        for l in c.lines.iter().filter(|l| !l.reply.is_empty()) {
                            let script = fencing_playground::sim::commands::Script::ALL
                                .into_iter()
                                .find(|s| l.text.contains(s.name()));
                            if let Some(s) = script {
                                let cmd = RedisCmd::ScriptLoad(s);
                                let reply = conn.call(&cmd.args(self.scale))?;
                                lines.push(Line::new(cmd.text(), reply.text()));
                            }
                        }
                    }
                }
                _ => lines.extend(notes.clone()),
            }
            if let (true, Some(d)) = (timed && c.at_ms <= self.t.end_ms, deadline) {
                // A lock command counts when the server has run it; the others (a transaction,
                // a comment) when they start, since no server clock is involved in them.
                let measured = match c.act {
                    Act::Redis { .. } => Instant::now(),
                    _ => began,
                };
                let late = measured.saturating_duration_since(d).as_secs_f64() * 1000.0;
                out.worst_late_ms = out.worst_late_ms.max(late);
                // A restart takes the time it takes; what matters is the commands after it.
                let restart = matches!(c.act, Act::Up { .. } | Act::Down { .. });
                if late > self.tolerance_ms() && out.late.is_none() && !restart {
                    out.late = Some(format!(
                        "the command at {} ms finished {late:.1} ms late (tolerance {:.1} ms)",
                        c.at_ms,
                        self.tolerance_ms()
                    ));
                }
            }
            out.lines.push(lines);
        }
        drop(clock_driver);
        Ok(out)
    }

    /// Instance `i`'s one-way network time in the scenario.
    fn latency(&self, i: usize) -> u64 {
        self.s
            .lock
            .redlock
            .as_ref()
            .and_then(|r| r.instances.get(i))
            .map_or(0, |inst| inst.latency_ms)
    }

    /// Sends a client's command to an instance on the client's own connection; a refused or
    /// broken connection is an instance that is down.
    fn send(&self, cl: &mut ClientConns, instance: usize, cmd: &RedisCmd) -> RedisReply {
        let Some(port) = self.redis.get(instance).map(|r| r.port) else {
            return RedisReply::Down;
        };
        let conn = match cl.redis.entry(instance) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => match Redis::connect(port) {
                Ok(c) => e.insert(c),
                Err(_) => return RedisReply::Down,
            },
        };
        if let Ok(r) = conn.call(&cmd.args(self.scale)) {
            return r;
        }
        // The connection broke (the server was killed); a client library reconnects once, and
        // reaches the server again if it has restarted.
        cl.redis.remove(&instance);
        match Redis::connect(port).and_then(|mut c| {
            let r = c.call(&cmd.args(self.scale))?;
            cl.redis.insert(instance, c);
            Ok(r)
        }) {
            Ok(r) => r,
            Err(_) => RedisReply::Down,
        }
    }

    /// The Redlock client counts the grants that reached it by now and measures the round
    /// by the real clock, in simulated milliseconds.
    fn judge(
        &self,
        cl: &mut ClientConns,
        acquisition: usize,
        rounds: &BTreeMap<usize, Round>,
        (start, now): (Option<Instant>, Instant),
        at_ms: u64,
    ) -> String {
        let (Some(a), Some(r), Some(start)) = (
            self.t.acquisitions.get(acquisition),
            self.s.lock.redlock.as_ref(),
            start,
        ) else {
            return "no such round".to_string();
        };
        let extend = a.purpose == fencing_playground::sim::trace::Purpose::Extend;
        let empty = Round::default();
        let round = rounds.get(&acquisition).unwrap_or(&empty);
        // The client reads each reply when it moves on: one at a time, when it sends the next
        // request (or judges, after the last); all at once, when it judges. A reply counts if
        // it is in by then: one that comes after the client gave up on that instance does
        // not, while one that came in as the client was paused does.
        // The next request after one that left at `sent` (sequential), by the plan's send
        // times: the one after the same send time's place in the list, as the requests of one
        // instant leave in the replies' order.
        let read_at = |j: usize| {
            if r.parallel {
                return at_ms;
            }
            let Some((_, (sent, _), _)) = round.replies.get(j) else {
                return at_ms;
            };
            let same_before = round.replies[..j]
                .iter()
                .filter(|(_, (s, _), _)| s == sent)
                .count();
            let at = round.sends.partition_point(|s| s < sent) + same_before;
            round.sends.get(at + 1).copied().unwrap_or(at_ms).min(at_ms)
        };
        let granted: Vec<&(RedisReply, (u64, u64), String)> = round
            .replies
            .iter()
            .enumerate()
            .filter(|(j, (reply, (_, reply_at), _))| {
                *reply_at <= read_at(*j)
                    && match reply {
                        RedisReply::Ok => true,
                        RedisReply::Int(n) => !extend || *n == 1,
                        _ => false,
                    }
            })
            .map(|(_, x)| x)
            .collect();
        let fence = if r.fence {
            granted
                .iter()
                .filter_map(|(reply, _, _)| match reply {
                    RedisReply::Int(n) => u64::try_from(*n).ok(),
                    _ => None,
                })
                .max()
        } else {
            None
        };
        let began = start + Duration::from_millis(a.start_ms * self.scale);
        // The client reads its clock once, when it judges: the instant whose lateness the
        // conductor checks, so the rounding below cannot go astray on a run counted as on time.
        let elapsed_real = now.saturating_duration_since(began).as_secs_f64() * 1000.0;
        let tally = Tally {
            extend,
            votes: granted.len(),
            needed: r.majority(),
            elapsed_ms: (elapsed_real / self.scale as f64).round() as i64,
            ttl_ms: self.s.lock.ttl_ms,
            drift_ms: r.drift_ms(self.s.lock.ttl_ms),
            fence,
        };
        if !extend && tally.failure().is_none() {
            let value = round
                .replies
                .first()
                .map(|x| x.2.clone())
                .unwrap_or_default();
            cl.held = Some(Held { fence, value });
        }
        tally.line(self.t.client_name(a.client))
    }
}

/// The value a lock command carries.
fn value_of(cmd: &RedisCmd) -> String {
    match cmd {
        RedisCmd::SetNx { value, .. }
        | RedisCmd::AcquireFenced { value, .. }
        | RedisCmd::Extend { value, .. }
        | RedisCmd::ReleaseChecked { value, .. } => value.clone(),
        _ => String::new(),
    }
}

/// A single Redis's grant makes the client a holder, with the fence the server minted.
fn take_grant(cl: &mut ClientConns, cmd: &RedisCmd, reply: &RedisReply) {
    match (cmd, reply) {
        (RedisCmd::AcquireFenced { value, .. }, RedisReply::Int(f)) => {
            cl.held = Some(Held {
                fence: u64::try_from(*f).ok(),
                value: value.clone(),
            })
        }
        (RedisCmd::SetNx { value, .. }, RedisReply::Ok) => {
            cl.held = Some(Held {
                fence: None,
                value: value.clone(),
            })
        }
        _ => {}
    }
}

/// Runs one debit as the storage's transaction, deciding each next statement from the real
/// replies: a stored key means duplicate, `UPDATE 0` means rejected (and the key rolls back).
fn transaction(pg: &mut Pg, d: &Debit) -> std::io::Result<Vec<Line>> {
    let mut lines = vec![Line::new("BEGIN", pg.query("BEGIN")?.text())];
    let finish = |pg: &mut Pg, lines: &mut Vec<Line>, q: &str| -> std::io::Result<()> {
        lines.push(Line::new(q, pg.query(q)?.text()));
        Ok(())
    };
    if let Some(insert) = d.key_insert() {
        let a = pg.query(&insert)?;
        let dup = a.tag == "INSERT 0 0";
        lines.push(Line::new(insert, a.text()));
        if dup || a.error.is_some() {
            finish(pg, &mut lines, "ROLLBACK")?;
            return Ok(lines);
        }
    }
    let update = d.update();
    let a = pg.query(&update)?;
    let accepted = a.tag == "UPDATE 1";
    let reply = if a.error.is_some() {
        a.text()
    } else {
        update_reply(a.first_number().filter(|_| accepted))
    };
    lines.push(Line::new(update, reply));
    if !accepted {
        finish(pg, &mut lines, "ROLLBACK")?;
        return Ok(lines);
    }
    if let Some(insert) = d.value_insert() {
        let a = pg.query(&insert)?;
        lines.push(Line::new(insert, a.text()));
    }
    finish(pg, &mut lines, "COMMIT")?;
    Ok(lines)
}

/// Sleeps until shortly before `deadline`, then spins the last stretch for precision.
fn wait_until(deadline: Instant) {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let left = deadline - now;
        if left > Duration::from_millis(2) {
            sleep(left - Duration::from_millis(1));
        } else {
            std::thread::yield_now();
        }
    }
}
