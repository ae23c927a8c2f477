//! Errors as real JS `Error`s whose `name` keeps the DOMException name, and the one way async
//! exports turn into promises.
// Most of these serve the host entry only; the server build links what it uses.
#![cfg_attr(not(feature = "host"), allow(dead_code))]

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

/// `future_to_promise` through one boxed, non-generic instantiation: every async export shares
/// the promise machinery instead of monomorphizing it per future type (a large share of the
/// `.wasm` otherwise).
pub(crate) fn promise(
    future: impl std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
) -> js_sys::Promise {
    boxed_promise(Box::pin(future))
}

#[inline(never)]
fn boxed_promise(
    future: std::pin::Pin<Box<dyn std::future::Future<Output = Result<JsValue, JsValue>>>>,
) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(future)
}
