//! [`ResultStore`] in process memory, with IndexedDB's value semantics: payloads are
//! structured-cloned on write and on read (so a caller mutating its object afterwards changes
//! nothing stored, and non-cloneable values fail with `DataCloneError` exactly as in IndexedDB).
//! Contents last as long as the cache object.

use std::cell::RefCell;
use std::collections::BTreeMap;

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::{Budget, JsRecord, PutOutcome, ResultStore, StoreError, StoreStats};
use crate::state_sync::glob::match_glob;

/// In-memory store.
#[derive(Default)]
pub struct MemoryStore {
    records: RefCell<BTreeMap<String, JsRecord>>,
}

/// `globalThis.structuredClone(value)`
/// ([MDN](https://developer.mozilla.org/docs/Web/API/Window/structuredClone)).
fn structured_clone(value: &JsValue) -> Result<JsValue, StoreError> {
    let context = "cloning a payload";
    let clone = Reflect::get(&js_sys::global(), &JsValue::from_str("structuredClone"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| {
            StoreError::new(
                "NotSupportedError",
                format!("{context}: globalThis.structuredClone is not available"),
            )
        })?;
    clone
        .call1(&JsValue::UNDEFINED, value)
        .map_err(|e| StoreError::from_js(context, &e))
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Deletes least-recently-used entries (never `keep`) until the totals fit.
    fn evict_to_fit(&self, keep: Option<&str>, max_bytes: f64, max_entries: f64) -> u32 {
        let mut records = self.records.borrow_mut();
        let mut order: Vec<(f64, String, f64)> = records
            .values()
            .map(|r| (r.last_used_at, r.uri.clone(), r.size_bytes))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut bytes: f64 = order.iter().map(|o| o.2).sum();
        let mut count = order.len() as f64;
        let mut evicted = 0;
        for (_, uri, size) in order {
            if bytes <= max_bytes && count <= max_entries {
                break;
            }
            if keep == Some(uri.as_str()) {
                continue;
            }
            records.remove(&uri);
            bytes -= size;
            count -= 1.0;
            evicted += 1;
        }
        evicted
    }

    fn delete_where(&self, pred: impl Fn(&JsRecord) -> bool) -> u32 {
        let mut records = self.records.borrow_mut();
        let before = records.len();
        records.retain(|_, r| !pred(r));
        (before - records.len()) as u32
    }
}

impl ResultStore for MemoryStore {
    async fn put(
        &self,
        record: &JsRecord,
        budget: Option<&Budget>,
    ) -> Result<PutOutcome, StoreError> {
        let stored = JsRecord {
            payload: structured_clone(&record.payload)?,
            ..record.clone()
        };
        self.records.borrow_mut().insert(record.uri.clone(), stored);
        let Some(budget) = budget else {
            return Ok(PutOutcome::default());
        };
        let evicted = self.evict_to_fit(Some(&record.uri), budget.max_bytes, budget.max_entries);
        Ok(PutOutcome {
            evicted,
            totals: Some(self.stats().await?),
        })
    }

    async fn get_many(&self, uris: &[&str], now: f64) -> Result<Vec<Option<JsRecord>>, StoreError> {
        let mut records = self.records.borrow_mut();
        uris.iter()
            .map(|uri| {
                records
                    .get_mut(*uri)
                    .map(|r| {
                        r.last_used_at = now;
                        Ok(JsRecord {
                            payload: structured_clone(&r.payload)?,
                            ..r.clone()
                        })
                    })
                    .transpose()
            })
            .collect()
    }

    async fn evict_lru(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        let total: f64 = self.records.borrow().values().map(|r| r.size_bytes).sum();
        Ok(self.evict_to_fit(None, (total - bytes_to_free).max(0.0), f64::INFINITY))
    }

    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let records = self.records.borrow();
        Ok(StoreStats::of(
            records.values().map(|r| (r.conv_id.as_str(), r.size_bytes)),
        ))
    }

    async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        Ok(self.delete_where(|r| r.conv_id == conv_id))
    }

    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        Ok(self.delete_where(|r| r.added_at < cutoff_ms))
    }

    async fn mark_stale(
        &self,
        patterns: &[String],
        separator: &str,
        cause: &str,
    ) -> Result<u32, StoreError> {
        let mut marked = 0;
        for record in self.records.borrow_mut().values_mut() {
            if record.stale_cause.is_none()
                && patterns
                    .iter()
                    .any(|p| match_glob(p, &record.source_tool_name, separator))
            {
                record.stale_cause = Some(cause.to_owned());
                marked += 1;
            }
        }
        Ok(marked)
    }

    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        Ok(self
            .records
            .borrow()
            .values()
            .filter(|r| conv_id.is_none_or(|c| c == r.conv_id))
            .cloned()
            .collect())
    }

    fn close(&self) {}
}
