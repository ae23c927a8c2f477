//! The store-wide running totals (bytes, entries) in the `meta` store: read, recounted from
//! the usage rows when missing, and written, always inside the transaction that changes them.

use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbKeyRange, IdbRequest};

use super::tx::{Handlers, Tx};
use crate::core::policy::Totals;
use crate::core::record::fields;
use crate::store::idb_objects;
use crate::store::js_record::{field, number};

/// A usage entry's `(uri, sizeBytes)`.
pub(super) fn usage_size(entry: &JsValue) -> (JsValue, f64) {
    (
        field(entry, fields::URI),
        number(entry, fields::SIZE_BYTES).unwrap_or(0.0),
    )
}

/// Key of the totals in [`super::META_STORE`].
pub(in crate::store) const TOTALS_KEY: &str = "totals";

/// Set on the totals row by every version that updates the totals in each transaction that
/// changes the store (`idb_objects::totals_row` writes it).
const EXACT: &str = "exact";
/// Set instead by the versions that also kept a row per conversation (`["conv", convId]`):
/// their totals are exact too, and their rows are deleted ([`drop_conversation_rows`]).
const PER_CONVERSATION: &str = "perConversation";

/// The totals, when a version that keeps them exact wrote them (otherwise the store is
/// recounted: a database just upgraded, or written by a version without totals).
fn totals_of(value: &JsValue) -> Option<Totals> {
    if !field(value, EXACT).is_truthy() && !field(value, PER_CONVERSATION).is_truthy() {
        return None;
    }
    Some(Totals {
        bytes: number(value, "bytes")?,
        entries: number(value, "entries")?,
    })
}

/// Deletes the per-conversation rows `["conv", convId]` an earlier version kept in the `meta`
/// store: every array key (the only ones it ever held; they sort after every string key, so
/// `"totals"` is never in the range). A no-op in a read-only transaction: the next read-write
/// one deletes them.
fn drop_conversation_rows(tx: &Tx) {
    if let Ok(range) = IdbKeyRange::lower_bound(&Array::new().into()) {
        let _ = tx.meta.delete(&range);
    }
}

/// Updates the totals in [`super::META_STORE`] (inside a handler of the same transaction).
pub(super) fn put_totals(tx: &Tx, totals: Totals) {
    let _ = tx.meta.put_with_key(
        &idb_objects::totals_row(totals.bytes, totals.entries),
        &JsValue::from_str(TOTALS_KEY),
    );
}

/// Reads the totals, then calls `then(totals, recounted)` from the success event. A database
/// without them (just upgraded, or written by an older version) counts its usage rows once,
/// here, leaving out `uncounted` (the entries a write has just put, which the caller adds
/// itself; `recounted` is then true).
///
/// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get),
/// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
pub(super) fn with_totals(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    uncounted: Vec<JsValue>,
    then: impl FnOnce(Totals, bool) + 'static,
) -> Result<(), JsValue> {
    let request = read_totals(tx)?;
    with_totals_read(tx, handlers, &request, uncounted, Box::new(then));
    Ok(())
}

/// Issues the `get` of the totals (for [`with_totals_read`]).
pub(super) fn read_totals(tx: &Tx) -> Result<IdbRequest, JsValue> {
    tx.meta.get(&JsValue::from_str(TOTALS_KEY))
}

/// [`with_totals`] over a `get` of the totals issued earlier in the same transaction (a write
/// issues it before its puts: see [`super::IndexedDbStore::write_batch`]). `then` is boxed: one copy
/// of the two listeners serves every caller.
pub(super) fn with_totals_read(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    request: &IdbRequest,
    uncounted: Vec<JsValue>,
    then: Box<dyn FnOnce(Totals, bool)>,
) {
    let mut then = Some(then);
    let (tx2, handlers2) = (tx.clone(), handlers.clone());
    handlers.on(request, move |request| {
        let Some(then) = then.take() else { return };
        let row = request.result().unwrap_or(JsValue::UNDEFINED);
        if let Some(totals) = totals_of(&row) {
            if field(&row, PER_CONVERSATION).is_truthy() {
                drop_conversation_rows(&tx2);
            }
            return then(totals, false);
        }
        drop_conversation_rows(&tx2);
        let Ok(all) = tx2.usage.get_all() else { return };
        let mut then = Some(then);
        let uncounted = uncounted.clone();
        handlers2.on(&all, move |all| {
            let rows: Array = all.result().map(JsCast::unchecked_into).unwrap_or_default();
            let totals = rows
                .iter()
                .map(|row| usage_size(&row))
                .filter(|(uri, _)| !uncounted.contains(uri))
                .fold(Totals::default(), |t, (_, size)| t.with_entry(size));
            if let Some(then) = then.take() {
                then(totals, true);
            }
        });
    });
}
