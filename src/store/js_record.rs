//! Reading a [`JsRecord`] back from the plain JS object IndexedDB stores (the shape of
//! docs/PROTOCOL.md, *Storage*; `idb_objects` builds it). Only the metadata fields are read;
//! the payload handle is moved, never copied.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::JsRecord;
use crate::core::record::{fields, UNKNOWN_SOURCE_TOOL};

/// A field of a stored row (a structured clone or this package's own object: data properties
/// only), `undefined` when absent or when `row` is not an object.
pub(super) fn field(row: &JsValue, key: &str) -> JsValue {
    Reflect::get(row, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A numeric field of a stored row.
pub(super) fn number(row: &JsValue, key: &str) -> Option<f64> {
    field(row, key).as_f64()
}

/// Reads a stored object. Tolerates records written by chatbox-core (no `lastUsedAt`, possibly no
/// `sourceToolName`); returns `None` for something that is not a record at all (no string `uri`).
pub(crate) fn from_js(value: &JsValue) -> Option<JsRecord> {
    if !value.is_object() {
        return None;
    }
    let uri = field(value, fields::URI).as_string()?;
    let added_at = field(value, fields::ADDED_AT).as_f64().unwrap_or(0.0);
    Some(JsRecord {
        uri,
        payload: field(value, fields::PAYLOAD),
        conv_id: field(value, fields::CONV_ID)
            .as_string()
            .unwrap_or_default(),
        source_tool_name: field(value, fields::SOURCE_TOOL_NAME)
            .as_string()
            .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.to_owned()),
        added_at,
        size_bytes: field(value, fields::SIZE_BYTES).as_f64().unwrap_or(0.0),
        last_used_at: field(value, fields::LAST_USED_AT)
            .as_f64()
            .unwrap_or(added_at),
        stale_cause: field(value, fields::STALE_CAUSE).as_string(),
        derived_from: field(value, fields::DERIVED_FROM).as_string(),
    })
}
