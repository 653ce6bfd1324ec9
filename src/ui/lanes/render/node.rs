//! The drawing as data: a tree of SVG elements with their attributes and text, which `write`
//! turns into markup (every text and attribute value escaped here, in one place) and `diff`
//! compares with the previous frame's tree. Plain Rust, so what a lane draws is tested natively.
//! Text sits only in leaves (`<text>`, `<title>`): an element holds either elements or text,
//! so a child's index among the DOM's element children is its index here.

use std::fmt::Write;

/// An element's children: none, its text, or elements.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Kids {
    #[default]
    None,
    Text(String),
    Els(Vec<El>),
}

/// One SVG element. `key` names it among its siblings when they may change order (a lane's
/// events, in time order): the patcher moves a keyed element instead of redrawing its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct El {
    pub tag: &'static str,
    pub attrs: Vec<(&'static str, String)>,
    pub kids: Kids,
    pub key: Option<u32>,
}

impl El {
    pub fn new(tag: &'static str) -> El {
        El {
            tag,
            attrs: Vec::new(),
            kids: Kids::None,
            key: None,
        }
    }

    /// A `<g>`.
    pub fn g() -> El {
        El::new("g")
    }

    pub fn a(mut self, name: &'static str, value: impl ToString) -> El {
        self.attrs.push((name, value.to_string()));
        self
    }

    /// The attribute only when `value` is there.
    pub fn a_opt(self, name: &'static str, value: Option<impl ToString>) -> El {
        match value {
            Some(v) => self.a(name, v),
            None => self,
        }
    }

    pub fn text(mut self, text: impl Into<String>) -> El {
        self.kids = Kids::Text(text.into());
        self
    }

    pub fn key(mut self, key: usize) -> El {
        self.key = Some(key as u32);
        self
    }

    /// Adds a child element (an element with text cannot take one; its text goes).
    pub fn push(&mut self, child: El) {
        match &mut self.kids {
            Kids::Els(v) => v.push(child),
            k => *k = Kids::Els(vec![child]),
        }
    }

    pub fn child(mut self, child: El) -> El {
        self.push(child);
        self
    }

    pub fn children(mut self, kids: impl IntoIterator<Item = El>) -> El {
        for k in kids {
            self.push(k);
        }
        self
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn els(&self) -> &[El] {
        match &self.kids {
            Kids::Els(v) => v,
            _ => &[],
        }
    }

    /// This element and everything in it, in document order.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a El)) {
        f(self);
        for k in self.els() {
            k.walk(f);
        }
    }

    /// The first element (this one or inside) whose `data-testid` is `id`.
    pub fn find(&self, id: &str) -> Option<&El> {
        let mut found = None;
        self.walk(&mut |e| {
            if found.is_none() && e.get("data-testid") == Some(id) {
                found = Some(e);
            }
        });
        found
    }

    /// The text of this element and everything in it.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        self.walk(&mut |e| {
            if let Kids::Text(t) = &e.kids {
                out.push_str(t);
            }
        });
        out
    }

    /// The element as markup.
    pub fn markup(&self) -> String {
        let mut o = String::new();
        self.write(&mut o);
        o
    }

    pub fn write(&self, o: &mut String) {
        let _ = write!(o, "<{}", self.tag);
        for (n, v) in &self.attrs {
            let _ = write!(o, " {n}=\"");
            escape_into(o, v);
            o.push('"');
        }
        o.push('>');
        match &self.kids {
            Kids::None => {}
            Kids::Text(t) => escape_into(o, t),
            Kids::Els(v) => v.iter().for_each(|k| k.write(o)),
        }
        let _ = write!(o, "</{}>", self.tag);
    }
}

/// The markup of several elements, one after another.
pub fn markup_of(els: &[El]) -> String {
    let mut o = String::new();
    els.iter().for_each(|e| e.write(&mut o));
    o
}

/// Text made safe for markup, inside an element or an attribute value.
pub fn escape_into(o: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_escapes_every_text_and_value() {
        let e = El::g()
            .a("data-testid", "lane-<b>")
            .child(El::new("text").a("x", 3).text("A & \"B\" <i>"));
        assert_eq!(
            e.markup(),
            r#"<g data-testid="lane-&lt;b&gt;"><text x="3">A &amp; &quot;B&quot; &lt;i&gt;</text></g>"#
        );
        assert_eq!(
            e.find("lane-<b>").map(El::text_content).as_deref(),
            Some("A & \"B\" <i>")
        );
    }
}
