//! A JSON object as the reader sees it: its fields, the path that leads to it, and typed
//! getters that fail with that path and with what came instead of what was expected. `read.rs`
//! describes the scenario's shape with these; this file knows nothing about scenarios.

use super::error::ScenarioError;
use super::limits::Limit;
use serde_json::{Map, Value};

pub(super) type Result<T> = std::result::Result<T, ScenarioError>;

pub(super) fn fail<T>(path: &str, message: String) -> Result<T> {
    Err(ScenarioError::new(path, message))
}

/// How a value that came instead of the expected one is named in a message.
fn kind_of(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("{n}"),
        Value::String(s) => format!("text {s:?}"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A field name as a message shows it: characters that print as nothing or as blank space
/// (a zero-width space, a direction mark, a control character) are escaped, `\u{200b}`, so a
/// name that looks valid on screen but is not says why.
pub(super) fn shown(name: &str) -> String {
    if name
        .chars()
        .all(|c| (c.is_ascii_graphic() && c != '\\') || c == ' ')
    {
        return name.to_string();
    }
    name.chars()
        .map(|c| {
            if c == '\\' {
                "\\\\".to_string()
            } else if invisible(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn invisible(c: char) -> bool {
    (c.is_whitespace() && c != ' ')
        || c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{115f}'..='\u{1160}'
                | '\u{17b4}'..='\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

fn join(path: &str, name: &str) -> String {
    let name = shown(name);
    if path.is_empty() {
        name
    } else {
        format!("{path}.{name}")
    }
}

/// A JSON number that is a whole number (of any size `i128` holds), or `None`.
fn whole_number(v: &Value) -> Option<i128> {
    v.as_u64()
        .map(i128::from)
        .or_else(|| v.as_i64().map(i128::from))
}

/// The fields of one JSON object, with the path that leads to it.
pub(super) struct Fields<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) path: String,
}

impl<'a> Fields<'a> {
    pub(super) fn of(v: &'a Value, path: String, what: &str) -> Result<Self> {
        match v {
            Value::Object(map) => Ok(Fields { map, path }),
            other => fail(&path, format!("expected {what}, got {}", kind_of(other))),
        }
    }

    /// Refuses a field that is not in `known` (the path names it), listing the ones that are.
    pub(super) fn only(&self, known: &[&str]) -> Result<()> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => fail(
                &self.at(k),
                format!(
                    "unknown field `{}`, expected one of {}",
                    shown(k),
                    known
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }

    pub(super) fn at(&self, name: &str) -> String {
        join(&self.path, name)
    }

    pub(super) fn required(&self, name: &str) -> Result<&'a Value> {
        match self.map.get(name) {
            Some(v) => Ok(v),
            None => fail(&self.path, format!("missing field `{name}`")),
        }
    }

    /// A whole number ≥ 0 within `limit`: a type error says what came, a number outside the
    /// range states the documented range.
    pub(super) fn whole_of(&self, name: &str, v: &Value, limit: &Limit) -> Result<u64> {
        match whole_number(v) {
            Some(n) if limit.allows(n) => Ok(n as u64),
            Some(n) => fail(&self.at(name), limit.refuse(n)),
            None => fail(
                &self.at(name),
                format!("expected a whole number ≥ 0, got {}", kind_of(v)),
            ),
        }
    }

    pub(super) fn whole(&self, name: &str, limit: &Limit) -> Result<u64> {
        self.whole_of(name, self.required(name)?, limit)
    }

    pub(super) fn whole_or(&self, name: &str, default: u64, limit: &Limit) -> Result<u64> {
        self.map
            .get(name)
            .map_or(Ok(default), |v| self.whole_of(name, v, limit))
    }

    pub(super) fn u32_or(&self, name: &str, default: u32, limit: &Limit) -> Result<u32> {
        let n = self.whole_or(name, u64::from(default), limit)?;
        u32::try_from(n).or_else(|_| fail(&self.at(name), limit.refuse(i128::from(n))))
    }

    /// A whole number, of either sign, within `limit`.
    pub(super) fn signed_of(&self, name: &str, v: &Value, limit: &Limit) -> Result<i64> {
        match whole_number(v) {
            Some(n) if limit.allows(n) => {
                i64::try_from(n).or_else(|_| fail(&self.at(name), limit.refuse(n)))
            }
            Some(n) => fail(&self.at(name), limit.refuse(n)),
            None => fail(
                &self.at(name),
                format!("expected a whole number, got {}", kind_of(v)),
            ),
        }
    }

    pub(super) fn signed(&self, name: &str, limit: &Limit) -> Result<i64> {
        self.signed_of(name, self.required(name)?, limit)
    }

    pub(super) fn signed_or(&self, name: &str, default: i64, limit: &Limit) -> Result<i64> {
        self.map
            .get(name)
            .map_or(Ok(default), |v| self.signed_of(name, v, limit))
    }

    pub(super) fn bool_or(&self, name: &str, default: bool) -> Result<bool> {
        match self.map.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => fail(
                &self.at(name),
                format!("expected true or false, got {}", kind_of(v)),
            ),
        }
    }

    pub(super) fn text_of(&self, name: &str, v: &Value) -> Result<String> {
        match v {
            Value::String(s) => Ok(s.clone()),
            other => fail(
                &self.at(name),
                format!("expected text, got {}", kind_of(other)),
            ),
        }
    }

    pub(super) fn text(&self, name: &str) -> Result<String> {
        self.text_of(name, self.required(name)?)
    }

    pub(super) fn text_or(&self, name: &str, default: &str) -> Result<String> {
        self.map
            .get(name)
            .map_or_else(|| Ok(default.to_string()), |v| self.text_of(name, v))
    }

    /// Text that may be absent or null.
    pub(super) fn maybe_text(&self, name: &str) -> Result<Option<String>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.text_of(name, v).map(Some),
        }
    }

    /// One of a fixed set of words.
    pub(super) fn choice<T: Copy>(
        &self,
        name: &str,
        v: &Value,
        choices: &[(&str, T)],
    ) -> Result<T> {
        let words = || {
            choices
                .iter()
                .map(|(w, _)| *w)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match v {
            Value::String(s) => match choices.iter().find(|(w, _)| w == s) {
                Some((_, t)) => Ok(*t),
                None => fail(
                    &self.at(name),
                    format!(
                        "unknown variant `{}`, expected one of {}",
                        shown(s),
                        words()
                    ),
                ),
            },
            other => fail(
                &self.at(name),
                format!("expected one of {}, got {}", words(), kind_of(other)),
            ),
        }
    }

    pub(super) fn choice_or<T: Copy>(
        &self,
        name: &str,
        default: T,
        choices: &[(&str, T)],
    ) -> Result<T> {
        self.map
            .get(name)
            .map_or(Ok(default), |v| self.choice(name, v, choices))
    }

    /// A list whose items are read by `item`, each with its own index in the path. A list
    /// longer than `limit` allows is refused before any item is read.
    pub(super) fn list<T>(
        &self,
        name: &str,
        v: &Value,
        limit: &Limit,
        item: impl Fn(&Value, String) -> Result<T>,
    ) -> Result<Vec<T>> {
        let at = self.at(name);
        let Value::Array(items) = v else {
            return fail(&at, format!("expected a list, got {}", kind_of(v)));
        };
        if items.len() as u64 > limit.max {
            return fail(&at, limit.refuse(items.len() as i128));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, x)| item(x, format!("{at}[{i}]")))
            .collect()
    }

    pub(super) fn list_or<T>(
        &self,
        name: &str,
        limit: &Limit,
        item: impl Fn(&Value, String) -> Result<T>,
    ) -> Result<Vec<T>> {
        match self.map.get(name) {
            None => Ok(Vec::new()),
            Some(v) => self.list(name, v, limit, item),
        }
    }

    /// A nested object, or its default when absent.
    pub(super) fn object_or<T>(
        &self,
        name: &str,
        default: impl FnOnce() -> T,
        read: impl FnOnce(&Value, String) -> Result<T>,
    ) -> Result<T> {
        match self.map.get(name) {
            None => Ok(default()),
            Some(v) => read(v, self.at(name)),
        }
    }
}
