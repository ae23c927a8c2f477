//! The origin's storage quota, from `navigator.storage.estimate()` where the platform has it.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `await navigator.storage.estimate()`, or `None` (Node, old browsers, errors).
///
/// [MDN: StorageManager.estimate](https://developer.mozilla.org/docs/Web/API/StorageManager/estimate)
pub async fn storage_estimate() -> Option<JsValue> {
    let storage = get(&get(&js_sys::global(), "navigator"), "storage");
    let estimate: Function = get(&storage, "estimate").dyn_into().ok()?;
    let promise: Promise = estimate.call0(&storage).ok()?.dyn_into().ok()?;
    JsFuture::from(promise).await.ok()
}

/// The estimate's `{ usage, quota }`, copied into a fresh object (a platform object's other
/// fields, or getters, never reach the caller).
pub async fn usage_and_quota() -> Option<JsValue> {
    let value = storage_estimate().await?;
    let obj = js_sys::Object::new();
    for key in ["usage", "quota"] {
        let _ = Reflect::set(&obj, &JsValue::from_str(key), &get(&value, key));
    }
    Some(obj.into())
}

/// `(await navigator.storage.estimate()).quota`, when positive and finite.
pub async fn origin_quota() -> Option<f64> {
    get(&storage_estimate().await?, "quota")
        .as_f64()
        .filter(|q| q.is_finite() && *q > 0.0)
}
