//! [`ResultCache`]: the threshold decision, reference minting, conversation scoping, events, and
//! one [`SelectedStore`] underneath, chosen by [`ResultCacheBuilder`]. JS-facing conversions live
//! in `crate::bindings`.

mod builder;
mod events;
mod invalidate;
pub(crate) mod join;
mod lookup;
pub mod payload;
pub mod quota;
mod reuse;
mod write;

pub use builder::{ResultCacheBuilder, Storage, DEFAULT_DB_NAME};
pub use events::CacheEvent;
pub use lookup::{ReferenceSource, ScopedLookup};

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsValue;

use crate::core::map::Map;
use crate::core::record::resolve_derived;
use crate::core::reuse::ReuseBook;
use crate::core::view::View;
use crate::state_sync::policy::CacheDirective;
use crate::store::{
    Budget, JsRecord, LegacyChatboxStore, RecordStore, SelectedStore, StoreError, StoreStats,
};

/// Milliseconds since the epoch; injectable for tests.
pub type Clock = Box<dyn Fn() -> f64>;
/// Receives every [`CacheEvent`]; must not panic (the JS adapter swallows throws).
pub type Observer = Box<dyn Fn(&CacheEvent)>;
/// The observer once installed: shared with the store (for `blocked` events).
type SharedObserver = Rc<dyn Fn(&CacheEvent)>;

/// Storage limits. Defaults are sized for a browser tab's cache: large enough for a long chat
/// full of big results, small next to the origin quota Chrome grants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Total bytes (sum of entries' UTF-8 JSON size). Default 128 MiB.
    pub max_bytes: f64,
    /// Number of entries. Default 5000.
    pub max_entries: f64,
    /// Largest single payload stored. Default 32 MiB (never above `max_bytes`).
    pub max_entry_bytes: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 128.0 * 1024.0 * 1024.0,
            max_entries: 5000.0,
            max_entry_bytes: 32.0 * 1024.0 * 1024.0,
        }
    }
}

impl Limits {
    fn budget(&self) -> Budget {
        Budget {
            max_bytes: self.max_bytes,
            max_entries: self.max_entries,
        }
    }
}

/// The result cache.
pub struct ResultCache {
    store: SelectedStore,
    limits: Limits,
    /// Byte budget learned from a quota error (the origin's real room), if any.
    quota_cap: Cell<Option<f64>>,
    /// Clears, invalidations and age evictions called so far: a write the browser refused for
    /// lack of quota is retried only when none was called since the write (a retry takes a new
    /// place in call order, and must not undo one of them).
    removals: Cell<u32>,
    /// Quota recoveries that evicted so far: writes refused together evict once.
    recoveries: Cell<u32>,
    threshold: u64,
    clock: Clock,
    observer: Option<SharedObserver>,
    separator: String,
    reuse_immutable: bool,
    /// Directives learned from tool descriptions (`observeTools`).
    directives: RefCell<Map<String, CacheDirective>>,
    /// Dispatched calls and reusable results of `immutable` tools (`reuseImmutable`).
    reuse: RefCell<ReuseBook>,
    /// chatbox-core's database, read through on misses (references minted before a host
    /// switched to this package keep resolving).
    legacy: Option<LegacyChatboxStore>,
    /// How stored results are shown to the model by default.
    view: View,
}

/// What to store: the arguments of `cacheToolResult`.
pub struct CacheRequest<'a> {
    /// The tool result (a JS value; it is structured-cloned by the store, never copied into Rust).
    pub payload: &'a JsValue,
    /// The conversation id as a string (the caller applies `String(id ?? "default")`).
    pub conv_id: &'a str,
    /// The producing tool.
    pub source_tool_name: &'a str,
    /// Overrides the cache's threshold for this call.
    pub threshold: Option<u64>,
    /// The size when the caller already measured it (saves a second `JSON.stringify`).
    pub known_size: Option<u64>,
    /// The key of the entry this payload is a part of: the new entry is then handed out only
    /// while that one is (see [`ResultCache::lookup_many`]).
    pub derived_from: Option<&'a str>,
}

impl ResultCache {
    /// A [`ResultCacheBuilder`] with the defaults: the way to make a cache.
    pub fn builder() -> ResultCacheBuilder {
        ResultCacheBuilder::new()
    }

    /// How stored results are shown by default.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Whether identical calls to `immutable` tools are answered from the cache.
    pub fn reuse_immutable(&self) -> bool {
        self.reuse_immutable
    }

    /// Sets the event observer (and the store's `blocked` reports to it).
    fn set_observer(&mut self, observer: Observer) {
        let observer: SharedObserver = Rc::from(observer);
        if let SelectedStore::IndexedDb(store) = &self.store {
            let observer = observer.clone();
            let database = store.name().to_owned();
            store.set_on_blocked(Rc::new(move || {
                observer(&CacheEvent::Blocked {
                    database: database.clone(),
                })
            }));
        }
        self.observer = Some(observer);
    }

    /// The configured threshold in bytes.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// `"indexeddb"` or `"memory"`.
    pub fn storage_kind(&self) -> &str {
        self.store.kind()
    }

    fn now(&self) -> f64 {
        (self.clock)()
    }

    /// Reports an event to the observer (if any).
    pub fn emit(&self, event: CacheEvent) {
        if let Some(observer) = &self.observer {
            observer(&event);
        }
    }

    /// Reports a failed operation as an `error` event and hands the error back.
    pub fn failed(&self, operation: &'static str, err: StoreError) -> StoreError {
        self.emit(CacheEvent::Error {
            operation,
            name: err.name().to_owned(),
            message: err.message.clone(),
        });
        err
    }

    /// The limits in force: the configured ones, with the byte budget lowered after the browser
    /// refused a write for lack of quota.
    fn budget(&self) -> Budget {
        let mut budget = self.limits.budget();
        if let Some(cap) = self.quota_cap.get() {
            budget.max_bytes = budget.max_bytes.min(cap);
        }
        budget
    }

    /// Entry count, bytes and conversations (metadata only).
    pub async fn stats(&self) -> Result<StoreStats, StoreError> {
        self.store
            .stats()
            .await
            .map_err(|e| self.failed("stats", e))
    }

    /// The configured limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Metadata of every entry (of exactly one conversation id when given), each derived entry
    /// read as a lookup reads it ([`resolve_derived`]).
    pub async fn entries(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let mut records = self
            .store
            .list(conv_id)
            .await
            .map_err(|e| self.failed("entries", e))?;
        resolve_derived(&mut records);
        Ok(records)
    }

    /// Releases the storage connections (reopened on next use).
    pub fn close(&self) {
        self.store.close();
        if let Some(legacy) = &self.legacy {
            legacy.close();
        }
    }
}
