//! Redlock's lanes per instance and its attempt brackets, drawn by the renderer: every Redlock
//! preset's instances, keys, events and attempts as the page shows them, a forgotten key marked,
//! a partition dashed and a crash hatched, the clock's reading at the playhead, the selection,
//! the pointer-only mode, and an instance event dragged frame after frame through the diff.

use super::diff::diff;
use super::node::El;
use super::tests::{apply, read, runs, same, Runs};
use super::*;
use crate::sim::presets::{preset, presets};
use crate::ui::lanes::geometry::{axis_end_ms, LockView};
use crate::ui::lanes::redlock_view::clock_text;
use crate::ui::model::item::Part;
use crate::ui::model::selection::{set_edge, InstanceRef};

/// The page's layout for a Redlock scenario: a lane per instance.
fn instances_layout(s: &Scenario, r: &Runs) -> Layout {
    let n = s.lock.redlock().map_or(0, |r| r.instances.len());
    Layout::with_lock(
        1280,
        s.clients.len(),
        LockView::Instances(n),
        true,
        axis_end_ms(r.trace.end_ms, s.horizon_ms()),
    )
}

fn view<'a>(s: &'a Scenario, r: &'a Runs, l: &'a Layout, playhead_ms: u64) -> View<'a> {
    View {
        scenario: s,
        trace: &r.trace,
        ghost: &r.ghost,
        contrast: &r.contrast,
        layout: l,
        uid: "t1",
        selection: Selection::None,
        playhead_ms,
        handles: true,
        keyboard: true,
    }
}

fn redlock_presets() -> impl Iterator<Item = crate::sim::presets::Preset> {
    presets()
        .into_iter()
        .filter(|p| p.scenario.lock.redlock().is_some())
}

#[test]
fn every_redlock_preset_draws_its_instances_events_keys_and_attempts() {
    let mut drawn = 0;
    for p in redlock_presets() {
        let s = &p.scenario;
        let r = runs(s);
        let l = instances_layout(s, &r);
        let v = view(s, &r, &l, 70);
        let d = lanes(&v);
        let Some(redlock) = s.lock.redlock() else {
            continue;
        };
        assert!(d.find("lane-lock").is_none(), "{}: no service lane", p.id);
        for (i, inst) in redlock.instances.iter().enumerate() {
            let name = &inst.name;
            let lane = d
                .find(&format!("instance-{name}"))
                .unwrap_or_else(|| panic!("{}: {name}", p.id));
            assert_eq!(
                lane.attr("data-instance").as_deref(),
                Some(i.to_string().as_str())
            );
            let clock = d.find(&format!("clock-{name}")).map(El::text_content);
            assert_eq!(clock, Some(clock_text(inst, 70)), "{}: {name}", p.id);
            for (e, ev) in inst.events.iter().enumerate() {
                let body = d
                    .find(&format!("iev-{name}-{e}"))
                    .unwrap_or_else(|| panic!("{}: {name} {e}", p.id));
                assert_eq!(body.attr("tabindex").as_deref(), Some("0"));
                assert_eq!(body.attr("role").as_deref(), Some("button"));
                assert_eq!(
                    body.attr("data-iev").as_deref(),
                    Some(format!("{i}-{e}").as_str())
                );
                assert_eq!(
                    body.attr("data-at-ms").as_deref(),
                    Some(ev.at_ms().to_string().as_str())
                );
                let bar = !matches!(ev, crate::sim::scenario::InstanceEvent::ClockJump { .. });
                let end = d.find(&format!("iev-{name}-{e}-end"));
                assert_eq!(end.is_some(), bar, "{}: {name} {e}", p.id);
                if let Some(h) = end {
                    assert_eq!(h.attr("role").as_deref(), Some("slider"));
                    let now = ev.end_ms().max(ev.at_ms()).to_string();
                    assert_eq!(h.attr("aria-valuenow").as_deref(), Some(now.as_str()));
                }
                drawn += 1;
            }
            let keys = r.trace.leases.iter().filter(|k| k.instance == i).count();
            for k in 0..keys {
                assert!(d.find(&format!("key-{name}-{k}")).is_some(), "{}", p.id);
            }
        }
        // One bracket per attempt, named by its client and its place among the client's.
        let mut brackets = 0;
        d.walk(&mut |e| {
            brackets += usize::from(
                e.attr("class")
                    .as_deref()
                    .is_some_and(|c| c.starts_with("fp-attempt ")),
            )
        });
        assert_eq!(brackets, r.trace.acquisitions.len(), "{}", p.id);
        // The markup reads back as the drawing.
        assert!(same(&read(&d.markup()), &d), "{}", p.id);
        // Pointer only: nothing is focusable and nothing has a tooltip.
        let plain = lanes(&View {
            keyboard: false,
            ..v
        });
        plain.walk(&mut |e| {
            assert_eq!(e.attr("tabindex").as_deref(), None, "{}", p.id);
            assert_ne!(e.tag, "title", "{}", p.id);
        });
    }
    assert!(drawn > 0, "some Redlock preset has instance events");
}

#[test]
fn a_restart_that_forgot_its_keys_is_marked_and_a_partition_is_dashed() {
    let s = preset("redlock-restart").expect("preset");
    let r = runs(&s);
    let l = instances_layout(&s, &r);
    let d = lanes(&view(&s, &r, &l, 0));
    let key = d.find("key-R3-0").expect("R3's first key");
    assert!(key
        .attr("class")
        .as_deref()
        .is_some_and(|c| c.ends_with(" forgotten")));
    assert!(key.text_content().contains("✗ forgotten"), "{key:?}");
    let title = key
        .els()
        .iter()
        .find(|e| e.tag == "title")
        .map(El::text_content);
    assert!(title.is_some_and(|t| t.starts_with("R3: A's key from ")));
    // A key that ran out is not marked.
    let other = d.find("key-R1-0").expect("R1's key");
    assert!(!other
        .attr("class")
        .as_deref()
        .unwrap_or("")
        .contains("forgotten"));
    // The crash that forgets: a hatched bar, its words inside it or after it.
    let crash = d.find("iev-R3-0").expect("R3's crash");
    assert_eq!(crash.attr("class").as_deref(), Some("fp-iev fp-crash"));
    let bar = crash
        .els()
        .iter()
        .find(|e| e.attr("class").as_deref() == Some("bar"));
    assert_eq!(
        bar.and_then(|b| b.attr("fill")).as_deref(),
        Some("url(#t1-hatch-pause)")
    );
    assert!(crash
        .attr("aria-label")
        .as_deref()
        .is_some_and(|a| a.starts_with("R3: down 5 ms · forgets keys at 20 ms.")));
    // A partition: a bar without a fill, which the style sheet draws dashed.
    let cut = d.find("iev-R4-0").expect("R4's partition");
    assert_eq!(cut.attr("class").as_deref(), Some("fp-iev fp-cut"));
    let bar = cut
        .els()
        .iter()
        .find(|e| e.attr("class").as_deref() == Some("bar"));
    assert_eq!(bar.and_then(|b| b.attr("fill")).as_deref(), Some("none"));
    let css = crate::ui::style::CSS;
    let rule = css.find(".fp-cut .bar").map(|at| &css[at..]);
    let rule = rule.and_then(|r| r.split('}').next()).unwrap_or("");
    assert!(rule.contains("stroke-dasharray"), "{rule}");
    assert!(d.text_content().contains("cut off from A"));
}

#[test]
fn a_clock_jump_is_labelled_and_the_clock_reads_at_the_playhead() {
    let s = preset("redlock-clock-jump").expect("preset");
    let r = runs(&s);
    let l = instances_layout(&s, &r);
    let (before, after) = (view(&s, &r, &l, 14), view(&s, &r, &l, 15));
    let clock = |v: &View| lanes(v).find("clock-R3").map(El::text_content);
    assert_eq!(clock(&before).as_deref(), Some("clock exact"));
    assert_eq!(clock(&after).as_deref(), Some("clock +60 ms"));
    assert!(!super::same(&before, &after, LaneKey::Instance(2)));
    // R1's clock reads the same at both instants: its lane is not drawn again.
    assert!(super::same(&before, &after, LaneKey::Instance(0)));
    let d = lanes(&after);
    let jump = d.find("iev-R3-0").expect("R3's jump");
    assert_eq!(jump.attr("class").as_deref(), Some("fp-iev fp-jump"));
    assert!(jump.text_content().contains("clock jumps +60 ms"));
    let x = l.axis.x(15);
    let mid = l.lane(LaneKind::Instance(2)).map(|k| k.top_px).unwrap_or(0)
        + crate::ui::lanes::hits::INSTANCE_EVENT_Y
        + crate::ui::lanes::hits::INSTANCE_EVENT_H / 2;
    assert_eq!(
        jump.attr("transform").as_deref(),
        Some(format!("translate({x},{mid})").as_str())
    );
    // The bracket's label, after its tooltip with the arithmetic.
    let b = d
        .find("attempt-B-0")
        .map(El::text_content)
        .unwrap_or_default();
    assert!(b.ends_with("= 48 ms✓ 3/5 in 10 ms · valid 48 ms"), "{b}");
}

#[test]
fn the_selected_instance_event_and_its_handles_are_marked() {
    let s = preset("redlock-clock-jump").expect("preset");
    let r = runs(&s);
    let l = instances_layout(&s, &r);
    let mut v = view(&s, &r, &l, 0);
    v.selection = Selection::Instance(InstanceRef {
        instance: 3,
        event: 0,
    });
    let d = lanes(&v);
    let class = |id: &str| d.find(id).and_then(|e| e.attr("class")).unwrap_or_default();
    assert_eq!(class("iev-R4-0"), "fp-iev fp-cut selected");
    assert_eq!(class("iev-R4-0-start"), "fp-handle selected");
    assert_eq!(class("iev-R5-0"), "fp-iev fp-cut");
    assert!(!class("iev-R3-0").contains("selected"));
    // Read-only: no handles, and the bar is grabbed whole.
    v.handles = false;
    let d = lanes(&v);
    assert!(d.find("iev-R4-0-start").is_none() && d.find("iev-R4-0").is_some());
}

#[test]
fn an_instance_event_dragged_frame_after_frame_is_patched_and_moved_not_redrawn() {
    let s0 = preset("redlock-clock-jump").expect("preset");
    let r0 = runs(&s0);
    let l = instances_layout(&s0, &r0);
    // A second jump on R3 at 40 ms, which the first passes on its way right.
    let mut s0 = s0;
    if let Some(r) = s0.lock.redlock_mut() {
        r.instances[2]
            .events
            .push(crate::sim::scenario::InstanceEvent::ClockJump {
                at_ms: 40,
                by_ms: -10,
                over_ms: 0,
            });
    }
    let r0 = runs(&s0);
    let mut old = lanes(&view(&s0, &r0, &l, 0));
    let mut dom = read(&old.markup());
    let (mut s_prev, mut r_prev) = (s0.clone(), r0);
    let mut moved = false;
    for to in (0..l.axis.end_ms).step_by(3) {
        let mut s = s0.clone();
        let at = InstanceRef {
            instance: 2,
            event: 0,
        };
        set_edge(&mut s, at, Part::Body, to as i64);
        if s.validate().is_err() {
            continue;
        }
        let r = runs(&s);
        let new = lanes(&view(&s, &r, &l, 0));
        let ops = diff(&old, &new);
        moved |= ops
            .iter()
            .any(|o| matches!(o, super::diff::Op::Order { .. }));
        assert!(
            !ops.iter()
                .any(|o| matches!(o, super::diff::Op::Children { markup, .. } | super::diff::Op::Splice { markup, .. } if markup.contains("data-iev"))),
            "at {to} ms: no instance event is written again"
        );
        for op in &ops {
            apply(&mut dom, op);
        }
        assert!(same(&dom, &new), "at {to} ms");
        let (a, b) = (view(&s_prev, &r_prev, &l, 0), view(&s, &r, &l, 0));
        for key in keys(&b) {
            if super::same(&a, &b, key) {
                assert_eq!(lane(&a, key), lane(&b, key), "at {to} ms: {key:?}");
            }
        }
        old = new;
        (s_prev, r_prev) = (s, r);
    }
    assert!(
        moved,
        "the jump passed the other and was moved, not redrawn"
    );
}
