//! The Lua scripts and SQL the commands use, as the text a real system runs. The page shows
//! them and the lab (`lab/`) loads exactly these constants into its servers, so the scripts on
//! screen cannot drift from the ones that were tested. Each script's SHA-1 is written beside it
//! for `EVALSHA`; the lab checks it against what `SCRIPT LOAD` answers.

/// Grant and mint in one step: `SET … NX PX`, and `INCR` the fence counter only if the SET
/// succeeded. Redis runs a script atomically, so no other client can get between the two.
pub const ACQUIRE_LUA: &str = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false
";
pub const ACQUIRE_SHA: &str = "196689474fe6945691cecb59099bbfa67ac43dea";

/// Compare-and-expire: only the holder whose value is in the key moves its expiry.
pub const EXTEND_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
";
pub const EXTEND_SHA: &str = "3a32323a05c08607e6bc7842cfeea9552d0b61f5";

/// Compare-and-delete: only the holder whose value is in the key deletes it.
pub const RELEASE_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";
pub const RELEASE_SHA: &str = "c89cee65b7ab260d98c281f3c3eb6fa7c992cdd2";

/// The storage's tables. `last_fence` is -1 until the first fenced write, so every condition
/// compares plain integers; `idempotency_keys` holds the keys of debits that were applied, and
/// `lock_values` every lock value a compare-and-set write has brought.
pub const SCHEMA_SQL: &[&str] = &[
    "CREATE TABLE accounts (id integer PRIMARY KEY, balance bigint NOT NULL, last_fence bigint NOT NULL)",
    "CREATE TABLE idempotency_keys (account_id integer NOT NULL, key text NOT NULL, PRIMARY KEY (account_id, key))",
    "CREATE TABLE lock_values (account_id integer NOT NULL, value bigint NOT NULL, PRIMARY KEY (account_id, value))",
];

/// The account the scenario debits.
pub const ACCOUNT_ID: u32 = 1;

/// One of the three scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Acquire,
    Extend,
    Release,
}

impl Script {
    pub const ALL: [Script; 3] = [Script::Acquire, Script::Extend, Script::Release];

    pub fn lua(self) -> &'static str {
        match self {
            Script::Acquire => ACQUIRE_LUA,
            Script::Extend => EXTEND_LUA,
            Script::Release => RELEASE_LUA,
        }
    }

    pub fn sha(self) -> &'static str {
        match self {
            Script::Acquire => ACQUIRE_SHA,
            Script::Extend => EXTEND_SHA,
            Script::Release => RELEASE_SHA,
        }
    }

    /// The name a script file or a comment gives it.
    pub fn name(self) -> &'static str {
        match self {
            Script::Acquire => "acquire.lua",
            Script::Extend => "extend.lua",
            Script::Release => "release.lua",
        }
    }
}
