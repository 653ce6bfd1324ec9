//! Where a lease's debit checks the generation besides the account row (`storage.leaseGuard`):
//! a ledger whose `UNIQUE(account, generation)` refuses a second line with one generation (an
//! idempotency key, looked at first, answers the true retry), or the live lease required in
//! the write's own statement. A child of `lease.rs`, so the first stage has none of it.

use crate::sim::planted::{self, Bug};
use crate::sim::scenario::{LeaseGuard, Scenario};
use crate::sim::trace::{Rejection, WriteRecord};

/// The generation a takeover mints: one more than the row's (the lab's planted bug, in its
/// mutation test only, forgets the `+ 1`).
pub fn next(generation: u64) -> u64 {
    if planted::is(Bug::LeaseGeneration) {
        generation
    } else {
        generation.saturating_add(1)
    }
}

pub struct Guard {
    kind: LeaseGuard,
    idempotency: bool,
    /// The ledger's generations and the idempotency keys it holds.
    ledger: Vec<u64>,
    keys: Vec<String>,
}

impl Guard {
    pub fn new(s: &Scenario) -> Guard {
        Guard {
            kind: s.storage.lease_guard,
            idempotency: s.storage.idempotency,
            ledger: Vec::new(),
            keys: Vec::new(),
        }
    }

    pub fn label(&self) -> &'static str {
        match self.kind {
            LeaseGuard::None => "none",
            LeaseGuard::UniqueLedger => "unique_ledger",
            LeaseGuard::LiveLease => "live_lease",
        }
    }

    /// The guard's refusal of `wr`, if any; `live` says whether the row is the writer's, at
    /// the generation it carries (any, for a write that carries none), and not yet expired by
    /// the database's clock. A write without the generation (a client that ignored it)
    /// inserts NULL, which no unique constraint compares.
    pub fn refuses(&self, wr: &WriteRecord, live: bool) -> Option<Rejection> {
        match self.kind {
            LeaseGuard::None => None,
            LeaseGuard::UniqueLedger => {
                // `ON CONFLICT (account, idempotency_key) DO NOTHING` answers the true retry
                // before the generation's constraint is looked at.
                let retry = self.idempotency
                    && wr
                        .idempotency_key
                        .as_ref()
                        .is_some_and(|k| self.keys.contains(k));
                let taken = wr.token.is_some_and(|g| self.ledger.contains(&g));
                (!retry && taken).then_some(Rejection::UniqueViolation)
            }
            LeaseGuard::LiveLease => (!live).then_some(Rejection::LeaseLost),
        }
    }

    /// `wr`'s statement ran; `failed`: it ended in an error, and nothing of it stays. Without
    /// one, its ledger line is inserted unless the idempotency key was there already (`ON
    /// CONFLICT (account, idempotency_key) DO NOTHING`), whatever the account's own checks then
    /// say: the `INSERT` is a data-modifying `WITH` of the statement, which PostgreSQL runs
    /// whether or not the `UPDATE` finds its row (a stale write refused by `generation < $g`
    /// still leaves its line).
    pub fn ran(&mut self, wr: &WriteRecord, failed: bool) {
        if failed || self.kind != LeaseGuard::UniqueLedger {
            return;
        }
        let retry = self.idempotency
            && wr
                .idempotency_key
                .as_ref()
                .is_some_and(|k| self.keys.contains(k));
        if retry {
            return;
        }
        if let Some(g) = wr.token {
            self.ledger.push(g);
        }
        if let Some(k) = &wr.idempotency_key {
            self.keys.push(k.clone());
        }
    }
}
