//! What the model sees of a tool result: the payload plus `_cache_uri`, or — above `maxChars` —
//! a summary that keeps the headline fields, describes the shape, and tells the model to pass
//! the reference on instead of re-querying (or, when nothing was stored, to narrow the query).

use js_sys::{Array, Object};
use wasm_bindgen::{JsCast, JsValue};

use crate::cache::payload::json_of;
use crate::core::pointer::member_reference;
use crate::core::view::{push_read_hint, View, PREVIEW_CHARS};

use crate::js_args::{
    array_items, array_length, copy_without, define, get_own, is_args_object, is_array, own_keys,
};

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
    define_cache_refs(&visible, payload, uri);
    visible
}

/// Most entries `_cache_refs` lists.
pub const MAX_CACHE_REFS: usize = 8;

/// `_cache_refs`: for an object payload, a ready reference to each top-level array member
/// (`{"rows": "mcp+cache://c/t#/rows"}`), so passing those rows on is one verbatim copy — the
/// model never has to invent pointer syntax. At most [`MAX_CACHE_REFS`] entries; absent when
/// there is none.
fn define_cache_refs(target: &Object, payload: &JsValue, uri: &str) {
    if !is_args_object(payload) {
        return;
    }
    let refs = Object::new();
    let mut count = 0;
    for key in own_keys(payload) {
        if count == MAX_CACHE_REFS {
            break;
        }
        if !is_array(&get_own(payload, &key)) {
            continue;
        }
        if let Some(reference) = member_reference(uri, &key) {
            define(&refs, &key, &JsValue::from_str(&reference));
            count += 1;
        }
    }
    if count > 0 {
        define(target, "_cache_refs", &refs.into());
    }
}

fn array_len(value: &JsValue) -> Option<u32> {
    is_array(value).then(|| array_length(value))
}

/// The row array of a payload: the payload itself, or its `rows` / `data` array.
fn row_array(payload: &JsValue) -> Option<JsValue> {
    if is_array(payload) {
        return Some(payload.clone());
    }
    ["rows", "data"]
        .iter()
        .map(|k| get_own(payload, k))
        .find(is_array)
}

/// Longest string a summary copies from the payload's headline fields (`error`, `fix_hint`, …).
const KEPT_STRING_CHARS: u32 = 500;
/// Most column (or key) names a summary lists.
const SHAPE_NAMES_LIMIT: u32 = 64;

/// The summary shown instead of a payload whose JSON exceeds `maxChars`: headline fields, the
/// shape, and a hint — to pass `uri` on when the payload was stored, otherwise that it was not
/// kept and how to get a smaller result. The summary itself stays within `max_chars` whenever
/// its bare form (no headline fields, no shape) fits.
///
/// With `view.preview` (and a stored payload) it is the preview: the same summary plus
/// `_preview_rows`, the first rows within [`PREVIEW_CHARS`] of JSON.
pub fn truncated(
    payload: &JsValue,
    uri: Option<&str>,
    original_chars: u32,
    bytes: u64,
    max_chars: u32,
    view: &View,
) -> Object {
    let full = summary_object(payload, uri, original_chars, bytes, Some(view));
    if json_chars(&full) <= max_chars {
        return full;
    }
    summary_object(payload, uri, original_chars, bytes, None)
}

/// The first rows of `rows` whose JSON (as an array) fits in [`PREVIEW_CHARS`].
fn first_rows(rows: &JsValue) -> Array {
    let shown = Array::new();
    let mut chars = 2;
    // Only the rows shown are read: a preview of 100 000 rows reads a few dozen.
    for i in 0..array_length(rows) {
        let row = js_sys::Reflect::get_u32(rows, i).unwrap_or(JsValue::UNDEFINED);
        // A row JSON cannot write (`undefined`, a function, a cycle, a BigInt) ends the preview.
        let row_chars = json_of(&row).map_or(u32::MAX, |s| s.length());
        chars = row_chars.saturating_add(chars + 1);
        if chars > PREVIEW_CHARS {
            break;
        }
        shown.push(&row);
    }
    shown
}

fn json_chars(value: &Object) -> u32 {
    js_sys::JSON::stringify(value).map_or(u32::MAX, |s| s.length())
}

/// A headline field worth copying: a number, boolean, null or short string (a long error text
/// would defeat the summary).
fn keepable(value: &JsValue) -> bool {
    value.is_null()
        || value.as_f64().is_some()
        || value.as_bool().is_some()
        || value
            .dyn_ref::<js_sys::JsString>()
            .is_some_and(|s| s.length() <= KEPT_STRING_CHARS)
}

fn names(list: impl Iterator<Item = JsValue>) -> Array {
    list.take(SHAPE_NAMES_LIMIT as usize).collect()
}

fn summary_object(
    payload: &JsValue,
    uri: Option<&str>,
    original_chars: u32,
    bytes: u64,
    // `None`: the bare summary (no headline fields, no column names, no preview).
    view: Option<&View>,
) -> Object {
    let detailed = view.is_some();
    let summary = Object::new();
    if detailed && is_args_object(payload) {
        for field in KEPT_FIELDS {
            let value = get_own(payload, field);
            // `rows` holding the rows themselves is summarized as their count.
            let value = array_len(&value)
                .filter(|_| field == "rows")
                .map_or(value, JsValue::from);
            if keepable(&value) {
                define(&summary, field, &value);
            } else if field == "columns" && is_array(&value) {
                let columns = array_items(&value).into_iter().filter(JsValue::is_string);
                define(&summary, field, &names(columns));
            }
        }
    }
    let shape = Object::new();
    define(&shape, "bytes", &JsValue::from_f64(bytes as f64));
    let rows = row_array(payload);
    let row_count = rows
        .as_ref()
        .map(array_length)
        .or_else(|| get_own(payload, "rows").as_f64().map(|n| n as u32));
    if let Some(n) = row_count {
        define(&shape, "rows", &JsValue::from(n));
    }
    if detailed {
        let columns = get_own(payload, "columns");
        let first_row = rows
            .as_ref()
            .and_then(|r| js_sys::Reflect::get_u32(r, 0).ok())
            .filter(is_args_object);
        if is_array(&columns) {
            let columns = array_items(&columns).into_iter().filter(JsValue::is_string);
            define(&shape, "columns", &names(columns));
        } else if let Some(row) = first_row {
            let keys = own_keys(&row).into_iter().map(JsValue::from);
            define(&shape, "columns", &names(keys));
        } else if is_args_object(payload) {
            let keys = own_keys(payload).into_iter().map(JsValue::from);
            define(&shape, "keys", &names(keys));
        }
    }
    let previewed = uri.is_some() && view.is_some_and(|v| v.preview);
    let preview = rows.as_ref().filter(|_| previewed).map(first_rows);
    define(&summary, "_truncated", &JsValue::TRUE);
    define(&summary, "_originalChars", &JsValue::from(original_chars));
    if let Some(uri) = uri {
        define(&summary, "_cache_uri", &JsValue::from_str(uri));
        define_cache_refs(&summary, payload, uri);
    }
    define(&summary, "_cache_shape", &shape);
    let shown_rows = previewed.then(|| preview.as_ref().map(Array::length));
    if let Some(rows) = preview {
        define(&summary, "_preview_rows", &rows);
    }
    let read_tools = view.and_then(|v| v.read_tools.as_deref());
    define(
        &summary,
        "_truncation_hint",
        &hint(uri, original_chars, shown_rows, read_tools).into(),
    );
    summary
}

fn hint(
    uri: Option<&str>,
    original_chars: u32,
    // A preview: `Some(first rows shown)`, `Some(None)` for a payload without rows.
    preview_rows: Option<Option<u32>>,
    read_tools: Option<&str>,
) -> String {
    let mut hint = String::from("This result (");
    crate::core::text::push_uint(&mut hint, u64::from(original_chars));
    match uri {
        Some(uri) => {
            match preview_rows {
                Some(Some(n)) => {
                    hint.push_str(" chars) is stored in full; shown here are its shape and first ");
                    crate::core::text::push_uint(&mut hint, u64::from(n));
                    hint.push_str(" rows.");
                }
                Some(None) => hint.push_str(" chars) is stored in full; shown here is its shape."),
                None => hint.push_str(" chars) is too large to show, but it is stored in full."),
            }
            hint.push_str(" To use it in another tool call, pass \"");
            hint.push_str(uri);
            hint.push_str("\" as that tool's `<arg>_uri` argument (for example data_uri=\"");
            hint.push_str(uri);
            hint.push_str("\"). Do not re-query the data and do not copy rows into arguments.");
            if let Some(prefix) = read_tools {
                push_read_hint(&mut hint, prefix);
            }
        }
        None => {
            hint.push_str(" chars) is too large to show. ");
            hint.push_str(crate::core::cap::NOT_KEPT_HINT);
        }
    }
    hint
}
