//! The storage's lane: each debit's verdict at the instant it arrived (✓ accepted with the
//! balance after, ✗ stale_fence with the comparison, = duplicate, ✗ missing_token), and the
//! balance over time. The comparison's lane (`ghost`) draws the run `sim::compare` chose (the
//! fence check flipped, or the missing fence added), named in words, the point made without a
//! click; with nothing to compare it says so.

use super::node::El;
use super::{text, View};
use crate::sim::trace::Outcome;
use crate::sim::words::{verdict_text, ONE_WRITE_PER_GRANT, STRICT_RULE_WHY};
use crate::sim::Trace;
use crate::ui::lanes::describe::{glyph_shape, mark, storage_lane_head, Mark};
use crate::ui::lanes::geometry::{place_labels, LaneKind, Layout};
use std::fmt::Write;

const MARK_Y: [i32; 2] = [18, 30];
const LABEL_Y: [[i32; 2]; 2] = [[44, 60], [54, 69]];

pub(super) fn storage_lane(v: &View, ghost: bool) -> Option<El> {
    let l = v.layout;
    let lane = l.lane(if ghost {
        LaneKind::Ghost
    } else {
        LaneKind::Storage
    })?;
    let t = if ghost { v.ghost } else { v.trace };
    let top = lane.top_px;
    let (title, sub, summary) = storage_lane_head(ghost.then_some(v.contrast), t);
    let (class, testid, bg) = if ghost {
        (
            "fp-lane fp-storage-lane fp-ghost",
            "lane-ghost",
            "fp-lane-bg alt",
        )
    } else {
        ("fp-lane fp-storage-lane", "lane-storage", "fp-lane-bg")
    };
    // The lane's own background over the arrows and the playhead that end at its top.
    let mut g = El::g()
        .a("class", class)
        .a("data-testid", testid)
        .child(
            El::new("rect")
                .a("class", bg)
                .a("x", 0)
                .a("y", top)
                .a("width", l.width_px)
                .a("height", lane.height_px),
        )
        .child(
            El::new("line")
                .a("class", "fp-lane-sep")
                .a("x1", 0)
                .a("x2", l.width_px)
                .a("y1", top)
                .a("y2", top),
        )
        .child(text("lane-name", 10, top + 22, title))
        .child(text("muted small", 10, top + 38, sub));
    if ghost {
        g.push(
            text(
                "small",
                l.axis.right_px,
                top + 14,
                summary.unwrap_or_default(),
            )
            .a("text-anchor", "end")
            .a("data-testid", "ghost-lane-summary"),
        );
    } else {
        g.push(balance(l, t, top, top + lane.height_px - 8));
    }
    g.push(writes(v, t, top, ghost));
    Some(g)
}

/// The balance as a step line in the lane's bottom band, each change labelled.
fn balance(l: &Layout, t: &Trace, top: i32, bottom: i32) -> El {
    let band_top = top + 68;
    let lo = t.balance.iter().map(|b| b.balance).min().unwrap_or(0);
    let hi = t.balance.iter().map(|b| b.balance).max().unwrap_or(0);
    let y_of = |b: i64| -> i32 {
        if hi == lo {
            (band_top + bottom) / 2
        } else {
            let f = (hi - b) as i128 * i128::from(bottom - band_top) / (hi - lo) as i128;
            band_top + f as i32
        }
    };
    let mut d = String::new();
    let mut labels = El::g();
    for (i, b) in t.balance.iter().enumerate() {
        let (x, y) = (l.axis.x(b.at_ms), y_of(b.balance));
        let _ = if i == 0 {
            write!(d, "M{x},{y}")
        } else {
            write!(d, " H{x} V{y}")
        };
        labels.push(text("small muted", x + 4, y - 4, b.balance.to_string()));
    }
    let _ = write!(d, " H{}", l.axis.right_px);
    El::g()
        .child(
            El::new("path")
                .a("class", "fp-balance")
                .a("d", d)
                .a("data-testid", "balance-line"),
        )
        .child(labels)
}

/// Each write's verdict: a glyph where it arrived and its words in one of two rows.
fn writes(v: &View, t: &Trace, top: i32, ghost: bool) -> El {
    let l = v.layout;
    let prefix = if ghost { "ghost-" } else { "" };
    let g = usize::from(ghost);
    let writes: Vec<(i32, String, Mark, String)> = t
        .writes
        .iter()
        .filter_map(|w| {
            let v = w.verdict.as_ref()?;
            let m = mark(&Outcome::Stored {
                write: 0,
                verdict: v.clone(),
            });
            let who = t.client_name(w.client);
            let id = match w.event {
                Some(e) => format!("{prefix}write-{who}-{e}"),
                None => format!("{prefix}write-{who}"),
            };
            let words = format!("{} {who}: {}", m.glyph(), verdict_text(v));
            Some((l.axis.x(w.arrived_ms), words, m, id))
        })
        .collect();
    let labels: Vec<(i32, &str)> = writes.iter().map(|w| (w.0 - 8, w.1.as_str())).collect();
    let placed = place_labels(
        &labels,
        l.gutter_px + 4,
        l.axis.right_px + 8,
        LABEL_Y[g].len(),
    );
    let full = v.full();
    El::g().children(placed.into_iter().map(|(k, lx, row)| {
        let (x, words, m, id) = &writes[k];
        let mut w = El::g().a("class", "fp-write").a("data-testid", id.clone());
        if full && words.contains(ONE_WRITE_PER_GRANT) {
            w.push(El::new("title").text(format!("Why: {STRICT_RULE_WHY}.")));
        }
        w.child(
            El::new("path")
                .a("class", m.class())
                .a("d", glyph_shape(*m))
                .a("transform", format!("translate({x},{})", top + MARK_Y[g])),
        )
        .child(text(
            m.class(),
            lx,
            top + LABEL_Y[g][row % 2],
            words.clone(),
        ))
    }))
}
