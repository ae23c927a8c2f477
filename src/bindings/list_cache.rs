//! Host exports for SEP-2549 list TTLs and URI templates: `ListCache`, `matchUriTemplate`
//! (`listCacheMeta`, which servers call, is in `server.rs`).
//!
//! Reading a JS input can run arbitrary JS (a getter, a `Proxy` trap, the `now` clock), and that
//! JS may call back into the same `ListCache`. So every method reads and checks all of its inputs
//! first, then borrows the Rust cache, and releases the borrow before it touches JS again: a
//! re-entrant call finds the `RefCell` free. A double borrow would panic, and a panic in wasm
//! is a trap that leaves the whole module unusable.

use std::cell::RefCell;

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

use super::convert::{call_clock, set, system_now};
use super::js_error::{js_error, type_error, JsErrorClass};
use crate::js_args::{define, optional_function, options_object, read, well_formed};
use crate::state_sync::list_cache::{
    ListCache, ListEntry, ListHit, ListParams, ListScope, DEFAULT_MAX_LIST_ENTRIES,
};
use crate::state_sync::template;

/// A required string argument (well-formed: a string with a lone surrogate would arrive as
/// U+FFFD, so two different values could share a key); anything else is a `TypeError` with
/// `message`.
fn string_arg(value: &JsValue, message: &'static str) -> Result<String, JsValue> {
    well_formed(value).ok_or_else(|| type_error(message))
}

/// An optional string: `undefined` is absent; any other non-string (`null`, a number, a `URL`)
/// is a `TypeError`, never "absent" and never `String(value)`.
fn optional_string(value: &JsValue, message: &'static str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    string_arg(value, message).map(Some)
}

const METHOD_TYPE: &str = "method must be a string (without lone surrogates)";
const PARAMS_TYPE: &str = "params must be an object, undefined or null";
const CURSOR_TYPE: &str = "params.cursor must be a string (without lone surrogates) or absent";
const URI_TYPE: &str = "params.uri must be a string (without lone surrogates) or absent";
const AUTH_TYPE: &str = "authContext must be a string (without lone surrogates), undefined or null";
const ALLOW_STALE_TYPE: &str = "allowStale must be a boolean";
const MAX_ENTRIES_TYPE: &str = "maxEntries must be a non-negative integer or Infinity";
const CLOCK_TYPE: &str = "the ListCache clock `now()` must return a finite number";

/// `{ cursor, uri }`: `undefined`/`null` params are the first page; an object's `cursor` and
/// `uri` must each be a string or absent. Other keys (`_meta`…) do not select a result.
fn params_of(params: &JsValue) -> Result<ListParams, JsValue> {
    if params.is_undefined() || params.is_null() {
        return Ok(ListParams::first_page());
    }
    if !params.is_object() {
        return Err(type_error(PARAMS_TYPE));
    }
    Ok(ListParams {
        cursor: optional_string(&read(params, "cursor")?, CURSOR_TYPE)?,
        uri: optional_string(&read(params, "uri")?, URI_TYPE)?,
    })
}

/// `undefined` and `null` are "no authorization context" (a context of its own for private
/// results); a string is that context; anything else is a `TypeError`.
fn auth_of(value: Option<JsValue>) -> Result<Option<String>, JsValue> {
    match value {
        Some(v) if !v.is_null() => optional_string(&v, AUTH_TYPE),
        _ => Ok(None),
    }
}

/// `{ allowStale }`: absent is `false`; present, it must be a boolean.
fn allow_stale_of(options: Option<JsValue>) -> Result<bool, JsValue> {
    let options = options_object(&options.unwrap_or(JsValue::UNDEFINED), "get options")?;
    let value = match options {
        Some(options) => read(&options, "allowStale")?,
        None => JsValue::UNDEFINED,
    };
    if value.is_undefined() {
        return Ok(false);
    }
    value.as_bool().ok_or_else(|| type_error(ALLOW_STALE_TYPE))
}

/// The SEP-2549 hints of a result: `ttlMs` (anything but a non-negative finite number counts as
/// `0`: stored, never fresh) and `cacheScope` (`public` only when it says `"public"`: absent,
/// `null` or a value this version does not know is `private`, deliberately stricter than
/// SEP-2549, which reads an absent `cacheScope` as `public`; a server's new value never fails
/// the host).
fn hints_of(result: &JsValue) -> Result<(Option<f64>, ListScope), JsValue> {
    let ttl = read(result, "ttlMs")?.as_f64();
    let scope = match read(result, "cacheScope")?.as_string().as_deref() {
        Some("public") => ListScope::Public,
        _ => ListScope::Private,
    };
    Ok((ttl, scope))
}

/// The `TypeError` for a clock that threw, keeping what it threw as `cause`.
fn clock_threw(thrown: JsValue) -> JsValue {
    let error = js_error(JsErrorClass::TypeError, "the ListCache clock `now()` threw");
    error.set_cause(&thrown);
    error.into()
}

/// A request's key, read and checked in full before the cache is borrowed.
struct Request {
    method: String,
    params: ListParams,
    auth: Option<String>,
}

impl Request {
    fn read(
        method: &JsValue,
        params: &JsValue,
        auth_context: Option<JsValue>,
    ) -> Result<Request, JsValue> {
        Ok(Request {
            method: string_arg(method, METHOD_TYPE)?,
            params: params_of(params)?,
            auth: auth_of(auth_context)?,
        })
    }
}

fn hit_object(hit: ListHit<JsValue>) -> JsValue {
    let obj = Object::new();
    set(&obj, "result", hit.result);
    set(&obj, "stale", hit.stale);
    set(&obj, "ageMs", hit.age_ms);
    obj.into()
}

/// A client-side cache of MCP list results honouring SEP-2549 `ttlMs` / `cacheScope`.
///
/// Key: `method` + the `cursor` / `uri` params + the auth context, each compared exactly. A
/// result is fresh while `now < receivedAt + ttlMs` (missing, negative or non-numeric `ttlMs` =
/// 0); `private` results are never served to another auth context; pages are cached
/// independently. A result without `cacheScope` is read as `private`: deliberately stricter than
/// SEP-2549, which reads an absent `cacheScope` as `public` (this package's `listCacheMeta`
/// always states it).
///
/// Inputs are checked, never guessed: `method` must be a string; `params` an object (or
/// `undefined`/`null` for the first page) whose `cursor` and `uri`, when present, are strings as
/// MCP defines them. A `cursor` of `2` or `null`, or a `uri` given as a `URL` object, is a
/// `TypeError` (pass `url.href`): it is never read as "absent" nor merged with another value.
/// Strings with lone surrogates are refused for the same reason. An input that cannot be read (a
/// getter throws, a revoked `Proxy`) is a `TypeError` too, never taken for "absent".
#[wasm_bindgen(js_name = ListCache)]
pub struct JsListCache {
    cache: RefCell<ListCache<JsValue>>,
    now: Option<Function>,
}

#[wasm_bindgen(js_class = ListCache)]
impl JsListCache {
    /// `new ListCache({ now?, maxEntries? })`; `now` is a clock in ms (default `Date.now`). It
    /// must return a finite number: if it throws (the error is the `cause`) or returns anything
    /// else, `put` and `get` throw a `TypeError` (falling back to `Date.now` would mix two clocks
    /// in one cache). `maxEntries` (default 1000; a non-negative integer, `0` stores nothing, `Infinity`
    /// keeps everything) bounds the entries: storing a new one in a full cache drops the one
    /// stored longest ago. Anything else is a `TypeError`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "ListCacheOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsListCache, JsValue> {
        let options = options_object(&options.unwrap_or(JsValue::UNDEFINED), "ListCache options")?
            .unwrap_or(JsValue::UNDEFINED);
        let now = optional_function(&read(&options, "now")?, "now")?;
        let max = read(&options, "maxEntries")?;
        let max_entries = match max.as_f64() {
            // `Infinity` (any count past the address space) keeps everything.
            Some(n) if n >= 0.0 && n.floor() == n => n as usize,
            _ if max.is_undefined() => DEFAULT_MAX_LIST_ENTRIES,
            _ => return Err(type_error(MAX_ENTRIES_TYPE)),
        };
        Ok(Self {
            cache: RefCell::new(ListCache::with_max_entries(max_entries)),
            now,
        })
    }

    fn now(&self) -> Result<f64, JsValue> {
        let Some(clock) = &self.now else {
            return Ok(system_now());
        };
        call_clock(clock).map_err(|thrown| match thrown {
            Some(thrown) => clock_threw(thrown),
            None => type_error(CLOCK_TYPE),
        })
    }

    /// Stores a list result, reading its `ttlMs` and `cacheScope` (`"public"`, or else
    /// `"private"`: absent or a value this version does not know, stricter than SEP-2549's
    /// absent = `"public"`). See the class for `params`. The cache keeps `result` itself, not a
    /// copy: changing it afterwards changes what `get` serves. It stores what it is given as
    /// fresh: an answer to a request sent before a `list_changed` for it arrived may be the list
    /// from before the change, and is better served to its caller only, not put.
    pub fn put(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] method: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ListRequestParams | null | undefined")]
        params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] result: JsValue,
        #[wasm_bindgen(js_name = authContext, unchecked_optional_param_type = "string | null")]
        auth_context: Option<JsValue>,
    ) -> Result<(), JsValue> {
        let request = Request::read(&method, &params, auth_context)?;
        let (ttl, scope) = hints_of(&result)?;
        let now = self.now()?;
        // No JS runs from here on, so nothing can re-enter while the cache is borrowed.
        self.cache.borrow_mut().put(
            now,
            ListEntry {
                method: &request.method,
                params: &request.params,
                auth_context: request.auth.as_deref(),
                result,
                ttl_ms: ttl,
                scope,
            },
        );
        Ok(())
    }

    /// The cached result for a request: `{ result, stale, ageMs }`, or `null`. Only fresh
    /// results are returned unless `allowStale` (serve-stale-on-error), which returns an expired
    /// one flagged `stale: true`. The newest answer wins, and an older one is never served in its
    /// place: a private result (even `ttlMs: 0`) hides the older public one from its auth
    /// context (others still get that), and a public result replaces every context's private
    /// one (public means any context may be served it). See the class for `params`.
    ///
    /// `result` is the very object `put` stored, shared by every caller it is served to (every
    /// auth context, for a public result): treat it as read-only, and copy it
    /// (`structuredClone(hit.result)`) before changing it.
    #[wasm_bindgen(unchecked_return_type = "ListCacheHit | null")]
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] method: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ListRequestParams | null | undefined")]
        params: JsValue,
        #[wasm_bindgen(js_name = authContext, unchecked_optional_param_type = "string | null")]
        auth_context: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "{ allowStale?: boolean }")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let request = Request::read(&method, &params, auth_context)?;
        let allow_stale = allow_stale_of(options)?;
        let now = self.now()?;
        // The borrow ends with this statement: building the hit object runs JS.
        let hit = self.cache.borrow().get(
            now,
            &request.method,
            &request.params,
            request.auth.as_deref(),
            allow_stale,
        );
        Ok(hit.map_or(JsValue::NULL, hit_object))
    }

    /// Drops every page of a list (all cursors, all auth contexts): call it when the server
    /// rejects a cursor as invalid. Returns how many entries were dropped; a non-string `method`
    /// is a `TypeError`.
    #[wasm_bindgen(js_name = invalidateList)]
    pub fn invalidate_list(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] method: JsValue,
    ) -> Result<u32, JsValue> {
        let method = string_arg(&method, METHOD_TYPE)?;
        Ok(self.cache.borrow_mut().invalidate_list(&method) as u32)
    }

    /// Applies `notifications/{tools,prompts,resources}/list_changed` and
    /// `notifications/resources/updated` (by `params.uri`). Returns how many entries were dropped.
    /// Any other message, including one whose `method` or `params.uri` is not a string, drops
    /// nothing (no cached entry can match it); a message that cannot be read is a `TypeError`.
    #[wasm_bindgen(js_name = handleNotification)]
    pub fn handle_notification(
        &self,
        #[wasm_bindgen(unchecked_param_type = "McpNotification")] message: JsValue,
    ) -> Result<u32, JsValue> {
        let method = well_formed(&read(&message, "method")?);
        let uri = well_formed(&read(&read(&message, "params")?, "uri")?);
        let Some(method) = method else {
            return Ok(0);
        };
        Ok(self
            .cache
            .borrow_mut()
            .handle_notification(&method, uri.as_deref()) as u32)
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
/// literal characters match only themselves). Returns `{ var: value, … }` or `null`; a
/// non-string argument is a `TypeError`.
#[wasm_bindgen(js_name = matchUriTemplate, unchecked_return_type = "Record<string, string> | null")]
pub fn match_uri_template(
    #[wasm_bindgen(unchecked_param_type = "string")] template: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue,
) -> Result<JsValue, JsValue> {
    let template = string_arg(
        &template,
        "template must be a string (without lone surrogates)",
    )?;
    let uri = string_arg(&uri, "uri must be a string (without lone surrogates)")?;
    Ok(match template::match_uri_template(&template, &uri) {
        None => JsValue::NULL,
        Some(vars) => {
            let obj = Object::new();
            for (name, value) in vars {
                define(&obj, &name, &value.into());
            }
            obj.into()
        }
    })
}
