//! Storage behind one trait: [`IndexedDbStore`] for browsers, workers and `fake-indexeddb`, and
//! [`MemoryStore`] with the same semantics (structured-clone on write and read) where IndexedDB
//! is absent or unwanted.
//!
//! Every operation is one transaction; all of its requests are issued before anything is awaited.
//! Payloads are JS values end to end: they are structured-cloned by the browser and never
//! deserialized into Rust.

mod error;
mod idb_events;
mod indexeddb;
mod js_record;
mod memory;

pub use error::StoreError;
pub use indexeddb::{IndexedDbStore, SCHEMA_VERSION, STORE_NAME};
pub use memory::MemoryStore;

use crate::core::record::CacheRecord;
use wasm_bindgen::JsValue;

/// A stored record whose payload is a JS value.
pub type JsRecord = CacheRecord<JsValue>;

/// The operations the cache needs from storage. Each method is one transaction.
///
/// The futures are not `Send`: JS values live on one thread, and so does this trait.
#[allow(async_fn_in_trait)]
pub trait ResultStore {
    /// Inserts or replaces `record` (keyed by its `uri`).
    async fn put(&self, record: &JsRecord) -> Result<(), StoreError>;
    /// Reads every key in one read-only transaction; `None` where absent. Order follows `uris`.
    async fn get_many(&self, uris: &[&str]) -> Result<Vec<Option<JsRecord>>, StoreError>;
    /// Deletes every record of a conversation segment, walking the `convId` index; returns how many.
    async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError>;
    /// Deletes every record with `addedAt < cutoff_ms`, walking the `addedAt` index; returns how many.
    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError>;
    /// Marks stale (with `cause`) every fresh record whose `sourceToolName` matches one of the
    /// glob `patterns`, in one read-write transaction over the `sourceToolName` index; returns
    /// how many were marked. Already-stale records keep their first cause.
    async fn mark_stale(
        &self,
        patterns: &[String],
        separator: &str,
        cause: &str,
    ) -> Result<u32, StoreError>;
    /// Every record (of one conversation segment when given), in key order, in one read-only
    /// transaction. Reads payloads too (IndexedDB cannot read part of a value): meant for
    /// inspection and statistics, not for hot paths.
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError>;
    /// Releases the connection; the next operation reopens it.
    fn close(&self);
}

/// The store a cache was configured with.
pub enum SelectedStore {
    /// IndexedDB (`indexedDB` global).
    IndexedDb(IndexedDbStore),
    /// Process memory.
    Memory(MemoryStore),
}

impl SelectedStore {
    /// `"indexeddb"` or `"memory"`: what `stats()`/events report.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::IndexedDb(_) => "indexeddb",
            Self::Memory(_) => "memory",
        }
    }
}

impl ResultStore for SelectedStore {
    async fn put(&self, record: &JsRecord) -> Result<(), StoreError> {
        match self {
            Self::IndexedDb(s) => s.put(record).await,
            Self::Memory(s) => s.put(record).await,
        }
    }
    async fn get_many(&self, uris: &[&str]) -> Result<Vec<Option<JsRecord>>, StoreError> {
        match self {
            Self::IndexedDb(s) => s.get_many(uris).await,
            Self::Memory(s) => s.get_many(uris).await,
        }
    }
    async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.delete_conversation(conv_id).await,
            Self::Memory(s) => s.delete_conversation(conv_id).await,
        }
    }
    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.delete_added_before(cutoff_ms).await,
            Self::Memory(s) => s.delete_added_before(cutoff_ms).await,
        }
    }
    async fn mark_stale(
        &self,
        patterns: &[String],
        separator: &str,
        cause: &str,
    ) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.mark_stale(patterns, separator, cause).await,
            Self::Memory(s) => s.mark_stale(patterns, separator, cause).await,
        }
    }
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        match self {
            Self::IndexedDb(s) => s.list(conv_id).await,
            Self::Memory(s) => s.list(conv_id).await,
        }
    }
    fn close(&self) {
        match self {
            Self::IndexedDb(s) => s.close(),
            Self::Memory(s) => s.close(),
        }
    }
}

/// True when the global scope (window, worker or Node with `fake-indexeddb/auto`) has `indexedDB`.
pub fn has_indexed_db() -> bool {
    indexeddb::factory().is_ok()
}
