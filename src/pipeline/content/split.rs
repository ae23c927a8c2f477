//! A `CallToolResult` taken apart: its invalidation signals and the rest of its blocks, and its
//! data (`structuredContent`, else the first JSON text block) with the text block that copies it.

use js_sys::JsString;
use wasm_bindgen::{JsCast, JsValue};

use crate::cache::payload::{json_of, utf8_len};
use crate::js_args::{
    array_items, exact_json_object, get_own, has_own, is_args_object, own_keys, ARRAY_LIMIT,
};
use crate::state_sync::invalidation::{is_invalidation_text, parse_invalidations, Invalidation};

/// The text of a `{type: "text"}` block, as a JS string handle: tool output is never copied
/// into wasm memory just to be looked at.
pub(super) fn text_of(block: &JsValue) -> Option<JsString> {
    (get_own(block, "type").as_string().as_deref() == Some("text"))
        .then(|| get_own(block, "text").dyn_into::<JsString>().ok())
        .flatten()
}

/// How an MCP Fusion invalidation tag begins: only a text block that starts with it (after whitespace) may be nothing but invalidation signals.
pub const SIGNAL_TAG_OPENER: &str = "<cache_invalidation";

/// How MCP Fusion's legacy invalidation text begins (`[System: Cache invalidated for …]`).
pub const SIGNAL_LEGACY_OPENER: &str = "[System:";

/// How every invalidation signal begins (after whitespace): the tag, or MCP Fusion's legacy text.
const SIGNAL_OPENERS: [&str; 2] = [SIGNAL_TAG_OPENER, SIGNAL_LEGACY_OPENER];

/// The text of a block that is nothing but invalidation signals. Only texts that start like a
/// signal are copied into wasm memory and parsed there; data stays a JS string.
pub(super) fn invalidation_text(text: &JsString) -> Option<String> {
    let start = text.trim_start();
    if !SIGNAL_OPENERS.iter().any(|o| start.starts_with(o, 0)) {
        return None;
    }
    let text = String::from(text);
    is_invalidation_text(&text).then_some(text)
}

/// True for an MCP `CallToolResult`: an object whose `content` is an array (of at most
/// [`ARRAY_LIMIT`] items) that is empty or holds a typed block. A malformed block beside typed
/// ones (`null`, an object without `type`) is shown whole as an unknown block, the result's
/// `isError` and `_meta` kept; an array of nothing but such items is data, not content.
pub(in crate::pipeline) fn is_call_tool_result(value: &JsValue) -> bool {
    if !is_args_object(value) {
        return false;
    }
    let content = get_own(value, "content");
    let items = crate::js_args::array_length(&content);
    crate::js_args::is_array(&content)
        && items <= ARRAY_LIMIT
        && (items == 0
            || array_items(&content)
                .iter()
                .any(|block| is_args_object(block) && get_own(block, "type").is_string()))
}

/// A `CallToolResult` split into its invalidation blocks (MCP Fusion tags or legacy text) and
/// the rest.
pub(super) struct SplitResult {
    pub(super) signals: Vec<JsValue>,
    pub(super) invalidations: Vec<Invalidation>,
    pub(super) rest: Vec<JsValue>,
}

pub(super) fn split_invalidations(result: &JsValue) -> SplitResult {
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

/// What a final result holds besides its blocks: its `structuredContent`, and its data.
pub(super) struct Data {
    /// `structuredContent`, when the result has one.
    pub(super) structured: Option<JsValue>,
    /// `structuredContent` is the content again, not data.
    pub(super) mirror: bool,
    /// The data ([`find_data`]).
    pub(super) value: Option<JsValue>,
    /// The index in the blocks (`rest`) of the data's JSON copy.
    pub(super) copy_at: Option<usize>,
    /// The data's JSON text.
    pub(super) json: Option<JsString>,
    /// The data's size in bytes (of its JSON, as stored).
    pub(super) bytes: u64,
}

/// The data of `result`, whose blocks besides its invalidation signals are `rest`.
// One caller: inlined there, as before the split (the .wasm stays the same).
#[inline(always)]
pub(super) fn data_of(result: &JsValue, rest: &[JsValue]) -> Data {
    let structured = has_own(result, "structuredContent")
        .then(|| get_own(result, "structuredContent"))
        .filter(|s| !s.is_undefined());
    // `structuredContent: {content: [...the same blocks]}` (the filesystem server's media) is
    // the content again, not data: the blocks decide, and it goes when they change.
    let mirror = structured.as_ref().is_some_and(|s| {
        let own = get_own(s, "content");
        crate::js_args::is_array(&own) && json_of(&own) == json_of(&get_own(result, "content"))
    });
    let found = (!mirror)
        .then(|| find_data(structured.as_ref(), rest))
        .flatten();
    let (value, copy_at, json) = match found {
        Some((data, copy_at, json)) => (Some(data), copy_at, Some(json)),
        None => (None, None, None),
    };
    let bytes = json.as_ref().map_or(0, utf8_len);
    Data {
        structured,
        mirror,
        value,
        copy_at,
        json,
        bytes,
    }
}

/// The data of a result and the index (in `rest`) of the text block that is its JSON copy:
/// `structuredContent` (any JSON value) and the text block whose JSON equals it or one of its
/// top-level members (a server may show the model just the `entities` of `{entities}`), else
/// the first text block holding a JSON object or array.
///
/// Answers the data's JSON text too (measured once: its size decides storing and showing).
fn find_data(
    structured: Option<&JsValue>,
    rest: &[JsValue],
) -> Option<(JsValue, Option<usize>, JsString)> {
    // `structuredContent` that is a string, number or `null` is no data to store: its text
    // follows the text rules.
    let Some(structured) = structured.filter(|s| s.is_object()) else {
        return rest.iter().enumerate().find_map(|(i, block)| {
            let parsed = exact_json_object(&text_of(block)?)?;
            let json = json_of(&parsed)?;
            Some((parsed, Some(i), json))
        });
    };
    let json = json_of(structured)?;
    let mut member_json: Option<Vec<JsString>> = None;
    let copy = rest.iter().position(|block| {
        let Some(text) = text_of(block) else {
            return false;
        };
        if json == text {
            return true;
        }
        // Pretty-printed copies, and copies of one member, are compared in compact form (a text
        // with an integer `JSON.parse` rounds is no copy: it says more than the object).
        let Some(compact) = exact_json_object(&text).and_then(|parsed| json_of(&parsed)) else {
            return false;
        };
        compact == json
            || member_json
                .get_or_insert_with(|| {
                    let mut texts = Vec::new();
                    for key in members_of(structured) {
                        let member = get_own(structured, &key);
                        if !member.is_object() {
                            continue;
                        }
                        if let Some(text) = json_of(&member) {
                            texts.push(text);
                        }
                    }
                    texts
                })
                .contains(&compact)
    });
    Some((structured.clone(), copy, json))
}

/// The top-level keys of an object's members a text block may copy (an array's elements are
/// not): the first [`MEMBERS_LIMIT`], so matching stays linear in the blocks.
fn members_of(structured: &JsValue) -> Vec<String> {
    if crate::js_args::is_array(structured) {
        return Vec::new();
    }
    let mut keys = own_keys(structured);
    keys.truncate(MEMBERS_LIMIT);
    keys
}

/// Most members of `structuredContent` compared with the text blocks.
const MEMBERS_LIMIT: usize = 64;

/// The members of `s` (of [`members_of`]) that are strings, with their keys.
// One caller: inlined there, as before the split (the .wasm stays the same).
#[inline(always)]
pub(super) fn string_members(s: &JsValue) -> Vec<(String, JsValue)> {
    let mut members = Vec::new();
    for key in members_of(s) {
        let value = get_own(s, &key);
        if value.is_string() {
            members.push((key, value));
        }
    }
    members
}
