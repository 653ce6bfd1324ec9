//! The lengths of a scenario's lists, checked before any of their entries is read: every
//! list with a limit of its own (clients, instances, each list of events, each clock's jumps)
//! and the totals that `limits.rs` counts across lists (events, clock jumps). A scenario a
//! million entries long is refused by its count, in the words the reader and `validate` use,
//! without a look at the entries (the totals' count of `clock_jump` events reads only the
//! kinds, once the events' total is known to be within its limit).
//!
//! The check reads a `Tree`: the core passes the parsed `serde_json::Value`, and the JS API
//! passes the JavaScript object it was given, before `JSON.stringify` turns it into text.
//! Anything that is not a list where a list belongs is left to the reader to name.

use super::error::ScenarioError;
use super::limits::*;

type Result = std::result::Result<(), ScenarioError>;

/// What the count needs of a JSON-like value.
pub trait Tree: Sized {
    /// The field `name`, when this is an object that has it.
    fn field(&self, name: &str) -> Option<Self>;
    /// How many items this holds, when it is a list.
    fn list_len(&self) -> Option<usize>;
    /// Item `i`, when this is a list that long.
    fn item(&self, i: usize) -> Option<Self>;
    /// Whether this is the text `text`.
    fn is_text(&self, text: &str) -> bool;
}

impl Tree for &serde_json::Value {
    fn field(&self, name: &str) -> Option<Self> {
        self.get(name)
    }

    fn list_len(&self) -> Option<usize> {
        self.as_array().map(Vec::len)
    }

    fn item(&self, i: usize) -> Option<Self> {
        self.get(i)
    }

    fn is_text(&self, text: &str) -> bool {
        self.as_str() == Some(text)
    }
}

/// A list's length against its own limit: the reader's message, at the list's path.
fn within<T: Tree>(list: Option<&T>, path: &dyn Fn() -> String, limit: &Limit) -> Result {
    match list.and_then(Tree::list_len) {
        Some(n) if n as u64 > limit.max => Err(ScenarioError::new(path(), limit.refuse(n as i128))),
        _ => Ok(()),
    }
}

/// The lists one owner of a clock and events holds (the lock, an instance, a client).
struct Owner<T> {
    path: String,
    jumps: Option<T>,
    events: Option<T>,
}

impl<T: Tree> Owner<T> {
    fn of(v: &T, path: String) -> Owner<T> {
        Owner {
            jumps: v.field("clock").and_then(|c| c.field("jumps")),
            events: v.field("events"),
            path,
        }
    }

    /// Its clock's jumps, then its events, as the reader meets them.
    fn check(&self) -> Result {
        within(
            self.jumps.as_ref(),
            &|| format!("{}.clock.jumps", self.path),
            &CLOCK_JUMPS,
        )?;
        within(
            self.events.as_ref(),
            &|| format!("{}.events", self.path),
            &EVENTS,
        )
    }

    fn events(&self) -> usize {
        self.events.as_ref().and_then(Tree::list_len).unwrap_or(0)
    }

    fn jumps(&self) -> usize {
        self.jumps.as_ref().and_then(Tree::list_len).unwrap_or(0)
    }

    fn jump_events(&self) -> usize {
        let Some(events) = &self.events else {
            return 0;
        };
        (0..self.events())
            .filter_map(|j| events.item(j))
            .filter(|e| e.field("kind").is_some_and(|k| k.is_text("clock_jump")))
            .count()
    }
}

/// The items of a list within its limit, each as an owner of lists.
fn owners<T: Tree>(list: Option<&T>, path: &str, limit: &Limit) -> Vec<Owner<T>> {
    let n = list
        .and_then(Tree::list_len)
        .unwrap_or(0)
        .min(limit.max as usize);
    (0..n)
        .filter_map(|i| Some(Owner::of(&list?.item(i)?, format!("{path}[{i}]"))))
        .collect()
}

/// Every list's count of `v`, a scenario of the current version, before anything is read.
pub fn check<T: Tree>(v: &T) -> Result {
    let lock = v.field("lock");
    // The lock has a clock and no events (an `events` field there is the reader's to name).
    let lock_clock = lock.as_ref().map(|l| Owner::of(l, "lock".into()));
    if let Some(o) = &lock_clock {
        within(
            o.jumps.as_ref(),
            &|| "lock.clock.jumps".into(),
            &CLOCK_JUMPS,
        )?;
    }
    let instances = lock
        .as_ref()
        .and_then(|l| l.field("redlock"))
        .and_then(|r| r.field("instances"));
    let path = "lock.redlock.instances";
    within(instances.as_ref(), &|| path.into(), &INSTANCES)?;
    let instances = owners(instances.as_ref(), path, &INSTANCES);
    for i in &instances {
        i.check()?;
    }
    let members = lock
        .as_ref()
        .and_then(|l| l.field("etcd"))
        .and_then(|e| e.field("members"));
    let path = "lock.etcd.members";
    within(members.as_ref(), &|| path.into(), &MEMBERS)?;
    let members = owners(members.as_ref(), path, &MEMBERS);
    for m in &members {
        m.check()?;
    }
    let clients = v.field("clients");
    within(clients.as_ref(), &|| "clients".into(), &CLIENTS)?;
    let clients = owners(clients.as_ref(), "clients", &CLIENTS);
    for c in &clients {
        c.check()?;
    }
    let client_events: usize = clients.iter().map(Owner::events).sum();
    let instance_events: usize = instances.iter().chain(&members).map(Owner::events).sum();
    events_in_all(client_events, instance_events)?;
    let lock_jumps = lock_clock.as_ref().map_or(0, Owner::jumps);
    let jumps = lock_jumps
        + instances
            .iter()
            .chain(&clients)
            .map(|o| o.jumps() + o.jump_events())
            .sum::<usize>();
    jumps_in_all(jumps)
}

/// The events of every list together, within `EVENTS`.
pub(super) fn events_in_all(client_events: usize, instance_events: usize) -> Result {
    let events = client_events + instance_events;
    if EVENTS.allows(events as i128) {
        return Ok(());
    }
    Err(ScenarioError::new(
        "clients",
        format!(
            "expected {} in all (client events and instance events together), \
             got {events} ({client_events} + {instance_events})",
            EVENTS.expected()
        ),
    ))
}

/// Every clock's jumps and every `clock_jump` event together, within `CLOCK_JUMPS`.
pub(super) fn jumps_in_all(jumps: usize) -> Result {
    if CLOCK_JUMPS.allows(jumps as i128) {
        return Ok(());
    }
    Err(ScenarioError::new(
        "clients",
        format!(
            "expected {} in all (every clock's jumps and every clock_jump event), \
             got {jumps}",
            CLOCK_JUMPS.expected()
        ),
    ))
}
