//! Errors as real JS `Error`s whose `name` keeps the DOMException name, and the one way async
//! exports turn into promises.
// Most of these serve the host entry only; the server build links what it uses.
#![cfg_attr(not(feature = "host"), allow(dead_code))]

use wasm_bindgen::JsValue;

use crate::store::StoreError;

/// Which JS error [`js_error`] builds.
pub(crate) enum JsErrorClass<'a> {
    /// `new Error(message)`.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    Error,
    /// `new TypeError(message)`: a bad argument (`instanceof TypeError` holds).
    TypeError,
    /// `new Error(message)` with `name` set (`QuotaExceededError`, `NotSupportedError`, …).
    Named(&'a str),
}

/// The bindings' one constructor of JS errors; every error an export throws or rejects with is
/// built here.
#[inline(always)]
pub(crate) fn js_error(class: JsErrorClass<'_>, message: &str) -> js_sys::Error {
    match class {
        JsErrorClass::Error => js_sys::Error::new(message),
        JsErrorClass::TypeError => js_sys::TypeError::new(message).into(),
        JsErrorClass::Named(name) => {
            let error = js_sys::Error::new(message);
            error.set_name(name);
            error
        }
    }
}

/// A storage error as `new Error(message)` with its kind's `name`.
pub(crate) fn store_error(err: StoreError) -> JsValue {
    // A storage object refuses a payload it cannot hold exactly with a real `TypeError`.
    #[cfg(feature = "external-store")]
    if err.name() == "TypeError" {
        return type_error(&err.message);
    }
    js_error(JsErrorClass::Named(err.name()), &err.message).into()
}

/// A JS `TypeError` for a bad argument.
pub(crate) fn type_error(message: &str) -> JsValue {
    js_error(JsErrorClass::TypeError, message).into()
}

/// A plain JS `Error` (an invalid pattern or policy).
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) fn plain_error(message: &str) -> JsValue {
    js_error(JsErrorClass::Error, message).into()
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
