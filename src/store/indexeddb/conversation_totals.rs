//! Per-conversation running totals in the IndexedDB `meta` store, so that clearing a
//! conversation never reads its rows.
//!
//! Next to the store-wide totals (key `"totals"`), the `meta` store keeps one row per
//! conversation under the array key `["conv", convId]`: `{bytes, entries, irregular}`. Every
//! transaction that adds or removes entries applies its changes to these rows (one `get` and one
//! `put` per conversation it touched), in the same transaction, so they are exactly as current as
//! the store-wide totals. Array keys sort after string keys, so the rows never meet `"totals"`.
//!
//! They are authoritative only while the store-wide totals carry the [`PER_CONVERSATION`] flag.
//! A database without it (just upgraded, or last written by a version that did not keep these
//! rows) has its rows rebuilt from the usage rows, once, by the transaction that recounts the
//! store-wide totals ([`rebuild`]).
//!
//! `irregular` marks a conversation that has at least one entry outside its own URI key range
//! (an entry minted by chatbox-core, whose URI segments differ): its clear cannot be a key-range
//! delete. Entries this package writes are always inside their conversation's range.

use crate::core::map::Map;
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object};
use wasm_bindgen::JsValue;
use web_sys::{IdbKeyRange, IdbRequest};

use super::tx::{Handlers, Tx};
use crate::core::policy::Totals;
use crate::core::record::fields;
use crate::core::uri::conversation_prefix;
use crate::store::idb_objects;
use crate::store::js_record::{field, number};

/// Set on the store-wide totals object when the per-conversation rows are maintained.
pub(super) const PER_CONVERSATION: &str = "perConversation";
/// First element of every per-conversation key.
const CONV_KEY_TAG: &str = "conv";
/// Field of a per-conversation row: an entry of it lies outside its URI key range.
const IRREGULAR: &str = "irregular";

/// The key of `conv_id`'s row.
pub(super) fn conv_key(conv_id: &str) -> JsValue {
    Array::of2(&CONV_KEY_TAG.into(), &conv_id.into()).into()
}

/// Every per-conversation key: `[["conv"], ["conv", []])` (an array sorts after every string).
fn all_conv_keys() -> Result<IdbKeyRange, JsValue> {
    IdbKeyRange::bound_with_lower_open_and_upper_open(
        &Array::of1(&CONV_KEY_TAG.into()).into(),
        &Array::of2(&CONV_KEY_TAG.into(), &Array::new()).into(),
        false,
        true,
    )
}

/// A conversation's row.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct ConversationTotals {
    /// Its entries' bytes and count.
    pub totals: Totals,
    /// Whether an entry of it lies outside its URI key range.
    pub irregular: bool,
}

impl ConversationTotals {
    /// Reads a row (`None` for a missing or malformed one).
    pub(super) fn from_js(value: &JsValue) -> Option<Self> {
        if !value.is_object() {
            return None;
        }
        Some(Self {
            totals: Totals {
                bytes: number(value, BYTES)?,
                entries: number(value, ENTRIES)?,
            },
            irregular: field(value, IRREGULAR).is_truthy(),
        })
    }

    fn to_js(self) -> Object {
        idb_objects::conversation_row(self.totals.bytes, self.totals.entries, self.irregular)
    }
}

/// Field holding a row's byte count (as in the store-wide totals).
const BYTES: &str = "bytes";
/// Field holding a row's entry count (as in the store-wide totals).
const ENTRIES: &str = "entries";

/// Whether `uri` lies in `conv_id`'s key range (`["…/<segment>/", "…/<segment>0")` holds
/// exactly the strings that start with its lower bound, the conversation's prefix).
fn in_own_range(uri: &str, conv_id: &str) -> bool {
    uri.starts_with(&conversation_prefix(conv_id))
}

/// Changes to apply to per-conversation rows at the end of a transaction.
#[derive(Default)]
pub(super) struct ConversationDeltas {
    changes: Map<String, ConversationTotals>,
    /// Rows read ahead by [`Self::read_ahead`] (a transaction touches few conversations).
    read: Vec<(String, IdbRequest)>,
}

impl ConversationDeltas {
    /// Records one entry of `size` bytes added to (`sign` 1) or removed from (`sign` -1) `conv_id`.
    pub(super) fn add(&mut self, conv_id: &str, size: f64, sign: f64) {
        let delta = &mut self
            .changes
            .get_or_insert_with(conv_id.to_owned(), |_| ConversationTotals::default())
            .totals;
        delta.bytes += sign * size;
        delta.entries += sign;
    }

    /// Records the removal of the entry a usage row describes.
    pub(super) fn remove_row(&mut self, row: &JsValue, size: f64) {
        if let Some(conv) = field(row, fields::CONV_ID).as_string() {
            self.add(&conv, size, -1.0);
        }
    }

    /// Issues now the `get` of every row changed so far, so that [`Self::apply`] (called from a
    /// later success event of the same transaction) finds them read and adds no round trip.
    pub(super) fn read_ahead(&mut self, tx: &Tx) {
        for conv in self.changes.keys() {
            if let Ok(request) = tx.meta.get(&conv_key(conv)) {
                self.read.push((conv.clone(), request));
            }
        }
    }

    /// Drops the rows read ahead (they were read before a rebuild rewrote them).
    pub(super) fn forget_read_ahead(&mut self) {
        self.read.clear();
    }

    /// Updates the row of each conversation touched: from the row read ahead when there is one,
    /// otherwise from a `get` issued now, and the `put` of the updated row (or its `delete` once
    /// the conversation has no entry left) from its success event. True when every update was
    /// issued now (no row waits for a read), the common case of a write.
    ///
    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    pub(super) fn apply(self, tx: &Rc<Tx>, handlers: &Handlers) -> bool {
        let mut all_issued = true;
        for (conv, ConversationTotals { totals: delta, .. }) in self.changes {
            if delta.entries == 0.0 && delta.bytes == 0.0 {
                continue;
            }
            let key = conv_key(&conv);
            if let Some((_, request)) = self.read.iter().find(|(c, _)| *c == conv) {
                update(tx, &key, request, delta);
                continue;
            }
            all_issued = false;
            let Ok(request) = tx.meta.get(&key) else {
                continue; // the transaction is aborting; its error is reported
            };
            let tx = tx.clone();
            handlers.on(&request, move |request| update(&tx, &key, request, delta));
        }
        all_issued
    }
}

/// Writes the row under `key`: what `read` (a completed `get` of it) found, plus `delta`.
fn update(tx: &Tx, key: &JsValue, read: &IdbRequest, delta: Totals) {
    let before = read
        .result()
        .ok()
        .and_then(|v| ConversationTotals::from_js(&v))
        .unwrap_or_default();
    let entries = before.totals.entries + delta.entries;
    if entries <= 0.0 {
        let _ = tx.meta.delete(key);
        return;
    }
    let after = ConversationTotals {
        totals: Totals {
            bytes: (before.totals.bytes + delta.bytes).max(0.0),
            entries,
        },
        irregular: before.irregular,
    };
    let _ = tx.meta.put_with_key(&after.to_js(), key);
}

/// Rebuilds every per-conversation row from the usage rows (`{uri, convId, sizeBytes}`), leaving
/// out `uncounted` URIs (entries a write has just put, which it adds itself). Issued by the
/// transaction that recounts the store-wide totals; a no-op in a read-only transaction.
pub(super) fn rebuild(tx: &Tx, rows: &Array, uncounted: &[JsValue]) {
    let mut rebuilt = ConversationDeltas::default();
    for row in rows.iter() {
        let uri = field(&row, fields::URI);
        if uncounted.contains(&uri) {
            continue;
        }
        let (Some(uri), Some(conv)) = (uri.as_string(), field(&row, fields::CONV_ID).as_string())
        else {
            continue;
        };
        let size = number(&row, fields::SIZE_BYTES).unwrap_or(0.0);
        let regular = in_own_range(&uri, &conv);
        let entry = rebuilt
            .changes
            .get_or_insert_with(conv, |_| ConversationTotals::default());
        entry.totals = entry.totals.with_entry(size);
        entry.irregular |= !regular;
    }
    let Ok(range) = all_conv_keys() else { return };
    if tx.meta.delete(&range).is_err() {
        return; // read-only: the next read-write transaction rebuilds
    }
    for (conv, totals) in rebuilt.changes {
        let _ = tx.meta.put_with_key(&totals.to_js(), &conv_key(&conv));
    }
}

/// A shared [`ConversationDeltas`], filled by several success events of one transaction.
pub(super) type SharedDeltas = Rc<RefCell<ConversationDeltas>>;
