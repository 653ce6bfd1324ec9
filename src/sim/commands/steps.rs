//! The commands behind each client step of a trace: a single Redis's `SET NX PX` or fenced
//! `EVALSHA`, renewals and releases, `isHeld()` as `GET`, every debit as its SQL transaction,
//! and a comment for what asks nothing of a server (a pause, a crash, a skipped write, a
//! Redlock client's reckoning). Redlock's per-instance requests come from `rounds`.

use super::command::{Act, Command, Who};
use super::lookup::Run;
use super::ops::{Debit, DebitEnd, Line, RedisCmd, RedisReply, Tally};
use crate::sim::account::{DebitVerdict, FenceRule};
use crate::sim::scenario::ReleaseKind;
use crate::sim::trace::{Outcome, Purpose, Step};
use std::collections::HashSet;

/// What the walk over the steps remembers.
struct Walk<'a> {
    run: &'a Run<'a>,
    redlock: bool,
    /// Grants so far on a single Redis: the next grant's generation is one more.
    grants: u64,
    /// Each client's latest lock value (single Redis).
    values: Vec<Option<String>>,
    /// Lock values a compare-and-set storage has accepted so far.
    seen_values: HashSet<u64>,
    out: Vec<Command>,
}

pub fn plan(run: &Run) -> Vec<Command> {
    let mut w = Walk {
        run,
        redlock: run.s.lock.redlock().is_some(),
        grants: 0,
        values: vec![None; run.t.clients.len()],
        seen_values: HashSet::new(),
        out: Vec::new(),
    };
    for (i, step) in run.t.steps.iter().enumerate() {
        w.step(i, step);
    }
    w.out
}

impl Walk<'_> {
    fn key(&self) -> String {
        self.run.s.key.clone()
    }

    fn fence_key(&self) -> String {
        format!("fence:{}", self.run.s.key)
    }

    fn redis(&mut self, step: &Step, i: usize, cmd: RedisCmd, reply: RedisReply) {
        self.out.push(Command::redis(
            step.at_ms,
            Who::Client(step.client),
            Some(i),
            (0, cmd, reply),
            (None, step.at_ms),
        ));
    }

    fn note(&mut self, step: &Step, i: usize, text: String) {
        self.out.push(Command::note(
            step.at_ms,
            Who::Client(step.client),
            Some(i),
            text,
        ));
    }

    fn act(&mut self, step: &Step, i: usize, act: Act, text: &str) {
        self.out.push(Command::act(
            step.at_ms,
            Who::Client(step.client),
            Some(i),
            act,
            text,
        ));
    }

    /// The value a client's token-checked renewal or release compares with.
    fn own_value(&self, client: usize) -> String {
        self.values[client]
            .clone()
            .unwrap_or_else(|| format!("{}:none", self.run.name(client)))
    }

    fn step(&mut self, i: usize, step: &Step) {
        let name = self.run.name(step.client).to_string();
        let ttl_ms = self.run.s.lock.ttl_ms;
        let (key, fence_key) = (self.key(), self.fence_key());
        match &step.outcome {
            Outcome::Granted { .. } | Outcome::Denied { .. } if !self.redlock => {
                let value = self.run.value(step.client, self.grants + 1);
                let granted = matches!(step.outcome, Outcome::Granted { .. });
                let (cmd, reply) = if self.run.s.lock.fencing {
                    let cmd = RedisCmd::AcquireFenced {
                        key,
                        fence_key,
                        value: value.clone(),
                        ttl_ms,
                    };
                    let fence = match &step.outcome {
                        Outcome::Granted { fence, .. } => *fence,
                        _ => None,
                    };
                    (
                        cmd,
                        fence.map_or(RedisReply::Nil, |f| RedisReply::Int(f as i64)),
                    )
                } else {
                    let cmd = RedisCmd::SetNx {
                        key,
                        value: value.clone(),
                        ttl_ms,
                    };
                    (
                        cmd,
                        if granted {
                            RedisReply::Ok
                        } else {
                            RedisReply::Nil
                        },
                    )
                };
                if granted {
                    self.grants += 1;
                    self.values[step.client] = Some(value);
                }
                self.redis(step, i, cmd, reply);
            }
            Outcome::Renewed { .. } | Outcome::RenewDenied { .. } if !self.redlock => {
                let ok = matches!(step.outcome, Outcome::Renewed { .. });
                let value = self.own_value(step.client);
                let cmd = RedisCmd::Extend { key, value, ttl_ms };
                self.redis(step, i, cmd, RedisReply::Int(i64::from(ok)));
            }
            Outcome::Released { mode, deleted, .. } if !self.redlock => {
                let cmd = match mode {
                    ReleaseKind::TokenChecked => RedisCmd::ReleaseChecked {
                        key,
                        value: self.own_value(step.client),
                    },
                    ReleaseKind::BareDel => RedisCmd::Del { key },
                };
                let reply = RedisReply::Int(i64::from(deleted.is_some()));
                self.redis(step, i, cmd, reply);
                self.act(step, i, Act::Forget, "");
            }
            Outcome::Released { own: true, .. } => {
                let text = format!("{name} releases its keys on every instance");
                self.act(step, i, Act::Forget, &text);
            }
            Outcome::Released { deleted, .. } => {
                let victim = deleted.clone().unwrap_or_default();
                self.note(step, i, format!("{name}'s DEL deleted {victim}'s key"));
            }
            Outcome::Granted { .. } | Outcome::Denied { .. } | Outcome::Renewed { .. } => {}
            Outcome::RenewDenied { .. } => {
                self.note(step, i, format!("{name} holds nothing to extend"));
            }
            Outcome::WatchdogStarted => {
                let every = (ttl_ms / 2).max(1);
                self.note(
                    step,
                    i,
                    format!("{name} starts a watchdog that renews every {every} ms"),
                );
            }
            Outcome::CheckPassed | Outcome::CheckFailed => self.is_held(step, i),
            Outcome::DebitSent { write } => {
                let text = match self.run.t.writes.get(*write) {
                    Some(wr) if wr.arrived_ms > wr.sent_ms => format!(
                        "{name}'s debit leaves now and the network holds it until {} ms",
                        wr.arrived_ms
                    ),
                    _ => String::new(),
                };
                self.act(step, i, Act::Send { write: *write }, &text);
            }
            Outcome::Stored { write, verdict } => self.store(step, i, *write, verdict),
            Outcome::Paused { cause, until_ms } => self.note(
                step,
                i,
                format!(
                    "{name} stops ({} pause) until {until_ms} ms and sends nothing",
                    cause.label()
                ),
            ),
            Outcome::Woke => self.note(step, i, format!("{name} resumes")),
            Outcome::Crashed => self.act(
                step,
                i,
                Act::Crash,
                &format!("{name} crashes: its connections close and nothing is released"),
            ),
            Outcome::ClockJumped { by_ms } => self.note(
                step,
                i,
                format!("{name}'s clock jumps {by_ms:+} ms (no command: the client's own clock)"),
            ),
            Outcome::Skipped { reason } => self.note(step, i, reason.clone()),
            // etcd and advisory-lock runs have their own command lists (`commands::etcd`,
            // `commands::advisory`).
            Outcome::Queued { .. }
            | Outcome::GrantedExpired { .. }
            | Outcome::SessionExpired { .. }
            | Outcome::NoLeader
            | Outcome::LockWaits { .. }
            | Outcome::SessionGone { .. }
            | Outcome::NodeWaits { .. }
            | Outcome::ConnectionLoss
            | Outcome::ZkNotice { .. }
            | Outcome::WriteHeldBack { .. } => self.note(step, i, step.text.clone()),
            Outcome::Redlock { attempt, .. } => self.judge(step, i, *attempt),
        }
    }

    /// `isHeld()`: a `GET` on every instance; the client compares the value with its own.
    fn is_held(&mut self, step: &Step, i: usize) {
        let n = self.run.t.instances.len();
        for inst in 0..n {
            let reply = if self.run.down(inst, step.at_ms) {
                RedisReply::Down
            } else if self.run.cut(inst, step.client, step.at_ms) {
                RedisReply::Cut
            } else {
                match self.run.holder_seen_by(inst, step.at_ms, i) {
                    Some((c, g)) => RedisReply::Bulk(self.holder_value(c, g)),
                    None => RedisReply::Nil,
                }
            };
            let cmd = RedisCmd::Get { key: self.key() };
            self.out.push(Command::redis(
                step.at_ms,
                Who::Client(step.client),
                Some(i),
                (inst, cmd, reply),
                (None, step.at_ms),
            ));
        }
        let name = self.run.name(step.client);
        let text = match step.outcome {
            Outcome::CheckPassed => format!("{name}: isHeld() is true, so it writes"),
            _ => format!("{name}: isHeld() is false, so it does not write"),
        };
        self.note(step, i, text);
    }

    /// The value in a key of generation `g`: on a single Redis, the value of that grant.
    fn holder_value(&self, client: usize, g: u64) -> String {
        self.run.value(client, g)
    }

    fn store(&mut self, step: &Step, i: usize, write: usize, verdict: &DebitVerdict) {
        let Some(wr) = self.run.t.writes.get(write) else {
            return;
        };
        let rule = self.run.s.storage.fence_rule;
        let debit = Debit {
            amount: wr.amount,
            token: wr.token,
            key: wr
                .idempotency_key
                .clone()
                .filter(|_| self.run.s.storage.idempotency),
            rule,
        };
        let end = match verdict {
            DebitVerdict::Duplicate { .. } => DebitEnd::Duplicate,
            DebitVerdict::Rejected { .. } => DebitEnd::Rejected,
            DebitVerdict::Accepted { balance } => {
                let new_value = match (rule, wr.token) {
                    (FenceRule::CasValue, Some(v)) => self.seen_values.insert(v),
                    _ => false,
                };
                DebitEnd::Accepted {
                    balance: *balance,
                    new_value,
                }
            }
        };
        let mut lines = debit.lines(end);
        let name = self.run.name(step.client);
        lines.insert(
            0,
            Line::note(format!(
                "{name}'s debit of {} reaches the storage",
                wr.amount
            )),
        );
        self.out.push(Command {
            at_ms: step.at_ms,
            who: Who::Client(step.client),
            step: Some(i),
            act: Act::Store { write, debit, end },
            lines,
        });
    }

    fn judge(&mut self, step: &Step, i: usize, attempt: usize) {
        let Some(a) = self.run.t.acquisitions.get(attempt) else {
            return;
        };
        let tally = Tally {
            extend: a.purpose == Purpose::Extend,
            votes: a.votes,
            needed: a.needed,
            elapsed_ms: a.elapsed_ms,
            ttl_ms: self.run.s.lock.ttl_ms,
            drift_ms: a.drift_ms,
            fence: a.fence,
        };
        let text = tally.line(self.run.name(a.client));
        self.act(
            step,
            i,
            Act::Judge {
                acquisition: attempt,
            },
            &text,
        );
    }
}
