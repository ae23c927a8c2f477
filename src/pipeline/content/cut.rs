//! What the model sees of a result that is not final (a failed call, or one waiting for
//! input): its texts cut to `maxChars` once, nothing stored.

use js_sys::{Array, JsString};
use wasm_bindgen::{JsCast, JsValue};

use super::build::with_text;
use super::split::{invalidation_text, text_of};
use crate::core::cap::cut_marker;
use crate::js_args::{array_items, copy_without, define, get_own};
use crate::pipeline::visible::head;

/// `result` with its texts (text blocks, embedded resources' text) cut so that together they
/// show at most `max_chars` characters (invalidation signals are never cut): the first text
/// that does not fit what is left is cut, with one marker giving the length of them all, and
/// the texts after it are left out. The very same object when they fit.
pub(super) fn cut_text_blocks(result: &JsValue, max_chars: u32) -> JsValue {
    let content = array_items(&get_own(result, "content"));
    let total: u64 = content
        .iter()
        .filter_map(text_to_cut)
        .map(|(t, _)| u64::from(t.length()))
        .sum();
    if total <= u64::from(max_chars) {
        return result.clone();
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
    let out = copy_without(result, &["content"]);
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
