//! Exports for SEP-2549 list TTLs and URI templates: `listCacheMeta`, `ListCache`,
//! `matchUriTemplate`.

use std::cell::RefCell;

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

use super::convert::{get, optional_function, optional_non_negative, options_object, set};
use super::js_error::type_error;
use crate::state_sync::list_cache::{self, ListCache, ListParams, ListScope};
use crate::state_sync::template;

fn scope_value(value: &JsValue, what: &str) -> Result<Option<ListScope>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_string()
        .and_then(|s| ListScope::from_wire(&s))
        .map(Some)
        .ok_or_else(|| type_error(&format!("{what} must be \"public\" or \"private\"")))
}

/// `listCacheMeta({ ttlMs, scope })`: the SEP-2549 fields a server adds to a list result,
/// `{ ttlMs, cacheScope? }`. `ttlMs` is always emitted (servers must send it), `0` included;
/// negative or non-finite values become `0`.
#[wasm_bindgen(js_name = listCacheMeta, unchecked_return_type = "ListCacheMeta")]
pub fn list_cache_meta(
    #[wasm_bindgen(unchecked_param_type = "ListCacheMetaOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let ttl = get(&options, "ttlMs").as_f64().unwrap_or(0.0);
    let scope = scope_value(&get(&options, "scope"), "scope")?;
    let meta = list_cache::list_cache_meta(ttl, scope);
    let obj = Object::new();
    set(&obj, "ttlMs", meta.ttl_ms);
    if let Some(scope) = meta.scope {
        set(&obj, "cacheScope", scope.as_str());
    }
    Ok(obj.into())
}

fn params_of(params: &JsValue) -> ListParams {
    ListParams {
        cursor: get(params, "cursor").as_string(),
        uri: get(params, "uri").as_string(),
    }
}

fn auth_of(value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or_else(|| type_error("authContext must be a string"))
}

/// A client-side cache of MCP list results honouring SEP-2549 `ttlMs` / `cacheScope`.
///
/// Key: method + `cursor`/`uri` params + auth context. A result is fresh while
/// `now < receivedAt + ttlMs` (missing or negative `ttlMs` = 0); `private` results (the default
/// when `cacheScope` is absent) are never served to another auth context; pages are cached
/// independently.
#[wasm_bindgen(js_name = ListCache)]
pub struct JsListCache {
    cache: RefCell<ListCache<JsValue>>,
    now: Option<Function>,
}

#[wasm_bindgen(js_class = ListCache)]
impl JsListCache {
    /// `new ListCache({ now? })`; `now` is a clock in ms (default `Date.now`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "ListCacheOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsListCache, JsValue> {
        let options = options_object(&options.unwrap_or(JsValue::UNDEFINED), "ListCache options")?
            .unwrap_or(JsValue::UNDEFINED);
        Ok(Self {
            cache: RefCell::new(ListCache::new()),
            now: optional_function(&get(&options, "now"), "now")?,
        })
    }

    fn now(&self) -> f64 {
        self.now
            .as_ref()
            .and_then(|f| f.call0(&JsValue::NULL).ok())
            .and_then(|v| v.as_f64())
            .filter(|t| t.is_finite())
            .unwrap_or_else(js_sys::Date::now)
    }

    /// Stores a list result, reading its `ttlMs` and `cacheScope`.
    pub fn put(
        &self,
        method: &str,
        #[wasm_bindgen(unchecked_param_type = "ListRequestParams | undefined")] params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] result: JsValue,
        #[wasm_bindgen(js_name = authContext, unchecked_optional_param_type = "string | null")]
        auth_context: Option<JsValue>,
    ) -> Result<(), JsValue> {
        let ttl = optional_non_negative(&get(&result, "ttlMs"), "ttlMs").unwrap_or(None);
        let scope =
            scope_value(&get(&result, "cacheScope"), "cacheScope")?.unwrap_or(ListScope::Private);
        let auth = auth_of(&auth_context.unwrap_or(JsValue::UNDEFINED))?;
        let now = self.now();
        self.cache.borrow_mut().put(
            now,
            method,
            &params_of(&params),
            result,
            ttl,
            scope,
            auth.as_deref(),
        );
        Ok(())
    }

    /// The cached result for a request: `{ result, stale, ageMs }`, or `null`. Only fresh
    /// results are returned unless `allowStale` (serve-stale-on-error), which returns an expired
    /// one flagged `stale: true`.
    #[wasm_bindgen(unchecked_return_type = "ListCacheHit | null")]
    pub fn get(
        &self,
        method: &str,
        #[wasm_bindgen(unchecked_param_type = "ListRequestParams | undefined")] params: JsValue,
        #[wasm_bindgen(js_name = authContext, unchecked_optional_param_type = "string | null")]
        auth_context: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "{ allowStale?: boolean }")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let auth = auth_of(&auth_context.unwrap_or(JsValue::UNDEFINED))?;
        let allow_stale =
            get(&options.unwrap_or(JsValue::UNDEFINED), "allowStale") == JsValue::TRUE;
        let now = self.now();
        Ok(self
            .cache
            .borrow()
            .get(
                now,
                method,
                &params_of(&params),
                auth.as_deref(),
                allow_stale,
            )
            .map_or(JsValue::NULL, |hit| {
                let obj = Object::new();
                set(&obj, "result", hit.result);
                set(&obj, "stale", hit.stale);
                set(&obj, "ageMs", hit.age_ms);
                obj.into()
            }))
    }

    /// Drops every page of a list (all cursors, all auth contexts): call it when the server
    /// rejects a cursor as invalid. Returns how many entries were dropped.
    #[wasm_bindgen(js_name = invalidateList)]
    pub fn invalidate_list(&self, method: &str) -> u32 {
        self.cache.borrow_mut().invalidate_list(method) as u32
    }

    /// Applies `notifications/{tools,prompts,resources}/list_changed` and
    /// `notifications/resources/updated` (by `params.uri`). Returns how many entries were dropped.
    #[wasm_bindgen(js_name = handleNotification)]
    pub fn handle_notification(
        &self,
        #[wasm_bindgen(unchecked_param_type = "McpNotification")] message: JsValue,
    ) -> u32 {
        let Some(method) = get(&message, "method").as_string() else {
            return 0;
        };
        let uri = get(&get(&message, "params"), "uri").as_string();
        self.cache
            .borrow_mut()
            .handle_notification(&method, uri.as_deref()) as u32
    }

    /// Number of cached entries.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        self.cache.borrow().len() as u32
    }

    /// Removes everything.
    pub fn clear(&self) {
        self.cache.borrow_mut().clear();
    }
}

/// `matchUriTemplate(template, uri)`: RFC 6570 level-1 matching (`{var}` never spans `/`;
/// literal characters match only themselves). Returns `{ var: value, … }` or `null`.
#[wasm_bindgen(js_name = matchUriTemplate, unchecked_return_type = "Record<string, string> | null")]
pub fn match_uri_template(template: &str, uri: &str) -> JsValue {
    match template::match_uri_template(template, uri) {
        None => JsValue::NULL,
        Some(vars) => {
            let obj = Object::new();
            for (name, value) in vars {
                crate::pipeline::js_args::define(&obj, &name, &value.into());
            }
            obj.into()
        }
    }
}
