//! Conversions between [`JsRecord`] and the plain JS object IndexedDB stores (the shape of docs/PROTOCOL.md, *Storage*).
//! Only the metadata fields are read; the payload handle is moved, never copied.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use super::JsRecord;
use crate::core::record::{fields, UNKNOWN_SOURCE_TOOL};

fn set(obj: &Object, key: &str, value: &JsValue) {
    // Setting a data property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Builds the stored object: `{uri, payload, convId, sourceToolName, addedAt, sizeBytes,
/// lastUsedAt, staleCause?}`.
pub(crate) fn to_js(record: &JsRecord) -> Object {
    let obj = Object::new();
    set(&obj, fields::URI, &JsValue::from_str(&record.uri));
    set(&obj, fields::PAYLOAD, &record.payload);
    set(&obj, fields::CONV_ID, &JsValue::from_str(&record.conv_id));
    set(
        &obj,
        fields::SOURCE_TOOL_NAME,
        &JsValue::from_str(&record.source_tool_name),
    );
    set(&obj, fields::ADDED_AT, &JsValue::from_f64(record.added_at));
    set(
        &obj,
        fields::SIZE_BYTES,
        &JsValue::from_f64(record.size_bytes),
    );
    set(
        &obj,
        fields::LAST_USED_AT,
        &JsValue::from_f64(record.last_used_at),
    );
    if let Some(cause) = &record.stale_cause {
        set(&obj, fields::STALE_CAUSE, &JsValue::from_str(cause));
    }
    obj
}

/// Reads a stored object. Tolerates records written by chatbox-core (no `lastUsedAt`, possibly no
/// `sourceToolName`); returns `None` for something that is not a record at all (no string `uri`).
pub(crate) fn from_js(value: &JsValue) -> Option<JsRecord> {
    if !value.is_object() {
        return None;
    }
    let uri = get(value, fields::URI).as_string()?;
    let added_at = get(value, fields::ADDED_AT).as_f64().unwrap_or(0.0);
    Some(JsRecord {
        uri,
        payload: get(value, fields::PAYLOAD),
        conv_id: get(value, fields::CONV_ID).as_string().unwrap_or_default(),
        source_tool_name: get(value, fields::SOURCE_TOOL_NAME)
            .as_string()
            .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.to_owned()),
        added_at,
        size_bytes: get(value, fields::SIZE_BYTES).as_f64().unwrap_or(0.0),
        last_used_at: get(value, fields::LAST_USED_AT)
            .as_f64()
            .unwrap_or(added_at),
        stale_cause: get(value, fields::STALE_CAUSE).as_string(),
    })
}
