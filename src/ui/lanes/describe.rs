//! Words for the screen, read off the scenario and the trace: what an event is ("GC pause
//! 44 ms"), which step's text its badge shows, whether that outcome is good news (✓) or bad
//! (✗), and the state at the playhead. Nothing here judges a run: every verdict is a step the
//! core already wrote, and this module only picks which one to show and how to mark it.

use crate::sim::account::DebitVerdict;
use crate::sim::compare::Contrast;
use crate::sim::trace::{Outcome, ServiceKind, Step, Trace};
use crate::sim::{Event, ReleaseKind};

/// How a badge is marked. Never colour alone: each mark has its own glyph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Good,
    Bad,
    Neutral,
}

impl Mark {
    pub fn glyph(self) -> &'static str {
        match self {
            Mark::Good => "✓",
            Mark::Bad => "✗",
            Mark::Neutral => "•",
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Mark::Good => "good",
            Mark::Bad => "bad",
            Mark::Neutral => "neutral",
        }
    }
}

/// A marker's outline, centred on the origin: never colour alone, each kind has a shape.
pub fn shape(e: &Event) -> &'static str {
    match e {
        Event::Acquire { .. } => "M0,-8 L8,6 L-8,6 Z",
        Event::Debit { .. } => "M0,-8 L8,0 L0,8 L-8,0 Z",
        Event::CheckThenWrite { .. } => "M-7,-7 H7 V7 H-7 Z",
        Event::Release {
            mode: ReleaseKind::BareDel,
            ..
        } => "M-8,-6 L8,-6 L0,8 Z M-3,-3 L3,-3 L0,2 Z",
        Event::Release { .. } => "M-8,-6 L8,-6 L0,8 Z",
        Event::Crash { .. } => {
            "M-7,-5 L-5,-7 L0,-2 L5,-7 L7,-5 L2,0 L7,5 L5,7 L0,2 L-5,7 L-7,5 L-2,0 Z"
        }
        Event::ClockJump { .. } => "M-7,-7 H7 L-7,7 H7 Z",
        _ => "M-7,0 a7,7 0 1,0 14,0 a7,7 0 1,0 -14,0 Z",
    }
}

/// A storage verdict's outline, centred on the origin.
pub fn glyph_shape(m: Mark) -> &'static str {
    match m {
        Mark::Good => "M-8,0 a8,8 0 1,0 16,0 a8,8 0 1,0 -16,0 Z",
        Mark::Bad => "M-7,-7 H7 V7 H-7 Z",
        Mark::Neutral => "M0,-8 L8,0 L0,8 L-8,0 Z",
    }
}

/// A short name for an event, as its marker's label.
pub fn event_label(e: &Event) -> String {
    match e {
        Event::Acquire { .. } => "acquire".to_string(),
        Event::Debit {
            amount, delay_ms, ..
        } => {
            if *delay_ms > 0 {
                format!("debit {amount}, {delay_ms} ms in flight")
            } else {
                format!("debit {amount}")
            }
        }
        Event::Pause {
            duration_ms, cause, ..
        } => format!("{} pause {duration_ms} ms", cause.label()),
        Event::CheckThenWrite { amount, .. } => format!("isHeld() then debit {amount}"),
        Event::Renew { .. } => "renew".to_string(),
        Event::Watchdog { .. } => "start watchdog".to_string(),
        Event::Release {
            mode: ReleaseKind::BareDel,
            ..
        } => "bare DEL".to_string(),
        Event::Release { .. } => "release".to_string(),
        Event::Crash { .. } => "crash".to_string(),
        Event::ClockJump { by_ms, .. } => format!("clock jump {by_ms:+} ms"),
    }
}

/// The step an event's badge shows: the storage's verdict for a write, the pause itself for a
/// pause, otherwise the event's last step.
pub fn badge_step(steps: &[Step], client: usize, event: usize) -> Option<&Step> {
    let mut steps = steps
        .iter()
        .filter(|s| s.client == client && s.event == Some(event));
    let mut chosen: Option<&Step> = None;
    for s in steps.by_ref() {
        match s.outcome {
            Outcome::Stored { .. } | Outcome::Paused { .. } | Outcome::CheckFailed => {
                return Some(s)
            }
            Outcome::Woke => {}
            _ => chosen = Some(s),
        }
    }
    chosen
}

/// Whether an outcome is good news, bad news or neither, for its mark.
pub fn mark(outcome: &Outcome) -> Mark {
    match outcome {
        Outcome::Granted { .. } | Outcome::Renewed { .. } | Outcome::CheckPassed => Mark::Good,
        Outcome::Redlock { ok, .. } => {
            if *ok {
                Mark::Good
            } else {
                Mark::Bad
            }
        }
        Outcome::Released { own: true, .. } => Mark::Good,
        Outcome::Stored { verdict, .. } => match verdict {
            DebitVerdict::Accepted { .. } => Mark::Good,
            DebitVerdict::Duplicate { .. } => Mark::Neutral,
            DebitVerdict::Rejected { .. } => Mark::Bad,
        },
        Outcome::Denied { .. }
        | Outcome::RenewDenied { .. }
        | Outcome::CheckFailed
        | Outcome::Crashed
        | Outcome::Skipped { .. } => Mark::Bad,
        Outcome::Released {
            deleted: Some(_), ..
        } => Mark::Bad,
        _ => Mark::Neutral,
    }
}

/// The screen-reader name of an event's marker: what it is, when, and what came of it.
pub fn aria_label(client_name: &str, e: &Event, outcome: Option<&str>) -> String {
    let mut s = format!("{client_name}: {} at {} ms", event_label(e), e.at_ms());
    if let Some(text) = outcome {
        s.push_str(": ");
        s.push_str(text);
    }
    s.push_str(". Arrow keys move it (Shift: 10 ms), Up/Down change client, Delete removes.");
    s
}

/// One client's belief at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Belief {
    pub client: usize,
    pub fence: Option<u64>,
    /// The lease behind the belief has already ended.
    pub stale: bool,
}

/// What the playhead reads at one instant, taken from the trace's spans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instant {
    pub at_ms: u64,
    /// The lease holder and its fence.
    pub holder: Option<(usize, Option<u64>)>,
    pub believers: Vec<Belief>,
    pub paused: Vec<usize>,
    pub balance: i64,
    /// The highest fence the storage had accepted by then (`None` if it keeps none).
    pub last_fence: Option<u64>,
}

/// The state of the run at `t`: spans are half-open, `[start, end)`; a debit counts from the
/// instant it arrived.
pub fn instant(trace: &Trace, t: u64) -> Instant {
    // The holder is whoever holds live keys on a majority of the instances (one of one for a
    // single Redis), as the trace's majority spans say; its fence is its first live lease's.
    let holder = trace
        .majorities
        .iter()
        .find(|h| h.start_ms <= t && t < h.end_ms)
        .map(|h| {
            let live = trace
                .leases
                .iter()
                .find(|l| l.holder == h.client && l.start_ms <= t && t < l.end_ms);
            (h.client, live.and_then(|l| l.fence))
        });
    let believers = trace
        .beliefs
        .iter()
        .filter(|b| b.start_ms <= t && t < b.end_ms)
        .map(|b| Belief {
            client: b.client,
            fence: b.fence,
            stale: b.stale_from_ms.is_some_and(|s| s <= t),
        })
        .collect();
    let mut paused: Vec<usize> = trace
        .pauses
        .iter()
        .filter(|p| p.start_ms <= t && t < p.end_ms)
        .map(|p| p.client)
        .collect();
    paused.dedup();
    let balance = trace
        .balance
        .iter()
        .take_while(|b| b.at_ms <= t)
        .last()
        .or(trace.balance.first())
        .map_or(trace.final_balance, |b| b.balance);
    let last_fence = trace.last_fence.and_then(|_| {
        trace
            .writes
            .iter()
            .filter(|w| w.arrived_ms <= t)
            .filter(|w| matches!(w.verdict, Some(DebitVerdict::Accepted { .. })))
            .filter_map(|w| w.token)
            .max()
    });
    Instant {
        at_ms: t,
        holder,
        believers,
        paused,
        balance,
        last_fence,
    }
}

/// The playhead's reading in one line, e.g. "At 40 ms: B holds the lease (fence 34). A and B
/// believe they hold it; A's belief is stale. A is paused. Balance 90, last fence 34."
pub fn instant_text(trace: &Trace, at: &Instant) -> String {
    let name = |c: usize| trace.client_name(c);
    // The holder's token by the service's name for it: "(fence 34)", etcd's "(revision 34)".
    let named = crate::sim::words::fence_name(trace);
    let fence = |f: Option<u64>| f.map_or(String::new(), |f| format!(" ({named} {f})"));
    let mut s = format!("At {} ms: ", at.at_ms);
    match (trace.kind(), at.holder) {
        (ServiceKind::Redlock, Some((c, f))) => s.push_str(&format!(
            "{} holds keys on a majority of the instances{}.",
            name(c),
            fence(f)
        )),
        (ServiceKind::Advisory, Some((c, _))) => {
            s.push_str(&format!("{}'s session holds the advisory lock.", name(c)))
        }
        (ServiceKind::Zookeeper, Some((c, f))) => {
            s.push_str(&zk_holder_text(trace, c, f, at.at_ms))
        }
        (ServiceKind::Lease, Some((c, f))) => s.push_str(&format!(
            "the lease row names {} at generation {}.",
            name(c),
            f.unwrap_or(0)
        )),
        (ServiceKind::Lease, None) => s.push_str("the lease row names no live holder."),
        (ServiceKind::Single | ServiceKind::Etcd, Some((c, f))) => {
            s.push_str(&format!("{} holds the lease{}.", name(c), fence(f)))
        }
        (ServiceKind::Redlock, None) => s.push_str("nobody holds a majority."),
        (ServiceKind::Advisory, None) => s.push_str("no session holds the advisory lock."),
        (ServiceKind::Zookeeper, None) => s.push_str("no node under /lock holds the lock."),
        (ServiceKind::Single | ServiceKind::Etcd, None) => s.push_str("nobody holds the lease."),
    }
    let names: Vec<&str> = at.believers.iter().map(|b| name(b.client)).collect();
    match names.len() {
        0 => s.push_str(" Nobody believes it holds the lock."),
        1 => s.push_str(&format!(" {} believes it holds the lock.", names[0])),
        _ => s.push_str(&format!(" {} believe they hold it.", join(&names))),
    }
    for b in at.believers.iter().filter(|b| b.stale) {
        s.push_str(&format!(
            " {}'s belief is stale: {}.",
            name(b.client),
            match trace.kind() {
                ServiceKind::Advisory => "its session, and the lock with it, has ended",
                ServiceKind::Zookeeper => "its session has expired, and its lock node with it",
                ServiceKind::Lease => "the lease row no longer names it at its generation",
                ServiceKind::Single | ServiceKind::Redlock | ServiceKind::Etcd => {
                    "its lease has ended"
                }
            }
        ));
    }
    if !at.paused.is_empty() {
        let p: Vec<&str> = at.paused.iter().map(|&c| name(c)).collect();
        s.push_str(&format!(" {} paused.", verb(&p)));
    }
    for (c, state) in zk_states_at(trace, at.at_ms) {
        s.push_str(&format!(" {}'s client says {state}.", name(c)));
    }
    s.push_str(&format!(" Balance {}", at.balance));
    match at.last_fence {
        Some(f) => s.push_str(&format!(", last fence {f}.")),
        None => s.push('.'),
    }
    s
}

/// "A's node lock-0000000000 is lowest: A holds the lock (czxid 0x100000022)", with the
/// sequence or "no fence" as the holder sends it.
fn zk_holder_text(trace: &Trace, c: usize, fence: Option<u64>, t: u64) -> String {
    let name = trace.client_name(c);
    let node = trace.zookeeper.as_ref().and_then(|z| {
        z.nodes.iter().rfind(|n| {
            n.client == c
                && n.granted_ms.is_some_and(|g| g <= t)
                && (n.end_ms > t || n.end == crate::sim::trace::ZkNodeEnd::Open)
        })
    });
    let by_sequence = trace
        .zookeeper
        .as_ref()
        .is_some_and(|z| z.fence == "sequence");
    let sends = match (fence, node) {
        (None, _) => " and sends no fence".to_string(),
        (Some(f), _) if by_sequence => format!(" (sequence {f} as the fence)"),
        (Some(_), Some(n)) => format!(" (czxid {})", crate::sim::trace::zxid_hex(n.czxid)),
        (Some(f), None) => format!(" (czxid {f})"),
    };
    match node {
        Some(n) => format!(
            "{name}'s node {} is lowest: {name} holds the lock{sends}.",
            n.name()
        ),
        None => format!("{name} holds the lock{sends}."),
    }
}

/// The clients whose ZooKeeper connection is SUSPENDED or LOST at `t`, in Curator's words.
fn zk_states_at(trace: &Trace, t: u64) -> Vec<(usize, &'static str)> {
    trace.zookeeper.as_ref().map_or_else(Vec::new, |z| {
        z.states
            .iter()
            .filter(|s| s.start_ms <= t && t < s.end_ms)
            .map(|s| (s.client, s.state.label()))
            .collect()
    })
}

fn join(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn verb(names: &[&str]) -> String {
    if names.len() == 1 {
        format!("{} is", names[0])
    } else {
        format!("{} are", join(names))
    }
}

/// What the head of a storage lane says: its title, the line under it and, on the comparison's
/// lane (`contrast` given), a summary for its right end, short to fit a phone's lane (the banner
/// gives the reasons). With nothing to compare, the comparison's lane says so.
pub fn storage_lane_head<'a>(
    contrast: Option<&'a Contrast>,
    t: &Trace,
) -> (&'a str, &'a str, Option<String>) {
    match contrast {
        None => ("storage", "acct balance", None),
        Some(Contrast::With {
            lane_title,
            lane_sub,
            ..
        }) => (
            lane_title.as_str(),
            lane_sub.as_str(),
            Some(format!(
                "balance {} · {}",
                t.final_balance,
                if t.verdict.safe {
                    "✓ safe"
                } else {
                    "✗ unsafe"
                }
            )),
        ),
        Some(Contrast::Nothing { .. }) => (
            "no comparison",
            "nothing to flip",
            Some("nothing to compare".to_string()),
        ),
    }
}

/// The x of the event after event `i` among a lane's `points` (`(event, x)` in drawing order),
/// or a little past the axis's end `right_px` for the last: how far event `i`'s label may reach.
pub fn next_point_x(points: &[(usize, i32)], i: usize, right_px: i32) -> i32 {
    points
        .iter()
        .skip_while(|(j, _)| *j != i)
        .nth(1)
        .map_or(right_px + 40, |(_, nx)| *nx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;
    use crate::sim::run;

    #[test]
    fn a_label_reaches_to_the_next_event_or_past_the_axis_end() {
        let points = [(2, 100), (0, 150), (1, 400)];
        assert_eq!(next_point_x(&points, 2, 900), 150);
        assert_eq!(next_point_x(&points, 0, 900), 400);
        assert_eq!(next_point_x(&points, 1, 900), 940);
        assert_eq!(next_point_x(&points, 7, 900), 940);
    }

    #[test]
    fn storage_lane_heads_name_the_comparison_or_its_absence() {
        let t = run(&preset("gc-pause-fenced").expect("a preset"));
        assert_eq!(
            storage_lane_head(None, &t),
            ("storage", "acct balance", None)
        );
        let nothing = Contrast::Nothing {
            reason: "no debits".to_string(),
        };
        assert_eq!(
            storage_lane_head(Some(&nothing), &t),
            (
                "no comparison",
                "nothing to flip",
                Some("nothing to compare".to_string())
            )
        );
        let with =
            crate::sim::compare::counterfactual(&preset("gc-pause-fenced").expect("a preset"))
                .contrast;
        let Contrast::With {
            lane_title,
            lane_sub,
            ..
        } = &with
        else {
            panic!("the fenced preset has a comparison");
        };
        let safe = if t.verdict.safe {
            "✓ safe"
        } else {
            "✗ unsafe"
        };
        assert_eq!(
            storage_lane_head(Some(&with), &t),
            (
                lane_title.as_str(),
                lane_sub.as_str(),
                Some(format!("balance {} · {safe}", t.final_balance))
            )
        );
    }

    fn gc_trace(pause_ms: u64) -> Trace {
        let mut s = preset("gc-pause-fenced").unwrap();
        if let Event::Pause { duration_ms, .. } = &mut s.clients[0].events[1] {
            *duration_ms = pause_ms;
        }
        run(&s)
    }

    #[test]
    fn badges_show_the_storage_verdict_for_writes() {
        let t = gc_trace(44);
        let text = |c, e| badge_step(&t.steps, c, e).map(|s| s.text.as_str());
        assert_eq!(text(0, 0), Some("granted fence 33, lease until 30 ms"));
        assert_eq!(text(0, 1), Some("paused by GC until 45 ms"));
        assert_eq!(text(0, 2), Some("rejected stale_fence: 33 ≤ 34"));
        assert_eq!(text(1, 1), Some("accepted, balance 90"));
        assert_eq!(text(1, 9), None);
        let marks: Vec<Mark> = [(0, 2), (1, 1)]
            .iter()
            .map(|&(c, e)| mark(&badge_step(&t.steps, c, e).unwrap().outcome))
            .collect();
        assert_eq!(marks, [Mark::Bad, Mark::Good]);
        // A short pause: A's debit lands while its lease is live.
        let t = gc_trace(20);
        assert_eq!(
            badge_step(&t.steps, 0, 2).map(|s| s.text.as_str()),
            Some("accepted, balance 90")
        );
    }

    #[test]
    fn the_playhead_counts_a_majority_of_redlock_instances() {
        let t = run(&preset("redlock-clock-jump").unwrap());
        // At 20 ms R3 has expired A's key early: A holds keys on R1 and R2 only.
        assert!(
            instant_text(&t, &instant(&t, 20)).starts_with("At 20 ms: nobody holds a majority.")
        );
        assert!(instant_text(&t, &instant(&t, 12))
            .starts_with("At 12 ms: A holds keys on a majority of the instances."));
        assert!(instant_text(&t, &instant(&t, 45))
            .starts_with("At 45 ms: B holds keys on a majority of the instances."));
    }

    #[test]
    fn the_playhead_counts_a_majority_of_one_redlock_instance() {
        let mut s = preset("redlock-clock-jump").unwrap();
        if let Some(r) = s.lock.redlock_mut() {
            r.instances = vec![r.instances[2].clone()];
        }
        let t = run(&s);
        assert!(instant_text(&t, &instant(&t, 10))
            .starts_with("At 10 ms: A holds keys on a majority of the instances."));
        assert!(
            instant_text(&t, &instant(&t, 16)).starts_with("At 16 ms: nobody holds a majority.")
        );
    }

    #[test]
    fn the_playhead_reads_the_spans() {
        let t = gc_trace(44);
        let cases: &[(u64, &str)] = &[
            (
                0,
                "At 0 ms: A holds the lease (fence 33). A believes it holds the lock. Balance 100.",
            ),
            (
                40,
                "At 40 ms: B holds the lease (fence 34). A and B believe they hold it. A's belief \
                 is stale: its lease has ended. A is paused. Balance 90, last fence 34.",
            ),
            (
                30,
                "At 30 ms: nobody holds the lease. A believes it holds the lock. A's belief is \
                 stale: its lease has ended. A is paused. Balance 100.",
            ),
            (
                // B's watchdog keeps renewing while B runs.
                70,
                "At 70 ms: B holds the lease (fence 34). B believes it holds the lock. Balance 90, \
                 last fence 34.",
            ),
        ];
        for &(at, want) in cases {
            assert_eq!(instant_text(&t, &instant(&t, at)), want, "at {at}");
        }
        let unfenced = run(&preset("gc-pause-unfenced").unwrap());
        let late = instant(&unfenced, 70);
        assert_eq!((late.balance, late.last_fence), (80, None));
    }

    #[test]
    fn the_playhead_reads_a_zookeeper_run() {
        let t = run(&preset("zk-pause-czxid").unwrap());
        let at = |ms| instant_text(&t, &instant(&t, ms));
        assert!(
            at(5).starts_with(
                "At 5 ms: A's node lock-0000000000 is lowest: A holds the lock (czxid 0x100000022)."
            ),
            "{}",
            at(5)
        );
        assert!(
            at(50).contains("B's node lock-0000000001 is lowest"),
            "{}",
            at(50)
        );
        assert!(
            at(50).contains(
                "A's belief is stale: its session has expired, and its lock node with it."
            ),
            "{}",
            at(50)
        );
        assert!(
            at(65).contains("no node under /lock holds the lock."),
            "{}",
            at(65)
        );
        let s = run(&preset("zk-suspended-ignored").unwrap());
        let text = instant_text(&s, &instant(&s, 40));
        assert!(
            text.contains("A's client says SUSPENDED.") && text.contains("sends no fence"),
            "{text}"
        );
        let q = run(&preset("zk-parent-sequence").unwrap());
        let text = instant_text(&q, &instant(&q, 20));
        assert!(
            text.contains("A holds the lock (sequence ") && text.contains(" as the fence)"),
            "{text}"
        );
    }

    #[test]
    fn labels_name_the_event() {
        let s = preset("delayed-packet").unwrap();
        assert_eq!(
            event_label(&s.clients[0].events[1]),
            "debit 10, 40 ms in flight"
        );
        let g = preset("gc-pause-fenced").unwrap();
        assert_eq!(event_label(&g.clients[0].events[1]), "GC pause 44 ms");
        assert!(aria_label("A", &g.clients[0].events[1], Some("paused"))
            .starts_with("A: GC pause 44 ms at 1 ms: paused."));
    }
}
