//! Issuing a result's invalidations and writes (its data, its blocks too big to show) at once.

use wasm_bindgen::JsValue;

use crate::cache::join::join_all;
use crate::cache::{CacheRequest, ResultCache};
use crate::pipeline::options::AfterOptions;
use crate::state_sync::invalidation::Invalidation;

/// What `afterToolCall` applies or stores for a result.
enum Job<'a> {
    /// One of its invalidation signals.
    Invalidate(&'a Invalidation),
    /// Its data, or a block too big to show.
    Store(CacheRequest<'a>),
}

/// What every job answered, in order: `None` for an invalidation and for a write that stored
/// nothing, the minted reference for the others.
pub(super) struct Issued {
    pub(super) uris: Vec<Option<String>>,
    /// Where the data's write is (when it was issued).
    data_at: usize,
    /// Where the blocks' writes begin.
    blocks_at: usize,
}

impl Issued {
    /// The reference minted for the data.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    pub(super) fn data_uri(&self) -> Option<String> {
        self.uris[self.data_at..self.blocks_at]
            .first()
            .cloned()
            .flatten()
    }

    /// The reference minted for the `i`th block to store.
    // One caller: inlined there, as before the split (the .wasm stays the same).
    #[inline(always)]
    pub(super) fn block_uri(&self, i: usize) -> Option<&String> {
        self.uris.get(self.blocks_at + i).and_then(Option::as_ref)
    }
}

/// Stores the data and the big blocks, all at once.
/// The result's invalidations first, then its writes, all issued together: each takes its
/// place in call order when first polled, so nothing called after this result comes between
/// them, and the writes share one transaction.
/// `data_threshold`: the data's threshold (`None`: the cache's); `derived_from`: the entry the
/// result was read from (what is stored of it is derived from that entry).
#[allow(clippy::too_many_arguments)]
pub(super) async fn issue(
    cache: &ResultCache,
    tool_name: &str,
    options: &AfterOptions,
    invalidations: &[Invalidation],
    data: Option<&JsValue>,
    data_bytes: u64,
    data_threshold: Option<u64>,
    blocks: &[JsValue],
    derived_from: Option<&str>,
) -> Issued {
    let mut requests: Vec<Job> = Vec::new();
    if options.enabled {
        for invalidation in invalidations {
            requests.push(Job::Invalidate(invalidation));
        }
    }
    let data_at = requests.len();
    if let (Some(data), true) = (data, options.enabled) {
        requests.push(Job::Store(CacheRequest {
            payload: data,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            threshold: data_threshold,
            known_size: Some(data_bytes),
            derived_from,
        }));
    }
    let blocks_at = requests.len();
    for block in blocks {
        requests.push(Job::Store(CacheRequest {
            payload: block,
            conv_id: &options.conv_id,
            source_tool_name: tool_name,
            // Too big to show: stored whatever its size.
            threshold: Some(0),
            known_size: None,
            derived_from,
        }));
    }
    let server = options.server.as_deref();
    let uris = join_all(requests.into_iter().map(|job| async move {
        match job {
            // Failures are reported as `error` events by the cache; the result still flows.
            Job::Invalidate(i) => {
                let _ = cache.invalidate(&i.domains, &i.cause, server).await;
                None
            }
            Job::Store(request) => cache.cache_tool_result(request).await.ok().flatten(),
        }
    }))
    .await;
    Issued {
        uris,
        data_at,
        blocks_at,
    }
}
