//! [`RecordStore`] over a storage object made in JS: the store of a cache shared by several
//! processes (`redisStorage` of `mcp-result-cache/redis`, docs/REDIS.md).
//!
//! Where it sits behind the trait: the policy stays the crate's (what to store, the budget, the
//! quota recovery, derived-entry checks, scoping), and every operation is still one atomic unit
//! underneath — but the unit is the storage's (one Redis script), not a transaction this crate
//! opens, so the storage object applies the write budget itself ([`Budget`] goes with every
//! write) and keeps call order by sending each operation when it is called, on one connection.
//! Payloads are encoded on the JS side, never in Rust.
//!
//! The storage object answers these methods, each with a promise:
//!
//! | method | answers |
//! |---|---|
//! | `write(row, maxBytes, maxEntries, json?)` | `[evicted, bytes, entries]` (`json`: the payload's `JSON.stringify`, when the cache made it) |
//! | `read(uris, now, depth)` | the rows of `uris`, `undefined` where absent; last use becomes `now`; then, optionally, the present rows of their `derivedFrom` chains (up to `depth` links), read in the same unit |
//! | `evictOldest(bytes)` | how many were evicted |
//! | `stats()` | `[entries, bytes, conversations]` |
//! | `remove(convId, cutoff)` | how many rows of conversation `convId` (a string), or else added before `cutoff`, were deleted |
//! | `freshTools()` | the distinct tool names of the fresh rows; holds later operations until `markStale` |
//! | `markStale(names, cause)` | how many fresh rows of those tools were marked |
//! | `list(convId)` | the rows (of exactly `convId` when it is a string), by URI, payloads included |
//!
//! Rows are the objects the other stores keep ([`super::idb_objects::record`]), read back with
//! the same [`from_js`]. A rejection keeps its `name` ([`StoreError::from_js`]).

use std::rc::Rc;

use js_sys::{Array, JsString, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::idb_objects::record as row;
use super::js_record::from_js;
use super::{
    number_at, Budget, ErrorKind, JsRecord, RecordStore, StoreError, StoreStats, Totals,
    WriteOutcome,
};
use crate::core::record::MAX_DERIVATION_DEPTH;
use crate::core::text::concat;

#[wasm_bindgen]
extern "C" {
    /// A storage object made in JS (see the module docs for its methods).
    #[wasm_bindgen(typescript_type = "object")]
    pub type JsStorage;

    #[wasm_bindgen(method, catch, js_name = write)]
    fn js_write(
        this: &JsStorage,
        row: &JsValue,
        max_bytes: f64,
        max_entries: f64,
        json: Option<JsString>,
    ) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = read)]
    fn js_read(this: &JsStorage, uris: &Array, now: f64, depth: u32) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = evictOldest)]
    fn js_evict_oldest(this: &JsStorage, bytes: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = stats)]
    fn js_stats(this: &JsStorage) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = remove)]
    fn js_remove(this: &JsStorage, conv_id: Option<&str>, cutoff: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = freshTools)]
    fn js_fresh_tools(this: &JsStorage) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = markStale)]
    fn js_mark_stale(this: &JsStorage, names: Array, cause: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = list)]
    fn js_list(this: &JsStorage, conv_id: Option<&str>) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = close)]
    fn js_close(this: &JsStorage) -> Result<JsValue, JsValue>;
}

/// A store whose rows live behind a JS storage object.
pub struct ExternalStore {
    storage: JsStorage,
    /// What `stats()` and events call it (the storage's `kind`, e.g. `"redis"`).
    kind: String,
}

/// What an operation's promise resolved to, or its rejection as a [`StoreError`]. A method that
/// answered a value instead of a promise answered that value (`Promise.resolve`).
async fn settle(context: &str, called: Result<Promise, JsValue>) -> Result<JsValue, StoreError> {
    let promise = called.map_err(|e| StoreError::from_js(context, &e))?;
    JsFuture::from(Promise::resolve(&promise))
        .await
        .map_err(|e| StoreError::from_js(context, &e))
}

/// An answer that must be an array: a storage that answered anything else (a method that forgot
/// its `return`) is a `TypeError` of the operation, never a throw inside the module.
async fn settle_array(
    context: &str,
    called: Result<Promise, JsValue>,
) -> Result<Array, StoreError> {
    settle(context, called)
        .await?
        .dyn_into::<Array>()
        .map_err(|_| {
            StoreError::new(
                ErrorKind::Other("TypeError".into()),
                concat(&[context, ": the storage object answered no array"]),
            )
        })
}

/// A count answer (0 when not a number).
fn count(answer: &JsValue) -> u32 {
    answer.as_f64().unwrap_or(0.0) as u32
}

impl ExternalStore {
    /// A store over `storage`, reported as `kind`.
    pub fn new(storage: JsValue, kind: String) -> Self {
        Self {
            storage: storage.unchecked_into(),
            kind,
        }
    }

    /// What `stats()` and events call this storage.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    fn rows(answer: &Array) -> Vec<Option<JsRecord>> {
        answer.iter().map(|r| from_js(&r)).collect()
    }
}

impl ExternalStore {
    /// [`RecordStore::write`] with the payload's JSON when the caller has it (see
    /// `SelectedStore::write_json`).
    pub async fn write_json(
        &self,
        record: &JsRecord,
        budget: &Budget,
        json: Option<JsString>,
    ) -> Result<WriteOutcome, StoreError> {
        let stored = row(record, &JsValue::from_str(&record.uri));
        let called = self
            .storage
            .js_write(&stored, budget.max_bytes, budget.max_entries, json);
        let answer = settle_array("writing an entry", called).await?;
        Ok(WriteOutcome {
            evicted: number_at(&answer, 0) as u32,
            totals: Totals {
                bytes: number_at(&answer, 1),
                entries: number_at(&answer, 2),
            },
        })
    }
}

impl RecordStore for ExternalStore {
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError> {
        self.write_json(record, budget, None).await
    }

    async fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        let keys: Array = uris.iter().map(|u| JsValue::from_str(u)).collect();
        let depth = MAX_DERIVATION_DEPTH as u32;
        let answer =
            settle_array("reading entries", self.storage.js_read(&keys, now, depth)).await?;
        let mut rows = Self::rows(&answer);
        if rows.len() < uris.len() {
            rows.resize_with(uris.len(), || None);
        }
        Ok(rows)
    }

    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        let called = self.storage.js_evict_oldest(bytes_to_free);
        Ok(count(&settle("evicting entries", called).await?))
    }

    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let answer = settle_array("reading the totals", self.storage.js_stats()).await?;
        Ok(StoreStats {
            entries: number_at(&answer, 0) as u32,
            bytes: number_at(&answer, 1),
            conversations: number_at(&answer, 2) as u32,
        })
    }

    async fn delete_conversation(&self, conv_id: &str, _segment: &str) -> Result<u32, StoreError> {
        let called = self.storage.js_remove(Some(conv_id), 0.0);
        Ok(count(&settle("clearing a conversation", called).await?))
    }

    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        let called = self.storage.js_remove(None, cutoff_ms);
        Ok(count(&settle("evicting old entries", called).await?))
    }

    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        // Two round trips; the storage holds every later operation between them, so the marks
        // take effect in call order. `markStale` always follows a `freshTools` that answered.
        let answer = settle_array("invalidating entries", self.storage.js_fresh_tools()).await?;
        let names: Array = answer
            .iter()
            .filter(|name| name.as_string().is_some_and(|name| matches(&name)))
            .collect();
        let called = self.storage.js_mark_stale(names, cause);
        Ok(count(&settle("invalidating entries", called).await?))
    }

    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let answer = settle_array("listing entries", self.storage.js_list(conv_id)).await?;
        Ok(Self::rows(&answer).into_iter().flatten().collect())
    }

    fn close(&self) {
        // The client is the host's: the storage object decides what closing means (nothing).
        let _ = self.storage.js_close();
    }
}
