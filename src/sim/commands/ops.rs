//! What one command is: a Redis command or the storage's SQL, the reply it gets, and how both
//! read in `redis-cli` and `psql` style. The page renders a run's commands with these words,
//! and the lab renders what it sent and what the real servers answered with the same ones, so
//! comparing the two texts compares the model with reality line by line.

use super::scripts::{Script, ACCOUNT_ID};
use crate::sim::account::FenceRule;
use crate::sim::rng::Seeded;
use crate::sim::trace::Failure;

/// A Redis command as a client sends it. `ttl_ms` is in the scenario's milliseconds; the lab
/// multiplies it by its time scale on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedisCmd {
    /// `SET key value NX PX ttl`: plain Redis, no fence.
    SetNx {
        key: String,
        value: String,
        ttl_ms: u64,
    },
    /// `EVALSHA acquire 2 key fence_key value ttl`: the grant and its fence in one step.
    AcquireFenced {
        key: String,
        fence_key: String,
        value: String,
        ttl_ms: u64,
    },
    /// `EVALSHA extend 1 key value ttl`: compare-and-expire.
    Extend {
        key: String,
        value: String,
        ttl_ms: u64,
    },
    /// `EVALSHA release 1 key value`: compare-and-delete.
    ReleaseChecked { key: String, value: String },
    /// `DEL key`: deletes whoever holds it.
    Del { key: String },
    /// `GET key`: what `isHeld()` reads.
    Get { key: String },
    /// `SET fence_key n`: the counter starts so that the first grant gets `first_fence`.
    SetCounter { fence_key: String, value: i64 },
    /// `SCRIPT LOAD`: makes a script callable by its SHA-1.
    ScriptLoad(Script),
}

/// What a Redis server answered, or why nothing came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedisReply {
    Ok,
    Nil,
    Int(i64),
    Bulk(String),
    Error(String),
    /// The instance is down: the connection was refused or broken.
    Down,
    /// A partition dropped the request: it never reached the instance.
    Cut,
}

impl RedisCmd {
    /// The arguments on the wire, with TTLs multiplied by `scale`.
    pub fn args(&self, scale: u64) -> Vec<String> {
        let ms = |t: &u64| t.saturating_mul(scale).to_string();
        let s = |x: &str| x.to_string();
        match self {
            RedisCmd::SetNx { key, value, ttl_ms } => {
                vec![s("SET"), s(key), s(value), s("NX"), s("PX"), ms(ttl_ms)]
            }
            RedisCmd::AcquireFenced {
                key,
                fence_key,
                value,
                ttl_ms,
            } => vec![
                s("EVALSHA"),
                s(Script::Acquire.sha()),
                s("2"),
                s(key),
                s(fence_key),
                s(value),
                ms(ttl_ms),
            ],
            RedisCmd::Extend { key, value, ttl_ms } => vec![
                s("EVALSHA"),
                s(Script::Extend.sha()),
                s("1"),
                s(key),
                s(value),
                ms(ttl_ms),
            ],
            RedisCmd::ReleaseChecked { key, value } => vec![
                s("EVALSHA"),
                s(Script::Release.sha()),
                s("1"),
                s(key),
                s(value),
            ],
            RedisCmd::Del { key } => vec![s("DEL"), s(key)],
            RedisCmd::Get { key } => vec![s("GET"), s(key)],
            RedisCmd::SetCounter { fence_key, value } => {
                vec![s("SET"), s(fence_key), value.to_string()]
            }
            RedisCmd::ScriptLoad(script) => vec![s("SCRIPT"), s("LOAD"), s(script.lua())],
        }
    }

    /// The command as `redis-cli` takes it, in the scenario's milliseconds.
    pub fn text(&self) -> String {
        match self {
            RedisCmd::ScriptLoad(script) => format!("SCRIPT LOAD \"$(cat {})\"", script.name()),
            other => other
                .args(1)
                .iter()
                .map(|a| quote(a))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

impl RedisReply {
    /// The reply as `redis-cli` prints it.
    pub fn text(&self) -> String {
        match self {
            RedisReply::Ok => "OK".to_string(),
            RedisReply::Nil => "(nil)".to_string(),
            RedisReply::Int(n) => format!("(integer) {n}"),
            RedisReply::Bulk(b) => format!("\"{}\"", b.replace('\\', "\\\\").replace('"', "\\\"")),
            RedisReply::Error(e) => format!("(error) {e}"),
            RedisReply::Down => "(no reply: the instance is down)".to_string(),
            RedisReply::Cut => "(no reply: partitioned)".to_string(),
        }
    }
}

/// An argument as a shell-like `redis-cli` line needs it: bare when it is plain, quoted when it
/// holds spaces, quotes or nothing.
fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":-_.@/+".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("\"{}\"", arg.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A string as an SQL literal.
pub fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn sql_int(n: Option<u64>) -> String {
    n.map_or_else(|| "NULL".to_string(), |n| n.to_string())
}

/// One debit as the storage receives it: the token the client attached (a fence, or its lock
/// value under compare-and-set) and the idempotency key when the storage keeps them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Debit {
    pub amount: i64,
    pub token: Option<u64>,
    /// Present only when the debit has a key and the storage remembers keys.
    pub key: Option<String>,
    pub rule: FenceRule,
}

/// How a debit's transaction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebitEnd {
    /// The key was already stored: nothing else runs.
    Duplicate,
    /// `UPDATE 1`, with the balance it returned; `new_value` says whether a compare-and-set
    /// write brought a lock value the storage had not seen.
    Accepted { balance: i64, new_value: bool },
    /// `UPDATE 0`: the condition refused it, and the rollback drops the key.
    Rejected,
}

/// A statement and its reply, one line each in the Commands view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub reply: String,
}

impl Line {
    pub fn new(text: impl Into<String>, reply: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            reply: reply.into(),
        }
    }

    /// A comment: what a client decides or what happens to a process or a server.
    pub fn note(text: impl Into<String>) -> Line {
        Line {
            text: format!("-- {}", text.into()),
            reply: String::new(),
        }
    }
}

impl Debit {
    /// Stores the key first: `INSERT 0 0` means the intent already ran (duplicates first).
    pub fn key_insert(&self) -> Option<String> {
        self.key.as_ref().map(|k| {
            format!(
                "INSERT INTO idempotency_keys (account_id, key) VALUES ({ACCOUNT_ID}, {}) ON CONFLICT DO NOTHING",
                sql_text(k)
            )
        })
    }

    /// The debit itself, guarded by the fence rule; `RETURNING` gives the new balance.
    pub fn update(&self) -> String {
        let a = self.amount;
        let t = sql_int(self.token);
        let (set, cond) = match (self.rule, self.token) {
            (FenceRule::Off, _) => (String::new(), String::new()),
            (FenceRule::Strict, _) => (format!(", last_fence = {t}"), format!(" AND last_fence < {t}")),
            (FenceRule::NonDecreasing, _) => {
                (format!(", last_fence = {t}"), format!(" AND last_fence <= {t}"))
            }
            // `= NULL` never holds: a write without a value is refused.
            (FenceRule::CasValue, None) => (String::new(), " AND last_fence = NULL".to_string()),
            (FenceRule::CasValue, Some(_)) => (
                format!(", last_fence = {t}"),
                format!(
                    " AND (last_fence = {t} OR NOT EXISTS (SELECT 1 FROM lock_values WHERE account_id = {ACCOUNT_ID} AND value = {t}))"
                ),
            ),
        };
        format!(
            "UPDATE accounts SET balance = balance - {a}{set} WHERE id = {ACCOUNT_ID}{cond} RETURNING balance"
        )
    }

    /// Compare-and-set remembers every value it accepted, so a replaced one stays refused.
    pub fn value_insert(&self) -> Option<String> {
        match (self.rule, self.token) {
            (FenceRule::CasValue, Some(v)) => Some(format!(
                "INSERT INTO lock_values (account_id, value) VALUES ({ACCOUNT_ID}, {v}) ON CONFLICT DO NOTHING"
            )),
            _ => None,
        }
    }

    /// The transaction's lines as they run when it ends as `end`.
    pub fn lines(&self, end: DebitEnd) -> Vec<Line> {
        let mut out = vec![Line::new("BEGIN", "BEGIN")];
        if let Some(insert) = self.key_insert() {
            let dup = end == DebitEnd::Duplicate;
            out.push(Line::new(
                insert,
                if dup { "INSERT 0 0" } else { "INSERT 0 1" },
            ));
            if dup {
                out.push(Line::new("ROLLBACK", "ROLLBACK"));
                return out;
            }
        }
        match end {
            DebitEnd::Accepted { balance, new_value } => {
                out.push(Line::new(self.update(), update_reply(Some(balance))));
                if let Some(insert) = self.value_insert() {
                    out.push(Line::new(insert, insert_reply(new_value)));
                }
                out.push(Line::new("COMMIT", "COMMIT"));
            }
            DebitEnd::Rejected | DebitEnd::Duplicate => {
                out.push(Line::new(self.update(), update_reply(None)));
                out.push(Line::new("ROLLBACK", "ROLLBACK"));
            }
        }
        out
    }
}

/// `UPDATE 1` with the returned balance, or `UPDATE 0`.
pub fn update_reply(balance: Option<i64>) -> String {
    match balance {
        Some(b) => format!("UPDATE 1 (balance {b})"),
        None => "UPDATE 0".to_string(),
    }
}

pub fn insert_reply(inserted: bool) -> String {
    if inserted { "INSERT 0 1" } else { "INSERT 0 0" }.to_string()
}

/// The storage's starting state, after the schema.
pub fn seed_account_sql(balance: i64) -> String {
    format!("INSERT INTO accounts (id, balance, last_fence) VALUES ({ACCOUNT_ID}, {balance}, -1)")
}

/// What the run ends with, read back from the storage.
pub fn final_state_sql() -> String {
    format!("SELECT balance, last_fence FROM accounts WHERE id = {ACCOUNT_ID}")
}

/// The reply to `final_state_sql`, with `last_fence` -1 read as "none yet".
pub fn final_state_reply(balance: i64, last_fence: Option<u64>) -> String {
    let last = last_fence.map_or_else(|| "-1".to_string(), |f| f.to_string());
    format!("balance {balance}, last_fence {last}")
}

/// The value a holder writes into the lock: its name and the random value of the grant, drawn
/// from the scenario's seed (the same number a compare-and-set write carries).
pub fn lock_value(name: &str, seed: u64, generation: u64) -> String {
    format!("{name}:{:04x}", Seeded::new(seed).lock_value(generation))
}

/// The random part of a lock value, as a compare-and-set write carries it.
pub fn lock_value_number(value: &str) -> Option<u64> {
    let hex = value.rsplit(':').next()?;
    u64::from_str_radix(hex, 16).ok()
}

/// A Redlock client's count after a round: the votes it read, how long the round took by its
/// own clock, and the rule it applies (majority, then time below the TTL, then validity left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub extend: bool,
    pub votes: usize,
    pub needed: usize,
    pub elapsed_ms: i64,
    pub ttl_ms: u64,
    pub drift_ms: u64,
    /// The largest counter among the votes, in the fenced variant.
    pub fence: Option<u64>,
}

impl Tally {
    pub fn validity_ms(&self) -> i64 {
        self.ttl_ms as i64 - self.elapsed_ms - self.drift_ms as i64
    }

    /// Why the round failed, checked in Redlock's order; `None` when it succeeded.
    pub fn failure(&self) -> Option<Failure> {
        if self.votes < self.needed {
            Some(Failure::NoMajority)
        } else if self.elapsed_ms >= self.ttl_ms as i64 {
            Some(Failure::TooSlow)
        } else if self.validity_ms() <= 0 {
            Some(Failure::NoValidityLeft)
        } else {
            None
        }
    }

    /// The client's reckoning in one line, e.g. "A: 5 of 3 needed in 10 ms; validity 60 − 10
    /// − 2 = 48 ms: locked".
    pub fn line(&self, name: &str) -> String {
        let outcome = match (self.failure(), self.extend) {
            (None, false) => match self.fence {
                Some(f) => format!("locked, fence {f}"),
                None => "locked".to_string(),
            },
            (None, true) => "extended".to_string(),
            (Some(Failure::NoMajority), _) => "failed: no majority".to_string(),
            (Some(Failure::TooSlow), _) => "failed: the round took the whole TTL".to_string(),
            (Some(Failure::NoValidityLeft), _) => "failed: no validity left".to_string(),
        };
        format!(
            "{name}: {} of {} needed in {} ms; validity {} − {} − {} = {} ms: {outcome}",
            self.votes,
            self.needed,
            self.elapsed_ms,
            self.ttl_ms,
            self.elapsed_ms,
            self.drift_ms,
            self.validity_ms()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn debit(rule: FenceRule, token: Option<u64>, key: Option<&str>) -> Debit {
        Debit {
            amount: 10,
            token,
            key: key.map(str::to_string),
            rule,
        }
    }

    #[test]
    fn the_fence_rule_is_the_where_clause() {
        let cases = [
            (FenceRule::Strict, Some(33), "AND last_fence < 33"),
            (FenceRule::NonDecreasing, Some(33), "AND last_fence <= 33"),
            (FenceRule::Strict, None, "AND last_fence < NULL"),
            (FenceRule::CasValue, None, "AND last_fence = NULL"),
            (
                FenceRule::CasValue,
                Some(7),
                "AND (last_fence = 7 OR NOT EXISTS",
            ),
        ];
        for (rule, token, cond) in cases {
            let sql = debit(rule, token, None).update();
            assert!(sql.contains(cond), "{rule:?}: {sql}");
        }
        let off = debit(FenceRule::Off, Some(33), None).update();
        assert_eq!(
            off,
            "UPDATE accounts SET balance = balance - 10 WHERE id = 1 RETURNING balance"
        );
    }

    #[test]
    fn a_duplicate_stops_at_the_key_and_a_rejection_rolls_the_key_back() {
        let d = debit(FenceRule::Strict, Some(33), Some("it's"));
        let dup = d.lines(DebitEnd::Duplicate);
        assert_eq!(dup.len(), 3);
        assert!(dup[1].text.contains("'it''s'"));
        assert_eq!(dup[1].reply, "INSERT 0 0");
        let rejected = d.lines(DebitEnd::Rejected);
        assert_eq!(rejected[2].reply, "UPDATE 0");
        assert_eq!(rejected[3].text, "ROLLBACK");
    }

    #[test]
    fn redis_lines_read_like_redis_cli() {
        let set = RedisCmd::SetNx {
            key: "acct:1".into(),
            value: "A:3f2a".into(),
            ttl_ms: 30,
        };
        assert_eq!(set.text(), "SET acct:1 A:3f2a NX PX 30");
        assert_eq!(set.args(20)[5], "600");
        let get = RedisCmd::Get {
            key: "my key".into(),
        };
        assert_eq!(get.text(), "GET \"my key\"");
        assert_eq!(RedisReply::Int(33).text(), "(integer) 33");
    }
}
