//! `beforeToolCall` / `afterToolCall`: the two-call integration for a chat engine.

use js_sys::{Array, JsString, Object, JSON};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use super::js_args::{
    array_items, array_length, canonical_json, copy_without, define, get_own, has_own,
    is_args_object, is_array,
};
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
    /// The conversation the call belongs to: references are resolved only when they were
    /// written under exactly this id (a missing id is `"default"`, as in `afterToolCall`).
    pub conv_id: String,
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
        let uri_key = crate::core::text::concat(&[name, URI_ARG_SUFFIX]);
        let uri = get_own(args, &uri_key);
        CappedArg {
            name: name.as_str(),
            array_len: is_array(&value).then(|| array_length(&value) as usize),
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
    let conv = options.conv_id.as_str();
    let args_key = cache
        .reuse_immutable()
        .then(|| canonical_json(args))
        .flatten();
    if let Some(key) = &args_key {
        if let Some(reused) = reused_result(cache, tool_name, conv, key, options.max_chars).await {
            return BeforeOutcome::Reused(reused);
        }
    }
    let outcome = substitute_args(cache, tool_name, args, Some(conv)).await;
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
    let least = u64::from(json.length()) + uri.len() as u64 + 16;
    if least > u64::from(max_chars) {
        return summary::truncated(payload, Some(uri), json.length(), bytes, max_chars).into();
    }
    let visible = summary::with_cache_uri(payload, uri);
    // `_cache_refs` adds a little more; measure only when that could cross the line.
    let refs_at_most = summary::MAX_CACHE_REFS as u64 * (2 * uri.len() as u64 + 150);
    if least + refs_at_most > u64::from(max_chars) {
        let shown = JSON::stringify(&visible).map_or(u32::MAX, |s| s.length());
        if shown > max_chars {
            return summary::truncated(payload, Some(uri), json.length(), bytes, max_chars).into();
        }
    }
    visible.into()
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
    is_array(&content)
        && array_items(&content)
            .iter()
            .all(|block| is_args_object(block) && get_own(block, "type").is_string())
}

/// The text of a `{type: "text"}` block, as a JS string handle: tool output is never copied
/// into wasm memory just to be looked at.
fn text_of(block: &JsValue) -> Option<JsString> {
    (get_own(block, "type").as_string().as_deref() == Some("text"))
        .then(|| get_own(block, "text").dyn_into::<JsString>().ok())
        .flatten()
}

/// How every invalidation signal begins (after whitespace): the tag, or MCP Fusion's legacy text.
const SIGNAL_OPENERS: [&str; 2] = ["<cache_invalidation", "[System:"];

/// The text of a block that is nothing but invalidation signals. Only texts that start like a
/// signal are copied into wasm memory and parsed there; data stays a JS string.
fn invalidation_text(text: &JsString) -> Option<String> {
    let start = text.trim_start();
    if !SIGNAL_OPENERS.iter().any(|o| start.starts_with(o, 0)) {
        return None;
    }
    let text = String::from(text);
    is_invalidation_text(&text).then_some(text)
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` over a JS string handle (js-sys's binding takes a `&str`, which would copy
    /// the whole text into wasm memory and back).
    /// [MDN](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/JSON/parse)
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &JsString) -> Result<JsValue, JsValue>;
}

/// A `CallToolResult` split into its invalidation blocks (MCP Fusion tags or legacy text) and
/// the rest.
struct SplitResult {
    signals: Vec<JsValue>,
    invalidations: Vec<Invalidation>,
    rest: Vec<JsValue>,
}

fn split_invalidations(result: &JsValue) -> SplitResult {
    let content = array_items(&get_own(result, "content"));
    let mut split = SplitResult {
        signals: Vec::new(),
        invalidations: Vec::new(),
        rest: Vec::new(),
    };
    for block in content {
        match text_of(&block).and_then(|t| invalidation_text(&t)) {
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
    let parsed = json_parse(&text).ok()?;
    parsed.is_object().then_some(parsed)
}

/// Caches the original payload and returns what the model should see. Never throws: a storage
/// failure is an `error` event and the result is shown without a reference.
///
/// Whatever happens to caching, no LLM-visible value exceeds `maxChars`: a JSON payload that was
/// not stored (too big for `maxEntryBytes`, quota, `enabled: false`, an error result, …) becomes
/// a summary without `_cache_uri` whose hint says so; other text is cut with a visible marker.
///
/// For an MCP `CallToolResult`, invalidation signals are applied to the cache (only when
/// `isError !== true` and caching is enabled) and kept in front: the returned value is a
/// `CallToolResult` whose `content` starts with those signals, followed by one text block with
/// the JSON of the visible payload (also set as `structuredContent` when the original had one).
pub async fn after_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> JsValue {
    let (visible, uri) = shown(cache, tool_name, result, options).await;
    if options.enabled {
        // Close the dispatch noted by beforeToolCall (for reuseImmutable) on every path.
        cache.note_result(
            &options.conv_id,
            tool_name,
            uri.as_deref(),
            options.args_key.as_deref(),
        );
    }
    visible
}

/// The visible value, and the reference minted for it (`None` when nothing was cached).
async fn shown(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    if is_call_tool_result(result) {
        return after_call_tool_result(cache, tool_name, result, options).await;
    }
    if let Some(text) = result.dyn_ref::<JsString>() {
        return (cut_text(text, options.max_chars).into(), None);
    }
    if !result.is_object() {
        return (result.clone(), None);
    }
    let store = options.enabled && get_own(result, "isError") != JsValue::TRUE;
    match show_payload(cache, tool_name, result, options, store).await {
        Shown::Visible(visible, uri) => (visible, uri),
        Shown::Unchanged => (result.clone(), None),
    }
}

/// What the model sees of a JSON payload.
enum Shown {
    /// The payload as it is: small enough, and not stored.
    Unchanged,
    /// `{...payload, _cache_uri}` or a summary (with the reference when one was minted).
    Visible(JsValue, Option<String>),
}

/// Caches `payload` when `store`, and builds what the model sees of it: with the new reference,
/// or — when nothing was stored and it exceeds `maxChars` — a summary saying it was not kept.
async fn show_payload(
    cache: &ResultCache,
    tool_name: &str,
    payload: &JsValue,
    options: &AfterOptions,
    store: bool,
) -> Shown {
    // One JSON.stringify gives both the UTF-8 size (cache rule) and the char count (display rule).
    let Some(json) = JSON::stringify(payload).ok().filter(|s| s.is_string()) else {
        return Shown::Unchanged;
    };
    let json: JsString = json.unchecked_into();
    let bytes = utf8_len(&json);
    let uri = if store {
        cache
            .cache_tool_result(CacheRequest {
                payload,
                conv_id: &options.conv_id,
                source_tool_name: tool_name,
                threshold: None,
                known_size: Some(bytes),
            })
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    match uri {
        Some(uri) => {
            let visible = visible_payload(payload, &uri, &json, bytes, options.max_chars);
            Shown::Visible(visible, Some(uri))
        }
        None if json.length() > options.max_chars => {
            let visible =
                summary::truncated(payload, None, json.length(), bytes, options.max_chars);
            Shown::Visible(visible.into(), None)
        }
        None => Shown::Unchanged,
    }
}

async fn after_call_tool_result(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    // A failed call invalidates nothing and gets no reference; it is only capped.
    let is_error = get_own(result, "isError") == JsValue::TRUE;
    let split = split_invalidations(result);
    if options.enabled && !is_error {
        for invalidation in &split.invalidations {
            // Failures are reported as `error` events by the cache; the result still flows.
            let _ = cache
                .invalidate(&invalidation.domains, &invalidation.cause)
                .await;
        }
    }
    let payload = (!is_error)
        .then(|| call_tool_result_payload(result, &split.rest))
        .flatten();
    let shown = match &payload {
        Some(payload) => show_payload(cache, tool_name, payload, options, options.enabled).await,
        None => Shown::Unchanged,
    };
    let Shown::Visible(visible, uri) = shown else {
        return (cut_text_blocks(result, options.max_chars), None);
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
    (out.into(), uri)
}

/// `result` with its text blocks cut so that together they show at most `max_chars`
/// characters (invalidation signals are never cut); the very same object when they fit.
fn cut_text_blocks(result: &JsValue, max_chars: u32) -> JsValue {
    let content = array_items(&get_own(result, "content"));
    let texts: Vec<Option<JsString>> = content
        .iter()
        .map(|block| text_of(block).filter(|t| invalidation_text(t).is_none()))
        .collect();
    let total: u64 = texts.iter().flatten().map(|t| u64::from(t.length())).sum();
    if total <= u64::from(max_chars) {
        return result.clone();
    }
    let mut budget = max_chars;
    let cut: Array = content
        .into_iter()
        .zip(texts)
        .map(|(block, text)| match text {
            None => block,
            Some(text) => {
                let shown = cut_text(&text, budget);
                budget = budget.saturating_sub(shown.length());
                let copy = copy_without(&block, &["text"]);
                define(&copy, "text", &shown.into());
                copy.into()
            }
        })
        .collect();
    let out = copy_without(result, &["content"]);
    define(&out, "content", &cut);
    out.into()
}

/// `text` when it has at most `max_chars` UTF-16 units; otherwise its beginning and a marker
/// giving the original length, together within `max_chars` when the marker fits at all.
fn cut_text(text: &JsString, max_chars: u32) -> JsString {
    let length = text.length();
    if length <= max_chars {
        return text.clone();
    }
    let marker = cap::cut_marker(length);
    let mut keep = max_chars.saturating_sub(marker.len() as u32);
    // Never split a surrogate pair: a lone half would be garbage for the model.
    if keep > 0 && (55296.0..56320.0).contains(&text.char_code_at(keep - 1)) {
        keep -= 1;
    }
    let kept = text.slice(0, keep);
    kept.concat(&JsValue::from_str(&marker))
}
