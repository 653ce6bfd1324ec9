//! Reads a scenario out of a parsed JSON value by hand. Every error carries the exact path of the
//! field at fault (`clients[0].events[3].durationMs`) and says what was expected and what came.
//!
//! This replaces derived deserializers: those buffer internally tagged events in a way that
//! loses the field path, and their generic code was the largest single part of the wasm module.
//! The shape it accepts is the one `docs/scenario.schema.json` describes; unknown fields are
//! refused, absent optional fields take the defaults `types.rs` names.

use super::fields::{Fields, Result};
use super::limits::{self as lim};
use super::redlock::{default_drift_factor_ppm, default_retry_delay_ms, default_timeout_ms};
use super::types::{
    default_end_ms, default_key, default_step_limit, Client, Event, Instance, InstanceEvent,
    LeaseGuard, LockService, LockSettings, PauseCause, Redlock, ReleaseKind, Scenario,
    StorageSettings, Tier,
};
use crate::sim::account::FenceRule;
use crate::sim::clock::{ClockJump, ClockSpec};
use serde_json::Value;

const TIERS: &[(&str, Tier)] = &[
    ("correctness", Tier::Correctness),
    ("efficiency", Tier::Efficiency),
];
const FENCE_RULES: &[(&str, FenceRule)] = &[
    ("off", FenceRule::Off),
    ("strict", FenceRule::Strict),
    ("non_decreasing", FenceRule::NonDecreasing),
    ("cas_value", FenceRule::CasValue),
];
const CAUSES: &[(&str, PauseCause)] = &[
    ("gc", PauseCause::Gc),
    ("sigstop", PauseCause::Sigstop),
    ("page_fault", PauseCause::PageFault),
    ("network", PauseCause::Network),
];
const RELEASES: &[(&str, ReleaseKind)] = &[
    ("token_checked", ReleaseKind::TokenChecked),
    ("bare_del", ReleaseKind::BareDel),
];

/// The scenario's own fields; the version has already been checked by the migration.
pub(super) fn scenario(v: &Value) -> Result<Scenario> {
    let f = Fields::of(v, String::new(), "a JSON object with a version and clients")?;
    f.only(&[
        "version",
        "name",
        "caption",
        "tier",
        "endMs",
        "key",
        "lock",
        "storage",
        "clients",
        "stepLimit",
        "seed",
    ])?;
    Ok(Scenario {
        version: f.u32_or("version", 0, &lim::SEED)?,
        name: f.text_or("name", "")?,
        caption: f.text_or("caption", "")?,
        tier: f.choice_or("tier", Tier::default(), TIERS)?,
        end_ms: f.whole_or("endMs", default_end_ms(), &lim::END_MS)?,
        key: f.text_or("key", &default_key())?,
        lock: f.object_or("lock", LockSettings::default, lock)?,
        storage: f.object_or("storage", StorageSettings::default, storage)?,
        clients: f.list("clients", f.required("clients")?, &lim::CLIENTS, client)?,
        step_limit: f.u32_or("stepLimit", default_step_limit(), &lim::STEP_LIMIT)?,
        seed: f.whole_or("seed", 0, &lim::SEED)?,
    })
}

fn lock(v: &Value, path: String) -> Result<LockSettings> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&[
        "ttlMs",
        "firstFence",
        "fencing",
        "watchdog",
        "clock",
        "redlock",
        "etcd",
        "advisory",
        "zookeeper",
        "lease",
    ])?;
    let d = LockSettings::default();
    let ttl_ms = f.whole_or("ttlMs", d.ttl_ms, &lim::TTL_MS)?;
    let first_fence = f.whole_or("firstFence", d.first_fence, &lim::FIRST_FENCE)?;
    let fencing = f.bool_or("fencing", d.fencing)?;
    let watchdog = f.bool_or("watchdog", d.watchdog)?;
    let clock = f.object_or("clock", ClockSpec::default, clock)?;
    let redlock = match f.map.get("redlock") {
        None | Some(Value::Null) => None,
        Some(r) => Some(LockService::Redlock(redlock(r, f.at("redlock"))?)),
    };
    let etcd = match f.map.get("etcd") {
        None | Some(Value::Null) => None,
        #[cfg(not(feature = "first-stage"))]
        Some(e) => Some(LockService::Etcd(super::etcd::etcd(e, f.at("etcd"))?)),
        #[cfg(feature = "first-stage")]
        Some(_) => {
            return super::fields::fail(
                &f.at("etcd"),
                "the first stage draws Redis scenarios only; the full page runs etcd".to_string(),
            )
        }
    };
    let advisory = match f.map.get("advisory") {
        None | Some(Value::Null) => None,
        #[cfg(not(feature = "first-stage"))]
        Some(a) => Some(LockService::Advisory(super::advisory::advisory(
            a,
            f.at("advisory"),
        )?)),
        #[cfg(feature = "first-stage")]
        Some(_) => {
            return super::fields::fail(
                &f.at("advisory"),
                "the first stage draws Redis scenarios only; the full page runs PostgreSQL \
                 advisory locks"
                    .to_string(),
            )
        }
    };
    let zookeeper = match f.map.get("zookeeper") {
        None | Some(Value::Null) => None,
        #[cfg(not(feature = "first-stage"))]
        Some(z) => Some(LockService::Zookeeper(super::zookeeper::zookeeper(
            z,
            f.at("zookeeper"),
        )?)),
        #[cfg(feature = "first-stage")]
        Some(_) => {
            return super::fields::fail(
                &f.at("zookeeper"),
                "the first stage draws Redis scenarios only; the full page runs ZooKeeper"
                    .to_string(),
            )
        }
    };
    let lease =
        match f.map.get("lease") {
            None | Some(Value::Null) => None,
            #[cfg(not(feature = "first-stage"))]
            Some(l) => Some(LockService::Lease(super::lease::lease(l, f.at("lease"))?)),
            #[cfg(feature = "first-stage")]
            Some(_) => return super::fields::fail(
                &f.at("lease"),
                "the first stage draws Redis scenarios only; the full page runs database leases"
                    .to_string(),
            ),
        };
    Ok(LockSettings {
        ttl_ms,
        first_fence,
        fencing,
        watchdog,
        clock,
        service: one_service(&f, [redlock, etcd, advisory, zookeeper, lease])?,
    })
}

/// The one lock service among those `lock` names (in the JSON's order: Redlock, etcd, advisory,
/// ZooKeeper, lease), or one Redis when it names none. A second one is refused at its own key, with
/// the services that came before it named.
fn one_service(f: &Fields, named: [Option<LockService>; 5]) -> Result<LockService> {
    let mut named = named.into_iter().flatten();
    let first = named.next().unwrap_or_default();
    let Some(second) = named.next() else {
        return Ok(first);
    };
    let (key, why) = match second {
        // Never second: Redlock is read first, and one Redis has no key.
        LockService::Redis | LockService::Redlock(_) => {
            ("redlock", "a lock service is one at a time")
        }
        LockService::Etcd(_) => (
            "etcd",
            "a lock service is Redlock or etcd, not both: remove lock.redlock or lock.etcd",
        ),
        LockService::Advisory(_) => (
            "advisory",
            "a lock service is one of Redlock, etcd or a PostgreSQL advisory lock: remove \
             lock.redlock or lock.etcd",
        ),
        LockService::Zookeeper(_) => (
            "zookeeper",
            "a lock service is one of Redlock, etcd, a PostgreSQL advisory lock or ZooKeeper: \
             remove lock.redlock, lock.etcd or lock.advisory",
        ),
        LockService::Lease(_) => (
            "lease",
            "a lock service is one of Redlock, etcd, a PostgreSQL advisory lock, ZooKeeper or a \
             database lease: remove lock.redlock, lock.etcd, lock.advisory or lock.zookeeper",
        ),
    };
    super::fields::fail(&f.at(key), why.to_string())
}

fn redlock(v: &Value, path: String) -> Result<Redlock> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&[
        "instances",
        "parallel",
        "timeoutMs",
        "driftFactorPpm",
        "retries",
        "retryDelayMs",
        "fence",
    ])?;
    Ok(Redlock {
        instances: f.list(
            "instances",
            f.required("instances")?,
            &lim::INSTANCES,
            instance,
        )?,
        parallel: f.bool_or("parallel", false)?,
        timeout_ms: f.whole_or("timeoutMs", default_timeout_ms(), &lim::TIMEOUT_MS)?,
        drift_factor_ppm: f.whole_or(
            "driftFactorPpm",
            default_drift_factor_ppm(),
            &lim::DRIFT_FACTOR_PPM,
        )?,
        retries: f.u32_or("retries", 0, &lim::RETRIES)?,
        retry_delay_ms: f.whole_or(
            "retryDelayMs",
            default_retry_delay_ms(),
            &lim::RETRY_DELAY_MS,
        )?,
        fence: f.bool_or("fence", false)?,
    })
}

fn instance(v: &Value, path: String) -> Result<Instance> {
    let f = Fields::of(v, path, "an object with a name")?;
    f.only(&["name", "clock", "latencyMs", "events"])?;
    Ok(Instance {
        name: f.text("name")?,
        clock: f.object_or("clock", ClockSpec::default, clock)?,
        latency_ms: f.whole_or("latencyMs", 1, &lim::LATENCY_MS)?,
        events: f.list_or("events", &lim::EVENTS, instance_event)?,
    })
}

fn storage(v: &Value, path: String) -> Result<StorageSettings> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&[
        "balance",
        "fenceRule",
        "idempotency",
        "createGuard",
        "inTransaction",
        "leaseGuard",
    ])?;
    let d = StorageSettings::default();
    Ok(StorageSettings {
        balance: f.signed_or("balance", d.balance, &lim::BALANCE)?,
        fence_rule: f.choice_or("fenceRule", d.fence_rule, FENCE_RULES)?,
        idempotency: f.bool_or("idempotency", d.idempotency)?,
        create_guard: f.bool_or("createGuard", false)?,
        in_transaction: f.bool_or("inTransaction", false)?,
        lease_guard: lease_guard(&f)?,
    })
}

/// `storage.leaseGuard`; the first stage's reader knows only its absence.
fn lease_guard(f: &Fields) -> Result<LeaseGuard> {
    #[cfg(not(feature = "first-stage"))]
    return f.choice_or("leaseGuard", LeaseGuard::None, super::lease::GUARDS);
    #[cfg(feature = "first-stage")]
    match f.map.get("leaseGuard") {
        None | Some(Value::Null) => Ok(LeaseGuard::None),
        Some(_) => super::fields::fail(
            &f.at("leaseGuard"),
            "the first stage draws Redis scenarios only; the full page runs database leases"
                .to_string(),
        ),
    }
}

fn clock(v: &Value, path: String) -> Result<ClockSpec> {
    let f = Fields::of(v, path, "an object")?;
    f.only(&["offsetMs", "driftPpm", "jumps", "monotonic"])?;
    Ok(ClockSpec {
        offset_ms: f.signed_or("offsetMs", 0, &lim::OFFSET_MS)?,
        drift_ppm: f.signed_or("driftPpm", 0, &lim::DRIFT_PPM)?,
        jumps: f.list_or("jumps", &lim::CLOCK_JUMPS, |v, path| {
            let f = Fields::of(v, path, "an object")?;
            f.only(&["atMs", "byMs", "overMs"])?;
            Ok(ClockJump {
                at_ms: f.whole("atMs", &lim::AT_MS)?,
                by_ms: f.signed("byMs", &lim::BY_MS)?,
                over_ms: f.whole_or("overMs", 0, &lim::OVER_MS)?,
            })
        })?,
        monotonic: f.bool_or("monotonic", false)?,
    })
}

fn client(v: &Value, path: String) -> Result<Client> {
    let f = Fields::of(v, path, "an object with a name")?;
    f.only(&["name", "clock", "events"])?;
    Ok(Client {
        name: f.text("name")?,
        clock: f.object_or("clock", ClockSpec::default, clock)?,
        events: f.list_or("events", &lim::EVENTS, event)?,
    })
}

/// The event's `kind`, checked against the kinds this list allows.
fn kind<'a>(f: &Fields<'a>, kinds: &[&'static str]) -> Result<&'static str> {
    let v = f.required("kind")?;
    let choices: Vec<(&str, &'static str)> = kinds.iter().map(|k| (*k, *k)).collect();
    f.choice("kind", v, &choices)
}

const EVENT_KINDS: &[&str] = &[
    "acquire",
    "debit",
    "pause",
    "check_then_write",
    "renew",
    "watchdog",
    "release",
    "crash",
    "clock_jump",
];

fn event(v: &Value, path: String) -> Result<Event> {
    let f = Fields::of(v, path, "an object with a kind")?;
    let kind = kind(&f, EVENT_KINDS)?;
    let at_ms = || f.whole("atMs", &lim::AT_MS);
    Ok(match kind {
        "debit" => {
            f.only(&["kind", "atMs", "amount", "idempotencyKey", "delayMs"])?;
            Event::Debit {
                at_ms: at_ms()?,
                amount: f.signed("amount", &lim::AMOUNT)?,
                idempotency_key: f.maybe_text("idempotencyKey")?,
                delay_ms: f.whole_or("delayMs", 0, &lim::DELAY_MS)?,
            }
        }
        "pause" => {
            f.only(&["kind", "atMs", "durationMs", "cause"])?;
            Event::Pause {
                at_ms: at_ms()?,
                duration_ms: f.whole("durationMs", &lim::PAUSE_MS)?,
                cause: f.choice("cause", f.required("cause")?, CAUSES)?,
            }
        }
        "check_then_write" => {
            f.only(&[
                "kind",
                "atMs",
                "amount",
                "idempotencyKey",
                "delayMs",
                "gapMs",
            ])?;
            Event::CheckThenWrite {
                at_ms: at_ms()?,
                amount: f.signed("amount", &lim::AMOUNT)?,
                idempotency_key: f.maybe_text("idempotencyKey")?,
                delay_ms: f.whole_or("delayMs", 0, &lim::DELAY_MS)?,
                gap_ms: f.whole_or("gapMs", 1, &lim::GAP_MS)?,
            }
        }
        "release" => {
            f.only(&["kind", "atMs", "mode"])?;
            Event::Release {
                at_ms: at_ms()?,
                mode: f.choice_or("mode", ReleaseKind::default(), RELEASES)?,
            }
        }
        "clock_jump" => {
            f.only(&["kind", "atMs", "byMs"])?;
            Event::ClockJump {
                at_ms: at_ms()?,
                by_ms: f.signed("byMs", &lim::BY_MS)?,
            }
        }
        simple => {
            f.only(&["kind", "atMs"])?;
            let at_ms = at_ms()?;
            match simple {
                "acquire" => Event::Acquire { at_ms },
                "renew" => Event::Renew { at_ms },
                "watchdog" => Event::Watchdog { at_ms },
                _ => Event::Crash { at_ms },
            }
        }
    })
}

fn instance_event(v: &Value, path: String) -> Result<InstanceEvent> {
    let f = Fields::of(v, path, "an object with a kind")?;
    Ok(match kind(&f, &["clock_jump", "crash", "partition"])? {
        "clock_jump" => {
            f.only(&["kind", "atMs", "byMs", "overMs"])?;
            InstanceEvent::ClockJump {
                at_ms: f.whole("atMs", &lim::AT_MS)?,
                by_ms: f.signed("byMs", &lim::BY_MS)?,
                over_ms: f.whole_or("overMs", 0, &lim::OVER_MS)?,
            }
        }
        "crash" => {
            f.only(&["kind", "atMs", "downMs", "persistent"])?;
            InstanceEvent::Crash {
                at_ms: f.whole("atMs", &lim::AT_MS)?,
                down_ms: f.whole("downMs", &lim::DOWN_MS)?,
                persistent: f.bool_or("persistent", false)?,
            }
        }
        _ => {
            f.only(&["kind", "atMs", "durationMs", "client"])?;
            InstanceEvent::Partition {
                at_ms: f.whole("atMs", &lim::AT_MS)?,
                duration_ms: f.whole("durationMs", &lim::PARTITION_MS)?,
                client: f.maybe_text("client")?,
            }
        }
    })
}
