//! What the model is shown of a JSON payload: the payload with its reference, or — above
//! `maxChars` — the summary; and text cut to a budget with a visible marker.

use js_sys::{JsString, JSON};
use wasm_bindgen::JsValue;

use super::summary;
use crate::cache::payload::{json_of, utf8_len};
use crate::cache::{CacheRequest, ResultCache};
use crate::core::cap;
use crate::core::view::View;

/// `{...payload, _cache_uri}` (`true`: the whole payload is shown), or the truncation summary
/// when that would exceed `max_chars` or the view is a preview (`false`).
pub fn visible_payload(
    payload: &JsValue,
    uri: &str,
    json: &JsString,
    bytes: u64,
    max_chars: u32,
    view: &View,
) -> (JsValue, bool) {
    let summary = || {
        let s = summary::truncated(payload, Some(uri), json.length(), bytes, max_chars, view);
        (s.into(), false)
    };
    // `{...payload, "_cache_uri":"…"}` adds the key, quotes, colon and a comma.
    let least = u64::from(json.length()) + uri.len() as u64 + 16;
    if view.preview || least > u64::from(max_chars) {
        return summary();
    }
    let visible = summary::with_cache_uri(payload, uri);
    // `_cache_refs` adds a little more; measure only when that could cross the line.
    let refs_at_most = summary::MAX_CACHE_REFS as u64 * (2 * uri.len() as u64 + 150);
    if least + refs_at_most > u64::from(max_chars) {
        let shown = JSON::stringify(&visible).map_or(u32::MAX, |s| s.length());
        if shown > max_chars {
            return summary();
        }
    }
    (visible.into(), true)
}

/// Caches `payload` when `store`, and builds what the model sees of it: with the new
/// reference, or — when nothing was stored and it exceeds `max_chars` — a summary saying it was
/// not kept, with the reference. `None`: show the payload as it is (small enough, and not
/// stored).
pub async fn show_payload(
    cache: &ResultCache,
    tool_name: &str,
    conv_id: &str,
    payload: &JsValue,
    max_chars: u32,
    view: &View,
    store: bool,
) -> Option<(JsValue, Option<String>)> {
    // One JSON.stringify gives both the UTF-8 size (cache rule) and the char count (display rule).
    let json = json_of(payload)?;
    let bytes = utf8_len(&json);
    let uri = if store {
        cache
            .cache_tool_result(CacheRequest {
                payload,
                conv_id,
                source_tool_name: tool_name,
                threshold: None,
                known_size: Some(bytes),
                derived_from: None,
            })
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    let (value, _) = visible_json(payload, uri.as_deref(), &json, bytes, max_chars, view)?;
    Some((value, uri))
}

/// What the model sees of a payload whose JSON is `json` (`bytes` of UTF-8): with its reference
/// when it was stored, the summary when it exceeds `max_chars`, `None` when neither (show it as
/// it is). The flag is `false` when the value is a summary.
pub fn visible_json(
    payload: &JsValue,
    uri: Option<&str>,
    json: &JsString,
    bytes: u64,
    max_chars: u32,
    view: &View,
) -> Option<(JsValue, bool)> {
    match uri {
        Some(uri) => Some(visible_payload(payload, uri, json, bytes, max_chars, view)),
        None if json.length() > max_chars => {
            let summary = summary::truncated(payload, None, json.length(), bytes, max_chars, view);
            Some((summary.into(), false))
        }
        None => None,
    }
}

/// `text` when it has at most `max_chars` UTF-16 units; otherwise its beginning and a marker
/// giving the original length, together within `max_chars` when the marker fits at all.
pub fn cut_text(text: &JsString, max_chars: u32) -> JsString {
    let length = text.length();
    if length <= max_chars {
        return text.clone();
    }
    let marker = cap::cut_marker(length);
    let kept = head(text, max_chars.saturating_sub(marker.len() as u32));
    kept.concat(&JsValue::from_str(&marker))
}

/// The first `keep` UTF-16 units of `text`, one fewer when that would split a surrogate pair
/// (a lone half would be garbage for the model).
pub fn head(text: &JsString, mut keep: u32) -> JsString {
    if keep > 0 && (55296.0..56320.0).contains(&text.char_code_at(keep - 1)) {
        keep -= 1;
    }
    text.slice(0, keep)
}
