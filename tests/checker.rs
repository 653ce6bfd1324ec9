//! The checker on hand-built traces, as a table. Each row writes down only the parts of a trace
//! a rule reads (accepted writes, belief spans, a release, the balance) and the violations the
//! checker must report; the broken variant sits next to the one that must pass. Because the
//! traces are built by hand, these rows pin the checker alone, whatever the engine does.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use fencing_playground::sim::checker::check;
use fencing_playground::sim::trace::*;
use fencing_playground::sim::{
    DebitVerdict, FenceRule, Rejection, ReleaseKind, Tier, ViolationKind,
};

/// A trace with two clients, one lock, a balance of 100 and nothing else.
fn blank() -> Trace {
    Trace {
        clients: vec!["A".into(), "B".into()],
        tier: Tier::Correctness,
        fence_rule: FenceRule::Strict,
        service: ServiceKind::Single,
        instances: vec!["lock".into()],
        majority: 1,
        majorities: Vec::new(),
        end_ms: 100,
        steps: Vec::new(),
        leases: Vec::new(),
        beliefs: Vec::new(),
        pauses: Vec::new(),
        messages: Vec::new(),
        acquisitions: Vec::new(),
        outages: Vec::new(),
        instance_marks: Vec::new(),
        writes: Vec::new(),
        balance: vec![BalancePoint {
            at_ms: 0,
            balance: 100,
        }],
        final_balance: 100,
        last_fence: None,
        step_limit_hit: false,
        verdict: Verdict::default(),
        narration: Vec::new(),
        etcd: None,
        advisory: None,
        zookeeper: None,
        lease: None,
    }
}

/// An accepted debit of 10 by `client`, sent at `sent_ms` and stored one millisecond later,
/// from lock generation `generation` with the fence 32 + generation.
fn accepted(client: usize, sent_ms: u64, generation: Option<u64>) -> WriteRecord {
    WriteRecord {
        client,
        event: None,
        sent_ms,
        arrived_ms: sent_ms + 1,
        amount: 10,
        token: generation.map(|g| 32 + g),
        idempotency_key: None,
        generation,
        believed_held: true,
        verdict: Some(DebitVerdict::Accepted { balance: 0 }),
    }
}

fn belief(client: usize, generation: u64, start_ms: u64, valid_until_ms: u64) -> BeliefSpan {
    BeliefSpan {
        client,
        fence: Some(32 + generation),
        generation,
        start_ms,
        end_ms: valid_until_ms,
        end: SpanEnd::Expired,
        valid_until_ms,
        stale_from_ms: None,
    }
}

/// Sets the balance a serial run gives: 100 less 10 per accepted write.
fn settle(mut t: Trace) -> Trace {
    let n = t
        .writes
        .iter()
        .filter(|w| w.verdict.as_ref().is_some_and(DebitVerdict::is_accepted))
        .count() as i64;
    t.final_balance = 100 - 10 * n;
    t
}

#[track_caller]
fn check_row(label: &str, trace: Trace, want: &[ViolationKind], notes: usize) {
    let v = check(&trace);
    let got: Vec<ViolationKind> = v.violations.iter().map(|x| x.kind.clone()).collect();
    assert_eq!(got, want, "{label}: {:#?}", v.violations);
    assert_eq!(v.safe, want.is_empty(), "{label}");
    assert_eq!(v.notes.len(), notes, "{label}: {:?}", v.notes);
    for x in &v.violations {
        assert!(!x.text.is_empty(), "{label}: a violation without words");
    }
}

#[test]
fn stale_writes() {
    let mut in_order = blank();
    in_order.writes = vec![accepted(0, 5, Some(1)), accepted(1, 40, Some(2))];
    check_row("newer generation last: safe", settle(in_order), &[], 0);

    let mut backwards = blank();
    backwards.writes = vec![accepted(1, 5, Some(2)), accepted(0, 40, Some(1))];
    check_row(
        "older generation after a newer one",
        settle(backwards),
        &[ViolationKind::StaleWriteAccepted],
        0,
    );

    let mut never_held = blank();
    never_held.writes = vec![accepted(0, 5, None)];
    check_row(
        "a write from a client that never held the lock",
        settle(never_held),
        &[ViolationKind::StaleWriteAccepted],
        0,
    );

    let mut rejected = blank();
    let mut late = accepted(0, 40, Some(1));
    late.verdict = Some(DebitVerdict::Rejected {
        reason: fencing_playground::sim::Rejection::StaleFence,
        last_fence: Some(34),
        token: Some(33),
    });
    rejected.writes = vec![accepted(1, 5, Some(2)), late];
    check_row("the older write rejected: safe", settle(rejected), &[], 0);
}

#[test]
fn overlapping_writers() {
    let mut both = blank();
    both.beliefs = vec![belief(0, 1, 0, 60), belief(1, 2, 31, 61)];
    both.writes = vec![accepted(1, 32, Some(2)), accepted(0, 45, Some(1))];
    check_row(
        "A and B write inside the stretch both believed",
        settle(both),
        &[
            ViolationKind::TwoHolders,
            ViolationKind::StaleWriteAccepted,
            ViolationKind::OverlappingWriters,
        ],
        0,
    );

    let mut apart = blank();
    apart.beliefs = vec![belief(0, 1, 0, 30), belief(1, 2, 31, 61)];
    apart.writes = vec![accepted(0, 5, Some(1)), accepted(1, 40, Some(2))];
    check_row("beliefs that do not overlap: safe", settle(apart), &[], 0);

    let mut outside = blank();
    outside.beliefs = vec![belief(0, 1, 0, 40), belief(1, 2, 31, 61)];
    outside.writes = vec![accepted(0, 5, Some(1)), accepted(1, 45, Some(2))];
    check_row(
        "beliefs overlap but A wrote before B's began",
        settle(outside),
        &[ViolationKind::TwoHolders],
        0,
    );
}

#[test]
fn two_holders() {
    let mut overlap = blank();
    overlap.beliefs = vec![belief(0, 1, 0, 40), belief(1, 2, 31, 61)];
    check_row(
        "valid windows overlap by 9 ms",
        overlap,
        &[ViolationKind::TwoHolders],
        0,
    );

    let mut touching = blank();
    touching.beliefs = vec![belief(0, 1, 0, 31), belief(1, 2, 31, 61)];
    check_row(
        "one window ends where the next starts: safe",
        touching,
        &[],
        0,
    );

    let mut same_client = blank();
    same_client.beliefs = vec![belief(0, 1, 0, 40), belief(0, 2, 31, 61)];
    check_row("the same client twice: safe", same_client, &[], 0);
}

#[test]
fn balance_mismatch() {
    let mut retried = blank();
    let mut first = accepted(0, 5, Some(1));
    first.idempotency_key = Some("d1".into());
    let mut again = accepted(0, 20, Some(2));
    again.idempotency_key = Some("d1".into());
    retried.writes = vec![first, again];
    let both_ran = settle(retried.clone());
    assert_eq!(both_ran.final_balance, 80);
    check_row(
        "one intent debited twice",
        both_ran,
        &[ViolationKind::BalanceMismatch],
        0,
    );

    retried.final_balance = 90;
    check_row("the serial run's balance: safe", retried, &[], 0);
}

#[test]
fn foreign_deletes() {
    let release = |own: bool, deleted: Option<&str>| Step {
        at_ms: 20,
        client: 1,
        event: None,
        outcome: Outcome::Released {
            mode: ReleaseKind::BareDel,
            deleted: deleted.map(str::to_string),
            own,
        },
        text: String::new(),
    };
    let mut foreign = blank();
    foreign.steps = vec![release(false, Some("A"))];
    check_row(
        "B's bare DEL deletes A's lease",
        foreign,
        &[ViolationKind::LeaseDeletedByNonOwner],
        0,
    );

    let mut own = blank();
    own.steps = vec![release(true, Some("B"))];
    check_row("B deletes its own lease: safe", own, &[], 0);

    let mut nothing = blank();
    nothing.steps = vec![release(false, None)];
    check_row("a DEL with nothing to delete: safe", nothing, &[], 0);
}

#[test]
fn the_efficiency_tier_notes_double_work_instead_of_condemning_it() {
    let mut t = blank();
    t.tier = Tier::Efficiency;
    t.beliefs = vec![belief(0, 1, 0, 60), belief(1, 2, 31, 61)];
    t.writes = vec![accepted(1, 32, Some(2)), accepted(0, 45, Some(1))];
    check_row("double work is noted", settle(t.clone()), &[], 3);

    // A double debit of one intent is still a violation there.
    let mut first = accepted(0, 5, Some(1));
    first.idempotency_key = Some("d1".into());
    let mut again = accepted(0, 20, Some(1));
    again.idempotency_key = Some("d1".into());
    t.beliefs.clear();
    t.writes = vec![first, again];
    check_row(
        "a double debit is not double work",
        settle(t),
        &[ViolationKind::BalanceMismatch],
        0,
    );
}

/// A debit of 10 by `client` from generation `generation`, sent at `sent_ms` and refused.
fn refused(client: usize, sent_ms: u64, generation: u64, reason: Rejection) -> WriteRecord {
    WriteRecord {
        verdict: Some(DebitVerdict::Rejected {
            reason,
            last_fence: Some(33),
            token: Some(32 + generation),
        }),
        ..accepted(client, sent_ms, Some(generation))
    }
}

fn held(client: usize, start_ms: u64, end_ms: u64) -> HoldSpan {
    HoldSpan {
        client,
        start_ms,
        end_ms,
    }
}

#[track_caller]
fn liveness_row(label: &str, trace: Trace, want: &[LivenessKind]) {
    let v = check(&trace);
    let got: Vec<LivenessKind> = v.liveness.iter().map(|o| o.kind.clone()).collect();
    assert_eq!(got, want, "{label}: {:#?}", v.liveness);
    assert!(v.violations.is_empty(), "{label}: liveness is not safety");
    for o in &v.liveness {
        assert!(!o.text.is_empty(), "{label}: an observation without words");
    }
}

#[test]
fn liveness_is_observed_beside_the_verdict() {
    let mut holder = blank();
    holder.majorities = vec![held(0, 0, 30)];
    holder.writes = vec![
        accepted(0, 5, Some(1)),
        refused(0, 10, 1, Rejection::StaleFence),
    ];
    let holder = settle(holder);
    liveness_row(
        "the holder's second write refused",
        holder.clone(),
        &[LivenessKind::HolderRefused],
    );
    let text = &check(&holder).liveness[0].text;
    assert_eq!(
        text,
        "A held the lock when it sent its debit of 10 at 10 ms, yet the storage refused it \
         (rejected stale_fence: 33 ≤ 33 (strict: one write per grant))"
    );

    let mut late = blank();
    late.majorities = vec![held(0, 0, 30)];
    late.writes = vec![
        accepted(1, 32, Some(2)),
        refused(0, 45, 1, Rejection::StaleFence),
    ];
    liveness_row(
        "a write refused after its lease ended: nothing lost",
        settle(late),
        &[],
    );

    let mut none_held = blank();
    none_held.writes = vec![
        refused(0, 5, 1, Rejection::MissingToken),
        refused(1, 40, 2, Rejection::MissingToken),
    ];
    liveness_row(
        "every write refused, none while held",
        none_held,
        &[LivenessKind::EveryDebitRefused],
    );

    let mut all_held = blank();
    all_held.majorities = vec![held(0, 0, 30), held(1, 31, 61)];
    all_held.writes = vec![
        refused(0, 5, 1, Rejection::MissingToken),
        refused(1, 40, 2, Rejection::MissingToken),
    ];
    liveness_row(
        "every write refused, each while its client held the lock",
        all_held,
        &[
            LivenessKind::HolderRefused,
            LivenessKind::HolderRefused,
            LivenessKind::EveryDebitRefused,
        ],
    );

    liveness_row("no write at all: nothing to observe", blank(), &[]);
}
