//! Free functions bound to a default `ResultCache` (default options: database
//! `"mcp-result-cache"`, IndexedDB when present else memory), created on first use — never at
//! import time.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::result_cache::{self as methods, JsResultCache};
use crate::cache::ResultCache;

thread_local! {
    static DEFAULT: RefCell<Option<Rc<ResultCache>>> = const { RefCell::new(None) };
}

/// The default cache, created on first use.
pub(crate) fn default_cache() -> Rc<ResultCache> {
    DEFAULT.with(|slot| {
        slot.borrow_mut()
            .get_or_insert_with(|| {
                JsResultCache::from_options(&JsValue::UNDEFINED)
                    .expect("default options are valid")
                    .shared()
            })
            .clone()
    })
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
