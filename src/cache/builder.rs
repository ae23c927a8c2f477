//! [`ResultCacheBuilder`]: every setting of a [`ResultCache`], and the one place that chooses its
//! storage (IndexedDB or memory) and whether it reads through to chatbox-core's database.
//!
//! ```no_run
//! use mcp_result_cache::cache::{ResultCache, Storage};
//!
//! let cache = ResultCache::builder()
//!     .db_name("my-app")
//!     .storage(Storage::Auto)
//!     .threshold(Some(4096))
//!     .build()?;
//! # Ok::<(), mcp_result_cache::store::StoreError>(())
//! ```

use std::cell::{Cell, RefCell};

use super::{Clock, Limits, Observer, ResultCache};
use crate::core::size::DEFAULT_CACHE_THRESHOLD_BYTES;
use crate::core::view::View;
use crate::state_sync::glob::DEFAULT_SEPARATOR;
#[cfg(feature = "external-store")]
use crate::store::ExternalStore;
use crate::store::{
    has_indexed_db, ErrorKind, IndexedDbStore, LegacyChatboxStore, MemoryStore, SelectedStore,
    StoreError, CHATBOX_CORE_DB_NAME, NO_INDEXED_DB,
};

/// The IndexedDB database a cache opens unless given another name.
pub const DEFAULT_DB_NAME: &str = "mcp-result-cache";

/// Where a cache keeps its entries (the `storage` option).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Storage {
    /// IndexedDB when the global scope has `indexedDB`, else process memory.
    #[default]
    Auto,
    /// IndexedDB; [`ResultCacheBuilder::build`] fails with `NotSupportedError` without it.
    IndexedDb,
    /// Process memory (same semantics as IndexedDB, nothing persisted).
    Memory,
    /// A storage object made in JS (`redisStorage`), reported as the given kind: shared by every
    /// process that uses the same backend. The chatbox-core read-through does not apply.
    #[cfg(feature = "external-store")]
    External(wasm_bindgen::JsValue, String),
}

/// Collects a cache's settings; [`build`](Self::build) chooses the storage and makes the cache.
/// Nothing is opened until the cache's first operation.
///
/// Started by [`ResultCache::builder`] (or [`ResultCacheBuilder::new`]) with the defaults:
/// database [`DEFAULT_DB_NAME`], [`Storage::Auto`], the chatbox-core read-through on, the default
/// threshold, [`Limits`], glob separator and [`View`], no reuse of immutable results, the system
/// clock (`Date.now()`), no observer.
pub struct ResultCacheBuilder {
    /// `None`: [`DEFAULT_DB_NAME`].
    db_name: Option<String>,
    storage: Storage,
    legacy_chatbox_core: bool,
    threshold: Option<u64>,
    limits: Limits,
    /// `None`: [`DEFAULT_SEPARATOR`].
    separator: Option<String>,
    reuse_immutable: bool,
    view: View,
    clock: Option<Clock>,
    observer: Option<Observer>,
}

impl Default for ResultCacheBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ResultCacheBuilder {
    /// A builder with the defaults (see [`ResultCacheBuilder`]).
    pub fn new() -> Self {
        Self {
            db_name: None,
            storage: Storage::Auto,
            legacy_chatbox_core: true,
            threshold: None,
            limits: Limits::default(),
            separator: None,
            reuse_immutable: false,
            view: View::default(),
            clock: None,
            observer: None,
        }
    }

    /// The IndexedDB database name (used when the storage resolves to IndexedDB).
    #[inline]
    pub fn db_name(mut self, name: impl Into<String>) -> Self {
        self.db_name = Some(name.into());
        self
    }

    /// Where entries are kept (default [`Storage::Auto`]).
    #[inline]
    pub fn storage(mut self, storage: Storage) -> Self {
        self.storage = storage;
        self
    }

    /// Whether misses are read through from chatbox-core's database, and conversations cleared
    /// there too (default `true`). Only an IndexedDB cache whose database is not
    /// [`CHATBOX_CORE_DB_NAME`] itself reads through.
    #[inline]
    pub fn legacy_chatbox_core(mut self, enabled: bool) -> Self {
        self.legacy_chatbox_core = enabled;
        self
    }

    /// The size in bytes from which results are stored; `None` for the default.
    #[inline]
    pub fn threshold(mut self, threshold: Option<u64>) -> Self {
        self.threshold = threshold;
        self
    }

    /// The storage limits (`max_entry_bytes` is capped at `max_bytes`).
    #[inline]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The separator of tool-name globs (default `.`).
    #[inline]
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = Some(separator.into());
        self
    }

    /// Whether identical calls to `immutable` tools are answered from the cache (default
    /// `false`).
    #[inline]
    pub fn reuse_immutable(mut self, enabled: bool) -> Self {
        self.reuse_immutable = enabled;
        self
    }

    /// How stored results are shown to the model by default.
    #[inline]
    pub fn view(mut self, view: View) -> Self {
        self.view = view;
        self
    }

    /// The clock: milliseconds since the epoch (default `Date.now()`).
    #[inline]
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Receives every event of the cache (and the IndexedDB store's `blocked` events).
    #[inline]
    pub fn observer(mut self, observer: Observer) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Chooses the storage and makes the cache. [`Storage::Auto`] is IndexedDB when the global
    /// scope has `indexedDB`, memory otherwise.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] for [`Storage::IndexedDb`] where `indexedDB` is absent.
    pub fn build(self) -> Result<ResultCache, StoreError> {
        let indexed_db = match &self.storage {
            Storage::Auto => has_indexed_db(),
            Storage::IndexedDb if has_indexed_db() => true,
            Storage::IndexedDb => {
                return Err(StoreError::new(ErrorKind::NotSupported, NO_INDEXED_DB));
            }
            _ => false,
        };
        let db_name = self.db_name.as_deref().unwrap_or(DEFAULT_DB_NAME);
        let legacy = reads_through(self.legacy_chatbox_core, indexed_db, db_name);
        let store = match (indexed_db, self.storage) {
            (true, _) => SelectedStore::IndexedDb(IndexedDbStore::new(db_name)),
            #[cfg(feature = "external-store")]
            (false, Storage::External(storage, kind)) => {
                SelectedStore::External(ExternalStore::new(storage, kind))
            }
            (false, _) => SelectedStore::Memory(MemoryStore::new()),
        };
        let mut limits = self.limits;
        // No room for one entry (`maxBytes: 0`, `maxEntries` below 1): nothing is stored, each
        // result skipped (`skip` event, `maxEntryBytes` 0), not stored alone past the limit.
        limits.max_entry_bytes = if limits.max_entries < 1.0 {
            0.0
        } else {
            limits.max_entry_bytes.min(limits.max_bytes)
        };
        let mut cache = ResultCache {
            store,
            threshold: self
                .threshold
                .unwrap_or(u64::from(DEFAULT_CACHE_THRESHOLD_BYTES)),
            clock: self.clock.unwrap_or_else(|| Box::new(js_sys::Date::now)),
            limits,
            quota_cap: Cell::new(None),
            removals: Cell::new(0),
            recoveries: Cell::new(0),
            observer: None,
            separator: self
                .separator
                .unwrap_or_else(|| DEFAULT_SEPARATOR.to_owned()),
            reuse_immutable: self.reuse_immutable,
            directives: RefCell::default(),
            reuse: RefCell::default(),
            legacy: legacy.then(LegacyChatboxStore::new),
            view: self.view,
        };
        if let Some(observer) = self.observer {
            cache.set_observer(observer);
        }
        Ok(cache)
    }
}

/// Whether a cache reads through to chatbox-core's database: asked to, over IndexedDB, and not
/// that very database.
fn reads_through(asked: bool, indexed_db: bool, db_name: &str) -> bool {
    asked && indexed_db && db_name != CHATBOX_CORE_DB_NAME
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_indexeddb_cache_of_another_database_reads_through() {
        assert!(reads_through(true, true, DEFAULT_DB_NAME));
        assert!(!reads_through(false, true, DEFAULT_DB_NAME));
        assert!(!reads_through(true, false, DEFAULT_DB_NAME));
        assert!(!reads_through(true, true, CHATBOX_CORE_DB_NAME));
    }

    #[test]
    fn a_memory_cache_takes_the_settings_and_no_read_through() {
        let limits = Limits {
            max_bytes: 100.0,
            max_entries: 7.0,
            max_entry_bytes: 500.0,
        };
        let cache = ResultCache::builder()
            .storage(Storage::Memory)
            .threshold(Some(12))
            .limits(limits)
            .separator("/")
            .reuse_immutable(true)
            .build()
            .expect("a memory cache always builds");
        assert_eq!(cache.storage_kind(), "memory");
        assert_eq!(cache.threshold(), 12);
        assert_eq!(cache.limits().max_entries, 7.0);
        assert_eq!(cache.limits().max_entry_bytes, 100.0, "capped at max_bytes");
        assert_eq!(cache.separator, "/");
        assert!(cache.reuse_immutable());
        assert!(cache.legacy.is_none());
        assert!(cache.observer.is_none());
    }

    #[test]
    fn the_defaults() {
        let cache = ResultCacheBuilder::default()
            .storage(Storage::Memory)
            .build()
            .expect("a memory cache always builds");
        assert_eq!(
            cache.threshold(),
            u64::from(crate::core::size::DEFAULT_CACHE_THRESHOLD_BYTES)
        );
        assert_eq!(*cache.limits(), Limits::default());
        assert_eq!(cache.separator, DEFAULT_SEPARATOR);
        assert!(!cache.reuse_immutable());
        assert_eq!(*cache.view(), View::default());
        assert_eq!(Storage::default(), Storage::Auto);
    }
}
