//! An MCP `CallToolResult`, block by block (docs/CONTENT.md): invalidation signals applied and
//! kept in front; the data (`structuredContent`, else the first JSON text block) stored once and
//! shown in place of its text copy; big text previewed with a reference; big images, audio and
//! blobs stored whole and linked (`resource_link`); every other block kept, in order, with its
//! annotations. `structuredContent` is passed on unchanged, or left out when the model was shown
//! less than the whole data — never rewritten, so it still satisfies the tool's `outputSchema`.

use js_sys::{Array, JsString, Object};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use super::options::AfterOptions;
use super::visible::{cut_text, head, json_text, visible_json};
use crate::cache::join::join_all;
use crate::cache::payload::utf8_len;
use crate::cache::{CacheRequest, ResultCache};
use crate::core::content::{
    base64_decoded_len, block_kind, preview_keep, preview_marker, stored_binary_note,
    stores_binary, unkept_binary_note, BlockKind, META_URIS_KEY,
};
use crate::core::pointer::member_reference;
use crate::core::source::split_source;
use crate::core::text::concat;
use crate::js_args::{
    array_items, copy_without, define, get_own, has_own, is_args_object, own_keys,
};
use crate::state_sync::invalidation::{is_invalidation_text, parse_invalidations, Invalidation};

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

/// True for an MCP `CallToolResult`: an object whose `content` is an array of typed blocks.
pub fn is_call_tool_result(value: &JsValue) -> bool {
    if !is_args_object(value) {
        return false;
    }
    let content = get_own(value, "content");
    crate::js_args::is_array(&content)
        && array_items(&content)
            .iter()
            .all(|block| is_args_object(block) && get_own(block, "type").is_string())
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
            let parsed = json_parse(&text_of(block)?)
                .ok()
                .filter(JsValue::is_object)?;
            let json = json_text(&parsed)?;
            Some((parsed, Some(i), json))
        });
    };
    let json = json_text(structured)?;
    let mut member_json: Option<Vec<JsString>> = None;
    let copy = rest.iter().position(|block| {
        let Some(text) = text_of(block) else {
            return false;
        };
        if json == text {
            return true;
        }
        // Pretty-printed copies, and copies of one member, are compared in compact form.
        let Some(compact) = json_parse(&text)
            .ok()
            .filter(JsValue::is_object)
            .and_then(|parsed| json_text(&parsed))
        else {
            return false;
        };
        compact == json
            || member_json
                .get_or_insert_with(|| {
                    members_of(structured)
                        .iter()
                        .map(|k| get_own(structured, k))
                        .filter(JsValue::is_object)
                        .filter_map(|v| json_text(&v))
                        .collect()
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

/// What becomes of one block (not the data's JSON copy).
enum Step {
    /// Shown as it is.
    Keep(JsValue),
    /// The data's JSON copy: shown as the visible payload.
    DataCopy(JsValue),
    /// A text (`pointer` into its block: `#/text` or `#/resource/text`), shown whole when it
    /// fits; else previewed with a reference (the data's `member`, or its own stored block
    /// `stored`), or cut.
    Text {
        block: JsValue,
        text: JsString,
        pointer: &'static str,
        member: Option<String>,
        stored: Option<usize>,
    },
    /// Binary data the model reads as text (a blob) and that fits: kept when it still fits
    /// what is left, else a note.
    Blob {
        block: JsValue,
        holder: JsValue,
        what: String,
        chars: u32,
        bytes: u64,
    },
    /// Binary data (`pointer` into its stored block, `stored`): a link and a note; when it
    /// could not be stored, media pass as they are and a blob becomes a note.
    Binary {
        block: JsValue,
        holder: JsValue,
        what: String,
        pointer: &'static str,
        bytes: u64,
        as_text: bool,
        stored: Option<usize>,
    },
}

/// Decides every block: which are stored (`store`, the blocks to write) and how each is shown.
/// `budget` follows what the model will be shown, block after block.
struct Planner<'a> {
    options: &'a AfterOptions,
    budget: u32,
    store: Vec<JsValue>,
}

impl Planner<'_> {
    fn spend(&mut self, chars: u32) {
        self.budget = self.budget.saturating_sub(chars);
    }

    fn stored(&mut self, block: &JsValue) -> usize {
        self.store.push(block.clone());
        self.store.len() - 1
    }

    fn text(
        &mut self,
        block: &JsValue,
        text: JsString,
        pointer: &'static str,
        member: Option<String>,
    ) -> Step {
        let length = text.length();
        let fits = length <= self.budget;
        // A text that fits is kept; one that does not is previewed and fills what is left.
        self.spend(if fits { length } else { self.budget });
        let stored =
            (!fits && member.is_none() && self.options.enabled).then(|| self.stored(block));
        Step::Text {
            block: block.clone(),
            text,
            pointer,
            member,
            stored,
        }
    }

    fn binary(
        &mut self,
        block: &JsValue,
        holder: &JsValue,
        data: &JsString,
        what: &str,
        pointer: &'static str,
        as_text: bool,
    ) -> Step {
        let chars = data.length();
        let padding = u64::from(data.ends_with("=", chars as i32))
            + u64::from(data.ends_with("==", chars as i32));
        let bytes = base64_decoded_len(u64::from(chars), padding);
        let media_max = self.options.media_max_bytes;
        if !stores_binary(
            bytes,
            u64::from(chars),
            as_text,
            media_max,
            u64::from(self.budget),
        ) {
            if !as_text {
                return Step::Keep(block.clone());
            }
            self.spend(chars);
            return Step::Blob {
                block: block.clone(),
                holder: holder.clone(),
                what: what.to_owned(),
                chars,
                bytes,
            };
        }
        // A note of about this length follows the link.
        self.spend(300);
        let stored = self.options.enabled.then(|| self.stored(block));
        Step::Binary {
            block: block.clone(),
            holder: holder.clone(),
            what: what.to_owned(),
            pointer,
            bytes,
            as_text,
            stored,
        }
    }

    fn block(&mut self, block: &JsValue, member_of: &dyn Fn(&JsString) -> Option<String>) -> Step {
        let kind = get_own(block, "type").as_string().unwrap_or_default();
        let data = get_own(block, "data").dyn_into::<JsString>();
        match (block_kind(&kind), data) {
            (BlockKind::Text, _) => match text_of(block) {
                Some(text) => {
                    let member = member_of(&text);
                    self.text(block, text, "#/text", member)
                }
                None => Step::Keep(block.clone()),
            },
            (BlockKind::Media, Ok(data)) => {
                self.binary(block, block, &data, &kind, "#/data", false)
            }
            (BlockKind::Resource, _) => {
                let resource = get_own(block, "resource");
                if let Ok(text) = get_own(&resource, "text").dyn_into::<JsString>() {
                    self.text(block, text, "#/resource/text", None)
                } else if let Ok(blob) = get_own(&resource, "blob").dyn_into::<JsString>() {
                    self.binary(block, &resource, &blob, "resource", "#/resource/blob", true)
                } else {
                    Step::Keep(block.clone())
                }
            }
            (BlockKind::Other, Ok(data)) => self.binary(block, block, &data, &kind, "#/data", true),
            _ => Step::Keep(block.clone()),
        }
    }
}

/// Builds what the model is shown, with the references the writes answered.
struct Builder<'a> {
    tool_name: &'a str,
    budget: u32,
    content: Array,
    /// Some text the model sees is less than the server sent (cut, previewed or summarized).
    reduced: bool,
}

impl Builder<'_> {
    fn spend(&mut self, chars: u32) {
        self.budget = self.budget.saturating_sub(chars);
    }

    fn push_text(&mut self, text: &str) {
        let block = Object::new();
        define(&block, "type", &"text".into());
        define(&block, "text", &text.into());
        self.spend(text.len() as u32);
        self.content.push(&block);
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
            self.spend(length);
            self.content.push(block);
            return;
        }
        self.reduced = true;
        let shown = match reference {
            Some(reference) => preview(text, self.budget, &reference),
            None => cut_text(text, self.budget),
        };
        self.spend(shown.length());
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
                let text = json_text(&value).unwrap_or_else(|| JsString::from(""));
                self.spend(text.length());
                self.content.push(&with_text(block, "#/text", &text));
            }
            None => {
                let text = text_of(block).unwrap_or_else(|| JsString::from(""));
                self.text(block, &text, "#/text", None);
            }
        }
    }

    /// A blob kept as base64 text when it still fits what is left; else a note.
    fn blob(&mut self, block: &JsValue, holder: &JsValue, what: &str, chars: u32, bytes: u64) {
        if chars <= self.budget {
            self.spend(chars);
            self.content.push(block);
        } else {
            self.binary(block, holder, what, "", bytes, true, None);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        block: &JsValue,
        holder: &JsValue,
        what: &str,
        pointer: &str,
        bytes: u64,
        as_text: bool,
        uri: Option<&String>,
    ) {
        let mime = get_own(holder, "mimeType")
            .as_string()
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        match uri {
            Some(uri) => {
                let name = get_own(holder, "uri")
                    .as_string()
                    .unwrap_or_else(|| concat(&[split_source(self.tool_name).1, " ", what]));
                self.push_link(uri, &name, &mime, bytes, &get_own(block, "annotations"));
                self.push_text(&stored_binary_note(what, &mime, bytes, uri, pointer));
            }
            // Media the model sees as media pass when they could not be stored.
            None if !as_text => {
                self.content.push(block);
            }
            None => {
                self.reduced = true;
                self.push_text(&unkept_binary_note(what, &mime, bytes));
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
fn with_text(block: &JsValue, pointer: &str, text: &JsString) -> JsValue {
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

/// What `afterToolCall` applies or stores for a result.
enum Job<'a> {
    /// One of its invalidation signals.
    Invalidate(&'a Invalidation),
    /// Its data, or a block too big to show.
    Store(CacheRequest<'a>),
}

/// What the model sees of a `CallToolResult`, and the reference minted for its data. Every
/// write (the data, big blocks) is issued at once: one transaction.
pub async fn shown_call_tool_result(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    // A failed call, or one waiting for input (`input_required`), invalidates nothing and is
    // never stored; it is only capped.
    let is_final = get_own(result, "isError") != JsValue::TRUE
        && get_own(result, "resultType").as_string().as_deref() != Some("input_required");
    if !is_final {
        return (cut_text_blocks(result, options.max_chars), None);
    }
    let split = split_invalidations(result);
    let structured = has_own(result, "structuredContent")
        .then(|| get_own(result, "structuredContent"))
        .filter(|s| !s.is_undefined());
    // `structuredContent: {content: [...the same blocks]}` (the filesystem server's media) is
    // the content again, not data: the blocks decide, and it goes when they change.
    let mirror = structured.as_ref().is_some_and(|s| {
        let own = get_own(s, "content");
        crate::js_args::is_array(&own) && json_text(&own) == json_text(&get_own(result, "content"))
    });
    let found = (!mirror)
        .then(|| find_data(structured.as_ref(), &split.rest))
        .flatten();
    let (data, copy_at, data_json) = match found {
        Some((data, copy_at, json)) => (Some(data), copy_at, Some(json)),
        None => (None, None, None),
    };
    let data_bytes = data_json.as_ref().map_or(0, utf8_len);
    // Top-level string members of the structured data: a text block equal to one is its copy,
    // previewed with a reference into the data — when the data will be stored.
    let data_stored = options.enabled && data.is_some() && data_bytes >= cache.threshold();
    let members: Vec<(String, JsValue)> = match &data {
        Some(s) if data_stored => members_of(s)
            .into_iter()
            .map(|k| {
                let value = get_own(s, &k);
                (k, value)
            })
            .filter(|(_, v)| v.is_string())
            .collect(),
        _ => Vec::new(),
    };
    let member_of = |text: &JsString| -> Option<String> {
        members
            .iter()
            .find(|(_, value)| value == AsRef::<JsValue>::as_ref(text))
            .map(|(key, _)| key.clone())
    };

    // 1. Decide, block by block.
    let mut planner = Planner {
        options,
        budget: options.max_chars,
        store: Vec::new(),
    };
    let mut steps = Vec::new();
    for (i, block) in split.rest.iter().enumerate() {
        if copy_at == Some(i) && data_json.is_some() {
            let shown = data_json
                .as_ref()
                .map_or(0, |j| j.length().saturating_add(200));
            planner.spend(shown.min(options.max_chars));
            steps.push(Step::DataCopy(block.clone()));
        } else {
            steps.push(planner.block(block, &member_of));
        }
    }

    // 2. Store the data and the big blocks, all at once.
    // The result's invalidations first, then its writes, all issued together: each takes its
    // place in call order when first polled, so nothing called after this result comes between
    // them, and the writes share one transaction.
    let mut requests: Vec<Job> = split
        .invalidations
        .iter()
        .filter(|_| options.enabled)
        .map(Job::Invalidate)
        .collect();
    let data_at = requests.len();
    if let (Some(data), true) = (&data, options.enabled) {
        requests.push(Job::Store(CacheRequest {
            payload: data,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            threshold: None,
            known_size: Some(data_bytes),
            derived_from: None,
        }));
    }
    let blocks_at = requests.len();
    for block in &planner.store {
        requests.push(Job::Store(CacheRequest {
            payload: block,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            // Too big to show: stored whatever its size.
            threshold: Some(0),
            known_size: None,
            derived_from: None,
        }));
    }
    let server = options.server.as_deref();
    let uris = join_all(requests.into_iter().map(|job| async move {
        match job {
            // Failures are reported as `error` events by the cache; the result still flows.
            Job::Invalidate(i) => {
                let _ = cache.invalidate(&i.domains, &i.cause, server).await;
                None
            }
            Job::Store(request) => cache.cache_tool_result(request).await.ok().flatten(),
        }
    }))
    .await;
    let data_uri = uris[data_at..blocks_at].first().cloned().flatten();
    let block_uri = |i: usize| uris.get(blocks_at + i).and_then(Option::as_ref);

    // 3. Build what the model sees, within what is left of `maxChars` at each block.
    let mut out = Builder {
        tool_name,
        budget: options.max_chars,
        content: split.signals.iter().collect(),
        reduced: false,
    };
    let mut data_shown = false;
    let mut changed = data_uri.is_some();
    for step in steps {
        match step {
            Step::Keep(block) => {
                out.content.push(&block);
            }
            Step::Blob {
                block,
                holder,
                what,
                chars,
                bytes,
            } => out.blob(&block, &holder, &what, chars, bytes),
            Step::DataCopy(block) => match (&data, &data_json) {
                (Some(data), Some(json)) => {
                    let visible = visible_json(
                        data,
                        data_uri.as_deref(),
                        json,
                        data_bytes,
                        out.budget,
                        &options.view,
                    );
                    out.data_copy(&block, visible, &mut changed, &mut data_shown);
                }
                _ => {
                    out.content.push(&block);
                }
            },
            Step::Text {
                block,
                text,
                pointer,
                member,
                stored,
            } => {
                let reference = match member {
                    Some(key) => {
                        let reference = data_uri
                            .as_deref()
                            .and_then(|uri| member_reference(uri, &key));
                        // A preview names the data's reference (a text shown whole does not).
                        data_shown |= reference.is_some() && text.length() > out.budget;
                        reference
                    }
                    None => stored
                        .and_then(block_uri)
                        .map(|uri| concat(&[uri, pointer])),
                };
                out.text(&block, &text, pointer, reference);
            }
            Step::Binary {
                block,
                holder,
                what,
                pointer,
                bytes,
                as_text,
                stored,
            } => {
                let uri = stored.and_then(block_uri);
                out.binary(&block, &holder, &what, pointer, bytes, as_text, uri);
            }
        }
    }
    changed |= out.reduced || uris.iter().any(Option::is_some);
    // Stored data that no text shows: a link to it, so the model can pass it on.
    if let (Some(uri), false) = (&data_uri, data_shown) {
        out.push_link(
            uri,
            &concat(&[split_source(tool_name).1, " structuredContent"]),
            "application/json",
            data_bytes,
            &JsValue::UNDEFINED,
        );
    }
    if !changed {
        return (result.clone(), None);
    }
    let shown = copy_without(result, &["content", "structuredContent", "_meta"]);
    define(&shown, "content", &out.content);
    if let (Some(structured), false) = (&structured, out.reduced || mirror) {
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
    (shown.into(), data_uri)
}

/// `result` with its texts (text blocks, embedded resources' text) cut so that together they
/// show at most `max_chars` characters (invalidation signals are never cut); the very same
/// object when they fit.
fn cut_text_blocks(result: &JsValue, max_chars: u32) -> JsValue {
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
