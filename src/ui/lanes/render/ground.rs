//! What the lanes sit on: the time axis (tick labels along the top, the strip where the
//! playhead is grabbed, faint grid lines through every lane) and every lane's background with
//! the line above it. Drawn before anything that crosses lanes: the message arrows and the
//! playhead go over the backgrounds and under the lanes' labels. It changes only with the
//! layout, so mid-drag it is never drawn again.

use super::node::El;
use crate::ui::lanes::geometry::{LaneKind, Layout, FOOT_PX, HEADER_PX};

/// The axis, then the backgrounds. `strip`: the axis strip takes the pointer (the full page's
/// playhead); the first stage has no playhead.
pub fn ground(l: &Layout, strip: bool) -> El {
    El::g()
        .a("class", "fp-ground")
        .child(axis(l, strip))
        .child(backdrop(l))
}

fn axis(l: &Layout, strip: bool) -> El {
    let bottom = l.height_px - FOOT_PX;
    let ticks = l.axis.ticks();
    let last = ticks.last().copied();
    let mut g = El::g().a("class", "fp-axis");
    if strip {
        g.push(
            El::new("rect")
                .a("class", "fp-axis-hit")
                .a("x", 0)
                .a("y", 0)
                .a("width", l.width_px)
                .a("height", HEADER_PX)
                .a("data-testid", "axis"),
        );
    }
    let grid = ticks.iter().map(|&t| {
        let x = l.axis.x(t);
        El::new("line")
            .a("x1", x)
            .a("x2", x)
            .a("y1", HEADER_PX - 4)
            .a("y2", bottom)
            .a("data-testid", format!("grid-{t}"))
    });
    g.push(El::g().a("class", "fp-grid").children(grid));
    for &t in &ticks {
        let (label, anchor) = if Some(t) == last {
            (format!("{t} ms"), "end")
        } else {
            (t.to_string(), "middle")
        };
        g.push(
            El::new("text")
                .a("x", l.axis.x(t))
                .a("y", 14)
                .a("text-anchor", anchor)
                .a("data-testid", format!("tick-{t}"))
                .text(label),
        );
    }
    g
}

fn backdrop(l: &Layout) -> El {
    let w = l.width_px;
    let mut g = El::g().a("class", "fp-backdrop").a("aria-hidden", "true");
    for lane in &l.lanes {
        // Alternately shaded, as the lanes always were.
        let alt = match lane.kind {
            LaneKind::Lock | LaneKind::Ghost => true,
            LaneKind::Instance(i) => i % 2 == 0,
            LaneKind::Client(c) => c % 2 == 1,
            LaneKind::Storage => false,
        };
        let top = lane.top_px;
        g.push(
            El::new("rect")
                .a("class", if alt { "fp-lane-bg alt" } else { "fp-lane-bg" })
                .a("x", 0)
                .a("y", top)
                .a("width", w)
                .a("height", lane.height_px),
        );
        g.push(
            El::new("line")
                .a("class", "fp-lane-sep")
                .a("x1", 0)
                .a("x2", w)
                .a("y1", top)
                .a("y2", top),
        );
    }
    g
}
