//! The store-wide running totals (bytes, entries) in the `meta` store: read, recounted from
//! the usage rows when missing, and written, always inside the transaction that changes them.

use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::IdbRequest;

use super::conversation_totals::{self, PER_CONVERSATION};
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

/// The totals, when they were written with per-conversation rows alongside (otherwise the
/// store is recounted, rows included).
fn totals_of(value: &JsValue) -> Option<Totals> {
    if !field(value, PER_CONVERSATION).is_truthy() {
        return None;
    }
    Some(Totals {
        bytes: number(value, "bytes")?,
        entries: number(value, "entries")?,
    })
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
/// itself), and rebuilds the per-conversation rows from them (`recounted` is then true: rows
/// read before this point are out of date).
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
        if let Some(totals) = request.result().ok().as_ref().and_then(totals_of) {
            return then(totals, false);
        }
        let Ok(all) = tx2.usage.get_all() else { return };
        let mut then = Some(then);
        let uncounted = uncounted.clone();
        let tx3 = tx2.clone();
        handlers2.on(&all, move |all| {
            let rows: Array = all.result().map(JsCast::unchecked_into).unwrap_or_default();
            let totals = rows
                .iter()
                .map(|row| usage_size(&row))
                .filter(|(uri, _)| !uncounted.contains(uri))
                .fold(Totals::default(), |t, (_, size)| t.with_entry(size));
            conversation_totals::rebuild(&tx3, &rows, &uncounted);
            if let Some(then) = then.take() {
                then(totals, true);
            }
        });
    });
}
