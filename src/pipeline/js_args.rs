//! Reading and copying tool-call argument objects. Keys such as `__proto__` and `constructor` are
//! ordinary data: copies are made with `Object.defineProperty`, never by assignment, so no
//! setter on `Object.prototype` can run and no prototype can change.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// True for a plain argument object: an object that is not an array.
pub fn is_args_object(value: &JsValue) -> bool {
    value.is_object() && !Array::is_array(value)
}

/// The object's own enumerable string keys, in property order (`Object.keys`).
pub fn own_keys(object: &JsValue) -> Vec<String> {
    Object::keys(object.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect()
}

/// `Object.prototype.hasOwnProperty.call(object, key)`.
pub fn has_own(object: &JsValue, key: &str) -> bool {
    Object::has_own(object.unchecked_ref::<Object>(), &JsValue::from_str(key))
}

/// `object[key]` for an own property; `undefined` otherwise (inherited values are never read).
pub fn get_own(object: &JsValue, key: &str) -> JsValue {
    if has_own(object, key) {
        Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// Defines `key` as a plain data property (enumerable, writable, configurable).
pub fn define(target: &Object, key: &str, value: &JsValue) {
    let descriptor = Object::new();
    let _ = Reflect::set(&descriptor, &"value".into(), value);
    let _ = Reflect::set(&descriptor, &"writable".into(), &JsValue::TRUE);
    let _ = Reflect::set(&descriptor, &"enumerable".into(), &JsValue::TRUE);
    let _ = Reflect::set(&descriptor, &"configurable".into(), &JsValue::TRUE);
    let _ = Reflect::define_property(target, &JsValue::from_str(key), &descriptor);
}

/// A shallow copy of `object`'s own enumerable properties, skipping `skip`, as data properties
/// of a new plain object.
pub fn copy_without(object: &JsValue, skip: &[&str]) -> Object {
    let copy = Object::new();
    for key in own_keys(object) {
        if !skip.contains(&key.as_str()) {
            define(&copy, &key, &get_own(object, &key));
        }
    }
    copy
}
