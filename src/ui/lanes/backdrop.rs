//! Every lane's background and the line above it, drawn before anything that crosses lanes:
//! the message arrows and the playhead go over the backgrounds and under the lanes' labels.
//! A function, not a component: a component of its own cost 1.7 KB of wasm, and these few
//! unchanging elements diff in no time on each frame of a drag.

use super::geometry::{LaneKind, Layout};
use yew::prelude::*;

/// The backgrounds and separators of `l`'s lanes.
pub fn backdrop(l: &Layout) -> Html {
    let w = l.width_px.to_string();
    html! {
        <g class="fp-backdrop" aria-hidden="true">
            { for l.lanes.iter().map(|lane| {
                // Alternately shaded, as the lanes always were.
                let alt = match lane.kind {
                    LaneKind::Lock | LaneKind::Ghost => true,
                    LaneKind::Instance(i) => i % 2 == 0,
                    LaneKind::Client(c) => c % 2 == 1,
                    LaneKind::Storage => false,
                };
                let top = lane.top_px.to_string();
                html! { <>
                    <rect class={classes!("fp-lane-bg", alt.then_some("alt"))} x="0" y={top.clone()}
                        width={w.clone()} height={lane.height_px.to_string()} />
                    <line class="fp-lane-sep" x1="0" x2={w.clone()} y1={top.clone()} y2={top} />
                </> }
            }) }
        </g>
    }
}
