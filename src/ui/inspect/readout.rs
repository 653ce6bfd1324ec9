//! The playhead's reading under the timeline: who holds the lease, who believes it does, the
//! balance and the last fence at that instant, plus a slider so the playhead moves by keyboard.

use crate::sim::Trace;
use crate::ui::lanes::describe::{instant, instant_text};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ReadoutProps {
    pub trace: Rc<Trace>,
    pub at_ms: u64,
    pub on_move: Callback<u64>,
}

#[component]
pub fn Readout(props: &ReadoutProps) -> Html {
    let text = instant_text(&props.trace, &instant(&props.trace, props.at_ms));
    let oninput = {
        let on_move = props.on_move.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                if let Ok(t) = input.value().parse::<u64>() {
                    on_move.emit(t);
                }
            }
        })
    };
    html! {
        <div class="fp-readout">
            <p class="fp-readout-text" aria-live="polite" data-testid="readout">{ text }</p>
            <span aria-hidden="true">{ "Playhead" }</span>
            <input type="range" min="0" max={props.trace.end_ms.to_string()} value={props.at_ms.to_string()}
                aria-label="Playhead time in ms" data-testid="playhead-slider" {oninput} />
        </div>
    }
}
