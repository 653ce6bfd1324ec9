//! The playhead's reading under the timeline: who holds the lease, who believes it does, the
//! balance and the last fence at that instant, plus a slider so the playhead moves by keyboard.
//! The reading's paragraph is an element of its own handed to Yew as a node reference and
//! shared (`Drawn`) with the live drag path (`ui/live.rs`), which writes it mid-drag.

use crate::sim::Trace;
use crate::ui::lanes::describe::{instant, instant_text};
use crate::ui::lanes::patch::{paint_drawn, Drawn};
use crate::ui::lanes::render::node::El;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The reading is worked out by the caller (`reading`), so that mid-drag, while the run
/// changes but not what it says at the playhead, the readout compares equal and is skipped.
#[derive(Properties, PartialEq)]
pub struct ReadoutProps {
    pub text: AttrValue,
    pub end_ms: u64,
    pub at_ms: u64,
    pub on_move: Callback<u64>,
    pub drawn: Drawn,
    /// The live drag path's count of frames: after one, the reading is written again.
    pub epoch: u32,
}

/// What the readout says about `trace` at `at_ms`.
pub fn reading(trace: &Trace, at_ms: u64) -> AttrValue {
    instant_text(trace, &instant(trace, at_ms)).into()
}

/// The reading's paragraph.
pub fn reading_el(text: &str) -> El {
    El::new("p")
        .a("class", "fp-readout-text")
        .a("aria-live", "polite")
        .a("data-testid", "readout")
        .text(text)
}

#[component]
pub fn Readout(props: &ReadoutProps) -> Html {
    let p = use_memo((), |_| {
        web_sys::window()?.document()?.create_element("p").ok()
    });
    if let Some(p) = p.as_ref() {
        paint_drawn(&props.drawn, p, reading_el(&props.text));
    }
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
            if let Some(p) = p.as_ref() { { Html::VRef(p.clone().into()) } }
            <span aria-hidden="true">{ "Playhead" }</span>
            <input type="range" min="0" max={props.end_ms.to_string()} value={props.at_ms.to_string()}
                aria-label="Playhead time in ms" data-testid="playhead-slider" {oninput} />
        </div>
    }
}
