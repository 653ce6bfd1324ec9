//! The time axis: tick labels along the top (the strip where the playhead is grabbed) and
//! faint grid lines through every lane.

use super::geometry::{Layout, FOOT_PX, HEADER_PX};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AxisProps {
    pub layout: Rc<Layout>,
}

/// Tick labels along the top, faint grid lines through every lane.
#[component]
pub fn Axis(props: &AxisProps) -> Html {
    let l = &props.layout;
    let bottom = l.height_px - FOOT_PX;
    let ticks = l.axis.ticks();
    let last = ticks.last().copied();
    html! {
        <g class="fp-axis">
            <rect class="fp-axis-hit" x="0" y="0" width={l.width_px.to_string()} height={HEADER_PX.to_string()}
                data-testid="axis" />
            <g class="fp-grid">
                { for ticks.iter().map(|&t| {
                    let x = l.axis.x(t).to_string();
                    html! { <line x1={x.clone()} x2={x} y1={(HEADER_PX - 4).to_string()} y2={bottom.to_string()}
                        data-testid={format!("grid-{t}")} /> }
                }) }
            </g>
            { for ticks.iter().map(|&t| {
                let label = if Some(t) == last { format!("{t} ms") } else { t.to_string() };
                let anchor = if Some(t) == last { "end" } else { "middle" };
                html! {
                    <text x={l.axis.x(t).to_string()} y="14" text-anchor={anchor} data-testid={format!("tick-{t}")}>{ label }</text>
                }
            }) }
        </g>
    }
}
