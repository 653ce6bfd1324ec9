//! The limits the reader cannot check one field at a time, checked on a whole scenario: every
//! time, amount, name and count within the table of `limits.rs` (also for scenarios the UI
//! builds in code), names unique, slews slow enough, every list counted toward one total, and
//! the work a run may need (`work.rs`). A valid scenario's run is bounded.
//!
//! A page validates the scenario on every frame of a drag, so a field's path
//! ("clients[0].events[2].atMs") is a `Path` that is written out only when a check fails:
//! formatting every path of every event cost more than the checks themselves.

use super::counts::{events_in_all, jumps_in_all};
use super::error::ScenarioError;
use super::lease::NEEDS_LEASE;
use super::limits::*;
use super::types::{Client, Event, InstanceEvent, LockService, Redlock, Scenario};
#[cfg(not(feature = "first-stage"))]
use super::types::{Etcd, MemberEvent, ReleaseKind};
use super::work::work;
#[cfg(not(feature = "first-stage"))]
use crate::sim::account::FenceRule;
use crate::sim::clock::{ClockJump, ClockSpec};
use std::fmt;

type Result = std::result::Result<(), ScenarioError>;

/// Where a field is, as the error names it; written out only for an error.
#[derive(Clone, Copy)]
enum Path<'a> {
    Top(&'static str),
    Field(&'a Path<'a>, &'static str),
    Item(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    fn field(&'a self, name: &'static str) -> Path<'a> {
        Path::Field(self, name)
    }

    fn item(&'a self, i: usize) -> Path<'a> {
        Path::Item(self, i)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Top(name) => f.write_str(name),
            Path::Field(p, name) => write!(f, "{p}.{name}"),
            Path::Item(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

/// A whole number within a limit, or the limit's message at `path`.
fn check(path: Path, limit: &Limit, n: impl Into<i128>) -> Result {
    within(path, limit, n.into())
}

/// `check` without the generic part, so its code is in the wasm once.
fn within(path: Path, limit: &Limit, n: i128) -> Result {
    if limit.allows(n) {
        Ok(())
    } else {
        Err(ScenarioError::new(path.to_string(), limit.refuse(n)))
    }
}

impl Scenario {
    /// Checks the limits a field-by-field reader cannot. Every run of a valid scenario is
    /// bounded.
    pub fn validate(&self) -> Result {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::new(
                "version",
                format!("expected {SCENARIO_VERSION}, got {}", self.version),
            ));
        }
        text_limit(Path::Top("name"), &self.name, &NAME)?;
        text_limit(Path::Top("caption"), &self.caption, &CAPTION)?;
        text_limit(Path::Top("key"), &self.key, &KEY)?;
        check(Path::Top("endMs"), &END_MS, self.end_ms)?;
        check(Path::Top("stepLimit"), &STEP_LIMIT, self.step_limit)?;
        check(Path::Top("lock.ttlMs"), &TTL_MS, self.lock.ttl_ms)?;
        check(
            Path::Top("lock.firstFence"),
            &FIRST_FENCE,
            self.lock.first_fence,
        )?;
        validate_clock(Path::Top("lock.clock"), &self.lock.clock)?;
        // Each arm in the order the checks have always run: the storage options another
        // service's write needs are refused where that service's checks would come.
        match &self.lock.service {
            LockService::Redis => {
                self.no_create_guard()?;
                self.no_in_transaction()?;
                self.no_lease_guard()?;
            }
            LockService::Redlock(r) => {
                validate_redlock(r, &self.clients)?;
                self.no_create_guard()?;
                self.no_in_transaction()?;
                self.no_lease_guard()?;
            }
            LockService::Etcd(e) => {
                #[cfg(feature = "first-stage")]
                {
                    let _ = e;
                    return Err(ScenarioError::new(
                        "lock.etcd",
                        "the first stage draws Redis scenarios only; the full page runs etcd"
                            .to_string(),
                    ));
                }
                #[cfg(not(feature = "first-stage"))]
                {
                    self.validate_etcd(e)?;
                    self.no_in_transaction()?;
                    self.no_lease_guard()?;
                }
            }
            LockService::Advisory(a) => {
                self.no_create_guard()?;
                self.no_lease_guard()?;
                #[cfg(feature = "first-stage")]
                {
                    let _ = a;
                    return Err(ScenarioError::new(
                        "lock.advisory",
                        "the first stage draws Redis scenarios only; the full page runs \
                         PostgreSQL advisory locks"
                            .to_string(),
                    ));
                }
                #[cfg(not(feature = "first-stage"))]
                self.validate_advisory(a)?;
            }
            LockService::Zookeeper(z) => {
                self.no_create_guard()?;
                self.no_in_transaction()?;
                self.no_lease_guard()?;
                #[cfg(feature = "first-stage")]
                {
                    let _ = z;
                    return Err(ScenarioError::new(
                        "lock.zookeeper",
                        "the first stage draws Redis scenarios only; the full page runs ZooKeeper"
                            .to_string(),
                    ));
                }
                #[cfg(not(feature = "first-stage"))]
                self.validate_zookeeper(z)?;
            }
            #[cfg(not(feature = "first-stage"))]
            LockService::Lease(l) => self.validate_lease(l)?,
            #[cfg(feature = "first-stage")]
            LockService::Lease(_) => {
                let why = "the first stage draws Redis scenarios only; the full page runs leases";
                return Err(ScenarioError::new("lock.lease", why));
            }
        }
        check(Path::Top("storage.balance"), &BALANCE, self.storage.balance)?;
        let clients = Path::Top("clients");
        check(clients, &CLIENTS, self.clients.len() as u64)?;
        for (i, c) in self.clients.iter().enumerate() {
            let at = clients.item(i);
            name_limit(at.field("name"), &c.name, &CLIENT_NAME)?;
            if self.clients[..i].iter().any(|o| o.name == c.name) {
                return Err(ScenarioError::new(
                    at.field("name").to_string(),
                    format!("another client is already named {:?}", c.name),
                ));
            }
            validate_clock(at.field("clock"), &c.clock)?;
            let events = at.field("events");
            for (j, e) in c.events.iter().enumerate() {
                validate_event(events.item(j), e)?;
            }
        }
        self.validate_totals()
    }

    /// `storage.createGuard` without etcd, refused.
    pub(super) fn no_create_guard(&self) -> Result {
        if self.storage.create_guard {
            return Err(ScenarioError::new(
                "storage.createGuard",
                "needs the etcd lock service (lock.etcd): the guard compares the lock key's \
                 create revision"
                    .to_string(),
            ));
        }
        Ok(())
    }

    /// `storage.inTransaction` without an advisory lock, refused.
    pub(super) fn no_in_transaction(&self) -> Result {
        if self.storage.in_transaction {
            return Err(ScenarioError::new(
                "storage.inTransaction",
                "needs a PostgreSQL advisory lock (lock.advisory): the write goes on the lock's \
                 own session"
                    .to_string(),
            ));
        }
        Ok(())
    }

    /// `storage.leaseGuard` without a database lease, refused.
    fn no_lease_guard(&self) -> Result {
        let why = (!self.storage.lease_guard.is_none()).then_some(NEEDS_LEASE);
        why.map_or(Ok(()), |m| Err(ScenarioError::new("storage.leaseGuard", m)))
    }

    /// The totals that bound a run: events in all, clock jumps in all, and its work.
    fn validate_totals(&self) -> Result {
        let instances = self
            .lock
            .redlock()
            .into_iter()
            .flat_map(|r| r.instances.iter());
        let client_events: usize = self.clients.iter().map(|c| c.events.len()).sum();
        let instance_events = self.lock.service.event_count();
        events_in_all(client_events, instance_events)?;
        let jump_events = self
            .clients
            .iter()
            .flat_map(|c| c.events.iter())
            .filter(|e| matches!(e, Event::ClockJump { .. }))
            .count()
            + instances
                .clone()
                .map(|i| i.clock_jumps().count() + i.clock.jumps.len())
                .sum::<usize>();
        let jumps = self.lock.clock.jumps.len()
            + self
                .clients
                .iter()
                .map(|c| c.clock.jumps.len())
                .sum::<usize>()
            + jump_events;
        jumps_in_all(jumps)?;
        let w = work(self);
        if !WORK.allows(i128::from(w.total())) {
            return Err(ScenarioError::new(
                "",
                format!(
                    "a run could need {} engine steps ({} for the clients' events, {} for \
                     watchdog renewals, {} for instance events); at most {MAX_WORK} are \
                     allowed: use fewer events, retries or instances, or a longer TTL",
                    w.total(),
                    w.events,
                    w.watchdog,
                    w.instances
                ),
            ));
        }
        Ok(())
    }
}

fn text_limit(path: Path, text: &str, limit: &Limit) -> Result {
    let n = text.chars().count();
    check(path, limit, n as u64)
}

/// A name: non-blank and within its length.
fn name_limit(path: Path, name: &str, limit: &Limit) -> Result {
    if name.trim().is_empty() {
        return Err(ScenarioError::new(
            path.to_string(),
            "expected a non-empty name",
        ));
    }
    text_limit(path, name, limit)
}

fn validate_clock(path: Path, c: &ClockSpec) -> Result {
    check(path.field("offsetMs"), &OFFSET_MS, c.offset_ms)?;
    check(path.field("driftPpm"), &DRIFT_PPM, c.drift_ppm)?;
    let jumps = path.field("jumps");
    for (k, j) in c.jumps.iter().enumerate() {
        validate_jump(jumps.item(k), j)?;
    }
    Ok(())
}

fn validate_redlock(r: &Redlock, clients: &[Client]) -> Result {
    let instances = Path::Top("lock.redlock.instances");
    check(instances, &INSTANCES, r.instances.len() as u64)?;
    check(
        Path::Top("lock.redlock.timeoutMs"),
        &TIMEOUT_MS,
        r.timeout_ms,
    )?;
    check(
        Path::Top("lock.redlock.retryDelayMs"),
        &RETRY_DELAY_MS,
        r.retry_delay_ms,
    )?;
    check(
        Path::Top("lock.redlock.driftFactorPpm"),
        &DRIFT_FACTOR_PPM,
        r.drift_factor_ppm,
    )?;
    check(Path::Top("lock.redlock.retries"), &RETRIES, r.retries)?;
    for (i, inst) in r.instances.iter().enumerate() {
        let at = instances.item(i);
        name_limit(at.field("name"), &inst.name, &INSTANCE_NAME)?;
        validate_clock(at.field("clock"), &inst.clock)?;
        check(at.field("latencyMs"), &LATENCY_MS, inst.latency_ms)?;
        let events = at.field("events");
        for (j, e) in inst.events.iter().enumerate() {
            let path = events.item(j);
            check(path.field("atMs"), &AT_MS, e.at_ms())?;
            match e {
                InstanceEvent::ClockJump {
                    at_ms,
                    by_ms,
                    over_ms,
                } => validate_jump(
                    path,
                    &ClockJump {
                        at_ms: *at_ms,
                        by_ms: *by_ms,
                        over_ms: *over_ms,
                    },
                )?,
                InstanceEvent::Crash { down_ms, .. } => {
                    check(path.field("downMs"), &DOWN_MS, *down_ms)?
                }
                InstanceEvent::Partition {
                    duration_ms,
                    client,
                    ..
                } => {
                    check(path.field("durationMs"), &PARTITION_MS, *duration_ms)?;
                    if let Some(c) = client {
                        if !clients.iter().any(|k| &k.name == c) {
                            return Err(ScenarioError::new(
                                path.field("client").to_string(),
                                format!("no client is named {c:?}"),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(not(feature = "first-stage"))]
impl Scenario {
    /// The etcd cluster, and what the rest of the scenario may ask of it.
    fn validate_etcd(&self, e: &Etcd) -> Result {
        let refuse = |path: String, why: &str| Err(ScenarioError::new(path, why.to_string()));
        check(
            Path::Top("lock.etcd.electionTimeoutMs"),
            &ELECTION_TIMEOUT_MS,
            e.election_timeout_ms,
        )?;
        if self.lock.ttl_ms < e.min_ttl_ms() {
            return Err(ScenarioError::new(
                "lock.ttlMs",
                format!(
                    "etcd grants no lease shorter than 1.5 election timeouts: at least {} ms \
                     with lock.etcd.electionTimeoutMs {}, got {}",
                    e.min_ttl_ms(),
                    e.election_timeout_ms,
                    self.lock.ttl_ms
                ),
            ));
        }
        if self.lock.watchdog {
            return refuse(
                "lock.watchdog".into(),
                "etcd has no watchdog: a session keeps its lease alive itself (a keepalive \
                 every TTL/3)",
            );
        }
        if self.storage.fence_rule == FenceRule::CasValue {
            return refuse(
                "storage.fenceRule".into(),
                "cas_value compares a Redis lock's random value; etcd's token is the lock \
                 key's create revision (use strict, non_decreasing, off, or createGuard)",
            );
        }
        let members = Path::Top("lock.etcd.members");
        check(members, &MEMBERS, e.members.len() as u64)?;
        for (i, m) in e.members.iter().enumerate() {
            let at = members.item(i);
            name_limit(at.field("name"), &m.name, &MEMBER_NAME)?;
            if e.members[..i].iter().any(|o| o.name == m.name) {
                return Err(ScenarioError::new(
                    at.field("name").to_string(),
                    format!("another member is already named {:?}", m.name),
                ));
            }
            let events = at.field("events");
            for (j, ev) in m.events.iter().enumerate() {
                let path = events.item(j);
                check(path.field("atMs"), &AT_MS, ev.at_ms())?;
                match ev {
                    MemberEvent::Crash { down_ms, .. } => {
                        check(path.field("downMs"), &DOWN_MS, *down_ms)?
                    }
                    MemberEvent::Partition { duration_ms, .. } => {
                        check(path.field("durationMs"), &MEMBER_PARTITION_MS, *duration_ms)?
                    }
                }
            }
        }
        let clients = Path::Top("clients");
        for (i, c) in self.clients.iter().enumerate() {
            let events = clients.item(i);
            let events = events.field("events");
            for (j, ev) in c.events.iter().enumerate() {
                let path = events.item(j);
                match ev {
                    Event::Watchdog { .. } => {
                        return refuse(
                            path.field("kind").to_string(),
                            "etcd has no watchdog: a session keeps its lease alive itself \
                             (a keepalive every TTL/3)",
                        )
                    }
                    Event::Release {
                        mode: ReleaseKind::BareDel,
                        ..
                    } => {
                        return refuse(
                            path.field("mode").to_string(),
                            "etcd's unlock deletes the caller's own key (/v3/lock/unlock); \
                             there is no bare DEL",
                        )
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

fn validate_jump(path: Path, j: &ClockJump) -> Result {
    check(path.field("atMs"), &AT_MS, j.at_ms)?;
    check(path.field("byMs"), &BY_MS, j.by_ms)?;
    check(path.field("overMs"), &OVER_MS, j.over_ms)?;
    if j.over_ms > 0 && j.by_ms.unsigned_abs().saturating_mul(2) > j.over_ms {
        return Err(ScenarioError::new(
            path.field("overMs").to_string(),
            format!(
                "a slew of {} ms needs at least {} ms (half a millisecond per millisecond)",
                j.by_ms,
                j.by_ms.unsigned_abs().saturating_mul(2)
            ),
        ));
    }
    Ok(())
}

fn validate_key(path: Path, key: &Option<String>) -> Result {
    match key {
        Some(k) => text_limit(path.field("idempotencyKey"), k, &IDEMPOTENCY_KEY),
        None => Ok(()),
    }
}

fn validate_event(path: Path, e: &Event) -> Result {
    check(path.field("atMs"), &AT_MS, e.at_ms())?;
    match e {
        Event::Debit {
            amount,
            idempotency_key,
            delay_ms,
            ..
        } => {
            check(path.field("amount"), &AMOUNT, *amount)?;
            validate_key(path, idempotency_key)?;
            check(path.field("delayMs"), &DELAY_MS, *delay_ms)
        }
        Event::CheckThenWrite {
            amount,
            idempotency_key,
            delay_ms,
            gap_ms,
            ..
        } => {
            check(path.field("amount"), &AMOUNT, *amount)?;
            validate_key(path, idempotency_key)?;
            check(path.field("delayMs"), &DELAY_MS, *delay_ms)?;
            check(path.field("gapMs"), &GAP_MS, *gap_ms)
        }
        Event::Pause { duration_ms, .. } => {
            check(path.field("durationMs"), &PAUSE_MS, *duration_ms)
        }
        Event::ClockJump { by_ms, .. } => check(path.field("byMs"), &BY_MS, *by_ms),
        _ => Ok(()),
    }
}
