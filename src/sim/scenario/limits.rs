//! The bounds every scenario stays inside, so that any run the page, a link or the JS API
//! starts finishes at once: times, amounts, counts and text lengths. Validation checks them;
//! the engine and the UI read them as the ends of their ranges.

/// The format version this build writes; older versions are migrated on load.
pub const SCENARIO_VERSION: u32 = 1;
/// The latest instant any event may name (about 2.8 hours).
pub const MAX_TIME_MS: u64 = 10_000_000;
pub const MAX_AMOUNT: i64 = 1_000_000_000;
pub const MAX_BALANCE: i64 = 1_000_000_000_000;
pub const MAX_CLIENTS: usize = 12;
pub const MAX_INSTANCES: usize = 9;
pub const MAX_EVENTS: usize = 100_000;
pub const MAX_STEP_LIMIT: u32 = 10_000_000;
pub const DEFAULT_STEP_LIMIT: u32 = 200_000;
/// Fences stay exact as JavaScript numbers.
pub const MAX_FENCE: u64 = 1 << 52;
/// Client, instance and key names, and idempotency keys.
pub const MAX_NAME_CHARS: usize = 40;
/// A scenario's name and caption.
pub const MAX_TEXT_CHARS: usize = 4_000;
