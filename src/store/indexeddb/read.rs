//! The read-only operations: reading records by key (their last uses are remembered, see
//! `last_use`), the statistics (totals and distinct conversations) and the listing.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbCursorDirection, IdbKeyRange, IdbObjectStore, IdbTransaction, IdbTransactionMode,
};

use super::last_use::{note_use, waiting_uses};
use super::totals::with_totals;
use super::tx::Handlers;
use super::IndexedDbStore;
use crate::core::record::{fields, MAX_DERIVATION_DEPTH};
use crate::store::idb_events::transaction_done;
use crate::store::js_record::{self, field, number};
use crate::store::{JsRecord, StoreError, StoreStats, Totals};

/// Issues a `get` of every key of `uris` in `store` at once and reads each result as a record
/// (`None` where absent) as soon as the last one succeeds; order follows `uris`. Then, up to
/// `depth` links, the present records of their `derivedFrom` chains, read in the same
/// transaction. A read-only transaction has nothing to commit, so its results are final then:
/// the read does not wait for `complete` too (`mcpCacheGetRows` in `idb_objects.js`). A failed
/// request aborts the transaction, and the read is its error. The chatbox-core reader reads
/// through this too.
///
/// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
pub(in crate::store) async fn get_records(
    tx: &IdbTransaction,
    store: &IdbObjectStore,
    uris: &[&str],
    depth: u32,
    context: &str,
) -> Result<Vec<Option<JsRecord>>, StoreError> {
    if uris.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Array = uris.iter().map(|uri| JsValue::from_str(uri)).collect();
    let rows = JsFuture::from(get_rows(tx, store, &keys, depth))
        .await
        .map_err(|e| StoreError::from_js(context, &e))?;
    let mut records = Vec::with_capacity(uris.len());
    for row in rows.unchecked_into::<Array>().iter() {
        records.push(js_record::from_js(&row));
    }
    Ok(records)
}

#[wasm_bindgen(module = "/src/store/idb_objects.js")]
extern "C" {
    /// Every `get` issued at once; resolves with their results when the last one succeeds,
    /// rejects with the transaction's error when it aborts.
    #[wasm_bindgen(js_name = mcpCacheGetRows)]
    fn get_rows(tx: &IdbTransaction, store: &IdbObjectStore, keys: &Array, depth: u32) -> Promise;
}

impl IndexedDbStore {
    /// One read-only transaction, every get issued at once, and the sources of the derived
    /// records it finds read in it too ([`MAX_DERIVATION_DEPTH`] links). Reads stay read-only:
    /// the new last use is remembered when the read is called (in call order, before any later
    /// write's transaction) and written by the next write transaction, before its eviction walk
    /// — exactly when least-recently-used order matters. The sources' uses are known only once
    /// the read is answered, so the read keeps its turn until then: no operation called after it
    /// makes its transaction before the sources' uses are remembered.
    ///
    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    pub(super) async fn get_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        if uris.is_empty() {
            return Ok(Vec::new());
        }
        let context = "reading cache entries";
        let ticket = self.seq.ticket();
        self.remember_touched(uris, now, ticket);
        let tx = self
            .transaction(IdbTransactionMode::Readonly, ticket, true)
            .await?;
        let read = get_records(
            &tx.tx,
            &tx.results,
            uris,
            MAX_DERIVATION_DEPTH as u32,
            context,
        )
        .await;
        if let Ok(records) = &read {
            let sources: Vec<&str> = records[uris.len()..]
                .iter()
                .flatten()
                .map(|r| r.uri.as_str())
                .collect();
            self.remember_touched(&sources, now, ticket);
        }
        self.seq.pass(ticket);
        read
    }

    /// The totals, and the number of distinct conversation ids (a `nextunique` key cursor over
    /// the `convId` index: one step per conversation, no payload read).
    ///
    /// [MDN: IDBIndex.openKeyCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openKeyCursor)
    pub(super) async fn read_stats(&self) -> Result<StoreStats, StoreError> {
        let context = "reading cache statistics";
        let ticket = self.seq.ticket();
        let tx = Rc::new(
            self.transaction(IdbTransactionMode::Readonly, ticket, false)
                .await?,
        );
        let handlers = Handlers::default();
        let _release = handlers.scope();
        let totals = Rc::new(Cell::new(Totals::default()));
        let conversations = Rc::new(Cell::new(0u32));
        let issued = (|| -> Result<(), JsValue> {
            let sink = totals.clone();
            with_totals(&tx, &handlers, Vec::new(), move |t, _| sink.set(t))?;
            let cursor = tx
                .results
                .index(fields::CONV_ID)?
                .open_key_cursor_with_range_and_direction(
                    &JsValue::NULL,
                    IdbCursorDirection::Nextunique,
                )?;
            let count = conversations.clone();
            handlers.on(&cursor, move |request| {
                if let Some(cursor) = request.result().ok().filter(JsValue::is_object) {
                    count.set(count.get() + 1);
                    let _ = cursor.unchecked_into::<web_sys::IdbCursor>().continue_();
                }
            });
            Ok(())
        })();
        issued.map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        Ok(StoreStats {
            entries: totals.get().entries as u32,
            bytes: totals.get().bytes,
            conversations: conversations.get(),
        })
    }

    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll),
    /// [MDN: IDBIndex.getAll](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAll)
    pub(super) async fn list_records(
        &self,
        conv_id: Option<&str>,
    ) -> Result<Vec<JsRecord>, StoreError> {
        let context = "listing cache entries";
        let ticket = self.seq.ticket();
        let tx = self
            .transaction(IdbTransactionMode::Readonly, ticket, false)
            .await?;
        let store = &tx.results;
        let request = match conv_id {
            None => store.get_all(),
            Some(conv) => store.index(fields::CONV_ID).and_then(|index| {
                index.get_all_with_key(&IdbKeyRange::only(&JsValue::from_str(conv))?.into())
            }),
        }
        .map_err(|e| StoreError::from_js(context, &e))?;
        let usage_request = tx
            .usage
            .get_all()
            .map_err(|e| StoreError::from_js(context, &e))?;
        // Last use lives in the usage store, and in reads not yet written: those waiting now,
        // when this transaction reads the rows (an operation called after it may write them into
        // rows this read does not see before it is answered), of the reads called before this
        // listing (a later read's use is not yet one).
        let mut last_used = waiting_uses(&self.touched, ticket);
        transaction_done(&tx.tx, context).await?;
        let all: Array = request
            .result()
            .map_err(|e| StoreError::from_js(context, &e))?
            .unchecked_into();
        let rows: Array = usage_request
            .result()
            .map(JsCast::unchecked_into)
            .unwrap_or_default();
        for row in rows.iter() {
            if let (Some(uri), Some(last)) = (
                field(&row, fields::URI).as_string(),
                number(&row, fields::LAST_USED_AT),
            ) {
                note_use(&mut last_used, uri, last);
            }
        }
        let mut records = Vec::new();
        for value in all.iter() {
            let Some(mut r) = js_record::from_js(&value) else {
                continue;
            };
            if let Some(&last) = last_used.get(&r.uri) {
                r.last_used_at = r.last_used_at.max(last);
            }
            records.push(r);
        }
        Ok(records)
    }
}
