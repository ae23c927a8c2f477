//! Deciding block by block, before anything is stored: which blocks are stored (too big to
//! show) and how each is shown, within what is left of `maxChars`; once that is spent, the
//! blocks not shown are left out together, stored as one array.

use js_sys::{Array, JsString};
use wasm_bindgen::{JsCast, JsValue};

use super::split::text_of;
use crate::cache::payload::json_of;
use crate::core::content::{base64_decoded_len, block_kind, stores_binary, BlockKind};
use crate::js_args::get_own;
use crate::pipeline::options::AfterOptions;
use crate::pipeline::visible::visible_json;

/// A server's string the cache shows in a link and note of its own (a resource's `uri` as the
/// link's name, a `mimeType`): when it has at most 200 characters (a longer one is not shown;
/// the stored block keeps it).
pub(super) fn label(holder: &JsValue, key: &str) -> Option<String> {
    get_own(holder, key)
        .dyn_into::<JsString>()
        .ok()
        .filter(|s| s.length() <= 200)
        .map(String::from)
}

/// What becomes of one block (not the data's JSON copy).
pub(super) enum Step<'m> {
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
        member: Option<&'m str>,
        stored: Option<usize>,
    },
    /// Binary data (`pointer` into its stored block, `stored`): a link and a note; when it
    /// could not be stored, media pass as they are and a blob becomes a note.
    Binary {
        block: JsValue,
        holder: JsValue,
        what: String,
        mime: String,
        pointer: &'static str,
        bytes: u64,
        as_text: bool,
        stored: Option<usize>,
    },
    /// Left out with the blocks after it, once `maxChars` is spent (`true`: the first, whose
    /// line stands for them all).
    Left(bool),
}

/// The data as the blocks show it: its value and JSON text (when the result has data), its size,
/// and the reference its write answered (while planning: one as long, when it will be stored).
pub(super) struct DataView<'a> {
    pub(super) value: Option<&'a JsValue>,
    pub(super) json: Option<&'a JsString>,
    pub(super) bytes: u64,
    pub(super) uri: Option<&'a str>,
}

/// The blocks left out, in order, and their characters (texts, base64); `stored`: the write of
/// the array that holds them.
pub(super) struct Left {
    pub(super) blocks: Array,
    pub(super) chars: u64,
    pub(super) stored: Option<usize>,
}

/// Every block decided: each with what was left of `maxChars` before it, the blocks to store,
/// the blocks left out, and what is left of `maxChars` after them all.
pub(super) struct Plan<'m> {
    pub(super) steps: Vec<(u32, Step<'m>)>,
    pub(super) store: Vec<JsValue>,
    pub(super) left: Left,
    pub(super) budget: u32,
    /// The data's JSON copy, or a text copying one of its members, cannot be shown whole where
    /// it stands (a summary, or its text cut or previewed).
    pub(super) data_cut: bool,
}

/// Decides every block: which are stored (`store`, the blocks to write) and how each is shown.
/// `budget` follows what the model will be shown, block after block, measured as it will be
/// (`uri`: a reference as long as the ones the writes will answer).
struct Planner<'a> {
    options: &'a AfterOptions,
    uri: &'a str,
    budget: u32,
    store: Vec<JsValue>,
    left: Left,
    /// Deciding the one block left out on its own, as the others were.
    alone: bool,
    /// Whether the data is stored (a text copying a member is previewed with a reference into
    /// it only then); whether its copy, or such a text, could not be shown whole.
    data_stored: bool,
    data_cut: bool,
    /// A block shown only whole was left out.
    whole_left: bool,
}

impl<'m> Planner<'_> {
    fn spend(&mut self, chars: u32) {
        self.budget = self.budget.saturating_sub(chars);
    }

    fn stored(&mut self, block: &JsValue) -> usize {
        self.store.push(block.clone());
        self.store.len() - 1
    }

    /// Whether a block that costs text is left out: every one after the first left out, and
    /// one that does not fit when what is left of `maxChars` cannot hold the `marker` that would
    /// stand for it (a preview line, a note).
    fn leaves(&self, fits: bool, marker: usize) -> bool {
        // Blocks are left out from the first that does not fit: its characters are never 0.
        !self.alone && (self.left.chars > 0 || !fits && (self.budget as usize) < marker)
    }

    /// A block not shown once `maxChars` is spent: added to the array of the blocks left out,
    /// which the first one stores (no block is stored on its own after it).
    fn left_out(&mut self, block: &JsValue, chars: u32) -> Step<'m> {
        self.left.chars += u64::from(chars);
        let first = self.left.blocks.push(block) == 1;
        if first && self.options.enabled {
            self.store.push(self.left.blocks.clone().into());
            self.left.stored = Some(self.store.len() - 1);
        }
        Step::Left(first)
    }

    fn text(
        &mut self,
        block: &JsValue,
        text: JsString,
        pointer: &'static str,
        member: Option<&'m str>,
    ) -> Step<'m> {
        let length = text.length();
        let fits = length <= self.budget;
        // A preview line is about 210 characters besides its reference.
        let leaves = self.leaves(fits, 210 + self.uri.len());
        // A copy of a member of the data that is not shown whole (left out, or previewed).
        self.data_cut |= (leaves || !fits) && member.is_some();
        if leaves {
            return self.left_out(block, length);
        }
        // A text that fits is kept; one that does not is previewed and fills what is left.
        self.spend(if fits { length } else { self.budget });
        let member = member.filter(|_| self.data_stored);
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
    ) -> Step<'m> {
        let chars = data.length();
        let padding = u64::from(data.ends_with("=", chars as i32))
            + u64::from(data.ends_with("==", chars as i32));
        let bytes = base64_decoded_len(u64::from(chars), padding);
        let media_max = self.options.media_max_bytes;
        let stores = stores_binary(
            bytes,
            u64::from(chars),
            as_text,
            media_max,
            u64::from(self.budget),
        );
        // Media the model sees as media pass as they are when they are not stored.
        if !(as_text || stores && self.options.enabled) {
            return Step::Keep(block.clone());
        }
        let mime =
            label(holder, "mimeType").unwrap_or_else(|| "application/octet-stream".to_owned());
        // The note that follows the link: at most this long.
        let note = 150 + what.len() + mime.len() + 2 * self.uri.len();
        if self.leaves(!stores, note) {
            return self.left_out(block, chars);
        }
        if !stores {
            // A blob that fits is read as text: the whole block, as the server sent it.
            return self.whole(block);
        }
        self.spend(note as u32);
        let stored = self.options.enabled.then(|| self.stored(block));
        Step::Binary {
            block: block.clone(),
            holder: holder.clone(),
            what: what.to_owned(),
            mime,
            pointer,
            bytes,
            as_text,
            stored,
        }
    }

    /// A block shown only as it is (a link, a block of a kind not stored, a text block without
    /// a string `text`, a blob short enough to read as text): its JSON spends the budget; one
    /// that does not fit is left out with the blocks after it, and stays left out when it is the
    /// only one.
    fn whole(&mut self, block: &JsValue) -> Step<'m> {
        let chars = json_of(block).map_or(0, |s| s.length());
        if self.left.chars > 0 || chars > self.budget {
            self.whole_left = true;
            return self.left_out(block, chars);
        }
        self.spend(chars);
        Step::Keep(block.clone())
    }

    fn block(
        &mut self,
        block: &JsValue,
        member_of: &dyn Fn(&JsString) -> Option<&'m str>,
    ) -> Step<'m> {
        let kind = get_own(block, "type").as_string().unwrap_or_default();
        let data = get_own(block, "data").dyn_into::<JsString>();
        match (block_kind(&kind), data) {
            (BlockKind::Text, _) => {
                if let Some(text) = text_of(block) {
                    let member = member_of(&text);
                    return self.text(block, text, "#/text", member);
                }
            }
            (BlockKind::Media, Ok(data)) => {
                return self.binary(block, block, &data, &kind, "#/data", false)
            }
            (BlockKind::Resource, _) => {
                let resource = get_own(block, "resource");
                if let Ok(text) = get_own(&resource, "text").dyn_into::<JsString>() {
                    return self.text(block, text, "#/resource/text", None);
                }
                if let Ok(blob) = get_own(&resource, "blob").dyn_into::<JsString>() {
                    return self.binary(
                        block,
                        &resource,
                        &blob,
                        "resource",
                        "#/resource/blob",
                        true,
                    );
                }
            }
            (BlockKind::Other, Ok(data)) => {
                return self.binary(block, block, &data, &kind, "#/data", true)
            }
            _ => {}
        }
        self.whole(block)
    }
}

/// Every block of `rest` decided, in order, and the blocks to store. `copy_at` is the data's
/// JSON copy (shown as the visible payload of `data`, whose `uri` is as long as the one its
/// write will answer); `member_of` names the member of the stored data a text copies.
// One caller: inlined there, as before the split (the .wasm stays the same).
#[inline(always)]
pub(super) fn plan<'m>(
    options: &AfterOptions,
    rest: &[JsValue],
    copy_at: Option<usize>,
    data: &DataView,
    uri: &str,
    member_of: &dyn Fn(&JsString) -> Option<&'m str>,
) -> Plan<'m> {
    let mut planner = Planner {
        options,
        uri,
        budget: options.max_chars,
        store: Vec::new(),
        left: Left {
            blocks: Array::new(),
            chars: 0,
            stored: None,
        },
        alone: false,
        data_stored: data.uri.is_some(),
        data_cut: false,
        whole_left: false,
    };
    let mut steps = Vec::new();
    for (i, block) in rest.iter().enumerate() {
        let budget = planner.budget;
        let step = match (data.value, data.json) {
            (Some(value), Some(json)) if copy_at == Some(i) => {
                // Measured as the builder will show it: the visible payload, else the text.
                let shown =
                    match visible_json(value, data.uri, json, data.bytes, budget, &options.view) {
                        Some((value, whole)) => {
                            planner.data_cut |= !whole;
                            json_of(&value)
                        }
                        None => text_of(block),
                    };
                let chars = shown.map_or(0, |s| s.length());
                planner.data_cut |= chars > budget;
                planner.spend(chars);
                Step::DataCopy(block.clone())
            }
            _ => planner.block(block, member_of),
        };
        steps.push((budget, step));
    }
    // One block left out: decided on its own instead (a preview, a link), as before it, unless
    // it is shown only whole.
    if planner.left.blocks.length() == 1 && !planner.whole_left {
        planner
            .store
            .truncate(planner.left.stored.unwrap_or(usize::MAX));
        planner.alone = true;
        for (budget, step) in &mut steps {
            if let Step::Left(_) = step {
                planner.budget = *budget;
                *step = planner.block(&planner.left.blocks.get(0), member_of);
                planner.budget = 0;
            }
        }
    }
    Plan {
        steps,
        store: planner.store,
        left: planner.left,
        budget: planner.budget,
        data_cut: planner.data_cut,
    }
}
