//! `substituteCacheUris` on a JS argument object.

use js_sys::{Array, Object};
use wasm_bindgen::JsValue;

use crate::cache::{CacheEvent, ReferenceSource, ResultCache};
use crate::core::envelope::{resolution_envelope, Envelope, ReferenceFailure};
use crate::core::substitute::{substitute, ArgValue, Plan, Resolved, Substitution, URI_ARG_SUFFIX};
use crate::js_args::{
    array_items, copy_without, define, get_own, has_own, is_args_object, is_array, own_keys,
    well_formed,
};

/// What substitution did to a call's arguments.
pub enum ArgsOutcome {
    /// Nothing to resolve: the caller's object, untouched.
    Same(JsValue),
    /// A new object with references resolved (the caller's object is untouched).
    Replaced {
        /// The new arguments.
        args: Object,
        /// Where each resolved reference's data comes from.
        sources: Vec<ReferenceSource>,
    },
    /// Some reference could not be used; nothing was resolved.
    Blocked {
        /// For the model.
        envelope: Envelope,
        /// The failing references.
        uris: Vec<String>,
    },
}

/// Owned view of a `*_uri` argument.
enum UriArg {
    Text(String),
    TextList(Vec<String>),
}

/// A `*_uri` value as references: strings with a lone surrogate are none (as Rust strings they
/// would read U+FFFD and could select another key), so the argument is left as it is.
fn uri_arg(value: &JsValue) -> Option<UriArg> {
    if value.is_string() {
        return well_formed(value).map(UriArg::Text);
    }
    if !is_array(value) {
        return None;
    }
    let mut list = Vec::new();
    for item in array_items(value) {
        list.push(well_formed(&item)?);
    }
    Some(UriArg::TextList(list))
}

/// Resolves `*_uri` arguments (docs/PROTOCOL.md, *Substitution*) in one read transaction. `tool_name` only labels
/// events. A storage failure blocks the call with every reference listed as unresolved (and an
/// `error` event), rather than throwing into the host's dispatch loop.
pub async fn substitute_args(
    cache: &ResultCache,
    tool_name: &str,
    args: &JsValue,
    conv_scope: Option<&str>,
) -> ArgsOutcome {
    if !is_args_object(args) {
        return ArgsOutcome::Same(args.clone());
    }
    let keys = own_keys(args);
    let mut uri_args: Vec<(String, UriArg)> = Vec::new();
    for key in keys.iter().filter(|k| k.ends_with(URI_ARG_SUFFIX)) {
        if let Some(value) = uri_arg(&get_own(args, key)) {
            uri_args.push((key.clone(), value));
        }
    }
    let plan = Plan::new(
        uri_args.iter().map(|(k, v)| {
            let value = match v {
                UriArg::Text(s) => ArgValue::Text(s),
                UriArg::TextList(list) => {
                    ArgValue::TextList(list.iter().map(String::as_str).collect())
                }
            };
            (k.as_str(), value)
        }),
        |key| has_own(args, key),
    );
    if plan.is_empty() {
        return ArgsOutcome::Same(args.clone());
    }
    let lookup = cache.scoped(conv_scope);
    let outcome = match substitute(&plan, &lookup).await {
        Ok(outcome) => outcome,
        Err(_) => {
            // Already reported as an `error` event by the cache.
            let all_uris: Vec<String> = plan.unique_uris().into_iter().map(str::to_owned).collect();
            let mut failures: Vec<ReferenceFailure> = Vec::with_capacity(all_uris.len());
            for uri in &all_uris {
                failures.push(ReferenceFailure::Missing { uri: uri.clone() });
            }
            return ArgsOutcome::Blocked {
                envelope: resolution_envelope(&failures),
                uris: all_uris,
            };
        }
    };
    match outcome {
        Substitution::Unchanged => ArgsOutcome::Same(args.clone()),
        Substitution::Blocked { envelope, failures } => ArgsOutcome::Blocked {
            envelope,
            uris: failures.iter().map(|f| f.uri().to_owned()).collect(),
        },
        Substitution::Resolved(edits) => {
            let removed: Vec<&str> = edits.iter().map(|e| e.reference.uri_key.as_str()).collect();
            let copy = copy_without(args, &removed);
            for edit in &edits {
                let value = match &edit.value {
                    Resolved::One(v) => v.clone(),
                    Resolved::Many(values) => values.iter().collect::<Array>().into(),
                };
                define(&copy, &edit.reference.target_key, &value);
                if edit.reference.conflict {
                    cache.emit(CacheEvent::Conflict {
                        tool_name: tool_name.to_owned(),
                        key: edit.reference.target_key.clone(),
                        uris: edit.reference.uris.clone(),
                    });
                }
            }
            ArgsOutcome::Replaced {
                args: copy,
                sources: lookup.into_sources(),
            }
        }
    }
}
