//! The drawing as data: a tree of SVG elements with their attributes and text, which `write`
//! turns into markup (every text and attribute value escaped here, in one place) and `diff`
//! compares with the previous frame's tree. Plain Rust, so what a lane draws is tested natively.
//! Text sits only in leaves (`<text>`, `<title>`): an element holds either elements or text,
//! so a child's index among the DOM's element children is its index here.
//! An attribute's value is a number, a fixed word or a string (`Val`): most of a lane's values
//! are coordinates and class names, and drawing them allocates nothing (a drag draws its lane
//! again on every frame).

use std::fmt::Write;

/// An element's children: none, its text, or elements.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Kids {
    #[default]
    None,
    Text(String),
    Els(Vec<El>),
}

/// An attribute's value. Two values are equal when they write the same text.
#[derive(Clone, Debug)]
pub enum Val {
    Int(i64),
    Word(&'static str),
    Text(String),
}

impl Val {
    /// Calls `f` with the value as text, formatting a number on the stack.
    pub fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self {
            Val::Int(n) => {
                let mut buf = [0u8; 20];
                f(int_str(*n, &mut buf))
            }
            Val::Word(w) => f(w),
            Val::Text(t) => f(t),
        }
    }

    /// The value as text, when it is held as text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Int(_) => None,
            Val::Word(w) => Some(w),
            Val::Text(t) => Some(t),
        }
    }
}

impl PartialEq for Val {
    fn eq(&self, o: &Val) -> bool {
        match (self, o) {
            (Val::Int(a), Val::Int(b)) => a == b,
            (a, b) => match (a.as_str(), b.as_str()) {
                (Some(a), Some(b)) => a == b,
                _ => a.with_str(|a| b.with_str(|b| a == b)),
            },
        }
    }
}

impl Eq for Val {}

impl PartialEq<str> for Val {
    fn eq(&self, o: &str) -> bool {
        self.with_str(|s| s == o)
    }
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.with_str(|s| f.write_str(s))
    }
}

macro_rules! val_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Val {
            fn from(n: $t) -> Val {
                Val::Int(n as i64)
            }
        }
    )*};
}
val_from_int!(i32, i64, u8, u16, u32, usize);

impl From<u64> for Val {
    fn from(n: u64) -> Val {
        match i64::try_from(n) {
            Ok(n) => Val::Int(n),
            Err(_) => Val::Text(n.to_string()),
        }
    }
}

impl From<&'static str> for Val {
    fn from(w: &'static str) -> Val {
        Val::Word(w)
    }
}

impl From<String> for Val {
    fn from(t: String) -> Val {
        Val::Text(t)
    }
}

/// `n` in decimal, written into `buf` (20 bytes hold any i64).
fn int_str(n: i64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// One SVG element. `key` names it among its siblings when they may change order (a lane's
/// events, in time order): the patcher moves a keyed element instead of redrawing its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct El {
    pub tag: &'static str,
    pub attrs: Vec<(&'static str, Val)>,
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

    pub fn a(mut self, name: &'static str, value: impl Into<Val>) -> El {
        if self.attrs.capacity() == 0 {
            // Room for the usual element's attributes at once, not grown two or three times.
            self.attrs.reserve_exact(6);
        }
        self.attrs.push((name, value.into()));
        self
    }

    /// The attribute only when `value` is there.
    pub fn a_opt(self, name: &'static str, value: Option<impl Into<Val>>) -> El {
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

    pub fn get(&self, name: &str) -> Option<&Val> {
        self.attrs.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The attribute's value as text.
    pub fn attr(&self, name: &str) -> Option<String> {
        self.get(name).map(Val::to_string)
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
            if found.is_none() && e.get("data-testid").is_some_and(|v| *v == *id) {
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
            v.with_str(|v| escape_into(o, v));
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

    #[test]
    fn a_number_writes_and_compares_as_its_text() {
        for n in [0i64, 7, -7, 1_246, i64::MIN, i64::MAX] {
            assert_eq!(Val::Int(n).to_string(), n.to_string());
            assert_eq!(Val::Int(n), Val::Text(n.to_string()));
            assert!(Val::Int(n) == *n.to_string().as_str());
        }
        assert_ne!(Val::Int(12), Val::Word("1"));
        assert_eq!(Val::Word("fp-ev"), Val::Text("fp-ev".into()));
        assert_eq!(Val::from(u64::MAX).to_string(), u64::MAX.to_string());
        assert_eq!(El::g().a("x", -3).markup(), r#"<g x="-3"></g>"#);
    }
}
