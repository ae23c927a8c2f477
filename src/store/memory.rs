//! [`RecordStore`] in process memory, with IndexedDB's value semantics: payloads are
//! structured-cloned on write and on read (so a caller mutating its object once the write has
//! taken effect changes nothing stored, and non-cloneable values fail with `DataCloneError` exactly as in IndexedDB).
//! Contents last as long as the cache object.
//!
//! The rows live on the JS side (`idb_objects.js`): a `Map` from URI to the very objects the
//! IndexedDB store writes ([`super::idb_objects::record`]), read back with the same
//! [`super::js_record::from_js`]. The policy stays here: a write's room is [`room_needed`] of the
//! totals, and the JS side evicts least-recently-used rows (ties by URI, IndexedDB's key order)
//! until that room is freed. Every operation is synchronous underneath, so nothing interleaves
//! within one.

use std::cell::OnceCell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::idb_objects::record as row;
use super::js_record::from_js;
use super::{
    number_at, Budget, JsRecord, RecordStore, StoreError, StoreStats, Totals, WriteOutcome,
};
use crate::core::policy::room_needed;
use crate::core::record::MAX_DERIVATION_DEPTH;

#[wasm_bindgen(module = "/src/store/idb_objects.js")]
extern "C" {
    #[wasm_bindgen(js_name = mcpMemoryStore)]
    fn new_store() -> JsValue;
    #[wasm_bindgen(js_name = mcpMemoryTotalsWithout)]
    fn totals_without(store: &JsValue, uri: &str) -> Array;
    #[wasm_bindgen(js_name = mcpMemoryPut, catch)]
    fn put(store: &JsValue, row: &JsValue, bytes: f64, entries: f64) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = mcpMemoryRead, catch)]
    fn read(store: &JsValue, uris: &Array, now: f64, depth: u32) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = mcpMemoryEvict)]
    fn evict(store: &JsValue, bytes: f64, entries: f64) -> u32;
    #[wasm_bindgen(js_name = mcpMemoryStats)]
    fn stats(store: &JsValue) -> Array;
    #[wasm_bindgen(js_name = mcpMemoryDelete)]
    fn delete(store: &JsValue, conv_id: Option<&str>, cutoff: f64) -> u32;
    #[wasm_bindgen(js_name = mcpMemoryFreshTools)]
    fn fresh_tools(store: &JsValue) -> Array;
    #[wasm_bindgen(js_name = mcpMemoryMarkStale)]
    fn mark_stale(store: &JsValue, names: &Array, cause: &str) -> u32;
    #[wasm_bindgen(js_name = mcpMemoryList)]
    fn list(store: &JsValue, conv_id: Option<&str>) -> Array;
}

/// In-memory store with IndexedDB's value semantics: the rows and running totals live on the JS
/// side, the write policy here.
#[derive(Default)]
pub struct MemoryStore {
    /// The JS side, made on first use (so a store can be built where no JS runs, as the
    /// builder's native tests do).
    rows: OnceCell<JsValue>,
}

/// Reading a payload back failed to clone it.
fn clone_error(e: JsValue) -> StoreError {
    StoreError::from_js("cloning a payload", &e)
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn rows(&self) -> &JsValue {
        self.rows.get_or_init(new_store)
    }
}

impl RecordStore for MemoryStore {
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError> {
        let before = totals_without(self.rows(), &record.uri);
        let totals = Totals {
            bytes: number_at(&before, 0),
            entries: number_at(&before, 1),
        };
        let room = room_needed(totals, record.size_bytes, budget);
        let stored = row(record, &JsValue::from_str(&record.uri));
        let after = put(self.rows(), &stored, room.bytes, room.entries).map_err(clone_error)?;
        Ok(WriteOutcome {
            evicted: number_at(&after, 0) as u32,
            totals: Totals {
                bytes: number_at(&after, 1),
                entries: number_at(&after, 2),
            },
        })
    }

    async fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        let keys: Array = uris.iter().map(|u| JsValue::from_str(u)).collect();
        let depth = MAX_DERIVATION_DEPTH as u32;
        let rows = read(self.rows(), &keys, now, depth).map_err(clone_error)?;
        Ok(rows.iter().map(|r| from_js(&r)).collect())
    }

    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        Ok(evict(self.rows(), bytes_to_free, 0.0))
    }

    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let stats = stats(self.rows());
        Ok(StoreStats {
            entries: number_at(&stats, 0) as u32,
            bytes: number_at(&stats, 1),
            conversations: number_at(&stats, 2) as u32,
        })
    }

    async fn delete_conversation(&self, conv_id: &str, _segment: &str) -> Result<u32, StoreError> {
        Ok(delete(self.rows(), Some(conv_id), 0.0))
    }

    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        Ok(delete(self.rows(), None, cutoff_ms))
    }

    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        // The names stay JS arrays, in and out (each read as a Rust string only to be matched):
        // wasm-bindgen's conversions of a `Vec<String>` cost more than this loop.
        let names = Array::new();
        for name in fresh_tools(self.rows()).iter() {
            if name.as_string().is_some_and(|name| matches(&name)) {
                names.push(&name);
            }
        }
        if names.length() == 0 {
            return Ok(0);
        }
        Ok(mark_stale(self.rows(), &names, cause))
    }

    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        Ok(list(self.rows(), conv_id)
            .iter()
            .filter_map(|r| from_js(&r))
            .collect())
    }

    fn close(&self) {}
}
