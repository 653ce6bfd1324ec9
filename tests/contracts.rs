//! The six contracts of the seeds, with their numbers, against the same lease table and account
//! that the engine and the JS classes use. They run natively and in headless Chromium.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::lease::{LeaseTable, LockError};
use fencing_playground::sim::{Account, DebitVerdict, FenceRule, Rejection};

const KEY: &str = "acct:1";

fn stale(last: u64, token: u64) -> DebitVerdict {
    DebitVerdict::Rejected {
        reason: Rejection::StaleFence,
        last_fence: Some(last),
        token: Some(token),
    }
}

#[test]
fn contract_1_while_the_lease_is_live_b_cannot_acquire() {
    let mut lock = LeaseTable::new(30, 33, true);
    let a = lock.acquire(KEY, "A", 0).map(|l| l.fence);
    let b = lock.acquire(KEY, "B", 0);
    assert_eq!(a, Ok(Some(33)));
    assert_eq!(b, Err(LockError::Held { holder: "A".into() }));
}

#[test]
fn contract_2_after_the_ttl_b_acquires_with_a_greater_fence() {
    let mut lock = LeaseTable::new(30, 33, true);
    lock.acquire(KEY, "A", 0).unwrap();
    assert!(!lock.is_held(KEY, "A", 31));
    assert_eq!(lock.acquire(KEY, "B", 31).map(|l| l.fence), Ok(Some(34)));
}

#[test]
fn contract_3_unfenced_storage_accepts_both_and_ends_at_80() {
    let mut unfenced = Account::new(100, FenceRule::Off, true);
    assert!(unfenced.debit(10, Some(34), None).is_accepted());
    assert!(unfenced.debit(10, Some(33), None).is_accepted());
    assert_eq!(unfenced.balance(), 80);
    assert_eq!(unfenced.ledger().last().and_then(|w| w.token), Some(33));
}

#[test]
fn contract_4_fenced_storage_rejects_the_stale_debit_and_stays_at_90() {
    let mut lock = LeaseTable::new(30, 33, true);
    let a = lock.acquire(KEY, "A", 0).unwrap().fence;
    let b = lock.acquire(KEY, "B", 31).unwrap().fence;
    let mut fenced = Account::new(100, FenceRule::Strict, true);
    assert!(fenced.debit(10, b, None).is_accepted());
    assert_eq!(fenced.debit(10, a, None), stale(34, 33));
    assert_eq!(fenced.balance(), 90);
    assert_eq!(fenced.last_fence(), Some(34));
}

#[test]
fn contract_5_an_equal_token_is_stale() {
    let mut fenced = Account::new(100, FenceRule::Strict, true);
    assert!(fenced.debit(5, Some(40), None).is_accepted());
    assert_eq!(fenced.debit(5, Some(40), None), stale(40, 40));
    // The non-decreasing rule is the one that lets the same token write twice.
    let mut lenient = Account::new(100, FenceRule::NonDecreasing, true);
    assert!(lenient.debit(5, Some(40), None).is_accepted());
    assert!(lenient.debit(5, Some(40), None).is_accepted());
}

#[test]
fn contract_6_is_held_before_the_write_is_theater() {
    let mut lock = LeaseTable::new(30, 33, true);
    let mut fenced = Account::new(100, FenceRule::Strict, true);
    let a = lock.acquire(KEY, "A", 0).unwrap().fence;
    assert!(lock.is_held(KEY, "A", 0));
    // The clock moves on between A's check and A's write.
    let b = lock.acquire(KEY, "B", 31).unwrap().fence;
    assert!(fenced.debit(10, b, None).is_accepted());
    assert_eq!(fenced.debit(10, a, None), stale(34, 33));
    assert_eq!(fenced.balance(), 90);
}
