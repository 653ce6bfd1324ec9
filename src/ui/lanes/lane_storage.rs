//! The storage's lane: each debit's verdict at the instant it arrived (✓ accepted with the
//! balance after, ✗ stale_fence with the comparison, = duplicate, ✗ missing_token), and the
//! balance over time. With `ghost` set it draws the comparison `sim::compare` chose (the fence
//! check flipped, or the missing fence added), named in words, the point made without a click;
//! with nothing to compare it says so.

use super::describe::{glyph_shape, mark, storage_lane_head, Mark};
use super::geometry::{place_labels, LaneKind, Layout};
use crate::sim::compare::Contrast;
use crate::sim::words::{verdict_text, ONE_WRITE_PER_GRANT, STRICT_RULE_WHY};
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct StorageLaneProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub ghost: bool,
    /// What the ghost run changes, in words (drawn on the ghost lane only).
    pub contrast: Rc<Contrast>,
}

impl PartialEq for StorageLaneProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.ghost == other.ghost
            && (!self.ghost || self.contrast == other.contrast)
            && super::same_part(&self.trace, &other.trace, |t| {
                (
                    &t.writes,
                    &t.balance,
                    &t.clients,
                    t.final_balance,
                    t.verdict.safe,
                )
            })
    }
}

const MARK_Y: [i32; 2] = [18, 30];
const LABEL_Y: [[i32; 2]; 2] = [[44, 60], [54, 69]];

#[component]
pub fn StorageLane(props: &StorageLaneProps) -> Html {
    let l = &props.layout;
    let kind = if props.ghost {
        LaneKind::Ghost
    } else {
        LaneKind::Storage
    };
    let Some(lane) = l.lane(kind) else {
        return html! {};
    };
    let t = &props.trace;
    let top = lane.top_px;
    let prefix = if props.ghost { "ghost-" } else { "" };
    let name = |c: usize| t.client_name(c);

    let writes: Vec<(i32, String, Mark, String)> = t
        .writes
        .iter()
        .filter_map(|w| {
            let v = w.verdict.as_ref()?;
            let m = mark(&crate::sim::trace::Outcome::Stored {
                write: 0,
                verdict: v.clone(),
            });
            let id = match w.event {
                Some(e) => format!("{prefix}write-{}-{e}", name(w.client)),
                None => format!("{prefix}write-{}", name(w.client)),
            };
            let text = format!("{} {}: {}", m.glyph(), name(w.client), verdict_text(v));
            Some((l.axis.x(w.arrived_ms), text, m, id))
        })
        .collect();
    let g = usize::from(props.ghost);
    let labels: Vec<(i32, &str)> = writes.iter().map(|w| (w.0 - 8, w.1.as_str())).collect();
    let placed = place_labels(
        &labels,
        l.gutter_px + 4,
        l.axis.right_px + 8,
        LABEL_Y[g].len(),
    );

    // The balance as a step line in the lane's bottom band.
    let (band_top, band_bottom) = (top + 68, top + lane.height_px - 8);
    let lo = t.balance.iter().map(|b| b.balance).min().unwrap_or(0);
    let hi = t.balance.iter().map(|b| b.balance).max().unwrap_or(0);
    let y_of = |b: i64| -> i32 {
        if hi == lo {
            (band_top + band_bottom) / 2
        } else {
            let f = (hi - b) as i128 * i128::from(band_bottom - band_top) / (hi - lo) as i128;
            band_top + f as i32
        }
    };
    let mut d = String::new();
    let mut changes = Vec::new();
    for (i, b) in t.balance.iter().enumerate() {
        let x = l.axis.x(b.at_ms);
        let y = y_of(b.balance);
        if i == 0 {
            d.push_str(&format!("M{x},{y}"));
        } else {
            d.push_str(&format!(" H{x} V{y}"));
        }
        changes.push((x, y, b.balance));
    }
    d.push_str(&format!(" H{}", l.axis.right_px));

    // The ghost lane names its comparison; with none, it says so (the banner says why).
    let (title, sub, summary) = storage_lane_head(props.ghost.then_some(&*props.contrast), t);
    html! {
        <g class={classes!("fp-lane", "fp-storage-lane", props.ghost.then_some("fp-ghost"))}
            data-testid={if props.ghost { "lane-ghost" } else { "lane-storage" }}>
            <rect class={classes!("fp-lane-bg", props.ghost.then_some("alt"))} x="0" y={top.to_string()}
                width={l.width_px.to_string()} height={lane.height_px.to_string()} />
            <line class="fp-lane-sep" x1="0" x2={l.width_px.to_string()} y1={top.to_string()} y2={top.to_string()} />
            <text class="lane-name" x="10" y={(top + 22).to_string()}>{ title }</text>
            <text class="muted small" x="10" y={(top + 38).to_string()}>{ sub }</text>
            if !props.ghost {
                <path class="fp-balance" d={d} data-testid="balance-line" />
                { for changes.iter().map(|&(x, y, b)| html! {
                    <text class="small muted" x={(x + 4).to_string()} y={(y - 4).to_string()}>{ b.to_string() }</text>
                }) }
            } else {
                <text class="small" x={l.axis.right_px.to_string()} y={(top + 14).to_string()} text-anchor="end"
                    data-testid="ghost-lane-summary">
                    { summary.unwrap_or_default() }
                </text>
            }
            { for placed.into_iter().map(|(k, lx, row)| {
                let (x, text, m, id) = &writes[k];
                html! {
                    <g class="fp-write" data-testid={id.clone()}>
                        if text.contains(ONE_WRITE_PER_GRANT) {
                            <title>{ format!("Why: {STRICT_RULE_WHY}.") }</title>
                        }
                        <path class={m.class()} d={glyph_shape(*m)} transform={format!("translate({x},{})", top + MARK_Y[g])} />
                        <text class={m.class()} x={lx.to_string()} y={(top + LABEL_Y[g][row]).to_string()}>{ text.clone() }</text>
                    </g>
                }
            }) }
        </g>
    }
}
