//! The head of the playground: the title, the toolbar, the preset picker and the service
//! picker, and under them the caption (or, once edited, a line that says so). It describes
//! and acts on the scenario as a whole, so during a drag it is given the scenario the drag
//! began with and Yew skips it until the drop.

use super::preset_picker::PresetPicker;
use super::settings_service::ServiceSettings;
use super::toolbar::Toolbar;
use crate::sim::Scenario;
use crate::ui::model::heading::{Heading, EDITED_CAPTION};
use crate::ui::model::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeadProps {
    pub heading: Rc<Heading>,
    /// The scenario as a whole: during a drag, the one it began with.
    pub before: Rc<Scenario>,
    pub readonly: bool,
    pub share: bool,
    /// The playground's element, which the toolbar's exports draw.
    pub root: NodeRef,
    /// Whether undo and redo have a step to take; none in a compact view.
    pub history: Option<(bool, bool)>,
    pub preset_id: Option<AttrValue>,
    /// Redlock's instances, or 0 for a single Redis.
    pub instances: usize,
    pub on_action: Callback<Action>,
    pub on_pick: Callback<String>,
}

#[component]
pub fn Head(props: &HeadProps) -> Html {
    html! {
        <>
            <div class="fp-head">
                <h2 data-testid="title">{ props.heading.title() }</h2>
                if !props.readonly {
                    <Toolbar scenario={props.before.clone()} share={props.share} root={props.root.clone()}
                        on_action={props.on_action.clone()} history={props.history} />
                    <span class="fp-group">
                        <PresetPicker current={props.preset_id.clone()} on_pick={props.on_pick.clone()} />
                        <ServiceSettings instances={props.instances} on_change={props.on_action.clone()} />
                    </span>
                }
            </div>
            { caption(&props.heading) }
        </>
    }
}

/// The preset's caption, or, once the scenario is edited, a line that says so, with the
/// preset's own words one click away.
fn caption(h: &Heading) -> Html {
    match h {
        Heading::AsWritten { caption, .. } => {
            html! { <p class="fp-caption" data-testid="caption">{ caption.clone() }</p> }
        }
        Heading::Edited { original, .. } => html! {
            <div class="fp-caption fp-edited" data-testid="caption">
                <p data-testid="edited">{ EDITED_CAPTION }</p>
                <details>
                    <summary>{ "The preset's description" }</summary>
                    <p data-testid="original-caption">{ original.clone() }</p>
                </details>
            </div>
        },
    }
}
