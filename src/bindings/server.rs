//! The server's half of the JavaScript API (`mcp-result-cache/server`): the `StateSync` class
//! that decorates an MCP server's tools and results, `detectOverlaps`, `validatePattern` and
//! `listCacheMeta`. `matchGlob` comes from `state_sync.rs`, shared with the host entry.
//!
//! The same boundary rules as `state_sync.rs`: every argument arrives as a `JsValue`, every read
//! of a caller's object goes through a catching path, and names with lone surrogates match no
//! policy.

use std::cell::RefCell;

use js_sys::{Array, Function, JsString, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{set, string_array};
use super::js_error::{plain_error, type_error};
use crate::js_args::{
    array_check, copy_own, define, for_each_item, optional_function, options_object, own, read,
    separator_option, text, well_formed, Text,
};
use crate::state_sync::decorate::{
    decorate_description, DEFAULT_STALE_URI_PREFIX, RESOURCE_UPDATED_METHOD,
};
use crate::state_sync::glob::{self, MAX_NAME_LEN, MAX_PATTERN_LEN};
use crate::state_sync::list_cache::{self, ListScope};
use crate::state_sync::policy::{self, PolicyEngine, ResolvedPolicy, Rule, SyncPolicy};
use crate::state_sync::server::{
    valid_stale_prefix, ResultInvalidation, StateSync, INVALIDATION_BLOCK_TYPE,
    MAX_STALE_PREFIX_LEN, STALE_PREFIX_MESSAGE,
};

/// How a non-string option value appears in an error message: `(a number)`, `(a object)`, …
/// (its `typeof`; no user code runs, unlike `String(value)`).
fn non_string(value: &JsValue) -> String {
    let kind = value.js_typeof().as_string().unwrap_or_default();
    crate::core::text::concat(&["(a ", &kind, ")"])
}

/// `validatePattern(pattern, { separator }?)`: throws an `Error` whose message says
/// `must be a non-empty string`, `longer than 1024 characters` or `invalid segment` (a
/// `TypeError` when `pattern` is not a string); returns nothing for a valid pattern.
#[wasm_bindgen(js_name = validatePattern)]
pub fn validate_pattern(
    #[wasm_bindgen(unchecked_param_type = "unknown")] pattern: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<(), JsValue> {
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    if !pattern.is_string() {
        return Err(type_error("pattern must be a non-empty string"));
    }
    if pattern.unchecked_ref::<JsString>().length() as usize > MAX_PATTERN_LEN {
        return Err(plain_error(&glob::PatternError::TooLong.message()));
    }
    // A lone surrogate arrives as U+FFFD, which no valid segment contains: still invalid.
    let pattern = pattern.as_string().unwrap_or_default();
    glob::validate_pattern(&pattern, &separator).map_err(|e| plain_error(&e.message()))
}

/// One policy as read from JS, and whether its `match` survived the trip intact (no lone
/// surrogate).
struct ReadPolicy {
    policy: SyncPolicy,
    well_formed: bool,
}

/// Reads one JS policy object, with the validation messages of MCP Fusion.
fn sync_policy(index: usize, value: &JsValue) -> Result<ReadPolicy, JsValue> {
    let error = |e: policy::PolicyError| plain_error(&e.0);
    let pattern = read(value, "match")?;
    let match_pattern = pattern
        .as_string()
        .ok_or_else(|| error(policy::PolicyError::match_not_a_string(index)))?;
    let cache_control = match read(value, "cacheControl")? {
        v if v.is_undefined() => None,
        v => Some(v.as_string().unwrap_or_else(|| non_string(&v))),
    };
    let invalidates = read(value, "invalidates")?;
    let invalidates = if invalidates.is_undefined() {
        None
    } else if array_check(&invalidates)? {
        let mut list = Vec::new();
        for_each_item(&invalidates, |_, p| {
            list.push(p.as_string().unwrap_or_default());
            Ok(())
        })?;
        Some(list)
    } else {
        return Err(error(policy::PolicyError::not_an_array(index)));
    };
    Ok(ReadPolicy {
        well_formed: well_formed(&pattern).is_some(),
        policy: SyncPolicy {
            match_pattern,
            cache_control,
            invalidates,
        },
    })
}

fn sync_policies(value: &JsValue) -> Result<Vec<ReadPolicy>, JsValue> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    if !array_check(value)? {
        return Err(type_error("StateSync policies must be an array."));
    }
    let mut policies = Vec::new();
    for_each_item(value, |i, p| {
        policies.push(sync_policy(i as usize, &p)?);
        Ok(())
    })?;
    Ok(policies)
}

fn overlap_object(o: &policy::Overlap) -> JsValue {
    let obj = Object::new();
    set(&obj, "message", o.message());
    set(&obj, "shadowingIndex", o.earlier as u32);
    set(&obj, "shadowedIndex", o.later as u32);
    set(&obj, "earlier", o.earlier as u32);
    set(&obj, "later", o.later as u32);
    set(&obj, "earlierMatch", o.earlier_match.as_str());
    set(&obj, "laterMatch", o.later_match.as_str());
    obj.into()
}

/// `detectOverlaps(policies, { separator }?)`: every later policy that can never fire because an
/// earlier one matches all of its names, as MCP Fusion's `{ message, shadowingIndex,
/// shadowedIndex }` plus `{ earlier, later, earlierMatch, laterMatch }`. Exact: `billing.*.**`
/// shadows `billing.**.refund` (each `**` is zero or more segments, and `*` exactly one). A
/// `match` with a lone surrogate shadows nothing and is shadowed by nothing; so does a pair
/// whose check needs more than 4 194 304 segment comparisons (patterns with many `**` and
/// hundreds of segments; never a false report).
#[wasm_bindgen(js_name = detectOverlaps, unchecked_return_type = "PolicyOverlap[]")]
pub fn detect_overlaps(
    #[wasm_bindgen(unchecked_param_type = "SyncPolicy[]")] policies: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GlobOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let separator = separator_option(&options.unwrap_or(JsValue::UNDEFINED))?;
    if !array_check(&policies)? {
        return Err(type_error("detectOverlaps expects an array of policies"));
    }
    let policies = sync_policies(&policies)?;
    // Compare only the intact patterns, then map their positions back to policy indexes.
    let (indexes, patterns): (Vec<usize>, Vec<&str>) = policies
        .iter()
        .enumerate()
        .filter(|(_, p)| p.well_formed)
        .map(|(i, p)| (i, p.policy.match_pattern.as_str()))
        .unzip();
    let out = Array::new();
    for mut o in policy::detect_overlaps(&patterns, &separator) {
        o.earlier = indexes[o.earlier];
        o.later = indexes[o.later];
        out.push(&overlap_object(&o));
    }
    Ok(out.into())
}

/// `listCacheMeta({ ttlMs, scope })`: the SEP-2549 fields a server adds to a list result,
/// `{ ttlMs, cacheScope }`. `ttlMs` is always emitted (servers must send it), `0` included:
/// absent, negative or non-finite values become `0`, fractions are floored. `cacheScope` is
/// always emitted too, `"private"` unless `scope` is `"public"`: SEP-2549 reads an absent
/// `cacheScope` as `public`, which would let a shared cache serve one user's list to another.
/// Options that are not an object, `undefined` or `null` (a bare `60000`, say), a `ttlMs` that
/// is present but not a number, or a `scope` other than `"public"`/`"private"`, are a
/// `TypeError`.
#[wasm_bindgen(js_name = listCacheMeta, unchecked_return_type = "ListCacheMeta")]
pub fn list_cache_meta(
    #[wasm_bindgen(unchecked_param_type = "ListCacheMetaOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = options_object(&options, "listCacheMeta options")?.unwrap_or(JsValue::UNDEFINED);
    let ttl = read(&options, "ttlMs")?;
    if !ttl.is_undefined() && ttl.as_f64().is_none() {
        return Err(type_error("ttlMs must be a number"));
    }
    let scope = match read(&options, "scope")? {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(
            v.as_string()
                .and_then(|s| ListScope::from_wire(&s))
                .ok_or_else(|| type_error("scope must be \"public\" or \"private\""))?,
        ),
    };
    let meta = list_cache::list_cache_meta(ttl.as_f64().unwrap_or(0.0), scope);
    let obj = Object::new();
    set(&obj, "ttlMs", meta.ttl_ms);
    set(&obj, "cacheScope", meta.scope.as_str());
    Ok(obj.into())
}

thread_local! {
    /// Swallows rejections of async observer callbacks (no `new Function`: CSP-safe).
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Calls an observer; a sync throw is swallowed, a returned promise's rejection too.
fn call_observer(f: &Function, arg: &JsValue) {
    if let Ok(ret) = f.call1(&JsValue::NULL, arg) {
        if read(&ret, "then").is_ok_and(|then| then.is_function()) {
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
    sync: StateSync,
    on_invalidation: Option<Function>,
    notification_sink: Option<Function>,
    /// One frozen answer per rule (by [`PolicyEngine::slot`]), made on first use and shared by
    /// every name the rule applies to.
    answers: RefCell<Vec<Option<JsValue>>>,
}

fn resolved_object(resolved: &ResolvedPolicy) -> JsValue {
    let obj = Object::new();
    if let Some(d) = resolved.cache_control {
        set(&obj, "cacheControl", d.as_str());
    }
    if !resolved.invalidates.is_empty() {
        let list = string_array(&resolved.invalidates);
        Object::freeze(&list);
        set(&obj, "invalidates", list);
    }
    Object::freeze(&obj).into()
}

fn stale_prefix_option(config: &JsValue) -> Result<String, JsValue> {
    match read(config, "staleUriPrefix")? {
        v if v.is_undefined() => Ok(DEFAULT_STALE_URI_PREFIX.to_owned()),
        v => match text(&v, MAX_STALE_PREFIX_LEN) {
            Some(Text::Usable(s)) if valid_stale_prefix(&s) => Ok(s),
            _ => Err(type_error(STALE_PREFIX_MESSAGE)),
        },
    }
}

#[wasm_bindgen(js_class = StateSync)]
impl JsStateSync {
    /// Validates every policy eagerly: throws an `Error` naming the policy, with
    /// `must be a non-empty string`, `invalid segment`, `invalid cacheControl` or
    /// `must be an array` in its message; a `TypeError` for options of the wrong type.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "StateSyncConfig")] config: JsValue,
    ) -> Result<JsStateSync, JsValue> {
        let config = options_object(&config, "StateSync config")?.unwrap_or(JsValue::UNDEFINED);
        let separator = separator_option(&config)?;
        let mut policies: Vec<SyncPolicy> = Vec::new();
        for checked in sync_policies(&read(&config, "policies")?)? {
            policies.push(checked.policy);
        }
        let defaults = options_object(&read(&config, "defaults")?, "StateSync defaults")?
            .unwrap_or(JsValue::UNDEFINED);
        let default_directive = match read(&defaults, "cacheControl")? {
            v if v.is_undefined() => None,
            v => Some(v.as_string().unwrap_or_else(|| non_string(&v))),
        };
        let engine = PolicyEngine::new(&policies, default_directive.as_deref(), &separator)
            .map_err(|e| plain_error(&e.0))?;
        let answers = vec![None; engine.len() + 1];
        Ok(Self {
            on_invalidation: optional_function(
                &read(&config, "onInvalidation")?,
                "onInvalidation",
            )?,
            notification_sink: optional_function(
                &read(&config, "notificationSink")?,
                "notificationSink",
            )?,
            sync: StateSync::new(engine, stale_prefix_option(&config)?),
            answers: RefCell::new(answers),
        })
    }

    /// The frozen `{ cacheControl?, invalidates? }` that applies to a tool (first matching
    /// policy; defaults fill in), or `null`. Every name one policy matches gets the very same
    /// object (and every unmatched name the defaults' object). A name over 4096 bytes, or
    /// with a lone surrogate, is matched by no policy.
    #[wasm_bindgen(unchecked_return_type = "ResolvedPolicy | null")]
    pub fn resolve(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<JsValue, JsValue> {
        let name = text(&name, MAX_NAME_LEN)
            .ok_or_else(|| type_error("resolve: name must be a string"))?;
        Ok(self.answer(self.sync.rule(name.usable())))
    }

    /// Appends (or replaces) `[Cache-Control: …]` in each tool's description. Tools without a
    /// directive come back as the same objects; others as shallow copies.
    #[wasm_bindgen(js_name = decorateTools, unchecked_return_type = "McpTool[]")]
    pub fn decorate_tools(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly McpTool[]")] tools: JsValue,
    ) -> Result<JsValue, JsValue> {
        if !tools.is_object() || !array_check(&tools)? {
            return Err(type_error("decorateTools expects an array of tools"));
        }
        let out = Array::new();
        for_each_item(&tools, |_, tool| {
            out.push(&self.decorate_tool(tool)?);
            Ok(())
        })?;
        Ok(out.into())
    }

    /// After a successful call (`isError !== true`) of a tool whose policy invalidates
    /// patterns: returns a copy of `result` with `<cache_invalidation cause=… domains=… />` at
    /// `content[0]`, calls `onInvalidation({causedBy, patterns, timestamp})` and sends one
    /// `notifications/resources/updated` per pattern to `notificationSink`, its `uri` being
    /// `staleUriPrefix` + pattern (throws and rejections of either are swallowed). Otherwise
    /// returns `result` itself (also when it is not an object, or has no `content` array: a
    /// task answer `{ task }`, whose mutation has not run yet; decorate its final result).
    #[wasm_bindgen(js_name = decorateResult, unchecked_return_type = "CallToolResult")]
    pub fn decorate_result(
        &self,
        #[wasm_bindgen(js_name = toolName, unchecked_param_type = "string")] tool_name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CallToolResult")] result: JsValue,
    ) -> Result<JsValue, JsValue> {
        let name = text(&tool_name, MAX_NAME_LEN)
            .ok_or_else(|| type_error("decorateResult: toolName must be a string"))?;
        if !result.is_object() || array_check(&result)? {
            return Ok(result);
        }
        let is_error = own(&result, "isError")? == JsValue::TRUE;
        let Some(invalidation) = self.sync.result_invalidation(name.usable(), is_error) else {
            return Ok(result);
        };
        // No `content` array: not a finished call's result (a task answer `{ task }`: the call
        // goes on, nothing has changed yet; its final result, `tasks/result`, is decorated).
        let original = own(&result, "content")?;
        if !array_check(&original)? {
            return Ok(result);
        }
        let content = Array::new();
        let block = Object::new();
        set(&block, "type", INVALIDATION_BLOCK_TYPE);
        set(&block, "text", invalidation.tag.as_str());
        content.push(&block);
        for_each_item(&original, |_, item| {
            content.push(&item);
            Ok(())
        })?;
        let copy = copy_own(&result, Some("content"))?;
        define(&copy, "content", &content);
        if let Some(cause) = name.usable() {
            self.notify(cause, &invalidation);
        }
        Ok(copy.into())
    }
}

/// Helpers of the exported methods (not exported themselves).
impl JsStateSync {
    /// The shared frozen answer of a rule, or `null` when it applies nothing.
    fn answer(&self, rule: Rule) -> JsValue {
        let engine = self.sync.engine();
        let Some(resolved) = engine.resolution(rule) else {
            return JsValue::NULL;
        };
        let slot = engine.slot(rule);
        let mut answers = self.answers.borrow_mut();
        answers[slot]
            .get_or_insert_with(|| resolved_object(resolved))
            .clone()
    }

    fn decorate_tool(&self, tool: JsValue) -> Result<JsValue, JsValue> {
        let Some(name) = text(&read(&tool, "name")?, MAX_NAME_LEN) else {
            return Ok(tool); // no name: not a tool we can decorate
        };
        let Some(directive) = self.sync.directive(name.usable()) else {
            return Ok(tool);
        };
        let description = read(&tool, "description")?.as_string().unwrap_or_default();
        let decorated = decorate_description(&description, directive);
        let copy = copy_own(&tool, None)?;
        define(&copy, "description", &decorated.into());
        Ok(copy.into())
    }

    /// Tells the observers about an invalidation (after the result is built, so an observer
    /// cannot change what it sees).
    fn notify(&self, tool_name: &str, invalidation: &ResultInvalidation) {
        if let Some(f) = &self.on_invalidation {
            let event = Object::new();
            set(&event, "causedBy", tool_name);
            set(&event, "patterns", string_array(invalidation.patterns));
            set(&event, "timestamp", js_sys::Date::new_0().to_iso_string());
            call_observer(f, &event.into());
        }
        if let Some(sink) = &self.notification_sink {
            for uri in invalidation.stale_uris() {
                let params = Object::new();
                set(&params, "uri", uri.as_str());
                let message = Object::new();
                set(&message, "method", RESOURCE_UPDATED_METHOD);
                set(&message, "params", params);
                call_observer(sink, &message.into());
            }
        }
    }
}
