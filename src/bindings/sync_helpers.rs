//! Synchronous helpers: URI handling, sizing, environment probe.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::convert::{conv_id_string, set};
use super::js_error::store_error;
use crate::cache::payload;
use crate::core::uri;
use crate::store::{self, ErrorKind, StoreError};

/// True when this realm (page, worker, or Node with `fake-indexeddb/auto`) has IndexedDB.
#[wasm_bindgen(js_name = hasIndexedDB)]
pub fn has_indexed_db() -> bool {
    store::has_indexed_db()
}

/// The URI segment for a conversation id (a string, number or bigint as its `String`; `null` and
/// `undefined` as `"default"`; anything else is a `TypeError`): the id itself when it
/// is 1–64 characters of `[A-Za-z0-9_-]`; otherwise its first 55 characters with every other
/// character replaced by `_`, then `-` and an 8-character digest of the whole id, so distinct
/// ids get distinct segments. The cache scopes entries by the exact id, not by this segment.
#[wasm_bindgen(js_name = sanitizeConvId)]
pub fn sanitize_conv_id(
    #[wasm_bindgen(js_name = convId, unchecked_param_type = "unknown")] conv_id: JsValue,
) -> Result<String, JsValue> {
    Ok(uri::sanitize_conv_id(&conv_id_string(&conv_id)?))
}

/// A fresh `mcp+cache://<sanitizeConvId(convId)>/<11-char token>` with 64 bits from the
/// platform CSPRNG (WebCrypto). Nothing is stored. `convId` as `sanitizeConvId` takes it.
#[wasm_bindgen(js_name = mintCacheUri)]
pub fn mint_cache_uri(
    #[wasm_bindgen(js_name = convId, unchecked_param_type = "unknown")] conv_id: JsValue,
) -> Result<String, JsValue> {
    uri::mint_cache_uri(&conv_id_string(&conv_id)?)
        .map_err(|e| store_error(StoreError::new(ErrorKind::RandomSource, e.message())))
}

/// Parses a reference into `{ convId, token, pointer }` (`pointer` is the `#` JSON Pointer or
/// `null`), or returns `null` for anything that is not a well-formed `mcp+cache://` reference.
#[wasm_bindgen(js_name = parseCacheUri, unchecked_return_type = "ParsedCacheUri | null")]
pub fn parse_cache_uri(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
) -> JsValue {
    // A lone surrogate is no reference (as a Rust string it would read U+FFFD).
    let Some(text) = crate::js_args::well_formed(&value) else {
        return JsValue::NULL;
    };
    let Some(parsed) = uri::parse_cache_uri(&text) else {
        return JsValue::NULL;
    };
    let obj = Object::new();
    set(&obj, "convId", parsed.conv_id);
    set(&obj, "token", parsed.token);
    set(
        &obj,
        "pointer",
        parsed
            .pointer
            .map_or(JsValue::NULL, |p| JsValue::from_str(p.as_str())),
    );
    obj.into()
}

/// UTF-8 byte length of `JSON.stringify(payload)`; `0` when it cannot be serialized (cycle,
/// BigInt) or serializes to nothing.
#[wasm_bindgen(js_name = estimateSize)]
pub fn estimate_size(#[wasm_bindgen(unchecked_param_type = "unknown")] payload: JsValue) -> f64 {
    payload::estimate_size(&payload) as f64
}
