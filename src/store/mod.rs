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
pub mod legacy;
mod memory;

pub use error::StoreError;
pub use indexeddb::{IndexedDbStore, SCHEMA_VERSION, STORE_NAME, USAGE_STORE};
pub use legacy::{LegacyChatboxStore, CHATBOX_CORE_DB_NAME};
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
    /// Inserts or replaces `record` (keyed by its `uri`). With a budget, in the same
    /// transaction, reads the entry metadata, evicts least-recently-used entries until the
    /// totals fit, and reports how many were evicted and the totals after.
    async fn put(
        &self,
        record: &JsRecord,
        budget: Option<&Budget>,
    ) -> Result<PutOutcome, StoreError>;
    /// Reads every key in one transaction, all requests issued at once; `None` where absent.
    /// Order follows `uris`. Each hit's last use becomes `now` (IndexedDB: the read stays
    /// read-only; the last use is written by the next transaction that reads usage entries).
    async fn get_many(&self, uris: &[&str], now: f64) -> Result<Vec<Option<JsRecord>>, StoreError>;
    /// Evicts least-recently-used entries until at least `bytes_to_free` bytes are freed (or the
    /// store is empty); returns how many were evicted. Used to recover from quota errors.
    async fn evict_lru(&self, bytes_to_free: f64) -> Result<u32, StoreError>;
    /// Entry count, total bytes and distinct conversations, from metadata only.
    async fn stats(&self) -> Result<StoreStats, StoreError>;
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

/// Limits a write must leave the store within.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Total UTF-8 JSON bytes of all entries.
    pub max_bytes: f64,
    /// Number of entries.
    pub max_entries: f64,
}

/// What a write did beyond writing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PutOutcome {
    /// Entries evicted to fit the budget.
    pub evicted: u32,
    /// Totals after the write, when a budget was checked.
    pub totals: Option<StoreStats>,
}

/// What a store holds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StoreStats {
    /// Number of entries.
    pub entries: u32,
    /// Sum of their `sizeBytes`.
    pub bytes: f64,
    /// Distinct conversation segments.
    pub conversations: u32,
}

impl StoreStats {
    /// Totals over `(convId, sizeBytes)` pairs.
    pub fn of<'a>(rows: impl Iterator<Item = (&'a str, f64)>) -> Self {
        let mut conversations = std::collections::BTreeSet::new();
        let mut stats = Self::default();
        for (conv, size) in rows {
            stats.entries += 1;
            stats.bytes += size;
            conversations.insert(conv);
        }
        stats.conversations = conversations.len() as u32;
        stats
    }
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
    async fn put(
        &self,
        record: &JsRecord,
        budget: Option<&Budget>,
    ) -> Result<PutOutcome, StoreError> {
        match self {
            Self::IndexedDb(s) => s.put(record, budget).await,
            Self::Memory(s) => s.put(record, budget).await,
        }
    }
    async fn get_many(&self, uris: &[&str], now: f64) -> Result<Vec<Option<JsRecord>>, StoreError> {
        match self {
            Self::IndexedDb(s) => s.get_many(uris, now).await,
            Self::Memory(s) => s.get_many(uris, now).await,
        }
    }
    async fn evict_lru(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.evict_lru(bytes_to_free).await,
            Self::Memory(s) => s.evict_lru(bytes_to_free).await,
        }
    }
    async fn stats(&self) -> Result<StoreStats, StoreError> {
        match self {
            Self::IndexedDb(s) => s.stats().await,
            Self::Memory(s) => s.stats().await,
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
