//! The palette: one button per kind of event. A click adds that event to the selected event's
//! client (or the first client) at the playhead, and makes it the kind a double-click on a
//! lane adds (the words beside the buttons say which). A button can also be dragged onto a
//! client's lane: the timeline adds the event where it is dropped (see `TOOL_DRAG_TYPE`).

use crate::sim::scenario::Offers;
use crate::ui::model::selection::EventRef;
use crate::ui::model::state::Action;
use crate::ui::model::tools::Tool;
use yew::prelude::*;

/// The drag data type a palette button carries; its value is the tool's label.
pub const TOOL_DRAG_TYPE: &str = "application/x-fencing-playground-tool";

#[derive(Properties, PartialEq)]
pub struct PaletteProps {
    pub tool: Tool,
    pub selected: Option<EventRef>,
    pub clients: usize,
    pub playhead_ms: u64,
    pub on_add: Callback<Action>,
    /// What the lock service offers (`LockService::offered`): a button whose event it refuses
    /// (a renewal, a bare `DEL`) is not drawn.
    pub offers: Offers,
}

#[component]
pub fn Palette(props: &PaletteProps) -> Html {
    let client = props.selected.map_or(0, |r| r.client);
    html! {
        <div class="fp-group" role="group" aria-label="Add an event" data-testid="palette">
            <span class="fp-group-name">{ "Add at playhead" }</span>
            { for Tool::ALL.iter().filter(|t| t.offered(props.offers)).map(|&tool| {
                let on_add = props.on_add.clone();
                let at_ms = props.playhead_ms;
                let onclick = Callback::from(move |_: MouseEvent| on_add.emit(Action::Add { client, tool, at_ms }));
                let pressed = if tool == props.tool { "true" } else { "false" };
                let ondragstart = Callback::from(move |e: DragEvent| {
                    if let Some(data) = e.data_transfer() {
                        let _ = data.set_data(TOOL_DRAG_TYPE, tool.label());
                        data.set_effect_allowed("copy");
                    }
                });
                html! {
                    <button type="button" class="fp-tool" aria-pressed={pressed} {onclick}
                        draggable="true" {ondragstart} title="Click to add at the playhead, or drag onto a client's lane"
                        data-testid={format!("tool-{}", tool.label().replace(' ', "-"))}>
                        { tool.label() }
                    </button>
                }
            }) }
            <button type="button" onclick={props.on_add.reform(|_: MouseEvent| Action::AddClient)}
                data-testid="add-client">{ "+ client" }</button>
            // The pressed button is the double-click tool: say so in words, so its mark is not
            // mistaken for the keyboard focus.
            <span class="fp-dbl" data-testid="double-click-tool">
                { "Double-click a client lane adds: " }<b>{ props.tool.label() }</b>
            </span>
        </div>
    }
}
