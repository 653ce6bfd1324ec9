//! Narration: the run told in plain sentences, generated from the trace, so a reader who does
//! not yet know what a fence is can follow the timeline in words.

use super::trace::*;
use super::words;
use crate::sim::sort;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Whether a lease's expiry is told as the TTL's doing: not for an advisory lock, which has no
/// TTL, nor for ZooKeeper, whose server lines say why a session ended.
fn tells_ttl(trace: &Trace) -> bool {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock | ServiceKind::Etcd => true,
        // A lease row's expiry is told in its grant's own words (whose clock judges it).
        ServiceKind::Advisory | ServiceKind::Zookeeper | ServiceKind::Lease => false,
    }
}

/// The lines of the service's own server, by instant: the PostgreSQL server's, the ensemble's
/// (etcd's members are told from its record below; Redis instances' events with the steps).
fn server_lines(trace: &Trace) -> Vec<(u64, String)> {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock | ServiceKind::Etcd => Vec::new(),
        ServiceKind::Advisory => super::words_advisory::server_lines(trace),
        ServiceKind::Zookeeper => super::words_zk::ensemble_lines(trace),
        ServiceKind::Lease => super::words_lease::server_lines(trace),
    }
}

/// A step told in the service's own words, when it has words of its own for it.
fn service_step(trace: &Trace, step: &Step) -> Option<String> {
    match trace.kind() {
        ServiceKind::Single | ServiceKind::Redlock | ServiceKind::Etcd => None,
        ServiceKind::Advisory => super::words_advisory::narrate(trace, step),
        ServiceKind::Zookeeper => super::words_zk::narrate(trace, step),
        ServiceKind::Lease => super::words_lease::narrate(trace, step),
    }
}

/// A grant told in the words of the service that made it (an advisory lock's and ZooKeeper's
/// are told in `service_step` when their words have a line for them).
fn granted_line(trace: &Trace, step: &Step, fence: Option<u64>, lease_until_ms: u64) -> String {
    let (t, who) = (step.at_ms, trace.client_name(step.client));
    match trace.kind() {
        ServiceKind::Etcd => {
            let regrant = !trace
                .leases
                .iter()
                .any(|l| l.holder == step.client && l.start_ms == t);
            match fence {
                _ if regrant => format!(
                    "At {t} ms {who} called lock again while holding it: etcd's lock service found {who}'s own key on the same session{} and answered at once. Nothing changed on the server.",
                    fence.map_or(String::new(), |r| format!(" (create revision {r}, its fence)"))
                ),
                Some(r) => format!(
                    "At {t} ms {who} got the lock: its key's create revision {r} is its fence. Its session's lease runs until {lease_until_ms} ms, and each keepalive pushes that out."
                ),
                None => format!(
                    "At {t} ms {who} got the lock (its key's revision is not used as a fence). Its session's lease runs until {lease_until_ms} ms, and each keepalive pushes that out."
                ),
            }
        }
        ServiceKind::Single
        | ServiceKind::Redlock
        | ServiceKind::Advisory
        | ServiceKind::Zookeeper
        | ServiceKind::Lease => match fence {
            Some(f) => format!(
                "At {t} ms {who} acquired the lock with fence {f}; the lease runs until {lease_until_ms} ms."
            ),
            None => format!(
                "At {t} ms {who} acquired the lock (no fence: the service answers only OK); the lease runs until {lease_until_ms} ms."
            ),
        },
    }
}

pub fn narrate(trace: &Trace) -> Vec<String> {
    let mut lines: Vec<(u64, usize, String)> = Vec::new();
    let name = |c: usize| trace.client_name(c);
    let redlock = trace.is_redlock();
    let mut lease_of: HashMap<(usize, u64), Vec<(u64, u64)>> = HashMap::new();
    for l in &trace.leases {
        lease_of
            .entry((l.holder, l.generation))
            .or_default()
            .push((l.start_ms, l.end_ms));
    }
    // The first belief of each client and generation: where its lock stops being valid.
    let mut valid_until_of: Vec<((usize, u64), usize)> = trace
        .beliefs
        .iter()
        .enumerate()
        .map(|(k, b)| ((b.client, b.generation), k))
        .collect();
    // By key, then by index: the first of equal keys is the first span.
    sort::sort(&mut valid_until_of);
    let valid_until = |key: (usize, u64)| {
        let k = valid_until_of.partition_point(|(x, _)| *x < key);
        let (x, b) = valid_until_of.get(k)?;
        (*x == key).then(|| trace.beliefs[*b].valid_until_ms)
    };
    let told: Vec<&LeaseSpan> = trace
        .leases
        .iter()
        .filter(|l| l.end == SpanEnd::Expired && l.end_ms <= trace.end_ms && tells_ttl(trace))
        .collect();
    let paused = if redlock {
        Vec::new()
    } else {
        pauses_at(trace, told.iter().map(|l| (l.holder, l.end_ms)))
    };
    for (k, lease) in told.into_iter().enumerate() {
        if redlock {
            // One line per instance would drown the story; tell only the early expiries, the
            // ones that happen while the holder's lock is still valid by its own clock.
            let until = valid_until((lease.holder, lease.generation));
            if let Some(v) = until.filter(|v| lease.end_ms < *v) {
                lines.push((
                    lease.end_ms,
                    0,
                    format!(
                        "At {} ms {} expired {}'s key, {} ms before {}'s lock stops being valid.",
                        lease.end_ms,
                        trace.instance_name(lease.instance),
                        name(lease.holder),
                        v - lease.end_ms,
                        name(lease.holder)
                    ),
                ));
            }
            continue;
        }
        let mut s = format!(
            "At {} ms {}'s lease expired",
            lease.end_ms,
            name(lease.holder)
        );
        if let Some(p) = paused.get(k).copied().flatten() {
            s.push_str(&format!(
                " while {} was paused by {}",
                name(lease.holder),
                p.cause.label()
            ));
        }
        s.push('.');
        lines.push((lease.end_ms, 0, s));
    }
    for m in &trace.instance_marks {
        lines.push((m.at_ms, 0, format!("At {} ms {}.", m.at_ms, m.text)));
    }
    if let Some(e) = &trace.etcd {
        let member = |m: usize| e.members.get(m).map_or("?", String::as_str);
        for pair in e.leaders.windows(2) {
            let (old, new) = (pair[0], pair[1]);
            lines.push((
                old.end_ms,
                0,
                format!(
                    "At {} ms leader {} was lost; no lease expires without a leader.",
                    old.end_ms,
                    member(old.member)
                ),
            ));
            lines.push((
                new.start_ms,
                0,
                format!(
                    "At {} ms {} was elected leader and restarted every live lease at its TTL plus one election timeout ({} ms).",
                    new.start_ms,
                    member(new.member),
                    e.election_timeout_ms
                ),
            ));
        }
    }
    for (at, line) in server_lines(trace) {
        lines.push((at, 0, line));
    }
    for (i, step) in trace.steps.iter().enumerate() {
        let who = name(step.client);
        let t = step.at_ms;
        if let Some(text) = service_step(trace, step) {
            lines.push((t, i + 1, text));
            continue;
        }
        let text = match &step.outcome {
            Outcome::Granted {
                fence,
                lease_until_ms,
            } => Some(granted_line(trace, step, *fence, *lease_until_ms)),
            Outcome::Denied { holder } => Some(format!(
                "At {t} ms {who} tried to acquire, but {holder} holds the lock (lock_held)."
            )),
            Outcome::Renewed {
                by_watchdog: false,
                lease_until_ms,
            } => Some(format!(
                "At {t} ms {who} renewed its lease until {lease_until_ms} ms."
            )),
            Outcome::RenewDenied { by_watchdog, .. } => Some(format!(
                "At {t} ms {}{who} could not renew: {}.",
                if *by_watchdog { "the watchdog of " } else { "" },
                step.text.trim_start_matches("renew denied: ")
            )),
            Outcome::WatchdogStarted => Some(format!(
                "At {t} ms {who} started a watchdog that renews every half TTL."
            )),
            Outcome::Paused { cause, until_ms } => Some(format!(
                "At {t} ms {who} was paused by {} for {} ms.",
                cause.label(),
                until_ms.saturating_sub(t)
            )),
            Outcome::Woke => Some(format!("At {t} ms {who} woke up.")),
            Outcome::CheckPassed => Some(format!(
                "At {t} ms {who} checked isHeld() and got true."
            )),
            Outcome::CheckFailed => Some(format!(
                "At {t} ms {who} checked isHeld(), got false and skipped its write."
            )),
            Outcome::DebitSent { write } => trace.writes.get(*write).map(|w| {
                let fence = words::token_text(trace, w.token);
                let mut s = format!("At {t} ms {who} sent a debit of {} with {fence}", w.amount);
                let live = w
                    .generation
                    .and_then(|g| lease_of.get(&(w.client, g)))
                    .is_some_and(|ends| ends.iter().any(|(s, e)| *s <= t && t < *e));
                if w.believed_held && !live {
                    s.push_str(", still believing it held the lock");
                }
                if w.arrived_ms > w.sent_ms {
                    s.push_str(&format!("; the packet reaches storage at {} ms", w.arrived_ms));
                }
                s.push('.');
                s
            }),
            Outcome::Stored { write, verdict } => trace.writes.get(*write).map(|w| match verdict {
                DebitVerdict::Accepted { balance } => format!(
                    "Storage accepted {who}'s debit of {}: balance {balance}.",
                    w.amount
                ),
                DebitVerdict::Duplicate { .. } => format!(
                    "Storage had already applied key {} and ignored {who}'s repeat.",
                    w.idempotency_key.as_deref().unwrap_or("?")
                ),
                DebitVerdict::Rejected {
                    reason: Rejection::StaleFence,
                    last_fence,
                    token,
                } if token.is_some() && token == last_fence => format!(
                    "Storage rejected {who}'s debit because {} ≤ {} (stale_fence): {}.",
                    token.unwrap_or(0),
                    last_fence.unwrap_or(0),
                    words::STRICT_RULE_WHY
                ),
                DebitVerdict::Rejected {
                    reason: Rejection::StaleFence,
                    last_fence,
                    token,
                } => format!(
                    "Storage rejected {who}'s debit because {} ≤ {} (stale_fence).",
                    token.unwrap_or(0),
                    last_fence.unwrap_or(0)
                ),
                DebitVerdict::Rejected {
                    reason: Rejection::MissingToken,
                    ..
                } => format!("Storage rejected {who}'s debit: it carried no fence (missing_token)."),
                DebitVerdict::Rejected {
                    reason: Rejection::CompareFailed,
                    token,
                    ..
                } => format!(
                    "etcd refused {who}'s debit: its transaction compares CREATE(key) == {}, and that key is gone (compare_failed).",
                    token.unwrap_or(0)
                ),
                DebitVerdict::Rejected {
                    reason: Rejection::SessionGone,
                    ..
                } => format!("Storage rejected {who}'s debit: {}.", words::verdict_text(verdict)),
                DebitVerdict::Rejected {
                    reason: Rejection::StaleValue,
                    ..
                } => format!(
                    "Storage rejected {who}'s debit: its lock value had been replaced by a newer holder's (stale_value)."
                ),
                DebitVerdict::Rejected {
                    reason: Rejection::UniqueViolation | Rejection::LeaseLost,
                    ..
                } => format!("The database refused {who}'s debit: {}.", words::verdict_text(verdict)),
            }),
            Outcome::Released { .. } => Some(format!("At {t} ms {who}: {}.", step.text)),
            Outcome::Crashed => Some(match trace.kind() {
                ServiceKind::Etcd => format!(
                    "At {t} ms {who} crashed without unlocking; its keepalives stop, and only its lease's expiry (by the leader) can delete its key."
                ),
                // An advisory lock's and ZooKeeper's crashes are told in `service_step`
                // when their words have a line for them.
                ServiceKind::Single
                | ServiceKind::Redlock
                | ServiceKind::Advisory
                | ServiceKind::Zookeeper
                | ServiceKind::Lease => format!(
                    "At {t} ms {who} crashed without releasing; only the TTL can end its lease."
                ),
            }),
            Outcome::ClockJumped { by_ms } => Some(format!(
                "At {t} ms {who}'s clock jumped by {by_ms:+} ms."
            )),
            Outcome::Skipped { reason } => Some(format!("At {t} ms {who} did nothing: {reason}.")),
            Outcome::Renewed { .. } => None,
            Outcome::Queued { revision, behind } => Some(format!(
                "At {t} ms {who} asked etcd for the lock: its key got create revision {revision}, and it waits until {behind}'s key (a lower revision) is deleted."
            )),
            Outcome::GrantedExpired { expired_ms } => Some(format!(
                "At {t} ms etcd 3.4 told {who} it holds the lock, although {who}'s lease expired at {expired_ms} ms while it waited and its key is gone, so {who} has no fence: nothing stops the next waiter from getting the lock too (etcd-io/etcd#11456, fixed in 3.5)."
            )),
            Outcome::SessionExpired { by_lock: true } => Some(format!(
                "At {t} ms etcd answered {who}'s lock call with \"session expired\": its lease ran out while it waited (3.5 checks the waiter's own key)."
            )),
            Outcome::SessionExpired { by_lock: false } => Some(format!(
                "At {t} ms {who}'s keepalive was answered \"lease not found\": its lease had expired and its key was deleted, so {who} stops believing it holds the lock."
            )),
            // An advisory run's own steps are told above (`words_advisory::narrate`).
            Outcome::LockWaits { .. }
            | Outcome::SessionGone { .. }
            | Outcome::NodeWaits { .. }
            | Outcome::ConnectionLoss
            | Outcome::ZkNotice { .. }
            | Outcome::WriteHeldBack { .. } => None,
            Outcome::NoLeader => Some(format!(
                "At {t} ms {who}'s request found no leader; it waits for the election."
            )),
            Outcome::Redlock { attempt, ok } => trace.acquisitions.get(*attempt).map(|a| {
                let tries = if a.attempt > 1 {
                    format!(" (try {})", a.attempt)
                } else {
                    String::new()
                };
                match (a.purpose, ok) {
                    (Purpose::Extend, true) if a.event.is_none() => String::new(),
                    (Purpose::Extend, true) => format!(
                        "At {t} ms {who} extended its lock on {} instances; validity {} ms.",
                        a.votes, a.validity_ms
                    ),
                    (_, true) => format!(
                        "At {t} ms {who} held {} of {} instances ({} needed){tries}: validity = {} ms TTL − {} ms elapsed − {} ms drift = {} ms{}.",
                        a.votes,
                        trace.instances.len(),
                        a.needed,
                        a.elapsed_ms + a.drift_ms as i64 + a.validity_ms,
                        a.elapsed_ms,
                        a.drift_ms,
                        a.validity_ms,
                        a.fence.map_or(String::new(), |f| {
                            // A fence that does not go up (an instance restarted without its
                            // counter, or a majority of other instances) is told as such.
                            let earlier = trace
                                .acquisitions
                                .iter()
                                .take(*attempt)
                                .filter(|e| e.ok && e.purpose == Purpose::Acquire)
                                .filter_map(|e| e.fence)
                                .max();
                            match earlier {
                                Some(e) if e >= f => format!(", {}", words::fence_not_up_text(f, e)),
                                _ => format!(", fence {f}"),
                            }
                        })
                    ),
                    (p, false) => format!(
                        "At {t} ms {who}'s {}{tries} failed: {}.",
                        if p == Purpose::Extend { "extension" } else { "acquisition" },
                        words::failure_text(a, trace.instances.len())
                            .unwrap_or_else(|| "no majority".to_string())
                    ),
                }
            }).filter(|s| !s.is_empty()),
        };
        if let Some(text) = text {
            lines.push((t, i + 1, text));
        }
        // A validity computed with a clock that stepped back is told with the reason it is
        // wrong, right after the numbers.
        if let Outcome::Redlock { attempt, .. } = &step.outcome {
            let hazard = trace
                .acquisitions
                .get(*attempt)
                .and_then(words::timing_hazard_text);
            if let Some(h) = hazard {
                lines.push((
                    t,
                    i + 1,
                    format!("At {t} ms {who}'s validity cannot be trusted: {h}."),
                ));
            }
        }
    }
    sort::sort_by_key(&mut lines, |(t, order, _)| (*t, *order));
    let mut out: Vec<String> = lines.into_iter().map(|(_, _, s)| s).collect();
    out.push(match (trace.last_fence, trace.kind()) {
        (Some(f), _) => format!(
            "Final balance {}, last accepted fence {f}.",
            trace.final_balance
        ),
        (None, ServiceKind::Advisory) => format!(
            "Final balance {}. No fence: PostgreSQL's advisory lock hands none out.",
            trace.final_balance
        ),
        (
            None,
            ServiceKind::Single
            | ServiceKind::Redlock
            | ServiceKind::Etcd
            | ServiceKind::Zookeeper
            | ServiceKind::Lease,
        ) => format!("Final balance {}.", trace.final_balance),
    });
    if trace.step_limit_hit {
        out.push("The run stopped at its step limit before every event ran.".to_string());
    }
    out
}

/// For each `(client, t)`, the first pause of the trace (in its order) in which the client was
/// stopped at `t` (`start < t < end`). One sweep over the instants in time order: a pause joins
/// its client's heap when it has started and leaves it once it has ended.
fn pauses_at(
    trace: &Trace,
    queries: impl Iterator<Item = (usize, u64)>,
) -> Vec<Option<&PauseSpan>> {
    let queries: Vec<(usize, u64)> = queries.collect();
    let mut order: Vec<(u64, usize)> = queries.iter().enumerate().map(|(q, c)| (c.1, q)).collect();
    sort::sort(&mut order);
    let mut by_start: Vec<(u64, usize)> = trace
        .pauses
        .iter()
        .enumerate()
        .map(|(p, s)| (s.start_ms, p))
        .collect();
    sort::sort(&mut by_start);
    let mut started = by_start.into_iter().map(|(_, p)| p).peekable();
    let mut open: Vec<BinaryHeap<Reverse<usize>>> = Vec::new();
    let mut out = vec![None; queries.len()];
    for (_, q) in order {
        let (client, t) = queries[q];
        while let Some(p) = started.next_if(|&p| trace.pauses[p].start_ms < t) {
            let c = trace.pauses[p].client;
            if open.len() <= c {
                open.resize_with(c + 1, BinaryHeap::new);
            }
            open[c].push(Reverse(p));
        }
        let Some(heap) = open.get_mut(client) else {
            continue;
        };
        while heap
            .peek()
            .is_some_and(|Reverse(p)| trace.pauses[*p].end_ms <= t)
        {
            heap.pop();
        }
        out[q] = heap.peek().map(|Reverse(p)| &trace.pauses[*p]);
    }
    out
}
