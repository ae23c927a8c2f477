//! Storing a result: the threshold and size decisions, minting its reference, the write and
//! the recovery from a quota error.

use super::{payload, quota, CacheEvent, CacheRequest, ResultCache};
use crate::core::policy::{self, StoreDecision};
use crate::core::record::CacheRecord;
use crate::core::uri::{format_cache_uri, mint_token, sanitize_conv_id};
use crate::store::{ErrorKind, RecordStore, StoreError};

/// A write refused for lack of space. (A bare `AbortError` is not taken as one: a connection
/// closed by "clear site data" aborts the same way, and must not shrink the budget.)
fn is_quota_error(err: &StoreError) -> bool {
    matches!(err.kind, ErrorKind::Quota)
}

impl ResultCache {
    /// Stores `payload` when it is an object or array whose JSON is at least the threshold, and
    /// returns its new reference; `Ok(None)` when it is not cached (too small, too big, not
    /// plain JSON data, not serializable, not an object/array, or refused by the browser).
    ///
    /// A write refused for lack of storage means the origin has less room than the budget
    /// assumed. The byte budget is lowered once (see [`policy::quota_budget`]; never ratcheted
    /// further, as Chromium reclaims deleted space lazily and repeated errors say little), the
    /// oldest entries are evicted down below it ([`policy::recovery_bytes`]) so later writes
    /// evict in their own transaction instead of hitting the wall, and the write is retried
    /// once. Writes refused together (one batch) evict once: a write that finds that another
    /// one's recovery evicted since it was called retries in that room. It is given up cleanly
    /// (`Ok(None)`, the refusal reported) when a clear, invalidation or age eviction was called
    /// since the write (a retry would take effect after it), when the totals cannot be read, or
    /// when the retry fails too. (Inline, not a function of its own: one future, fewer bytes.)
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
        let (size, json) = measured(&request);
        #[cfg(not(feature = "external-store"))]
        let size = measured(&request);
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
        let recoveries = self.recoveries.get();
        #[cfg(feature = "external-store")]
        let written = self.store.write_json(&record, &self.budget(), json).await;
        #[cfg(not(feature = "external-store"))]
        let written = self.store.write(&record, &self.budget()).await;
        let outcome = match written {
            Ok(outcome) => outcome,
            // Refused for lack of storage: recovered and retried once (see above).
            Err(e) if is_quota_error(&e) => {
                let retried = 'recovery: {
                    if removals != self.removals.get() {
                        break 'recovery None;
                    }
                    if self.recoveries.get() == recoveries {
                        let Ok(stats) = self.store.stats().await else {
                            break 'recovery None;
                        };
                        if self.quota_cap.get().is_none() {
                            let quota = quota::origin_quota().await;
                            let cap = policy::quota_budget(quota, stats.bytes, record.size_bytes);
                            self.quota_cap.set(Some(cap));
                        }
                        // No await between this check and the eviction's place in call order.
                        if self.recoveries.get() == recoveries {
                            self.recoveries.set(recoveries.wrapping_add(1));
                            let cap = self.budget().max_bytes;
                            let bytes = policy::recovery_bytes(stats.bytes, cap, record.size_bytes);
                            let count = self.store.evict_oldest(bytes).await.unwrap_or(0);
                            self.emit(CacheEvent::Evict {
                                count,
                                reason: "quota",
                            });
                        }
                        if removals != self.removals.get() {
                            break 'recovery None;
                        }
                    }
                    self.store.write(&record, &self.budget()).await.ok()
                };
                let Some(outcome) = retried else {
                    let _ = self.failed("cacheToolResult", e);
                    return Ok(None);
                };
                outcome
            }
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
}

/// The payload's size in JSON bytes (`known_size` when the caller gave it), and its JSON when a
/// store keeps payloads as JSON (Redis; `None` when the size was given).
#[cfg(feature = "external-store")]
fn measured(request: &CacheRequest<'_>) -> (u64, Option<js_sys::JsString>) {
    let json = match request.known_size {
        Some(_) => None,
        None => payload::json_of(request.payload),
    };
    let size = request
        .known_size
        .unwrap_or_else(|| json.as_ref().map_or(0, payload::utf8_len));
    (size, json)
}

/// The payload's size in JSON bytes (`known_size` when the caller gave it).
#[cfg(not(feature = "external-store"))]
fn measured(request: &CacheRequest<'_>) -> u64 {
    request
        .known_size
        .unwrap_or_else(|| payload::estimate_size(request.payload))
}
