//! Reading what JavaScript passed and answering in kind: JSON text in and out, whole numbers,
//! flags and text checked against their documented ranges, and errors that name the argument.
//! Every function here returns an error instead of panicking.

use crate::sim::scenario::{counts, SCENARIO_VERSION};
use crate::sim::{Scenario, ScenarioError};
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;

pub(super) fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// JSON text of a JS value; strings are taken as JSON text already.
pub(super) fn json_text(value: &JsValue, what: &str) -> Result<String, JsError> {
    if let Some(text) = value.as_string() {
        return Ok(text);
    }
    if value.is_undefined() || value.is_null() {
        return Err(error(format!("{what}: expected an object, got nothing")));
    }
    JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| error(format!("{what}: could not be turned into JSON")))
}

pub(super) fn from_json_text(text: &str) -> Result<JsValue, JsError> {
    JSON::parse(text).map_err(|_| error("internal: produced JSON the browser could not read"))
}

pub(super) fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(|e| error(format!("internal: {e}")))?;
    from_json_text(&text)
}

pub(super) fn scenario_arg(value: &JsValue) -> Result<Scenario, JsError> {
    let scenario = |e: ScenarioError| error(format!("scenario: {e}"));
    counts_of(value).map_err(scenario)?;
    let text = json_text(value, "scenario")?;
    read_scenario(value, &text).map_err(scenario)
}

/// The counts of a scenario object's lists (`sim::scenario::counts`), before `JSON.stringify`
/// reads a single entry: a million clock jumps are refused by their count. JSON text is
/// counted as it is parsed, and an object of another version by the reader after migrating.
pub(super) fn counts_of(value: &JsValue) -> Result<(), ScenarioError> {
    if !value.is_object() || get(value, "version").as_f64() != Some(f64::from(SCENARIO_VERSION)) {
        return Ok(());
    }
    counts::check(&Js(value.clone()))
}

/// A JS value as the counts read it; every lookup that throws (a proxy, a getter) is absent.
struct Js(JsValue);

impl counts::Tree for Js {
    fn field(&self, name: &str) -> Option<Js> {
        if !self.0.is_object() {
            return None;
        }
        let v = Reflect::get(&self.0, &name.into()).ok()?;
        (!v.is_undefined()).then_some(Js(v))
    }

    fn list_len(&self) -> Option<usize> {
        // `length` is read, never `Array.from`, which would copy the list.
        Array::is_array(&self.0).then(|| self.0.unchecked_ref::<Array>().length() as usize)
    }

    fn item(&self, i: usize) -> Option<Js> {
        let i = u32::try_from(i).ok()?;
        Reflect::get_u32(&self.0, i).ok().map(Js)
    }

    fn is_text(&self, text: &str) -> bool {
        self.0.as_string().as_deref() == Some(text)
    }
}

/// Reads the scenario a JS value stands for, given its JSON text. `JSON.stringify` writes NaN
/// and ±Infinity as null, so when the text holds a null the value itself is searched for the
/// number that became it, and the message names that number instead of a null nobody wrote.
/// The search is bounded: a null the reader refused is looked up at the path it names, and the
/// whole value is searched only once the reader has accepted it (a null it took: an absent
/// `redlock`, idempotency key or partition client), when every list is within its limit.
pub(super) fn read_scenario(value: &JsValue, text: &str) -> Result<Scenario, ScenarioError> {
    let result = Scenario::from_json(text);
    if value.as_string().is_some() || !text.contains("null") {
        return result;
    }
    match result {
        Err(e) if e.message.ends_with("got null") => {
            match at_path(value, &e.path).and_then(|v| non_finite_number(&v)) {
                Some(number) => {
                    let expected = &e.message[..e.message.len() - "null".len()];
                    Err(ScenarioError::new(
                        e.path.clone(),
                        format!("{expected}{number}"),
                    ))
                }
                None => Err(e),
            }
        }
        Ok(scenario) => {
            let mut path = String::new();
            match non_finite(value, &mut path, 0) {
                Some(number) => Err(ScenarioError::new(
                    path,
                    format!("got {number}, which JSON cannot carry (it would be read as null)"),
                )),
                None => Ok(scenario),
            }
        }
        Err(e) => Err(e),
    }
}

/// The value at a path as the reader writes it (`clients[0].events[1].atMs`), if there is one.
fn at_path(value: &JsValue, path: &str) -> Option<JsValue> {
    let mut v = value.clone();
    for part in path.split('.') {
        let mut pieces = part.split('[');
        let name = pieces.next()?;
        if !name.is_empty() {
            v = Reflect::get(&v, &name.into()).ok()?;
        }
        for index in pieces {
            let i: u32 = index.strip_suffix(']')?.parse().ok()?;
            v = Reflect::get_u32(&v, i).ok()?;
        }
    }
    Some(v)
}

/// NaN or ±Infinity, spelled as JavaScript spells it, when `value` is one.
fn non_finite_number(value: &JsValue) -> Option<&'static str> {
    match value.as_f64()? {
        n if n.is_nan() => Some("NaN"),
        n if n.is_infinite() && n > 0.0 => Some("Infinity"),
        n if n.is_infinite() => Some("-Infinity"),
        _ => None,
    }
}

/// Deeper than this the JSON reader refuses the text anyway.
const MAX_DEPTH: u32 = 130;

/// The first NaN or ±Infinity inside `value`, spelled as JavaScript spells it, with `path`
/// left pointing at it (`clients[0].events[1].atMs`).
fn non_finite(value: &JsValue, path: &mut String, depth: u32) -> Option<&'static str> {
    if value.as_f64().is_some() {
        return non_finite_number(value);
    }
    if depth > MAX_DEPTH || !value.is_object() {
        return None;
    }
    let len = path.len();
    if Array::is_array(value) {
        for (i, item) in Array::from(value).iter().enumerate() {
            path.push_str(&format!("[{i}]"));
            if let Some(n) = non_finite(&item, path, depth + 1) {
                return Some(n);
            }
            path.truncate(len);
        }
    } else {
        for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
            let name = key.as_string().unwrap_or_default();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&name);
            let item = Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
            if let Some(n) = non_finite(&item, path, depth + 1) {
                return Some(n);
            }
            path.truncate(len);
        }
    }
    None
}

pub(super) fn msg(e: JsError) -> String {
    JsValue::from(e)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

pub(super) fn get(target: &JsValue, field: &str) -> JsValue {
    Reflect::get(target, &field.into()).unwrap_or(JsValue::UNDEFINED)
}

pub(super) fn set(target: &Object, field: &str, value: JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(target, &field.into(), &value);
}

pub(super) fn flag(options: &JsValue, field: &str) -> Result<bool, JsError> {
    let v = get(options, field);
    if v.is_undefined() || v.is_null() {
        return Ok(false);
    }
    v.as_bool()
        .ok_or_else(|| error(format!("mount: options.{field}: expected true or false")))
}

/// A whole number from JS, in `0..=max`, or an error naming the argument.
pub(super) fn whole(v: &JsValue, what: &str, max: f64) -> Result<u64, JsError> {
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=max).contains(&n) => Ok(n as u64),
        // JavaScript spells the number: Rust's float formatting would add kilobytes to the wasm.
        Some(_) => Err(error(format!(
            "{what}: expected a whole number from 0 to {}, got {}",
            max as u64,
            String::from(
                js_sys::Number::from(v.clone())
                    .to_string_with_radix(10)
                    .unwrap_or_default()
            )
        ))),
        None => Err(error(format!("{what}: expected a number"))),
    }
}

pub(super) fn text_arg(v: &JsValue, what: &str) -> Result<String, JsError> {
    v.as_string()
        .ok_or_else(|| error(format!("{what}: expected text")))
}

pub(super) const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
