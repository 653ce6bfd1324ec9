//! Reading what JavaScript passed and answering in kind: JSON text in and out, whole numbers,
//! flags and text checked against their documented ranges, and errors that name the argument.
//! Every function here returns an error instead of panicking.

use crate::sim::Scenario;
use js_sys::{Object, Reflect, JSON};
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
    Scenario::from_json(&text).map_err(|e| error(format!("scenario: {e}")))
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
