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
/// `false` for anything that is not an object (no throw on `null`, `undefined` or primitives).
pub fn has_own(object: &JsValue, key: &str) -> bool {
    object.is_object() && Object::has_own(object.unchecked_ref::<Object>(), &JsValue::from_str(key))
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

/// Deepest nesting [`canonical_json`] follows; deeper (or cyclic) values have no canonical form.
const CANONICAL_DEPTH_LIMIT: usize = 64;

/// JSON with object keys sorted at every level: two argument objects are "the same call" when
/// their canonical forms are equal. `None` for values JSON cannot express (cycles, BigInt,
/// nesting deeper than 64).
pub fn canonical_json(value: &JsValue) -> Option<String> {
    let mut out = String::new();
    write_canonical(value, 0, &mut out).then_some(out)
}

fn write_canonical(value: &JsValue, depth: usize, out: &mut String) -> bool {
    if depth > CANONICAL_DEPTH_LIMIT {
        return false;
    }
    if Array::is_array(value) {
        out.push('[');
        let array: &Array = value.unchecked_ref();
        for (i, item) in array.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let item = if item.is_undefined() || item.is_function() {
                JsValue::NULL
            } else {
                item
            };
            if !write_canonical(&item, depth + 1, out) {
                return false;
            }
        }
        out.push(']');
        return true;
    }
    let has_to_json = || Reflect::get(value, &"toJSON".into()).is_ok_and(|f| f.is_function());
    if value.is_object() && !has_to_json() {
        let mut keys = own_keys(value);
        keys.sort();
        out.push('{');
        let mut first = true;
        for key in keys {
            let item = get_own(value, &key);
            if item.is_undefined() || item.is_function() {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&crate::core::envelope::json_string(&key));
            out.push(':');
            if !write_canonical(&item, depth + 1, out) {
                return false;
            }
        }
        out.push('}');
        return true;
    }
    match js_sys::JSON::stringify(value) {
        Ok(s) if s.is_string() => {
            out.push_str(&String::from(s));
            true
        }
        _ => false,
    }
}
