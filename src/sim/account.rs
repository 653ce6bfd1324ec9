//! The protected resource: an account whose debits carry a fencing token. The storage is the
//! only place a write becomes true, so it is the only place the fence can be checked. Every
//! debit lands in the ledger with its verdict; a rejection is a result, not an error.

use crate::sim::planted::{self, Bug};
use serde::Serialize;
use std::collections::HashSet;

/// How the storage compares a debit's token with the last one it accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FenceRule {
    /// No check: the storage trusts whoever writes.
    Off,
    /// `token > last`: an equal token is stale.
    #[default]
    Strict,
    /// `token >= last`: lets one holder write twice with the same token.
    NonDecreasing,
    /// No ordering: the write carries its lock's random value, and the storage compares it
    /// with the value of the holder it saw most recently. A new value takes over; a value that
    /// was already replaced is refused. Needs a resource that can compare-and-set.
    CasValue,
}

/// Why a debit changed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    StaleFence,
    MissingToken,
    /// Compare-and-set: the value belongs to a holder that was already replaced.
    StaleValue,
    /// etcd's guard: the writer's lock key no longer exists with its create revision.
    CompareFailed,
    /// PostgreSQL: the write went on the lock holder's session, and that session is gone
    /// (the server ended it), so nothing committed.
    SessionGone,
    /// A database lease's ledger: a line with the write's generation exists already, and
    /// `UNIQUE(account, generation)` refused the second (PostgreSQL's `unique_violation`).
    UniqueViolation,
    /// A database lease's write checks the live lease in its own statement, and found no row
    /// with the writer as holder, its generation and an expiry after `now()`.
    LeaseLost,
}

impl Rejection {
    pub fn code(self) -> &'static str {
        match self {
            Rejection::StaleFence => "stale_fence",
            Rejection::MissingToken => "missing_token",
            Rejection::StaleValue => "stale_value",
            Rejection::CompareFailed => "compare_failed",
            Rejection::SessionGone => "session_gone",
            Rejection::UniqueViolation => "unique_violation",
            Rejection::LeaseLost => "lease_lost",
        }
    }
}

/// The storage's answer to one debit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all_fields = "camelCase")]
pub enum DebitVerdict {
    #[serde(rename = "accepted")]
    Accepted { balance: i64 },
    #[serde(rename = "rejected")]
    Rejected {
        reason: Rejection,
        last_fence: Option<u64>,
        token: Option<u64>,
    },
    /// The idempotency key was seen before: the intent already ran.
    #[serde(rename = "duplicate")]
    Duplicate { balance: i64 },
}

impl DebitVerdict {
    pub fn is_accepted(&self) -> bool {
        matches!(self, DebitVerdict::Accepted { .. })
    }
}

/// One ledger line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    pub amount: i64,
    pub token: Option<u64>,
    pub idempotency_key: Option<String>,
    pub verdict: DebitVerdict,
}

#[derive(Clone, Debug)]
pub struct Account {
    balance: i64,
    last_fence: Option<u64>,
    rule: FenceRule,
    idempotency: bool,
    seen_keys: HashSet<String>,
    /// Compare-and-set: every lock value seen so far; the current one is `last_fence`.
    seen_values: HashSet<u64>,
    ledger: Vec<LedgerEntry>,
}

impl Account {
    pub fn new(balance: i64, rule: FenceRule, idempotency: bool) -> Account {
        Account {
            balance,
            last_fence: None,
            rule,
            idempotency,
            seen_keys: HashSet::new(),
            seen_values: HashSet::new(),
            ledger: Vec::new(),
        }
    }

    pub fn balance(&self) -> i64 {
        self.balance
    }

    /// The highest token accepted so far (`None` before the first fenced write).
    pub fn last_fence(&self) -> Option<u64> {
        self.last_fence
    }

    pub fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }

    fn fence_ok(&self, token: u64) -> bool {
        // The lab's mutation test plants a bug here (`>` read as `>=`, `sim::planted`) and
        // requires its runs against real servers to catch it. Never on in a build anyone uses.
        match (self.rule, self.last_fence) {
            (FenceRule::Off, _) | (_, None) => true,
            (FenceRule::Strict, Some(last)) => {
                token > last || planted::is(Bug::EqualFence) && token == last
            }
            (FenceRule::NonDecreasing, Some(last)) => token >= last,
            (FenceRule::CasValue, Some(last)) => {
                token == last || !self.seen_values.contains(&token)
            }
        }
    }

    /// Applies one debit atomically: idempotency first (a retry of an intent that already ran
    /// is a success that changes nothing), then the fence, then the balance.
    pub fn debit(&mut self, amount: i64, token: Option<u64>, key: Option<&str>) -> DebitVerdict {
        let verdict = self.decide(amount, token, key);
        self.ledger.push(LedgerEntry {
            amount,
            token,
            idempotency_key: key.map(str::to_string),
            verdict: verdict.clone(),
        });
        verdict
    }

    fn decide(&mut self, amount: i64, token: Option<u64>, key: Option<&str>) -> DebitVerdict {
        if let Some(k) = key.filter(|_| self.idempotency) {
            if self.seen_keys.contains(k) {
                return DebitVerdict::Duplicate {
                    balance: self.balance,
                };
            }
        }
        if self.rule != FenceRule::Off {
            match token {
                None => {
                    return DebitVerdict::Rejected {
                        reason: Rejection::MissingToken,
                        last_fence: self.last_fence,
                        token,
                    }
                }
                Some(t) if !self.fence_ok(t) => {
                    return DebitVerdict::Rejected {
                        reason: if self.rule == FenceRule::CasValue {
                            Rejection::StaleValue
                        } else {
                            Rejection::StaleFence
                        },
                        last_fence: self.last_fence,
                        token,
                    }
                }
                Some(t) if self.rule == FenceRule::CasValue => {
                    self.seen_values.insert(t);
                    self.last_fence = Some(t);
                }
                Some(t) => self.last_fence = Some(self.last_fence.map_or(t, |l| l.max(t))),
            }
        }
        if let Some(k) = key.filter(|_| self.idempotency) {
            self.seen_keys.insert(k.to_string());
        }
        self.balance = self.balance.saturating_sub(amount);
        DebitVerdict::Accepted {
            balance: self.balance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(last: u64, token: u64) -> DebitVerdict {
        DebitVerdict::Rejected {
            reason: Rejection::StaleFence,
            last_fence: Some(last),
            token: Some(token),
        }
    }

    #[test]
    fn rules_side_by_side() {
        // (rule, second token after 34, accepted?)
        let cases = [
            (FenceRule::Off, 33, true),
            (FenceRule::Strict, 33, false),
            (FenceRule::Strict, 34, false),
            (FenceRule::Strict, 35, true),
            (FenceRule::NonDecreasing, 33, false),
            (FenceRule::NonDecreasing, 34, true),
        ];
        for (rule, token, ok) in cases {
            let mut a = Account::new(100, rule, true);
            assert!(a.debit(10, Some(34), None).is_accepted());
            let v = a.debit(10, Some(token), None);
            assert_eq!(v.is_accepted(), ok, "{rule:?} token {token}");
            if !ok {
                assert_eq!(v, rejected(34, token));
            }
        }
    }

    #[test]
    fn compare_and_set_refuses_a_replaced_value() {
        let mut a = Account::new(100, FenceRule::CasValue, true);
        assert!(a.debit(10, Some(0xbeef), None).is_accepted());
        assert!(a.debit(10, Some(0xbeef), None).is_accepted());
        assert!(a.debit(10, Some(0x1234), None).is_accepted());
        assert_eq!(
            a.debit(10, Some(0xbeef), None),
            DebitVerdict::Rejected {
                reason: Rejection::StaleValue,
                last_fence: Some(0x1234),
                token: Some(0xbeef),
            }
        );
        assert_eq!(a.balance(), 70);
    }

    #[test]
    fn missing_token_has_its_own_reason() {
        let mut a = Account::new(100, FenceRule::Strict, true);
        let v = a.debit(10, None, None);
        assert!(matches!(
            v,
            DebitVerdict::Rejected {
                reason: Rejection::MissingToken,
                ..
            }
        ));
        assert_eq!(a.balance(), 100);
    }

    #[test]
    fn idempotency_key_runs_once_unless_disabled() {
        let mut a = Account::new(100, FenceRule::Off, true);
        a.debit(10, None, Some("pay-1"));
        assert_eq!(
            a.debit(10, None, Some("pay-1")),
            DebitVerdict::Duplicate { balance: 90 }
        );
        let mut b = Account::new(100, FenceRule::Off, false);
        b.debit(10, None, Some("pay-1"));
        b.debit(10, None, Some("pay-1"));
        assert_eq!(b.balance(), 80);
    }

    #[test]
    fn rejected_key_can_run_later() {
        let mut a = Account::new(100, FenceRule::Strict, true);
        a.debit(10, Some(34), Some("x"));
        assert!(!a.debit(10, Some(33), Some("y")).is_accepted());
        assert!(a.debit(10, Some(35), Some("y")).is_accepted());
        assert_eq!(a.ledger().len(), 3);
    }
}
