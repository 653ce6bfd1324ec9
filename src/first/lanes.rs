//! The first stage's lanes as markup text: each client's lane (beliefs, pauses and their
//! handles, markers and badges) and the storage lanes with the balance line. Split from `draw`,
//! which draws the rest of the timeline and calls these; the same rules hold here: the full
//! page's layout, hit areas, shapes and words, every text escaped.

use super::draw::{esc, lane_name, UID};
use crate::sim::compare::Contrast;
use crate::sim::trace::{Outcome, Step};
use crate::sim::words::verdict_text;
use crate::sim::{Event, Scenario, Trace};
use crate::ui::lanes::describe::{
    badge_step, event_label, glyph_shape, mark, next_point_x, shape, storage_lane_head,
};
use crate::ui::lanes::geometry::{order_of, place_labels, small_text_width_px, LaneKind, Layout};
use crate::ui::lanes::hits::{client_hits, Rect, MARK_Y, PAUSE_H, PAUSE_Y};
use crate::ui::model::item::Part;
use std::fmt::Write;

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

pub(super) fn client_lane(o: &mut String, l: &Layout, s: &Scenario, t: &Trace, c: usize) {
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
        let next_x = next_point_x(&points, i, l.axis.right_px);
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
    let badges: Vec<(i32, usize, String, &'static str)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .filter_map(|&i| {
            let step = badge_step(&t.steps, c, i)?;
            let m = mark(&step.outcome);
            let x = l.axis.x(ran_at(&t.steps, c, i, events[i].at_ms()));
            Some((x - 6, i, format!("{} {}", m.glyph(), step.text), m.class()))
        })
        .collect();
    let labels: Vec<(i32, &str)> = badges.iter().map(|b| (b.0, b.2.as_str())).collect();
    for (k, x, row) in place_labels(&labels, l.gutter_px + 4, l.axis.right_px + 8, 2) {
        let (_, i, text, class) = &badges[k];
        let _ = write!(
            o,
            r#"<g class="fp-badge {class}" data-testid="step-{name}-{i}"><text x="{x}" y="{}">{}</text></g>"#,
            top + [80, 95][row % 2],
            esc(text)
        );
    }
    o.push_str("</g>");
}

/// The storage's lane, or with `contrast` the comparison's.
pub(super) fn storage_lane(o: &mut String, l: &Layout, t: &Trace, contrast: Option<&Contrast>) {
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
    let writes: Vec<(i32, String, crate::ui::lanes::describe::Mark, String)> = t
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
    let labels: Vec<(i32, &str)> = writes.iter().map(|w| (w.0 - 8, w.1.as_str())).collect();
    let placed = place_labels(&labels, l.gutter_px + 4, l.axis.right_px + 8, 2);
    let (title, sub, sum) = storage_lane_head(contrast, t);
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
        esc(title),
        top + 38,
        esc(sub)
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
    for (k, lx, row) in placed {
        let (x, text, m, id) = &writes[k];
        let class = m.class();
        let _ = write!(
            o,
            r#"<g class="fp-write" data-testid="{id}"><path class="{class}" d="{}" transform="translate({x},{})"/><text class="{class}" x="{lx}" y="{}">{}</text></g>"#,
            glyph_shape(*m),
            top + mark_y,
            top + label_y[row % 2],
            esc(text)
        );
    }
    o.push_str("</g>");
}

/// The balance as a step line in the storage lane's bottom band, each change labelled.
pub(super) fn balance_line(o: &mut String, l: &Layout, t: &Trace, top: i32, bottom: i32) {
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
