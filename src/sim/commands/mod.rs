//! The real commands behind a run: for every step of a trace, the Redis command or the SQL a
//! real client sends and the reply it gets, in `redis-cli` and `psql` words. The page shows
//! them beside the narration, and the lab (`lab/`) sends the same commands to real Redis and
//! PostgreSQL servers and compares their replies with these, line by line.
//!
//! The list is a pure function of the scenario and its trace. `scripts` holds the Lua and SQL
//! texts, `ops` the commands and how they read, `command` one entry, `lookup` the questions
//! asked of the trace, `steps` the entries of the clients' steps, `rounds` Redlock's requests
//! per instance and the instances' own events. This file composes them.

use crate::sim::sort;
pub mod advisory;
pub mod command;
pub mod etcd;
pub mod lease;
mod lookup;
pub mod ops;
mod rounds;
pub mod scripts;
mod steps;
pub mod zookeeper;

use super::scenario::Scenario;
use super::trace::{ServiceKind, Trace};
pub use command::{Act, Command, Who};
use lookup::Run;
pub use ops::{Debit, DebitEnd, Line, RedisCmd, RedisReply, Tally};
pub use scripts::Script;

/// Every command of the run of `s` that produced `t`, in the order the run performed them:
/// the servers' setup, then the run, then reading the account back.
pub fn commands(s: &Scenario, t: &Trace) -> Vec<Command> {
    match t.kind() {
        ServiceKind::Single | ServiceKind::Redlock => {}
        ServiceKind::Etcd => return etcd::plan(s, t),
        ServiceKind::Advisory => return advisory::plan(s, t),
        ServiceKind::Zookeeper => return zookeeper::plan(s, t),
        ServiceKind::Lease => return lease::plan(s, t),
    }
    let run = Run { s, t };
    let mut timed: Vec<(u8, Command)> = Vec::new();
    timed.extend(rounds::instance_events(&run).into_iter().map(|c| (0, c)));
    timed.extend(rounds::plan(&run).into_iter().map(|c| (1, c)));
    timed.extend(steps::plan(&run).into_iter().map(|c| (2, c)));
    // At one instant an instance's own event comes first and requests reach instances before
    // the clients' steps run, as in the engine's queue; each part keeps its own order.
    sort::sort_by_key(&mut timed, |(class, c)| (c.at_ms, *class));
    let mut out = setup(s, t);
    out.extend(timed.into_iter().map(|(_, c)| c));
    out.push(Command {
        at_ms: t.end_ms,
        who: Who::Setup,
        step: None,
        act: Act::Sql(ops::final_state_sql()),
        lines: vec![Line::new(
            ops::final_state_sql(),
            ops::final_state_reply(t.final_balance, t.last_fence),
        )],
    });
    out
}

/// Loads the scripts on every instance, starts the fence counter, and creates the account.
fn setup(s: &Scenario, t: &Trace) -> Vec<Command> {
    let fenced = match s.lock.redlock() {
        Some(r) => r.fence,
        None => s.lock.fencing,
    };
    let mut out = Vec::new();
    for instance in 0..t.instances.len() {
        let mut cmds: Vec<(RedisCmd, RedisReply)> = Script::ALL
            .iter()
            .map(|&x| {
                let sha = RedisReply::Bulk(x.sha().to_string());
                (RedisCmd::ScriptLoad(x), sha)
            })
            .collect();
        if fenced {
            let counter = RedisCmd::SetCounter {
                fence_key: format!("fence:{}", s.key),
                value: s.lock.first_fence as i64 - 1,
            };
            cmds.push((counter, RedisReply::Ok));
        }
        for (cmd, reply) in cmds {
            out.push(Command::redis(
                0,
                Who::Setup,
                None,
                (instance, cmd, reply),
                (None, 0),
            ));
        }
    }
    let mut sql: Vec<(String, String)> = scripts::SCHEMA_SQL
        .iter()
        .map(|q| (q.to_string(), "CREATE TABLE".to_string()))
        .collect();
    sql.push((
        ops::seed_account_sql(s.storage.balance),
        "INSERT 0 1".into(),
    ));
    for (q, reply) in sql {
        out.push(Command {
            at_ms: 0,
            who: Who::Setup,
            step: None,
            act: Act::Sql(q.clone()),
            lines: vec![Line::new(q, reply)],
        });
    }
    out
}

/// Where a command goes, as the page and the script name it: `R2`, `redis` or `psql`.
pub fn server_name(t: &Trace, c: &Command) -> String {
    match &c.act {
        Act::Redis { instance, .. } if t.is_redlock() => t.instance_name(*instance).into(),
        Act::Redis { .. } => "redis".to_string(),
        Act::Sql(_) | Act::Store { .. } => "psql".to_string(),
        _ => String::new(),
    }
}

/// The whole list as a text a person can keep or paste: the scripts, then one line per
/// command with its time, who sent it, where, and the reply after `#`.
pub fn script_text(s: &Scenario, t: &Trace, list: &[Command]) -> String {
    let mut out = format!(
        "# The commands of \"{}\" (times and TTLs in the scenario's milliseconds)\n",
        s.name.replace('\n', " ")
    );
    for x in Script::ALL {
        out.push_str(&format!("#\n# {} (SHA-1 {}):\n", x.name(), x.sha()));
        for l in x.lua().lines() {
            out.push_str(&format!("#   {l}\n"));
        }
    }
    for c in list {
        let who = match c.who {
            Who::Setup => "setup".to_string(),
            Who::Client(i) => t.client_name(i).to_string(),
            Who::Instance(i) => t.instance_name(i).to_string(),
        };
        let server = server_name(t, c);
        for l in &c.lines {
            let place = if server.is_empty() || l.reply.is_empty() {
                String::new()
            } else {
                format!(" {server}>")
            };
            out.push_str(&format!("{:>6} ms  {who}{place} {}", c.at_ms, l.text));
            if !l.reply.is_empty() {
                out.push_str(&format!("   # {}", l.reply));
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::{preset, presets};
    use crate::sim::run;

    /// The run's lines as `time who: text → reply`, setup left out.
    fn lines_of(id: &str) -> Vec<String> {
        lines(&preset(id).expect("a preset"))
    }

    fn lines(s: &Scenario) -> Vec<String> {
        let t = run(s);
        commands(s, &t)
            .iter()
            .filter(|c| c.who != Who::Setup)
            .flat_map(|c| {
                let who = match c.who {
                    Who::Client(i) => t.client_name(i).to_string(),
                    Who::Instance(i) => t.instance_name(i).to_string(),
                    Who::Setup => String::new(),
                };
                c.lines
                    .iter()
                    .map(move |l| format!("{} {who}: {} → {}", c.at_ms, l.text, l.reply))
            })
            .collect()
    }

    #[track_caller]
    fn check(id: &str, expected: &[&str]) {
        let got = lines_of(id);
        for e in expected {
            assert!(
                got.iter().any(|l| l.contains(e)),
                "{id}: no line contains {e:?}; lines:\n{}",
                got.join("\n")
            );
        }
    }

    #[test]
    fn a_get_at_the_instant_of_a_later_grant_finds_no_key_yet() {
        // Found by the lab's random runs: A wakes at 31 ms and its isHeld() GET runs before B's
        // grant of the same instant, as the engine ran them; the key is not there yet. The
        // command list used to answer with B's value, which real Redis did not.
        let s = Scenario::from_json(include_str!("../../../lab/corpus/random-7-201.json"))
            .expect("the saved case reads");
        let t = run(&s);
        let a_first = t.steps.iter().position(|x| x.at_ms == 31 && x.client == 0);
        let b_grant = t.steps.iter().position(|x| x.at_ms == 31 && x.client == 1);
        assert!(a_first < b_grant, "{:?}", t.steps);
        let got = lines(&s);
        assert!(
            got.iter().any(|l| l == "31 A: GET acct:1 → (nil)"),
            "{}",
            got.join("\n")
        );
        assert!(
            got.iter().any(|l| l.starts_with("31 B: SET acct:1 B:")),
            "{got:?}"
        );
    }

    #[test]
    fn each_preset_reads_as_the_commands_a_real_client_sends() {
        // The unfenced story beside the fenced one: the same schedule, a different WHERE.
        check(
            "contract-3-unfenced",
            &[
                "31 B: EVALSHA 196689474fe6945691cecb59099bbfa67ac43dea 2 acct:1 fence:acct:1 B:65f4 30 → (integer) 34",
                "45 A: UPDATE accounts SET balance = balance - 10 WHERE id = 1 RETURNING balance → UPDATE 1 (balance 80)",
            ],
        );
        check(
            "contract-4-fenced",
            &[
                "45 A: UPDATE accounts SET balance = balance - 10, last_fence = 33 WHERE id = 1 AND last_fence < 33 RETURNING balance → UPDATE 0",
                "45 A: ROLLBACK → ROLLBACK",
            ],
        );
        check("contract-1-nx", &["10 B: EVALSHA 196689474fe6945691cecb59099bbfa67ac43dea 2 acct:1 fence:acct:1 B:65f4 30 → (nil)"]);
        check(
            "contract-5-equal-is-stale",
            &["AND last_fence < 33 RETURNING balance → UPDATE 0"],
        );
        check(
            "strict-vs-non-decreasing",
            &["AND last_fence <= 33 RETURNING balance → UPDATE 1 (balance 70)"],
        );
        check(
            "plain-redis",
            &[
                "0 A: SET acct:1 A:cdaf NX PX 30 → OK",
                "AND last_fence < NULL RETURNING balance → UPDATE 0",
            ],
        );
        check(
            "idempotent-retry",
            &[
                "15 A: INSERT INTO idempotency_keys (account_id, key) VALUES (1, 'pay-7') ON CONFLICT DO NOTHING → INSERT 0 1",
                "25 A: INSERT INTO idempotency_keys (account_id, key) VALUES (1, 'pay-7') ON CONFLICT DO NOTHING → INSERT 0 0",
            ],
        );
        check(
            "bare-del",
            &["40 A: DEL acct:1 → (integer) 1", "45 C: EVALSHA 196689474fe6945691cecb59099bbfa67ac43dea 2 acct:1 fence:acct:1 C:454f 30 → (integer) 35"],
        );
        check(
            "watchdog-stalls",
            &["50 A: EVALSHA 3a32323a05c08607e6bc7842cfeea9552d0b61f5 1 acct:1 A:cdaf 30 → (integer) 0"],
        );
        check(
            "contract-6-check-then-write",
            &["28 A: GET acct:1 → \"A:cdaf\"", "isHeld() is true"],
        );
        check(
            "redlock-happy",
            &[
                "1 A: SET acct:1 A:cdaf NX PX 60 → OK",
                "10 A: -- A: 5 of 3 needed in 10 ms; validity 60 − 10 − 2 = 48 ms: locked",
                "21 B: SET acct:1 B:65f4 NX PX 60 → (nil)",
            ],
        );
        check(
            "redlock-restart",
            &[
                "6 A: SET acct:1 A:cdaf NX PX 60 → (no reply: partitioned)",
                "20 R3: -- R3 is killed; it keeps nothing on disk",
                "35 B: SET acct:1 B:65f4 NX PX 60 → OK",
            ],
        );
        check(
            "redlock-gc-during-acquire",
            &[
                "71 A: -- A: 5 of 3 needed in 71 ms; validity 60 − 71 − 2 = -13 ms: failed: the round took the whole TTL",
                "72 A: EVALSHA c89cee65b7ab260d98c281f3c3eb6fa7c992cdd2 1 acct:1 A:cdaf → (integer) 0",
            ],
        );
        check(
            "redlock-order-fenced",
            &["-- B: 5 of 3 needed in 10 ms; validity 60 − 10 − 2 = 48 ms: locked, fence 34"],
        );
        check(
            "redlock-cas",
            &["INSERT INTO lock_values (account_id, value) VALUES (1, 52655) ON CONFLICT DO NOTHING → INSERT 0 1"],
        );
    }

    #[test]
    fn every_grant_denial_and_verdict_of_every_preset_has_its_command() {
        // The Redis services' commands; etcd's gateway calls are checked in `tests/etcd.rs`,
        // a lease row's SQL in `tests/lease.rs`.
        for p in presets().into_iter().filter(|p| {
            p.scenario.lock.etcd().is_none()
                && p.scenario.lock.advisory().is_none()
                && p.scenario.lock.zookeeper().is_none()
                && p.scenario.lock.lease().is_none()
        }) {
            let t = run(&p.scenario);
            let list = commands(&p.scenario, &t);
            let times: Vec<u64> = list
                .iter()
                .filter(|c| c.who != Who::Setup)
                .map(|c| c.at_ms)
                .collect();
            assert!(
                times.windows(2).all(|w| w[0] <= w[1]),
                "{}: out of order",
                p.id
            );
            for (i, step) in t.steps.iter().enumerate() {
                let mine: Vec<&Command> = list.iter().filter(|c| c.step == Some(i)).collect();
                let ok = match &step.outcome {
                    crate::sim::trace::Outcome::Granted { fence, .. } => mine.iter().any(|c| {
                        matches!(&c.act, Act::Redis { reply, .. }
                            if *reply == fence.map_or(RedisReply::Ok, |f| RedisReply::Int(f as i64)))
                    }),
                    crate::sim::trace::Outcome::Denied { .. } => mine
                        .iter()
                        .any(|c| matches!(&c.act, Act::Redis { reply: RedisReply::Nil, .. })),
                    crate::sim::trace::Outcome::Stored { verdict, .. } => mine.iter().any(|c| {
                        matches!((&c.act, verdict),
                            (Act::Store { end: DebitEnd::Accepted { balance, .. }, .. },
                             crate::sim::DebitVerdict::Accepted { balance: b }) if balance == b)
                            || matches!((&c.act, verdict),
                            (Act::Store { end: DebitEnd::Rejected, .. }, crate::sim::DebitVerdict::Rejected { .. })
                            | (Act::Store { end: DebitEnd::Duplicate, .. }, crate::sim::DebitVerdict::Duplicate { .. }))
                    }),
                    _ => true,
                };
                assert!(
                    ok,
                    "{}: step {i} ({}) has no matching command",
                    p.id, step.text
                );
            }
            let last = list.last().expect("the final read");
            assert_eq!(
                last.lines[0].reply,
                ops::final_state_reply(t.final_balance, t.last_fence),
                "{}",
                p.id
            );
        }
    }
}
