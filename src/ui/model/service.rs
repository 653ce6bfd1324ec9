//! Edits of the lock service: a single Redis, Redlock over how many instances, etcd, a
//! PostgreSQL advisory lock or ZooKeeper; sequential or
//! parallel, the fenced variant, each instance's monotonic clock and latency, and adding an
//! instance event from the palette. Each is one validated, undoable `edit` like every other.

use super::fields::whole;
use super::history::edit;
use super::selection::{push, InstanceRef, Selection};
use super::state::{InstanceAction, State};
use crate::sim::account::FenceRule;
use crate::sim::scenario::{
    Advisory, Etcd, EtcdVersion, Event, Instance, Lease, LeaseGuard, LockService, Redlock,
    ReleaseKind, Zookeeper, MAX_TIME_MS,
};
use crate::sim::Scenario;

/// The service sizes the settings offer.
pub const SERVICE_SIZES: [usize; 3] = [3, 5, 7];

/// Applies one service action to `next` (a copy of the current state). Edits that would make
/// the scenario invalid are refused with a notice, like every other edit.
pub fn apply_service(next: &mut State, action: InstanceAction) {
    // The service's settings keep an instance event selected, and only that.
    let keep = next
        .selection
        .instance()
        .map_or(Selection::None, Selection::Instance);
    let mut s = next.scenario.clone();
    match action {
        InstanceAction::Add {
            instance,
            tool,
            at_ms,
        } => {
            next.instance_tool = tool;
            let e = tool.event(at_ms.min(MAX_TIME_MS), s.lock.ttl_ms);
            if let Some(r) = push::<InstanceRef>(&mut s, instance, e) {
                change(next, s, r.into());
            }
        }
        InstanceAction::SetService(n) => change(next, with_service(&s, n), keep),
        InstanceAction::SetEtcd(version) => change(next, with_etcd(&s, version), Selection::None),
        InstanceAction::SetAdvisory => change(next, with_advisory(&s), Selection::None),
        InstanceAction::SetAdvisoryLevel(level) => {
            if let Some(a) = s.lock.advisory_mut() {
                a.level = level;
                change(next, s, keep);
            }
        }
        InstanceAction::SetIdleTimeout {
            in_transaction,
            value,
        } => {
            let label = if in_transaction {
                "idle_in_transaction_session_timeout ms"
            } else {
                "idle_session_timeout ms"
            };
            let typed = if value.trim().is_empty() { "0" } else { &value };
            match whole(label, typed, 0, MAX_TIME_MS as i64) {
                Ok(ms) => {
                    if let Some(a) = s.lock.advisory_mut() {
                        let ms = Some(ms as u64).filter(|&ms| ms > 0);
                        if in_transaction {
                            a.idle_in_transaction_timeout_ms = ms;
                        } else {
                            a.idle_session_timeout_ms = ms;
                        }
                        change(next, s, keep);
                    }
                }
                Err(why) => next.notice = Some(why),
            }
        }
        InstanceAction::SetWriteInSession(on) => {
            if s.lock.advisory().is_some() {
                s.storage.in_transaction = on;
                change(next, s, keep);
            }
        }
        InstanceAction::SetZookeeper => change(next, with_zookeeper(&s), Selection::None),
        InstanceAction::SetLease => change(next, with_lease(&s), Selection::None),
        InstanceAction::SetLeaseExpiry(expiry) => {
            if let Some(l) = s.lock.lease_mut() {
                l.expiry = expiry;
                change(next, s, keep);
            }
        }
        InstanceAction::SetLeaseGuard(guard) => {
            if s.lock.lease().is_some() {
                s.storage.lease_guard = guard;
                change(next, s, keep);
            }
        }
        InstanceAction::SetTickTime(value) => {
            match whole("tickTime ms", &value, 1, MAX_TIME_MS as i64) {
                Ok(ms) => {
                    if let Some(z) = s.lock.zookeeper_mut() {
                        z.tick_time_ms = ms as u64;
                        change(next, s, keep);
                    }
                }
                Err(why) => next.notice = Some(why),
            }
        }
        InstanceAction::SetZkFence(fence) => {
            if let Some(z) = s.lock.zookeeper_mut() {
                z.fence = fence;
                change(next, s, keep);
            }
        }
        InstanceAction::SetOnSuspended(policy) => {
            if let Some(z) = s.lock.zookeeper_mut() {
                z.on_suspended = policy;
                change(next, s, keep);
            }
        }
        InstanceAction::SetParallel(on) => {
            if let Some(r) = s.lock.redlock_mut() {
                r.parallel = on;
                change(next, s, keep);
            }
        }
        InstanceAction::SetFence(on) => {
            if let Some(r) = s.lock.redlock_mut() {
                r.fence = on;
                change(next, s, keep);
            }
        }
        InstanceAction::SetMonotonic { instance, on } => {
            if let Some(i) = instance_mut(&mut s, instance) {
                i.clock.monotonic = on;
                change(next, s, keep);
            }
        }
        InstanceAction::SetLatency { instance, value } => {
            if let Some(i) = instance_mut(&mut s, instance) {
                let label = format!("{} latency ms", i.name);
                match whole(&label, &value, 0, MAX_TIME_MS as i64) {
                    Ok(ms) => {
                        i.latency_ms = ms as u64;
                        change(next, s, keep);
                    }
                    Err(why) => next.notice = Some(why),
                }
            }
        }
    }
}

fn instance_mut(s: &mut Scenario, instance: usize) -> Option<&mut Instance> {
    s.lock.redlock_mut()?.instances.get_mut(instance)
}

/// One validated, undoable edit that leaves `selection` selected if it was accepted (or
/// changed nothing).
fn change(next: &mut State, s: Scenario, selection: Selection) {
    edit(next, s, selection);
    if next.notice.is_none() {
        next.selection = selection;
    }
}

/// The scenario with its lock service switched to a single Redis (`n` = 0) or to Redlock over
/// `n` instances. Instances that remain keep their events; new ones are R1..Rn, 1 ms away.
pub fn with_service(s: &Scenario, n: usize) -> Scenario {
    let mut s = without_advisory(s);
    s.storage.create_guard = false;
    if n == 0 {
        s.lock.service = LockService::Redis;
        return s;
    }
    if s.lock.redlock().is_none() {
        s.lock.service = LockService::Redlock(Redlock::standard(Vec::new()));
    }
    let Some(r) = s.lock.redlock_mut() else {
        return s;
    };
    r.instances.truncate(n);
    while r.instances.len() < n {
        r.instances.push(Instance {
            name: format!("R{}", r.instances.len() + 1),
            clock: Default::default(),
            latency_ms: 1,
            events: Vec::new(),
        });
    }
    s
}

/// The scenario with its lock service switched to an etcd cluster running `version` (three
/// members n1..n3, unless it already is one). What etcd has no word for goes: a session keeps
/// its own lease alive, so watchdogs (the setting and the events) are dropped; an unlock
/// deletes only the caller's key, so a bare `DEL` becomes a token-checked release; and a
/// compare-and-set on a Redis lock value becomes the strict check of the revision.
pub fn with_etcd(s: &Scenario, version: EtcdVersion) -> Scenario {
    let mut s = without_advisory(s);
    s.lock.watchdog = false;
    if s.lock.etcd().is_none() {
        s.lock.service = LockService::Etcd(Etcd::cluster(3));
    }
    if let Some(e) = s.lock.etcd_mut() {
        e.version = version;
        let min_ttl_ms = e.min_ttl_ms();
        s.lock.ttl_ms = s.lock.ttl_ms.max(min_ttl_ms);
    }
    if s.storage.fence_rule == FenceRule::CasValue {
        s.storage.fence_rule = FenceRule::Strict;
    }
    for c in &mut s.clients {
        c.events.retain(|e| !matches!(e, Event::Watchdog { .. }));
        for e in &mut c.events {
            if let Event::Release { mode, .. } = e {
                *mode = ReleaseKind::TokenChecked;
            }
        }
    }
    s
}

/// The scenario with its advisory lock (if any) gone, the lock handing out fences again (an
/// advisory lock mints none, and the page has no switch to turn them back on) and the write
/// back on separate storage; its ZooKeeper ensemble (if any) gone with the ensemble's events;
/// and its lease row (if any) gone with its guard and its failovers.
fn without_advisory(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    match s.lock.service {
        LockService::Advisory(_) => {
            s.storage.in_transaction = false;
            s.lock.fencing = true;
            s.lock.service = LockService::Redis;
        }
        LockService::Zookeeper(_) => s.lock.service = LockService::Redis,
        LockService::Lease(_) => {
            s.storage.lease_guard = LeaseGuard::None;
            s.lock.service = LockService::Redis;
        }
        LockService::Redis | LockService::Redlock(_) | LockService::Etcd(_) => {}
    }
    s
}

/// The scenario with its lock service switched to a PostgreSQL advisory lock (lock 42 at
/// session level, PostgreSQL's defaults, unless it already is one). What an advisory lock has
/// no word for goes: it mints no fence, so the lock stops handing one out and the account stops
/// checking one (the write is apart, as most code that takes such a lock writes it); it has no
/// TTL, so watchdogs and renewals go; and `pg_advisory_unlock` frees only the caller's lock, so
/// a bare `DEL` becomes a token-checked release.
pub fn with_advisory(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    s.storage.lease_guard = LeaseGuard::None;
    s.lock.watchdog = false;
    s.lock.fencing = false;
    s.storage.create_guard = false;
    s.storage.fence_rule = FenceRule::Off;
    if s.lock.advisory().is_none() {
        s.lock.service = LockService::Advisory(Advisory::default());
    }
    for c in &mut s.clients {
        c.events
            .retain(|e| !matches!(e, Event::Watchdog { .. } | Event::Renew { .. }));
        for e in &mut c.events {
            if let Event::Release { mode, .. } = e {
                *mode = ReleaseKind::TokenChecked;
            }
        }
    }
    s
}

/// The scenario with its lock service switched to a ZooKeeper ensemble running the lock recipe
/// (a 5 ms tick, the czxid as the fence, a client that keeps going while SUSPENDED, unless it
/// already is one); `lock.ttlMs` becomes the session timeout asked for. What ZooKeeper has no
/// word for goes: the client's pings keep its session alive, so watchdogs and renewals go; an
/// unlock deletes the client's own node, so a bare `DEL` becomes a token-checked release; and
/// a compare-and-set on a Redis lock value becomes the strict check of the czxid. Coming from
/// an advisory lock, which mints no fence, the lock hands one out again (`without_advisory`).
pub fn with_zookeeper(s: &Scenario) -> Scenario {
    if s.lock.zookeeper().is_some() {
        return s.clone();
    }
    let mut s = without_advisory(s);
    s.lock.watchdog = false;
    s.storage.create_guard = false;
    if s.storage.fence_rule == FenceRule::CasValue {
        s.storage.fence_rule = FenceRule::Strict;
    }
    s.lock.service = LockService::Zookeeper(Zookeeper::default());
    for c in &mut s.clients {
        c.events
            .retain(|e| !matches!(e, Event::Watchdog { .. } | Event::Renew { .. }));
        for e in &mut c.events {
            if let Event::Release { mode, .. } = e {
                *mode = ReleaseKind::TokenChecked;
            }
        }
    }
    s
}

/// The scenario with its lock service switched to a database lease row (the database's clock
/// judging expiry, no guard, unless it already is one). What a lease row has no word for goes:
/// its release is guarded by holder and generation, so a bare `DEL` becomes a token-checked
/// release, and a compare-and-set on a Redis lock value becomes the strict check of the
/// generation; from an advisory lock the generation becomes the fence again.
pub fn with_lease(s: &Scenario) -> Scenario {
    if s.lock.lease().is_some() {
        return s.clone();
    }
    let from_advisory = s.lock.advisory().is_some();
    let mut s = without_advisory(s);
    s.storage.create_guard = false;
    if from_advisory {
        s.lock.fencing = true;
    }
    if s.storage.fence_rule == FenceRule::CasValue {
        s.storage.fence_rule = FenceRule::Strict;
    }
    s.lock.service = LockService::Lease(Lease::default());
    for c in &mut s.clients {
        for e in &mut c.events {
            if let Event::Release { mode, .. } = e {
                *mode = ReleaseKind::TokenChecked;
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::default_scenario;

    /// A scenario on `service` that uses every control the service offers: a first fence of 1,
    /// a watchdog, a renewal, a bare `DEL` and a compare-and-set, where each is offered.
    fn using_all_it_offers(service: &Scenario) -> State {
        use crate::sim::scenario::Control;
        let mut s = service.clone();
        let offers = |c| s.lock.service.offers(c);
        let mut events = vec![Event::Acquire { at_ms: 0 }];
        if offers(Control::Renew) {
            events.push(Event::Renew { at_ms: 5 });
        }
        if offers(Control::Watchdog) {
            s.lock.watchdog = true;
            events.push(Event::Watchdog { at_ms: 6 });
        }
        if offers(Control::BareDel) {
            events.push(Event::Release {
                at_ms: 20,
                mode: ReleaseKind::BareDel,
            });
        }
        if offers(Control::CasValue) {
            s.storage.fence_rule = FenceRule::CasValue;
        }
        if offers(Control::FirstFence) {
            s.lock.first_fence = 1;
        }
        s.clients[0].events.extend(events);
        assert_eq!(s.validate(), Ok(()), "{s:?}");
        let mut st = State::new(s, None, false);
        st.tool = if st.scenario.lock.service.offers(Control::BareDel) {
            crate::ui::model::tools::Tool::BareDel
        } else {
            crate::ui::model::tools::Tool::Acquire
        };
        st
    }

    /// From every service, using all it offers, to every other: the switch is one accepted
    /// edit whose scenario uses nothing the new service refuses, the double-click tool is one
    /// the new service takes, and the lock hands out fences unless it is an advisory lock.
    #[test]
    fn every_switch_drops_what_the_new_service_refuses() {
        use crate::sim::scenario::{Control, Offer};
        use crate::ui::model::apply::apply;
        use crate::ui::model::state::Action;
        let d = default_scenario();
        let from = [
            d.clone(),
            with_service(&d, 3),
            with_etcd(&d, EtcdVersion::V35),
            with_advisory(&d),
            with_zookeeper(&d),
        ];
        let to = [
            InstanceAction::SetService(0),
            InstanceAction::SetService(5),
            InstanceAction::SetEtcd(EtcdVersion::V34),
            InstanceAction::SetAdvisory,
            InstanceAction::SetZookeeper,
        ];
        for s in &from {
            let st = using_all_it_offers(s);
            for a in &to {
                let next = apply(&st, Action::Instance(a.clone()));
                let n = &next.scenario;
                assert_eq!(next.notice, None, "{a:?} from {:?}", s.lock.service);
                assert_eq!(n.validate(), Ok(()), "{a:?}: {n:?}");
                assert!(
                    next.tool.offered(n.lock.service.offered()),
                    "{a:?}: {:?}",
                    next.tool
                );
                let refused = |c| n.lock.service.offer(c) == Offer::Refused;
                let events = n.clients.iter().flat_map(|c| c.events.iter());
                for e in events {
                    let uses = match e {
                        Event::Renew { .. } => Some(Control::Renew),
                        Event::Watchdog { .. } => Some(Control::Watchdog),
                        Event::Release {
                            mode: ReleaseKind::BareDel,
                            ..
                        } => Some(Control::BareDel),
                        _ => None,
                    };
                    assert!(!uses.is_some_and(refused), "{a:?}: {e:?}");
                }
                assert!(!(n.lock.watchdog && refused(Control::Watchdog)), "{a:?}");
                assert!(
                    !(n.storage.fence_rule == FenceRule::CasValue && refused(Control::CasValue)),
                    "{a:?}"
                );
                assert_eq!(
                    n.lock.fencing,
                    n.lock.advisory().is_none(),
                    "{a:?} from {:?}",
                    s.lock.service
                );
            }
        }
    }

    /// Every palette tool on every service: the event it adds validates exactly when the
    /// palette shows its button (`Tool::control` agrees with validation).
    #[test]
    fn a_palette_tool_is_offered_exactly_when_its_event_validates() {
        use crate::ui::model::tools::Tool;
        let d = default_scenario();
        for s in [
            d.clone(),
            with_service(&d, 3),
            with_etcd(&d, EtcdVersion::V35),
            with_advisory(&d),
            with_zookeeper(&d),
        ] {
            for tool in Tool::ALL {
                let mut t = s.clone();
                t.clients[0].events.push(tool.event(50, t.lock.ttl_ms));
                assert_eq!(
                    t.validate().is_ok(),
                    tool.offered(s.lock.service.offered()),
                    "{tool:?} on {:?}: {:?}",
                    s.lock.service,
                    t.validate()
                );
            }
        }
    }

    #[test]
    fn switching_to_zookeeper_drops_what_it_has_no_word_for_and_back_restores_a_lock() {
        let cas = {
            let mut s = default_scenario();
            s.storage.fence_rule = FenceRule::CasValue;
            s
        };
        for s in [
            default_scenario(),
            cas,
            crate::sim::presets::preset("bare-del").expect("preset"),
            crate::sim::presets::preset("watchdog-stalls").expect("preset"),
            with_etcd(&default_scenario(), EtcdVersion::V34),
            with_service(&default_scenario(), 3),
            with_advisory(&default_scenario()),
        ] {
            let z = with_zookeeper(&s);
            assert!(
                z.lock.zookeeper().is_some()
                    && z.lock.redlock().is_none()
                    && z.lock.etcd().is_none()
                    && z.lock.advisory().is_none()
                    && !z.lock.watchdog
                    && z.lock.fencing,
                "{z:?}"
            );
            assert_eq!(z.validate(), Ok(()), "{z:?}");
            let t = crate::sim::run(&z);
            assert!(t.is_zookeeper());
            for back in [
                with_service(&z, 0),
                with_service(&z, 5),
                with_etcd(&z, EtcdVersion::V35),
                with_advisory(&z),
            ] {
                assert!(back.lock.zookeeper().is_none(), "{back:?}");
                assert_eq!(back.validate(), Ok(()), "{back:?}");
            }
        }
        // A preset already on ZooKeeper keeps its ensemble's settings and events.
        let p = crate::sim::presets::preset("zk-suspended-ignored").expect("preset");
        assert_eq!(with_zookeeper(&p), p);
    }

    #[test]
    fn switching_to_a_lease_drops_what_it_has_no_word_for_and_back_validates() {
        use crate::sim::scenario::{LeaseExpiry, LeaseGuard};
        let cas = {
            let mut s = default_scenario();
            s.storage.fence_rule = FenceRule::CasValue;
            s
        };
        for s in [
            default_scenario(),
            cas,
            crate::sim::presets::preset("bare-del").expect("preset"),
            with_etcd(&default_scenario(), EtcdVersion::V34),
            with_service(&default_scenario(), 3),
            with_advisory(&default_scenario()),
            with_zookeeper(&default_scenario()),
        ] {
            let l = with_lease(&s);
            assert!(l.lock.lease().is_some() && l.lock.fencing, "{l:?}");
            assert_eq!(l.validate(), Ok(()), "{l:?}");
            let mut st = State::new(l, None, false);
            apply_service(&mut st, InstanceAction::SetLeaseExpiry(LeaseExpiry::Waiter));
            apply_service(
                &mut st,
                InstanceAction::SetLeaseGuard(LeaseGuard::UniqueLedger),
            );
            let l = st.scenario.clone();
            assert_eq!(l.lock.lease().map(|x| x.expiry), Some(LeaseExpiry::Waiter));
            assert_eq!(l.validate(), Ok(()), "{l:?}");
            for back in [
                with_service(&l, 0),
                with_service(&l, 5),
                with_etcd(&l, EtcdVersion::V35),
                with_advisory(&l),
                with_zookeeper(&l),
            ] {
                assert!(back.lock.lease().is_none(), "{back:?}");
                assert_eq!(back.storage.lease_guard, LeaseGuard::None);
                assert_eq!(back.validate(), Ok(()), "{back:?}");
            }
        }
        // A preset already on a lease keeps its row's settings and failovers.
        let p = crate::sim::presets::preset("lease-failover-strict").expect("preset");
        assert_eq!(with_lease(&p), p);
    }

    #[test]
    fn zookeeper_settings_are_edits_and_a_bad_tick_is_named() {
        use crate::sim::scenario::{OnSuspended, ZkFence};
        let mut st = State::new(with_zookeeper(&default_scenario()), None, false);
        apply_service(&mut st, InstanceAction::SetTickTime("2".into()));
        apply_service(&mut st, InstanceAction::SetZkFence(ZkFence::Sequence));
        apply_service(
            &mut st,
            InstanceAction::SetOnSuspended(OnSuspended::StopWriting),
        );
        let z = st.scenario.lock.zookeeper().cloned().expect("zookeeper");
        assert_eq!(
            (z.tick_time_ms, z.fence, z.on_suspended),
            (2, ZkFence::Sequence, OnSuspended::StopWriting)
        );
        assert_eq!(st.notice, None);
        for bad in ["soon", "0", "", "-3"] {
            apply_service(&mut st, InstanceAction::SetTickTime(bad.into()));
            let notice = st.notice.take().unwrap_or_default();
            assert!(notice.starts_with("tickTime ms: "), "{bad:?}: {notice}");
            assert_eq!(
                st.scenario.lock.zookeeper().map(|z| z.tick_time_ms),
                Some(2)
            );
        }
    }

    #[test]
    fn switching_to_advisory_drops_what_it_has_no_word_for_and_validates() {
        for s in [
            default_scenario(),
            with_etcd(&default_scenario(), EtcdVersion::V34),
            with_service(&default_scenario(), 3),
        ] {
            let a = with_advisory(&s);
            assert!(
                a.lock.advisory().is_some()
                    && a.lock.redlock().is_none()
                    && a.lock.etcd().is_none()
            );
            assert_eq!(a.validate(), Ok(()), "{a:?}");
            let back = with_service(&a, 0);
            assert!(back.lock.advisory().is_none() && back.validate().is_ok());
            let e = with_etcd(&a, EtcdVersion::V35);
            assert!(e.lock.advisory().is_none() && e.validate().is_ok());
        }
        let mut x = crate::sim::presets::preset("advisory-in-transaction").expect("preset");
        x = with_service(&x, 0);
        assert!(!x.storage.in_transaction && x.validate().is_ok());
    }

    #[test]
    fn advisory_settings_are_edits_and_bad_text_is_named() {
        use crate::sim::scenario::AdvisoryLevel;
        let mut st = State::new(with_advisory(&default_scenario()), None, false);
        apply_service(
            &mut st,
            InstanceAction::SetAdvisoryLevel(AdvisoryLevel::Transaction),
        );
        let a = st.scenario.lock.advisory().cloned().expect("advisory");
        assert_eq!(a.level, AdvisoryLevel::Transaction);
        let set = |st: &mut State, in_transaction, v: &str| {
            apply_service(
                st,
                InstanceAction::SetIdleTimeout {
                    in_transaction,
                    value: v.into(),
                },
            )
        };
        set(&mut st, false, "20");
        set(&mut st, true, "35");
        let a = st.scenario.lock.advisory().cloned().expect("advisory");
        assert_eq!(
            (a.idle_session_timeout_ms, a.idle_in_transaction_timeout_ms),
            (Some(20), Some(35))
        );
        set(&mut st, false, "");
        assert_eq!(
            st.scenario
                .lock
                .advisory()
                .and_then(|a| a.idle_session_timeout_ms),
            None
        );
        set(&mut st, true, "soon");
        let notice = st.notice.clone().unwrap_or_default();
        assert!(
            notice.contains("idle_in_transaction_session_timeout ms")
                && notice.contains("\"soon\""),
            "{notice}"
        );
        assert_eq!(
            st.scenario
                .lock
                .advisory()
                .and_then(|a| a.idle_in_transaction_timeout_ms),
            Some(35)
        );
        st.notice = None;
        apply_service(&mut st, InstanceAction::SetWriteInSession(true));
        assert!(st.scenario.storage.in_transaction && st.scenario.validate().is_ok());
    }

    #[test]
    fn switching_to_etcd_drops_what_etcd_has_no_word_for_and_validates() {
        // The default scenario runs a watchdog, which etcd's sessions replace.
        let s = with_etcd(&default_scenario(), EtcdVersion::V34);
        assert!(!s.lock.watchdog && s.lock.redlock().is_none());
        assert_eq!(s.lock.etcd().map(|e| e.version), Some(EtcdVersion::V34));
        assert_eq!(s.validate(), Ok(()));
        let back = with_service(&s, 0);
        assert!(back.lock.etcd().is_none() && back.validate().is_ok());
        let redlock = with_service(&s, 3);
        assert!(redlock.lock.etcd().is_none() && redlock.validate().is_ok());
    }
}
