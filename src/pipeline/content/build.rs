//! Building what the model sees, step by step, with the references the writes answered: kept
//! blocks, the visible payload in place of the data's JSON copy, previews, links and notes.

use js_sys::{Array, JsString, Object};
use wasm_bindgen::JsValue;

use super::issue::Issued;
use super::plan::{label, DataView, Left, Step};
use super::split::text_of;
use crate::cache::payload::json_of;
use crate::core::content::{
    left_out_note, preview_keep, preview_marker, stored_binary_note, unkept_binary_note,
    META_URIS_KEY,
};
use crate::core::pointer::member_reference;
use crate::core::source::split_source;
use crate::core::text::concat;
use crate::core::view::View;
use crate::js_args::{copy_without, define, get_own, is_args_object};
use crate::pipeline::visible::{cut_text, head, visible_json, visible_payload};

/// Builds what the model is shown, with the references the writes answered.
pub(super) struct Builder<'a> {
    tool_name: &'a str,
    budget: u32,
    content: Array,
    /// Some text the model sees is less than the server sent (cut, previewed, summarized or
    /// left out).
    pub(super) reduced: bool,
    /// The model was shown less than the whole data (a summary, a cut or previewed copy of it
    /// or of one of its members): its `structuredContent` would bring back what that left out.
    data_reduced: bool,
    /// A text block was shown (`true` when one copies a member of the data).
    text: Option<bool>,
}

impl<'a> Builder<'a> {
    /// Starts with the result's invalidation signals, kept in front, and all of `maxChars` left.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    pub(super) fn new(tool_name: &'a str, budget: u32, signals: &[JsValue]) -> Builder<'a> {
        Builder {
            tool_name,
            budget,
            content: signals.iter().collect(),
            reduced: false,
            data_reduced: false,
            text: None,
        }
    }

    /// Every step, in order, within what the plan left of `maxChars` at each block; `changed`
    /// and `data_shown` as the data's copy and previews show the data. `left`: the blocks left
    /// out, and `budget` what is left after them all.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn steps(
        &mut self,
        steps: Vec<(u32, Step<'_>)>,
        data: &DataView,
        view: &View,
        issued: &Issued,
        left: &Left,
        budget: u32,
        changed: &mut bool,
        data_shown: &mut bool,
    ) {
        for (budget, step) in steps {
            // The plan decided each block within what it left: the same decisions here.
            self.budget = budget;
            match step {
                Step::Keep(block) => {
                    self.content.push(&block);
                }
                Step::Left(first) => {
                    self.reduced = true;
                    if first {
                        let uri = left
                            .stored
                            .and_then(|i| issued.block_uri(i))
                            .map(String::as_str);
                        let note = left_out_note(left.blocks.length(), left.chars, uri);
                        self.push_text(&note);
                    }
                }
                Step::DataCopy(block) => {
                    // The plan makes this step only for data with its JSON.
                    if let (Some(value), Some(json)) = (data.value, data.json) {
                        let visible =
                            visible_json(value, data.uri, json, data.bytes, self.budget, view);
                        self.data_copy(&block, visible, changed, data_shown);
                    }
                }
                Step::Text {
                    block,
                    text,
                    pointer,
                    member,
                    stored,
                } => {
                    self.text = Some(self.text == Some(true) || member.is_some());
                    let reference = match member {
                        Some(key) => {
                            let reference = data.uri.and_then(|uri| member_reference(uri, key));
                            // A preview names the data's reference (a text shown whole does not).
                            let previewed = text.length() > self.budget;
                            *data_shown |= reference.is_some() && previewed;
                            self.data_reduced |= previewed;
                            reference
                        }
                        None => stored
                            .and_then(|i| issued.block_uri(i))
                            .map(|uri| concat(&[uri, pointer])),
                    };
                    self.text(&block, &text, pointer, reference);
                }
                Step::Binary {
                    block,
                    holder,
                    what,
                    mime,
                    pointer,
                    bytes,
                    as_text,
                    stored,
                } => {
                    let uri = stored.and_then(|i| issued.block_uri(i));
                    self.binary(&block, &holder, &what, &mime, pointer, bytes, as_text, uri);
                }
            }
        }
        self.budget = budget;
    }

    /// The stored data when no text shows it, after the blocks: a link to it when texts were
    /// shown that copy one of its members, or that come with it and it would fit (the server
    /// chose what the model reads); else its visible JSON, as its copy would be shown.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    pub(super) fn unseen_data(&mut self, data: &DataView, view: &View, changed: &mut bool) {
        let (Some(value), Some(json), Some(uri)) = (data.value, data.json, data.uri) else {
            return;
        };
        let (visible, whole) = visible_payload(value, uri, json, data.bytes, self.budget, view);
        match self.text {
            Some(member) if member || whole => {
                // Only linked: whatever texts were reduced may be the data's.
                self.data_reduced |= self.reduced;
                let name = concat(&[split_source(self.tool_name).1, " structuredContent"]);
                self.push_link(
                    uri,
                    &name,
                    "application/json",
                    data.bytes,
                    &JsValue::UNDEFINED,
                );
            }
            _ => {
                let block = Object::new();
                define(&block, "type", &"text".into());
                self.data_copy(&block.into(), Some((visible, whole)), changed, &mut false);
            }
        }
    }

    /// The result as the model sees it: `result` with the built `content`, its
    /// `structuredContent` unless the model was shown less than the whole data (or it mirrors the
    /// content; other texts cut or previewed do not matter), and the minted references (`uris`) in its `_meta`.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    pub(super) fn shown_result(
        &self,
        result: &JsValue,
        structured: Option<&JsValue>,
        mirror: bool,
        uris: &[Option<String>],
    ) -> Object {
        let shown = copy_without(result, &["content", "structuredContent", "_meta"]);
        define(&shown, "content", &self.content);
        if let (Some(structured), false) = (structured, self.data_reduced || mirror) {
            define(&shown, "structuredContent", structured);
        }
        let minted: Array = uris
            .iter()
            .flatten()
            .map(|u| JsValue::from_str(u))
            .collect();
        let meta = get_own(result, "_meta");
        if minted.length() > 0 {
            let copy = if is_args_object(&meta) {
                copy_without(&meta, &[])
            } else {
                Object::new()
            };
            define(&copy, META_URIS_KEY, &minted);
            define(&shown, "_meta", &copy);
        } else if !meta.is_undefined() {
            define(&shown, "_meta", &meta);
        }
        shown
    }

    fn push_text(&mut self, text: &str) {
        self.content.push(&text_block(&text.into()));
    }

    fn push_link(&mut self, uri: &str, name: &str, mime: &str, bytes: u64, annotations: &JsValue) {
        let link = Object::new();
        define(&link, "type", &"resource_link".into());
        define(&link, "uri", &uri.into());
        define(&link, "name", &name.into());
        define(&link, "mimeType", &mime.into());
        define(&link, "size", &JsValue::from_f64(bytes as f64));
        if !annotations.is_undefined() {
            define(&link, "annotations", annotations);
        }
        self.content.push(&link);
    }

    fn text(&mut self, block: &JsValue, text: &JsString, pointer: &str, reference: Option<String>) {
        let length = text.length();
        if length <= self.budget {
            self.content.push(block);
            return;
        }
        self.reduced = true;
        let shown = match reference {
            Some(reference) => preview(text, self.budget, &reference),
            None => cut_text(text, self.budget),
        };
        self.content.push(&with_text(block, pointer, &shown));
    }

    /// The data's JSON copy: the visible payload (with its reference, or the summary) in its
    /// place; the text as it is when neither applies.
    fn data_copy(
        &mut self,
        block: &JsValue,
        visible: Option<(JsValue, bool)>,
        changed: &mut bool,
        data_shown: &mut bool,
    ) {
        match visible {
            Some((value, whole)) => {
                *changed = true;
                *data_shown = true;
                self.reduced |= !whole;
                self.data_reduced |= !whole;
                let text = json_of(&value).unwrap_or_else(|| JsString::from(""));
                self.content.push(&with_text(block, "#/text", &text));
            }
            None => {
                let text = text_of(block).unwrap_or_else(|| JsString::from(""));
                self.data_reduced |= text.length() > self.budget;
                self.text(block, &text, "#/text", None);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        block: &JsValue,
        holder: &JsValue,
        what: &str,
        mime: &str,
        pointer: &str,
        bytes: u64,
        as_text: bool,
        uri: Option<&String>,
    ) {
        match uri {
            Some(uri) => {
                let name = label(holder, "uri")
                    .unwrap_or_else(|| concat(&[split_source(self.tool_name).1, " ", what]));
                self.push_link(uri, &name, mime, bytes, &get_own(block, "annotations"));
                self.push_text(&stored_binary_note(what, mime, bytes, uri, pointer));
            }
            // Media the model sees as media pass when they could not be stored.
            None if !as_text => {
                self.content.push(block);
            }
            None => {
                self.reduced = true;
                self.push_text(&unkept_binary_note(what, mime, bytes));
            }
        }
    }
}

/// `text`'s first lines within `budget`, then the marker with the total length, line count and
/// reference.
fn preview(text: &JsString, budget: u32, reference: &str) -> JsString {
    let length = text.length();
    let lines = text.split("\n").length();
    let marker = preview_marker(length, lines, reference);
    let keep = preview_keep(length, budget, marker.len() as u32);
    // End on a line break when one falls in the second half of what fits.
    let at = text.last_index_of("\n", keep as i32);
    let keep = if at > 0 && (at as u32) > keep / 2 && (at as u32) < keep {
        at as u32
    } else {
        keep
    };
    head(text, keep).concat(&JsValue::from_str(&marker))
}

/// A copy of `block` whose text (`#/text`, or `#/resource/text`) is `text`.
pub(super) fn with_text(block: &JsValue, pointer: &str, text: &JsString) -> JsValue {
    if pointer != "#/text" {
        let copy = copy_without(block, &["resource"]);
        let resource = copy_without(&get_own(block, "resource"), &["text"]);
        define(&resource, "text", text);
        define(&copy, "resource", &resource);
        return copy.into();
    }
    let copy = copy_without(block, &["text"]);
    define(&copy, "text", text);
    copy.into()
}

/// `{ type: "text", text }`.
pub(in crate::pipeline) fn text_block(text: &JsValue) -> Object {
    let block = Object::new();
    define(&block, "type", &"text".into());
    define(&block, "text", text);
    block
}
