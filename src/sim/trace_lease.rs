//! The database-lease part of a trace: every version the lease row went through (holder,
//! generation, `expires_at` by the database's clock), the waiters' watches of it when the
//! waiter's clock judges expiry, and the failovers. Apart from `trace.rs` so that each stays
//! short; `trace` re-exports it.

use serde::Serialize;

/// What the lease table did during a run, for the lane, the narration and the commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseTrace {
    /// `database` (its `now()` judges expiry) or `waiter` (the waiter's own clock does).
    pub expiry: String,
    /// Where a debit checks the generation besides the account row: `none`, `unique_ledger`
    /// or `live_lease`.
    pub guard: String,
    /// The row's versions, oldest first; each ends where the next begins.
    pub rows: Vec<LeaseRow>,
    /// Each waiter's watch of a held row, under the waiter's clock.
    pub watches: Vec<LeaseWatch>,
    pub failovers_ms: Vec<u64>,
}

/// One version of the lease row, in true time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseRow {
    /// The holder; `None` after a release (the row stays, so the generation is kept).
    pub holder: Option<usize>,
    pub generation: u64,
    /// `expires_at` as the database's clock reads it.
    pub expires_at: i64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub why: RowChange,
}

/// What wrote a version of the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowChange {
    /// `INSERT`: the first holder, at the first generation.
    Inserted,
    /// A takeover of an expired or released row: generation + 1.
    TakenOver,
    Renewed,
    Released,
    /// The promoted standby's row, as it was before the lost takeover.
    FailedOver,
}

/// A waiter reading a held row and counting a TTL on its own clock before it may take over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseWatch {
    pub client: usize,
    /// The generation it saw.
    pub generation: u64,
    pub start_ms: u64,
    /// When its clock said the TTL had passed (or the watch ended otherwise).
    pub end_ms: u64,
    pub end: WatchEnd,
}

/// How a watch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WatchEnd {
    /// The row had not changed: the waiter took it over.
    TookOver,
    /// The row had changed (renewed, released, taken, failed over): the waiter looks again.
    Changed,
    /// The waiter crashed.
    Abandoned,
    /// Still watching when the run ended.
    Open,
}
