//! What the model sees after a cached tool result: the payload plus `_cache_uri`, or — above
//! `maxChars` — a summary that keeps the headline fields, describes the shape, and tells the
//! model to pass the reference on instead of re-querying.

use js_sys::{Array, Object};
use wasm_bindgen::{JsCast, JsValue};

use super::js_args::{copy_without, define, get_own, is_args_object, own_keys};

/// Fields a summary keeps from the payload (when present).
const KEPT_FIELDS: [&str; 6] = ["ok", "rows", "columns", "file_count", "error", "fix_hint"];

/// `{...payload, _cache_uri}`; an array payload becomes `{ data: payload, _cache_uri }`.
pub fn with_cache_uri(payload: &JsValue, uri: &str) -> Object {
    let visible = if is_args_object(payload) {
        copy_without(payload, &[])
    } else {
        let wrapper = Object::new();
        define(&wrapper, "data", payload);
        wrapper
    };
    define(&visible, "_cache_uri", &JsValue::from_str(uri));
    visible
}

fn array_len(value: &JsValue) -> Option<u32> {
    Array::is_array(value).then(|| value.unchecked_ref::<Array>().length())
}

/// The row array of a payload: the payload itself, or its `rows` / `data` array.
fn row_array(payload: &JsValue) -> Option<Array> {
    if Array::is_array(payload) {
        return Some(payload.clone().unchecked_into());
    }
    ["rows", "data"]
        .iter()
        .map(|k| get_own(payload, k))
        .find(Array::is_array)
        .map(JsCast::unchecked_into)
}

/// The summary shown instead of a payload whose JSON exceeds `maxChars`.
pub fn truncated(payload: &JsValue, uri: &str, original_chars: u32, bytes: u64) -> Object {
    let summary = Object::new();
    if is_args_object(payload) {
        for field in KEPT_FIELDS {
            let value = get_own(payload, field);
            if value.is_undefined() {
                continue;
            }
            // `rows` holding the rows themselves is summarized as their count.
            let value = array_len(&value)
                .filter(|_| field == "rows")
                .map_or(value, JsValue::from);
            define(&summary, field, &value);
        }
    }
    let rows = row_array(payload);
    let row_count = rows
        .as_ref()
        .map(|r| r.length())
        .or_else(|| get_own(payload, "rows").as_f64().map(|n| n as u32));
    let shape = Object::new();
    define(&shape, "bytes", &JsValue::from_f64(bytes as f64));
    if let Some(n) = row_count {
        define(&shape, "rows", &JsValue::from(n));
    }
    let columns = get_own(payload, "columns");
    let first_row = rows.as_ref().map(|r| r.get(0)).filter(is_args_object);
    if Array::is_array(&columns) {
        define(&shape, "columns", &columns);
    } else if let Some(row) = first_row {
        let keys: Array = own_keys(&row)
            .iter()
            .map(|k| JsValue::from_str(k))
            .collect();
        define(&shape, "columns", &keys);
    } else if is_args_object(payload) {
        let keys: Array = own_keys(payload)
            .iter()
            .map(|k| JsValue::from_str(k))
            .collect();
        define(&shape, "keys", &keys);
    }
    define(&summary, "_truncated", &JsValue::TRUE);
    define(&summary, "_originalChars", &JsValue::from(original_chars));
    define(&summary, "_cache_uri", &JsValue::from_str(uri));
    define(&summary, "_cache_shape", &shape);
    define(
        &summary,
        "_truncation_hint",
        &JsValue::from_str(&format!(
            "This result ({original_chars} chars) is too large to show, but it is stored in full. \
             To use it in another tool call, pass \"{uri}\" as that tool's `<arg>_uri` argument \
             (for example data_uri=\"{uri}\"). Do not re-query the data and do not copy rows \
             into arguments."
        )),
    );
    summary
}
