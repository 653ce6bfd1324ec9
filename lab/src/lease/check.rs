//! Whether a database-lease scenario can run in the lab, the instants its model decides on a
//! tie, and its check: independent clients against the lab's PostgreSQL (`run.rs`), judged by
//! `history.rs`, rerun at twice the scale while the timing is missed (`check::retried`).

use crate::check::{retried, Outcome, Result};
use crate::servers::Postgres;
use fencing_playground::sim::clock::Clock;
use fencing_playground::sim::scenario::{LeaseExpiry, LeaseGuard};
use fencing_playground::sim::trace::Outcome as Step;
use fencing_playground::sim::{Event, Scenario, Trace};
use std::time::Instant;

/// Why the lab does not move PostgreSQL's own clock: see `docs/conformance.md`.
pub const DATABASE_CLOCK: &str = "the database's clock moves (offset, drift or a jump): the \
    lab runs one PostgreSQL for every scenario and does not run it under its clock shim";

/// What the lab's lease path cannot do: a watchdog (its client renews by hand only), an
/// isHeld() check, or the database's clock moved.
pub fn unreproducible(s: &Scenario) -> Option<String> {
    s.lock.lease()?;
    let c = &s.lock.clock;
    if c.offset_ms != 0 || c.drift_ppm != 0 || !c.jumps.is_empty() {
        return Some(DATABASE_CLOCK.to_string());
    }
    if s.lock.watchdog {
        return Some(
            "a watchdog renews the lease: the lab's lease client renews by hand only".into(),
        );
    }
    for c in &s.clients {
        for e in &c.events {
            let what = match e {
                Event::CheckThenWrite { .. } => "isHeld() + debit",
                Event::Watchdog { .. } => "watchdog",
                _ => continue,
            };
            return Some(format!(
                "{}'s {what}: the lab's lease client does acquires, renewals, releases and debits",
                c.name
            ));
        }
    }
    None
}

/// Instants the model decides on a tie, which no run can order: a statement that reaches the
/// database at the very millisecond a lease there runs out by the database's clock (the acquire
/// takes it over at `expires_at <= now()`, the renewal and the live lease need `expires_at >
/// now()`); a waiter's own clock saying its TTL is up at an instant when another client's
/// statement changes the row or a failover happens; a failover at an instant a client's
/// statement runs.
pub fn tie(s: &Scenario, t: &Trace) -> Option<String> {
    let l = t.lease.as_ref()?;
    let row_steps: Vec<(u64, usize)> = t
        .steps
        .iter()
        .filter(|x| {
            matches!(
                x.outcome,
                Step::Granted { .. }
                    | Step::Denied { .. }
                    | Step::LockWaits { .. }
                    | Step::Renewed { .. }
                    | Step::RenewDenied { .. }
                    | Step::Released { .. }
            )
        })
        .map(|x| (x.at_ms, x.client))
        .collect();
    let expiry = s.lock.lease().map_or(LeaseExpiry::Database, |x| x.expiry);
    if expiry == LeaseExpiry::Database {
        let clock = Clock::new(&s.lock.clock, []);
        let limit = t.end_ms.max(s.horizon_ms());
        for row in l.rows.iter().filter(|r| r.holder.is_some()) {
            let Some(ends) = clock.first_reaching(row.expires_at, row.start_ms, limit) else {
                continue;
            };
            // A version replaced before it ran out (a renewal, a release) has no such instant.
            if ends > row.end_ms {
                continue;
            }
            let at_end = |at: u64| at == ends;
            let step = row_steps.iter().find(|x| at_end(x.0)).map(|x| x.1);
            let debit = t
                .writes
                .iter()
                .find(|w| at_end(w.arrived_ms) && s.storage.lease_guard == LeaseGuard::LiveLease)
                .map(|w| w.client);
            if let Some(c) = step.or(debit) {
                return Some(format!(
                    "{}'s statement reaches PostgreSQL at {ends} ms, the instant generation {}'s \
                     lease runs out by the database's clock",
                    t.client_name(c),
                    row.generation
                ));
            }
        }
    }
    for w in l.watches.iter() {
        let other = row_steps
            .iter()
            .find(|x| x.0 == w.end_ms && x.1 != w.client)
            .map(|x| t.client_name(x.1).to_string())
            .or_else(|| {
                l.failovers_ms
                    .contains(&w.end_ms)
                    .then(|| "a failover".into())
            });
        if let Some(who) = other {
            return Some(format!(
                "{}'s own clock says its TTL is up at {} ms, when {who} changes the row",
                t.client_name(w.client),
                w.end_ms
            ));
        }
    }
    // A debit that reads the live lease, reaching the database as another client's statement
    // changes the row, or as its own client's next statement does (it went out on a
    // connection of its own, the statement on the lease's: their order at one instant is
    // chance in a run, while the model's queue picks one).
    if s.storage.lease_guard == LeaseGuard::LiveLease {
        if let Some(why) = live_lease_tie(t) {
            return Some(why);
        }
    }
    let failover_at_step = l
        .failovers_ms
        .iter()
        .find_map(|f| row_steps.iter().find(|x| x.0 == *f).map(|x| (*f, x.1)));
    if let Some((at, c)) = failover_at_step {
        return Some(format!(
            "a failover at {at} ms, the instant {}'s statement runs",
            t.client_name(c)
        ));
    }
    None
}

/// A debit that checks the live lease reaching the database in the millisecond a statement
/// changes or reads the row: another client's, or its own client's sent after it.
fn live_lease_tie(t: &Trace) -> Option<String> {
    let lease_step = |o: &Step| {
        matches!(
            o,
            Step::Granted { .. }
                | Step::Renewed { .. }
                | Step::RenewDenied { .. }
                | Step::Released { .. }
                | Step::Denied { .. }
                | Step::LockWaits { .. }
        )
    };
    for (k, sent) in t.steps.iter().enumerate() {
        let Step::DebitSent { write } = sent.outcome else {
            continue;
        };
        let Some(w) = t.writes.get(write) else {
            continue;
        };
        let meets = t.steps.iter().enumerate().find(|(j, x)| {
            x.at_ms == w.arrived_ms && lease_step(&x.outcome) && (x.client != w.client || *j > k)
        });
        if let Some((_, x)) = meets {
            return Some(format!(
                "{}'s debit reads the live lease at {} ms, in the millisecond {}'s statement \
                 changes or reads the row",
                t.client_name(w.client),
                w.arrived_ms,
                t.client_name(x.client)
            ));
        }
    }
    None
}

/// A database-lease scenario: independent client processes against the lab's PostgreSQL.
pub fn check(
    s: &Scenario,
    t: &Trace,
    pg: &Postgres,
    (scale, tries): (u64, u32),
    deadline: Instant,
    mut result: Result,
) -> Result {
    if s.lock.lease().is_some_and(|l| !l.events.is_empty()) {
        result.note = super::run::FAILOVER_NOTE.to_string();
    }
    // The single lock's ties first (a client's statement on the instant its own pause or crash
    // begins, two clients' statements or two debits in one millisecond), then the lease's own.
    let tie = || {
        crate::history::model_tie(s, t)
            .or_else(|| tie(s, t))
            .map(|w| format!("too close to call at any scale: {w}"))
    };
    if let Some(why) = unreproducible(s).or_else(tie) {
        result.outcome = Outcome::NotReproducible(why);
        return result;
    }
    if Instant::now() >= deadline {
        result.outcome = Outcome::Late("the lab's time budget ran out before this preset".into());
        return result;
    }
    let once = |scale_us: u64| -> std::io::Result<(f64, crate::history::Judgement)> {
        let happened = super::run::replay(s, t, pg, scale_us)?;
        Ok((
            super::history::worst_offset_ms(s, t, &happened),
            super::history::judge(s, t, &happened),
        ))
    };
    retried((scale, tries), deadline, result, once)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::{preset, presets};
    use fencing_playground::sim::run;

    fn with_b_acquiring_at(at_ms: u64) -> Scenario {
        let mut s = preset("lease-paused-holder").expect("preset");
        if let Some(Event::Acquire { at_ms: a }) = s.clients[1].events.first_mut() {
            *a = at_ms;
        }
        s
    }

    /// B's acquire at 30 ms meets A's lease running out at 30 ms by the database's clock: the
    /// model takes the row over (`expires_at <= now()`), a run may not. A millisecond later it
    /// is no tie, and the run is compared (a difference there is a mismatch).
    #[test]
    fn an_acquire_at_the_expiry_is_a_tie_a_millisecond_later_it_is_not() {
        let s = with_b_acquiring_at(30);
        let why = tie(&s, &run(&s)).expect("a tie");
        assert!(
            why.contains("B's statement reaches PostgreSQL at 30 ms"),
            "{why}"
        );
        let s = with_b_acquiring_at(31);
        assert_eq!(tie(&s, &run(&s)), None);
    }

    /// random-lease-1-25: B crashes at 31 ms, the instant of its acquire; the model runs the
    /// acquire first, the lab's kill and the client's statement race. A crash a millisecond
    /// later is no tie (the run is compared).
    #[test]
    fn an_acquire_on_the_instant_of_its_own_crash_is_a_tie_a_millisecond_later_it_is_not() {
        for (crash_ms, tied) in [(31, true), (32, false)] {
            let mut s = preset("lease-live-lease").expect("preset");
            s.clients[1].events.push(Event::Crash { at_ms: crash_ms });
            let t = run(&s);
            assert_eq!(
                crate::history::model_tie(&s, &t).is_some(),
                tied,
                "{crash_ms}"
            );
            assert_eq!(tie(&s, &t), None);
        }
    }

    /// lease-fast-waiter-fenced: B's own clock says its TTL is up at some instant W. A's
    /// renewal at W changes the row in the millisecond B's clock decides, an order no run can
    /// reproduce on purpose; a millisecond before, the row is changed first (A's renewal keeps
    /// the generation B watches) and there is no tie: the run is compared.
    #[test]
    fn a_waiter_s_ttl_ending_as_another_client_changes_the_row_is_a_tie_a_millisecond_before_it_is_not(
    ) {
        let base = preset("lease-fast-waiter-fenced").expect("preset");
        let t = run(&base);
        let w = t
            .lease
            .as_ref()
            .and_then(|l| l.watches.iter().find(|w| w.client == 1))
            .expect("B watches the row")
            .end_ms;
        for (renew_ms, tied) in [(w, true), (w - 1, false)] {
            let mut s = base.clone();
            s.clients[0].events.push(Event::Renew { at_ms: renew_ms });
            let t = run(&s);
            let why = tie(&s, &t);
            assert_eq!(why.is_some(), tied, "A renews at {renew_ms}: {why:?}");
            if let Some(why) = why {
                assert!(
                    why.contains(&format!("its TTL is up at {w} ms, when A changes the row")),
                    "{why}"
                );
            }
        }
    }

    /// lease-failover-strict with a failover at 20 ms, inside A's first lease, and A renewing
    /// at that instant: which of the two PostgreSQL does first is chance in a run, the model's
    /// queue picks one. A renewal a millisecond later is no tie, and the run is compared.
    #[test]
    fn a_failover_at_the_instant_of_a_statement_is_a_tie_a_millisecond_later_it_is_not() {
        for (renew_ms, tied) in [(20, true), (21, false)] {
            let mut s = preset("lease-failover-strict").expect("preset");
            if let Some(l) = s.lock.lease_mut() {
                l.events =
                    vec![fencing_playground::sim::scenario::LeaseEvent::Failover { at_ms: 20 }];
            }
            s.clients[0].events.push(Event::Renew { at_ms: renew_ms });
            let t = run(&s);
            let why = tie(&s, &t);
            assert_eq!(why.is_some(), tied, "A renews at {renew_ms}: {why:?}");
            if let Some(why) = why {
                assert!(
                    why.contains("a failover at 20 ms, the instant A's statement runs"),
                    "{why}"
                );
            }
        }
    }

    /// random-lease-7-196, shrunk: B paused from 0 to 100 ms with its acquire, its debit
    /// (checking the live lease) and its release held back; on waking it sends the debit on
    /// its own connection and the release on the lease's, in one millisecond. The model
    /// releases first (the debit refused), PostgreSQL ran the debit first. With the release a
    /// millisecond later there is no tie, and the run is compared.
    #[test]
    fn a_live_lease_debit_and_its_client_s_next_statement_in_one_millisecond_are_a_tie() {
        for (release_ms, tied) in [(74, true), (101, false)] {
            let mut s = preset("lease-live-lease").expect("preset");
            s.clients[0]
                .events
                .retain(|e| matches!(e, Event::Debit { .. }));
            s.clients[1].events.extend([
                Event::Release {
                    at_ms: release_ms,
                    mode: fencing_playground::sim::scenario::ReleaseKind::TokenChecked,
                },
                Event::Pause {
                    at_ms: 0,
                    duration_ms: 100,
                    cause: fencing_playground::sim::PauseCause::Gc,
                },
            ]);
            s.end_ms = 110;
            let t = run(&s);
            assert_eq!(
                tie(&s, &t).is_some(),
                tied,
                "{release_ms}: {:?}",
                tie(&s, &t)
            );
        }
    }

    #[test]
    fn every_lease_preset_runs_in_the_lab_with_no_tie() {
        for p in presets()
            .into_iter()
            .filter(|p| p.scenario.lock.lease().is_some())
        {
            assert_eq!(unreproducible(&p.scenario), None, "{}", p.id);
            let t = run(&p.scenario);
            assert_eq!(tie(&p.scenario, &t), None, "{}", p.id);
            assert_eq!(crate::history::model_tie(&p.scenario, &t), None, "{}", p.id);
        }
    }

    #[test]
    fn a_moved_database_clock_is_not_run() {
        let mut s = preset("lease-paused-holder").expect("preset");
        s.lock.clock.offset_ms = 5;
        assert_eq!(unreproducible(&s).as_deref(), Some(DATABASE_CLOCK));
    }
}
