//! `beforeToolCall` / `afterToolCall`: the two-call integration for a chat engine.

use js_sys::{Array, JsString, Object, JSON};
use wasm_bindgen::{JsCast, JsValue};

use super::js_args::{get_own, has_own, is_args_object};
use super::substitution::{substitute_args, ArgsOutcome};
use super::summary;
use crate::cache::payload::utf8_len;
use crate::cache::{CacheEvent, CacheRequest, ResultCache};
use crate::core::cap::{self, CappedArg};
use crate::core::envelope::{cache_miss_signature, inline_cap_signature, Envelope};
use crate::core::size::{DEFAULT_MAX_TOOL_RESULT_CHARS, INLINE_LIST_MAX_RECORDS};
use crate::core::substitute::URI_ARG_SUFFIX;

/// Inline-cap settings.
#[derive(Debug, Clone)]
pub struct CapOptions {
    /// Longest inline array allowed.
    pub cap: usize,
    /// Arguments the cap applies to.
    pub arg_names: Vec<String>,
}

impl Default for CapOptions {
    fn default() -> Self {
        Self {
            cap: INLINE_LIST_MAX_RECORDS as usize,
            arg_names: cap::DEFAULT_CAPPED_ARGS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

/// Options of `beforeToolCall`.
#[derive(Debug, Clone)]
pub struct BeforeOptions {
    /// `false` → pass through untouched.
    pub enabled: bool,
    /// Restricts references to this conversation.
    pub conv_id: Option<String>,
    /// The inline-list cap.
    pub cap: CapOptions,
}

/// What `beforeToolCall` decided.
pub enum BeforeOutcome {
    /// Dispatch with these arguments (the caller's own object when nothing changed).
    Dispatch(JsValue),
    /// Do not dispatch; answer the model with the envelope.
    Block {
        /// For the model.
        envelope: Envelope,
        /// `"<tool>|cache-miss|[…]"` or `"<tool>|inline-cap|<arg>"`.
        signature: String,
    },
}

/// `checkInlineListCap`: the envelope for the first capped argument over the cap, if any, as
/// `(arg, count, envelope)`.
pub fn check_inline_list_cap(
    tool_name: &str,
    args: &JsValue,
    options: &CapOptions,
) -> Option<(String, usize, Envelope)> {
    if !is_args_object(args) {
        return None;
    }
    let capped = options.arg_names.iter().map(|name| {
        let value = get_own(args, name);
        let uri_key = format!("{name}{URI_ARG_SUFFIX}");
        let uri = get_own(args, &uri_key);
        CappedArg {
            name: name.as_str(),
            array_len: Array::is_array(&value)
                .then(|| value.unchecked_ref::<Array>().length() as usize),
            has_uri_sibling: has_own(args, &uri_key) && !uri.is_undefined() && !uri.is_null(),
        }
    });
    cap::check_inline_list_cap(tool_name, capped, options.cap)
        .map(|(arg, count, envelope)| (arg.to_owned(), count, envelope))
}

/// Runs the inline cap, then substitution. Disabled → the arguments untouched.
pub async fn before_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    args: &JsValue,
    options: &BeforeOptions,
) -> BeforeOutcome {
    if !options.enabled {
        return BeforeOutcome::Dispatch(args.clone());
    }
    if let Some((arg, count, envelope)) = check_inline_list_cap(tool_name, args, &options.cap) {
        cache.emit(CacheEvent::Cap {
            tool_name: tool_name.to_owned(),
            arg: arg.clone(),
            count,
            cap: options.cap.cap,
        });
        return BeforeOutcome::Block {
            envelope,
            signature: inline_cap_signature(tool_name, &arg),
        };
    }
    match substitute_args(cache, tool_name, args, options.conv_id.as_deref()).await {
        ArgsOutcome::Same(same) => BeforeOutcome::Dispatch(same),
        ArgsOutcome::Replaced(copy) => BeforeOutcome::Dispatch(copy.into()),
        ArgsOutcome::Blocked { envelope, uris } => BeforeOutcome::Block {
            signature: cache_miss_signature(tool_name, &uris),
            envelope,
        },
    }
}

/// Options of `afterToolCall`.
#[derive(Debug, Clone)]
pub struct AfterOptions {
    /// `false` → the result untouched.
    pub enabled: bool,
    /// The conversation the result belongs to.
    pub conv_id: String,
    /// Above this many characters of JSON, the model sees a summary.
    pub max_chars: u32,
}

impl Default for AfterOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            conv_id: crate::core::uri::DEFAULT_CONV_SEGMENT.to_owned(),
            max_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
        }
    }
}

/// True for an MCP `CallToolResult`: an object whose `content` is an array of typed blocks.
pub fn is_call_tool_result(value: &JsValue) -> bool {
    if !is_args_object(value) {
        return false;
    }
    let content = get_own(value, "content");
    Array::is_array(&content)
        && content
            .unchecked_ref::<Array>()
            .iter()
            .all(|block| is_args_object(&block) && get_own(&block, "type").is_string())
}

/// The data inside a `CallToolResult`: `structuredContent`, else the JSON object/array in the
/// first text block. `None` when there is none (or the result is an error).
fn call_tool_result_payload(result: &JsValue) -> Option<JsValue> {
    if get_own(result, "isError") == JsValue::TRUE {
        return None;
    }
    let structured = get_own(result, "structuredContent");
    if structured.is_object() {
        return Some(structured);
    }
    let content: Array = get_own(result, "content").unchecked_into();
    let text = content
        .iter()
        .find(|block| get_own(block, "type").as_string().as_deref() == Some("text"))
        .map(|block| get_own(&block, "text"))?;
    let text: JsString = text.dyn_into().ok()?;
    let parsed = JSON::parse(&String::from(&text)).ok()?;
    parsed.is_object().then_some(parsed)
}

/// Caches the original payload and returns what the model should see. Never throws: a storage
/// failure is an `error` event and the result passes through unchanged.
pub async fn after_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> JsValue {
    if !options.enabled {
        return result.clone();
    }
    let payload = if is_call_tool_result(result) {
        match call_tool_result_payload(result) {
            Some(p) => p,
            None => return result.clone(),
        }
    } else if result.is_object() {
        result.clone()
    } else {
        return result.clone();
    };
    // One JSON.stringify gives both the UTF-8 size (cache rule) and the char count (display rule).
    let json = match JSON::stringify(&payload) {
        Ok(s) if s.is_string() => s,
        _ => return result.clone(),
    };
    let bytes = utf8_len(&json);
    let uri = cache
        .cache_tool_result(CacheRequest {
            payload: &payload,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            threshold: None,
            known_size: Some(bytes),
        })
        .await;
    let Ok(Some(uri)) = uri else {
        return result.clone();
    };
    // `{...payload, "_cache_uri":"…"}` adds the key, quotes, colon and a comma.
    let visible_chars = json.length() + uri.len() as u32 + 16;
    if visible_chars > options.max_chars {
        summary::truncated(&payload, &uri, json.length(), bytes).into()
    } else {
        let visible: Object = summary::with_cache_uri(&payload, &uri);
        visible.into()
    }
}
