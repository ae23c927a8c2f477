//! What the model sees of a result that is not final (a failed call, or one waiting for
//! input): its texts cut to `maxChars`, nothing stored.

use js_sys::{Array, JsString};
use wasm_bindgen::{JsCast, JsValue};

use super::build::with_text;
use super::split::{invalidation_text, text_of};
use crate::js_args::{array_items, copy_without, define, get_own};
use crate::pipeline::visible::cut_text;

/// `result` with its texts (text blocks, embedded resources' text) cut so that together they
/// show at most `max_chars` characters (invalidation signals are never cut); the very same
/// object when they fit.
pub(super) fn cut_text_blocks(result: &JsValue, max_chars: u32) -> JsValue {
    let content = array_items(&get_own(result, "content"));
    let texts: Vec<Option<(JsString, &str)>> = content
        .iter()
        .map(|block| match text_of(block) {
            Some(text) => invalidation_text(&text)
                .is_none()
                .then_some((text, "#/text")),
            None => get_own(&get_own(block, "resource"), "text")
                .dyn_into::<JsString>()
                .ok()
                .map(|text| (text, "#/resource/text")),
        })
        .collect();
    let total: u64 = texts
        .iter()
        .flatten()
        .map(|(t, _)| u64::from(t.length()))
        .sum();
    if total <= u64::from(max_chars) {
        return result.clone();
    }
    let mut budget = max_chars;
    let cut: Array = content
        .into_iter()
        .zip(texts)
        .map(|(block, text)| match text {
            None => block,
            Some((text, pointer)) => {
                let shown = cut_text(&text, budget);
                budget = budget.saturating_sub(shown.length());
                with_text(&block, pointer, &shown)
            }
        })
        .collect();
    let out = copy_without(result, &["content"]);
    define(&out, "content", &cut);
    out.into()
}
