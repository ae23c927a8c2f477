//! Exports of the State-Sync vocabulary: `matchGlob`, `validatePattern`, `detectOverlaps`,
//! `parseCacheControl`, `parseInvalidations`, and the `StateSync` class.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{get, options_object, set};
use super::js_error::type_error;
use crate::pipeline::js_args::{copy_without, define, get_own, is_args_object};
use crate::state_sync::decorate::{
    decorate_description, invalidation_tag, parse_cache_control as parse_directive,
    stale_notification_uri, RESOURCE_UPDATED_METHOD,
};
use crate::state_sync::glob::{self, DEFAULT_SEPARATOR};
use crate::state_sync::invalidation;
use crate::state_sync::policy::{self, PolicyEngine, PolicyError, ResolvedPolicy, SyncPolicy};

/// Resolutions remembered per `StateSync` before the memo is reset.
const MEMO_LIMIT: usize = 512;

fn plain_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

fn separator_option(options: &JsValue) -> Result<String, JsValue> {
    match get(options, "separator") {
        v if v.is_undefined() => Ok(DEFAULT_SEPARATOR.to_owned()),
        v => v
            .as_string()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| type_error("separator must be a non-empty string")),
    }
}

fn strings(list: &[String]) -> Array {
    list.iter().map(|s| JsValue::from_str(s)).collect()
}

/// `matchGlob(pattern, name, { separator }?)`: whole-string, case-sensitive dot-glob match
/// (`*` one segment, `**` zero or more, `*` inside a segment any run of characters).
#[wasm_bindgen(js_name = matchGlob)]
pub fn match_glob(
    pattern: &str,
    name: &str,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<bool, JsValue> {
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    Ok(glob::match_glob(pattern, name, &separator))
}

/// `validatePattern(pattern, { separator }?)`: throws an `Error` whose message says
/// `must be a non-empty string` or `invalid segment`; returns nothing for a valid pattern.
#[wasm_bindgen(js_name = validatePattern)]
pub fn validate_pattern(
    #[wasm_bindgen(unchecked_param_type = "unknown")] pattern: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<(), JsValue> {
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    let Some(pattern) = pattern.as_string() else {
        return Err(plain_error("pattern must be a non-empty string"));
    };
    glob::validate_pattern(&pattern, &separator).map_err(|e| plain_error(&e.to_string()))
}

/// Reads one JS policy object, with the validation messages of MCP Fusion.
fn sync_policy(index: usize, value: &JsValue) -> Result<SyncPolicy, PolicyError> {
    let pattern = get(value, "match")
        .as_string()
        .ok_or_else(|| PolicyError::match_not_a_string(index))?;
    let cache_control = match get(value, "cacheControl") {
        v if v.is_undefined() => None,
        v => Some(v.as_string().unwrap_or_else(|| format!("{v:?}"))),
    };
    let invalidates = match get(value, "invalidates") {
        v if v.is_undefined() => None,
        v if Array::is_array(&v) => Some(
            v.unchecked_ref::<Array>()
                .iter()
                .map(|p| p.as_string().unwrap_or_default())
                .collect(),
        ),
        _ => return Err(PolicyError::not_an_array(index)),
    };
    Ok(SyncPolicy {
        match_pattern: pattern,
        cache_control,
        invalidates,
    })
}

fn sync_policies(value: &JsValue) -> Result<Vec<SyncPolicy>, JsValue> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    if !Array::is_array(value) {
        return Err(plain_error("StateSync policies must be an array."));
    }
    value
        .unchecked_ref::<Array>()
        .iter()
        .enumerate()
        .map(|(i, p)| sync_policy(i, &p))
        .collect::<Result<_, _>>()
        .map_err(|e| plain_error(&e.to_string()))
}

/// `detectOverlaps(policies, { separator }?)`: every later policy that can never fire because an
/// earlier one matches all of its names, as `{ earlier, later, earlierMatch, laterMatch, message }`.
#[wasm_bindgen(js_name = detectOverlaps, unchecked_return_type = "PolicyOverlap[]")]
pub fn detect_overlaps(
    #[wasm_bindgen(unchecked_param_type = "SyncPolicy[]")] policies: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    let policies = sync_policies(&policies)?;
    let patterns: Vec<&str> = policies.iter().map(|p| p.match_pattern.as_str()).collect();
    let out: Array = policy::detect_overlaps(&patterns, &separator)
        .into_iter()
        .map(|o| {
            let obj = Object::new();
            set(&obj, "earlier", o.earlier as u32);
            set(&obj, "later", o.later as u32);
            set(
                &obj,
                "message",
                format!(
                    "policy[{}] \"{}\" is shadowed by policy[{}] \"{}\": it never applies",
                    o.later, o.later_match, o.earlier, o.earlier_match
                ),
            );
            set(&obj, "earlierMatch", o.earlier_match);
            set(&obj, "laterMatch", o.later_match);
            JsValue::from(obj)
        })
        .collect();
    Ok(out.into())
}

/// `parseCacheControl(description)`: the directive of a trailing `[Cache-Control: …]` tag
/// (`"immutable"` / `"no-store"`), or `null`.
#[wasm_bindgen(js_name = parseCacheControl, unchecked_return_type = "CacheDirective | null")]
pub fn parse_cache_control(
    #[wasm_bindgen(unchecked_param_type = "unknown")] description: JsValue,
) -> JsValue {
    description
        .as_string()
        .and_then(|d| parse_directive(&d))
        .map_or(JsValue::NULL, |d| JsValue::from_str(d.as_str()))
}

/// Every text to scan in a string, a `CallToolResult`, or an array of content blocks.
fn texts(value: &JsValue) -> Vec<String> {
    if let Some(s) = value.as_string() {
        return vec![s];
    }
    let blocks = if Array::is_array(value) {
        value.clone()
    } else {
        get(value, "content")
    };
    if !Array::is_array(&blocks) {
        return Vec::new();
    }
    blocks
        .unchecked_ref::<Array>()
        .iter()
        .filter_map(|b| get(&b, "text").as_string())
        .collect()
}

/// `parseInvalidations(result)`: the `<cache_invalidation … />` tags (entities unescaped) and
/// legacy `[System: Cache invalidated for … — caused by …]` texts in a `CallToolResult`, a
/// content array or a string, as `[{ cause, domains }]`.
#[wasm_bindgen(js_name = parseInvalidations, unchecked_return_type = "Invalidation[]")]
pub fn parse_invalidations(
    #[wasm_bindgen(unchecked_param_type = "unknown")] result: JsValue,
) -> JsValue {
    let out: Array = texts(&result)
        .iter()
        .flat_map(|t| invalidation::parse_invalidations(t))
        .map(|inv| {
            let obj = Object::new();
            set(&obj, "cause", inv.cause);
            set(&obj, "domains", strings(&inv.domains));
            JsValue::from(obj)
        })
        .collect();
    out.into()
}

thread_local! {
    /// Swallows rejections of async observer callbacks (no `new Function`: CSP-safe).
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Calls an observer; a sync throw is swallowed, a returned promise's rejection too.
fn call_observer(f: &Function, arg: &JsValue) {
    if let Ok(ret) = f.call1(&JsValue::NULL, arg) {
        if get(&ret, "then").is_function() {
            IGNORE.with(|ignore| {
                let _ = Promise::resolve(&ret).catch(ignore);
            });
        }
    }
}

/// MCP Fusion's State-Sync layer for a JS MCP server, or for a host decorating the tools of
/// servers it does not control.
#[wasm_bindgen(js_name = StateSync)]
pub struct JsStateSync {
    engine: PolicyEngine,
    on_invalidation: Option<Function>,
    notification_sink: Option<Function>,
    memo: RefCell<HashMap<String, JsValue>>,
}

fn resolved_object(resolved: &ResolvedPolicy) -> JsValue {
    let obj = Object::new();
    if let Some(d) = resolved.cache_control {
        set(&obj, "cacheControl", d.as_str());
    }
    if !resolved.invalidates.is_empty() {
        let list = strings(&resolved.invalidates);
        Object::freeze(&list);
        set(&obj, "invalidates", list);
    }
    Object::freeze(&obj).into()
}

#[wasm_bindgen(js_class = StateSync)]
impl JsStateSync {
    /// Validates every policy eagerly: throws an `Error` naming the policy, with
    /// `must be a non-empty string`, `invalid segment`, `invalid cacheControl` or
    /// `must be an array` in its message.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "StateSyncConfig")] config: JsValue,
    ) -> Result<JsStateSync, JsValue> {
        let config = options_object(&config, "StateSync config")?.unwrap_or(JsValue::UNDEFINED);
        let separator = separator_option(&config)?;
        let policies = sync_policies(&get(&config, "policies"))?;
        let defaults = get(&config, "defaults");
        let default_directive = match get(&defaults, "cacheControl") {
            v if v.is_undefined() => None,
            v => Some(v.as_string().unwrap_or_else(|| format!("{v:?}"))),
        };
        let engine = PolicyEngine::new(&policies, default_directive.as_deref(), &separator)
            .map_err(|e| plain_error(&e.to_string()))?;
        let function = |key: &str| -> Result<Option<Function>, JsValue> {
            match get(&config, key) {
                v if v.is_undefined() || v.is_null() => Ok(None),
                v => v
                    .dyn_into::<Function>()
                    .map(Some)
                    .map_err(|_| type_error(&format!("{key} must be a function"))),
            }
        };
        Ok(Self {
            on_invalidation: function("onInvalidation")?,
            notification_sink: function("notificationSink")?,
            engine,
            memo: RefCell::default(),
        })
    }

    /// The frozen `{ cacheControl?, invalidates? }` that applies to a tool (first matching
    /// policy; defaults fill in), or `null`. Memoized: the same name gives the same object.
    #[wasm_bindgen(unchecked_return_type = "ResolvedPolicy | null")]
    pub fn resolve(&self, name: &str) -> JsValue {
        if let Some(hit) = self.memo.borrow().get(name) {
            return hit.clone();
        }
        let value = self
            .engine
            .resolve(name)
            .map_or(JsValue::NULL, |r| resolved_object(&r));
        let mut memo = self.memo.borrow_mut();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(name.to_owned(), value.clone());
        value
    }

    /// Appends (or replaces) `[Cache-Control: …]` in each tool's description. Tools without a
    /// directive come back as the same objects; others as shallow copies.
    #[wasm_bindgen(js_name = decorateTools, unchecked_return_type = "McpTool[]")]
    pub fn decorate_tools(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly McpTool[]")] tools: JsValue,
    ) -> Result<JsValue, JsValue> {
        if !Array::is_array(&tools) {
            return Err(type_error("decorateTools expects an array of tools"));
        }
        let out: Array = tools
            .unchecked_ref::<Array>()
            .iter()
            .map(|tool| {
                let Some(name) = get(&tool, "name").as_string() else {
                    return tool;
                };
                let Some(directive) = self.engine.resolve(&name).and_then(|r| r.cache_control)
                else {
                    return tool;
                };
                let description = get(&tool, "description").as_string().unwrap_or_default();
                let copy = copy_without(&tool, &[]);
                define(
                    &copy,
                    "description",
                    &decorate_description(&description, directive).into(),
                );
                copy.into()
            })
            .collect();
        Ok(out.into())
    }

    /// After a successful call (`isError !== true`) of a tool whose policy invalidates
    /// patterns: returns a copy of `result` with `<cache_invalidation cause=… domains=… />` at
    /// `content[0]`, calls `onInvalidation({causedBy, patterns, timestamp})` and sends one
    /// `notifications/resources/updated` per pattern to `notificationSink` (throws and
    /// rejections of either are swallowed). Otherwise returns `result` itself.
    #[wasm_bindgen(js_name = decorateResult, unchecked_return_type = "CallToolResult")]
    pub fn decorate_result(
        &self,
        #[wasm_bindgen(js_name = toolName)] tool_name: &str,
        #[wasm_bindgen(unchecked_param_type = "CallToolResult")] result: JsValue,
    ) -> JsValue {
        if !is_args_object(&result) || get_own(&result, "isError") == JsValue::TRUE {
            return result;
        }
        let Some(resolved) = self
            .engine
            .resolve(tool_name)
            .filter(|r| !r.invalidates.is_empty())
        else {
            return result;
        };
        let patterns = &resolved.invalidates;
        if let Some(f) = &self.on_invalidation {
            let event = Object::new();
            set(&event, "causedBy", tool_name);
            set(&event, "patterns", strings(patterns));
            set(&event, "timestamp", js_sys::Date::new_0().to_iso_string());
            call_observer(f, &event.into());
        }
        if let Some(sink) = &self.notification_sink {
            for pattern in patterns {
                let params = Object::new();
                set(&params, "uri", stale_notification_uri(pattern));
                let message = Object::new();
                set(&message, "method", RESOURCE_UPDATED_METHOD);
                set(&message, "params", params);
                call_observer(sink, &message.into());
            }
        }
        let block = Object::new();
        set(&block, "type", "text");
        set(&block, "text", invalidation_tag(tool_name, patterns));
        let content: Array = std::iter::once(JsValue::from(block)).collect();
        let original = get_own(&result, "content");
        if Array::is_array(&original) {
            for item in original.unchecked_ref::<Array>().iter() {
                content.push(&item);
            }
        }
        let copy = copy_without(&result, &["content"]);
        define(&copy, "content", &content);
        copy.into()
    }
}
