//! `afterToolCall`: store what a tool returned and answer what the model should see.

use js_sys::{Array, JsString, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::content::{is_call_tool_result, shown_call_tool_result, text_block};
use super::options::AfterOptions;
use super::visible::show_payload;
use crate::cache::ResultCache;
use crate::core::source::source_name;
use crate::js_args::{define, get_own};

/// Caches the original payload and returns what the model should see. Never throws: a storage
/// failure is an `error` event and the result is shown without a reference.
///
/// Whatever happens to caching, no LLM-visible value exceeds `maxChars`: a JSON payload that was
/// not stored (too big for `maxEntryBytes`, quota, `enabled: false`, an error result, …) becomes
/// a summary without `_cache_uri` whose hint says so; other text is cut with a visible marker.
///
/// An MCP `CallToolResult` is handled block by block (`pipeline/content.rs`, docs/CONTENT.md):
/// invalidation signals applied and kept in front, the data stored once and shown in place of
/// its JSON text, big text previewed, big media and blobs stored and linked.
pub async fn after_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> JsValue {
    // Entries record their source: the tool, and its server when the host says.
    let source = source_name(options.server.as_deref(), tool_name);
    let tool_name = source.as_str();
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
    // A plain string (an AI SDK tool's text) is the text of a one-block result: stored and
    // previewed when too big to show, stored as data when it holds a JSON object or array of at
    // least the threshold; the model reads that block's text.
    let text = result.dyn_ref::<JsString>();
    let wrapped = Object::new();
    let result = match text {
        Some(text) => {
            define(&wrapped, "content", &Array::of1(&text_block(text)));
            &wrapped
        }
        None => result,
    };
    if is_call_tool_result(result) {
        let (shown, uri) = shown_call_tool_result(cache, tool_name, result, options).await;
        // A one-block result answers one block (signals are kept in front: that block too).
        return match text {
            Some(_) => {
                let first = Reflect::get_u32(&get_own(&shown, "content"), 0).unwrap_or_default();
                (get_own(&first, "text"), uri)
            }
            None => (shown, uri),
        };
    }
    if !result.is_object() {
        return (result.clone(), None);
    }
    let store = options.enabled && get_own(result, "isError") != JsValue::TRUE;
    match show_payload(
        cache,
        tool_name,
        &options.conv_id,
        result,
        options.max_chars,
        &options.view,
        store,
    )
    .await
    {
        Some(shown) => shown,
        None => (result.clone(), None),
    }
}
