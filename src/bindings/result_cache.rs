//! The `ResultCache` class.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::{
    cache_clock, conv_id_string, conv_scope, event_object, is_name, lookup_result,
    optional_function, optional_non_negative, options_object, payload_or_null, read, server_option,
    set, set_source, storage_option, uri_string, view_options,
};
use super::js_error::{promise, store_error, type_error};
use crate::cache::{CacheRequest, Limits, ResultCache};
use crate::core::record::UNKNOWN_SOURCE_TOOL;
use crate::core::uri::parse_cache_uri;
use crate::core::view::View;
use crate::js_args::{array_items, bool_option, check_readable, is_array, string_items};

/// A cache of large tool results, addressed by `mcp+cache://` references.
///
/// ```js
/// const cache = new ResultCache({ dbName: "my-app", threshold: 4096 });
/// const uri = await cache.cacheToolResult({ payload, convId, sourceToolName: "timeseries.query" });
/// const same = await cache.readCachedPayload(uri, { convId });
/// ```
#[wasm_bindgen(js_name = ResultCache)]
pub struct JsResultCache {
    inner: Rc<ResultCache>,
}

impl JsResultCache {
    /// Builds a cache from the JS options object (see `ResultCacheOptions`).
    pub(crate) fn from_options(options: &JsValue) -> Result<Self, JsValue> {
        let options = options_object(options, "ResultCache options")?.unwrap_or(JsValue::UNDEFINED);
        // `dbName`, `threshold`, `now` and `onEvent` reach the builder only when given (their
        // defaults are the builder's); the limits, `reuseImmutable`, `legacyChatboxCore` and the
        // view get theirs here.
        let db_name = match read(&options, "dbName")? {
            v if v.is_undefined() => None,
            v => Some(
                v.as_string()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| type_error("dbName must be a non-empty string"))?,
            ),
        };
        let threshold = optional_non_negative(&read(&options, "threshold")?, "threshold")?;
        let now = optional_function(&read(&options, "now")?, "now")?;
        let on_event = optional_function(&read(&options, "onEvent")?, "onEvent")?;
        let storage = storage_option(&read(&options, "storage")?)?;
        let separator = crate::js_args::separator_option(&options)?;
        let reuse_immutable = bool_option(&options, "reuseImmutable", false)?;
        let defaults = Limits::default();
        let limit = |key: &str, default: f64| -> Result<f64, JsValue> {
            Ok(optional_non_negative(&read(&options, key)?, key)?.unwrap_or(default))
        };
        let limits = Limits {
            max_bytes: limit("maxBytes", defaults.max_bytes)?,
            max_entries: limit("maxEntries", defaults.max_entries)?,
            max_entry_bytes: limit("maxEntryBytes", defaults.max_entry_bytes)?,
        };
        let legacy = bool_option(&options, "legacyChatboxCore", true)?;
        let view = view_options(&options, &View::default())?;
        let mut builder = ResultCache::builder()
            .storage(storage)
            .legacy_chatbox_core(legacy)
            .threshold(threshold.map(|t| t as u64))
            .limits(limits)
            .separator(separator)
            .reuse_immutable(reuse_immutable)
            .view(view);
        if let Some(name) = db_name {
            builder = builder.db_name(name);
        }
        if let Some(now) = now {
            builder = builder.clock(cache_clock(now));
        }
        if let Some(f) = on_event {
            builder = builder.observer(Box::new(move |event| {
                // An observer that throws never changes the outcome.
                let _ = f.call1(&JsValue::NULL, &event_object(event));
            }));
        }
        // A build fails only for `storage: "indexeddb"` where `indexedDB` is absent.
        let cache = builder.build().map_err(store_error)?;
        Ok(Self {
            inner: Rc::new(cache),
        })
    }

    pub(crate) fn shared(&self) -> Rc<ResultCache> {
        self.inner.clone()
    }
}

#[wasm_bindgen(module = "/src/js_values.js")]
extern "C" {
    /// Orders `entries()`'s objects by `addedAt`, stably, in JS (`js_values.js`).
    #[wasm_bindgen(js_name = mcpSortByAddedAt)]
    fn sort_by_added_at(list: &js_sys::Array);
}

fn string_list(value: &JsValue, what: &str) -> Result<Vec<String>, JsValue> {
    if let Some(s) = value.as_string() {
        return Ok(vec![s]);
    }
    string_items(value).ok_or_else(|| {
        type_error(&crate::core::text::concat(&[
            what,
            " must be an array of strings",
        ]))
    })
}

#[wasm_bindgen(js_class = ResultCache)]
impl JsResultCache {
    /// Creates a cache. Nothing is opened until the first operation, so constructing one during
    /// server-side rendering is safe.
    ///
    /// @throws TypeError for a malformed option; NotSupportedError for `storage: "indexeddb"`
    /// where IndexedDB is absent. (The browser entry builds the instance on first use until
    /// `ready()` has resolved: a malformed option then rejects the first operation instead; a
    /// malformed `flows` throws at once everywhere.)
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "ResultCacheOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsResultCache, JsValue> {
        Self::from_options(&options.unwrap_or(JsValue::UNDEFINED))
    }

    /// Stores `payload` when it is a JSON object or array whose `JSON.stringify` is at least
    /// `threshold` UTF-8 bytes, and resolves its new `mcp+cache://<conversation>/<token>`
    /// reference; resolves `null` when it is not cached (too small, not serializable, not an
    /// object/array). `server` records the MCP server of the producing tool with the entry, as
    /// `afterToolCall`'s `server` does. Rejects with an `Error` named after the DOMException when
    /// storage fails. The payload is read (and copied into storage) when the write takes effect,
    /// after the operations called before it: leave it unchanged until the promise settles.
    #[wasm_bindgen(js_name = cacheToolResult, unchecked_return_type = "Promise<string | null>")]
    pub fn cache_tool_result(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CacheToolResultInput")] input: JsValue,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            if !input.is_object() {
                return Err(type_error(
                    "cacheToolResult expects { payload, convId, sourceToolName?, server?, threshold?, derivedFrom? }",
                ));
            }
            check_readable(&input, "cacheToolResult input")?;
            let payload = read(&input, "payload")?;
            let conv_id = conv_id_string(&read(&input, "convId")?)?;
            let source = read(&input, "sourceToolName")?;
            let source_tool_name = match source.as_string() {
                Some(s) if s.is_empty() => UNKNOWN_SOURCE_TOOL.to_owned(),
                Some(s) if super::convert::is_name(&s) => s,
                _ if source.is_undefined() || source.is_null() => UNKNOWN_SOURCE_TOOL.to_owned(),
                _ => return Err(type_error("sourceToolName must be a string without U+001F")),
            };
            // The entry's source: the tool, and its server when given (as `afterToolCall` records it).
            let source_tool_name = crate::core::source::source_name(
                server_option(&input)?.as_deref(),
                &source_tool_name,
            );
            let threshold = optional_non_negative(&read(&input, "threshold")?, "threshold")?;
            let derived_from = match read(&input, "derivedFrom")? {
                v if v.is_undefined() || v.is_null() => None,
                v => Some(
                    v.as_string()
                        .and_then(|s| parse_cache_uri(&s).map(|u| u.key.to_owned()))
                        .ok_or_else(|| {
                            type_error("derivedFrom must be an mcp+cache:// reference")
                        })?,
                ),
            };
            let uri = cache
                .cache_tool_result(CacheRequest {
                    payload: &payload,
                    conv_id: &conv_id,
                    source_tool_name: &source_tool_name,
                    threshold: threshold.map(|t| t as u64),
                    known_size: None,
                    derived_from: derived_from.as_deref(),
                })
                .await
                .map_err(store_error)?;
            Ok(uri.map_or(JsValue::NULL, JsValue::from))
        })
    }

    /// Resolves the payload a reference points at (applying a `#/json/pointer` fragment), or
    /// `null` for a non-string, another scheme, a malformed reference, a miss, a stale entry,
    /// and — when `options.convId` is given — a reference of another conversation.
    #[wasm_bindgen(js_name = readCachedPayload, unchecked_return_type = "Promise<unknown>")]
    pub fn read_cached_payload(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] uri: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        let cache = self.shared();
        let options = options.unwrap_or(JsValue::UNDEFINED);
        promise(async move {
            let scope = conv_scope(&options)?;
            let Some(uri) = uri_string(&uri)? else {
                return Ok(JsValue::NULL);
            };
            let outcome = cache
                .lookup(&uri, scope.as_deref())
                .await
                .map_err(store_error)?;
            Ok(payload_or_null(outcome))
        })
    }

    /// Like `readCachedPayload`, but tells a stored `null` (`{status: "hit", payload: null}`)
    /// from a miss, and reports stale entries with their cause.
    #[wasm_bindgen(js_name = lookup, unchecked_return_type = "Promise<LookupResult>")]
    pub fn lookup(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] uri: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        let cache = self.shared();
        let options = options.unwrap_or(JsValue::UNDEFINED);
        promise(async move {
            let scope = conv_scope(&options)?;
            let Some(uri) = uri_string(&uri)? else {
                return Ok(lookup_result(crate::core::record::LookupOutcome::Miss));
            };
            let outcome = cache
                .lookup(&uri, scope.as_deref())
                .await
                .map_err(store_error)?;
            Ok(lookup_result(outcome))
        })
    }

    /// Deletes every entry of this conversation id (exactly this id) in one transaction that
    /// reads no entry: two key-range deletes when the range's usage rows are all this id's and
    /// as many as its records, deletes by key otherwise.
    #[wasm_bindgen(js_name = clearConversation, unchecked_return_type = "Promise<void>")]
    pub fn clear_conversation(
        &self,
        #[wasm_bindgen(js_name = convId, unchecked_param_type = "unknown")] conv_id: JsValue,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            let conv_id = conv_id_string(&conv_id)?;
            cache
                .clear_conversation(&conv_id)
                .await
                .map_err(store_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Deletes entries written more than `maxAgeMs` ago (by the cache's clock), in one
    /// transaction over the `addedAt` index.
    #[wasm_bindgen(js_name = evictOlderThan, unchecked_return_type = "Promise<void>")]
    pub fn evict_older_than(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EvictOptions")] options: JsValue,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            let max_age = optional_non_negative(&read(&options, "maxAgeMs")?, "maxAgeMs")?
                .ok_or_else(|| type_error("evictOlderThan expects { maxAgeMs: number }"))?;
            cache.evict_older_than(max_age).await.map_err(store_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The size threshold in bytes.
    #[wasm_bindgen(getter)]
    pub fn threshold(&self) -> f64 {
        self.inner.threshold() as f64
    }

    /// The storage this cache resolved to: `"indexeddb"`, `"memory"`, or a storage object's
    /// `kind` (`"redis"` for `redisStorage`).
    #[wasm_bindgen(getter)]
    pub fn storage(&self) -> String {
        self.inner.storage_kind().to_owned()
    }

    /// Marks stale every entry produced by a tool matching one of the glob `patterns` (one
    /// transaction over the `sourceToolName` index); later references to them are refused with
    /// the stale envelope naming `cause`. Resolves how many entries became stale. Fires
    /// `invalidate`.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn invalidate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] patterns: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ cause?: string; server?: string }")]
        options: Option<JsValue>,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            let patterns = string_list(&patterns, "patterns")?;
            let options = options.unwrap_or(JsValue::UNDEFINED);
            let cause = read(&options, "cause")?
                .as_string()
                .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.to_owned());
            let server = server_option(&options)?;
            let count = cache
                .invalidate(&patterns, &cause, server.as_deref())
                .await
                .map_err(store_error)?;
            Ok(JsValue::from(count))
        })
    }

    /// Applies a `notifications/resources/updated` message whose `params.uri` is
    /// a stale URI (`mcpfusion://stale/<pattern>`, or the released MCP Fusion spellings
    /// `fusion://stale/` and `vurb://stale/`): entries of matching tools
    /// become stale. Other messages are ignored. Resolves how many entries became stale.
    /// `options.server` names the server that sent it: then only its own entries (and those
    /// written without a server) are touched.
    #[wasm_bindgen(js_name = handleNotification, unchecked_return_type = "Promise<number>")]
    pub fn handle_notification(
        &self,
        #[wasm_bindgen(unchecked_param_type = "McpNotification")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ server?: string }")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            let method = read(&message, "method")?.as_string().unwrap_or_default();
            let uri = read(&read(&message, "params")?, "uri")?.as_string();
            let server = server_option(&options.unwrap_or(JsValue::UNDEFINED))?;
            let count = cache
                .handle_notification(
                    &method,
                    uri.as_deref().unwrap_or_default(),
                    server.as_deref(),
                )
                .await
                .map_err(store_error)?;
            Ok(JsValue::from(count))
        })
    }

    /// Learns each tool's `[Cache-Control: immutable|no-store]` directive from its description
    /// (as listed by `tools/list`). With `reuseImmutable: true`, an identical call (same tool,
    /// canonical-JSON-equal arguments) to an `immutable` tool in the same conversation is
    /// answered from the cache by `beforeToolCall`; `no-store` tools are never reused.
    /// `options.server` names the server the tools belong to (pass the same `server` to
    /// `beforeToolCall` and `afterToolCall`). A tool whose name could not be recorded (empty, or
    /// with U+001F, which would make it read as another server's) teaches nothing: the cache
    /// refuses its calls anyway.
    #[wasm_bindgen(js_name = observeTools)]
    pub fn observe_tools(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly McpTool[]")] tools: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ server?: string }")] options: Option<
            JsValue,
        >,
    ) -> Result<(), JsValue> {
        if !is_array(&tools) {
            return Err(type_error("observeTools expects an array of tools"));
        }
        check_readable(&tools, "tools")?;
        let server = server_option(&options.unwrap_or(JsValue::UNDEFINED))?;
        for tool in array_items(&tools) {
            if let Some(name) = read(&tool, "name")?.as_string().filter(|n| is_name(n)) {
                let directive = read(&tool, "description")?
                    .as_string()
                    .and_then(|d| crate::state_sync::decorate::parse_cache_control(&d));
                let source = crate::core::source::source_name(server.as_deref(), &name);
                self.inner.observe_tool(&source, directive);
            }
        }
        Ok(())
    }

    /// Metadata of the stored entries, oldest first: `[{ uri, convId, sourceToolName, addedAt,
    /// lastUsedAt, sizeBytes, staleCause }]` (`staleCause` is `null` for fresh entries), of one
    /// conversation when `options.convId` is given. A derived entry (`derivedFrom`) is listed as
    /// a lookup reads it: with its first source's tool and, once that source is stale, its
    /// cause; it is left out when a lookup would find nothing (its source gone). For inspection (dev tools, demos): it reads
    /// every payload from IndexedDB, so do not call it on a hot path.
    #[wasm_bindgen(unchecked_return_type = "Promise<CacheEntryInfo[]>")]
    pub fn entries(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        let cache = self.shared();
        promise(async move {
            let scope = conv_scope(&options.unwrap_or(JsValue::UNDEFINED))?;
            let records = cache.entries(scope.as_deref()).await.map_err(store_error)?;
            let list: js_sys::Array = records
                .into_iter()
                .map(|r| {
                    let obj = js_sys::Object::new();
                    set(&obj, "uri", r.uri);
                    set(&obj, "convId", r.conv_id);
                    set_source(&obj, &r.source_tool_name);
                    set(&obj, "addedAt", r.added_at);
                    set(&obj, "lastUsedAt", r.last_used_at);
                    set(&obj, "sizeBytes", r.size_bytes);
                    set(
                        &obj,
                        "staleCause",
                        r.stale_cause.map_or(JsValue::NULL, JsValue::from),
                    );
                    if let Some(source) = r.derived_from {
                        set(&obj, "derivedFrom", source);
                    }
                    JsValue::from(obj)
                })
                .collect();
            sort_by_added_at(&list);
            Ok(list.into())
        })
    }

    /// `{ entries, bytes, conversations, storage, maxBytes, maxEntries, maxEntryBytes,
    /// estimate? }` — counts from entry metadata (no payload is read), plus the origin's
    /// `navigator.storage.estimate()` (`{ usage, quota }`) where the platform has it.
    #[wasm_bindgen(unchecked_return_type = "Promise<CacheStats>")]
    pub fn stats(&self) -> Promise {
        let cache = self.shared();
        promise(async move {
            let stats = cache.stats().await.map_err(store_error)?;
            let limits = *cache.limits();
            let obj = js_sys::Object::new();
            set(&obj, "entries", stats.entries);
            set(&obj, "bytes", stats.bytes);
            set(&obj, "conversations", stats.conversations);
            set(&obj, "storage", cache.storage_kind());
            set(&obj, "maxBytes", limits.max_bytes);
            set(&obj, "maxEntries", limits.max_entries);
            set(&obj, "maxEntryBytes", limits.max_entry_bytes);
            if let Some(estimate) = crate::cache::quota::usage_and_quota().await {
                set(&obj, "estimate", estimate);
            }
            Ok(obj.into())
        })
    }

    /// Closes the database connection; the next operation reopens it.
    pub fn close(&self) {
        self.inner.close();
    }
}
