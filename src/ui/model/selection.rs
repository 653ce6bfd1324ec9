//! Where an event on a lane lives, and what is selected. A client's event and an instance's
//! event are addressed by lane and index; `Slot` says where each kind's lanes are in a
//! scenario, so moving an edge, changing lanes, adding and removing are written once for both.
//! `Selection` is one enum: nothing, a client event or an instance event, never two at once.

use super::item::{LaneItem, Part};
use crate::sim::scenario::{InstanceEvent, MAX_TIME_MS};
use crate::sim::{Event, Scenario};

/// One event of one client: indices into `scenario.clients[client].events[event]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventRef {
    pub client: usize,
    pub event: usize,
}

/// One event of one instance: indices into `lock.redlock.instances[instance].events[event]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceRef {
    pub instance: usize,
    pub event: usize,
}

/// One event on a lane, of either kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemRef {
    Event(EventRef),
    Instance(InstanceRef),
}

/// What is selected: nothing, one client event or one instance event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Selection {
    #[default]
    None,
    Event(EventRef),
    Instance(InstanceRef),
}

impl Selection {
    /// The selected client event, if one is.
    pub fn event(self) -> Option<EventRef> {
        match self {
            Selection::Event(r) => Some(r),
            _ => None,
        }
    }

    /// The selected instance event, if one is.
    pub fn instance(self) -> Option<InstanceRef> {
        match self {
            Selection::Instance(r) => Some(r),
            _ => None,
        }
    }

    pub fn item(self) -> Option<ItemRef> {
        match self {
            Selection::None => None,
            Selection::Event(r) => Some(ItemRef::Event(r)),
            Selection::Instance(r) => Some(ItemRef::Instance(r)),
        }
    }

    /// The selection if its event exists in `s`, or nothing (after an undo, say).
    pub fn existing(self, s: &Scenario) -> Selection {
        let there = match self {
            Selection::None => true,
            Selection::Event(r) => get(s, r).is_some(),
            Selection::Instance(r) => get(s, r).is_some(),
        };
        if there {
            self
        } else {
            Selection::None
        }
    }
}

impl From<ItemRef> for Selection {
    fn from(r: ItemRef) -> Selection {
        match r {
            ItemRef::Event(r) => Selection::Event(r),
            ItemRef::Instance(r) => Selection::Instance(r),
        }
    }
}

impl From<EventRef> for ItemRef {
    fn from(r: EventRef) -> ItemRef {
        ItemRef::Event(r)
    }
}

impl From<InstanceRef> for ItemRef {
    fn from(r: InstanceRef) -> ItemRef {
        ItemRef::Instance(r)
    }
}

impl From<EventRef> for Selection {
    fn from(r: EventRef) -> Selection {
        Selection::Event(r)
    }
}

impl From<InstanceRef> for Selection {
    fn from(r: InstanceRef) -> Selection {
        Selection::Instance(r)
    }
}

/// Where one kind of event lives in a scenario: lane `lane`, position `index`.
pub trait Slot: Copy + Eq + Into<Selection> + Into<ItemRef> {
    type Item: LaneItem;
    fn at(lane: usize, index: usize) -> Self;
    fn lane(self) -> usize;
    fn index(self) -> usize;
    fn events(s: &Scenario, lane: usize) -> Option<&Vec<Self::Item>>;
    fn events_mut(s: &mut Scenario, lane: usize) -> Option<&mut Vec<Self::Item>>;
    /// The `data-ev` / `data-iev` attribute value: "lane-index".
    fn attr(self) -> String {
        format!("{}-{}", self.lane(), self.index())
    }
    fn from_attr(attr: &str) -> Option<Self> {
        let (l, i) = attr.split_once('-')?;
        Some(Self::at(l.parse().ok()?, i.parse().ok()?))
    }
}

impl Slot for EventRef {
    type Item = Event;
    fn at(client: usize, event: usize) -> EventRef {
        EventRef { client, event }
    }
    fn lane(self) -> usize {
        self.client
    }
    fn index(self) -> usize {
        self.event
    }
    fn events(s: &Scenario, lane: usize) -> Option<&Vec<Event>> {
        Some(&s.clients.get(lane)?.events)
    }
    fn events_mut(s: &mut Scenario, lane: usize) -> Option<&mut Vec<Event>> {
        Some(&mut s.clients.get_mut(lane)?.events)
    }
}

impl Slot for InstanceRef {
    type Item = InstanceEvent;
    fn at(instance: usize, event: usize) -> InstanceRef {
        InstanceRef { instance, event }
    }
    fn lane(self) -> usize {
        self.instance
    }
    fn index(self) -> usize {
        self.event
    }
    fn events(s: &Scenario, lane: usize) -> Option<&Vec<InstanceEvent>> {
        Some(&s.lock.redlock()?.instances.get(lane)?.events)
    }
    fn events_mut(s: &mut Scenario, lane: usize) -> Option<&mut Vec<InstanceEvent>> {
        Some(&mut s.lock.redlock_mut()?.instances.get_mut(lane)?.events)
    }
}

/// The event `r` names, if it exists.
pub fn get<R: Slot>(s: &Scenario, r: R) -> Option<&R::Item> {
    R::events(s, r.lane())?.get(r.index())
}

/// Moves one edge of an event to `to_ms` (clamped to the valid range). False if nothing
/// applies.
pub fn set_edge<R: Slot>(s: &mut Scenario, r: R, part: Part, to_ms: i64) -> bool {
    let to = to_ms.clamp(0, MAX_TIME_MS as i64) as u64;
    R::events_mut(s, r.lane())
        .and_then(|v| v.get_mut(r.index()))
        .is_some_and(|e| e.set_edge(part, to))
}

/// Replaces the event `r` names; false if there is none.
pub fn replace<R: Slot>(s: &mut Scenario, r: R, item: R::Item) -> bool {
    match R::events_mut(s, r.lane()).and_then(|v| v.get_mut(r.index())) {
        Some(e) => {
            *e = item;
            true
        }
        None => false,
    }
}

/// Adds an event at the end of lane `lane`; returns where it lives, or `None` if there is no
/// such lane.
pub fn push<R: Slot>(s: &mut Scenario, lane: usize, item: R::Item) -> Option<R> {
    let events = R::events_mut(s, lane)?;
    events.push(item);
    Some(R::at(lane, events.len() - 1))
}

/// Removes the event `r` names; false if there is none.
pub fn remove<R: Slot>(s: &mut Scenario, r: R) -> bool {
    match R::events_mut(s, r.lane()) {
        Some(v) if r.index() < v.len() => {
            v.remove(r.index());
            true
        }
        _ => false,
    }
}

/// Moves an event to the end of another lane's list; returns where it now lives.
pub fn move_to_lane<R: Slot>(s: &mut Scenario, r: R, to: usize) -> Option<R> {
    if r.lane() == to || R::events(s, to).is_none() || get(s, r).is_none() {
        return None;
    }
    let e = R::events_mut(s, r.lane())?.remove(r.index());
    push(s, to, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::{empty_redlock, preset};
    use crate::sim::scenario::InstanceEvent;

    const R2: InstanceRef = InstanceRef {
        instance: 1,
        event: 0,
    };

    fn with_crash() -> Scenario {
        let mut s = empty_redlock();
        push::<InstanceRef>(
            &mut s,
            1,
            InstanceEvent::Crash {
                at_ms: 20,
                down_ms: 10,
                persistent: false,
            },
        );
        s
    }

    #[test]
    fn a_selection_is_one_thing_or_nothing_and_only_what_exists() {
        let s = with_crash();
        let a = EventRef {
            client: 0,
            event: 0,
        };
        assert_eq!(Selection::default(), Selection::None);
        assert_eq!(Selection::from(R2).instance(), Some(R2));
        assert_eq!(Selection::from(R2).event(), None);
        assert_eq!(
            Selection::from(ItemRef::from(a)).item(),
            Some(ItemRef::Event(a))
        );
        assert_eq!(Selection::None.item(), None);
        // The empty Redlock scenario's clients have no events; R2 has its crash.
        assert_eq!(Selection::from(a).existing(&s), Selection::None);
        assert_eq!(Selection::from(R2).existing(&s), Selection::Instance(R2));
        let single = preset("bare-del").expect("preset");
        assert_eq!(Selection::from(R2).existing(&single), Selection::None);
        assert_eq!(Selection::from(a).existing(&single), Selection::Event(a));
        for attr in ["0-1", "12-3"] {
            assert_eq!(
                EventRef::from_attr(attr).map(Slot::attr).as_deref(),
                Some(attr)
            );
            assert_eq!(
                InstanceRef::from_attr(attr).map(Slot::attr).as_deref(),
                Some(attr)
            );
        }
        assert_eq!(EventRef::from_attr("3"), None);
    }

    #[test]
    fn both_kinds_of_event_move_the_same_way() {
        let mut s = with_crash();
        assert!(set_edge(&mut s, R2, Part::End, 100));
        assert_eq!(
            get(&s, R2).map(|e| (e.at_ms(), e.end_ms())),
            Some((20, 100))
        );
        assert!(set_edge(&mut s, R2, Part::Body, -5), "clamped at 0");
        assert_eq!(get(&s, R2).map(LaneItem::at_ms), Some(0));
        // To the last instance and back; nowhere past the last.
        let moved = move_to_lane(&mut s, R2, 4).expect("moved");
        assert_eq!(moved, InstanceRef::at(4, 0));
        assert_eq!(move_to_lane(&mut s, moved, 5), None);
        assert_eq!(move_to_lane(&mut s, moved, 4), None, "already there");
        assert!(remove(&mut s, moved));
        assert!(!remove(&mut s, moved));
        assert_eq!(s, empty_redlock());
        // A client's event, through the same functions.
        let mut c = preset("bare-del").expect("preset");
        let r = push::<EventRef>(&mut c, 2, Event::Acquire { at_ms: 5 }).expect("pushed");
        assert!(!set_edge(&mut c, r, Part::End, 9), "an acquire has no end");
        assert!(replace(&mut c, r, Event::Renew { at_ms: 6 }));
        assert_eq!(get(&c, r), Some(&Event::Renew { at_ms: 6 }));
        assert_eq!(
            push::<EventRef>(&mut c, 9, Event::Acquire { at_ms: 5 }),
            None
        );
    }
}
