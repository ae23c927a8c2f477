//! Reading caller values: the one place where the crate reads a JS value it did not make. The
//! host pipeline and every export of `src/bindings/` (host, server and lists alike) go through
//! these helpers; they know nothing of the cache or the pipeline.
//!
//! Every read goes through a catching binding: a throwing getter, a revoked `Proxy` or a hostile
//! array never unwinds through WebAssembly (which would leak the module's stack and, repeated,
//! corrupt it). Each helper comes in the form its callers need:
//!
//! * strict ([`read`], [`own`], [`array_check`], [`keys`], [`for_each_item`], [`copy_own`]): a
//!   read that throws is a `TypeError` naming what could not be read, never "absent";
//! * lenient ([`get`], [`get_own`], [`is_array`], [`own_keys`], [`array_items`],
//!   [`copy_without`]): such a value reads as absent; the exports call [`check_readable`] first
//!   so that callers get a `TypeError` instead.
//!
//! Keys such as `__proto__` and `constructor` are ordinary data: copies are made with
//! `Object.defineProperty`, never by assignment, so no setter on `Object.prototype` can run and
//! no prototype can change. Strings with lone surrogates cannot cross into Rust intact (each
//! becomes U+FFFD), so [`text`] and [`well_formed`] tell them apart.
//!
//! The option readers at the end ([`options_object`], [`bool_option`], [`optional_function`],
//! [`optional_non_negative`], [`separator_option`]) check the option objects of the exports.

use js_sys::{Array, Function, JsString, Object, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::text::{concat, find};
use crate::state_sync::glob::DEFAULT_SEPARATOR;

#[wasm_bindgen]
extern "C" {
    /// [MDN: Array.isArray](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Array/isArray)
    /// (throws on a revoked Proxy).
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;
    /// [MDN: Object.keys](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Object/keys)
    /// (runs a `Proxy`'s traps).
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;
    /// [MDN: Object.hasOwn](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Object/hasOwn)
    #[wasm_bindgen(js_namespace = Object, js_name = hasOwn, catch)]
    fn object_has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
    /// `JSON.parse` over a JS string handle (js-sys's binding takes a `&str`, which would copy
    /// the whole text into wasm memory and back); the one import of it every caller shares.
    /// [MDN](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/JSON/parse)
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    pub fn json_parse(text: &JsString) -> Result<JsValue, JsValue>;
}

/// Most items read from one array argument (policies, tools, content blocks, `required`): far
/// above any real list, and it keeps a sparse `new Array(2 ** 32 - 1)` from exhausting memory.
pub const ARRAY_LIMIT: u32 = 1 << 20;

/// A JS `TypeError` with `message`.
fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// The `TypeError` for an option or argument whose read threw.
pub fn unreadable(key: &str) -> JsValue {
    let mut message = String::from("could not read `");
    message.push_str(key);
    message.push_str("` (a getter threw, or the object is a revoked Proxy)");
    type_error(&message)
}

/// `obj[key]`, `undefined` when `obj` is not an object; a getter that throws (or a revoked
/// `Proxy`) is a `TypeError` naming the key — never read as "absent".
pub fn read(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    if !obj.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|_| unreadable(key))
}

/// `obj[key]`, `undefined` when `obj` is not an object or the read throws.
pub fn get(obj: &JsValue, key: &str) -> JsValue {
    read(obj, key).unwrap_or(JsValue::UNDEFINED)
}

/// `Array.isArray(value)`; a revoked `Proxy` is a `TypeError`.
pub fn array_check(value: &JsValue) -> Result<bool, JsValue> {
    array_is_array(value).map_err(|_| unreadable("Array.isArray"))
}

/// `Array.isArray(value)`; `false` when even that throws (a revoked Proxy).
pub fn is_array(value: &JsValue) -> bool {
    value.is_object() && array_is_array(value).unwrap_or(false)
}

/// True for a plain argument object: an object that is not an array.
pub fn is_args_object(value: &JsValue) -> bool {
    value.is_object() && array_is_array(value) == Ok(false)
}

/// `Object.keys(object)`, the exact JS strings; a `Proxy` whose trap throws is a `TypeError`.
#[inline]
pub fn keys(object: &JsValue) -> Result<Array, JsValue> {
    object_keys(object).map_err(|_| unreadable("Object.keys"))
}

/// The object's own enumerable string keys, in property order (`Object.keys`); none when the
/// object cannot be listed.
pub fn own_keys(object: &JsValue) -> Vec<String> {
    if !object.is_object() {
        return Vec::new();
    }
    let mut strings = Vec::new();
    if let Ok(keys) = object_keys(object) {
        for key in keys.iter() {
            if let Some(key) = key.as_string() {
                strings.push(key);
            }
        }
    }
    strings
}

/// `Object.hasOwn(object, key)`: `false` for anything that is not an object, or that throws.
pub fn has_own(object: &JsValue, key: &str) -> bool {
    object.is_object() && object_has_own(object, &JsValue::from_str(key)) == Ok(true)
}

/// `object[key]` for an own property (inherited values are never read), `undefined` otherwise
/// (also for a non-object); a check or read that throws is a `TypeError` naming the key.
pub fn own(object: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    if !object.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    let key_value = JsValue::from_str(key);
    if !object_has_own(object, &key_value).map_err(|_| unreadable(key))? {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(object, &key_value).map_err(|_| unreadable(key))
}

/// `object[key]` for an own property; `undefined` otherwise (inherited values are never read),
/// and when the read throws.
pub fn get_own(object: &JsValue, key: &str) -> JsValue {
    own(object, key).unwrap_or(JsValue::UNDEFINED)
}

/// The length of an array (read through the catching `Reflect.get`; 0 when unreadable).
pub fn array_length(array: &JsValue) -> u32 {
    get(array, "length")
        .as_f64()
        .map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32)
}

/// The items of an array, each read through the catching `Reflect.get` (unreadable → `undefined`),
/// the first [`ARRAY_LIMIT`] of them (a sparse array's `length` can be 2^32 − 1, and no caller's
/// list is that long: `content` is checked before, the others are names and references).
pub fn array_items(array: &JsValue) -> Vec<JsValue> {
    (0..array_length(array).min(ARRAY_LIMIT))
        .map(|i| Reflect::get_u32(array, i).unwrap_or(JsValue::UNDEFINED))
        .collect()
}

/// The items of an array when every one is a string (read as [`array_items`] reads them); `None`
/// for anything else, an array with an item that is not a string included.
pub fn string_items(value: &JsValue) -> Option<Vec<String>> {
    if !is_array(value) {
        return None;
    }
    let mut strings = Vec::new();
    for item in array_items(value) {
        strings.push(item.as_string()?);
    }
    Some(strings)
}

/// Calls `f` on each item of an array, in order. A `length` or an item that cannot be read is
/// a `TypeError`, and so is an array of more than [`ARRAY_LIMIT`] items.
#[inline]
pub fn for_each_item(
    array: &JsValue,
    mut f: impl FnMut(u32, JsValue) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    let length = read(array, "length")?.as_f64().unwrap_or(0.0);
    if length > f64::from(ARRAY_LIMIT) {
        return Err(type_error("arrays are limited to 1048576 items"));
    }
    // In range: `length` is at most ARRAY_LIMIT (and NaN or negative casts to 0).
    for i in 0..length as u32 {
        let item = Reflect::get_u32(array, i).map_err(|_| unreadable("array item"))?;
        f(i, item)?;
    }
    Ok(())
}

/// A string argument as Rust sees it.
pub enum Text {
    /// Well-formed and at most the bound in UTF-16 units.
    Usable(String),
    /// Longer than the bound (not copied), or with a lone surrogate: matches nothing.
    Unmatchable,
}

impl Text {
    /// The string, when it is usable.
    pub fn usable(&self) -> Option<&str> {
        match self {
            Text::Usable(s) => Some(s),
            Text::Unmatchable => None,
        }
    }
}

/// Reads a string argument: `None` when it is not a string. Strings longer than `max_len`
/// UTF-16 units are never copied into WebAssembly (they are over every byte bound too).
pub fn text(value: &JsValue, max_len: usize) -> Option<Text> {
    if !value.is_string() {
        return None;
    }
    let js: &JsString = value.unchecked_ref();
    if js.length() as usize > max_len {
        return Some(Text::Unmatchable);
    }
    let s = value.as_string()?;
    // Only a U+FFFD can hide a replaced lone surrogate, so the exact check (a scan of the JS
    // string) runs only for strings that have one.
    if find(&s, "\u{FFFD}").is_some() && !well_formed_text(js) {
        return Some(Text::Unmatchable);
    }
    Some(Text::Usable(s))
}

/// The string, when `value` is a well-formed string of any length (no lone surrogate, which
/// would arrive in Rust as U+FFFD and could then equal another string).
pub fn well_formed(value: &JsValue) -> Option<String> {
    match text(value, usize::MAX)? {
        Text::Usable(s) => Some(s),
        Text::Unmatchable => None,
    }
}

/// Checks that the top level of a caller's value can be read: listing its keys and reading each
/// own property and `then` must not throw. A revoked Proxy or a throwing getter is a `TypeError` naming
/// `what`, so exports reject bad input instead of treating it as empty.
pub fn check_readable(value: &JsValue, what: &str) -> Result<(), JsValue> {
    if !value.is_object() {
        return Ok(());
    }
    let unreadable = || {
        type_error(&concat(&[
            what,
            " cannot be read (a getter threw, or it is a revoked Proxy)",
        ]))
    };
    array_is_array(value).map_err(|_| unreadable())?;
    let keys = object_keys(value).map_err(|_| unreadable())?;
    // An answer may be the caller's value itself, and resolving a promise with it reads `then`.
    keys.push(&JsValue::from_str("then"));
    for key in keys.iter() {
        Reflect::get(value, &key).map_err(|_| unreadable())?;
    }
    Ok(())
}

/// Defines `key` as a plain data property (enumerable, writable, configurable).
pub fn define(target: &Object, key: &str, value: &JsValue) {
    define_key(target, &JsValue::from_str(key), value);
}

/// Defines `key` (an exact JS string, kept as it is even with a lone surrogate) as a plain data
/// property.
pub fn define_key(target: &Object, key: &JsValue, value: &JsValue) {
    define_data(target, key, value);
}

/// A shallow copy of `object`'s own enumerable properties (but `skip`), as data properties of
/// a new plain object; a key or value that cannot be read is a `TypeError`.
pub fn copy_own(object: &JsValue, skip: Option<&str>) -> Result<Object, JsValue> {
    let copy = Object::new();
    for key in keys(object)?.iter().filter_map(|k| k.as_string()) {
        if Some(key.as_str()) != skip {
            define(&copy, &key, &own(object, &key)?);
        }
    }
    Ok(copy)
}

/// A shallow copy of `object`'s own enumerable properties, skipping `skip`, as data properties
/// of a new plain object (what cannot be read is left out, or copied as `undefined`).
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
const CANONICAL_DEPTH_LIMIT: u32 = 64;

#[wasm_bindgen(module = "/src/js_values.js")]
extern "C" {
    #[wasm_bindgen(js_name = mcpCanonicalJson)]
    fn canonical_json_of(value: &JsValue, depth_limit: u32, item_limit: u32) -> Option<String>;
    /// `Reflect.defineProperty(target, key, { value, writable, enumerable, configurable })`, a
    /// throw ignored (`js_values.js`).
    #[wasm_bindgen(js_name = mcpDefine)]
    fn define_data(target: &Object, key: &JsValue, value: &JsValue);
    /// True when the string has no lone surrogate (`js_values.js`): one call, where
    /// `JsString::is_valid_utf16` makes one per UTF-16 unit.
    #[wasm_bindgen(js_name = mcpWellFormed)]
    fn well_formed_text(text: &JsString) -> bool;
    #[wasm_bindgen(js_name = mcpExactJson)]
    fn exact_json_of(text: &JsString) -> JsValue;
}

/// The object or array a JSON text holds, when it reads back exactly as written
/// (`js_values.js`): `None` for text that is no JSON, a JSON scalar, or an integer past 2^53
/// that `JSON.parse` would round.
pub fn exact_json_object(text: &JsString) -> Option<JsValue> {
    Some(exact_json_of(text)).filter(JsValue::is_object)
}

/// JSON with object keys sorted at every level (`js_values.js`): two argument objects are
/// "the same call" when their canonical forms are equal. `None` for values JSON cannot express
/// (cycles, BigInt, nesting deeper than 64, arrays longer than [`ARRAY_LIMIT`]) and for values
/// that throw on the way.
pub fn canonical_json(value: &JsValue) -> Option<String> {
    canonical_json_of(value, CANONICAL_DEPTH_LIMIT, ARRAY_LIMIT)
}

/// An optional option object: `undefined`/`null` → none; an object → it; anything else → TypeError.
pub fn options_object(value: &JsValue, what: &str) -> Result<Option<JsValue>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else if value.is_object() {
        Ok(Some(value.clone()))
    } else {
        Err(type_error(&concat(&[what, " must be an object"])))
    }
}

/// An optional non-negative finite number option.
pub fn optional_non_negative(value: &JsValue, what: &str) -> Result<Option<f64>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(type_error(&concat(&[
            what,
            " must be a non-negative finite number",
        ]))),
    }
}

/// The boolean option `key` of `options`: `default` when absent; anything but a boolean is a
/// `TypeError` naming it.
#[inline(never)]
pub fn bool_option(options: &JsValue, key: &str, default: bool) -> Result<bool, JsValue> {
    match read(options, key)? {
        v if v.is_undefined() => Ok(default),
        v => v
            .as_bool()
            .ok_or_else(|| type_error(&concat(&[key, " must be a boolean"]))),
    }
}

/// An optional function option: `undefined`/`null` → none; a function → it (by `typeof`, which
/// never throws, unlike `instanceof` on a revoked Proxy); anything else → TypeError.
pub fn optional_function(value: &JsValue, what: &str) -> Result<Option<Function>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_ref::<Function>()
        .cloned()
        .map(Some)
        .ok_or_else(|| type_error(&concat(&[what, " must be a function"])))
}

/// The glob `separator` of an optional `{ separator }` object: a non-empty well-formed string,
/// `"."` when absent.
pub fn separator_option(options: &JsValue) -> Result<String, JsValue> {
    let Some(options) = options_object(options, "options")? else {
        return Ok(DEFAULT_SEPARATOR.to_owned());
    };
    match read(&options, "separator")? {
        v if v.is_undefined() => Ok(DEFAULT_SEPARATOR.to_owned()),
        v => well_formed(&v)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| type_error("separator must be a non-empty string")),
    }
}
