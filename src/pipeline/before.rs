//! `beforeToolCall`: the inline-list cap, reuse of immutable results, then substitution.

use wasm_bindgen::JsValue;

use super::options::{BeforeOptions, CapOptions};
use super::substitution::{substitute_args, ArgsOutcome};
use super::visible::visible_payload;
use crate::cache::payload::json_of;
use crate::cache::payload::utf8_len;
use crate::cache::{CacheEvent, ReferenceSource, ResultCache};
use crate::core::cap::{self, CappedArg};
use crate::core::envelope::{cache_miss_signature, inline_cap_signature, Envelope};
use crate::core::record::LookupOutcome;
use crate::core::source::source_name;
use crate::core::substitute::URI_ARG_SUFFIX;
use crate::core::text::find;
use crate::core::uri::CACHE_URI_SCHEME;
use crate::js_args::{array_length, canonical_json, get_own, is_args_object, is_array};

/// What `beforeToolCall` decided.
pub enum BeforeOutcome {
    /// Dispatch with these arguments (the caller's own object when nothing changed).
    Dispatch {
        /// The arguments, references resolved.
        args: JsValue,
        /// Where each resolved reference's data comes from (a flow policy checks them).
        sources: Vec<ReferenceSource>,
    },
    /// Do not dispatch: an identical call to an `immutable` tool already has this LLM-visible
    /// result (`reuseImmutable`).
    Reused(JsValue),
    /// Do not dispatch; answer the model with the envelope.
    Block {
        /// For the model.
        envelope: Envelope,
        /// `"<tool>|cache-miss|[…]"` or `"<tool>|inline-cap|<arg>"`.
        signature: String,
    },
}

/// `checkInlineListCap`: the envelope for the first capped argument over the cap, if any, as
/// `(arg, count, envelope)`.
pub fn check_inline_list_cap(
    tool_name: &str,
    args: &JsValue,
    options: &CapOptions,
) -> Option<(String, usize, Envelope)> {
    if !is_args_object(args) {
        return None;
    }
    let capped = options.arg_names.iter().map(|name| {
        let value = get_own(args, name);
        let uri_key = crate::core::text::concat(&[name, URI_ARG_SUFFIX]);
        let uri = get_own(args, &uri_key);
        CappedArg {
            name: name.as_str(),
            array_len: is_array(&value).then(|| array_length(&value) as usize),
            // A sibling the model left empty (`""`, `false`, `0`, `null`) lifts no cap: the
            // array would go out as typed.
            has_uri_sibling: uri.is_truthy(),
        }
    });
    cap::check_inline_list_cap(tool_name, capped, options.cap)
        .map(|(arg, count, envelope)| (arg.to_owned(), count, envelope))
}

/// Runs the inline cap, then substitution. Disabled → the arguments untouched.
pub async fn before_tool_call(
    cache: &ResultCache,
    tool_name: &str,
    args: &JsValue,
    options: &BeforeOptions,
) -> BeforeOutcome {
    if !options.enabled {
        return BeforeOutcome::Dispatch {
            args: args.clone(),
            sources: Vec::new(),
        };
    }
    if let Some((arg, count, envelope)) = check_inline_list_cap(tool_name, args, &options.cap) {
        cache.emit(CacheEvent::Cap {
            tool_name: tool_name.to_owned(),
            arg: arg.clone(),
            count,
            cap: options.cap.cap,
        });
        return BeforeOutcome::Block {
            envelope,
            signature: inline_cap_signature(tool_name, &arg),
        };
    }
    // Reuse is per source: the same tool name on two servers is two tools.
    let source = source_name(options.server.as_deref(), tool_name);
    let conv = options.conv_id.as_str();
    // A call carrying a reference is never reused: its data may have gone stale or been removed
    // since, which blocks the call (substitution, below).
    let args_key = cache
        .reuse_immutable()
        .then(|| canonical_json(args))
        .flatten()
        .filter(|key| find(key, CACHE_URI_SCHEME).is_none());
    if let Some(key) = &args_key {
        if let Some(reused) = reused_result(cache, &source, conv, key, options.max_chars).await {
            return BeforeOutcome::Reused(reused);
        }
    }
    let outcome = substitute_args(cache, tool_name, args, Some(conv)).await;
    if let (Some(key), ArgsOutcome::Same(_) | ArgsOutcome::Replaced { .. }) = (args_key, &outcome) {
        cache.note_dispatch(conv, &source, key);
    }
    match outcome {
        ArgsOutcome::Same(args) => BeforeOutcome::Dispatch {
            args,
            sources: Vec::new(),
        },
        ArgsOutcome::Replaced { args, sources } => BeforeOutcome::Dispatch {
            args: args.into(),
            sources,
        },
        ArgsOutcome::Blocked { envelope, uris } => BeforeOutcome::Block {
            signature: cache_miss_signature(tool_name, &uris),
            envelope,
        },
    }
}

/// The LLM-visible result of an identical earlier call, when it is still fresh.
async fn reused_result(
    cache: &ResultCache,
    tool_name: &str,
    conv: &str,
    args_key: &str,
    max_chars: u32,
) -> Option<JsValue> {
    let uri = cache.reusable_uri(conv, tool_name, args_key)?;
    let LookupOutcome::Hit(payload) = cache.lookup(&uri, Some(conv)).await.ok()? else {
        return None;
    };
    let json = json_of(&payload)?;
    cache.emit(CacheEvent::Reuse {
        tool_name: tool_name.to_owned(),
        uri: uri.clone(),
    });
    Some(
        visible_payload(
            &payload,
            &uri,
            &json,
            utf8_len(&json),
            max_chars,
            cache.view(),
        )
        .0,
    )
}
