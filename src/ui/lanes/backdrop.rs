//! Every lane's background and the line above it, drawn before anything that crosses lanes:
//! the message arrows and the playhead go over the backgrounds and under the lanes' labels.
//! Its own component, so it is drawn once per layout and not on every frame of a drag.

use super::geometry::{LaneKind, Layout};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BackdropProps {
    pub layout: Rc<Layout>,
}

#[component]
pub fn Backdrop(props: &BackdropProps) -> Html {
    let l = &props.layout;
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
