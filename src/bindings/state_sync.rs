//! Exports of the State-Sync vocabulary that both entries share or a host reads: `matchGlob`
//! (both), `parseCacheControl` and `parseInvalidations` (host). The server's half (`StateSync`,
//! `detectOverlaps`, `validatePattern`, `listCacheMeta`) is in `server.rs`.
//!
//! Every argument arrives as a `JsValue` and is checked here: a `&str` parameter would make
//! wasm-bindgen's glue copy whatever it is given (a `{length: 3e9}` object traps the module).
//! Every read of a caller's object goes through a catching path (`Reflect.get`, and the catching
//! imports below), so a throwing getter or a revoked `Proxy` becomes an exception of the call,
//! never one that unwinds through WebAssembly frames and leaves the module inconsistent.
//!
//! Strings with lone surrogates cannot cross into Rust intact (each becomes U+FFFD, so
//! `"\uD800"` and `"\uDBFF"` would compare equal). Names and patterns with one therefore match
//! nothing: `matchGlob` answers `false`, and `StateSync` treats such a tool name as matched by no
//! policy.

use js_sys::{JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{options_object, read, unreadable};
use super::js_error::type_error;
use crate::state_sync::glob::{self, DEFAULT_SEPARATOR, MAX_NAME_LEN, MAX_PATTERN_LEN};
#[cfg(feature = "host")]
use crate::state_sync::{decorate::parse_cache_control as parse_directive, invalidation};

/// Most items read from one array argument (policies, tools, content blocks): far above any
/// real list, and it keeps a sparse `new Array(2 ** 32 - 1)` from exhausting memory.
const ARRAY_LIMIT: u32 = 1 << 20;

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`, which throws for a revoked `Proxy`.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(value)`; a revoked `Proxy` is a `TypeError`.
pub(super) fn array_check(value: &JsValue) -> Result<bool, JsValue> {
    is_array(value).map_err(|_| unreadable("Array.isArray"))
}

/// Calls `f` on each item of an array (read with catching `Reflect.get`s), in order.
pub(super) fn for_each_item(
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
pub(super) enum Text {
    /// Well-formed and at most the bound in UTF-16 units.
    Usable(String),
    /// Longer than the bound (not copied), or with a lone surrogate: matches nothing.
    Unmatchable,
}

/// Reads a string argument: `None` when it is not a string. Strings longer than `max_len`
/// UTF-16 units are never copied into WebAssembly (they are over every byte bound too).
pub(super) fn text(value: &JsValue, max_len: usize) -> Option<Text> {
    if !value.is_string() {
        return None;
    }
    let js: &JsString = value.unchecked_ref();
    if js.length() as usize > max_len {
        return Some(Text::Unmatchable);
    }
    let s = value.as_string()?;
    // Only a U+FFFD can hide a replaced lone surrogate, so the exact check (one call per UTF-16
    // unit) runs only for strings that have one.
    if s.contains('\u{FFFD}') && !js.is_valid_utf16() {
        return Some(Text::Unmatchable);
    }
    Some(Text::Usable(s))
}

/// A well-formed string of any length (`None` otherwise).
pub(super) fn well_formed(value: &JsValue) -> Option<String> {
    match text(value, usize::MAX)? {
        Text::Usable(s) => Some(s),
        Text::Unmatchable => None,
    }
}

pub(super) fn separator_option(options: &JsValue) -> Result<String, JsValue> {
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

/// `matchGlob(pattern, name, { separator }?)`: whole-string, case-sensitive dot-glob match
/// (`*` one segment, `**` zero or more, `*` inside a segment any run of characters). `false`
/// for a pattern over 1024 or a name over 256 characters, and for strings with lone surrogates.
#[wasm_bindgen(js_name = matchGlob)]
pub fn match_glob(
    #[wasm_bindgen(unchecked_param_type = "string")] pattern: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<bool, JsValue> {
    let pattern = text(&pattern, MAX_PATTERN_LEN)
        .ok_or_else(|| type_error("matchGlob: pattern must be a string"))?;
    let name =
        text(&name, MAX_NAME_LEN).ok_or_else(|| type_error("matchGlob: name must be a string"))?;
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    Ok(match (pattern, name) {
        (Text::Usable(p), Text::Usable(n)) => glob::match_glob(&p, &n, &separator),
        _ => false,
    })
}

#[cfg(feature = "host")]
/// `parseCacheControl(description)`: the directive of a trailing `[Cache-Control: …]` tag
/// (`"immutable"` / `"no-store"`), or `null` (also for a missing description: `undefined` or
/// `null`). Any other non-string is a `TypeError`.
#[wasm_bindgen(js_name = parseCacheControl, unchecked_return_type = "CacheDirective | null")]
pub fn parse_cache_control(
    #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] description: JsValue,
) -> Result<JsValue, JsValue> {
    if description.is_undefined() || description.is_null() {
        return Ok(JsValue::NULL);
    }
    let description = description
        .as_string()
        .ok_or_else(|| type_error("parseCacheControl: description must be a string"))?;
    Ok(parse_directive(&description).map_or(JsValue::NULL, |d| JsValue::from_str(d.as_str())))
}

#[cfg(feature = "host")]
/// Appends `s` as a JSON string, copying the runs that need no escape whole (a cause can be a
/// megabyte long).
fn push_json_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue, // bytes of multi-byte characters are all >= 0x80
        };
        out.push_str(&s[start..i]);
        if escaped.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(escaped);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(feature = "host")]
/// Appends `{"cause":…,"domains":[…]}` for each invalidation in `text` to a JSON array text.
fn push_invalidations(json: &mut String, text: &str) {
    for inv in invalidation::parse_invalidations(text) {
        json.push_str(if json.len() > 1 {
            ",{\"cause\":"
        } else {
            "{\"cause\":"
        });
        push_json_string(json, &inv.cause);
        json.push_str(",\"domains\":[");
        for (i, domain) in inv.domains.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            push_json_string(json, domain);
        }
        json.push_str("]}");
    }
}

#[cfg(feature = "host")]
/// `parseInvalidations(result)`: the `<cache_invalidation … />` tags (entities unescaped) and
/// legacy `[System: Cache invalidated for … — caused by …]` texts in a `CallToolResult`, a
/// content array or a string, as `[{ cause, domains }]`. Anything else is a `TypeError`.
#[wasm_bindgen(js_name = parseInvalidations, unchecked_return_type = "Invalidation[]")]
pub fn parse_invalidations(
    #[wasm_bindgen(unchecked_param_type = "CallToolResult | ContentBlock[] | string")]
    result: JsValue,
) -> Result<JsValue, JsValue> {
    // The answer is built as one JSON text and parsed once: a tool result can hold thousands
    // of signals, and one `JSON.parse` is far cheaper than several boundary crossings each.
    let mut json = String::from("[");
    if let Some(s) = result.as_string() {
        push_invalidations(&mut json, &s);
    } else if !result.is_object() {
        return Err(type_error(
            "parseInvalidations expects a CallToolResult, a content array or a string",
        ));
    } else {
        let blocks = if array_check(&result)? {
            result
        } else {
            read(&result, "content")?
        };
        if blocks.is_object() && array_check(&blocks)? {
            for_each_item(&blocks, |_, block| {
                if let Some(text) = read(&block, "text")?.as_string() {
                    push_invalidations(&mut json, &text);
                }
                Ok(())
            })?;
        }
    }
    json.push(']');
    js_sys::JSON::parse(&json)
}
