//! The timeline as a PNG. The usual route (the SVG as an `<img>` drawn on a canvas) loads a
//! `blob:` or `data:` image, which the page's CSP (`default-src 'self'`) refuses, so this walks
//! the live SVG instead and paints each shape on a canvas with its computed style and its
//! transform from `getCTM()`. It knows exactly what the timeline uses: groups, rects, lines,
//! paths, circles, text, hatch patterns and the arrow marker.

use super::export::{computed, in_light, timeline};
use js_sys::{Math, Number, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d as Ctx, CssStyleDeclaration, Element, HtmlCanvasElement, Path2d,
    SvgGraphicsElement,
};

/// Paints the timeline under `root` at `scale` device pixels per CSS pixel, light palette.
pub fn paint(root: &Element, scale: f64) -> Option<HtmlCanvasElement> {
    let (svg, mount) = timeline(root)?;
    in_light(&mount, || {
        let w = num(&svg, "width");
        let h = num(&svg, "height");
        let doc = svg.owner_document()?;
        let canvas: HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
        canvas.set_width((w * scale) as u32);
        canvas.set_height((h * scale) as u32);
        let ctx: Ctx = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        let bg = computed(root)?
            .get_property_value("background-color")
            .ok()?;
        ctx.set_fill_style_str(&bg);
        ctx.fill_rect(0.0, 0.0, w * scale, h * scale);
        let painter = Painter {
            ctx,
            svg: svg.clone(),
            scale,
        };
        painter.children(&svg, 1.0);
        Some(canvas)
    })
}

fn num(el: &Element, attr: &str) -> f64 {
    el.get_attribute(attr)
        .map(|v| Number::parse_float(&v))
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

fn prop(style: &CssStyleDeclaration, name: &str) -> String {
    style.get_property_value(name).unwrap_or_default()
}

fn prop_num(style: &CssStyleDeclaration, name: &str, default: f64) -> f64 {
    let n = Number::parse_float(&prop(style, name));
    if n.is_finite() {
        n
    } else {
        default
    }
}

/// The id inside a `url(#id)` or `url("#id")` paint.
fn url_id(paint: &str) -> Option<&str> {
    let inner = paint.strip_prefix("url(")?;
    let start = inner.find('#')? + 1;
    let end = inner[start..].find(['"', '\'', ')'])? + start;
    Some(&inner[start..end])
}

struct Painter {
    ctx: Ctx,
    svg: Element,
    scale: f64,
}

impl Painter {
    fn children(&self, el: &Element, alpha: f64) {
        let kids = el.children();
        for i in 0..kids.length() {
            if let Some(k) = kids.item(i) {
                self.element(&k, alpha);
            }
        }
    }

    fn element(&self, el: &Element, alpha: f64) {
        let tag = el.tag_name();
        if matches!(
            tag.as_str(),
            "defs" | "title" | "pattern" | "marker" | "desc"
        ) {
            return;
        }
        let Some(style) = computed(el) else {
            return;
        };
        if prop(&style, "display") == "none" {
            return;
        }
        let alpha = alpha * prop_num(&style, "opacity", 1.0);
        if tag == "g" {
            self.children(el, alpha);
            return;
        }
        if prop(&style, "visibility") == "hidden" || !self.transform(el) {
            return;
        }
        let path = match tag.as_str() {
            "text" => return self.text(el, &style, alpha),
            "path" => Path2d::new_with_path_string(&el.get_attribute("d").unwrap_or_default()),
            _ => Path2d::new(),
        };
        let Ok(path) = path else {
            return;
        };
        match tag.as_str() {
            "rect" => {
                let (x, y, w, h) = (
                    num(el, "x"),
                    num(el, "y"),
                    num(el, "width"),
                    num(el, "height"),
                );
                let r = num(el, "rx").min(w / 2.0).min(h / 2.0);
                if r > 0.0 {
                    let _ = path.round_rect_with_f64(x, y, w, h, r);
                } else {
                    path.rect(x, y, w, h);
                }
            }
            "line" => {
                path.move_to(num(el, "x1"), num(el, "y1"));
                path.line_to(num(el, "x2"), num(el, "y2"));
            }
            "circle" => {
                let _ = path.arc(
                    num(el, "cx"),
                    num(el, "cy"),
                    num(el, "r"),
                    0.0,
                    std::f64::consts::TAU,
                );
            }
            "path" => {}
            _ => return,
        }
        self.fill(&path, &style, alpha);
        self.stroke(&path, &style, alpha);
        if tag == "line" {
            self.arrow(el, &style, alpha);
        }
    }

    /// Sets the canvas transform to the element's; false when it has none.
    fn transform(&self, el: &Element) -> bool {
        let Some(m) = el.dyn_ref::<SvgGraphicsElement>().and_then(|g| g.get_ctm()) else {
            return false;
        };
        let s = self.scale;
        let k = |v: f32| s * f64::from(v);
        let _ = self
            .ctx
            .set_transform(k(m.a()), k(m.b()), k(m.c()), k(m.d()), k(m.e()), k(m.f()));
        true
    }

    fn fill(&self, path: &Path2d, style: &CssStyleDeclaration, alpha: f64) {
        let paint = prop(style, "fill");
        if paint == "none" {
            return;
        }
        if let Some(id) = url_id(&paint) {
            match self.pattern(id) {
                Some(p) => self.ctx.set_fill_style_canvas_pattern(&p),
                None => return,
            }
        } else {
            self.ctx.set_fill_style_str(&paint);
        }
        self.ctx
            .set_global_alpha(alpha * prop_num(style, "fill-opacity", 1.0));
        self.ctx.fill_with_path_2d(path);
    }

    fn stroke(&self, path: &Path2d, style: &CssStyleDeclaration, alpha: f64) {
        let paint = prop(style, "stroke");
        let width = prop_num(style, "stroke-width", 1.0);
        if paint == "none" || url_id(&paint).is_some() || width <= 0.0 {
            return;
        }
        self.ctx.set_stroke_style_str(&paint);
        self.ctx.set_line_width(width);
        let dashes = js_sys::Array::new();
        for part in prop(style, "stroke-dasharray").split([',', ' ']) {
            let n = Number::parse_float(part);
            if n.is_finite() {
                dashes.push(&n.into());
            }
        }
        let _ = self.ctx.set_line_dash(&dashes);
        self.ctx
            .set_global_alpha(alpha * prop_num(style, "stroke-opacity", 1.0));
        self.ctx.stroke_with_path(path);
        let _ = self.ctx.set_line_dash(&js_sys::Array::new());
    }

    fn text(&self, el: &Element, style: &CssStyleDeclaration, alpha: f64) {
        let text = el.text_content().unwrap_or_default();
        let font = format!(
            "{} {} {}",
            prop(style, "font-weight"),
            prop(style, "font-size"),
            prop(style, "font-family")
        );
        self.ctx.set_font(&font);
        self.ctx
            .set_text_align(match prop(style, "text-anchor").as_str() {
                "middle" => "center",
                "end" => "end",
                _ => "start",
            });
        self.ctx.set_text_baseline("alphabetic");
        let paint = prop(style, "fill");
        if paint == "none" || url_id(&paint).is_some() {
            return;
        }
        self.ctx.set_fill_style_str(&paint);
        self.ctx
            .set_global_alpha(alpha * prop_num(style, "fill-opacity", 1.0));
        let _ = self.ctx.fill_text(&text, num(el, "x"), num(el, "y"));
    }

    /// A hatch `<pattern>`: its tile drawn on a small canvas, repeated, with its transform.
    fn pattern(&self, id: &str) -> Option<web_sys::CanvasPattern> {
        let pat = self.svg.query_selector(&format!("[id=\"{id}\"]")).ok()??;
        let (w, h) = (num(&pat, "width"), num(&pat, "height"));
        let doc = self.svg.owner_document()?;
        let tile: HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
        tile.set_width(w.ceil() as u32);
        tile.set_height(h.ceil() as u32);
        let tctx: Ctx = tile.get_context("2d").ok()??.dyn_into().ok()?;
        let inner = Painter {
            ctx: tctx,
            svg: self.svg.clone(),
            scale: 1.0,
        };
        let kids = pat.children();
        for i in 0..kids.length() {
            let Some(line) = kids.item(i) else { continue };
            let (Some(style), Ok(path)) = (computed(&line), Path2d::new()) else {
                continue;
            };
            path.move_to(num(&line, "x1"), num(&line, "y1"));
            path.line_to(num(&line, "x2"), num(&line, "y2"));
            inner.stroke(&path, &style, 1.0);
        }
        let p = self
            .ctx
            .create_pattern_with_html_canvas_element(&tile, "repeat")
            .ok()??;
        // patternTransform as the SVG DOM parsed it; a DOMMatrix-like object is what
        // CanvasPattern.setTransform takes.
        let matrix = Reflect::get(&pat, &"patternTransform".into())
            .and_then(|t| Reflect::get(&t, &"baseVal".into()))
            .and_then(|list| {
                let consolidate: js_sys::Function =
                    Reflect::get(&list, &"consolidate".into())?.dyn_into()?;
                consolidate.call0(&list)
            })
            .and_then(|t| Reflect::get(&t, &"matrix".into()));
        if let Ok(m) = matrix {
            if m.is_object() {
                p.set_transform(m.unchecked_ref());
            }
        }
        Some(p)
    }

    /// The arrowhead of a line with `marker-end`, drawn as the marker would place it.
    fn arrow(&self, el: &Element, style: &CssStyleDeclaration, alpha: f64) -> Option<()> {
        let id = url_id(&el.get_attribute("marker-end")?)?.to_string();
        let marker = self.svg.query_selector(&format!("[id=\"{id}\"]")).ok()??;
        let head = marker.query_selector("path").ok()??;
        let view_w = marker
            .get_attribute("viewBox")?
            .split([' ', ','])
            .filter(|s| !s.is_empty())
            .nth(2)
            .map(Number::parse_float)
            .filter(|n| n.is_finite() && *n > 0.0)?;
        let size = num(&marker, "markerWidth") / view_w * prop_num(style, "stroke-width", 1.0);
        let (x1, y1, x2, y2) = (num(el, "x1"), num(el, "y1"), num(el, "x2"), num(el, "y2"));
        let angle = Math::atan2(y2 - y1, x2 - x1);
        let ctx = &self.ctx;
        ctx.translate(x2, y2).ok()?;
        ctx.rotate(angle).ok()?;
        ctx.scale(size, size).ok()?;
        ctx.translate(-num(&marker, "refX"), -num(&marker, "refY"))
            .ok()?;
        let path = Path2d::new_with_path_string(&head.get_attribute("d")?).ok()?;
        let head_style = computed(&head)?;
        self.fill(&path, &head_style, alpha);
        Some(())
    }
}

/// Calls `done` with the PNG of `canvas`, or `None` if the browser could not encode it. False
/// when encoding could not even start (then `done` is never called).
pub fn to_png(
    canvas: &HtmlCanvasElement,
    done: impl FnOnce(Option<web_sys::Blob>) + 'static,
) -> bool {
    let cb = Closure::once_into_js(move |b: JsValue| done(b.dyn_into().ok()));
    canvas.to_blob(cb.unchecked_ref()).is_ok()
}
