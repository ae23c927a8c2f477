//! Operations on a payload that keep it a JS value: sizing through `JSON.stringify`, the shape
//! rule, and JSON Pointer selection by property access. Nothing here copies the payload into
//! wasm memory.

use js_sys::{Array, JsString, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::pointer::{array_index, JsonPointer};
use crate::js_args;

/// UTF-8 byte length of a JS string (`utf8Length` in `js_values.js`: an ASCII-only string, most
/// JSON, costs one regular-expression scan; any other is encoded by `TextEncoder`). A lone
/// surrogate counts 3 bytes (U+FFFD), as [`crate::core::size`] counts it.
pub fn utf8_len(s: &JsString) -> u64 {
    utf8_length(s) as u64
}

/// The size of docs/PROTOCOL.md (*References*): UTF-8 bytes of `JSON.stringify(payload)`; 0 when it cannot be serialized
/// (cycle, BigInt, a throwing `toJSON`) or serializes to nothing (`undefined`, a function).
pub fn estimate_size(payload: &JsValue) -> u64 {
    json_of(payload).map_or(0, |s| utf8_len(&s))
}

/// `JSON.stringify(payload)` when it is a string (`None` for a cycle, a BigInt, a throwing
/// `toJSON`, `undefined`, a function): what [`estimate_size`] measures.
pub fn json_of(payload: &JsValue) -> Option<JsString> {
    JSON::stringify(payload).ok().filter(|s| s.is_string())
}

#[wasm_bindgen(module = "/src/js_values.js")]
extern "C" {
    /// 0 = plain JSON data, 1 = stored form differs from the JSON, 2 = nested too deep.
    #[wasm_bindgen(js_name = payloadShape, catch)]
    fn payload_shape(value: &JsValue, max_depth: u32) -> Result<u8, JsValue>;
    /// UTF-8 byte length of a string; cannot throw.
    #[wasm_bindgen(js_name = utf8Length)]
    fn utf8_length(s: &JsString) -> f64;
}

/// Deepest nesting of objects and arrays a stored payload may have. Real tool results nest a
/// few levels; thousands of levels cannot be read back by every IndexedDB implementation.
pub const MAX_PAYLOAD_DEPTH: u32 = 1000;

/// Why a payload cannot be stored so that the byte budget counts what is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unstorable {
    /// It holds something whose stored (structured-clone) form differs from its JSON: binary
    /// data, a `Map`/`Set`, a class instance or a `toJSON` method. Event reason `"notPlainJson"`.
    NotPlainJson,
    /// Nested deeper than [`MAX_PAYLOAD_DEPTH`]. Event reason `"maxDepth"`.
    TooDeep,
}

impl Unstorable {
    /// The `reason` of the `skip` event.
    pub fn reason(self) -> &'static str {
        match self {
            Self::NotPlainJson => "notPlainJson",
            Self::TooDeep => "maxDepth",
        }
    }
}

/// Checks that `payload` is plain JSON data (objects, arrays, strings, numbers, booleans, null,
/// dates) nested at most [`MAX_PAYLOAD_DEPTH`] deep, so that its JSON size is what IndexedDB
/// stores. A walk that throws (a getter) counts as not plain.
pub fn check_storable(payload: &JsValue) -> Result<(), Unstorable> {
    match payload_shape(payload, MAX_PAYLOAD_DEPTH) {
        Ok(0) => Ok(()),
        Ok(2) => Err(Unstorable::TooDeep),
        _ => Err(Unstorable::NotPlainJson),
    }
}

/// Results that get references: JSON objects and arrays (not strings, numbers, `null`).
pub fn is_referenceable(payload: &JsValue) -> bool {
    payload.is_object()
}

/// Applies a JSON Pointer to a JS value by own-property access (`__proto__` and inherited
/// properties select nothing). `None` when a token selects nothing.
pub fn select(payload: &JsValue, pointer: &JsonPointer) -> Option<JsValue> {
    let mut current = payload.clone();
    for token in pointer.tokens() {
        // The catching reads of `js_args` (one import each for every caller); a read that
        // throws selects nothing.
        current = if js_args::is_array(&current) {
            let array: &Array = current.unchecked_ref();
            let index = array_index(token)?;
            if index >= array.length() {
                return None;
            }
            array.get(index)
        } else if js_args::has_own(&current, token) {
            js_args::read(&current, token).ok()?
        } else {
            return None;
        };
    }
    Some(current)
}
