//! Deciding block by block, before anything is stored: which blocks are stored (too big to
//! show) and how each is shown, within what is left of `maxChars`.

use js_sys::JsString;
use wasm_bindgen::{JsCast, JsValue};

use super::split::text_of;
use crate::core::content::{base64_decoded_len, block_kind, stores_binary, BlockKind};
use crate::js_args::get_own;
use crate::pipeline::options::AfterOptions;

/// What becomes of one block (not the data's JSON copy).
pub(super) enum Step {
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

/// Every block of `rest` decided, in order, and the blocks to store. `copy_at` is the data's
/// JSON copy (`data_json`, shown as the visible payload); `member_of` names the member of the
/// stored data a text copies.
// One caller: inlined there, as before the split (the .wasm stays the same).
#[inline(always)]
pub(super) fn plan(
    options: &AfterOptions,
    rest: &[JsValue],
    copy_at: Option<usize>,
    data_json: Option<&JsString>,
    member_of: &dyn Fn(&JsString) -> Option<String>,
) -> (Vec<Step>, Vec<JsValue>) {
    let mut planner = Planner {
        options,
        budget: options.max_chars,
        store: Vec::new(),
    };
    let mut steps = Vec::new();
    for (i, block) in rest.iter().enumerate() {
        if copy_at == Some(i) && data_json.is_some() {
            let shown = data_json.map_or(0, |j| j.length().saturating_add(200));
            planner.spend(shown.min(options.max_chars));
            steps.push(Step::DataCopy(block.clone()));
        } else {
            steps.push(planner.block(block, member_of));
        }
    }
    (steps, planner.store)
}
