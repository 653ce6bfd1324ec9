//! JSON text to a `serde_json::Value`, counting lists as it goes, so that a list far past its
//! limit is never built: a list with a limit of its own keeps the entries its limit allows and
//! skims the rest (counting them without building them), and the first such list is the
//! refusal returned beside the value, with the reader's message at its path. Lists at any
//! other place (an unknown field, a list where an object belongs) are the reader's to refuse;
//! they keep at most `SPARE` entries in all, enough for its message. Within every limit the
//! value is the one `serde_json` builds, and the refusal is `None`.
//!
//! Skimming is not free: `serde_json` still reads every character. For a million clock jumps
//! (20 MB of text) that is about a sixth of what building them cost (see
//! `examples/refusal.rs`).

use super::error::ScenarioError;
use super::fields::shown;
use super::limits::{Limit, CLIENTS, CLOCK_JUMPS, EVENTS, INSTANCES, MAX_EVENTS};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Entries kept in all by lists that have no limit of their own.
const SPARE: usize = MAX_EVENTS;

/// The value of `text` with its lists cut at their limits, and the first list that was cut;
/// or why the text is not JSON.
pub fn value(text: &str) -> Result<(Value, Option<ScenarioError>), serde_json::Error> {
    let mut state = State {
        path: Vec::new(),
        refusal: None,
        spare: SPARE,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Node(&mut state).deserialize(&mut de).and_then(|v| {
        de.end()?;
        Ok(v)
    });
    Ok((parsed?, state.refusal))
}

enum Seg {
    Key(String),
    Item(usize),
}

struct State {
    path: Vec<Seg>,
    refusal: Option<ScenarioError>,
    spare: usize,
}

impl State {
    /// The limit of the list at the current path, if it has one of its own.
    fn limit(&self) -> Option<&'static Limit> {
        let shape: Vec<&str> = self
            .path
            .iter()
            .map(|s| match s {
                Seg::Key(k) => k.as_str(),
                Seg::Item(_) => "[]",
            })
            .collect();
        match shape.as_slice() {
            ["clients"] => Some(&CLIENTS),
            ["lock", "redlock", "instances"] => Some(&INSTANCES),
            ["clients", "[]", "events"] | ["lock", "redlock", "instances", "[]", "events"] => {
                Some(&EVENTS)
            }
            ["lock", "clock", "jumps"]
            | ["clients", "[]", "clock", "jumps"]
            | ["lock", "redlock", "instances", "[]", "clock", "jumps"] => Some(&CLOCK_JUMPS),
            _ => None,
        }
    }

    /// The current path as the reader writes it: `clients[0].clock.jumps`.
    fn path_text(&self) -> String {
        let mut out = String::new();
        for s in &self.path {
            match s {
                Seg::Key(k) if out.is_empty() => out.push_str(&shown(k)),
                Seg::Key(k) => {
                    out.push('.');
                    out.push_str(&shown(k));
                }
                Seg::Item(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

/// One value, read at the state's path.
struct Node<'s>(&'s mut State);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let st = self.0;
        let limit = st.limit();
        let mut items = Vec::new();
        let mut n = 0usize;
        loop {
            let keep = match limit {
                Some(l) => (n as u64) < l.max,
                None => st.spare > 0,
            };
            if keep {
                st.path.push(Seg::Item(n));
                let item = seq.next_element_seed(Node(&mut *st));
                st.path.pop();
                match item? {
                    Some(v) => items.push(v),
                    None => break,
                }
                if limit.is_none() {
                    st.spare -= 1;
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            n += 1;
        }
        if let Some(l) = limit.filter(|l| n as u64 > l.max && st.refusal.is_none()) {
            st.refusal = Some(ScenarioError::new(st.path_text(), l.refuse(n as i128)));
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let st = self.0;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            st.path.push(Seg::Key(key));
            let v = map.next_value_seed(Node(&mut *st));
            let Some(Seg::Key(key)) = st.path.pop() else {
                return Err(de::Error::custom("the path lost its key"));
            };
            out.insert(key, v?);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::presets;

    fn refusal(text: &str) -> String {
        match value(text) {
            Ok((_, None)) => "ok".into(),
            Ok((_, Some(e))) => e.to_string(),
            Err(e) => format!("json: {e}"),
        }
    }

    #[test]
    fn within_the_limits_the_value_is_serde_jsons() {
        for p in presets() {
            let text = p.scenario.to_json();
            let want: Value = serde_json::from_str(&text).unwrap();
            assert!(value(&text).ok() == Some((want, None)), "{}", p.id);
        }
        let odd = r#"{"a":[1,-2,3.5,-0,"x",null,true,{"b":[]}],"a":{"c":18446744073709551615}}"#;
        let want: Value = serde_json::from_str(odd).unwrap();
        assert!(value(odd).ok() == Some((want, None)));
        assert!(value("[1,").is_err() && value("1 2").is_err());
    }

    #[test]
    fn a_list_past_its_limit_is_counted_not_built() {
        let jumps = vec![r#"{"atMs":1}"#; 1_001].join(",");
        assert_eq!(
            refusal(&format!(r#"{{"lock":{{"clock":{{"jumps":[{jumps}]}}}}}}"#)),
            "lock.clock.jumps: expected at most 1000 clock jumps, got 1001"
        );
        // The first list cut is the refusal; the value keeps what the limits allow.
        let clients = ["{}"; 13].join(",");
        let text = format!(r#"{{"clients":[{clients}],"lock":{{"clock":{{"jumps":[{jumps}]}}}}}}"#);
        assert_eq!(refusal(&text), "clients: expected 1 to 12 clients, got 13");
        let cut = value(&text).ok().map(|(v, _)| v);
        assert_eq!(
            cut.and_then(|v| v["clients"].as_array().map(Vec::len)),
            Some(12)
        );
        // Text that is not JSON is that first.
        assert!(refusal(&format!(r#"{{"clients":[{clients}], "oops"#)).starts_with("json: EOF"));
        // A list the format does not have keeps what the reader needs to refuse it.
        let long = vec!["1"; 20_000].join(",");
        let v = value(&format!(r#"{{"x":[{long}],"y":[[{long}]]}}"#))
            .ok()
            .map(|(v, _)| v);
        let len = |k: &str| v.as_ref().and_then(|v| v[k].as_array().map(Vec::len));
        assert_eq!((len("x"), len("y")), (Some(SPARE), Some(0)));
    }
}
