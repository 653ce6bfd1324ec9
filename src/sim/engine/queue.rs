//! The run's agenda: every pending action ordered by true time, and the pauses that defer a
//! client's actions. A paused process executes nothing, so what falls due while it is stopped
//! is put back at its wake instant, keeping the time it was first due so that deferred steps
//! run before fresh ones and in their original order.

use super::intervals::Intervals;
use crate::sim::scenario::Event;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Something the run will do at an instant of true time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// A lease's TTL runs out on an instance's clock (if it was not renewed since).
    Expire {
        instance: usize,
        generation: u64,
        expires_at: i64,
    },
    /// A Redlock instance crashes, is cut off, or has its clock moved.
    InstanceEvent { instance: usize, event: usize },
    /// A Redlock request reaches an instance.
    Request { attempt: usize, instance: usize },
    /// An instance's answer reaches the client's socket buffer.
    Reply { attempt: usize, instance: usize },
    /// The client looks at its replies: next instance, or judge the attempt.
    Collect { attempt: usize },
    /// A failed Redlock acquisition tries again.
    Retry {
        client: usize,
        event: usize,
        attempt: u32,
    },
    /// A pause ends.
    Wake { client: usize, event: usize },
    /// A client's scenario event falls due.
    Event { client: usize, event: usize },
    /// The write half of a check-then-write.
    CheckWrite { client: usize, event: usize },
    /// A watchdog renews.
    Tick { client: usize, watchdog: u64 },
    /// A debit reaches the storage.
    Arrive { write: usize },
    /// etcd: a new leader takes over (index into the cluster's leader spans). The first
    /// stage's build, which has no etcd, never makes one.
    #[cfg_attr(feature = "first-stage", allow(dead_code))]
    Elected { leader: usize },
}

impl Action {
    /// The client whose process runs this action, for the actions a pause defers.
    pub fn client_step(self) -> Option<usize> {
        match self {
            Action::Event { client, .. }
            | Action::CheckWrite { client, .. }
            | Action::Tick { client, .. } => Some(client),
            _ => None,
        }
    }
}

/// Queue order: true time, then the time the action was first due (so steps deferred by a
/// pause run before fresh ones at the wake instant), then insertion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Item {
    pub at: u64,
    pub due: u64,
    seq: u64,
    pub action: Action,
}

/// A priority queue of items; insertion order breaks every tie, so runs are deterministic.
#[derive(Debug, Default)]
pub struct Queue {
    heap: BinaryHeap<Reverse<Item>>,
    seq: u64,
}

impl Queue {
    pub fn push(&mut self, at: u64, due: u64, action: Action) {
        self.seq += 1;
        self.heap.push(Reverse(Item {
            at,
            due,
            seq: self.seq,
            action,
        }));
    }

    /// Puts an item back at `at`, keeping the time it was first due.
    pub fn defer(&mut self, item: Item, at: u64) {
        self.seq += 1;
        self.heap.push(Reverse(Item {
            at,
            seq: self.seq,
            ..item
        }));
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn pop(&mut self) -> Option<Item> {
        self.heap.pop().map(|Reverse(item)| item)
    }
}

/// One client's pauses, merged so that overlapping pauses defer as one: `[start, end)`.
#[derive(Clone, Debug, Default)]
pub struct Pauses(Intervals);

impl Pauses {
    pub fn of(events: &[Event]) -> Pauses {
        Pauses(Intervals::merged(events.iter().filter_map(|e| match e {
            Event::Pause {
                at_ms, duration_ms, ..
            } => Some((*at_ms, at_ms.saturating_add(*duration_ms))),
            _ => None,
        })))
    }

    /// The end of the pause covering `t`, if the client is paused at `t`.
    pub fn until(&self, t: u64) -> Option<u64> {
        self.0.until(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::PauseCause;

    #[test]
    fn overlapping_pauses_defer_as_one() {
        let pause = |at_ms, duration_ms| Event::Pause {
            at_ms,
            duration_ms,
            cause: PauseCause::Gc,
        };
        let p = Pauses::of(&[pause(10, 10), pause(15, 10), pause(40, 5)]);
        assert_eq!(p.until(9), None);
        assert_eq!(p.until(12), Some(25));
        assert_eq!(p.until(25), None);
        assert_eq!(p.until(44), Some(45));
    }

    #[test]
    fn ties_keep_the_first_due_then_insertion_order() {
        let mut q = Queue::default();
        q.push(5, 5, Action::Arrive { write: 0 });
        q.push(5, 5, Action::Arrive { write: 1 });
        let early = Item {
            at: 1,
            due: 1,
            seq: 0,
            action: Action::Arrive { write: 2 },
        };
        q.defer(early, 5);
        let order: Vec<Action> = std::iter::from_fn(|| q.pop()).map(|i| i.action).collect();
        assert_eq!(
            order,
            [
                Action::Arrive { write: 2 },
                Action::Arrive { write: 0 },
                Action::Arrive { write: 1 }
            ]
        );
    }
}
