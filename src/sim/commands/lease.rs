//! The SQL each client sends for a database-lease run, with what PostgreSQL answers: the
//! tables, the acquire that inserts the row or takes it over (`RETURNING generation`), a
//! waiter's read and its compare-and-set, renew and release guarded by holder and generation,
//! and each debit as the statement its checks make it (the account row's generation, the
//! ledger's unique constraint, the live lease in the write's own statement). Every statement
//! runs as written in `psql` (`\gset` keeps what a waiter read). The statements' text is built
//! by the `*_sql` functions here, which the lab's lease clients (`lab/src/lease/client.rs`)
//! call too, with the interval scaled to the run and a waiter's read values in place of the
//! `psql` variables: the two cannot drift apart. Every entry is a `Note` to the Commands view's
//! own replay (the lab judges the run's facts instead, `lab/src/lease/history.rs`).

use super::command::{Act, Command, Who};
use super::ops::Line;
use crate::sim::account::FenceRule;
use crate::sim::scenario::{LeaseGuard, Scenario};
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
pub fn lit(text: &str) -> String {
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

/// The statements that make the tables and the account, with the reply each gives: shared with
/// the lab, which runs them on a fresh database before each run.
pub fn setup_sql(key: &str, balance: i64, guard: LeaseGuard) -> Vec<(String, &'static str)> {
    let mut out = vec![
        (
            "CREATE TABLE leases (name text PRIMARY KEY, holder text, generation bigint NOT NULL, expires_at timestamptz NOT NULL)".to_string(),
            "CREATE TABLE",
        ),
        (
            "CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL, generation bigint NOT NULL DEFAULT 0)".to_string(),
            "CREATE TABLE",
        ),
        (
            "CREATE TABLE debits (account text, idempotency_key text, UNIQUE (account, idempotency_key))".to_string(),
            "CREATE TABLE",
        ),
        (
            format!("INSERT INTO accounts (id, balance) VALUES ({}, {balance})", lit(key)),
            "INSERT 0 1",
        ),
    ];
    if guard == LeaseGuard::UniqueLedger {
        out.push((
            "CREATE TABLE ledger (account text, generation bigint, idempotency_key text, amount bigint, UNIQUE (account, generation), UNIQUE (account, idempotency_key))".to_string(),
            "CREATE TABLE",
        ));
    }
    out
}

/// The tables, as the run's settings make them.
fn setup(s: &Scenario, l: &LeaseTrace) -> Command {
    let mut lines = vec![Line::note(format!(
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
    ))];
    for (sql, reply) in setup_sql(&s.key, s.storage.balance, s.storage.lease_guard) {
        lines.push(Line::new(sql, reply));
    }
    entry(0, Who::Setup, None, lines)
}

/// A TTL as the statements write it: `interval '30 milliseconds'` in the Commands view; the lab
/// writes its scaled TTL in microseconds (`interval_us`).
pub fn interval_ms(ms: u64) -> String {
    format!("interval '{ms} milliseconds'")
}

/// A TTL in real microseconds, as the lab's clients write it at their run's scale.
pub fn interval_us(us: u64) -> String {
    format!("interval '{us} microseconds'")
}

fn interval(s: &Scenario) -> String {
    interval_ms(s.lock.ttl_ms)
}

/// The acquire statement: insert, or take over an expired (or released) row. With the
/// waiter's clock judging, the statement takes over only a released row.
pub fn acquire_sql(key: &str, me: &str, first: u64, interval: &str, waiter: bool) -> String {
    let expired = if waiter {
        "l.holder IS NULL"
    } else {
        "l.expires_at <= now()"
    };
    format!(
        "INSERT INTO leases AS l (name, holder, generation, expires_at) VALUES ({}, {}, {first}, now() + {interval}) ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, generation = l.generation + 1, expires_at = EXCLUDED.expires_at WHERE {expired} RETURNING generation",
        lit(key),
        lit(me),
    )
}

/// A waiter's read of the held row (the Commands view adds `psql`'s `\gset`): a row held by
/// the reader itself is not waited for (its acquire is refused), any other is.
pub fn read_sql(key: &str) -> String {
    format!(
        "SELECT generation AS seen_generation, expires_at AS seen_expires_at, holder AS seen_holder FROM leases WHERE name = {}",
        lit(key)
    )
}

/// A waiter's compare-and-set once its own clock says a TTL has passed since its read: the
/// row is taken over only if it is released or still the one it read. `seen_generation` and
/// `seen_expires_at` are `psql`'s variables in the Commands view, the read values in the lab.
pub fn takeover_sql(
    key: &str,
    me: &str,
    interval: &str,
    seen_generation: &str,
    seen_expires_at: &str,
) -> String {
    format!(
        "UPDATE leases SET holder = {}, generation = generation + 1, expires_at = now() + {interval} WHERE name = {} AND (holder IS NULL OR (generation = {seen_generation} AND expires_at = {seen_expires_at})) RETURNING generation",
        lit(me),
        lit(key)
    )
}

/// The renewal, guarded by holder and generation, and by the lease still being live when the
/// database judges expiry.
pub fn renew_sql(key: &str, me: &str, generation: u64, interval: &str, waiter: bool) -> String {
    format!(
        "UPDATE leases SET expires_at = now() + {interval} WHERE {}{}",
        guarded(key, me, Some(generation)),
        if waiter {
            ""
        } else {
            " AND expires_at > now()"
        }
    )
}

/// The release: the row stays, with its generation.
pub fn release_sql(key: &str, me: &str, generation: u64) -> String {
    format!(
        "UPDATE leases SET holder = NULL, expires_at = now() WHERE {}",
        guarded(key, me, Some(generation))
    )
}

/// The account's state at the end: balance and generation.
pub fn final_sql(key: &str) -> String {
    format!(
        "SELECT balance, generation FROM accounts WHERE id = {}",
        lit(key)
    )
}

/// The guard on holder and generation that renew and release share.
fn guarded(key: &str, me: &str, generation: Option<u64>) -> String {
    format!(
        "name = {} AND holder = {}{}",
        lit(key),
        lit(me),
        generation.map_or(String::new(), |g| format!(" AND generation = {g}"))
    )
}

/// One debit as the lease's statement sees it.
pub struct LeaseDebit<'a> {
    /// The account's id (the scenario's key).
    pub account: &'a str,
    /// The writer's name (the holder the live lease is checked for).
    pub who: &'a str,
    pub amount: i64,
    /// The generation it carries; `None` for a client that ignored it (NULL).
    pub token: Option<u64>,
    pub rule: FenceRule,
    pub guard: LeaseGuard,
    /// The idempotency key, when the storage keeps them.
    pub key: Option<&'a str>,
}

/// What the unique ledger's constraint says when it refuses a second line of one generation.
pub const UNIQUE_VIOLATION: &str =
    "duplicate key value violates unique constraint \"ledger_account_generation_key\"";

impl LeaseDebit<'_> {
    /// The debit as one statement, with every check the settings ask for.
    pub fn sql(&self) -> String {
        // A client that ignored the generation sends none: NULL, which no comparison passes.
        let g = self.token.map_or("NULL".to_string(), |g| g.to_string());
        let account = lit(self.account);
        let mut checks = String::new();
        match self.rule {
            FenceRule::Strict => checks.push_str(&format!(" AND generation < {g}")),
            FenceRule::NonDecreasing => checks.push_str(&format!(" AND generation <= {g}")),
            FenceRule::Off | FenceRule::CasValue => {}
        }
        if self.guard == LeaseGuard::LiveLease {
            checks.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM leases WHERE {} AND expires_at > now() FOR SHARE)",
                guarded(self.account, self.who, self.token)
            ));
        }
        let set_generation = if self.rule == FenceRule::Off {
            String::new()
        } else {
            format!(", generation = {g}")
        };
        if self.guard == LeaseGuard::UniqueLedger {
            return format!(
                "WITH line AS (INSERT INTO ledger (account, generation, idempotency_key, amount) VALUES ({account}, {g}, {}, {}) ON CONFLICT (account, idempotency_key) DO NOTHING RETURNING amount) UPDATE accounts SET balance = balance - line.amount{set_generation} FROM line WHERE id = {account}{checks}",
                self.key.map_or("NULL".to_string(), lit),
                self.amount
            );
        }
        let update = format!(
            "UPDATE accounts SET balance = balance - {}{set_generation} WHERE id = {account}{checks}",
            self.amount
        );
        match self.key {
            Some(k) => format!(
                "WITH u AS ({update} AND NOT EXISTS (SELECT 1 FROM debits WHERE account = {account} AND idempotency_key = {}) RETURNING id) INSERT INTO debits SELECT id, {} FROM u",
                lit(k),
                lit(k)
            ),
            None => update,
        }
    }

    /// The command tags the statement answers when it debits and when it does not.
    pub fn tags(&self) -> (&'static str, &'static str) {
        if self.guard != LeaseGuard::UniqueLedger && self.key.is_some() {
            ("INSERT 0 1", "INSERT 0 0")
        } else {
            ("UPDATE 1", "UPDATE 0")
        }
    }

    /// What PostgreSQL answers for `verdict`: the tag, or the constraint's error.
    pub fn reply(&self, verdict: &DebitVerdict) -> String {
        match verdict {
            DebitVerdict::Accepted { .. } => self.tags().0.to_string(),
            DebitVerdict::Rejected {
                reason: Rejection::UniqueViolation,
                ..
            } => format!("ERROR: {UNIQUE_VIOLATION}"),
            _ => self.tags().1.to_string(),
        }
    }
}

/// The debit of write `w` as the run's settings make it.
pub fn debit_of<'a>(s: &'a Scenario, t: &'a Trace, w: &'a WriteRecord) -> LeaseDebit<'a> {
    LeaseDebit {
        account: &s.key,
        who: t.client_name(w.client),
        amount: w.amount,
        token: w.token,
        rule: t.fence_rule,
        guard: s.storage.lease_guard,
        key: w
            .idempotency_key
            .as_deref()
            .filter(|_| s.storage.idempotency),
    }
}

/// The debit as one statement and its reply, as the Commands view writes them.
fn debit(s: &Scenario, t: &Trace, w: &WriteRecord) -> (String, String) {
    let d = debit_of(s, t, w);
    let reply = match &w.verdict {
        Some(v @ DebitVerdict::Accepted { .. }) => d.reply(v),
        Some(
            v @ DebitVerdict::Rejected {
                reason: Rejection::UniqueViolation,
                ..
            },
        ) => d.reply(v).replacen("ERROR: ", "ERROR:  ", 1),
        Some(v) => format!("{}  ({})", d.reply(v), words::verdict_text(v)),
        None => "(no answer before the run ended)".to_string(),
    };
    (d.sql(), reply)
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
    let (key, ttl) = (s.key.as_str(), interval(s));
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
        let acquire = || acquire_sql(key, me, s.lock.first_fence, &ttl, waiter);
        let lines = match &step.outcome {
            Outcome::Granted { fence, .. } if watched && waiter => vec![Line::new(
                takeover_sql(key, me, &ttl, ":seen_generation", ":'seen_expires_at'"),
                fence.unwrap_or(0).to_string(),
            )],
            Outcome::Granted { fence, .. } => {
                vec![Line::new(acquire(), fence.unwrap_or(0).to_string())]
            }
            Outcome::Denied { .. } if waiter => vec![
                Line::new(acquire(), "(0 rows)"),
                Line::new(
                    format!("{} \\gset", read_sql(key)),
                    format!("(held by {me} itself: no wait)"),
                ),
            ],
            Outcome::Denied { .. } => vec![Line::new(acquire(), "(0 rows)")],
            Outcome::LockWaits { behind } => vec![
                Line::new(acquire(), "(0 rows)"),
                Line::new(
                    format!("{} \\gset", read_sql(key)),
                    format!("(held by {behind}: waits a TTL by its own clock, then compares)"),
                ),
            ],
            Outcome::Renewed { .. } | Outcome::RenewDenied { .. } => {
                let ok = matches!(step.outcome, Outcome::Renewed { .. });
                vec![Line::new(
                    renew_sql(key, me, held, &ttl, waiter),
                    if ok { "UPDATE 1" } else { "UPDATE 0" },
                )]
            }
            Outcome::Released { own, .. } => vec![Line::new(
                release_sql(key, me, held),
                if *own { "UPDATE 1" } else { "UPDATE 0" },
            )],
            Outcome::DebitSent { write } => match t.writes.get(*write) {
                Some(w) => {
                    let (sql, reply) = debit(s, t, w);
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
            final_sql(key),
            format!(
                "{} | {}",
                t.final_balance,
                t.last_fence.map_or("0".to_string(), |f| f.to_string())
            ),
        )],
    ));
    out
}
