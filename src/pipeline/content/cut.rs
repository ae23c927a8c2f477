//! What the model sees of a result that is not final (a failed call, or one waiting for
//! input): its texts cut to `maxChars` once, nothing stored.

use js_sys::{Array, JsString};
use wasm_bindgen::{JsCast, JsValue};

use super::build::with_text;
use super::split::{invalidation_text, text_of};
use crate::cache::payload::json_of;
use crate::core::cap::cut_marker;
use crate::js_args::{array_items, copy_without, define, get_own};
use crate::pipeline::visible::head;

/// `result` with its texts (text blocks, embedded resources' text) cut so that together they
/// show at most `max_chars` characters (invalidation signals are never cut): the first text
/// that does not fit what is left is cut, with one marker giving the length of them all, and
/// the texts after it are left out. A failed call's (`is_error`) `structuredContent` is kept
/// only while its JSON and the texts fit `max_chars` together (MCP checks no `outputSchema`
/// against it); any other's is the host's, passed on. The very same object when everything fits.
pub(super) fn cut_text_blocks(result: &JsValue, max_chars: u32, is_error: bool) -> JsValue {
    let content = array_items(&get_own(result, "content"));
    let mut total: u64 = 0;
    for (text, _) in content.iter().filter_map(text_to_cut) {
        total += u64::from(text.length());
    }
    // Unreadable as JSON (a cycle, a BigInt): no host could show it either.
    let structured = get_own(result, "structuredContent");
    let structured_chars = match is_error && !structured.is_undefined() {
        true => json_of(&structured).map_or(u64::MAX, |json| u64::from(json.length())),
        false => 0,
    };
    if total.saturating_add(structured_chars) <= u64::from(max_chars) {
        return result.clone();
    }
    let left_out: &[&str] = match structured_chars {
        0 => &["content"],
        _ => &["structuredContent", "content"],
    };
    if total <= u64::from(max_chars) {
        // Only the structuredContent is too much.
        return copy_without(result, &left_out[..1]).into();
    }
    let marker = cut_marker(total.min(u64::from(u32::MAX)) as u32);
    // What is left of `max_chars` besides the marker; `None` once a text was cut.
    let mut left = Some(max_chars.saturating_sub(marker.len() as u32));
    let cut = Array::new();
    for mut block in content {
        if let Some((text, pointer)) = text_to_cut(&block) {
            let Some(budget) = left else { continue };
            let length = text.length();
            if length <= budget {
                left = Some(budget - length);
            } else {
                left = None;
                let kept = head(&text, budget).concat(&marker.as_str().into());
                block = with_text(&block, pointer, &kept);
            }
        }
        cut.push(&block);
    }
    let out = copy_without(result, left_out);
    define(&out, "content", &cut);
    out.into()
}

/// The text a block shows that may be cut, with its pointer: a text block's (not an
/// invalidation signal's), or an embedded resource's.
fn text_to_cut(block: &JsValue) -> Option<(JsString, &'static str)> {
    match text_of(block) {
        Some(text) => invalidation_text(&text)
            .is_none()
            .then_some((text, "#/text")),
        None => get_own(&get_own(block, "resource"), "text")
            .dyn_into::<JsString>()
            .ok()
            .map(|text| (text, "#/resource/text")),
    }
}
