//! A JSON object as the reader sees it: its fields, the path that leads to it, and typed
//! getters that fail with that path and with what came instead of what was expected. `read.rs`
//! describes the scenario's shape with these; this file knows nothing about scenarios.

use super::error::ScenarioError;
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

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
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
                    "unknown field `{k}`, expected one of {}",
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

    pub(super) fn u64_in(&self, name: &str, v: &Value, max: u64) -> Result<u64> {
        match v.as_u64() {
            Some(n) if n <= max => Ok(n),
            Some(n) => fail(
                &self.at(name),
                format!("expected a whole number from 0 to {max}, got {n}"),
            ),
            None => fail(
                &self.at(name),
                format!("expected a whole number ≥ 0, got {}", kind_of(v)),
            ),
        }
    }

    pub(super) fn u64(&self, name: &str) -> Result<u64> {
        self.u64_in(name, self.required(name)?, u64::MAX)
    }

    pub(super) fn u64_or(&self, name: &str, default: u64) -> Result<u64> {
        self.map
            .get(name)
            .map_or(Ok(default), |v| self.u64_in(name, v, u64::MAX))
    }

    pub(super) fn u32_or(&self, name: &str, default: u32) -> Result<u32> {
        match self.map.get(name) {
            None => Ok(default),
            Some(v) => self
                .u64_in(name, v, u64::from(u32::MAX))
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        }
    }

    pub(super) fn i64_of(&self, name: &str, v: &Value) -> Result<i64> {
        v.as_i64().map_or_else(
            || {
                fail(
                    &self.at(name),
                    format!("expected a whole number, got {}", kind_of(v)),
                )
            },
            Ok,
        )
    }

    pub(super) fn i64(&self, name: &str) -> Result<i64> {
        self.i64_of(name, self.required(name)?)
    }

    pub(super) fn i64_or(&self, name: &str, default: i64) -> Result<i64> {
        self.map
            .get(name)
            .map_or(Ok(default), |v| self.i64_of(name, v))
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
                    format!("unknown variant `{s}`, expected one of {}", words()),
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

    /// A list whose items are read by `item`, each with its own index in the path.
    pub(super) fn list<T>(
        &self,
        name: &str,
        v: &Value,
        item: impl Fn(&Value, String) -> Result<T>,
    ) -> Result<Vec<T>> {
        let at = self.at(name);
        let Value::Array(items) = v else {
            return fail(&at, format!("expected a list, got {}", kind_of(v)));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| item(x, format!("{at}[{i}]")))
            .collect()
    }

    pub(super) fn list_or<T>(
        &self,
        name: &str,
        item: impl Fn(&Value, String) -> Result<T>,
    ) -> Result<Vec<T>> {
        match self.map.get(name) {
            None => Ok(Vec::new()),
            Some(v) => self.list(name, v, item),
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
