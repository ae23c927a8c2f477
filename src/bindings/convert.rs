//! JS value <-> Rust conversions shared by the exports: conversation ids, result and event
//! objects, clocks. Reading caller values is [`crate::js_args`]'s.
// Most of these serve the host entry only; the server build links what it uses.
#![cfg_attr(not(feature = "host"), allow(dead_code))]

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::js_error::type_error;
use crate::cache::{CacheEvent, Clock, Storage};
use crate::core::record::LookupOutcome;
use crate::core::source::{split_source, SERVER_MARK_STR};
use crate::core::text;
use crate::core::uri::DEFAULT_CONV_SEGMENT;
use crate::core::view::{is_tool_prefix, parse_view, View, DEFAULT_READ_TOOLS_PREFIX};
// The catching readers live in `crate::js_args`; the host's exports import them from here or
// from there alike.
#[cfg(feature = "host")]
pub(crate) use crate::js_args::{optional_function, optional_non_negative};
pub(crate) use crate::js_args::{options_object, read};

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)` conversion.
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// The conversation id as the cache scopes it: `String(id)` for a string, number or bigint, and
/// `"default"` for `null`/`undefined`. Anything else (an object, a symbol, a boolean) is a
/// `TypeError`: `String()` of two different objects is the same `"[object Object]"`, so
/// accepting them would silently merge conversations.
pub(crate) fn conv_id_string(value: &JsValue) -> Result<String, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(DEFAULT_CONV_SEGMENT.to_owned());
    }
    // A lone surrogate would read as U+FFFD: two ids would share one conversation.
    if value.is_string() {
        return crate::js_args::well_formed(value).ok_or_else(|| type_error(CONV_ID_TYPE));
    }
    if value.as_f64().is_some() || value.is_bigint() {
        return js_string(value).map_err(|_| type_error(CONV_ID_TYPE));
    }
    Err(type_error(CONV_ID_TYPE))
}

const CONV_ID_TYPE: &str = "convId must be a well-formed string or a number";

/// Sets `obj[key] = value` on a plain object we created.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    set_value(obj, key, &value.into());
}

/// `set`'s one copy of the key's conversion and the `Reflect.set` call: `set` is generic over
/// the value, and each of its ~100 callers would otherwise inline both.
#[inline(never)]
fn set_value(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// A new JS array of the strings.
pub(crate) fn string_array(list: &[String]) -> Array {
    let array = Array::new();
    for s in list {
        array.push(&JsValue::from_str(s));
    }
    array
}

/// The clock of a cache given no `now` option: `Date.now()`, in milliseconds.
pub(crate) fn system_now() -> f64 {
    js_sys::Date::now()
}

/// What a caller's clock `now()` answered: a finite number, or why not (`Err(Some(thrown))`
/// when it threw, `Err(None)` when it returned anything else).
pub(crate) fn call_clock(now: &Function) -> Result<f64, Option<JsValue>> {
    now.call0(&JsValue::UNDEFINED)
        .map_err(Some)?
        .as_f64()
        .filter(|t| t.is_finite())
        .ok_or(None)
}

/// A `ResultCache`'s clock from its `now` option: the caller's clock, reading [`system_now`]
/// whenever it throws or answers something other than a finite number (without the option the
/// builder's default clock, `Date.now()`, is used).
pub(crate) fn cache_clock(now: Function) -> Clock {
    Box::new(move || call_clock(&now).unwrap_or_else(|_| system_now()))
}

/// The `{ convId }` scope of a read: present (and not `undefined`) → the id string. An options
/// object whose `convId` cannot be read is a `TypeError`, never "unscoped".
pub(crate) fn conv_scope(options: &JsValue) -> Result<Option<String>, JsValue> {
    let options = options_object(options, "options")?;
    match options.map(|o| read(&o, "convId")).transpose()? {
        Some(v) if !v.is_undefined() => conv_id_string(&v).map(Some),
        _ => Ok(None),
    }
}

/// `lookup()`'s result object.
pub(crate) fn lookup_result(outcome: LookupOutcome<JsValue>) -> JsValue {
    let obj = Object::new();
    match outcome {
        LookupOutcome::Hit(payload) => {
            set(&obj, "status", "hit");
            set(&obj, "payload", payload);
        }
        LookupOutcome::Miss | LookupOutcome::BadPointer { .. } => set(&obj, "status", "miss"),
        LookupOutcome::Stale {
            cause,
            source_tool_name,
        } => {
            set(&obj, "status", "stale");
            set(&obj, "cause", cause);
            set_source(&obj, &source_tool_name);
        }
    }
    obj.into()
}

/// `sourceToolName`, and `sourceServer` when the entry recorded one.
pub(crate) fn set_source(obj: &Object, source: &str) {
    let (server, tool) = split_source(source);
    set(obj, "sourceToolName", tool);
    if let Some(server) = server {
        set(obj, "sourceServer", server);
    }
}

/// A reference argument: `None` when it is not a string (a miss); a string with a lone
/// surrogate is a `TypeError` (it would reach Rust with U+FFFD in its place and could select
/// another key).
pub(crate) fn uri_string(value: &JsValue) -> Result<Option<String>, JsValue> {
    if !value.is_string() {
        return Ok(None);
    }
    crate::js_args::well_formed(value)
        .map(Some)
        .ok_or_else(|| type_error("uri must be a well-formed string (it has a lone surrogate)"))
}

/// A server's or a tool's name the cache can record: not empty, and without the mark that
/// separates them in an entry's source (a tool named `vault\u{1f}x` would read as vault's).
pub(crate) fn is_name(name: &str) -> bool {
    !name.is_empty() && text::find(name, SERVER_MARK_STR).is_none()
}

/// `server`: absent, or the non-empty name of the MCP server the tool belongs to.
pub(crate) fn server_option(options: &JsValue) -> Result<Option<String>, JsValue> {
    // Options that are not an object are refused, never read as "no server" (every server).
    options_object(options, "options")?;
    let value = read(options, "server")?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    crate::js_args::well_formed(&value)
        .filter(|s| is_name(s))
        .map(Some)
        .ok_or_else(|| type_error("server must be a non-empty string (the MCP server's name)"))
}

/// `readCachedPayload()`'s value: the payload on a hit, `null` otherwise.
pub(crate) fn payload_or_null(outcome: LookupOutcome<JsValue>) -> JsValue {
    match outcome {
        LookupOutcome::Hit(payload) => payload,
        _ => JsValue::NULL,
    }
}

/// A [`CacheEvent`] as the object `onEvent` receives.
pub(crate) fn event_object(event: &CacheEvent) -> JsValue {
    let obj = Object::new();
    set(&obj, "kind", event.kind());
    match event {
        CacheEvent::Write {
            uri,
            conv_id,
            source_tool_name,
            size_bytes,
        } => {
            set(&obj, "uri", uri.as_str());
            set(&obj, "convId", conv_id.as_str());
            set_source(&obj, source_tool_name);
            set(&obj, "sizeBytes", *size_bytes);
        }
        CacheEvent::Hit { uri } | CacheEvent::Miss { uri } => set(&obj, "uri", uri.as_str()),
        CacheEvent::Stale { uri, cause } => {
            set(&obj, "uri", uri.as_str());
            set(&obj, "cause", cause.as_str());
        }
        CacheEvent::Conflict {
            tool_name,
            key,
            uris,
        } => {
            set(&obj, "toolName", tool_name.as_str());
            set(&obj, "key", key.as_str());
            set(&obj, "uris", string_array(uris));
        }
        CacheEvent::Cap {
            tool_name,
            arg,
            count,
            cap,
        } => {
            set(&obj, "toolName", tool_name.as_str());
            set(&obj, "arg", arg.as_str());
            set(&obj, "count", *count as f64);
            set(&obj, "cap", *cap as f64);
        }
        CacheEvent::Invalidate {
            cause,
            patterns,
            count,
        } => {
            set(&obj, "cause", cause.as_str());
            set(&obj, "patterns", string_array(patterns));
            set(&obj, "count", *count);
        }
        CacheEvent::Reuse { tool_name, uri } => {
            set(&obj, "toolName", split_source(tool_name).1);
            set(&obj, "uri", uri.as_str());
        }
        CacheEvent::Skip {
            reason,
            size_bytes,
            limit,
        } => {
            set(&obj, "reason", *reason);
            set(&obj, "sizeBytes", *size_bytes);
            set(&obj, "limit", *limit);
        }
        CacheEvent::Evict { count, reason } => {
            set(&obj, "count", *count);
            set(&obj, "reason", *reason);
        }
        CacheEvent::Blocked { database } => set(&obj, "database", database.as_str()),
        CacheEvent::Error {
            operation,
            name,
            message,
        } => {
            set(&obj, "operation", *operation);
            set(&obj, "name", name.as_str());
            set(&obj, "message", message.as_str());
        }
    }
    obj.into()
}

/// The `view` and `readTools` options over `base` (what they default to).
pub(crate) fn view_options(options: &JsValue, base: &View) -> Result<View, JsValue> {
    let mut view = base.clone();
    match read(options, "view")? {
        v if v.is_undefined() => {}
        v => {
            view.preview = v
                .as_string()
                .and_then(|s| parse_view(&s))
                .ok_or_else(|| type_error("view must be \"full\" or \"preview\""))?
        }
    }
    let read_tools = read(options, "readTools")?;
    match (read_tools.as_bool(), read_tools.as_string()) {
        _ if read_tools.is_undefined() => {}
        (Some(on), _) => view.read_tools = on.then(|| DEFAULT_READ_TOOLS_PREFIX.to_owned()),
        (_, Some(prefix)) if is_tool_prefix(&prefix) => view.read_tools = Some(prefix),
        _ => return Err(type_error(
            "readTools must be a boolean or a tool-name prefix (at most 32 of A-Z a-z 0-9 _ - .)",
        )),
    }
    Ok(view)
}

/// The `storage` option: `"auto"` (or absent), `"indexeddb"`, `"memory"`, or (in builds with the
/// `external-store` feature: the Node entry) a storage object made in JS (`redisStorage`: an
/// object with a non-empty string `kind` and the methods of `store::ExternalStore`). Browsers
/// never get one: `mcp-result-cache/redis` throws `NotSupportedError` outside Node.
pub(crate) fn storage_option(storage: &JsValue) -> Result<Storage, JsValue> {
    #[cfg(feature = "external-store")]
    if storage.is_object() {
        return external_storage(storage);
    }
    match storage.as_string().as_deref() {
        None if storage.is_undefined() => Ok(Storage::Auto),
        Some("auto") => Ok(Storage::Auto),
        Some("indexeddb") => Ok(Storage::IndexedDb),
        Some("memory") => Ok(Storage::Memory),
        _ => Err(type_error(STORAGE_VALUES)),
    }
}

#[cfg(feature = "external-store")]
const STORAGE_VALUES: &str =
    "storage must be \"auto\", \"indexeddb\", \"memory\" or a storage object (redisStorage)";
#[cfg(not(feature = "external-store"))]
const STORAGE_VALUES: &str = "storage must be \"auto\", \"indexeddb\" or \"memory\"";

/// The methods a storage object answers (`store::ExternalStore`).
#[cfg(feature = "external-store")]
const STORAGE_METHODS: [&str; 8] = [
    "write",
    "read",
    "evictOldest",
    "stats",
    "remove",
    "freshTools",
    "markStale",
    "list",
];

#[cfg(feature = "external-store")]
fn external_storage(storage: &JsValue) -> Result<Storage, JsValue> {
    let kind = read(storage, "kind")?.as_string().filter(|k| !k.is_empty());
    let complete = STORAGE_METHODS
        .iter()
        .all(|m| read(storage, m).is_ok_and(|f| f.is_function()));
    match kind {
        Some(kind) if complete => Ok(Storage::External(storage.clone(), kind)),
        _ => Err(type_error(STORAGE_VALUES)),
    }
}
