//! The first stage's JavaScript surface: `www/first.js` creates one `FirstStage`, puts its
//! markup on the page and hands it the pointer. Every method takes plain numbers and returns
//! text; nothing a reader does can make one fail.

use super::{draw, First};
use crate::ui::lanes::geometry::{svg_x, svg_y};
use crate::ui::lanes::patch::Painter;
use crate::ui::lanes::render::node::El;
use crate::ui::lanes::render::LaneKey;
use wasm_bindgen::prelude::*;

/// A scenario, its runs and its drawing: the default one for a first visit, or a link's or a
/// save's.
#[wasm_bindgen]
pub struct FirstStage {
    f: First,
    /// The lanes as the last `timeline` wrote them, until `adopt` hands them to the painter.
    written: Option<Vec<(LaneKey, El)>>,
    painter: Painter,
}

impl FirstStage {
    fn of(f: First) -> FirstStage {
        FirstStage {
            f,
            written: None,
            painter: Painter::default(),
        }
    }
}

#[wasm_bindgen]
impl FirstStage {
    /// The default scenario, laid out for a timeline `width_px` wide.
    #[wasm_bindgen(constructor)]
    pub fn new(width_px: u32) -> FirstStage {
        FirstStage::of(First::new(
            crate::sim::presets::default_scenario(),
            width_px,
        ))
    }

    /// The scenario of a share link (the page's hash), if the first stage can draw it: a single
    /// lock service whose runs fit in one render. `undefined` for any other, damaged ones too,
    /// which the full page opens and, if need be, explains.
    #[wasm_bindgen(js_name = fromLink)]
    pub fn from_link(hash: &str, width_px: u32) -> Option<FirstStage> {
        First::from_link(hash, width_px).map(FirstStage::of)
    }

    /// The autosaved scenario (its JSON), on the same terms as `fromLink`.
    #[wasm_bindgen(js_name = fromSaved)]
    pub fn from_saved(json: &str, width_px: u32) -> Option<FirstStage> {
        First::from_saved(json, width_px).map(FirstStage::of)
    }

    pub fn head(&self) -> String {
        draw::head(&self.f.heading)
    }

    pub fn hint(&self) -> String {
        draw::hint(&self.f.scenario, &self.f.runs)
    }

    pub fn verdict(&self) -> String {
        draw::verdict(&self.f.runs)
    }

    #[wasm_bindgen(js_name = verdictClass)]
    pub fn verdict_class(&self) -> String {
        draw::verdict_class(&self.f.runs)
    }

    /// The whole timeline's markup; its lanes' `<g class="fp-lanes">` is then `adopt`ed.
    pub fn timeline(&mut self) -> String {
        let f = &self.f;
        let lanes = draw::lanes(&f.layout, &f.scenario, &f.runs);
        let markup = draw::timeline_with(&f.layout, &lanes);
        self.written = Some(lanes);
        markup
    }

    /// `lanes` holds the lanes the last `timeline` wrote: later frames patch them in place.
    pub fn adopt(&mut self, lanes: &web_sys::Element) {
        self.painter.reset();
        if let Some(drawn) = self.written.take() {
            self.painter.adopt(lanes, drawn);
        }
    }

    /// Writes into `lanes` only what changed in them since the last frame (mid-drag the axis
    /// keeps its length, so nothing else on the timeline moves).
    pub fn paint(&mut self, lanes: &web_sys::Element) {
        let f = &self.f;
        self.painter
            .paint(lanes, &draw::view(&f.layout, &f.scenario, &f.runs), None);
    }

    /// The timeline's box is now `width_px` wide; true if it must be drawn again.
    pub fn resize(&mut self, width_px: u32) -> bool {
        self.f.resize(width_px)
    }

    /// A press at `(client_x, client_y)` on the timeline, whose box is at `(left, top)` and
    /// `width` × `height` on the screen; true if it holds a part.
    pub fn grab(
        &mut self,
        client_x: f64,
        client_y: f64,
        left: f64,
        top: f64,
        width: f64,
        height: f64,
    ) -> bool {
        let l = &self.f.layout;
        let x = svg_x(client_x, left, width, l.width_px);
        let y = svg_y(client_y, top, height, l.height_px);
        self.f.grab(x, y)
    }

    /// The held part follows the pointer to `client_x`; true if the drawing changed.
    pub fn follow(&mut self, client_x: f64, left: f64, width: f64) -> bool {
        let x = svg_x(client_x, left, width, self.f.layout.width_px);
        self.f.follow(x)
    }

    /// The pointer let go; true if the drawing changes (the axis or the heading).
    pub fn release(&mut self) -> bool {
        self.f.release();
        true
    }

    pub fn dragging(&self) -> bool {
        self.f.dragging()
    }

    /// The share link of the scenario on screen, once the reader has changed it.
    pub fn link(&self) -> Option<String> {
        self.f.link()
    }
}

/// Adopts the playground's style sheet in the document (the same sheet the full page uses).
#[wasm_bindgen(js_name = adoptStyle)]
pub fn adopt_style(element: &web_sys::Element) -> Result<(), JsError> {
    crate::ui::style::adopt(element).map_err(|e| JsError::new(&e))
}
