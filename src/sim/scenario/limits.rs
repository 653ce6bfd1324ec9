//! The bounds every scenario stays inside, so that any run the page, a link or the JS API
//! starts finishes at once: times, amounts, counts, text lengths, and the work a run may need.
//! This is the one table of limits: the reader and `validate` check against it and quote it in
//! their messages, `docs/scenario-format.md` and `docs/scenario.schema.json` document it (and
//! `tests/limits.rs` fails when either disagrees with it), and the engine and the UI read the
//! same constants as the ends of their ranges.

/// The format version this build writes; older versions are migrated on load.
pub const SCENARIO_VERSION: u32 = 1;
/// The latest instant any event may name (about 2.8 hours).
pub const MAX_TIME_MS: u64 = 10_000_000;
pub const MAX_AMOUNT: i64 = 1_000_000_000;
pub const MAX_BALANCE: i64 = 1_000_000_000_000;
pub const MAX_CLIENTS: usize = 12;
pub const MAX_INSTANCES: usize = 9;
/// An etcd cluster has at most this many members.
pub const MAX_MEMBERS: usize = 7;
/// Client events and instance events, every list counted together.
pub const MAX_EVENTS: usize = 10_000;
/// Entries of every clock's `jumps` list plus every `clock_jump` event, counted together.
pub const MAX_CLOCK_JUMPS: usize = 1_000;
/// The most engine steps a scenario may need, counted before it runs (`work.rs`): Redlock
/// rounds × attempts × instances, watchdog renewals over the timeline, deferred steps. It
/// bounds the time and the trace of every run; the step limit below is a second, later stop.
pub const MAX_WORK: u64 = 100_000;
pub const MAX_STEP_LIMIT: u32 = 10_000_000;
pub const DEFAULT_STEP_LIMIT: u32 = 200_000;
pub const MAX_RETRIES: u32 = 20;
pub const MAX_DRIFT_FACTOR_PPM: u64 = 500_000;
pub const MIN_DRIFT_PPM: i64 = -900_000;
pub const MAX_DRIFT_PPM: i64 = 1_000_000;
/// Fences stay exact as JavaScript numbers.
pub const MAX_FENCE: u64 = 1 << 52;
/// Client, instance and key names, and idempotency keys.
pub const MAX_NAME_CHARS: usize = 40;
/// A scenario's name and caption.
pub const MAX_TEXT_CHARS: usize = 4_000;

/// What a limit counts, which decides how its range is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain whole number.
    Number,
    /// Whole milliseconds.
    Ms,
    /// Characters of text.
    Chars,
    /// Items of a list (or a sum of lists), named by the noun.
    Items(&'static str),
}

/// One documented range: the field it applies to, as `docs/scenario.schema.json` places it
/// (`lock.ttlMs`, or a bare name like `atMs` for every field of that name), and its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub field: &'static str,
    pub min: i64,
    pub max: u64,
    pub unit: Unit,
}

impl Limit {
    const fn new(field: &'static str, min: i64, max: u64, unit: Unit) -> Limit {
        Limit {
            field,
            min,
            max,
            unit,
        }
    }

    /// Times from 0 to `MAX_TIME_MS`.
    const fn time(field: &'static str) -> Limit {
        Limit::new(field, 0, MAX_TIME_MS, Unit::Ms)
    }

    /// Signed times, ±`MAX_TIME_MS`.
    const fn signed_time(field: &'static str) -> Limit {
        Limit::new(field, -(MAX_TIME_MS as i64), MAX_TIME_MS, Unit::Ms)
    }

    const fn chars(field: &'static str, min: i64, max: usize) -> Limit {
        Limit::new(field, min, max as u64, Unit::Chars)
    }

    pub fn allows(&self, n: i128) -> bool {
        i128::from(self.min) <= n && n <= i128::from(self.max)
    }

    /// The range as a message states it: `a whole number from 1 to 10000000 ms`,
    /// `1 to 12 clients`, `at most 40 characters`.
    pub fn expected(&self) -> String {
        match self.unit {
            Unit::Number => format!("a whole number from {} to {}", self.min, self.max),
            Unit::Ms => format!("a whole number from {} to {} ms", self.min, self.max),
            Unit::Chars => format!("at most {} characters", self.max),
            Unit::Items(noun) if self.min == 0 => format!("at most {} {noun}", self.max),
            Unit::Items(noun) => format!("{} to {} {noun}", self.min, self.max),
        }
    }

    /// The message for a value outside the range. One plain function (not generic over the
    /// number's type) keeps the formatting code in the wasm once.
    pub fn refuse(&self, got: i128) -> String {
        format!("expected {}, got {}", self.expected(), spelled(got))
    }
}

/// A number in a message, written without 128-bit formatting (which would add kilobytes to
/// the wasm): every number checked here fits an `i64` or a `u64`.
pub fn spelled(n: i128) -> String {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(i), _) => i.to_string(),
        (_, Ok(u)) => u.to_string(),
        _ => "a number out of range".to_string(),
    }
}

pub const NAME: Limit = Limit::chars("name", 0, MAX_TEXT_CHARS);
pub const CAPTION: Limit = Limit::chars("caption", 0, MAX_TEXT_CHARS);
pub const KEY: Limit = Limit::chars("key", 0, MAX_NAME_CHARS);
pub const END_MS: Limit = Limit::time("endMs");
pub const CLIENTS: Limit = Limit::new("clients", 1, MAX_CLIENTS as u64, Unit::Items("clients"));
pub const STEP_LIMIT: Limit = Limit::new("stepLimit", 1, MAX_STEP_LIMIT as u64, Unit::Number);
pub const SEED: Limit = Limit::new("seed", 0, u64::MAX, Unit::Number);
pub const TTL_MS: Limit = Limit::new("lock.ttlMs", 1, MAX_TIME_MS, Unit::Ms);
pub const FIRST_FENCE: Limit = Limit::new("lock.firstFence", 0, MAX_FENCE, Unit::Number);
pub const INSTANCES: Limit = Limit::new(
    "redlock.instances",
    1,
    MAX_INSTANCES as u64,
    Unit::Items("instances"),
);
pub const TIMEOUT_MS: Limit = Limit::new("redlock.timeoutMs", 1, MAX_TIME_MS, Unit::Ms);
pub const DRIFT_FACTOR_PPM: Limit = Limit::new(
    "redlock.driftFactorPpm",
    0,
    MAX_DRIFT_FACTOR_PPM,
    Unit::Number,
);
pub const RETRIES: Limit = Limit::new("redlock.retries", 0, MAX_RETRIES as u64, Unit::Number);
pub const RETRY_DELAY_MS: Limit = Limit::time("redlock.retryDelayMs");
pub const INSTANCE_NAME: Limit = Limit::chars("instance.name", 1, MAX_NAME_CHARS);
pub const LATENCY_MS: Limit = Limit::time("instance.latencyMs");
pub const BALANCE: Limit = Limit::new(
    "storage.balance",
    -MAX_BALANCE,
    MAX_BALANCE as u64,
    Unit::Number,
);
pub const OFFSET_MS: Limit = Limit::signed_time("clock.offsetMs");
pub const DRIFT_PPM: Limit = Limit::new(
    "clock.driftPpm",
    MIN_DRIFT_PPM,
    MAX_DRIFT_PPM as u64,
    Unit::Number,
);
pub const CLIENT_NAME: Limit = Limit::chars("client.name", 1, MAX_NAME_CHARS);
pub const AT_MS: Limit = Limit::time("atMs");
pub const BY_MS: Limit = Limit::signed_time("byMs");
pub const OVER_MS: Limit = Limit::time("overMs");
pub const DELAY_MS: Limit = Limit::time("delayMs");
pub const GAP_MS: Limit = Limit::time("gapMs");
pub const DOWN_MS: Limit = Limit::time("downMs");
pub const AMOUNT: Limit = Limit::new("amount", 0, MAX_AMOUNT as u64, Unit::Number);
pub const IDEMPOTENCY_KEY: Limit = Limit::chars("idempotencyKey", 0, MAX_NAME_CHARS);
pub const PAUSE_MS: Limit = Limit::new("pause.durationMs", 1, MAX_TIME_MS, Unit::Ms);
pub const PARTITION_MS: Limit = Limit::time("instancePartition.durationMs");
/// Every list of events counts toward this one total.
pub const EVENTS: Limit = Limit::new("events", 0, MAX_EVENTS as u64, Unit::Items("events"));
/// Every clock's jumps and every `clock_jump` event count toward this one total.
pub const CLOCK_JUMPS: Limit = Limit::new(
    "jumps",
    0,
    MAX_CLOCK_JUMPS as u64,
    Unit::Items("clock jumps"),
);
pub const MEMBERS: Limit = Limit::new(
    "etcd.members",
    1,
    MAX_MEMBERS as u64,
    Unit::Items("members"),
);
pub const ELECTION_TIMEOUT_MS: Limit =
    Limit::new("etcd.electionTimeoutMs", 1, MAX_TIME_MS, Unit::Ms);
pub const MEMBER_NAME: Limit = Limit::chars("member.name", 1, MAX_NAME_CHARS);
pub const MEMBER_PARTITION_MS: Limit = Limit::time("memberPartition.durationMs");
pub const LOCK_ID: Limit = Limit::new("advisory.lockId", 0, MAX_FENCE, Unit::Number);
pub const IDLE_SESSION_TIMEOUT_MS: Limit = Limit::time("advisory.idleSessionTimeoutMs");
pub const IDLE_IN_TRANSACTION_TIMEOUT_MS: Limit =
    Limit::time("advisory.idleInTransactionTimeoutMs");
pub const KEEPALIVE_MS: Limit = Limit::new("advisory.keepaliveMs", 1, MAX_TIME_MS, Unit::Ms);
pub const TICK_TIME_MS: Limit = Limit::new("zookeeper.tickTimeMs", 1, MAX_TIME_MS, Unit::Ms);
pub const ZK_PARTITION_MS: Limit = Limit::time("zookeeperPartition.durationMs");
pub const WORK: Limit = Limit::new("work", 0, MAX_WORK, Unit::Items("engine steps"));

/// Every limit, for the documents' test and for anyone who wants the whole table.
pub const LIMITS: &[Limit] = &[
    NAME,
    CAPTION,
    KEY,
    END_MS,
    CLIENTS,
    STEP_LIMIT,
    SEED,
    TTL_MS,
    FIRST_FENCE,
    INSTANCES,
    TIMEOUT_MS,
    DRIFT_FACTOR_PPM,
    RETRIES,
    RETRY_DELAY_MS,
    INSTANCE_NAME,
    LATENCY_MS,
    BALANCE,
    OFFSET_MS,
    DRIFT_PPM,
    CLIENT_NAME,
    AT_MS,
    BY_MS,
    OVER_MS,
    DELAY_MS,
    GAP_MS,
    DOWN_MS,
    AMOUNT,
    IDEMPOTENCY_KEY,
    PAUSE_MS,
    PARTITION_MS,
    EVENTS,
    CLOCK_JUMPS,
    MEMBERS,
    ELECTION_TIMEOUT_MS,
    MEMBER_NAME,
    MEMBER_PARTITION_MS,
    LOCK_ID,
    IDLE_SESSION_TIMEOUT_MS,
    IDLE_IN_TRANSACTION_TIMEOUT_MS,
    KEEPALIVE_MS,
    TICK_TIME_MS,
    ZK_PARTITION_MS,
    WORK,
];

/// Actions a run may take inside the render that asks for it: a few milliseconds of work, and
/// every preset and hand-made scenario fits. The full page computes a longer run in slices
/// between which the browser handles input (`ui::runs`); the first stage draws only scenarios
/// whose runs fit (`first::First::open`). Counted in actions, not milliseconds, so which runs
/// are sliced does not depend on the machine.
pub const SYNC_STEPS: u32 = 2_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quote_the_range() {
        assert_eq!(
            STEP_LIMIT.refuse(8_589_934_592),
            "expected a whole number from 1 to 10000000, got 8589934592"
        );
        assert_eq!(
            TTL_MS.refuse(0),
            "expected a whole number from 1 to 10000000 ms, got 0"
        );
        assert_eq!(CLIENTS.refuse(0), "expected 1 to 12 clients, got 0");
        assert_eq!(EVENTS.expected(), "at most 10000 events");
        assert!(BY_MS.allows(-10_000_000) && !BY_MS.allows(-10_000_001));
        assert!(SEED.allows(i128::from(u64::MAX)));
    }

    #[test]
    fn fields_are_named_once() {
        for (i, l) in LIMITS.iter().enumerate() {
            assert!(
                LIMITS[..i].iter().all(|o| o.field != l.field),
                "{} twice",
                l.field
            );
        }
    }
}
