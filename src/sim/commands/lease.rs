//! The SQL each client sends for a database-lease run, with what PostgreSQL answers: the
//! tables, the acquire that inserts the row or takes it over (`RETURNING generation`), a
//! waiter's read and its compare-and-set, renew and release guarded by holder and generation,
//! and each debit as the statement its checks make it (the account row's generation, the
//! ledger's unique constraint, the live lease in the write's own statement). Every statement
//! runs as written in `psql` (`\gset` keeps what a waiter read). The lab does not replay these
//! yet: every entry is a `Note` to it, so nothing here claims a real server answered so.

use super::command::{Act, Command, Who};
use super::ops::Line;
use crate::sim::account::FenceRule;
use crate::sim::scenario::Scenario;
use crate::sim::trace::*;
use crate::sim::words;

fn entry(at_ms: u64, who: Who, step: Option<usize>, lines: Vec<Line>) -> Command {
    Command {
        at_ms,
        who,
        step,
        act: Act::Note,
        lines,
    }
}

/// A SQL string literal.
fn lit(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// How the account row compares the write's generation with its own.
fn rule_text(rule: FenceRule) -> &'static str {
    match rule {
        FenceRule::Strict => "generation < $g",
        FenceRule::NonDecreasing => "generation <= $g",
        FenceRule::Off | FenceRule::CasValue => "no check",
    }
}

/// The tables, as the run's settings make them.
fn setup(s: &Scenario, l: &LeaseTrace) -> Command {
    let mut lines = vec![
        Line::note(format!(
            "PostgreSQL 15; expiry judged by {}, fence checked by the account row ({}){}",
            if l.expiry == "waiter" {
                "the waiter's own clock"
            } else {
                "the database's now()"
            },
            rule_text(s.storage.fence_rule),
            match l.guard.as_str() {
                "unique_ledger" => " and a ledger's UNIQUE(account, generation)",
                "live_lease" => " and the live lease in the write's statement",
                _ => "",
            }
        )),
        Line::new(
            "CREATE TABLE leases (name text PRIMARY KEY, holder text, generation bigint NOT NULL, expires_at timestamptz NOT NULL)",
            "CREATE TABLE",
        ),
        Line::new(
            "CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL, generation bigint NOT NULL DEFAULT 0)",
            "CREATE TABLE",
        ),
        Line::new(
            "CREATE TABLE debits (account text, idempotency_key text, UNIQUE (account, idempotency_key))",
            "CREATE TABLE",
        ),
        Line::new(
            format!(
                "INSERT INTO accounts (id, balance) VALUES ({}, {})",
                lit(&s.key),
                s.storage.balance
            ),
            "INSERT 0 1",
        ),
    ];
    if l.guard == "unique_ledger" {
        lines.push(Line::new(
            "CREATE TABLE ledger (account text, generation bigint, idempotency_key text, amount bigint, UNIQUE (account, generation), UNIQUE (account, idempotency_key))",
            "CREATE TABLE",
        ));
    }
    entry(0, Who::Setup, None, lines)
}

fn interval(s: &Scenario) -> String {
    format!("interval '{} milliseconds'", s.lock.ttl_ms)
}

/// The acquire statement: insert, or take over an expired (or released) row.
fn acquire_sql(s: &Scenario, me: &str, waiter: bool) -> String {
    let expired = if waiter {
        "l.holder IS NULL"
    } else {
        "l.expires_at <= now()"
    };
    format!(
        "INSERT INTO leases AS l (name, holder, generation, expires_at) VALUES ({}, {}, {}, now() + {}) ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, generation = l.generation + 1, expires_at = EXCLUDED.expires_at WHERE {expired} RETURNING generation",
        lit(&s.key),
        lit(me),
        s.lock.first_fence,
        interval(s)
    )
}

/// The guard on holder and generation that renew and release share.
fn guarded(s: &Scenario, me: &str, generation: Option<u64>) -> String {
    format!(
        "name = {} AND holder = {}{}",
        lit(&s.key),
        lit(me),
        generation.map_or(String::new(), |g| format!(" AND generation = {g}"))
    )
}

/// The debit as one statement, with every check the settings ask for, and its reply.
fn debit(s: &Scenario, t: &Trace, l: &LeaseTrace, w: &WriteRecord) -> (String, String) {
    // A client that ignored the generation sends none: NULL, which no comparison passes.
    let g = w.token.map_or("NULL".to_string(), |g| g.to_string());
    let who = t.client_name(w.client);
    let account = lit(&s.key);
    let mut checks = String::new();
    match t.fence_rule {
        FenceRule::Strict => checks.push_str(&format!(" AND generation < {g}")),
        FenceRule::NonDecreasing => checks.push_str(&format!(" AND generation <= {g}")),
        FenceRule::Off | FenceRule::CasValue => {}
    }
    if l.guard == "live_lease" {
        checks.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM leases WHERE {} AND expires_at > now() FOR SHARE)",
            guarded(s, who, w.token)
        ));
    }
    let set_generation = if t.fence_rule == FenceRule::Off {
        String::new()
    } else {
        format!(", generation = {g}")
    };
    let key = w
        .idempotency_key
        .as_deref()
        .filter(|_| s.storage.idempotency);
    let sql = if l.guard == "unique_ledger" {
        format!(
            "WITH line AS (INSERT INTO ledger (account, generation, idempotency_key, amount) VALUES ({account}, {g}, {}, {}) ON CONFLICT (account, idempotency_key) DO NOTHING RETURNING amount) UPDATE accounts SET balance = balance - line.amount{set_generation} FROM line WHERE id = {account}{checks}",
            key.map_or("NULL".to_string(), lit),
            w.amount
        )
    } else {
        let update = format!(
            "UPDATE accounts SET balance = balance - {}{set_generation} WHERE id = {account}{checks}",
            w.amount
        );
        match key {
            Some(k) => format!(
                "WITH u AS ({update} AND NOT EXISTS (SELECT 1 FROM debits WHERE account = {account} AND idempotency_key = {}) RETURNING id) INSERT INTO debits SELECT id, {} FROM u",
                lit(k),
                lit(k)
            ),
            None => update,
        }
    };
    let done = if l.guard != "unique_ledger" && key.is_some() {
        ("INSERT 0 1", "INSERT 0 0")
    } else {
        ("UPDATE 1", "UPDATE 0")
    };
    let reply = match &w.verdict {
        Some(DebitVerdict::Accepted { .. }) => done.0.to_string(),
        Some(DebitVerdict::Rejected {
            reason: Rejection::UniqueViolation,
            ..
        }) => "ERROR:  duplicate key value violates unique constraint \"ledger_account_generation_key\"".to_string(),
        Some(v) => format!("{}  ({})", done.1, words::verdict_text(v)),
        None => "(no answer before the run ended)".to_string(),
    };
    (sql, reply)
}

/// Every statement of the run of `s` that produced `t`, in time order.
pub fn plan(s: &Scenario, t: &Trace) -> Vec<Command> {
    let Some(l) = &t.lease else {
        return Vec::new();
    };
    let waiter = l.expiry == "waiter";
    let mut out = vec![setup(s, l)];
    let mut timed: Vec<(u64, bool, Command)> = Vec::new();
    for &at in &l.failovers_ms {
        let line = Line::note(
            "failover: an asynchronous standby is promoted without the lease row's last takeover",
        );
        timed.push((at, false, entry(at, Who::Instance(0), None, vec![line])));
    }
    let renew_live = if waiter {
        ""
    } else {
        " AND expires_at > now()"
    };
    for (i, step) in t.steps.iter().enumerate() {
        let c = step.client;
        let me = t.client_name(c);
        let at = step.at_ms;
        // The generation the client's statement returned for the grant it believes it holds
        // (kept even by a client that sends none with its writes).
        let held = t
            .beliefs
            .iter()
            .rfind(|b| b.client == c && b.start_ms <= at)
            .and_then(|b| {
                t.leases
                    .iter()
                    .find(|l| l.holder == c && l.generation == b.generation)
            })
            .and_then(|l| l.fence)
            .unwrap_or(0);
        let watched = l.watches.iter().any(|x| x.client == c && x.end_ms == at);
        let lines = match &step.outcome {
            Outcome::Granted { fence, .. } if watched && waiter => vec![Line::new(
                format!(
                    "UPDATE leases SET holder = {}, generation = generation + 1, expires_at = now() + {} WHERE name = {} AND (holder IS NULL OR (generation = :seen_generation AND expires_at = :'seen_expires_at')) RETURNING generation",
                    lit(me),
                    interval(s),
                    lit(&s.key)
                ),
                fence.unwrap_or(0).to_string(),
            )],
            Outcome::Granted { fence, .. } => vec![Line::new(
                acquire_sql(s, me, waiter),
                fence.unwrap_or(0).to_string(),
            )],
            Outcome::Denied { .. } => vec![Line::new(acquire_sql(s, me, waiter), "(0 rows)")],
            Outcome::LockWaits { behind } => vec![
                Line::new(acquire_sql(s, me, waiter), "(0 rows)"),
                Line::new(
                    format!(
                        "SELECT generation AS seen_generation, expires_at AS seen_expires_at FROM leases WHERE name = {} \\gset",
                        lit(&s.key)
                    ),
                    format!("(held by {behind}: waits a TTL by its own clock, then compares)"),
                ),
            ],
            Outcome::Renewed { .. } | Outcome::RenewDenied { .. } => {
                let ok = matches!(step.outcome, Outcome::Renewed { .. });
                vec![Line::new(
                    format!(
                        "UPDATE leases SET expires_at = now() + {} WHERE {}{renew_live}",
                        interval(s),
                        guarded(s, me, Some(held))
                    ),
                    if ok { "UPDATE 1" } else { "UPDATE 0" },
                )]
            }
            Outcome::Released { own, .. } => vec![Line::new(
                format!(
                    "UPDATE leases SET holder = NULL, expires_at = now() WHERE {}",
                    guarded(s, me, Some(held))
                ),
                if *own { "UPDATE 1" } else { "UPDATE 0" },
            )],
            Outcome::DebitSent { write } => match t.writes.get(*write) {
                Some(w) => {
                    let (sql, reply) = debit(s, t, l, w);
                    vec![Line::new(sql, reply)]
                }
                None => vec![Line::note(step.text.clone())],
            },
            Outcome::Stored { verdict, .. } => vec![Line::note(format!(
                "PostgreSQL: {}",
                words::verdict_text(verdict)
            ))],
            _ => vec![Line::note(step.text.clone())],
        };
        timed.push((at, true, entry(at, Who::Client(c), Some(i), lines)));
    }
    // The database's events first at an instant, then the clients' steps in the run's order.
    crate::sim::sort::sort_by_key(&mut timed, |(at, client, _)| (*at, *client));
    out.extend(timed.into_iter().map(|(_, _, c)| c));
    out.push(entry(
        t.end_ms,
        Who::Setup,
        None,
        vec![Line::new(
            format!(
                "SELECT balance, generation FROM accounts WHERE id = {}",
                lit(&s.key)
            ),
            format!(
                "{} | {}",
                t.final_balance,
                t.last_fence.map_or("0".to_string(), |f| f.to_string())
            ),
        )],
    ));
    out
}
