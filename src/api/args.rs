//! Reading what JavaScript passed and answering in kind: JSON text in and out, whole numbers,
//! flags and text checked against their documented ranges, and errors that name the argument.
//! Every function here returns an error instead of panicking.

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
    let text = json_text(value, "scenario")?;
    read_scenario(value, &text).map_err(|e| error(format!("scenario: {e}")))
}

/// Reads the scenario a JS value stands for, given its JSON text. `JSON.stringify` writes NaN
/// and ±Infinity as null, so when the text holds a null the value itself is searched for the
/// number that became it, and the message names that number instead of a null nobody wrote.
pub(super) fn read_scenario(value: &JsValue, text: &str) -> Result<Scenario, ScenarioError> {
    let result = Scenario::from_json(text);
    if value.as_string().is_some() || !text.contains("null") {
        return result;
    }
    let mut path = String::new();
    let Some(number) = non_finite(value, &mut path, 0) else {
        return result;
    };
    Err(match result {
        Err(e) if e.path == path && e.message.ends_with("got null") => {
            let expected = &e.message[..e.message.len() - "null".len()];
            ScenarioError::new(path, format!("{expected}{number}"))
        }
        _ => ScenarioError::new(
            path,
            format!("got {number}, which JSON cannot carry (it would be read as null)"),
        ),
    })
}

/// Deeper than this the JSON reader refuses the text anyway.
const MAX_DEPTH: u32 = 130;

/// The first NaN or ±Infinity inside `value`, spelled as JavaScript spells it, with `path`
/// left pointing at it (`clients[0].events[1].atMs`).
fn non_finite(value: &JsValue, path: &mut String, depth: u32) -> Option<&'static str> {
    if let Some(n) = value.as_f64() {
        return match n {
            n if n.is_nan() => Some("NaN"),
            n if n.is_infinite() && n > 0.0 => Some("Infinity"),
            n if n.is_infinite() => Some("-Infinity"),
            _ => None,
        };
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
