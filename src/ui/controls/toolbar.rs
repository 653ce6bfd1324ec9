//! The toolbar: undo and redo, copy a link, export and import the scenario as JSON, export the
//! timeline as SVG or PNG. Hidden in read-only views. What a file or link means is decided in
//! `persist`; the files themselves are made in `export` and `raster`.

use crate::sim::Scenario;
use crate::ui::model::persist::{import_action, share_url};
use crate::ui::model::state::Action;
use crate::ui::share::export::{download, settle, svg_text, text_blob};
use crate::ui::share::raster;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};
use yew::prelude::*;

/// Files larger than this are not read: the largest valid scenario is far smaller.
const MAX_IMPORT_BYTES: f64 = 4_000_000.0;

/// Reads a scenario file (picked or dropped) and loads it, or reports in words why not; the
/// scenario on screen stays as it was when the file is too large, unreadable or invalid.
pub fn import_file(file: web_sys::File, on_action: &Callback<Action>) {
    let name = file.name();
    let problem = {
        let on_action = on_action.clone();
        move |text: String| on_action.emit(Action::Problem(Some(text)))
    };
    if file.size() > MAX_IMPORT_BYTES {
        problem(format!(
            "{name} is too large to be a scenario; nothing was imported."
        ));
        return;
    }
    let on_action = on_action.clone();
    let what = name.clone();
    settle(
        &file.text(),
        move |text| on_action.emit(import_action(&name, &text.as_string().unwrap_or_default())),
        move |_| problem(format!("{what} could not be read; nothing was imported.")),
    );
}

#[derive(Properties, PartialEq)]
pub struct ToolbarProps {
    pub scenario: Rc<Scenario>,
    /// Whether this mount owns the page's hash, so a link to the page restores the scenario.
    pub share: bool,
    /// The playground's root element, for finding the timeline to export.
    pub root: NodeRef,
    pub on_action: Callback<Action>,
    /// Whether undo and redo have a step to take.
    pub history: (bool, bool),
}

/// The outcome of the last "Copy link", for the link it copied.
#[derive(Clone, PartialEq)]
enum Copied {
    Done(String),
    /// The clipboard was unavailable or refused: show the link to copy by hand.
    Manual(String),
}

#[component]
pub fn Toolbar(props: &ToolbarProps) -> Html {
    let copied = use_state(|| None::<Copied>);
    let file_input = use_node_ref();
    let problem = {
        let on_action = props.on_action.clone();
        move |text: &str| on_action.emit(Action::Problem(Some(text.to_string())))
    };

    let copy_link = {
        let copied = copied.clone();
        let scenario = props.scenario.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(window) = web_sys::window() else {
                return;
            };
            let url = share_url(&window.location().href().unwrap_or_default(), &scenario);
            let navigator = window.navigator();
            let has_clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into())
                .map(|c| c.is_object())
                .unwrap_or(false);
            if !has_clipboard {
                copied.set(Some(Copied::Manual(url)));
                return;
            }
            let (ok, err) = (copied.clone(), copied.clone());
            let (u1, u2) = (url.clone(), url.clone());
            settle(
                &navigator.clipboard().write_text(&url),
                move |_| ok.set(Some(Copied::Done(u1))),
                move |_| err.set(Some(Copied::Manual(u2))),
            );
        })
    };

    let export_json = {
        let scenario = props.scenario.clone();
        let problem = problem.clone();
        Callback::from(move |_: MouseEvent| {
            let saved = text_blob(&scenario.to_json(), "application/json")
                .ok_or_else(|| "could not save scenario.json".to_string())
                .and_then(|b| download(&b, "scenario.json"));
            if let Err(e) = saved {
                problem(&e);
            }
        })
    };

    let pick_file = {
        let input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(i) = input.cast::<HtmlInputElement>() {
                i.click();
            }
        })
    };

    let import = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            let file = input.files().and_then(|f| f.get(0));
            // Clearing lets the same file be chosen again after it was fixed.
            input.set_value("");
            if let Some(file) = file {
                import_file(file, &on_action);
            }
        })
    };

    let export_svg = {
        let root = props.root.clone();
        let problem = problem.clone();
        Callback::from(move |_: MouseEvent| {
            let saved = root
                .cast::<Element>()
                .and_then(|r| svg_text(&r))
                .and_then(|t| text_blob(&t, "image/svg+xml"))
                .ok_or_else(|| "could not draw the timeline as SVG".to_string())
                .and_then(|b| download(&b, "timeline.svg"));
            if let Err(e) = saved {
                problem(&e);
            }
        })
    };

    let export_png = {
        let root = props.root.clone();
        let problem = problem.clone();
        Callback::from(move |_: MouseEvent| {
            let canvas = root.cast::<Element>().and_then(|r| raster::paint(&r, 2.0));
            let failed = problem.clone();
            let started = canvas.is_some_and(|c| {
                raster::to_png(&c, move |blob| {
                    let saved = blob
                        .ok_or_else(|| "could not encode the PNG".to_string())
                        .and_then(|b| download(&b, "timeline.png"));
                    if let Err(e) = saved {
                        failed(&e);
                    }
                })
            });
            if !started {
                problem("could not draw the timeline as PNG");
            }
        })
    };

    // The status belongs to the link it was made for: after an edit it no longer applies.
    let current = (*copied).as_ref().map(|_| {
        let href = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        share_url(&href, &props.scenario)
    });
    let status = match (&*copied, current) {
        (Some(Copied::Done(u)), Some(c)) if *u == c => html! {
            <span class="fp-copied" role="status" data-testid="link-copied">{ "Link copied" }</span>
        },
        (Some(Copied::Manual(u)), Some(c)) if *u == c => html! {
            <label class="fp-share-url">{ "Copy this link: " }
                <input type="text" readonly=true value={u.clone()} data-testid="share-url"
                    onfocus={Callback::from(|e: FocusEvent| {
                        if let Some(i) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) {
                            i.select();
                        }
                    })} />
            </label>
        },
        _ => html! {},
    };

    html! {
        <div class="fp-toolbar" role="toolbar" aria-label="Undo, share and export" data-testid="toolbar">
            // Here rather than at the end of the settings, where a third client pushed "Redo"
            // onto a row of its own: this row's length does not depend on the scenario.
            <button type="button" disabled={!props.history.0} data-testid="undo"
                onclick={props.on_action.reform(|_: MouseEvent| Action::Undo)}>{ "↶ Undo" }</button>
            <button type="button" disabled={!props.history.1} data-testid="redo"
                onclick={props.on_action.reform(|_: MouseEvent| Action::Redo)}>{ "↷ Redo" }</button>
            if props.share {
                <button type="button" onclick={copy_link} data-testid="copy-link">{ "Copy link" }</button>
            }
            <button type="button" onclick={export_json} data-testid="export-json">{ "Export JSON" }</button>
            <button type="button" onclick={pick_file} data-testid="import-json">{ "Import JSON…" }</button>
            <input type="file" accept=".json,application/json" class="fp-file" ref={file_input}
                onchange={import} data-testid="import-file" tabindex="-1" aria-hidden="true" />
            <button type="button" onclick={export_svg} data-testid="export-svg">{ "Export SVG" }</button>
            <button type="button" onclick={export_png} data-testid="export-png">{ "Export PNG" }</button>
            { status }
        </div>
    }
}
