//! [`ResultCache`]: the threshold decision, reference minting, conversation scoping, events, and
//! one [`SelectedStore`] underneath, chosen by [`ResultCacheBuilder`]. JS-facing conversions live
//! in `crate::bindings`.

mod builder;
mod events;
pub(crate) mod join;
pub mod payload;
pub mod quota;

pub use builder::{ResultCacheBuilder, Storage, DEFAULT_DB_NAME};
pub use events::CacheEvent;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use crate::core::map::Map;
use crate::core::policy::{self, StoreDecision};
use crate::core::record::{CacheRecord, LookupOutcome, MAX_DERIVATION_DEPTH};
use crate::core::reuse::ReuseBook;
use crate::core::source::{in_scope, split_source};
use crate::core::substitute::ReferenceLookup;
use crate::core::uri::{format_cache_uri, mint_token, parse_cache_uri, sanitize_conv_id};
use crate::core::view::View;
use crate::state_sync::decorate::RESOURCE_UPDATED_METHOD;
use crate::state_sync::glob::{match_glob, validate_pattern};
use crate::state_sync::invalidation::stale_pattern;
use crate::state_sync::policy::CacheDirective;
use crate::store::{
    Budget, ErrorKind, JsRecord, LegacyChatboxStore, RecordStore, SelectedStore, StoreError,
    StoreStats, WriteOutcome,
};

/// Milliseconds since the epoch; injectable for tests.
pub type Clock = Box<dyn Fn() -> f64>;
/// Receives every [`CacheEvent`]; must not panic (the JS adapter swallows throws).
pub type Observer = Box<dyn Fn(&CacheEvent)>;
/// The observer once installed: shared with the store (for `blocked` events).
type SharedObserver = Rc<dyn Fn(&CacheEvent)>;

/// How a stale notification names itself as the cause of staleness (the pattern follows).
const NOTIFICATION_CAUSE: &str = "the server's stale notification for ";

/// Bound on the in-memory maps that remember tool directives and reusable calls.
const MEMORY_MAP_LIMIT: usize = 1024;

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

/// A write refused for lack of space. (A bare `AbortError` is not taken as one: a connection
/// closed by "clear site data" aborts the same way, and must not shrink the budget.)
fn is_quota_error(err: &StoreError) -> bool {
    matches!(err.kind, ErrorKind::Quota)
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

/// The records of a read, looked up by [`ResultCache::read_records`] (boxed: it recurses).
type RecordsFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Option<JsRecord>>, StoreError>> + 'a>>;

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

    /// Records the directive a tool's description declares (`None` forgets it).
    pub fn observe_tool(&self, tool_name: &str, directive: Option<CacheDirective>) {
        let mut directives = self.directives.borrow_mut();
        match directive {
            Some(d) => {
                if directives.len() >= MEMORY_MAP_LIMIT && !directives.contains_key(tool_name) {
                    directives.clear();
                }
                directives.insert(tool_name.to_owned(), d);
            }
            None => {
                directives.remove(tool_name);
            }
        }
    }

    /// The directive learned for a tool, if any.
    pub fn directive_of(&self, tool_name: &str) -> Option<CacheDirective> {
        self.directives.borrow().get(tool_name).copied()
    }

    fn reuses(&self, tool_name: &str) -> bool {
        self.reuse_immutable && self.directive_of(tool_name) == Some(CacheDirective::Immutable)
    }

    /// The reference stored for an identical earlier call, when reuse applies to this tool.
    pub fn reusable_uri(&self, conv_id: &str, tool_name: &str, args_key: &str) -> Option<String> {
        if !self.reuses(tool_name) {
            return None;
        }
        let reuse = self.reuse.borrow();
        reuse
            .reusable(conv_id, tool_name, args_key)
            .map(str::to_owned)
    }

    /// Notes a dispatched call's canonical arguments so its result can be reused later.
    pub fn note_dispatch(&self, conv_id: &str, tool_name: &str, args_key: String) {
        if self.reuses(tool_name) {
            self.reuse
                .borrow_mut()
                .dispatched(conv_id, tool_name, args_key);
        }
    }

    /// Completes a call noted at dispatch for this tool (see [`ReuseBook::completed`]). Must be
    /// called once per dispatched call, whatever its outcome.
    pub fn note_result(
        &self,
        conv_id: &str,
        tool_name: &str,
        uri: Option<&str>,
        args_key: Option<&str>,
    ) {
        self.reuse
            .borrow_mut()
            .completed(conv_id, tool_name, uri, args_key);
    }

    /// Marks stale every entry produced by a tool matching one of `patterns` (glob, the cache's
    /// separator): of every server when `server` is `None` (the host's own call), else of that
    /// server and entries recorded without one ([`crate::core::source`]). Invalid patterns are
    /// skipped and reported as an `error` event. Returns how many entries became stale.
    pub async fn invalidate(
        &self,
        patterns: &[String],
        cause: &str,
        server: Option<&str>,
    ) -> Result<u32, StoreError> {
        let mut valid = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            match validate_pattern(pattern, &self.separator) {
                Ok(()) => valid.push(pattern.clone()),
                Err(e) => self.emit(CacheEvent::Error {
                    operation: "invalidate",
                    name: "SyntaxError".to_owned(),
                    message: e.message(),
                }),
            }
        }
        if valid.is_empty() {
            return Ok(0);
        }
        self.note_removal();
        let separator = self.separator.clone();
        let patterns = valid.clone();
        let scope = server.map(str::to_owned);
        let matches = Rc::new(move |source: &str| {
            let tool = split_source(source).1;
            in_scope(scope.as_deref(), source)
                && patterns.iter().any(|p| match_glob(p, tool, &separator))
        });
        let count = self
            .store
            .mark_stale(matches, cause)
            .await
            .map_err(|e| self.failed("invalidate", e))?;
        self.emit(CacheEvent::Invalidate {
            cause: cause.to_owned(),
            patterns: valid,
            count,
        });
        Ok(count)
    }

    /// A server notification: `notifications/resources/updated` with a stale URI (any released
    /// MCP Fusion scheme: `mcpfusion://stale/`, `fusion://stale/`, `vurb://stale/`) marks the
    /// entries of matching tools stale; anything else changes nothing. Returns how many.
    /// `server`: the server that sent it (its notifications touch its own entries only).
    pub async fn handle_notification(
        &self,
        method: &str,
        uri: &str,
        server: Option<&str>,
    ) -> Result<u32, StoreError> {
        match stale_pattern(uri) {
            Some(pattern) if method == RESOURCE_UPDATED_METHOD => {
                // The cause the model reads: "… is stale (invalidated by the server's stale
                // notification for billing.get_*)".
                let mut cause = String::from(NOTIFICATION_CAUSE);
                cause.push_str(pattern);
                self.invalidate(&[pattern.to_owned()], &cause, server).await
            }
            _ => Ok(0),
        }
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

    /// Stores `payload` when it is an object or array whose JSON is at least the threshold, and
    /// returns its new reference; `Ok(None)` when it is not cached (too small, too big, not
    /// plain JSON data, not serializable, not an object/array, or refused by the browser).
    pub async fn cache_tool_result(
        &self,
        request: CacheRequest<'_>,
    ) -> Result<Option<String>, StoreError> {
        if !payload::is_referenceable(request.payload) {
            return Ok(None);
        }
        // With a store that keeps payloads as JSON (Redis), the JSON measured here is handed to
        // it, which would otherwise make it again: nothing runs between the two.
        #[cfg(feature = "external-store")]
        let json = match request.known_size {
            Some(_) => None,
            None => payload::json_of(request.payload),
        };
        #[cfg(feature = "external-store")]
        let size = request
            .known_size
            .unwrap_or_else(|| json.as_ref().map_or(0, payload::utf8_len));
        #[cfg(not(feature = "external-store"))]
        let size = request
            .known_size
            .unwrap_or_else(|| payload::estimate_size(request.payload));
        let threshold = request.threshold.unwrap_or(self.threshold);
        match policy::decide(size, threshold, self.limits.max_entry_bytes) {
            StoreDecision::TooSmall => return Ok(None),
            StoreDecision::TooBig => {
                self.emit(CacheEvent::Skip {
                    reason: "maxEntryBytes",
                    size_bytes: size as f64,
                    limit: self.limits.max_entry_bytes,
                });
                return Ok(None);
            }
            StoreDecision::Store => {}
        }
        if let Err(unstorable) = payload::check_storable(request.payload) {
            // Its JSON size (what the budget counts) would understate what IndexedDB stores.
            self.emit(CacheEvent::Skip {
                reason: unstorable.reason(),
                size_bytes: size as f64,
                limit: match unstorable {
                    payload::Unstorable::TooDeep => f64::from(payload::MAX_PAYLOAD_DEPTH),
                    payload::Unstorable::NotPlainJson => 0.0,
                },
            });
            return Ok(None);
        }
        let token = mint_token().map_err(|e| {
            self.failed(
                "cacheToolResult",
                StoreError::new(ErrorKind::RandomSource, e.message()),
            )
        })?;
        let now = self.now();
        let record = CacheRecord {
            uri: format_cache_uri(&sanitize_conv_id(request.conv_id), &token),
            payload: request.payload.clone(),
            // Scoping compares this exact id; the URI segment is only its lossy shadow.
            conv_id: request.conv_id.to_owned(),
            source_tool_name: request.source_tool_name.to_owned(),
            added_at: now,
            size_bytes: size as f64,
            last_used_at: now,
            stale_cause: None,
            derived_from: request.derived_from.map(str::to_owned),
        };
        let removals = self.removals.get();
        #[cfg(feature = "external-store")]
        let written = self.store.write_json(&record, &self.budget(), json).await;
        #[cfg(not(feature = "external-store"))]
        let written = self.store.write(&record, &self.budget()).await;
        let outcome = match written {
            Ok(outcome) => outcome,
            Err(e) if is_quota_error(&e) && removals != self.removals.get() => {
                // A clear, invalidation or eviction was called meanwhile: the write stays lost.
                let _ = self.failed("cacheToolResult", e);
                return Ok(None);
            }
            Err(e) if is_quota_error(&e) => match self.recover_from_quota(&record).await {
                Some(outcome) => outcome,
                // Give up cleanly: the host's dispatch loop goes on without a reference.
                None => return Ok(None),
            },
            Err(e) => return Err(self.failed("cacheToolResult", e)),
        };
        if outcome.evicted > 0 {
            self.emit(CacheEvent::Evict {
                count: outcome.evicted,
                reason: "budget",
            });
        }
        self.emit(CacheEvent::Write {
            uri: record.uri.clone(),
            conv_id: record.conv_id,
            source_tool_name: record.source_tool_name,
            size_bytes: record.size_bytes,
        });
        Ok(Some(record.uri))
    }

    /// The browser refused a write for lack of storage: the origin has less room than the budget
    /// assumed. Lowers the byte budget once (see [`policy::quota_budget`]; never ratcheted
    /// further, as Chromium reclaims deleted space lazily and repeated errors say little), evicts
    /// down below it ([`policy::recovery_bytes`]) so later writes evict in their own transaction
    /// instead of hitting the wall, and retries once. `None` when the retry fails too (reported
    /// as an `error` event).
    async fn recover_from_quota(&self, record: &JsRecord) -> Option<WriteOutcome> {
        let stored = self.store.stats().await.map(|s| s.bytes).unwrap_or(0.0);
        if self.quota_cap.get().is_none() {
            let quota = quota::origin_quota().await;
            let cap = policy::quota_budget(quota, stored, record.size_bytes);
            self.quota_cap.set(Some(cap));
        }
        let cap = self.budget().max_bytes;
        let freed = self
            .store
            .evict_oldest(policy::recovery_bytes(stored, cap, record.size_bytes))
            .await
            .unwrap_or(0);
        self.emit(CacheEvent::Evict {
            count: freed,
            reason: "quota",
        });
        match self.store.write(record, &self.budget()).await {
            Ok(outcome) => Some(outcome),
            Err(e) => {
                let _ = self.failed("cacheToolResult", e);
                None
            }
        }
    }

    /// Resolves references in ONE read-only transaction, all reads issued before awaiting.
    /// Malformed references, other conversations (when `conv_scope` is set: the exact id the
    /// entry was written with must equal it, whatever the URI segment says) and absent entries are [`LookupOutcome::Miss`]; a `#` pointer is applied.
    pub async fn lookup_many(
        &self,
        uris: &[&str],
        conv_scope: Option<&str>,
    ) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        self.lookup_noting(uris, conv_scope, None).await
    }

    /// [`Self::lookup_many`], noting in `sources` the source ([`crate::core::source`]) of each
    /// reference that resolved to a fresh entry: a derived entry's is its first source's.
    async fn lookup_noting(
        &self,
        uris: &[&str],
        conv_scope: Option<&str>,
        sources: Option<&RefCell<Vec<ReferenceSource>>>,
    ) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        let parsed: Vec<_> = uris.iter().map(|u| parse_cache_uri(u)).collect();
        let keys: Vec<&str> = parsed.iter().flatten().map(|p| p.key).collect();
        let records = self
            .read_records(&keys, 0)
            .await
            .map_err(|e| self.failed("lookup", e))?;
        let mut records = records.into_iter();
        let outcomes = parsed
            .into_iter()
            .zip(uris)
            .map(|(parsed, uri)| {
                let Some(parsed) = parsed else {
                    return LookupOutcome::Miss;
                };
                let record = records.next().flatten();
                let source = sources
                    .and(record.as_ref())
                    .map(|r| r.source_tool_name.clone());
                let outcome = LookupOutcome::from_record(record, conv_scope);
                let outcome = match (outcome, &parsed.pointer) {
                    (LookupOutcome::Hit(value), Some(pointer)) => {
                        match payload::select(&value, pointer) {
                            Some(selected) => LookupOutcome::Hit(selected),
                            None => LookupOutcome::BadPointer {
                                pointer: pointer.as_str().to_owned(),
                            },
                        }
                    }
                    (other, _) => other,
                };
                if let (Some(sources), Some(source), LookupOutcome::Hit(_)) =
                    (sources, source, &outcome)
                {
                    sources.borrow_mut().push(ReferenceSource {
                        uri: (*uri).to_owned(),
                        source,
                    });
                }
                self.emit(match &outcome {
                    LookupOutcome::Hit(_) => CacheEvent::Hit {
                        uri: (*uri).to_owned(),
                    },
                    LookupOutcome::Stale { cause, .. } => CacheEvent::Stale {
                        uri: (*uri).to_owned(),
                        cause: cause.clone(),
                    },
                    _ => CacheEvent::Miss {
                        uri: (*uri).to_owned(),
                    },
                });
                outcome
            })
            .collect();
        Ok(outcomes)
    }

    /// The records of `keys` in one read-only transaction (misses filled from chatbox-core's
    /// database), each derived entry checked against its source: a derived entry is only as
    /// good as its source, so it reads as absent once the source is gone (evicted, cleared, of
    /// another conversation) or more than [`MAX_DERIVATION_DEPTH`] links away, and as stale,
    /// with the source's cause, once the source is stale. It is the source's data, so it reads
    /// with the source's tool and server (what a flow policy checks). The sources are read the
    /// same way, one more read a link of the chain (boxed: the future recurses).
    fn read_records<'a>(&'a self, keys: &'a [&'a str], depth: usize) -> RecordsFuture<'a> {
        Box::pin(async move {
            let mut records = self.store.read_many(keys, self.now()).await?;
            if depth == 0 {
                self.read_through(keys, &mut records).await;
            }
            let derived: Vec<(usize, String)> = (0..records.len())
                .filter_map(|i| {
                    let r = records[i].as_ref()?;
                    Some((
                        i,
                        r.derived_from.clone().filter(|_| r.stale_cause.is_none())?,
                    ))
                })
                .collect();
            if derived.is_empty() {
                return Ok(records);
            }
            let source_keys: Vec<&str> = derived.iter().map(|(_, key)| key.as_str()).collect();
            let mut sources = match depth < MAX_DERIVATION_DEPTH {
                true => self.read_records(&source_keys, depth + 1).await?,
                false => Vec::new(),
            }
            .into_iter();
            for (i, _) in &derived {
                let source = sources.next().flatten();
                let record = &mut records[*i];
                match (source, record.as_mut()) {
                    (Some(source), Some(r)) if source.conv_id == r.conv_id => {
                        r.source_tool_name = source.source_tool_name;
                        if source.stale_cause.is_some() {
                            r.stale_cause = source.stale_cause;
                        }
                    }
                    _ => *record = None,
                }
            }
            Ok(records)
        })
    }

    /// Fills misses from chatbox-core's database, when one exists. Its records are scoped like
    /// ours by the caller. A failure there is an `error` event, never a failed lookup.
    async fn read_through(&self, keys: &[&str], records: &mut [Option<JsRecord>]) {
        let Some(legacy) = &self.legacy else { return };
        let missing: Vec<usize> = (0..keys.len()).filter(|&i| records[i].is_none()).collect();
        if missing.is_empty() {
            return;
        }
        let missing_keys: Vec<&str> = missing.iter().map(|&i| keys[i]).collect();
        match legacy.get_many(&missing_keys).await {
            Ok(found) => {
                for (i, record) in missing.into_iter().zip(found) {
                    records[i] = record;
                }
            }
            Err(e) => {
                let _ = self.failed("lookup", e);
            }
        }
    }

    /// [`Self::lookup_many`] for one reference.
    pub async fn lookup(
        &self,
        uri: &str,
        conv_scope: Option<&str>,
    ) -> Result<LookupOutcome<JsValue>, StoreError> {
        Ok(self
            .lookup_many(&[uri], conv_scope)
            .await?
            .pop()
            .unwrap_or(LookupOutcome::Miss))
    }

    fn note_removal(&self) {
        self.removals.set(self.removals.get().wrapping_add(1));
    }

    /// Deletes every entry of a conversation (exactly this id; never another id that happens to
    /// share its URI segment).
    ///
    /// Our database and chatbox-core's are cleared concurrently (two independent databases).
    pub async fn clear_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        self.note_removal();
        let segment = sanitize_conv_id(conv_id);
        let ours = self.store.delete_conversation(conv_id, &segment);
        let (ours, legacy) = match &self.legacy {
            Some(legacy) => join::join(ours, legacy.delete_conversation(conv_id)).await,
            None => (ours.await, Ok(0)),
        };
        let count = ours
            .and_then(|n| Ok(n + legacy?))
            .map_err(|e| self.failed("clearConversation", e))?;
        self.emit(CacheEvent::Evict {
            count,
            reason: "clearConversation",
        });
        Ok(count)
    }

    /// Deletes entries written more than `max_age_ms` ago by the cache's clock.
    pub async fn evict_older_than(&self, max_age_ms: f64) -> Result<u32, StoreError> {
        self.note_removal();
        let count = self
            .store
            .delete_added_before(self.now() - max_age_ms)
            .await
            .map_err(|e| self.failed("evictOlderThan", e))?;
        self.emit(CacheEvent::Evict {
            count,
            reason: "maxAge",
        });
        Ok(count)
    }

    /// A [`ReferenceLookup`] over this cache, restricted to `conv_scope` when given.
    pub fn scoped(&self, conv_scope: Option<&str>) -> ScopedLookup<'_> {
        ScopedLookup {
            cache: self,
            conv_scope: conv_scope.map(str::to_owned),
            sources: RefCell::default(),
        }
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

    /// Metadata of every entry (of exactly one conversation id when given).
    pub async fn entries(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        self.store
            .list(conv_id)
            .await
            .map_err(|e| self.failed("entries", e))
    }

    /// Releases the storage connections (reopened on next use).
    pub fn close(&self) {
        self.store.close();
        if let Some(legacy) = &self.legacy {
            legacy.close();
        }
    }
}

/// Where the data of one resolved reference comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceSource {
    /// The reference as given (with any fragment).
    pub uri: String,
    /// The entry's source: its tool, prefixed by its server when recorded
    /// ([`crate::core::source::split_source`]).
    pub source: String,
}

/// [`ResultCache::lookup_many`] for one conversation scope, as the substitution algorithm wants
/// it, noting the source of every reference it resolves.
pub struct ScopedLookup<'a> {
    cache: &'a ResultCache,
    conv_scope: Option<String>,
    sources: RefCell<Vec<ReferenceSource>>,
}

impl ScopedLookup<'_> {
    /// The sources of the references resolved so far, in lookup order.
    pub fn into_sources(self) -> Vec<ReferenceSource> {
        self.sources.into_inner()
    }
}

impl ReferenceLookup<JsValue> for ScopedLookup<'_> {
    type Error = StoreError;
    async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        self.cache
            .lookup_noting(uris, self.conv_scope.as_deref(), Some(&self.sources))
            .await
    }
}
