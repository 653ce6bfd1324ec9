//! The real commands behind a run: for every step of a trace, the Redis command or the SQL a
//! real client sends and the reply it gets, in `redis-cli` and `psql` words. The page shows
//! them beside the narration, and the lab (`lab/`) sends the same commands to real Redis and
//! PostgreSQL servers and compares their replies with these, line by line.
//!
//! The list is a pure function of the scenario and its trace. `scripts` holds the Lua and SQL
//! texts, `ops` the commands and how they read, `command` one entry, `lookup` the questions
//! asked of the trace, `steps` the entries of the clients' steps, `rounds` Redlock's requests
//! per instance and the instances' own events. This file composes them.

pub mod command;
mod lookup;
pub mod ops;
mod rounds;
pub mod scripts;
mod steps;

use super::scenario::Scenario;
use super::trace::Trace;
pub use command::{Act, Command, Who};
use lookup::Run;
pub use ops::{Debit, DebitEnd, Line, RedisCmd, RedisReply, Tally};
pub use scripts::Script;

/// Every command of the run of `s` that produced `t`, in the order the run performed them:
/// the servers' setup, then the run, then reading the account back.
pub fn commands(s: &Scenario, t: &Trace) -> Vec<Command> {
    let run = Run { s, t };
    let mut timed: Vec<(u8, Command)> = Vec::new();
    timed.extend(rounds::instance_events(&run).into_iter().map(|c| (0, c)));
    timed.extend(rounds::plan(&run).into_iter().map(|c| (1, c)));
    timed.extend(steps::plan(&run).into_iter().map(|c| (2, c)));
    // At one instant an instance's own event comes first and requests reach instances before
    // the clients' steps run, as in the engine's queue; each part keeps its own order.
    timed.sort_by_key(|(class, c)| (c.at_ms, *class));
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
    let fenced = match &s.lock.redlock {
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
    sql.push((ops::seed_account_sql(s.storage.balance), "INSERT 0 1".into()));
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
        Act::Redis { instance, .. } if t.instances.len() > 1 => t.instance_name(*instance).into(),
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
