//! The first stage's markup, written as text: the heading, the verdict, the "Try it" line and
//! the timeline. It uses the full page's classes, so the same style sheet draws both, and the
//! full page's layout, hit areas, shapes and words (`ui::lanes`), so what is drawn here sits
//! where the full page will draw it. It draws less: no playhead, no message arrows, no
//! selection, and the lanes' handles take the pointer only (the keyboard comes with the full
//! page). Every number and word comes from the runs.

use super::Runs;
use crate::sim::compare::{summary, Contrast};
use crate::sim::sort::sort_by_key;
use crate::sim::trace::{Outcome, Step};
use crate::sim::words::{span_end_words, verdict_text, LEGEND};
use crate::sim::{Event, Scenario, Trace};
use crate::ui::lanes::describe::{badge_step, event_label, glyph_shape, mark, shape};
use crate::ui::lanes::geometry::{
    fit_label, order_of, place_rows, small_text_width_px, text_width_px, LaneKind, Layout, FOOT_PX,
    HEADER_PX,
};
use crate::ui::lanes::hits::{client_hits, Rect, MARK_Y, PAUSE_H, PAUSE_Y};
use crate::ui::model::heading::{Heading, EDITED_CAPTION};
use crate::ui::model::item::Part;
use std::fmt::Write;

/// The id prefix of the timeline's patterns.
const UID: &str = "fp1";

/// Text made safe for markup.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// The title and the caption (or, once edited, the line that says so).
pub fn head(h: &Heading) -> String {
    let caption = match h {
        Heading::AsWritten { caption, .. } => {
            format!(
                r#"<p class="fp-caption" data-testid="caption">{}</p>"#,
                esc(caption)
            )
        }
        Heading::Edited { .. } => format!(
            r#"<div class="fp-caption fp-edited" data-testid="caption"><p data-testid="edited">{}</p></div>"#,
            esc(EDITED_CAPTION)
        ),
    };
    format!(
        r#"<div class="fp-head"><h2 data-testid="title">{}</h2></div>{caption}"#,
        esc(&h.title())
    )
}

/// The verdict banner's contents (the element itself stays, so a screen reader hears changes).
pub fn verdict(r: &Runs) -> String {
    let t = &r.trace;
    let v = &t.verdict;
    let word = if v.safe { "✓ Safe" } else { "✗ Unsafe" };
    let mut o = format!(
        r#"<span class="fp-verdict-word" data-testid="verdict-word">{word}</span><span>Balance {}{}</span>"#,
        t.final_balance,
        t.last_fence
            .map(|f| format!(", last fence {f}"))
            .unwrap_or_default()
    );
    let list = |o: &mut String, items: &mut dyn Iterator<Item = &String>| {
        for x in items {
            let _ = write!(o, "<li>{}</li>", esc(x));
        }
    };
    if !v.violations.is_empty() {
        o.push_str(r#"<ul data-testid="violations">"#);
        list(&mut o, &mut v.violations.iter().map(|x| &x.text));
        o.push_str("</ul>");
    }
    for n in &v.notes {
        let _ = write!(o, r#"<span class="fp-ghost-sum">{}</span>"#, esc(n));
    }
    if !v.liveness.is_empty() {
        o.push_str(r#"<div class="fp-liveness" data-testid="liveness"><span class="fp-liveness-word">⚠ Work not done</span><ul>"#);
        list(&mut o, &mut v.liveness.iter().map(|x| &x.text));
        o.push_str("</ul></div>");
    }
    let _ = write!(
        o,
        r#"<span class="fp-verdict-side"><span class="fp-ghost-sum" data-testid="ghost-summary">{}</span>"#,
        esc(&summary(&r.contrast, &r.ghost))
    );
    if !v.violations.is_empty() || !v.liveness.is_empty() {
        let _ = write!(
            o,
            r#"<details class="fp-legend" data-testid="legend"><summary>What holds, believes and valid mean</summary>{}</details>"#,
            esc(LEGEND)
        );
    }
    o.push_str("</span>");
    o
}

/// The class of the verdict banner.
pub fn verdict_class(r: &Runs) -> &'static str {
    if r.trace.verdict.safe {
        "fp-verdict safe"
    } else {
        "fp-verdict unsafe"
    }
}

/// "Try it": a drag, the one thing the first stage can do (its buttons come with the full
/// page): the end of the first pause if there is one, else any event.
pub fn hint(s: &Scenario) -> String {
    let pause = s.clients.iter().find_map(|c| {
        c.events.iter().find_map(|e| match e {
            Event::Pause { cause, .. } => Some((esc(&c.name), cause.label())),
            _ => None,
        })
    });
    let (act, watch) = match pause {
        Some((who, cause)) => (
            format!("drag the right edge of {who}'s {cause} pause to the left"),
            format!(": once {who} wakes before its lease runs out, watch the verdict change."),
        ),
        None => (
            "drag any event along its lane".to_string(),
            ", and watch the verdicts change.".to_string(),
        ),
    };
    format!(r#"<p class="fp-hint" data-testid="hint">Try it: <b>{act}</b>{watch}</p>"#)
}

/// The whole timeline: an SVG as wide as `l` says.
pub fn timeline(l: &Layout, s: &Scenario, r: &Runs) -> String {
    let (w, h) = (l.width_px, l.height_px);
    let mut o = String::with_capacity(16 * 1024);
    let _ = write!(
        o,
        r#"<svg class="fp-timeline" data-testid="first-timeline" role="group" aria-label="Timeline: lock service, clients and storage over time" viewBox="0 0 {w} {h}" width="{w}" height="{h}"><defs><pattern id="{UID}-hatch-pause" patternUnits="userSpaceOnUse" width="7" height="7" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="7" class="fp-hatch-pause"/></pattern><pattern id="{UID}-hatch-stale" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(-45)"><line x1="0" y1="0" x2="0" y2="6" class="fp-hatch-stale"/></pattern></defs>"#
    );
    axis(&mut o, l);
    backdrop(&mut o, l);
    lock_lane(&mut o, l, &r.trace);
    for c in 0..s.clients.len() {
        client_lane(&mut o, l, s, &r.trace, c);
    }
    storage_lane(&mut o, l, &r.trace, None);
    storage_lane(&mut o, l, &r.ghost, Some(&r.contrast));
    o.push_str("</svg>");
    o
}

fn axis(o: &mut String, l: &Layout) {
    let bottom = l.height_px - FOOT_PX;
    let ticks = l.axis.ticks();
    o.push_str(r#"<g class="fp-axis"><g class="fp-grid">"#);
    for &t in &ticks {
        let x = l.axis.x(t);
        let _ = write!(
            o,
            r#"<line x1="{x}" x2="{x}" y1="{}" y2="{bottom}" data-testid="grid-{t}"/>"#,
            HEADER_PX - 4
        );
    }
    o.push_str("</g>");
    let last = ticks.last().copied();
    for &t in &ticks {
        let (label, anchor) = if Some(t) == last {
            (format!("{t} ms"), "end")
        } else {
            (t.to_string(), "middle")
        };
        let _ = write!(
            o,
            r#"<text x="{}" y="14" text-anchor="{anchor}" data-testid="tick-{t}">{label}</text>"#,
            l.axis.x(t)
        );
    }
    o.push_str("</g>");
}

fn backdrop(o: &mut String, l: &Layout) {
    let w = l.width_px;
    o.push_str(r#"<g class="fp-backdrop" aria-hidden="true">"#);
    for lane in &l.lanes {
        let alt = match lane.kind {
            LaneKind::Lock | LaneKind::Ghost => " alt",
            LaneKind::Client(c) if c % 2 == 1 => " alt",
            LaneKind::Instance(i) if i % 2 == 0 => " alt",
            _ => "",
        };
        let (top, height) = (lane.top_px, lane.height_px);
        let _ = write!(
            o,
            r#"<rect class="fp-lane-bg{alt}" x="0" y="{top}" width="{w}" height="{height}"/><line class="fp-lane-sep" x1="0" x2="{w}" y1="{top}" y2="{top}"/>"#
        );
    }
    o.push_str("</g>");
}

/// Two lines of a lane's name in the gutter.
fn lane_name(o: &mut String, top: i32, name: &str, sub: &str, name_x: i32) {
    let _ = write!(
        o,
        r#"<text class="lane-name" x="{name_x}" y="{}">{}</text><text class="muted small" x="10" y="{}">{sub}</text>"#,
        top + 28,
        esc(name),
        top + 44
    );
}

fn lock_lane(o: &mut String, l: &Layout, t: &Trace) {
    let Some(lane) = l.lane(LaneKind::Lock) else {
        return;
    };
    let top = lane.top_px;
    let (y, bar_h) = (top + 12, 24);
    o.push_str(r#"<g class="fp-lane fp-lock-lane" data-testid="lane-lock">"#);
    lane_name(o, top, "lock", "service", 10);
    for (i, lease) in t.leases.iter().enumerate() {
        let x0 = l.axis.x(lease.start_ms);
        let x1 = l.axis.x(lease.end_ms).max(x0 + 2);
        let who = t.client_name(lease.holder);
        let mut label = match lease.fence {
            Some(f) => format!("{who} · fence {f}"),
            None => format!("{who} · no fence"),
        };
        if text_width_px(&label) + 10 > x1 - x0 {
            label = who.to_string();
        }
        let _ = write!(
            o,
            r#"<g class="fp-lease fp-c{}" data-testid="lease-{i}"><rect x="{x0}" y="{y}" width="{}" height="{bar_h}" rx="4"/><text x="{}" y="{}">{}</text>"#,
            lease.holder % 6,
            x1 - x0,
            x0 + 6,
            y + 17,
            esc(&label)
        );
        for &at in &lease.renewals_ms {
            let x = l.axis.x(at);
            let _ = write!(
                o,
                r#"<line class="renewal" x1="{x}" x2="{x}" y1="{}" y2="{}"/>"#,
                y - 4,
                y + bar_h + 4
            );
        }
        let end = format!("{} at {} ms", span_end_words(&lease.end), lease.end_ms);
        if text_width_px(&end) < x1 - x0 + 20 {
            let _ = write!(
                o,
                r#"<text class="muted small" x="{x1}" y="{}" text-anchor="end">{end}</text>"#,
                y + bar_h + 14
            );
        }
        o.push_str("</g>");
    }
    o.push_str("</g>");
}

/// When an event actually ran: a step due during a pause runs when its client wakes.
fn ran_at(steps: &[Step], client: usize, event: usize, at_ms: u64) -> u64 {
    steps
        .iter()
        .find(|s| {
            s.client == client && s.event == Some(event) && !matches!(s.outcome, Outcome::Woke)
        })
        .map_or(at_ms, |s| s.at_ms)
}

fn hit_rects(o: &mut String, rects: &[Rect], (dx, dy): (i32, i32)) {
    for r in rects {
        let _ = write!(
            o,
            r#"<rect class="hit" x="{}" y="{}" width="{}" height="{}"/>"#,
            r.x - dx,
            r.y - dy,
            r.w,
            r.h
        );
    }
}

fn client_lane(o: &mut String, l: &Layout, s: &Scenario, t: &Trace, c: usize) {
    let (Some(lane), Some(client)) = (l.lane(LaneKind::Client(c)), s.clients.get(c)) else {
        return;
    };
    let top = lane.top_px;
    let name = esc(&client.name);
    let colour = c % 6;
    let _ = write!(
        o,
        r#"<g class="fp-lane fp-client-lane" data-testid="lane-{name}" data-lane="{c}"><g class="fp-c{colour}"><circle class="fp-swatch" cx="16" cy="{}" r="6"/></g>"#,
        top + 24
    );
    lane_name(o, top, &client.name, "client", 28);

    // What the client believes: held, then (hatched) held after its lease ended.
    for (i, b) in t.beliefs.iter().filter(|b| b.client == c).enumerate() {
        let x0 = l.axis.x(b.start_ms);
        let x_end = l.axis.x(b.end_ms).max(x0 + 2);
        let x_stale = b.stale_from_ms.map(|at| l.axis.x(at).clamp(x0, x_end));
        let held_end = x_stale.unwrap_or(x_end);
        let y = top + 4;
        let _ = write!(
            o,
            r#"<g class="fp-belief fp-c{colour}" data-testid="belief-{name}-{i}"><rect class="held" x="{x0}" y="{y}" width="{}" height="14" rx="3"/>"#,
            (held_end - x0).max(0)
        );
        let held = match b.fence {
            Some(f) => format!("believes it holds fence {f}"),
            None => "believes it holds the lock".to_string(),
        };
        if small_text_width_px(&held) + 8 < held_end - x0 {
            let _ = write!(
                o,
                r#"<text class="small" x="{}" y="{}">{held}</text>"#,
                x0 + 5,
                y + 11
            );
        }
        if let Some(xs) = x_stale {
            let _ = write!(
                o,
                r#"<rect class="stale" x="{xs}" y="{y}" width="{}" height="14" fill="url(#{UID}-hatch-stale)" data-testid="stale-{name}-{i}"/>"#,
                (x_end - xs).max(1)
            );
            let room = x_end - xs - 8;
            let words = [
                "✗ still believes it holds the lock",
                "✗ believes it holds the lock",
                "✗ stale belief",
                "✗",
            ];
            if let Some(text) = words.into_iter().find(|w| small_text_width_px(w) <= room) {
                let _ = write!(
                    o,
                    r#"<text class="small stale halo" x="{}" y="{}">{text}</text>"#,
                    xs + 4,
                    y + 11
                );
            }
        }
        o.push_str("</g>");
    }

    // The events, left to right, each with its hit areas.
    let events = &client.events;
    let starts: Vec<i64> = events.iter().map(|e| e.at_ms() as i64).collect();
    let order = order_of(&starts);
    let hits = client_hits(l, top, events, true);
    let rects = |i: usize, part: Part| -> &[Rect] {
        hits.iter()
            .find(|h| h.event == i && h.part == part)
            .map_or(&[], |h| h.rects.as_slice())
    };
    let points: Vec<(usize, i32)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .map(|&i| (i, l.axis.x(events[i].at_ms())))
        .collect();
    for &i in &order {
        let e = &events[i];
        let x = l.axis.x(e.at_ms());
        let ev = format!(r#"data-ev="{c}-{i}""#);
        if let Event::Pause { cause, .. } = e {
            let x1 = l.axis.x(e.end_ms()).max(x + 2);
            let y = top + PAUSE_Y;
            let _ = write!(
                o,
                r#"<g><g class="fp-ev fp-pause fp-c{colour}" {ev} data-part="body" data-testid="pause-{name}-{i}">"#
            );
            hit_rects(o, rects(i, Part::Body), (0, 0));
            let _ = write!(
                o,
                r#"<rect class="bar" x="{x}" y="{y}" width="{}" height="{PAUSE_H}" rx="3" fill="url(#{UID}-hatch-pause)"/>"#,
                x1 - x
            );
            let full = event_label(e);
            if let Some(text) = [full.as_str(), cause.label()]
                .into_iter()
                .find(|t| small_text_width_px(t) + 12 < x1 - x)
            {
                let _ = write!(
                    o,
                    r#"<text class="small halo" x="{}" y="{}">{}</text>"#,
                    x + 8,
                    y + 13,
                    esc(text)
                );
            }
            o.push_str("</g>");
            for (part, hx) in [(Part::Start, x), (Part::End, x1)] {
                let p = part.attr();
                let _ = write!(
                    o,
                    r#"<g class="fp-handle fp-c{colour}" {ev} data-part="{p}" data-testid="pause-{name}-{i}-{p}">"#
                );
                hit_rects(o, rects(i, part), (0, 0));
                let _ = write!(
                    o,
                    r#"<rect class="grip" x="{}" y="{}" width="6" height="{}" rx="2"/></g>"#,
                    hx - 3,
                    y - 3,
                    PAUSE_H + 6
                );
            }
            o.push_str("</g>");
            continue;
        }
        let y = top + MARK_Y;
        let x_ran = l.axis.x(ran_at(&t.steps, c, i, e.at_ms()));
        o.push_str("<g>");
        if x_ran > x + 8 {
            let _ = write!(
                o,
                r#"<line class="fp-wait" x1="{}" x2="{x_ran}" y1="{y}" y2="{y}"/><circle class="fp-wait" cx="{x_ran}" cy="{y}" r="3" fill="none"/>"#,
                x + 8
            );
        }
        let flight = match e {
            Event::Debit { delay_ms, .. } if *delay_ms > 0 => Some(l.axis.x(e.end_ms())),
            _ => None,
        };
        if let Some(fx) = flight {
            let _ = write!(
                o,
                r#"<line class="fp-flight fp-c{colour}" x1="{x}" x2="{fx}" y1="{0}" y2="{0}"/>"#,
                y + 10
            );
        }
        let _ = write!(
            o,
            r#"<g class="fp-ev fp-c{colour}" {ev} data-part="body" data-testid="event-{name}-{i}" transform="translate({x},{y})">"#
        );
        hit_rects(o, rects(i, Part::Body), (x, y));
        let _ = write!(o, r#"<path class="shape" d="{}"/>"#, shape(e));
        let next_x = points
            .iter()
            .skip_while(|(j, _)| *j != i)
            .nth(1)
            .map_or(l.axis.right_px + 40, |(_, nx)| *nx);
        let label = event_label(e);
        let dx = if x_ran > x + 8 { x_ran - x + 6 } else { 11 };
        if small_text_width_px(&label) + dx + 3 < next_x - x {
            let _ = write!(
                o,
                r#"<text class="small muted" x="{dx}" y="4">{}</text>"#,
                esc(&label)
            );
        }
        o.push_str("</g>");
        if let Some(fx) = flight {
            let _ = write!(
                o,
                r#"<g class="fp-handle fp-c{colour}" {ev} data-part="end" data-testid="debit-{name}-{i}-end">"#
            );
            hit_rects(o, rects(i, Part::End), (0, 0));
            let _ = write!(
                o,
                r#"<circle class="grip" cx="{fx}" cy="{}" r="4"/></g>"#,
                y + 10
            );
        }
        o.push_str("</g>");
    }

    // Badges: the step the core wrote for each event but pauses, in two rows.
    let mut badges: Vec<(i32, usize, String, &'static str)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .filter_map(|&i| {
            let step = badge_step(&t.steps, c, i)?;
            let m = mark(&step.outcome);
            let x = l.axis.x(ran_at(&t.steps, c, i, events[i].at_ms()));
            Some((x - 6, i, format!("{} {}", m.glyph(), step.text), m.class()))
        })
        .collect();
    sort_by_key(&mut badges, |b| b.0);
    let spans: Vec<(i32, i32)> = badges
        .iter()
        .map(|(x, _, text, _)| {
            let w = text_width_px(text);
            let x = fit_label(*x, w, l.gutter_px + 4, l.axis.right_px + 8);
            (x, x + w)
        })
        .collect();
    let rows = place_rows(&spans, 2);
    for (((_, i, text, class), (x, _)), row) in badges.iter().zip(&spans).zip(&rows) {
        let _ = write!(
            o,
            r#"<g class="fp-badge {class}" data-testid="step-{name}-{i}"><text x="{x}" y="{}">{}</text></g>"#,
            top + [80, 95][*row % 2],
            esc(text)
        );
    }
    o.push_str("</g>");
}

/// The storage's lane, or with `contrast` the comparison's.
fn storage_lane(o: &mut String, l: &Layout, t: &Trace, contrast: Option<&Contrast>) {
    let ghost = contrast.is_some();
    let Some(lane) = l.lane(if ghost {
        LaneKind::Ghost
    } else {
        LaneKind::Storage
    }) else {
        return;
    };
    let top = lane.top_px;
    let (prefix, g) = if ghost { ("ghost-", 1) } else { ("", 0) };
    let mut writes: Vec<(i32, String, crate::ui::lanes::describe::Mark, String)> = t
        .writes
        .iter()
        .filter_map(|w| {
            let v = w.verdict.as_ref()?;
            let m = mark(&Outcome::Stored {
                write: 0,
                verdict: v.clone(),
            });
            let who = esc(t.client_name(w.client));
            let id = match w.event {
                Some(e) => format!("{prefix}write-{who}-{e}"),
                None => format!("{prefix}write-{who}"),
            };
            let text = format!(
                "{} {}: {}",
                m.glyph(),
                t.client_name(w.client),
                verdict_text(v)
            );
            Some((l.axis.x(w.arrived_ms), text, m, id))
        })
        .collect();
    sort_by_key(&mut writes, |w| w.0);
    let spans: Vec<(i32, i32)> = writes
        .iter()
        .map(|(x, text, _, _)| {
            let w = text_width_px(text);
            let x = fit_label(x - 8, w, l.gutter_px + 4, l.axis.right_px + 8);
            (x, x + w)
        })
        .collect();
    let rows = place_rows(&spans, 2);
    let (title, sub, sum) = match contrast {
        None => ("storage".to_string(), "acct balance".to_string(), None),
        Some(Contrast::With {
            lane_title,
            lane_sub,
            ..
        }) => (
            lane_title.clone(),
            lane_sub.clone(),
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
            "no comparison".to_string(),
            "nothing to flip".to_string(),
            Some("nothing to compare".to_string()),
        ),
    };
    let _ = write!(
        o,
        r#"<g class="fp-lane fp-storage-lane{}" data-testid="lane-{}">"#,
        if ghost { " fp-ghost" } else { "" },
        if ghost { "ghost" } else { "storage" }
    );
    let _ = write!(
        o,
        r#"<text class="lane-name" x="10" y="{}">{}</text><text class="muted small" x="10" y="{}">{}</text>"#,
        top + 22,
        esc(&title),
        top + 38,
        esc(&sub)
    );
    match sum {
        Some(sum) => {
            let _ = write!(
                o,
                r#"<text class="small" x="{}" y="{}" text-anchor="end" data-testid="ghost-lane-summary">{}</text>"#,
                l.axis.right_px,
                top + 14,
                esc(&sum)
            );
        }
        None => balance_line(o, l, t, top, top + lane.height_px - 8),
    }
    let mark_y = [18, 30][g];
    let label_y = [[44, 60], [54, 69]][g];
    for (((x, text, m, id), (lx, _)), row) in writes.iter().zip(&spans).zip(&rows) {
        let class = m.class();
        let _ = write!(
            o,
            r#"<g class="fp-write" data-testid="{id}"><path class="{class}" d="{}" transform="translate({x},{})"/><text class="{class}" x="{lx}" y="{}">{}</text></g>"#,
            glyph_shape(*m),
            top + mark_y,
            top + label_y[*row % 2],
            esc(text)
        );
    }
    o.push_str("</g>");
}

/// The balance as a step line in the storage lane's bottom band, each change labelled.
fn balance_line(o: &mut String, l: &Layout, t: &Trace, top: i32, bottom: i32) {
    let band_top = top + 68;
    let lo = t.balance.iter().map(|b| b.balance).min().unwrap_or(0);
    let hi = t.balance.iter().map(|b| b.balance).max().unwrap_or(0);
    let y_of = |b: i64| -> i32 {
        if hi == lo {
            (band_top + bottom) / 2
        } else {
            band_top + ((hi - b) as i128 * i128::from(bottom - band_top) / (hi - lo) as i128) as i32
        }
    };
    let mut d = String::new();
    let mut labels = String::new();
    for (i, b) in t.balance.iter().enumerate() {
        let (x, y) = (l.axis.x(b.at_ms), y_of(b.balance));
        let _ = if i == 0 {
            write!(d, "M{x},{y}")
        } else {
            write!(d, " H{x} V{y}")
        };
        let _ = write!(
            labels,
            r#"<text class="small muted" x="{}" y="{}">{}</text>"#,
            x + 4,
            y - 4,
            b.balance
        );
    }
    let _ = write!(
        o,
        r#"<path class="fp-balance" d="{d} H{}" data-testid="balance-line"/>{labels}"#,
        l.axis.right_px
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::presets;

    /// Every element opened is closed, in order (the markup is well formed).
    fn balanced(markup: &str) -> Result<(), String> {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = markup;
        while let Some(at) = rest.find('<') {
            rest = &rest[at + 1..];
            let end = rest.find('>').ok_or("a tag is not closed")?;
            let tag = &rest[..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                match open.pop() {
                    Some(o) if o == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else if !tag.ends_with('/') {
                let name = tag.split([' ', '>']).next().unwrap_or_default();
                open.push(name);
            }
        }
        if open.is_empty() {
            Ok(())
        } else {
            Err(format!("left open: {open:?}"))
        }
    }

    #[test]
    fn every_client_preset_draws_well_formed_markup_with_its_verdict() {
        for p in presets() {
            if p.scenario.lock.redlock.is_some() {
                continue;
            }
            let f = super::super::First::new(p.scenario.clone(), 700);
            let svg = timeline(&f.layout, &f.scenario, &f.runs);
            balanced(&svg).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let banner = verdict(&f.runs);
            balanced(&banner).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let word = if f.runs.trace.verdict.safe {
                "✓ Safe"
            } else {
                "✗ Unsafe"
            };
            assert!(banner.contains(word), "{}", p.id);
            // Every accepted or rejected write is drawn with the core's words for it.
            for w in &f.runs.trace.writes {
                if let Some(v) = &w.verdict {
                    assert!(svg.contains(&esc(&verdict_text(v))), "{}: {v:?}", p.id);
                }
            }
            for c in &f.scenario.clients {
                for (i, e) in c.events.iter().enumerate() {
                    let id = match e {
                        Event::Pause { .. } => format!("pause-{}-{i}-end", c.name),
                        _ => format!("event-{}-{i}", c.name),
                    };
                    assert!(
                        svg.contains(&format!("data-testid=\"{id}\"")),
                        "{}: {id}",
                        p.id
                    );
                }
            }
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc(r#"<b a="1">&"#), "&lt;b a=&quot;1&quot;&gt;&amp;");
    }

    #[test]
    fn an_edited_heading_says_so() {
        let h = Heading::Edited {
            from: "GC pause".into(),
            original: "A takes…".into(),
        };
        let m = head(&h);
        assert!(m.contains("Edited from: GC pause") && m.contains(EDITED_CAPTION));
        assert!(!m.contains("A takes"));
    }
}
