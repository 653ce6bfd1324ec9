//! The renderer on every preset, and the diff checked by applying it: a small model of the
//! DOM (`apply`, with a reader for the renderer's own markup) must turn the old drawing into the
//! new one, frame after frame of a drag.

use super::diff::{diff, Op};
use super::node::{El, Kids};
use super::*;
use crate::sim::compare::counterfactual;
use crate::sim::presets::presets;
use crate::sim::words::verdict_text;
use crate::sim::Event;
use crate::ui::lanes::geometry::axis_end_ms;
use crate::ui::model::selection::EventRef;

pub(super) struct Runs {
    pub(super) trace: Trace,
    pub(super) ghost: Trace,
    pub(super) contrast: Contrast,
}

pub(super) fn runs(s: &Scenario) -> Runs {
    let trace = crate::sim::run(s);
    let other = counterfactual(s);
    let ghost = other
        .scenario
        .as_ref()
        .map_or_else(|| trace.clone(), crate::sim::run);
    Runs {
        trace,
        ghost,
        contrast: other.contrast,
    }
}

fn view<'a>(s: &'a Scenario, r: &'a Runs, layout: &'a Layout) -> View<'a> {
    View {
        scenario: s,
        trace: &r.trace,
        ghost: &r.ghost,
        contrast: &r.contrast,
        layout,
        uid: "t1",
        selection: Selection::None,
        playhead_ms: 0,
        handles: true,
        keyboard: true,
    }
}

fn draw(s: &Scenario, r: &Runs, layout: &Layout, keyboard: bool) -> El {
    lanes(&View {
        scenario: s,
        trace: &r.trace,
        ghost: &r.ghost,
        contrast: &r.contrast,
        layout,
        uid: "t1",
        selection: Selection::None,
        playhead_ms: 0,
        handles: true,
        keyboard,
    })
}

fn layout(s: &Scenario, r: &Runs) -> Layout {
    Layout::new(
        800,
        s.clients.len(),
        true,
        axis_end_ms(r.trace.end_ms, s.horizon_ms()),
    )
}

#[test]
fn every_preset_draws_its_events_writes_and_lanes() {
    for p in presets() {
        let s = &p.scenario;
        let r = runs(s);
        let l = layout(s, &r);
        let d = draw(s, &r, &l, true);
        for c in &s.clients {
            assert!(d.find(&format!("lane-{}", c.name)).is_some(), "{}", p.id);
            for (i, e) in c.events.iter().enumerate() {
                let id = match e {
                    Event::Pause { .. } => format!("pause-{}-{i}-end", c.name),
                    _ => format!("event-{}-{i}", c.name),
                };
                let el = d.find(&id).unwrap_or_else(|| panic!("{}: {id}", p.id));
                assert_eq!(
                    el.get("tabindex").map(|v| v.to_string()).as_deref(),
                    Some("0"),
                    "{}: {id}",
                    p.id
                );
            }
        }
        // Every accepted or rejected write is drawn with the core's words for it.
        let words = d.text_content();
        for w in &r.trace.writes {
            if let Some(v) = &w.verdict {
                assert!(words.contains(&verdict_text(v)), "{}: {v:?}", p.id);
            }
        }
        assert!(d.find("lane-storage").is_some() && d.find("lane-ghost").is_some());
        // The lock service's lane: etcd's, PostgreSQL's, ZooKeeper's, Redlock's service lane or
        // the single Redis lane.
        let lease = r.trace.kind() == crate::sim::trace::ServiceKind::Lease;
        assert_eq!(d.find("lane-lease").is_some(), lease, "{}", p.id);
        let own = r.trace.is_advisory() || r.trace.is_zookeeper() || lease;
        assert_eq!(d.find("lane-etcd").is_some(), r.trace.is_etcd(), "{}", p.id);
        assert_eq!(
            d.find("lane-lock").is_some(),
            !own && !r.trace.is_etcd(),
            "{}",
            p.id
        );
        // Reading the markup back gives the drawing: what the patcher writes is what was drawn.
        assert!(same(&read(&d.markup()), &d), "{}", p.id);
        // Without the keyboard, nothing is focusable.
        let plain = draw(s, &r, &l, false);
        plain.walk(&mut |e| assert_eq!(e.get("tabindex"), None, "{}", p.id));
    }
}

#[test]
fn the_selected_event_is_marked_and_the_rest_are_not() {
    let s = crate::sim::presets::default_scenario();
    let r = runs(&s);
    let l = layout(&s, &r);
    let mut v = View {
        scenario: &s,
        trace: &r.trace,
        ghost: &r.ghost,
        contrast: &r.contrast,
        layout: &l,
        uid: "t1",
        selection: Selection::Event(EventRef {
            client: 0,
            event: 1,
        }),
        playhead_ms: 0,
        handles: true,
        keyboard: true,
    };
    let d = lanes(&v);
    let class = |d: &El, id: &str| {
        d.find(id)
            .and_then(|e| e.get("class"))
            .map(|c| c.to_string())
            .unwrap_or_default()
    };
    assert!(class(&d, "pause-A-1").ends_with("selected"));
    assert!(class(&d, "pause-A-1-end").ends_with("selected"));
    assert!(!class(&d, "event-A-0").contains("selected"));
    v.handles = false;
    let d = lanes(&v);
    assert!(d.find("pause-A-1-end").is_none(), "read-only: no handles");
}

#[test]
fn a_drag_frame_after_frame_writes_only_what_changed_and_the_writes_rebuild_the_drawing() {
    for p in presets()
        .iter()
        .filter(|p| p.scenario.clients.iter().any(|c| !c.events.is_empty()))
    {
        let s0 = p.scenario.clone();
        let r0 = runs(&s0);
        // The axis keeps its length mid-drag, as on the page.
        let l = layout(&s0, &r0);
        let mut old = draw(&s0, &r0, &l, true);
        let mut dom = read(&old.markup());
        // The arrows too, which are keyed by what each message stands for.
        let mut old_arrows = super::messages::messages(&r0.trace, &l, "t1");
        let mut arrows = read(&old_arrows.markup());
        let (mut s_prev, mut r_prev) = (s0.clone(), r0);
        let Some(i) =
            (0..s0.clients[0].events.len()).max_by_key(|&i| s0.clients[0].events[i].end_ms())
        else {
            continue;
        };
        for to in (0..l.axis.end_ms).step_by(3) {
            let mut s = s0.clone();
            let part = if matches!(s.clients[0].events[i], Event::Pause { .. }) {
                crate::ui::model::item::Part::End
            } else {
                crate::ui::model::item::Part::Body
            };
            crate::ui::model::selection::set_edge(
                &mut s,
                EventRef {
                    client: 0,
                    event: i,
                },
                part,
                to as i64,
            );
            if s.validate().is_err() {
                continue;
            }
            let r = runs(&s);
            let new = draw(&s, &r, &l, true);
            let ops = diff(&old, &new);
            assert!(
                !ops.iter()
                    .any(|o| matches!(o, Op::Replace { path, .. } if path.is_empty())),
                "{}: the root is never replaced",
                p.id
            );
            for op in &ops {
                apply(&mut dom, op);
            }
            assert!(same(&dom, &new), "{} at {to} ms", p.id);
            let new_arrows = super::messages::messages(&r.trace, &l, "t1");
            for op in &diff(&old_arrows, &new_arrows) {
                apply(&mut arrows, op);
            }
            assert!(same(&arrows, &new_arrows), "{}: arrows at {to} ms", p.id);
            old_arrows = new_arrows;
            // A lane the painter skips as unchanged draws the same.
            let (a, b) = (view(&s_prev, &r_prev, &l), view(&s, &r, &l));
            for key in keys(&b) {
                if super::same(&a, &b, key) {
                    assert_eq!(lane(&a, key), lane(&b, key), "{} at {to} ms: {key:?}", p.id);
                }
            }
            old = new;
            (s_prev, r_prev) = (s, r);
        }
    }
}

/// The model DOM: an element's place from its path.
fn at<'a>(root: &'a mut El, path: &[u16]) -> &'a mut El {
    path.iter().fold(root, |e, &i| match &mut e.kids {
        Kids::Els(v) => &mut v[usize::from(i)],
        _ => panic!("no element at {path:?}"),
    })
}

/// One write to the model DOM, as the patcher makes it to the real one (keys are not in the
/// DOM: the model's are dropped wherever markup is read, and compared without them).
pub(super) fn apply(root: &mut El, op: &Op) {
    match op {
        Op::Attr { path, name, value } => {
            let e = at(root, path);
            e.attrs.retain(|(n, _)| n != name);
            if let Some(v) = value {
                e.attrs.push((name, v.clone()));
            }
        }
        Op::Text { path, text } => at(root, path).kids = Kids::Text(text.clone()),
        Op::Order { path, from } => {
            let e = at(root, path);
            let old = std::mem::take(&mut e.kids);
            let Kids::Els(old) = old else {
                panic!("no children to order")
            };
            e.kids = Kids::Els(from.iter().map(|&i| old[usize::from(i)].clone()).collect());
        }
        Op::Children { path, markup } => {
            let kids = read(&format!("<g>{markup}</g>")).kids;
            at(root, path).kids = kids;
        }
        Op::Replace { path, markup } => *at(root, path) = read(markup),
        Op::Splice {
            path,
            at: from,
            remove,
            markup,
        } => {
            let new = match read(&format!("<g>{markup}</g>")).kids {
                Kids::Els(v) => v,
                _ => Vec::new(),
            };
            let e = at(root, path);
            let mut kids = match std::mem::take(&mut e.kids) {
                Kids::Els(v) => v,
                _ => Vec::new(),
            };
            let from = usize::from(*from);
            kids.splice(from..from + usize::from(*remove), new);
            e.kids = Kids::Els(kids);
        }
    }
    normalise(root);
}

/// Attributes in name order and no keys, so two drawings compare by what the DOM would hold.
fn normalise(e: &mut El) {
    e.attrs.sort_by(|a, b| a.0.cmp(b.0));
    e.key = None;
    // An empty text is no text, in the DOM as in markup.
    if e.kids == Kids::Text(String::new()) {
        e.kids = Kids::None;
    }
    if let Kids::Els(v) = &mut e.kids {
        if v.is_empty() {
            e.kids = Kids::None;
        } else {
            v.iter_mut().for_each(normalise);
        }
    }
}

/// Whether two drawings would be the same DOM.
pub(super) fn same(a: &El, b: &El) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    normalise(&mut a);
    normalise(&mut b);
    a == b
}

/// Reads the renderer's own markup back into a tree (tags it wrote, values it escaped).
pub(super) fn read(markup: &str) -> El {
    fn unescape(s: &str) -> String {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    }
    fn tag(s: &str) -> &'static str {
        // The renderer's tags are static strings: find the one this is.
        ["g", "rect", "text", "title", "path", "line", "circle"]
            .into_iter()
            .find(|t| *t == s)
            .unwrap_or_else(|| panic!("unknown tag {s}"))
    }
    fn name(s: &str) -> &'static str {
        Box::leak(s.to_string().into_boxed_str())
    }
    fn element(rest: &mut &str) -> El {
        let end = rest.find('>').expect("a closed tag");
        let head = &rest[1..end];
        *rest = &rest[end + 1..];
        let (t, mut attrs) = head.split_once(' ').unwrap_or((head, ""));
        let mut e = El::new(tag(t));
        while let Some((n, after)) = attrs.split_once("=\"") {
            let (v, next) = after.split_once('"').expect("a quoted value");
            e.attrs.push((name(n.trim()), unescape(v).into()));
            attrs = next;
        }
        let close = format!("</{t}>");
        if rest.starts_with('<') && !rest.starts_with("</") {
            let mut kids = Vec::new();
            while !rest.starts_with(&close) {
                kids.push(element(rest));
            }
            e.kids = Kids::Els(kids);
        } else if !rest.starts_with(&close) {
            let end = rest.find("</").expect("a closing tag");
            e.kids = Kids::Text(unescape(&rest[..end]));
            *rest = &rest[end..];
        }
        *rest = rest
            .strip_prefix(close.as_str())
            .expect("the element closes");
        e
    }
    let mut rest = markup;
    let mut e = element(&mut rest);
    assert!(rest.is_empty(), "left over: {rest}");
    normalise(&mut e);
    e
}

#[test]
fn the_ground_has_every_tick_and_a_background_per_lane() {
    let s = crate::sim::presets::default_scenario();
    let r = runs(&s);
    let l = layout(&s, &r);
    let g = ground::ground(&l, true);
    for t in l.axis.ticks() {
        assert!(g.find(&format!("tick-{t}")).is_some() && g.find(&format!("grid-{t}")).is_some());
    }
    assert!(g.find("axis").is_some());
    assert!(
        ground::ground(&l, false).find("axis").is_none(),
        "no strip without a playhead"
    );
    let mut backgrounds = 0;
    g.walk(&mut |e| {
        backgrounds += usize::from(
            e.get("class")
                .is_some_and(|c| c.to_string().starts_with("fp-lane-bg")),
        )
    });
    assert_eq!(backgrounds, l.lanes.len());
}

#[test]
fn the_banner_and_the_arrows_say_what_each_preset_ran() {
    for p in presets() {
        let s = &p.scenario;
        let r = runs(s);
        let l = layout(s, &r);
        let b = verdict::banner(&r.trace, &r.ghost, &r.contrast);
        let word = b.find("verdict-word").map(El::text_content);
        let want = if r.trace.verdict.safe {
            "✓ Safe"
        } else {
            "✗ Unsafe"
        };
        assert_eq!(word.as_deref(), Some(want), "{}", p.id);
        let all = b.text_content();
        assert!(
            all.contains(&format!("Balance {}", r.trace.final_balance)),
            "{}",
            p.id
        );
        let listed = b.find("violations").map_or(0, |u| u.els().len());
        assert_eq!(listed, r.trace.verdict.violations.len(), "{}", p.id);
        let summary = crate::sim::compare::summary(&r.contrast, &r.ghost);
        let side = b.find("ghost-summary").map(El::text_content);
        assert_eq!(side, Some(summary), "{}", p.id);
        let legend = !r.trace.verdict.violations.is_empty() || !r.trace.verdict.liveness.is_empty();
        assert_eq!(b.find("legend").is_some(), legend, "{}", p.id);
        // One arrow per message (every client has a lane here); a lost one has no head.
        let m = messages::messages(&r.trace, &l, "t1");
        assert_eq!(m.els().len(), r.trace.messages.len(), "{}", p.id);
        for (line, msg) in m.els().iter().zip(&r.trace.messages) {
            assert_eq!(line.get("marker-end").is_none(), msg.lost, "{}", p.id);
            assert!(same(&read(&line.markup()), line), "{}", p.id);
        }
    }
}
