//! The keyboard help under the timeline. It never changes, so it is a component without props,
//! which Yew draws once instead of building and comparing it on every render of the root.

use yew::prelude::*;

#[component]
pub fn KeyHelp() -> Html {
    html! {
        <p class="fp-keys">
            <kbd>{"Tab"}</kbd>{" moves between events · "}<kbd>{"←"}</kbd><kbd>{"→"}</kbd>
            {" move the focused event or pause edge (with "}<kbd>{"Shift"}</kbd>{": 10 ms) · "}
            <kbd>{"↑"}</kbd><kbd>{"↓"}</kbd>{" change client · "}<kbd>{"Delete"}</kbd>{" removes · "}
            <kbd>{"Ctrl+Z"}</kbd>{" / "}<kbd>{"Ctrl+Shift+Z"}</kbd>{" undo / redo · drag a palette button onto a lane, or double-click a lane, to add an event"}
        </p>
    }
}
