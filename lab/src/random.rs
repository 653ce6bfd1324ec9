//! Random differential runs: scenarios the lab has never seen, each replayed against the real
//! servers and compared with the model. A case starts from a preset the lab reproduces, takes a
//! fence rule drawn at random, and gets one to three faults drawn from the failure search's own
//! grid for that scenario (pauses, debit delays, client crashes, clock jumps; for Redlock also
//! instance crashes with or without persistence and partitions; for ZooKeeper a client cut off
//! from the ensemble), its Redlock settings drawn
//! too, and sometimes one more client event; a draw the lab cannot reproduce is drawn again. Case `n` (numbered from 1) of seed `s` is the same scenario
//! whatever the count, so a reported case replays alone (`--case n`).
//!
//! A case the servers disagree on is shrunk with the search's shrinker (each candidate is
//! replayed against the servers too) and saved under `lab/corpus/`, which every lab run replays.

use crate::check::unreproducible;
use crate::jobs::Service;
use crate::tables::nothing_to_compare;
use fencing_playground::sim::presets::presets;
use fencing_playground::sim::scenario::{
    AdvisoryLevel, Event, LeaseExpiry, LeaseGuard, LockService, Redlock, ReleaseKind,
};
use fencing_playground::sim::search::fault::scenario_of;
use fencing_playground::sim::search::grid;
use fencing_playground::sim::search::spec::Persistence;
use fencing_playground::sim::search::{FaultKind, Schedule, SearchSpec};
use fencing_playground::sim::{self, FenceRule, Scenario};

/// SplitMix64: a small generator whose every draw comes from the case's seed.
pub struct Draws(u64);

impl Draws {
    pub fn new(seed: u64) -> Draws {
        Draws(seed)
    }

    pub fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A draw in `0..n` (`n` ≥ 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.draw() % n.max(1)
    }
}

/// One generated scenario and where it came from.
pub struct Case {
    /// `random-S-N`.
    pub name: String,
    pub base_id: &'static str,
    pub base: Scenario,
    pub spec: SearchSpec,
    pub schedule: Schedule,
    pub scenario: Scenario,
}

/// The presets a case may start from: those the lab reproduces and that compare something.
pub fn bases() -> Vec<(&'static str, Scenario)> {
    presets()
        .into_iter()
        .filter(|p| unreproducible(&p.scenario).is_none())
        .filter(|p| nothing_to_compare(&p.scenario).is_none())
        .map(|p| (p.id, p.scenario))
        .collect()
}

/// The faults a case may hold: every kind the search knows for that service. A drawn case the
/// lab cannot reproduce (`check::unreproducible`: today, one whose clock moves) is drawn
/// again, so the batch holds exactly what the lab can run.
pub fn spec_for(s: &Scenario, seed: u64) -> SearchSpec {
    let mut faults = vec![
        FaultKind::Pause,
        FaultKind::Delay,
        FaultKind::ClientCrash,
        FaultKind::ClientClockJump,
        FaultKind::LockClockJump,
    ];
    match &s.lock.service {
        LockService::Redis | LockService::Etcd(_) => {}
        LockService::Redlock(_) => faults.extend([FaultKind::InstanceCrash, FaultKind::Partition]),
        LockService::Advisory(_) | LockService::Lease(_) => faults.push(FaultKind::Failover),
        // A client cut off from the ensemble: the lab's tap holds its traffic (`zk_run`).
        LockService::Zookeeper(_) => faults.push(FaultKind::Partition),
    }
    SearchSpec {
        faults,
        persistence: Persistence::Both,
        max_faults: 3,
        seed,
        ..SearchSpec::default()
    }
}

const RULES: [FenceRule; 4] = [
    FenceRule::Off,
    FenceRule::Strict,
    FenceRule::NonDecreasing,
    FenceRule::CasValue,
];

/// Redlock's own settings, drawn: one request at a time or all at once, a network time for
/// some instances, the per-instance timeout, retries, and the non-standard fence.
fn vary_redlock(r: &mut Redlock, d: &mut Draws) {
    r.parallel = d.below(2) == 0;
    for i in &mut r.instances {
        i.latency_ms = if d.below(3) == 0 { 1 + d.below(4) } else { 0 };
    }
    if d.below(2) == 0 {
        r.timeout_ms = 2 + d.below(8);
    }
    r.retries = d.below(3) as u32;
    if d.below(4) == 0 {
        r.fence = !r.fence;
    }
}

/// An advisory lock's own settings, drawn: session or transaction level, an
/// `idle_session_timeout` and an `idle_in_transaction_session_timeout` or none, and whether the
/// debit is an `UPDATE` on the lock's own session.
fn vary_advisory(s: &mut Scenario, d: &mut Draws) {
    let Some(a) = s.lock.advisory_mut() else {
        return;
    };
    if d.below(3) == 0 {
        a.level = if d.below(2) == 0 {
            AdvisoryLevel::Session
        } else {
            AdvisoryLevel::Transaction
        };
    }
    let timeout = |d: &mut Draws| (d.below(3) == 0).then(|| 5 + d.below(40));
    if d.below(2) == 0 {
        a.idle_session_timeout_ms = timeout(d);
        a.idle_in_transaction_timeout_ms = timeout(d);
    }
    if d.below(3) == 0 {
        s.storage.in_transaction = !s.storage.in_transaction;
    }
}

/// One more event for a client, drawn: a debit, a check-then-write, an acquire, a renewal or
/// a release, at a random instant of the timeline. Says what it added.
fn add_event(s: &mut Scenario, d: &mut Draws) -> String {
    let Some(c) = (!s.clients.is_empty()).then(|| d.below(s.clients.len() as u64) as usize) else {
        return String::new();
    };
    let at_ms = d.below(s.end_ms.max(1));
    let (e, what) = match d.below(5) {
        0 => (Event::Acquire { at_ms }, "an acquire"),
        1 => (Event::Renew { at_ms }, "a renewal"),
        2 => (
            Event::Release {
                at_ms,
                mode: ReleaseKind::TokenChecked,
            },
            "a release",
        ),
        3 => (
            Event::CheckThenWrite {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
                gap_ms: 1 + d.below(10),
            },
            "a check-then-write",
        ),
        _ => (
            Event::Debit {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
            },
            "a debit",
        ),
    };
    let client = &mut s.clients[c];
    client.events.push(e);
    client.events.sort_by_key(Event::at_ms);
    format!(", and {what} for {} at {at_ms} ms", client.name)
}

/// A scenario the format accepts: the text a user could paste, read back.
fn valid(s: &Scenario) -> Option<Scenario> {
    Scenario::from_json(&s.to_json()).ok()
}

/// A database lease's own settings, drawn: whose clock judges expiry, where the write checks
/// the generation besides the account row, and whether the storage keeps idempotency keys.
fn vary_lease(s: &mut Scenario, d: &mut Draws) {
    let Some(l) = s.lock.lease_mut() else {
        return;
    };
    if d.below(3) == 0 {
        l.expiry = if d.below(2) == 0 {
            LeaseExpiry::Database
        } else {
            LeaseExpiry::Waiter
        };
    }
    if d.below(3) == 0 {
        s.storage.lease_guard = match d.below(3) {
            0 => LeaseGuard::None,
            1 => LeaseGuard::UniqueLedger,
            _ => LeaseGuard::LiveLease,
        };
    }
    if d.below(4) == 0 {
        s.storage.idempotency = !s.storage.idempotency;
    }
}

/// A database-lease case whose model decides on a tie (`lease::check`'s and the single
/// lock's): no run could order it, so like a case the lab cannot reproduce it is drawn again.
/// Only leases: the other services' draws stay as they were (their seeds name mutants).
fn lease_tie(s: &Scenario) -> Option<String> {
    s.lock.lease()?;
    let t = sim::run(s);
    crate::history::model_tie(s, &t).or_else(|| crate::lease::check::tie(s, &t))
}

/// Case `n` of seed `seed`, or `None` when a hundred draws gave nothing valid (never seen).
pub fn case(seed: u64, n: u64) -> Option<Case> {
    case_of(seed, n, None)
}

/// Case `n` of seed `seed` drawn from the presets of one lock service (`random --service`), or
/// of every service when `service` is `None` (the same cases as `case`). A batch of one
/// service names its cases `random-<service>-S-N`.
pub fn case_of(seed: u64, n: u64, service: Option<Service>) -> Option<Case> {
    let all: Vec<(&'static str, Scenario)> = bases()
        .into_iter()
        .filter(|(_, s)| service.is_none_or(|x| crate::jobs::service(s) == x))
        .collect();
    let prefix = service.map_or("random".to_string(), |x| format!("random-{}", x.name()));
    let flag = service.map_or(String::new(), |x| format!(" --service {}", x.name()));
    let mut d = Draws::new(seed ^ n.wrapping_mul(0xd6e8_feb8_6659_fd93));
    for _ in 0..100 {
        let (base_id, preset) = all.get(d.below(all.len() as u64) as usize)?;
        let mut base = preset.clone();
        base.storage.fence_rule = RULES[d.below(RULES.len() as u64) as usize];
        if let Some(r) = base.lock.redlock_mut() {
            vary_redlock(r, &mut d);
        }
        vary_advisory(&mut base, &mut d);
        vary_lease(&mut base, &mut d);
        let added = if d.below(2) == 0 {
            add_event(&mut base, &mut d)
        } else {
            String::new()
        };
        base.name = format!("{prefix}-{seed}-{}", n + 1);
        base.caption = format!(
            "Generated by `fencing-lab random{flag} --seed {seed} --case {}` from the preset \
             {base_id}, with the fence rule {:?}{}{}{added}.",
            n + 1,
            base.storage.fence_rule,
            base.lock.redlock().map_or(String::new(), |r| format!(
                ", {} requests, latencies {:?} ms, timeout {} ms, {} retries, fence {}",
                if r.parallel { "parallel" } else { "sequential" },
                r.instances.iter().map(|i| i.latency_ms).collect::<Vec<_>>(),
                r.timeout_ms,
                r.retries,
                if r.fence { "on" } else { "off" }
            )) + &base.lock.advisory().map_or(String::new(), |a| format!(
                ", advisory lock at {} level, idle_session_timeout {:?} ms, \
                     idle_in_transaction_session_timeout {:?} ms, debit on the lock's session {}",
                a.level.label(),
                a.idle_session_timeout_ms,
                a.idle_in_transaction_timeout_ms,
                base.storage.in_transaction
            )),
            base.lock.lease().map_or(String::new(), |l| format!(
                ", lease expiry judged by the {}, guard {:?}, idempotency keys {}",
                l.expiry.label(),
                base.storage.lease_guard,
                base.storage.idempotency
            ))
        );
        let Some(base) = valid(&base) else {
            continue;
        };
        let spec = spec_for(&base, seed);
        let trace = sim::run(&base);
        let (options, _) = grid::options(&base, &spec, &grid::instants(&base, &trace));
        if options.is_empty() {
            continue;
        }
        let k = 1 + d.below(u64::from(spec.max_faults)) as usize;
        let mut faults = Vec::new();
        for _ in 0..k {
            let f = &options[d.below(options.len() as u64) as usize];
            if !faults.contains(f) {
                faults.push(f.clone());
            }
        }
        let schedule = Schedule {
            faults,
            dropped: Vec::new(),
        };
        let Some(scenario) = valid(&scenario_of(&base, &schedule)) else {
            continue;
        };
        // A fault that changes nothing (a delay the debit already had) makes no new case.
        if scenario == base
            || unreproducible(&scenario).is_some()
            || nothing_to_compare(&scenario).is_some()
            || lease_tie(&scenario).is_some()
        {
            continue;
        }
        return Some(Case {
            name: format!("{prefix}-{seed}-{}", n + 1),
            base_id,
            base,
            spec,
            schedule,
            scenario,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_the_same_whatever_else_is_drawn() {
        let a = case(7, 3).expect("a case");
        let b = case(7, 3).expect("a case");
        assert_eq!(a.scenario, b.scenario);
        assert_eq!(a.name, "random-7-4");
        let others: Vec<Scenario> = (0..6)
            .filter_map(|n| case(7, n))
            .map(|c| c.scenario)
            .collect();
        assert!(
            others.windows(2).any(|w| w[0] != w[1]),
            "six cases of one seed are not all the same scenario"
        );
    }

    #[test]
    fn cases_cover_both_services_every_rule_and_the_lab_faults() {
        let cases: Vec<Case> = (0..60).filter_map(|n| case(1, n)).collect();
        assert_eq!(cases.len(), 60, "every draw gave a case");
        assert!(cases.iter().any(|c| c.scenario.lock.redlock().is_some()));
        assert!(cases.iter().any(|c| c.scenario.lock.redlock().is_none()));
        assert!(cases.iter().any(|c| c.scenario.lock.advisory().is_some()));
        assert!(cases.iter().any(|c| c.scenario.lock.zookeeper().is_some()));
        assert!(cases.iter().any(|c| c.scenario.lock.lease().is_some()));
        for rule in RULES {
            assert!(
                cases.iter().any(|c| c.scenario.storage.fence_rule == rule),
                "{rule:?}"
            );
        }
        for c in &cases {
            assert!(!c.schedule.faults.is_empty() && c.schedule.faults.len() <= 3);
            assert!(unreproducible(&c.scenario).is_none(), "{}", c.name);
            assert_ne!(c.scenario, c.base, "{}: the faults changed nothing", c.name);
        }
    }
}

#[cfg(test)]
mod one_service {
    use super::*;

    /// A batch of one service draws that service's presets only, and varies its settings.
    #[test]
    fn a_lease_batch_holds_leases_with_their_settings_drawn() {
        let cases: Vec<Case> = (0..40)
            .filter_map(|n| case_of(3, n, Some(Service::Lease)))
            .collect();
        assert_eq!(cases.len(), 40);
        assert!(cases.iter().all(|c| c.scenario.lock.lease().is_some()));
        assert!(cases.iter().all(|c| c.name.starts_with("random-lease-3-")));
        assert!(cases.iter().all(|c| lease_tie(&c.scenario).is_none()));
        let waiter =
            |c: &Case| c.scenario.lock.lease().map(|l| l.expiry) == Some(LeaseExpiry::Waiter);
        assert!(cases.iter().any(waiter) && !cases.iter().all(waiter));
        for g in [
            LeaseGuard::None,
            LeaseGuard::UniqueLedger,
            LeaseGuard::LiveLease,
        ] {
            assert!(
                cases.iter().any(|c| c.scenario.storage.lease_guard == g),
                "{g:?}"
            );
        }
    }
}

#[cfg(test)]
mod zk_screen {
    /// Lists the cases of seeds 1 to 5 (the first 40 of each) drawn from a ZooKeeper preset,
    /// to replay them alone (`fencing-lab random --seed S --case N`).
    #[test]
    #[ignore]
    fn zookeeper_cases() {
        for seed in 1..=5u64 {
            for n in 0..40 {
                if let Some(c) = super::case(seed, n) {
                    if c.scenario.lock.zookeeper().is_some() {
                        println!("seed {seed} case {} from {}", n + 1, c.base_id);
                    }
                }
            }
        }
    }
}
