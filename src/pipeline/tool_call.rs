//! `beforeToolCall` / `afterToolCall`: the two-call integration for a chat engine.

use js_sys::{Array, JsString, Object, JSON};
use wasm_bindgen::{JsCast, JsValue};

use super::js_args::{canonical_json, copy_without, define, get_own, has_own, is_args_object};
use super::substitution::{substitute_args, ArgsOutcome};
use super::summary;
use crate::cache::payload::utf8_len;
use crate::cache::{CacheEvent, CacheRequest, ResultCache};
use crate::core::cap::{self, CappedArg};
use crate::core::envelope::{cache_miss_signature, inline_cap_signature, Envelope};
use crate::core::record::LookupOutcome;
use crate::core::size::{DEFAULT_MAX_TOOL_RESULT_CHARS, INLINE_LIST_MAX_RECORDS};
use crate::core::substitute::URI_ARG_SUFFIX;
use crate::core::uri::DEFAULT_CONV_SEGMENT;
use crate::state_sync::invalidation::{is_invalidation_text, parse_invalidations, Invalidation};

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
    /// For reused results: above this many characters of JSON the model sees a summary.
    pub max_chars: u32,
}

/// What `beforeToolCall` decided.
pub enum BeforeOutcome {
    /// Dispatch with these arguments (the caller's own object when nothing changed).
    Dispatch(JsValue),
    /// Do not dispatch: an identical call to an `immutable` tool already has this LLM-visible
    /// result (`reuseImmutable`).
    Reused(JsValue),
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
    let conv = options.conv_id.as_deref().unwrap_or(DEFAULT_CONV_SEGMENT);
    let args_key = cache
        .reuse_immutable()
        .then(|| canonical_json(args))
        .flatten();
    if let Some(key) = &args_key {
        if let Some(reused) = reused_result(cache, tool_name, conv, key, options.max_chars).await {
            return BeforeOutcome::Reused(reused);
        }
    }
    let outcome = substitute_args(cache, tool_name, args, options.conv_id.as_deref()).await;
    if let (Some(key), ArgsOutcome::Same(_) | ArgsOutcome::Replaced(_)) = (args_key, &outcome) {
        cache.note_dispatch(conv, tool_name, key);
    }
    match outcome {
        ArgsOutcome::Same(same) => BeforeOutcome::Dispatch(same),
        ArgsOutcome::Replaced(copy) => BeforeOutcome::Dispatch(copy.into()),
        ArgsOutcome::Blocked { envelope, uris } => BeforeOutcome::Block {
            signature: cache_miss_signature(tool_name, &uris),
            envelope,
        },
    }
}

/// The LLM-visible result of an identical earlier call, when it is still fresh.
async fn reused_result(
    cache: &ResultCache,
    tool_name: &str,
    conv: &str,
    args_key: &str,
    max_chars: u32,
) -> Option<JsValue> {
    let uri = cache.reusable_uri(conv, tool_name, args_key)?;
    let LookupOutcome::Hit(payload) = cache.lookup(&uri, Some(conv)).await.ok()? else {
        return None;
    };
    let json = JSON::stringify(&payload).ok().filter(|s| s.is_string())?;
    cache.emit(CacheEvent::Reuse {
        tool_name: tool_name.to_owned(),
        uri: uri.clone(),
    });
    Some(visible_payload(
        &payload,
        &uri,
        &json,
        utf8_len(&json),
        max_chars,
    ))
}

/// `{...payload, _cache_uri}`, or the truncation summary when that would exceed `max_chars`.
fn visible_payload(
    payload: &JsValue,
    uri: &str,
    json: &JsString,
    bytes: u64,
    max_chars: u32,
) -> JsValue {
    // `{...payload, "_cache_uri":"…"}` adds the key, quotes, colon and a comma.
    let visible_chars = json.length() + uri.len() as u32 + 16;
    if visible_chars > max_chars {
        summary::truncated(payload, uri, json.length(), bytes).into()
    } else {
        summary::with_cache_uri(payload, uri).into()
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
    /// Canonical JSON of the call's arguments as the model wrote them, when the host passes
    /// them: pairs the result with its own call for `reuseImmutable`, even when calls to the
    /// same tool complete out of order.
    pub args_key: Option<String>,
}

impl Default for AfterOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            conv_id: DEFAULT_CONV_SEGMENT.to_owned(),
            max_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
            args_key: None,
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

fn text_of(block: &JsValue) -> Option<String> {
    (get_own(block, "type").as_string().as_deref() == Some("text"))
        .then(|| get_own(block, "text").as_string())
        .flatten()
}

/// A `CallToolResult` split into its invalidation blocks (MCP Fusion tags or legacy text) and
/// the rest.
struct SplitResult {
    signals: Vec<JsValue>,
    invalidations: Vec<Invalidation>,
    rest: Vec<JsValue>,
}

fn split_invalidations(result: &JsValue) -> SplitResult {
    let content: Array = get_own(result, "content").unchecked_into();
    let mut split = SplitResult {
        signals: Vec::new(),
        invalidations: Vec::new(),
        rest: Vec::new(),
    };
    for block in content.iter() {
        match text_of(&block).filter(|t| is_invalidation_text(t)) {
            Some(text) => {
                split.invalidations.extend(parse_invalidations(&text));
                split.signals.push(block);
            }
            None => split.rest.push(block),
        }
    }
    split
}

/// The data inside a `CallToolResult`: `structuredContent`, else the JSON object/array in the
/// first text block that is not an invalidation signal.
fn call_tool_result_payload(result: &JsValue, rest: &[JsValue]) -> Option<JsValue> {
    let structured = get_own(result, "structuredContent");
    if structured.is_object() {
        return Some(structured);
    }
    let text = rest.iter().find_map(text_of)?;
    let parsed = JSON::parse(&text).ok()?;
    parsed.is_object().then_some(parsed)
}

/// Caches the original payload and returns what the model should see. Never throws: a storage
/// failure is an `error` event and the result passes through unchanged.
///
/// For an MCP `CallToolResult`, invalidation signals are applied to the cache (only when
/// `isError !== true`) and kept in front: the returned value is a `CallToolResult` whose
/// `content` starts with those signals, followed by one text block with the JSON of the visible
/// payload (also set as `structuredContent` when the original had one).
pub async fn after_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> JsValue {
    if !options.enabled {
        return result.clone();
    }
    let (visible, uri) = after_enabled(cache, tool_name, result, options).await;
    // Close the dispatch noted by beforeToolCall (for reuseImmutable) on every path.
    cache.note_result(
        &options.conv_id,
        tool_name,
        uri.as_deref(),
        options.args_key.as_deref(),
    );
    visible
}

/// The visible value, and the reference minted for it (`None` when nothing was cached).
async fn after_enabled(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    if is_call_tool_result(result) {
        return after_call_tool_result(cache, tool_name, result, options).await;
    }
    if !result.is_object() || get_own(result, "isError") == JsValue::TRUE {
        return (result.clone(), None);
    }
    match cache_payload(cache, tool_name, result, options).await {
        Some((visible, uri)) => (visible, Some(uri)),
        None => (result.clone(), None),
    }
}

/// Caches `payload` and builds its visible form with the new reference; `None` when it is not
/// cached.
async fn cache_payload(
    cache: &ResultCache,
    tool_name: &str,
    payload: &JsValue,
    options: &AfterOptions,
) -> Option<(JsValue, String)> {
    // One JSON.stringify gives both the UTF-8 size (cache rule) and the char count (display rule).
    let json = JSON::stringify(payload).ok().filter(|s| s.is_string())?;
    let bytes = utf8_len(&json);
    let uri = cache
        .cache_tool_result(CacheRequest {
            payload,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            threshold: None,
            known_size: Some(bytes),
        })
        .await
        .ok()
        .flatten()?;
    let visible = visible_payload(payload, &uri, &json, bytes, options.max_chars);
    Some((visible, uri))
}

async fn after_call_tool_result(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    // A failed call invalidates nothing and gets no reference.
    if get_own(result, "isError") == JsValue::TRUE {
        return (result.clone(), None);
    }
    let split = split_invalidations(result);
    for invalidation in &split.invalidations {
        // Failures are reported as `error` events by the cache; the result still flows.
        let _ = cache
            .invalidate(&invalidation.domains, &invalidation.cause)
            .await;
    }
    let Some(payload) = call_tool_result_payload(result, &split.rest) else {
        return (result.clone(), None);
    };
    let Some((visible, uri)) = cache_payload(cache, tool_name, &payload, options).await else {
        return (result.clone(), None);
    };
    let out = copy_without(result, &["content", "structuredContent"]);
    let text = JSON::stringify(&visible)
        .map(String::from)
        .unwrap_or_default();
    let block = Object::new();
    define(&block, "type", &"text".into());
    define(&block, "text", &text.into());
    let content: Array = split.signals.iter().cloned().collect();
    content.push(&block);
    define(&out, "content", &content);
    if get_own(result, "structuredContent").is_object() {
        define(&out, "structuredContent", &visible);
    }
    (out.into(), Some(uri))
}
