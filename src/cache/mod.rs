//! [`ResultCache`]: the threshold decision, reference minting, conversation scoping, events, and
//! one [`SelectedStore`] underneath. JS-facing conversions live in [`crate::bindings`].

mod events;
pub mod payload;

pub use events::CacheEvent;

use wasm_bindgen::JsValue;

use crate::core::record::{CacheRecord, LookupOutcome};
use crate::core::size::{should_cache, DEFAULT_CACHE_THRESHOLD_BYTES};
use crate::core::substitute::ReferenceLookup;
use crate::core::uri::{format_cache_uri, mint_token, parse_cache_uri, sanitize_conv_id};
use crate::store::{ResultStore, SelectedStore, StoreError};

/// Milliseconds since the epoch; injectable for tests.
pub type Clock = Box<dyn Fn() -> f64>;
/// Receives every [`CacheEvent`]; must not panic (the JS adapter swallows throws).
pub type Observer = Box<dyn Fn(&CacheEvent)>;

/// The result cache.
pub struct ResultCache {
    store: SelectedStore,
    threshold: u64,
    clock: Clock,
    observer: Option<Observer>,
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
}

impl ResultCache {
    /// A cache over `store`, caching results of at least `threshold` bytes.
    pub fn new(store: SelectedStore, threshold: Option<u64>, clock: Clock) -> Self {
        Self {
            store,
            threshold: threshold.unwrap_or(u64::from(DEFAULT_CACHE_THRESHOLD_BYTES)),
            clock,
            observer: None,
        }
    }

    /// Sets the event observer.
    pub fn with_observer(mut self, observer: Observer) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The configured threshold in bytes.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// `"indexeddb"` or `"memory"`.
    pub fn storage_kind(&self) -> &'static str {
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
            name: err.name.clone(),
            message: err.message.clone(),
        });
        err
    }

    /// Stores `payload` when it is an object or array whose JSON is at least the threshold, and
    /// returns its new reference; `Ok(None)` when it is not cached (too small, not serializable,
    /// not an object/array).
    pub async fn cache_tool_result(
        &self,
        request: CacheRequest<'_>,
    ) -> Result<Option<String>, StoreError> {
        if !payload::is_referenceable(request.payload) {
            return Ok(None);
        }
        let size = request
            .known_size
            .unwrap_or_else(|| payload::estimate_size(request.payload));
        if !should_cache(size, request.threshold.unwrap_or(self.threshold)) {
            return Ok(None);
        }
        let conv_id = sanitize_conv_id(request.conv_id);
        let token = mint_token().map_err(|e| {
            self.failed(
                "cacheToolResult",
                StoreError::new("NotSupportedError", e.to_string()),
            )
        })?;
        let now = self.now();
        let record = CacheRecord {
            uri: format_cache_uri(&conv_id, &token),
            payload: request.payload.clone(),
            conv_id,
            source_tool_name: request.source_tool_name.to_owned(),
            added_at: now,
            size_bytes: size as f64,
            last_used_at: now,
            stale_cause: None,
        };
        self.store
            .put(&record)
            .await
            .map_err(|e| self.failed("cacheToolResult", e))?;
        self.emit(CacheEvent::Write {
            uri: record.uri.clone(),
            conv_id: record.conv_id,
            source_tool_name: record.source_tool_name,
            size_bytes: record.size_bytes,
        });
        Ok(Some(record.uri))
    }

    /// Resolves references in ONE read-only transaction, all reads issued before awaiting.
    /// Malformed references, other conversations (when `conv_scope` is set, compared after
    /// sanitizing) and absent entries are [`LookupOutcome::Miss`]; a `#` pointer is applied.
    pub async fn lookup_many(
        &self,
        uris: &[&str],
        conv_scope: Option<&str>,
    ) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        let scope = conv_scope.map(sanitize_conv_id);
        let parsed: Vec<_> = uris.iter().map(|u| parse_cache_uri(u)).collect();
        let keys: Vec<&str> = parsed.iter().flatten().map(|p| p.key).collect();
        let mut records = self
            .store
            .get_many(&keys)
            .await
            .map_err(|e| self.failed("lookup", e))?
            .into_iter();
        let outcomes = parsed
            .into_iter()
            .zip(uris)
            .map(|(parsed, uri)| {
                let Some(parsed) = parsed else {
                    return LookupOutcome::Miss;
                };
                let record = records.next().flatten();
                let outcome = LookupOutcome::from_record(record, scope.as_deref());
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

    /// Deletes every entry of a conversation (the id is sanitized as when minting).
    pub async fn clear_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        let count = self
            .store
            .delete_conversation(&sanitize_conv_id(conv_id))
            .await
            .map_err(|e| self.failed("clearConversation", e))?;
        self.emit(CacheEvent::Evict {
            count,
            reason: "clearConversation",
        });
        Ok(count)
    }

    /// Deletes entries written more than `max_age_ms` ago by the cache's clock.
    pub async fn evict_older_than(&self, max_age_ms: f64) -> Result<u32, StoreError> {
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
        }
    }

    /// Releases the storage connection (reopened on next use).
    pub fn close(&self) {
        self.store.close();
    }
}

/// [`ResultCache::lookup_many`] for one conversation scope, as the substitution algorithm wants it.
pub struct ScopedLookup<'a> {
    cache: &'a ResultCache,
    conv_scope: Option<String>,
}

impl ReferenceLookup<JsValue> for ScopedLookup<'_> {
    type Error = StoreError;
    async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        self.cache
            .lookup_many(uris, self.conv_scope.as_deref())
            .await
    }
}
