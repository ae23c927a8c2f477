//! Exports of the State-Sync vocabulary that both entries share or a host reads: `matchGlob`
//! (both), `parseCacheControl` and `parseInvalidations` (host). The server's half (`StateSync`,
//! `detectOverlaps`, `validatePattern`, `listCacheMeta`) is in `server.rs`.
//!
//! Every argument arrives as a `JsValue` and is checked here: a `&str` parameter would make
//! wasm-bindgen's glue copy whatever it is given (a `{length: 3e9}` object traps the module).
//! Every read of a caller's object goes through the catching readers of
//! [`crate::js_args`], so a throwing getter or a revoked `Proxy` becomes an exception
//! of the call, never one that unwinds through WebAssembly frames and leaves the module
//! inconsistent.
//!
//! Strings with lone surrogates cannot cross into Rust intact (each becomes U+FFFD, so
//! `"\uD800"` and `"\uDBFF"` would compare equal). Names and patterns with one therefore match
//! nothing: `matchGlob` answers `false`, and `StateSync` treats such a tool name as matched by no
//! policy.

use wasm_bindgen::prelude::*;

use super::js_error::type_error;
#[cfg(feature = "host")]
use crate::js_args::{array_check, for_each_item, read};
use crate::js_args::{separator_option, text, Text};
use crate::state_sync::glob::{self, MAX_NAME_LEN, MAX_PATTERN_LEN};
#[cfg(feature = "host")]
use crate::state_sync::{decorate::parse_cache_control as parse_directive, invalidation};

/// `matchGlob(pattern, name, { separator }?)`: whole-string, case-sensitive dot-glob match
/// (`*` one segment, `**` zero or more, `*` inside a segment any run of characters). `false`
/// for a pattern over 1024 or a name over 4096 bytes, and for strings with lone surrogates.
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
    let mut json = invalidation::InvalidationsJson::new();
    if let Some(s) = result.as_string() {
        json.push_text(&s);
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
                    json.push_text(&text);
                }
                Ok(())
            })?;
        }
    }
    crate::js_args::json_parse(&json.finish().into())
}
