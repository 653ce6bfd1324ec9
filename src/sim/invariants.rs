//! What every trace the engine writes must satisfy, written down once and checked by one
//! function, so the property tests hold every generated run to the same list (and a reader of
//! the trace format knows what it may rely on):
//!
//! 1. **Spans run forwards.** Every lease, belief, pause, outage, majority and Redlock round
//!    starts no later than it ends; a message arrives no earlier than it was sent; a belief's
//!    validity ends between its start and its end, and its stale stretch lies inside it.
//! 2. **Steps are in time order**, and every index in the trace (client, instance, write,
//!    attempt) points at something that exists.
//! 3. **A lease ends by its TTL unless renewed.** Measured by its instance's clock from the
//!    grant (or the last renewal), a lease that `expired` ends exactly when that clock reaches
//!    its expiry, one still `open` never reached it, and one released, deleted or forgotten
//!    ended no later.
//! 4. **A Redlock round's arithmetic holds.** validity = TTL − elapsed − drift margin, `ok`
//!    exactly when no failure is given, and the elapsed time is ≥ 0 (so the validity at most
//!    TTL − drift margin) unless the round carries a timing hazard saying why not.
//! 5. **The balance line and the ledger agree.** The first point is the opening balance at
//!    0 ms; each accepted debit adds one point at its arrival with its balance, which is the
//!    previous one less the amount; the final balance is the last point; a write without a
//!    verdict exists only when the run stopped at its step limit.
//! 6. **Fences only go up.** A single lock's grants carry strictly increasing fences, and so do
//!    the grants of each Redlock instance between two of its restarts without persistence (the
//!    restart loses the counter key, and `INCR` starts again from 1). Across instances there is no such order: the
//!    non-standard Redlock fence (the largest counter of the majority) can repeat or go down
//!    when two majorities share few instances, which is why the seeds reject it.
//! 7. **The verdict follows its violations**: safe exactly when there are none.

use super::clock::Clock;
use super::scenario::{Scenario, MAX_TIME_MS};
use super::trace::*;

/// Every broken invariant of `trace`, the run of `scenario`, as a sentence; empty when sound.
pub fn check(scenario: &Scenario, trace: &Trace) -> Vec<String> {
    let mut broken = Vec::new();
    spans_run_forwards(trace, &mut broken);
    indices_and_order(trace, &mut broken);
    leases_end_by_their_ttl(scenario, trace, &mut broken);
    rounds_add_up(scenario, trace, &mut broken);
    balance_follows_the_ledger(scenario, trace, &mut broken);
    fences_go_up(trace, &mut broken);
    if trace.verdict.safe != trace.verdict.violations.is_empty() {
        broken.push("the verdict's `safe` disagrees with its violations".to_string());
    }
    broken
}

fn spans_run_forwards(trace: &Trace, out: &mut Vec<String>) {
    let mut backwards = |what: &str, k: usize, start: u64, end: u64| {
        if start > end {
            out.push(format!(
                "{what}[{k}] ends at {end} ms before it starts at {start} ms"
            ));
        }
    };
    for (k, l) in trace.leases.iter().enumerate() {
        backwards("leases", k, l.start_ms, l.end_ms);
    }
    for (k, b) in trace.beliefs.iter().enumerate() {
        backwards("beliefs", k, b.start_ms, b.valid_until_ms);
        backwards("beliefs (validity)", k, b.valid_until_ms, b.end_ms);
        if let Some(s) = b.stale_from_ms {
            backwards("beliefs (stale from)", k, b.start_ms, s);
            backwards("beliefs (stale until)", k, s, b.end_ms);
        }
    }
    for (k, p) in trace.pauses.iter().enumerate() {
        backwards("pauses", k, p.start_ms, p.end_ms);
    }
    for (k, m) in trace.messages.iter().enumerate() {
        backwards("messages", k, m.sent_ms, m.arrived_ms);
    }
    for (k, o) in trace.outages.iter().enumerate() {
        backwards("outages", k, o.start_ms, o.end_ms);
    }
    for (k, h) in trace.majorities.iter().enumerate() {
        backwards("majorities", k, h.start_ms, h.end_ms);
    }
    for (k, a) in trace.acquisitions.iter().enumerate() {
        backwards("acquisitions", k, a.start_ms, a.end_ms);
    }
    for (k, w) in trace.writes.iter().enumerate() {
        backwards("writes", k, w.sent_ms, w.arrived_ms);
    }
}

fn indices_and_order(trace: &Trace, out: &mut Vec<String>) {
    let (clients, instances) = (trace.clients.len(), trace.instances.len());
    if let Some(k) = trace.steps.windows(2).position(|w| w[0].at_ms > w[1].at_ms) {
        out.push(format!("steps[{}] goes back in time", k + 1));
    }
    let bad_client = trace
        .steps
        .iter()
        .map(|s| s.client)
        .chain(trace.leases.iter().map(|l| l.holder));
    let bad_client = bad_client
        .chain(trace.beliefs.iter().map(|b| b.client))
        .chain(trace.writes.iter().map(|w| w.client))
        .chain(trace.acquisitions.iter().map(|a| a.client))
        .any(|c| c >= clients);
    if bad_client {
        out.push("a client index points past the clients".to_string());
    }
    let bad_instance = trace
        .leases
        .iter()
        .map(|l| l.instance)
        .chain(trace.outages.iter().map(|o| o.instance))
        .chain(trace.messages.iter().filter_map(|m| m.instance))
        .any(|i| i >= instances);
    if bad_instance {
        out.push("an instance index points past the instances".to_string());
    }
    for s in &trace.steps {
        let dangling = match &s.outcome {
            Outcome::DebitSent { write } | Outcome::Stored { write, .. } => {
                *write >= trace.writes.len()
            }
            Outcome::Redlock { attempt, .. } => *attempt >= trace.acquisitions.len(),
            _ => false,
        };
        if dangling {
            out.push(format!("the step at {} ms points at nothing", s.at_ms));
        }
    }
}

/// Each lock instance's clock, as the run read it.
fn instance_clocks(scenario: &Scenario) -> Vec<Clock> {
    match scenario.lock.redlock() {
        None => vec![Clock::new(&scenario.lock.clock, [])],
        Some(r) => r
            .instances
            .iter()
            .map(|i| Clock::new(&i.clock, i.clock_jumps()))
            .collect(),
    }
}

fn leases_end_by_their_ttl(scenario: &Scenario, trace: &Trace, out: &mut Vec<String>) {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock => {}
        ServiceKind::Etcd => return etcd_leases_outlive_their_ttl(scenario, trace, out),
        ServiceKind::Advisory => return advisory_locks_are_exclusive(trace, out),
        ServiceKind::Zookeeper => return zookeeper_holdings(trace, out),
        ServiceKind::Lease => return lease_rows_are_exclusive(trace, out),
    }
    let clocks = instance_clocks(scenario);
    let ttl = scenario.lock.ttl_ms;
    // How far past a grant the run looks for its expiry: ten TTLs past the last event, or past
    // the grant when that comes later.
    let run_limit = scenario
        .horizon_ms()
        .saturating_add(ttl.saturating_mul(10))
        .min(MAX_TIME_MS.saturating_mul(4));
    for (k, l) in trace.leases.iter().enumerate() {
        let Some(clock) = clocks.get(l.instance) else {
            continue;
        };
        let from = l.renewals_ms.iter().copied().fold(l.start_ms, u64::max);
        let limit = run_limit.max(from.saturating_add(ttl.saturating_mul(10)));
        let expires_at = clock
            .local(from)
            .saturating_add(ttl.min(i64::MAX as u64) as i64);
        let expiry = clock.first_reaching(expires_at, from, limit);
        let sound = match l.end {
            SpanEnd::Expired => expiry == Some(l.end_ms),
            SpanEnd::Open => expiry.is_none() && l.end_ms == limit,
            _ => l.end_ms <= expiry.unwrap_or(limit),
        };
        if !sound || from > l.end_ms {
            let when = expiry.map_or("never".to_string(), |t| format!("at {t} ms"));
            out.push(format!(
                "leases[{k}] ends ({:?}) at {} ms, but its TTL from {from} ms runs out {when}",
                l.end, l.end_ms
            ));
        }
    }
}

/// One lease row names one holder at a time: no two of its spans overlap, and each row
/// version ends where the next begins.
fn lease_rows_are_exclusive(trace: &Trace, out: &mut Vec<String>) {
    let mut spans: Vec<(u64, u64, usize)> = trace
        .leases
        .iter()
        .enumerate()
        .map(|(k, l)| (l.start_ms, l.end_ms, k))
        .collect();
    crate::sim::sort::sort(&mut spans);
    for pair in spans.windows(2) {
        let ((_, end, a), (start, _, b)) = (pair[0], pair[1]);
        if start < end {
            out.push(format!(
                "leases[{a}] and leases[{b}] of one lease row overlap"
            ));
        }
    }
    let rows = trace.lease.iter().flat_map(|l| l.rows.windows(2));
    for (k, pair) in rows.enumerate() {
        if pair[0].end_ms != pair[1].start_ms {
            out.push(format!(
                "the lease row's version {k} does not end where the next begins"
            ));
        }
    }
}

/// An advisory lock has no TTL: the server holds it for one session at a time, so no two of
/// its holdings overlap, and each ends no later than its holder's session.
fn advisory_locks_are_exclusive(trace: &Trace, out: &mut Vec<String>) {
    for (k, l) in trace.leases.iter().enumerate() {
        for (j, o) in trace.leases.iter().enumerate().skip(k + 1) {
            if l.start_ms < o.end_ms && o.start_ms < l.end_ms {
                out.push(format!(
                    "leases[{k}] and leases[{j}] of one advisory lock overlap"
                ));
            }
        }
        let session_end = trace.advisory.as_ref().and_then(|a| {
            a.sessions
                .iter()
                .filter(|s| s.client == l.holder && s.start_ms <= l.start_ms)
                .map(|s| s.end_ms)
                .next_back()
        });
        if session_end.is_some_and(|end| l.end_ms > end) {
            out.push(format!("leases[{k}] outlives its holder's session"));
        }
    }
}

/// ZooKeeper grants the lock to one node at a time; a node ends no later than its session; a
/// session the leader expired ends on a tick boundary, at least a timeout after it was last
/// heard from; and every node's czxid is larger than the one before.
fn zookeeper_holdings(trace: &Trace, out: &mut Vec<String>) {
    let Some(z) = &trace.zookeeper else {
        out.push("a ZooKeeper run without its ensemble's record".to_string());
        return;
    };
    for (k, l) in trace.leases.iter().enumerate() {
        for (j, o) in trace.leases.iter().enumerate().skip(k + 1) {
            if l.start_ms < o.end_ms && o.start_ms < l.end_ms {
                out.push(format!("leases[{k}] and leases[{j}] of one lock overlap"));
            }
        }
    }
    for (k, s) in z.sessions.iter().enumerate() {
        let heard = s.pings_ms.iter().copied().fold(s.start_ms, u64::max);
        let expired = s.end == ZkSessionEnd::Expired;
        let on_tick = s.end_ms % z.tick_time_ms.max(1) == 0;
        if expired && (!on_tick || s.end_ms < heard.saturating_add(z.session_timeout_ms)) {
            out.push(format!(
                "sessions[{k}] expired at {} ms: not a tick past {heard} ms + the timeout",
                s.end_ms
            ));
        }
    }
    for (k, n) in z.nodes.iter().enumerate() {
        if z.sessions
            .get(n.session)
            .is_some_and(|s| n.end_ms > s.end_ms)
        {
            out.push(format!("nodes[{k}] outlives its session"));
        }
        if k > 0 && n.czxid <= z.nodes[k - 1].czxid {
            out.push(format!("nodes[{k}]'s czxid does not rise"));
        }
    }
}

/// etcd's lock keys live as long as their session's lease, which a keepalive or a new leader
/// only ever pushes out: each lease lasts at least a TTL past its last keepalive, and a
/// granted key ends no later than its lease.
fn etcd_leases_outlive_their_ttl(scenario: &Scenario, trace: &Trace, out: &mut Vec<String>) {
    let Some(etcd) = &trace.etcd else {
        out.push("an etcd run without its cluster's record".to_string());
        return;
    };
    let ttl = scenario.lock.ttl_ms;
    for (k, s) in etcd.sessions.iter().enumerate() {
        let from = s.keepalives_ms.iter().copied().fold(s.start_ms, u64::max);
        if s.end_ms < from.saturating_add(ttl) {
            out.push(format!(
                "sessions[{k}] ends at {} ms, sooner than a TTL after {from} ms",
                s.end_ms
            ));
        }
    }
    for (k, l) in trace.leases.iter().enumerate() {
        let outlived = etcd
            .sessions
            .iter()
            .rfind(|s| s.client == l.holder && s.start_ms <= l.start_ms)
            .is_some_and(|s| l.end_ms > s.end_ms);
        if outlived {
            out.push(format!("leases[{k}] outlives its session's lease"));
        }
    }
}

fn rounds_add_up(scenario: &Scenario, trace: &Trace, out: &mut Vec<String>) {
    let ttl = scenario.lock.ttl_ms as i64;
    for (k, a) in trace.acquisitions.iter().enumerate() {
        if a.validity_ms != ttl - a.elapsed_ms - a.drift_ms as i64 {
            out.push(format!(
                "acquisitions[{k}]: validity is not TTL − elapsed − drift"
            ));
        }
        if a.ok != a.reason.is_none() {
            out.push(format!("acquisitions[{k}]: ok disagrees with its failure"));
        }
        if a.elapsed_ms < 0 && a.timing_hazard.is_none() {
            out.push(format!(
                "acquisitions[{k}]: {} ms elapsed, and no hazard says why",
                a.elapsed_ms
            ));
        }
        if a.validity_ms > ttl - a.drift_ms as i64 && a.timing_hazard.is_none() {
            out.push(format!(
                "acquisitions[{k}]: validity {} ms beyond TTL − drift, and no hazard says why",
                a.validity_ms
            ));
        }
    }
}

fn balance_follows_the_ledger(scenario: &Scenario, trace: &Trace, out: &mut Vec<String>) {
    let opening = BalancePoint {
        at_ms: 0,
        balance: scenario.storage.balance,
    };
    if trace.balance.first() != Some(&opening) {
        out.push("the balance line does not open with the opening balance at 0 ms".to_string());
    }
    let accepted = trace.steps.iter().filter_map(|s| match &s.outcome {
        Outcome::Stored {
            write,
            verdict: DebitVerdict::Accepted { balance },
        } => Some((s.at_ms, *write, *balance)),
        _ => None,
    });
    let mut count = 0;
    let mut last = scenario.storage.balance;
    for (k, (at_ms, write, balance)) in accepted.enumerate() {
        count += 1;
        let amount = trace.writes.get(write).map_or(0, |w| w.amount);
        let point = trace.balance.get(k + 1);
        if point != Some(&BalancePoint { at_ms, balance }) || balance != last.saturating_sub(amount)
        {
            out.push(format!(
                "the accepted debit at {at_ms} ms (balance {balance}) has no matching balance point"
            ));
            return;
        }
        last = balance;
    }
    if trace.balance.len() != count + 1 {
        out.push(format!(
            "{} balance points for {count} accepted debits",
            trace.balance.len()
        ));
    }
    if trace.final_balance != last {
        out.push(format!(
            "final balance {} but the last balance point is {last}",
            trace.final_balance
        ));
    }
    if !trace.step_limit_hit && trace.writes.iter().any(|w| w.verdict.is_none()) {
        out.push("a write has no verdict, yet the run was not cut short".to_string());
    }
}

fn fences_go_up(trace: &Trace, out: &mut Vec<String>) {
    for i in 0..trace.instances.len() {
        // A restart without persistence loses the counter key, so the instance's fences start
        // again from 1: they go up between two such restarts, not across one.
        let mut restarts: Vec<u64> = trace
            .outages
            .iter()
            .filter(|o| o.instance == i && o.kind == OutageKind::Crash && !o.persistent)
            .map(|o| o.start_ms)
            .collect();
        // ZooKeeper's sequence suffix starts again at 0 under a recreated lock parent.
        let by_sequence = trace.zookeeper.iter().filter(|z| z.fence == "sequence");
        restarts.extend(by_sequence.flat_map(|z| {
            z.parent
                .iter()
                .filter(|m| m.what == ParentChange::Created)
                .map(|m| m.at_ms)
        }));
        // A lease row's failover to a standby that lost the last takeover mints its
        // generation again.
        restarts.extend(
            trace
                .lease
                .iter()
                .flat_map(|l| l.failovers_ms.iter().copied()),
        );
        // A lease row's takeover that a failover lost was never on the surviving history: the
        // standby's generations go up without it (it may even share the failover's instant).
        let lost =
            |l: &&LeaseSpan| trace.kind() == ServiceKind::Lease && l.end == SpanEnd::Forgotten;
        let fences: Vec<(usize, u64)> = trace
            .leases
            .iter()
            .filter(|l| l.instance == i && !lost(l))
            .filter_map(|l| {
                let epoch = restarts.iter().filter(|&&r| r <= l.start_ms).count();
                l.fence.map(|f| (epoch, f))
            })
            .collect();
        let backwards = fences
            .windows(2)
            .position(|w| w[0].0 == w[1].0 && w[0].1 >= w[1].1);
        let fences: Vec<u64> = fences.into_iter().map(|(_, f)| f).collect();
        if let Some(k) = backwards {
            out.push(format!(
                "{}'s fences do not go up: {} then {}",
                trace.instance_name(i),
                fences[k],
                fences[k + 1]
            ));
        }
    }
}
