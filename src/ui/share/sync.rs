//! Keeps the page's URL hash and localStorage in step with the scenario, and loads links pasted
//! into the address bar. Only the main page asks for this (`share`, `autosave`); embeds never
//! touch their host's address or storage. What to do with a hash or saved text is decided in
//! `persist`; this file only talks to the browser, from effects.

use crate::sim::Scenario;
use crate::ui::model::persist::{self, STORAGE_KEY};
use crate::ui::model::state::Action;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The page's hash, `#` included, or `None` when there is none.
pub fn page_hash() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    (!hash.is_empty()).then_some(hash)
}

fn storage() -> Option<web_sys::Storage> {
    // Storage can be missing or refused (private modes, sandboxed frames): then nothing is kept.
    web_sys::window()?.local_storage().ok()?
}

/// The autosaved scenario's JSON text, if there is one.
pub fn saved() -> Option<String> {
    storage()?.get_item(STORAGE_KEY).ok()?
}

fn write_hash(hash: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if window.location().hash().ok().as_deref() == Some(hash) {
        return;
    }
    if let Ok(history) = window.history() {
        // replaceState, not a new entry per edit: Back should leave the page, not undo a drag.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(hash));
    }
}

/// Writes the scenario to the hash and storage when it settles (not on every pointer move of a
/// drag: browsers throttle history updates), and loads links that arrive by `hashchange`.
#[hook]
pub fn use_sync(
    scenario: Rc<Scenario>,
    dragging: bool,
    share: bool,
    autosave: bool,
    on_action: Callback<Action>,
) {
    let written = use_mut_ref(String::new);
    {
        let written = written.clone();
        use_effect_with((scenario, dragging), move |(s, dragging)| {
            if *dragging {
                return;
            }
            if share {
                let hash = persist::hash_for(s);
                write_hash(&hash);
                *written.borrow_mut() = hash;
            }
            if autosave {
                if let Some(store) = storage() {
                    // A full or refused storage loses the autosave, not the page.
                    let _ = store.set_item(STORAGE_KEY, &s.to_json());
                }
            }
        });
    }
    use_effect_with(share, move |share| {
        let listener = share.then(|| listen_hash(written, on_action)).flatten();
        move || {
            if let (Some(cb), Some(window)) = (listener, web_sys::window()) {
                let _ = window
                    .remove_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            }
        }
    });
}

fn listen_hash(
    written: Rc<RefCell<String>>,
    on_action: Callback<Action>,
) -> Option<Closure<dyn FnMut(web_sys::Event)>> {
    let window = web_sys::window()?;
    let cb = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        let hash = page_hash().unwrap_or_default();
        if let Some(action) = persist::hash_action(&hash, &written.borrow()) {
            on_action.emit(action);
        }
    });
    window
        .add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref())
        .ok()?;
    Some(cb)
}
