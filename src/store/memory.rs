//! [`RecordStore`] in process memory, with IndexedDB's value semantics: payloads are
//! structured-cloned on write and on read (so a caller mutating its object afterwards changes
//! nothing stored, and non-cloneable values fail with `DataCloneError` exactly as in IndexedDB).
//! Contents last as long as the cache object.

use crate::core::map::Map;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::{
    Budget, ErrorKind, JsRecord, RecordStore, StoreError, StoreStats, Totals, WriteOutcome,
};
use crate::core::policy::{room_needed, Eviction, Room};
use crate::core::sort::sort_by;
use crate::core::text::concat;

/// In-memory store: the records in least-recently-used order (oldest first; ties by URI), an
/// index from URI to the last use a record is filed under, and running totals. One sorted vector
/// rather than ordered maps (the WebAssembly module does not carry a B-tree for it): a record is
/// found by binary search on its (last use, URI) position, so a write or a read never scans the
/// store; the oldest entries, which eviction takes, are at the front.
#[derive(Default)]
pub struct MemoryStore {
    records: RefCell<Vec<JsRecord>>,
    /// URI → the `last_used_at` its record is ordered by.
    index: RefCell<Map<String, f64>>,
    totals: Cell<Totals>,
}

/// Orders `f64` timestamps as unsigned integers (IEEE 754 total order).
fn order_key(t: f64) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
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
                ErrorKind::NotSupported,
                concat(&[context, ": globalThis.structuredClone is not available"]),
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

    fn insert(&self, record: JsRecord) {
        self.remove(&record.uri);
        self.totals
            .set(self.totals.get().with_entry(record.size_bytes));
        let key = order_key(record.last_used_at);
        self.index
            .borrow_mut()
            .insert(record.uri.clone(), record.last_used_at);
        let mut records = self.records.borrow_mut();
        // After every record used earlier (or as late, with a smaller URI).
        let at = records
            .iter()
            .rposition(|r| {
                let k = order_key(r.last_used_at);
                k < key || (k == key && r.uri < record.uri)
            })
            .map_or(0, |i| i + 1);
        records.insert(at, record);
    }

    fn remove(&self, uri: &str) -> Option<JsRecord> {
        let last_used_at = self.index.borrow_mut().remove(uri)?;
        let key = order_key(last_used_at);
        let mut records = self.records.borrow_mut();
        let at = records.partition_point(|r| {
            let k = order_key(r.last_used_at);
            k < key || (k == key && r.uri.as_str() < uri)
        });
        let at = match records.get(at) {
            Some(r) if r.uri == uri => at,
            // Never expected (the vector is kept in this order); found the slow way if it were.
            _ => records.iter().position(|r| r.uri == uri)?,
        };
        let record = records.remove(at);
        self.totals
            .set(self.totals.get().without_entry(record.size_bytes));
        Some(record)
    }

    /// Evicts oldest-first (never `keep`) until `room` is freed.
    fn evict(&self, room: Room, keep: Option<&str>) -> u32 {
        let mut walk = Eviction::new(room);
        while !walk.done() {
            let oldest = self
                .records
                .borrow()
                .iter()
                .find(|r| Some(r.uri.as_str()) != keep)
                .map(|r| r.uri.clone());
            let Some(record) = oldest.and_then(|uri| self.remove(&uri)) else {
                break;
            };
            walk.evicted(record.size_bytes);
        }
        walk.count
    }

    fn delete_where(&self, pred: impl Fn(&JsRecord) -> bool) -> u32 {
        let mut records = self.records.borrow_mut();
        let before = records.len();
        let mut totals = self.totals.get();
        let mut index = self.index.borrow_mut();
        records.retain(|r| {
            let doomed = pred(r);
            if doomed {
                totals = totals.without_entry(r.size_bytes);
                index.remove(&r.uri);
            }
            !doomed
        });
        self.totals.set(totals);
        (before - records.len()) as u32
    }
}

impl RecordStore for MemoryStore {
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError> {
        let stored = JsRecord {
            payload: structured_clone(&record.payload)?,
            ..record.clone()
        };
        self.remove(&record.uri);
        let room = room_needed(self.totals.get(), record.size_bytes, budget);
        let evicted = self.evict(room, Some(&record.uri));
        self.insert(stored);
        Ok(WriteOutcome {
            evicted,
            totals: self.totals.get(),
        })
    }

    async fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        uris.iter()
            .map(|uri| {
                let Some(mut record) = self.remove(uri) else {
                    return Ok(None);
                };
                record.last_used_at = record.last_used_at.max(now);
                let payload = structured_clone(&record.payload);
                let copy = record.clone();
                self.insert(record);
                Ok(Some(JsRecord {
                    payload: payload?,
                    ..copy
                }))
            })
            .collect()
    }

    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        let room = Room {
            bytes: bytes_to_free,
            entries: 0.0,
        };
        Ok(self.evict(room, None))
    }

    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let records = self.records.borrow();
        let mut conversations: Vec<&str> = records.iter().map(|r| r.conv_id.as_str()).collect();
        sort_by(&mut conversations, |a, b| a < b);
        conversations.dedup();
        let totals = self.totals.get();
        Ok(StoreStats {
            entries: totals.entries as u32,
            bytes: totals.bytes,
            conversations: conversations.len() as u32,
        })
    }

    async fn delete_conversation(&self, conv_id: &str, _segment: &str) -> Result<u32, StoreError> {
        Ok(self.delete_where(|r| r.conv_id == conv_id))
    }

    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        Ok(self.delete_where(|r| r.added_at < cutoff_ms))
    }

    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        let mut decided: Map<String, bool> = Map::new();
        let mut marked = 0;
        for record in self.records.borrow_mut().iter_mut() {
            let name = record.source_tool_name.as_str();
            let hit = match decided.get(name) {
                Some(&hit) => hit,
                None => *decided.get_or_insert_with(name.to_owned(), |n| matches(n)),
            };
            if hit && record.stale_cause.is_none() {
                record.stale_cause = Some(cause.to_owned());
                marked += 1;
            }
        }
        Ok(marked)
    }

    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let mut list: Vec<JsRecord> = self
            .records
            .borrow()
            .iter()
            .filter(|r| conv_id.is_none_or(|c| c == r.conv_id))
            .cloned()
            .collect();
        // By URI, as IndexedDB lists by primary key.
        sort_by(&mut list, |a, b| a.uri < b.uri);
        Ok(list)
    }

    fn close(&self) {}
}
