//! Errors as real JS `Error`s whose `name` keeps the DOMException name.

use wasm_bindgen::JsValue;

use crate::store::StoreError;

/// `new Error(message)` with `name` set (e.g. `QuotaExceededError`, `NotSupportedError`).
pub(crate) fn store_error(err: StoreError) -> JsValue {
    let error = js_sys::Error::new(&err.message);
    error.set_name(&err.name);
    error.into()
}

/// A JS `TypeError` for a bad argument.
pub(crate) fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}
