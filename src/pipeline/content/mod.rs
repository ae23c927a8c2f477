//! An MCP `CallToolResult`, block by block (docs/CONTENT.md): invalidation signals applied and
//! kept in front; the data (`structuredContent`, else the first JSON text block) stored once and
//! shown in place of its text copy; big text previewed with a reference; big images, audio and
//! blobs stored whole and linked (`resource_link`); every other block kept, in order, with its
//! annotations, or (a link, a block of another kind) left out with the blocks after it once
//! `maxChars` cannot hold its JSON. `structuredContent` is passed on unchanged, or left out when the model was shown
//! less than the whole data — never rewritten, so it still satisfies the tool's `outputSchema`.
//!
//! In steps, a file each: `split.rs` takes out the invalidation signals and finds the data,
//! `plan.rs` decides every block, `issue.rs` issues the invalidations and writes at once, and
//! `build.rs` builds what the model sees; `cut.rs` only caps a result that is not final.

mod build;
mod cut;
mod issue;
mod plan;
mod split;

use js_sys::{JsString, Reflect, Symbol};
use wasm_bindgen::JsValue;

pub(super) use self::build::text_block;
use self::build::Builder;
use self::cut::cut_text_blocks;
use self::issue::issue;
use self::plan::{plan, DataView};
pub(super) use self::split::is_call_tool_result;
use self::split::{data_of, split_invalidations, string_members, Data};
use super::options::AfterOptions;
use crate::cache::ResultCache;
use crate::core::content::DERIVED_FROM_SYMBOL;
use crate::core::uri::{format_cache_uri, parse_cache_uri, sanitize_conv_id, TOKEN_LIKE};
use crate::js_args::get_own;

/// What the model sees of a `CallToolResult`, and the reference minted for its data. Every
/// write (the data, big blocks) is issued at once: one transaction.
pub(super) async fn shown_call_tool_result(
    cache: &ResultCache,
    tool_name: &str,
    result: &JsValue,
    options: &AfterOptions,
) -> (JsValue, Option<String>) {
    // A failed call, or one waiting for input (`input_required`), invalidates nothing and is
    // never stored; it is only capped.
    let is_error = get_own(result, "isError") == JsValue::TRUE;
    if is_error || get_own(result, "resultType").as_string().as_deref() == Some("input_required") {
        return (cut_text_blocks(result, options.max_chars, is_error), None);
    }
    let split = split_invalidations(result);
    let Data {
        structured,
        mirror,
        value: data,
        copy_at,
        json: data_json,
        bytes: data_bytes,
    } = data_of(result, &split.rest);
    // The result the cache answered itself (a read-back tool's): stored as part of its entry.
    let derived_from = Reflect::get(result, &Symbol::for_(DERIVED_FROM_SYMBOL))
        .ok()
        .and_then(|uri| uri.as_string());
    let derived_from = derived_from
        .as_deref()
        .and_then(parse_cache_uri)
        .map(|u| u.key);
    // Top-level string members of the structured data: a text block equal to one is its copy,
    // previewed with a reference into the data when the data is stored (the plan stores data
    // whose member cannot be shown whole, as it does data whose copy cannot).
    let stores = options.enabled && data.is_some();
    let mut data_stored = stores && data_bytes >= cache.threshold();
    let members: Vec<(String, JsValue)> = data.as_ref().map(string_members).unwrap_or_default();
    let member_of = |text: &JsString| -> Option<&str> {
        members
            .iter()
            .find(|(_, value)| value == AsRef::<JsValue>::as_ref(text))
            .map(|(key, _)| key.as_str())
    };

    // 1. Decide, block by block, measuring with a reference as long as the writes will answer.
    let uri_like = format_cache_uri(&sanitize_conv_id(&options.conv_id), TOKEN_LIKE);
    let mut data_view = DataView {
        value: data.as_ref(),
        json: data_json.as_ref(),
        bytes: data_bytes,
        uri: data_stored.then_some(uri_like.as_str()),
    };
    // Data under the threshold that its copy cannot show whole is stored all the same: the
    // summary the model is shown then names it (nothing is lost). One call site: `plan` is
    // inlined once.
    let plan = loop {
        let plan = plan(
            options,
            &split.rest,
            copy_at,
            &data_view,
            &uri_like,
            &member_of,
        );
        if data_stored || !stores || !plan.data_cut {
            break plan;
        }
        data_stored = true;
        data_view.uri = Some(uri_like.as_str());
    };

    // Nothing stored (`enabled: false`), and the model shown less of the data than all of it: the
    // host gets no `structuredContent` either (it would bring the data back whole).
    let structured = structured.filter(|_| data_stored || !plan.data_cut);

    // 2. Store the data and the big blocks, all at once.
    let issued = issue(
        cache,
        tool_name,
        options,
        &split.invalidations,
        data.as_ref(),
        data_bytes,
        data_stored.then_some(0),
        &plan.store,
        derived_from,
    )
    .await;
    let data_uri = issued.data_uri();

    // 3. Build what the model sees, within what is left of `maxChars` at each block.
    let mut out = Builder::new(tool_name, options.max_chars, &split.signals);
    let mut data_shown = false;
    let mut changed = data_uri.is_some();
    data_view.uri = data_uri.as_deref();
    out.steps(
        plan.steps,
        &data_view,
        &options.view,
        &issued,
        &plan.left,
        plan.budget,
        &mut changed,
        &mut data_shown,
    );
    // Stored data that no text shows: its visible JSON, or a link to it.
    if !data_shown {
        out.unseen_data(&data_view, &options.view, &mut changed);
    }
    changed |= out.reduced || issued.uris.iter().any(Option::is_some);
    if !changed {
        return (result.clone(), None);
    }
    let shown = out.shown_result(result, structured.as_ref(), mirror, &issued.uris);
    (shown.into(), data_uri)
}
