//! Deleting entries by key with their usage rows, keeping the totals: what the age eviction does, and what a clear falls back to for entries outside its
//! key range.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbKeyRange, IdbRequest};

use super::totals::{put_totals, usage_size, with_totals, TOTALS_KEY};
use super::transaction::Touches;
use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::policy::Totals;
use crate::core::record::fields;
use crate::store::StoreError;

impl IndexedDbStore {
    /// [`crate::store::RecordStore::delete_added_before`]: every entry added before
    /// `cutoff_ms`, in one read-write transaction.
    ///
    /// Walks the `addedAt` index with a key cursor (no payload read); each old entry's usage
    /// row gives its size for the totals.
    pub(super) async fn delete_by_age(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        let ticket = self.seq.ticket();
        self.read_write(
            "evicting old entries",
            Touches::Flush,
            ticket,
            move |tx, handlers, out| {
                let range =
                    IdbKeyRange::upper_bound_with_open(&JsValue::from_f64(cutoff_ms), true)?;
                let index = tx.results.index(fields::ADDED_AT)?;
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                with_totals(tx, handlers, Vec::new(), move |totals, _| {
                    // Issued from the totals' success event, so its own listener is in place first.
                    if let Ok(keys) = index.get_all_keys_with_key(&range) {
                        delete_each(&tx2, &handlers2, keys, totals, out);
                    }
                })
            },
        )
        .await
    }
}

/// Deletes each record whose key is in `keys` (an `IDBRequest` resolving to them) and its usage
/// row, subtracting the sizes the usage rows give from `totals`, and counts into `out`.
pub(super) fn delete_each(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    keys: IdbRequest,
    totals: Totals,
    out: Rc<Cell<u32>>,
) {
    let (tx, handlers2) = (tx.clone(), handlers.clone());
    let totals = Rc::new(Cell::new(totals));
    handlers.on(&keys, move |keys| {
        let keys: Array = keys
            .result()
            .map(JsCast::unchecked_into)
            .unwrap_or_default();
        for key in keys.iter() {
            let Ok(row) = tx.usage.get(&key) else {
                continue;
            };
            let (tx, totals, out) = (tx.clone(), totals.clone(), out.clone());
            handlers2.on(&row, move |row| {
                let Some(row) = row.result().ok().filter(JsValue::is_object) else {
                    return; // already gone
                };
                let (uri, size) = usage_size(&row);
                if tx.results.delete(&uri).is_ok() && tx.usage.delete(&uri).is_ok() {
                    totals.set(totals.get().without_entry(size));
                    out.set(out.get() + 1);
                }
            });
        }
        // Requests complete in order: this one's success follows every row's above.
        let Ok(last) = tx.meta.get(&JsValue::from_str(TOTALS_KEY)) else {
            return;
        };
        let (tx, totals) = (tx.clone(), totals.clone());
        handlers2.on(&last, move |_| put_totals(&tx, totals.get()));
    });
}
