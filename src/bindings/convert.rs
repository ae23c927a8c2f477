//! JS value <-> Rust conversions shared by the exports.
// Most of these serve the host entry only; the server build links what it uses.
#![cfg_attr(not(feature = "host"), allow(dead_code))]

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_error::type_error;
use crate::cache::CacheEvent;
use crate::core::record::LookupOutcome;
use crate::core::text::concat;
use crate::core::uri::DEFAULT_CONV_SEGMENT;

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)` conversion.
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// The conversation id as the cache scopes it: `String(id)` for a string, number or bigint, and
/// `"default"` for `null`/`undefined`. Anything else (an object, a symbol, a boolean) is a
/// `TypeError`: `String()` of two different objects is the same `"[object Object]"`, so
/// accepting them would silently merge conversations.
pub(crate) fn conv_id_string(value: &JsValue) -> Result<String, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(DEFAULT_CONV_SEGMENT.to_owned());
    }
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    if value.as_f64().is_some() || value.is_bigint() {
        return js_string(value).map_err(|_| type_error(CONV_ID_TYPE));
    }
    Err(type_error(CONV_ID_TYPE))
}

const CONV_ID_TYPE: &str = "convId must be a string or a number";

/// `obj[key]`, `undefined` when `obj` is not an object; a getter that throws (or a revoked
/// `Proxy`) is a `TypeError` naming the key — never read as "absent".
pub(crate) fn read(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    if !obj.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|_| unreadable(key))
}

/// The `TypeError` for an option or argument whose read threw.
pub(crate) fn unreadable(key: &str) -> JsValue {
    let mut message = String::from("could not read `");
    message.push_str(key);
    message.push_str("` (a getter threw, or the object is a revoked Proxy)");
    type_error(&message)
}

/// `obj[key]`, `undefined` when `obj` is not an object or the read throws.
pub(crate) fn get(obj: &JsValue, key: &str) -> JsValue {
    read(obj, key).unwrap_or(JsValue::UNDEFINED)
}

/// Sets `obj[key] = value` on a plain object we created.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// An optional option object: `undefined`/`null` → none; an object → it; anything else → TypeError.
pub(crate) fn options_object(value: &JsValue, what: &str) -> Result<Option<JsValue>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else if value.is_object() {
        Ok(Some(value.clone()))
    } else {
        Err(type_error(&concat(&[what, " must be an object"])))
    }
}

/// An optional non-negative finite number option.
pub(crate) fn optional_non_negative(value: &JsValue, what: &str) -> Result<Option<f64>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(type_error(&concat(&[
            what,
            " must be a non-negative finite number",
        ]))),
    }
}

/// An optional function option.
pub(crate) fn optional_function(value: &JsValue, what: &str) -> Result<Option<Function>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_ref::<Function>()
        .cloned()
        .map(Some)
        .ok_or_else(|| type_error(&concat(&[what, " must be a function"])))
}

/// The `{ convId }` scope of a read: present (and not `undefined`) → the id string. An options
/// object whose `convId` cannot be read is a `TypeError`, never "unscoped".
pub(crate) fn conv_scope(options: &JsValue) -> Result<Option<String>, JsValue> {
    let options = options_object(options, "options")?;
    match options.map(|o| read(&o, "convId")).transpose()? {
        Some(v) if !v.is_undefined() => conv_id_string(&v).map(Some),
        _ => Ok(None),
    }
}

/// `lookup()`'s result object.
pub(crate) fn lookup_result(outcome: LookupOutcome<JsValue>) -> JsValue {
    let obj = Object::new();
    match outcome {
        LookupOutcome::Hit(payload) => {
            set(&obj, "status", "hit");
            set(&obj, "payload", payload);
        }
        LookupOutcome::Miss | LookupOutcome::BadPointer { .. } => set(&obj, "status", "miss"),
        LookupOutcome::Stale {
            cause,
            source_tool_name,
        } => {
            set(&obj, "status", "stale");
            set(&obj, "cause", cause);
            set(&obj, "sourceToolName", source_tool_name);
        }
    }
    obj.into()
}

/// `readCachedPayload()`'s value: the payload on a hit, `null` otherwise.
pub(crate) fn payload_or_null(outcome: LookupOutcome<JsValue>) -> JsValue {
    match outcome {
        LookupOutcome::Hit(payload) => payload,
        _ => JsValue::NULL,
    }
}

/// A [`CacheEvent`] as the object `onEvent` receives.
pub(crate) fn event_object(event: &CacheEvent) -> JsValue {
    let obj = Object::new();
    set(&obj, "kind", event.kind());
    match event {
        CacheEvent::Write {
            uri,
            conv_id,
            source_tool_name,
            size_bytes,
        } => {
            set(&obj, "uri", uri.as_str());
            set(&obj, "convId", conv_id.as_str());
            set(&obj, "sourceToolName", source_tool_name.as_str());
            set(&obj, "sizeBytes", *size_bytes);
        }
        CacheEvent::Hit { uri } | CacheEvent::Miss { uri } => set(&obj, "uri", uri.as_str()),
        CacheEvent::Stale { uri, cause } => {
            set(&obj, "uri", uri.as_str());
            set(&obj, "cause", cause.as_str());
        }
        CacheEvent::Conflict {
            tool_name,
            key,
            uris,
        } => {
            set(&obj, "toolName", tool_name.as_str());
            set(&obj, "key", key.as_str());
            let list: js_sys::Array = uris.iter().map(|u| JsValue::from_str(u)).collect();
            set(&obj, "uris", list);
        }
        CacheEvent::Cap {
            tool_name,
            arg,
            count,
            cap,
        } => {
            set(&obj, "toolName", tool_name.as_str());
            set(&obj, "arg", arg.as_str());
            set(&obj, "count", *count as f64);
            set(&obj, "cap", *cap as f64);
        }
        CacheEvent::Invalidate {
            cause,
            patterns,
            count,
        } => {
            set(&obj, "cause", cause.as_str());
            let list: js_sys::Array = patterns.iter().map(|p| JsValue::from_str(p)).collect();
            set(&obj, "patterns", list);
            set(&obj, "count", *count);
        }
        CacheEvent::Reuse { tool_name, uri } => {
            set(&obj, "toolName", tool_name.as_str());
            set(&obj, "uri", uri.as_str());
        }
        CacheEvent::Skip {
            reason,
            size_bytes,
            limit,
        } => {
            set(&obj, "reason", *reason);
            set(&obj, "sizeBytes", *size_bytes);
            set(&obj, "limit", *limit);
        }
        CacheEvent::Evict { count, reason } => {
            set(&obj, "count", *count);
            set(&obj, "reason", *reason);
        }
        CacheEvent::Blocked { database } => set(&obj, "database", database.as_str()),
        CacheEvent::Error {
            operation,
            name,
            message,
        } => {
            set(&obj, "operation", *operation);
            set(&obj, "name", name.as_str());
            set(&obj, "message", message.as_str());
        }
    }
    obj.into()
}
