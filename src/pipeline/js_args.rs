//! Reading and copying tool-call argument objects. Keys such as `__proto__` and `constructor` are
//! ordinary data: copies are made with `Object.defineProperty`, never by assignment, so no
//! setter on `Object.prototype` can run and no prototype can change.
//!
//! Every read of a caller's value goes through a catching binding: a throwing getter, a revoked
//! `Proxy` or a hostile array never unwinds through WebAssembly (which would leak the module's
//! stack and, repeated, corrupt it). Reads here treat such a value as absent; the exports call
//! [`check_readable`] first so that callers get a `TypeError` instead.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen]
extern "C" {
    /// [MDN: Array.isArray](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Array/isArray)
    /// (throws on a revoked Proxy).
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;
    /// [MDN: Object.keys](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Object/keys)
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;
    /// [MDN: Object.hasOwn](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Object/hasOwn)
    #[wasm_bindgen(js_namespace = Object, js_name = hasOwn, catch)]
    fn object_has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(value)`; `false` when even that throws (a revoked Proxy).
pub fn is_array(value: &JsValue) -> bool {
    value.is_object() && array_is_array(value).unwrap_or(false)
}

/// True for a plain argument object: an object that is not an array.
pub fn is_args_object(value: &JsValue) -> bool {
    value.is_object() && array_is_array(value) == Ok(false)
}

/// The object's own enumerable string keys, in property order (`Object.keys`); none when the
/// object cannot be listed.
pub fn own_keys(object: &JsValue) -> Vec<String> {
    if !object.is_object() {
        return Vec::new();
    }
    object_keys(object)
        .map(|keys| keys.iter().filter_map(|k| k.as_string()).collect())
        .unwrap_or_default()
}

/// `Object.hasOwn(object, key)`: `false` for anything that is not an object, or that throws.
pub fn has_own(object: &JsValue, key: &str) -> bool {
    object.is_object() && object_has_own(object, &JsValue::from_str(key)) == Ok(true)
}

/// `object[key]` for an own property; `undefined` otherwise (inherited values are never read).
pub fn get_own(object: &JsValue, key: &str) -> JsValue {
    if has_own(object, key) {
        Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// The length of an array (read through the catching `Reflect.get`; 0 when unreadable).
pub fn array_length(array: &JsValue) -> u32 {
    Reflect::get(array, &JsValue::from_str("length"))
        .ok()
        .and_then(|n| n.as_f64())
        .map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32)
}

/// The items of an array, each read through the catching `Reflect.get` (unreadable → `undefined`).
pub fn array_items(array: &JsValue) -> Vec<JsValue> {
    (0..array_length(array))
        .map(|i| Reflect::get_u32(array, i).unwrap_or(JsValue::UNDEFINED))
        .collect()
}

/// Checks that the top level of a caller's value can be read: listing its keys and reading each
/// own property must not throw. A revoked Proxy or a throwing getter is a `TypeError` naming
/// `what`, so exports reject bad input instead of treating it as empty.
pub fn check_readable(value: &JsValue, what: &str) -> Result<(), JsValue> {
    if !value.is_object() {
        return Ok(());
    }
    let unreadable = || {
        let mut message = String::from(what);
        message.push_str(" cannot be read (a getter threw, or it is a revoked Proxy)");
        JsValue::from(js_sys::TypeError::new(&message))
    };
    array_is_array(value).map_err(|_| unreadable())?;
    let keys = object_keys(value).map_err(|_| unreadable())?;
    for key in keys.iter() {
        Reflect::get(value, &key).map_err(|_| unreadable())?;
    }
    Ok(())
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
    if is_array(value) {
        out.push('[');
        for (i, item) in array_items(value).into_iter().enumerate() {
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
        crate::core::sort::sort_by(&mut keys, |a, b| a < b);
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
