//! Exports of the host pipeline: `checkInlineListCap`, and the `ResultCache` methods
//! `substituteCacheUris`, `beforeToolCall`, `afterToolCall` (the package's JS entries offer them
//! as free functions on a default cache too).

use std::rc::Rc;

use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;

use super::convert::{
    conv_id_string, conv_scope, optional_non_negative, options_object, read, server_option, set,
    set_source, string_array, view_options,
};
use super::js_error::{promise, type_error};
use super::result_cache::JsResultCache;
use crate::cache::{ReferenceSource, ResultCache};
use crate::core::envelope::Envelope;
use crate::js_args::{check_readable, string_items};
use crate::pipeline::{self, AfterOptions, ArgsOutcome, BeforeOptions, BeforeOutcome, CapOptions};

/// An envelope as the model sees it: `{ error, _missing_uris?, _stale_uris?, fix_hint, _capped_arg? }`.
pub(crate) fn envelope_object(envelope: &Envelope) -> JsValue {
    let obj = Object::new();
    set(&obj, "error", envelope.error.as_str());
    if !envelope.missing_uris.is_empty() {
        set(&obj, "_missing_uris", string_array(&envelope.missing_uris));
    }
    if !envelope.stale_uris.is_empty() {
        set(&obj, "_stale_uris", string_array(&envelope.stale_uris));
    }
    set(&obj, "fix_hint", envelope.fix_hint.as_str());
    if let Some(arg) = &envelope.capped_arg {
        set(&obj, "_capped_arg", arg.as_str());
    }
    obj.into()
}

fn tool_name_arg(value: &JsValue) -> Result<String, JsValue> {
    value
        .as_string()
        .filter(|s| super::convert::is_name(s))
        .ok_or_else(|| type_error("toolName must be a non-empty string without U+001F"))
}

/// `maxChars`: a non-negative number, or `Infinity` to show results uncut.
fn max_chars_option(options: &JsValue) -> Result<u32, JsValue> {
    let value = read(options, "maxChars")?;
    if value.as_f64() == Some(f64::INFINITY) {
        return Ok(u32::MAX);
    }
    Ok(
        optional_non_negative(&value, "maxChars")?.map_or(AfterOptions::default().max_chars, |n| {
            n.min(f64::from(u32::MAX)) as u32
        }),
    )
}

fn cap_options(cap: &JsValue, arg_names: &JsValue) -> Result<CapOptions, JsValue> {
    let mut options = CapOptions::default();
    if let Some(n) = optional_non_negative(cap, "cap")? {
        options.cap = n as usize;
    }
    if !arg_names.is_undefined() && !arg_names.is_null() {
        let names = string_items(arg_names)
            .ok_or_else(|| type_error("argNames must be an array of strings"))?;
        options.arg_names = names;
    }
    Ok(options)
}

/// `[{uri, sourceToolName, sourceServer?}]`: where the resolved references' data comes from.
fn sources_array(sources: &[ReferenceSource]) -> Array {
    sources
        .iter()
        .map(|s| {
            let obj = Object::new();
            set(&obj, "uri", s.uri.as_str());
            set_source(&obj, &s.source);
            JsValue::from(obj)
        })
        .collect()
}

/// `{ok: true, args, sources?}` / `{ok: false, envelope}`.
fn substitution_result(outcome: ArgsOutcome) -> JsValue {
    let obj = Object::new();
    match outcome {
        ArgsOutcome::Same(args) => {
            set(&obj, "ok", true);
            set(&obj, "args", args);
        }
        ArgsOutcome::Replaced { args, sources } => {
            set(&obj, "ok", true);
            set(&obj, "args", args);
            set(&obj, "sources", sources_array(&sources));
        }
        ArgsOutcome::Blocked { envelope, .. } => {
            set(&obj, "ok", false);
            set(&obj, "envelope", envelope_object(&envelope));
        }
    }
    obj.into()
}

pub(crate) fn substitute_cache_uris(
    cache: Rc<ResultCache>,
    args: JsValue,
    options: JsValue,
) -> Promise {
    promise(async move {
        check_readable(&args, "args")?;
        let scope = conv_scope(&options)?;
        let outcome = pipeline::substitute_args(&cache, "<unknown>", &args, scope.as_deref()).await;
        Ok(substitution_result(outcome))
    })
}

pub(crate) fn before_tool_call(
    cache: Rc<ResultCache>,
    tool_name: JsValue,
    args: JsValue,
    options: JsValue,
) -> Promise {
    promise(async move {
        let tool_name = tool_name_arg(&tool_name)?;
        check_readable(&args, "args")?;
        let opts =
            options_object(&options, "beforeToolCall options")?.unwrap_or(JsValue::UNDEFINED);
        let before = BeforeOptions {
            enabled: crate::js_args::bool_option(&opts, "enabled", true)?,
            conv_id: conv_id_string(&read(&opts, "convId")?)?,
            cap: cap_options(&read(&opts, "cap")?, &read(&opts, "cappedArgs")?)?,
            max_chars: max_chars_option(&opts)?,
            server: server_option(&opts)?,
        };
        let obj = Object::new();
        match pipeline::before_tool_call(&cache, &tool_name, &args, &before).await {
            BeforeOutcome::Dispatch { args, sources } => {
                set(&obj, "dispatch", true);
                set(&obj, "args", args);
                if !sources.is_empty() {
                    set(&obj, "sources", sources_array(&sources));
                }
            }
            BeforeOutcome::Reused(visible) => {
                set(&obj, "dispatch", false);
                set(&obj, "reused", visible);
            }
            BeforeOutcome::Block {
                envelope,
                signature,
            } => {
                set(&obj, "dispatch", false);
                set(&obj, "envelope", envelope_object(&envelope));
                set(&obj, "signature", signature);
            }
        }
        Ok(obj.into())
    })
}

pub(crate) fn after_tool_call(
    cache: Rc<ResultCache>,
    tool_name: JsValue,
    result: JsValue,
    options: JsValue,
) -> Promise {
    promise(async move {
        let tool_name = tool_name_arg(&tool_name)?;
        check_readable(&result, "result")?;
        let opts = options_object(&options, "afterToolCall options")?.unwrap_or(JsValue::UNDEFINED);
        let args = read(&opts, "args")?;
        let after = AfterOptions {
            enabled: crate::js_args::bool_option(&opts, "enabled", true)?,
            conv_id: conv_id_string(&read(&opts, "convId")?)?,
            max_chars: max_chars_option(&opts)?,
            media_max_bytes: optional_non_negative(
                &read(&opts, "mediaMaxBytes")?,
                "mediaMaxBytes",
            )?
            .map_or(AfterOptions::default().media_max_bytes, |n| n as u64),
            server: server_option(&opts)?,
            args_key: (!args.is_undefined())
                .then(|| crate::js_args::canonical_json(&args))
                .flatten(),
            view: view_options(&opts, cache.view())?,
        };
        Ok(pipeline::after_tool_call(&cache, &tool_name, &result, &after).await)
    })
}

/// `checkInlineListCap(toolName, args, cap?, argNames?)`: the envelope blocking a call whose
/// capped argument (default `["data"]`) holds an array longer than `cap` (default 20) with no
/// `<arg>_uri` beside it; `null` otherwise (non-object args, strings, short arrays).
#[wasm_bindgen(js_name = checkInlineListCap, unchecked_return_type = "ToolEnvelope | null")]
pub fn check_inline_list_cap(
    #[wasm_bindgen(js_name = toolName, unchecked_param_type = "string")] tool_name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number | null")] cap: Option<JsValue>,
    #[wasm_bindgen(js_name = argNames, unchecked_optional_param_type = "string[]")]
    arg_names: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let tool_name = tool_name_arg(&tool_name)?;
    check_readable(&args, "args")?;
    let options = cap_options(
        &cap.filter(|c| !c.is_null()).unwrap_or(JsValue::UNDEFINED),
        &arg_names.unwrap_or(JsValue::UNDEFINED),
    )?;
    Ok(pipeline::check_inline_list_cap(&tool_name, &args, &options)
        .map_or(JsValue::NULL, |(_, _, envelope)| envelope_object(&envelope)))
}

#[wasm_bindgen(js_class = ResultCache)]
impl JsResultCache {
    /// Resolves top-level `X_uri` arguments holding `mcp+cache://` references (or arrays of
    /// them) into `X`, removing `X_uri`; all-or-nothing. Resolves `{ok: true, args}` — the very
    /// same object when nothing changed, otherwise a copy (the caller's object is never mutated)
    /// with `sources`, where each resolved reference's data comes from — or
    /// `{ok: false, envelope}` listing every missing or stale reference.
    #[wasm_bindgen(js_name = substituteCacheUris, unchecked_return_type = "Promise<SubstitutionResult>")]
    pub fn substitute_cache_uris(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ConversationScope")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        substitute_cache_uris(self.shared(), args, options.unwrap_or(JsValue::UNDEFINED))
    }

    /// Before dispatching a tool call: the inline-list cap, then substitution. Resolves
    /// `{dispatch: true, args}` (with `sources`, where each resolved reference's data comes
    /// from, when references were resolved: what a flow policy checks before dispatch) or
    /// `{dispatch: false, envelope, signature}` (answer the model with `envelope`; never
    /// dispatch). `enabled: false` passes `args` through untouched.
    #[wasm_bindgen(js_name = beforeToolCall, unchecked_return_type = "Promise<BeforeToolCallResult>")]
    pub fn before_tool_call(
        &self,
        #[wasm_bindgen(js_name = toolName, unchecked_param_type = "string")] tool_name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BeforeToolCallOptions")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        before_tool_call(
            self.shared(),
            tool_name,
            args,
            options.unwrap_or(JsValue::UNDEFINED),
        )
    }

    /// After a tool call: caches the original payload (a shaped object/array, or the
    /// `structuredContent` / JSON text of an MCP `CallToolResult`) and resolves what the model
    /// should see — `{...payload, _cache_uri}`, or above `maxChars` a summary with `_truncated`,
    /// `_cache_uri`, `_cache_shape` and `_truncation_hint`. A plain string is the text of a
    /// one-block result (a big one stored and previewed) and answers a string. Small results pass
    /// through unchanged; failed (`isError`) ones, and all with `enabled: false`, are never
    /// stored, only cut to `maxChars` with a visible marker. Never rejects because of
    /// storage: failures become `error` events. The result is read (and copied into storage)
    /// when the write takes effect: leave it unchanged until the promise settles.
    #[wasm_bindgen(js_name = afterToolCall, unchecked_return_type = "Promise<unknown>")]
    pub fn after_tool_call(
        &self,
        #[wasm_bindgen(js_name = toolName, unchecked_param_type = "string")] tool_name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] result: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "AfterToolCallOptions")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        after_tool_call(
            self.shared(),
            tool_name,
            result,
            options.unwrap_or(JsValue::UNDEFINED),
        )
    }
}
