//! The playhead: a vertical line through every lane with a handle on the axis strip. Dragging
//! the strip moves it (the timeline handles the pointer); the readout says what it shows.

use super::geometry::{Layout, FOOT_PX, HEADER_PX};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PlayheadProps {
    pub layout: Rc<Layout>,
    pub at_ms: u64,
}

#[component]
pub fn Playhead(props: &PlayheadProps) -> Html {
    let l = &props.layout;
    let x = l.axis.x(props.at_ms.min(l.axis.end_ms));
    html! {
        <g class="fp-playhead" data-testid="playhead" aria-hidden="true" pointer-events="none">
            <line x1={x.to_string()} x2={x.to_string()} y1={(HEADER_PX - 8).to_string()}
                y2={(l.height_px - FOOT_PX).to_string()} />
            <path d={format!("M{},{} h12 l-6,9 z", x - 6, HEADER_PX - 16)} />
        </g>
    }
}
