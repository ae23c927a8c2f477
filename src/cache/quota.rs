//! The origin's storage quota, from `navigator.storage.estimate()` where the platform has it.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `(await navigator.storage.estimate()).quota`, or `None` (Node, old browsers, errors).
///
/// [MDN: StorageManager.estimate](https://developer.mozilla.org/docs/Web/API/StorageManager/estimate)
pub async fn origin_quota() -> Option<f64> {
    let storage = get(&get(&js_sys::global(), "navigator"), "storage");
    let estimate: Function = get(&storage, "estimate").dyn_into().ok()?;
    let promise: Promise = estimate.call0(&storage).ok()?.dyn_into().ok()?;
    let value = JsFuture::from(promise).await.ok()?;
    get(&value, "quota")
        .as_f64()
        .filter(|q| q.is_finite() && *q > 0.0)
}
