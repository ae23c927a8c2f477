//! Storage behind one trait, three stores: [`IndexedDbStore`] for browsers, workers and
//! `fake-indexeddb`; [`MemoryStore`] with the same semantics (structured-clone on write and read)
//! where IndexedDB is absent or unwanted; and, with the `external-store` feature (the Node build),
//! `ExternalStore`, a storage object written in JS (the Redis store of `mcp-result-cache/redis`)
//! that answers the same operations. [`LegacyChatboxStore`] only reads chatbox-core's database.
//!
//! Every operation is one transaction; all of its requests are issued before anything is awaited.
//! Payloads are JS values end to end: they are structured-cloned by the browser and never
//! deserialized into Rust.

mod call_order;
mod error;
#[cfg(feature = "external-store")]
mod external;
mod idb_events;
mod idb_objects;
mod indexeddb;
mod js_record;
pub mod legacy;
mod memory;
mod write_batch;

pub use error::{ErrorKind, StoreError};
#[cfg(feature = "external-store")]
pub use external::ExternalStore;
pub use indexeddb::{IndexedDbStore, NO_INDEXED_DB, SCHEMA_VERSION, STORE_NAME, USAGE_STORE};
pub use legacy::{chatbox_core_conv_id, LegacyChatboxStore, CHATBOX_CORE_DB_NAME};
pub use memory::MemoryStore;

use std::rc::Rc;

use crate::core::record::CacheRecord;
use wasm_bindgen::JsValue;

/// A stored record whose payload is a JS value.
pub type JsRecord = CacheRecord<JsValue>;

pub use crate::core::policy::{Budget, Totals};

/// A thin record store: a handful of primitive operations, each exactly one transaction whose
/// requests are all issued before anything is awaited. No cache policy lives here: the store
/// applies the pure policy of [`crate::core::policy`] where it must run inside a transaction
/// (the budget check of a write), and nothing else.
///
/// Every store keeps running totals (bytes, entries) next to the records and updates them in
/// the same transaction as each write or delete, so a write never scans the store and budgets
/// hold however many writers run at once (IndexedDB serializes overlapping read-write
/// transactions, across tabs too).
///
/// The futures are not `Send`: JS values live on one thread, and so does this trait.
#[allow(async_fn_in_trait)]
pub trait RecordStore {
    /// Writes `record` and its usage row; in the same transaction reads the totals, evicts
    /// least-recently-used entries oldest-first until [`crate::core::policy::room_needed`] is
    /// freed, and stores the new totals. Never evicts `record` itself. (IndexedDB issues the
    /// reads before the puts, so their round trip overlaps the records being stored.)
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError>;
    /// Reads every key in one read-only transaction, all requests issued at once; `None` where
    /// absent. Order follows `uris`. Each hit's last use becomes `now` (IndexedDB: remembered,
    /// and written by the next write transaction, before its eviction walk).
    ///
    /// After those, the answer holds the present records of their sources (the `derivedFrom`
    /// chains, at most [`crate::core::record::MAX_DERIVATION_DEPTH`] links), read at the same
    /// place in call order and used like them, in any order: every store here follows them (a
    /// storage object that does not is read again by the cache).
    async fn read_many(&self, uris: &[&str], now: f64)
        -> Result<Vec<Option<JsRecord>>, StoreError>;
    /// Evicts least-recently-used entries until at least `bytes_to_free` bytes are freed (or the
    /// store is empty); returns how many were evicted. Used to recover from quota errors.
    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError>;
    /// Entry count, total bytes and distinct conversations (metadata only, never payloads).
    async fn stats(&self) -> Result<StoreStats, StoreError>;
    /// Deletes every record written for exactly `conv_id`; `segment` is the URI segment its
    /// references carry, which lets a store delete by key range when that range holds exactly
    /// this conversation. Returns how many were deleted.
    async fn delete_conversation(&self, conv_id: &str, segment: &str) -> Result<u32, StoreError>;
    /// Deletes every record with `addedAt < cutoff_ms`; returns how many.
    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError>;
    /// Marks stale (with `cause`) every fresh record whose `sourceToolName` satisfies `matches`
    /// (asked once per distinct name), in one read-write transaction; returns how many were
    /// marked. Already-stale records keep their first cause.
    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError>;
    /// Every record (of exactly one conversation id when given), in key order, in one read-only
    /// transaction. Reads payloads too (IndexedDB cannot read part of a value): meant for
    /// inspection, not for hot paths.
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError>;
    /// Releases the connection; the next operation reopens it.
    fn close(&self);
}

/// What a write did beyond writing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WriteOutcome {
    /// Entries evicted to fit the budget.
    pub evicted: u32,
    /// Totals after the write and its evictions.
    pub totals: Totals,
}

/// What a store holds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StoreStats {
    /// Number of entries.
    pub entries: u32,
    /// Sum of their `sizeBytes`.
    pub bytes: f64,
    /// Distinct conversation ids.
    pub conversations: u32,
}

/// The key range of every reference minted for a conversation segment:
/// `["mcp+cache://<segment>/", "mcp+cache://<segment>0")` (`0` follows `/` in code-unit order).
pub fn segment_key_bounds(segment: &str) -> (String, String) {
    let lower = crate::core::uri::format_cache_uri(segment, "");
    let mut upper = lower.clone();
    upper.pop();
    upper.push('0');
    (lower, upper)
}

/// The number at `i` of an answer from JS (an array of numbers; 0 when absent or not a number).
pub(crate) fn number_at(numbers: &js_sys::Array, i: u32) -> f64 {
    numbers.get(i).as_f64().unwrap_or(0.0)
}

/// The store a cache was configured with.
pub enum SelectedStore {
    /// IndexedDB (`indexedDB` global).
    IndexedDb(IndexedDbStore),
    /// Process memory.
    Memory(MemoryStore),
    /// A storage object made in JS (`redisStorage`): shared by every process using it.
    #[cfg(feature = "external-store")]
    External(ExternalStore),
}

impl SelectedStore {
    /// `"indexeddb"`, `"memory"` or the external storage's own kind (`"redis"`): what
    /// `stats()`/events report.
    pub fn kind(&self) -> &str {
        match self {
            Self::IndexedDb(_) => "indexeddb",
            Self::Memory(_) => "memory",
            #[cfg(feature = "external-store")]
            Self::External(s) => s.kind(),
        }
    }
}

#[cfg(feature = "external-store")]
impl SelectedStore {
    /// [`RecordStore::write`], with `json` the payload's `JSON.stringify` when the caller has it:
    /// a store that keeps payloads as JSON (the external store) does not make it again.
    pub async fn write_json(
        &self,
        record: &JsRecord,
        budget: &Budget,
        json: Option<js_sys::JsString>,
    ) -> Result<WriteOutcome, StoreError> {
        match self {
            Self::External(s) => s.write_json(record, budget, json).await,
            _ => self.write(record, budget).await,
        }
    }
}

impl RecordStore for SelectedStore {
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError> {
        match self {
            Self::IndexedDb(s) => s.write(record, budget).await,
            Self::Memory(s) => s.write(record, budget).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.write(record, budget).await,
        }
    }
    async fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        match self {
            Self::IndexedDb(s) => s.read_many(uris, now).await,
            Self::Memory(s) => s.read_many(uris, now).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.read_many(uris, now).await,
        }
    }
    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.evict_oldest(bytes_to_free).await,
            Self::Memory(s) => s.evict_oldest(bytes_to_free).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.evict_oldest(bytes_to_free).await,
        }
    }
    async fn stats(&self) -> Result<StoreStats, StoreError> {
        match self {
            Self::IndexedDb(s) => s.stats().await,
            Self::Memory(s) => s.stats().await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.stats().await,
        }
    }
    async fn delete_conversation(&self, conv_id: &str, segment: &str) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.delete_conversation(conv_id, segment).await,
            Self::Memory(s) => s.delete_conversation(conv_id, segment).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.delete_conversation(conv_id, segment).await,
        }
    }
    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.delete_added_before(cutoff_ms).await,
            Self::Memory(s) => s.delete_added_before(cutoff_ms).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.delete_added_before(cutoff_ms).await,
        }
    }
    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        match self {
            Self::IndexedDb(s) => s.mark_stale(matches, cause).await,
            Self::Memory(s) => s.mark_stale(matches, cause).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.mark_stale(matches, cause).await,
        }
    }
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        match self {
            Self::IndexedDb(s) => s.list(conv_id).await,
            Self::Memory(s) => s.list(conv_id).await,
            #[cfg(feature = "external-store")]
            Self::External(s) => s.list(conv_id).await,
        }
    }
    fn close(&self) {
        match self {
            Self::IndexedDb(s) => s.close(),
            Self::Memory(s) => s.close(),
            #[cfg(feature = "external-store")]
            Self::External(s) => s.close(),
        }
    }
}

/// True when the global scope (window, worker or Node with `fake-indexeddb/auto`) has `indexedDB`.
pub fn has_indexed_db() -> bool {
    indexeddb::factory().is_ok()
}
