//! What the Redlock lanes show, read off the scenario and the trace: which lanes the lock
//! service gets, each instance's clock offset (a display of the scenario's clock settings), and the words on attempts, keys
//! and instance events. Nothing here judges a run: ✓ and ✗ on an attempt are the trace's `ok`.

use super::geometry::LockView;
use crate::sim::clock::Clock;
use crate::sim::scenario::{Instance, InstanceEvent};
use crate::sim::trace::{Acquisition, Purpose};
use crate::sim::words::{failure_text, purpose_word, timing_hazard_text};
use crate::sim::Scenario;

/// Which lanes the lock service gets: one for a single Redis, one per Redlock instance, or one
/// summary lane when the instances are collapsed.
pub fn lock_view(s: &Scenario, collapsed: bool) -> LockView {
    match s.lock.redlock() {
        None => LockView::Single,
        Some(_) if collapsed => LockView::Collapsed,
        Some(r) => LockView::Instances(r.instances.len()),
    }
}

/// How far an instance's clock is from true time at `t_ms`: its offset, drift and jump events,
/// the same settings the simulation reads.
pub fn clock_offset_ms(inst: &Instance, t_ms: u64) -> i64 {
    Clock::new(&inst.clock, inst.clock_jumps()).offset_at(t_ms)
}

/// "clock +60 ms", "clock −3 ms" or "clock exact"; "monotonic" when jumps cannot move it.
pub fn clock_text(inst: &Instance, t_ms: u64) -> String {
    if inst.clock.monotonic {
        return "monotonic".to_string();
    }
    match clock_offset_ms(inst, t_ms) {
        0 => "clock exact".to_string(),
        d if d > 0 => format!("clock +{d} ms"),
        d => format!("clock −{} ms", d.unsigned_abs()),
    }
}

/// An attempt's label, longest first, so the view can pick the longest that fits:
/// "3/5 in 16 ms · valid 42 ms" or "✗ 2/5 in 10 ms: only 2 of 5 instances agreed, 3 needed".
pub fn attempt_labels(a: &Acquisition, instances: usize) -> [String; 3] {
    let what = if a.purpose == Purpose::Extend {
        "extend "
    } else {
        ""
    };
    let votes = format!("{what}{}/{instances}", a.votes);
    if a.ok {
        let fence = a.fence.map(|f| format!(" · fence {f}")).unwrap_or_default();
        // A validity the client's stepped-back wall clock inflated never shows without a flag.
        let warn = if a.timing_hazard.is_some() {
            " ⚠ clock stepped back"
        } else {
            ""
        };
        [
            format!(
                "✓ {votes} in {} ms · valid {} ms{warn}{fence}",
                a.elapsed_ms, a.validity_ms
            ),
            format!("✓ {votes} · valid {} ms{warn}", a.validity_ms),
            format!("✓ {votes}{}", if warn.is_empty() { "" } else { " ⚠" }),
        ]
    } else {
        let reason = failure_text(a, instances).unwrap_or_else(|| "not acquired".to_string());
        [
            format!("✗ {votes} in {} ms: {reason}", a.elapsed_ms),
            format!("✗ {votes} in {} ms", a.elapsed_ms),
            format!("✗ {votes}"),
        ]
    }
}

/// The whole arithmetic of one attempt, for its tooltip.
pub fn attempt_title(a: &Acquisition, who: &str, instances: usize) -> String {
    let mut s = format!(
        "{who}, {} attempt {}, {}–{} ms: {} of {instances} instances agreed ({} needed) in {} ms; \
         validity = TTL − {} ms elapsed − {} ms drift margin = {} ms",
        purpose_word(a.purpose),
        a.attempt,
        a.start_ms,
        a.end_ms,
        a.votes,
        a.needed,
        a.elapsed_ms,
        a.elapsed_ms,
        a.drift_ms,
        a.validity_ms
    );
    if let Some(r) = failure_text(a, instances) {
        s.push_str(&format!(". Not acquired: {r}"));
    }
    if let Some(h) = timing_hazard_text(a) {
        s.push_str(&format!(". Beware: {h}"));
    }
    s
}

/// An instance event's label, longest first.
pub fn instance_event_labels(e: &InstanceEvent, monotonic: bool) -> [String; 2] {
    match e {
        InstanceEvent::ClockJump { by_ms, over_ms, .. } => {
            let by = if *by_ms < 0 {
                format!("−{} ms", by_ms.unsigned_abs())
            } else {
                format!("+{by_ms} ms")
            };
            let full = match (*over_ms, monotonic) {
                (_, true) => format!("clock {by}, not seen by the monotonic TTL clock"),
                (0, false) => format!("clock jumps {by}"),
                (over, false) => format!("clock slews {by} over {over} ms"),
            };
            [full, by]
        }
        InstanceEvent::Crash {
            down_ms,
            persistent,
            ..
        } => {
            let keys = if *persistent {
                "keeps keys"
            } else {
                "forgets keys"
            };
            [format!("down {down_ms} ms · {keys}"), keys.to_string()]
        }
        InstanceEvent::Partition { client, .. } => {
            let who = client.as_deref().unwrap_or("every client");
            [format!("cut off from {who}"), who.to_string()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::{empty_redlock, preset};
    use crate::sim::run;

    fn trace(id: &str) -> crate::sim::Trace {
        run(&preset(id).expect("a preset"))
    }

    #[test]
    fn the_lock_view_follows_the_service() {
        let single = preset("gc-pause-fenced").expect("preset");
        assert_eq!(lock_view(&single, true), LockView::Single);
        let r = empty_redlock();
        assert_eq!(lock_view(&r, false), LockView::Instances(5));
        assert_eq!(lock_view(&r, true), LockView::Collapsed);
    }

    #[test]
    fn clocks_show_their_offset_from_the_scenario() {
        let s = preset("redlock-clock-jump").expect("preset");
        let r3 = &s.lock.redlock().expect("redlock").instances[2];
        assert_eq!(clock_text(r3, 14), "clock exact");
        assert_eq!(clock_text(r3, 15), "clock +60 ms");
        let s = preset("redlock-slew").expect("preset");
        let r3 = &s.lock.redlock().expect("redlock").instances[2];
        assert_eq!(
            clock_offset_ms(r3, 75),
            30,
            "half of the slew by its middle"
        );
        let s = preset("redlock-monotonic").expect("preset");
        let r3 = &s.lock.redlock().expect("redlock").instances[2];
        assert_eq!(clock_text(r3, 50), "monotonic");
        let mut behind = r3.clone();
        behind.clock.monotonic = false;
        behind.clock.offset_ms = -3;
        behind.events.clear();
        assert_eq!(clock_text(&behind, 0), "clock −3 ms");
    }

    #[test]
    fn attempts_read_the_trace() {
        let t = trace("redlock-clock-jump");
        let a = &t.acquisitions[0];
        assert_eq!(
            attempt_labels(a, 5),
            [
                "✓ 3/5 in 16 ms · valid 42 ms",
                "✓ 3/5 · valid 42 ms",
                "✓ 3/5"
            ]
        );
        assert!(attempt_title(a, "A", 5).contains("= 42 ms"));
        let t = trace("redlock-slew");
        let b = &t.acquisitions[1];
        assert_eq!(
            attempt_labels(b, 5)[0],
            "✗ 2/5 in 10 ms: only 2 of 5 instances agreed, 3 needed"
        );
        assert_eq!(attempt_labels(b, 5)[2], "✗ 2/5");
        let t = trace("redlock-order-fenced");
        assert!(attempt_labels(&t.acquisitions[1], 5)[0].ends_with("· fence 34"));
        // The badge of an attempt's step is marked by the trace's `ok`, like a grant or a denial.
        use crate::ui::lanes::describe::{mark, Mark};
        let t = trace("redlock-slew");
        let marks: Vec<Mark> = t.steps.iter().take(2).map(|s| mark(&s.outcome)).collect();
        assert_eq!(marks, [Mark::Good, Mark::Bad]);
    }

    #[test]
    fn instance_events_have_words() {
        let jump = InstanceEvent::ClockJump {
            at_ms: 15,
            by_ms: -20,
            over_ms: 0,
        };
        assert_eq!(instance_event_labels(&jump, false)[0], "clock jumps −20 ms");
        assert!(instance_event_labels(&jump, true)[0].contains("monotonic"));
        let crash = InstanceEvent::Crash {
            at_ms: 0,
            down_ms: 5,
            persistent: true,
        };
        assert_eq!(
            instance_event_labels(&crash, false),
            ["down 5 ms · keeps keys", "keeps keys"]
        );
        let cut = InstanceEvent::Partition {
            at_ms: 0,
            duration_ms: 5,
            client: Some("A".into()),
        };
        assert_eq!(instance_event_labels(&cut, false)[0], "cut off from A");
    }
}
