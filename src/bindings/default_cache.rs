//! Free functions bound to a default `ResultCache` (default options: database
//! `"mcp-result-cache"`, IndexedDB when present else memory), created on first use — never at
//! import time.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::convert::cache_clock;
use super::result_cache::{self as methods, JsResultCache};
use crate::cache::ResultCache;
use crate::store::{MemoryStore, SelectedStore};

/// The default cache: configured (or not yet), then in use.
enum DefaultCache {
    /// `configureDefaultCache` ran; no free function has used the cache yet.
    Configured(Rc<ResultCache>),
    /// A free function has used it: its options can no longer change.
    InUse(Rc<ResultCache>),
}

thread_local! {
    static DEFAULT: RefCell<Option<DefaultCache>> = const { RefCell::new(None) };
}

/// The default cache, created with default options on first use unless configured before.
pub(crate) fn default_cache() -> Rc<ResultCache> {
    DEFAULT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let cache = match slot.take() {
            Some(DefaultCache::Configured(cache) | DefaultCache::InUse(cache)) => cache,
            None => JsResultCache::from_options(&JsValue::UNDEFINED)
                .map(|c| c.shared())
                // Default options cannot be invalid; a memory store keeps this path panic-free.
                .unwrap_or_else(|_| {
                    let store = SelectedStore::Memory(MemoryStore::new());
                    Rc::new(ResultCache::new(store, None, cache_clock(None)))
                }),
        };
        *slot = Some(DefaultCache::InUse(cache.clone()));
        cache
    })
}

/// Sets the options of the cache behind the free functions (`cacheToolResult`,
/// `beforeToolCall`, …): the same options as `new ResultCache(options)` — `onEvent` to observe
/// hits, misses, conflicts and errors, `threshold`, `dbName`, limits, `legacyChatboxCore`, ….
///
/// Call it once at startup, before any free function: afterwards it rejects with an
/// `InvalidStateError` (entries may already have been written under other options). It may be
/// called again before first use; the last call wins. Invalid options reject with a `TypeError`
/// and leave the default cache unconfigured.
#[wasm_bindgen(js_name = configureDefaultCache, unchecked_return_type = "Promise<void>")]
pub fn configure_default_cache(
    #[wasm_bindgen(unchecked_param_type = "ResultCacheOptions")] options: JsValue,
) -> Promise {
    let outcome = DEFAULT.with(|slot| {
        if matches!(*slot.borrow(), Some(DefaultCache::InUse(_))) {
            return Err(in_use_error());
        }
        let cache = JsResultCache::from_options(&options)?.shared();
        // The slot may have changed while the options were read (a getter calling a free function).
        let mut slot = slot.borrow_mut();
        if matches!(*slot, Some(DefaultCache::InUse(_))) {
            return Err(in_use_error());
        }
        *slot = Some(DefaultCache::Configured(cache));
        Ok(JsValue::UNDEFINED)
    });
    match outcome {
        Ok(value) => Promise::resolve(&value),
        Err(error) => Promise::reject(&error),
    }
}

fn in_use_error() -> JsValue {
    let error = js_sys::Error::new(
        "configureDefaultCache() must run before the first use of the free functions \
         (cacheToolResult, readCachedPayload, beforeToolCall, …); create a ResultCache instead",
    );
    error.set_name("InvalidStateError");
    error.into()
}

/// `ResultCache.cacheToolResult` on the default cache.
#[wasm_bindgen(js_name = cacheToolResult, unchecked_return_type = "Promise<string | null>")]
pub fn cache_tool_result(
    #[wasm_bindgen(unchecked_param_type = "CacheToolResultInput")] input: JsValue,
) -> Promise {
    methods::cache_tool_result(default_cache(), input)
}

/// `ResultCache.readCachedPayload` on the default cache.
#[wasm_bindgen(js_name = readCachedPayload, unchecked_return_type = "Promise<unknown>")]
pub fn read_cached_payload(
    #[wasm_bindgen(unchecked_param_type = "unknown")] uri: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<JsValue>,
) -> Promise {
    methods::read_cached_payload(default_cache(), uri, options.unwrap_or(JsValue::UNDEFINED))
}

/// `ResultCache.lookup` on the default cache.
#[wasm_bindgen(js_name = lookup, unchecked_return_type = "Promise<LookupResult>")]
pub fn lookup(
    #[wasm_bindgen(unchecked_param_type = "unknown")] uri: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<JsValue>,
) -> Promise {
    methods::lookup(default_cache(), uri, options.unwrap_or(JsValue::UNDEFINED))
}

/// `ResultCache.clearConversation` on the default cache.
#[wasm_bindgen(js_name = clearConversation, unchecked_return_type = "Promise<void>")]
pub fn clear_conversation(
    #[wasm_bindgen(js_name = convId, unchecked_param_type = "unknown")] conv_id: JsValue,
) -> Promise {
    methods::clear_conversation(default_cache(), conv_id)
}

/// `ResultCache.evictOlderThan` on the default cache.
#[wasm_bindgen(js_name = evictOlderThan, unchecked_return_type = "Promise<void>")]
pub fn evict_older_than(
    #[wasm_bindgen(unchecked_param_type = "EvictOptions")] options: JsValue,
) -> Promise {
    methods::evict_older_than(default_cache(), options)
}
