//! The full page's axis and lane backgrounds, drawn by the lane renderer (`render::ground`, as
//! the first stage draws them) into one `<g>` of this component's own, handed to Yew as a node
//! reference. They change only with the layout (a resize, a zoom, the axis fitted on a drop),
//! and then only what changed is written.

use super::geometry::Layout;
use super::patch::repaint;
use super::render::ground::ground;
use super::render::node::El;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GroundProps {
    pub layout: Rc<Layout>,
}

#[component]
pub fn Ground(props: &GroundProps) -> Html {
    let root = use_memo((), |_| super::lanes_view::svg_g("fp-ground"));
    let drawn = use_mut_ref(|| None::<El>);
    let Some(root) = root.as_ref() else {
        return html! {};
    };
    let next = ground(&props.layout, true);
    repaint(root, drawn.borrow().as_ref(), &next);
    *drawn.borrow_mut() = Some(next);
    Html::VRef(root.clone().into())
}
