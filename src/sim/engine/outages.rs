//! What an instance's own events do to a run: a crash (with or without persistence) and a
//! partition become outages in the trace, a crash without persistence forgets every key, and
//! every event, clock jumps included, gets a mark with its words on the instance's lane.

use super::instance::Inst;
use super::world::World;
use crate::sim::scenario::InstanceEvent;
use crate::sim::trace::{InstanceMark, Outage, OutageKind};
use crate::sim::words;

/// Applies event `e` of the instance named `name` at true time `t`.
pub fn apply(
    w: &mut World,
    t: u64,
    (instance, inst): (usize, &mut Inst),
    name: &str,
    e: &InstanceEvent,
) {
    match e {
        // The instance's clock already carries its jumps; only the mark is left to write.
        InstanceEvent::ClockJump { .. } => {}
        InstanceEvent::Crash {
            down_ms,
            persistent,
            ..
        } => {
            w.trace.outages.push(Outage {
                instance,
                start_ms: t,
                end_ms: t.saturating_add(*down_ms),
                kind: OutageKind::Crash,
                persistent: *persistent,
                client: None,
            });
            if !persistent {
                inst.table.forget_all();
                w.forget_leases(instance, t);
            }
        }
        InstanceEvent::Partition {
            duration_ms,
            client,
            ..
        } => {
            let who = client
                .as_ref()
                .and_then(|c| w.trace.clients.iter().position(|k| k == c));
            w.trace.outages.push(Outage {
                instance,
                start_ms: t,
                end_ms: t.saturating_add(*duration_ms),
                kind: OutageKind::Partition,
                persistent: false,
                client: who,
            });
        }
    }
    w.trace.instance_marks.push(InstanceMark {
        instance,
        at_ms: t,
        text: words::instance_event_text(name, e),
    });
}
