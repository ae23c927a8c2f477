//! SEP-2549 caching hints for MCP list results, and a client-side cache that honours them.
//!
//! Since the 2026-07-28 MCP revision, results of `tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list` (and `resources/read`) carry two caching hints:
//!
//! * `ttlMs`: how many milliseconds the client MAY consider the result fresh (like HTTP
//!   `Cache-Control: max-age`). `0` means immediately stale; an absent value is treated as `0`.
//! * `cacheScope`: `"public"` (no user-specific data: may be served across authorization
//!   contexts) or `"private"` (may be reused only within the same authorization context).
//!   SEP-2549 reads an absent `cacheScope` as `"public"`; this cache deliberately reads it as
//!   `"private"` (never serving a result across contexts that its server did not mark public),
//!   and [`list_cache_meta`] always states it, `"private"` unless told `"public"`.
//!
//! A cached response is identified by the request method plus the request parameters that affect
//! the result (`cursor` for paginated lists, `uri` for `resources/read`); a response is never
//! served for a request whose method or parameters differ. TTLs complement, not replace, the
//! `notifications/*/list_changed` and `notifications/resources/updated` notifications, which
//! [`ListCache::handle_notification`] turns into invalidations.
//!
//! The cache never reads a clock: every time-dependent method takes `now_ms` (milliseconds on any
//! monotonic-enough clock, the same one for `put` and `get`). The result type `R` is opaque to
//! the cache (the JS layer stores a JS value).

mod key;
mod meta;
mod request;

pub use self::meta::{list_cache_meta, ListCacheMeta, ListScope};
pub use self::request::{ListEntry, ListHit, ListParams};

use self::key::{Entry, Key, Owner};
use self::meta::sanitize_ttl;
use crate::core::map::Map;

/// A client-side cache of MCP list results keyed by method, result-affecting parameters and
/// authorization context, honouring SEP-2549 `ttlMs` / `cacheScope`.
///
/// * `Public` entries are stored once, without the authorization context, and served to every
///   context.
/// * `Private` entries are stored under the authorization context they were fetched with
///   (`None` is a context of its own) and never served to any other.
/// * The newest answer wins, fresh or not: an older one is never served in its place. A public
///   answer is every context's answer, so it replaces every private entry for the same request;
///   a caller's private entry is therefore newer than the public one, and is what the caller
///   gets (other contexts keep getting the public one).
/// * At most `max_entries` entries ([`DEFAULT_MAX_LIST_ENTRIES`] unless told): storing a new
///   one in a full cache first drops the entry stored longest ago, fresh or not (by the order
///   of the `put` calls, whatever a clock says: a private entry is always stored after the
///   public one it hides, so dropping never brings an older answer back).
pub struct ListCache<R> {
    entries: Map<Key, Entry<R>>,
    max_entries: usize,
    /// The next entry's place in storing order.
    stored: u64,
}

/// How many entries a [`ListCache`] keeps unless told otherwise: a client of a few servers
/// stores a few dozen; a server answering many authorization contexts reaches the bound, and
/// its memory stays bounded.
pub const DEFAULT_MAX_LIST_ENTRIES: usize = 1000;

impl<R> Default for ListCache<R> {
    fn default() -> Self {
        ListCache::with_max_entries(DEFAULT_MAX_LIST_ENTRIES)
    }
}

impl<R> ListCache<R> {
    /// An empty cache keeping at most `max_entries` entries (`0`: it stores nothing).
    pub fn with_max_entries(max_entries: usize) -> ListCache<R> {
        ListCache {
            entries: Map::new(),
            max_entries,
            stored: 0,
        }
    }
}

impl<R: Clone> ListCache<R> {
    /// An empty cache keeping at most [`DEFAULT_MAX_LIST_ENTRIES`].
    pub fn new() -> ListCache<R> {
        ListCache::default()
    }

    /// Stores a result received at `now_ms` (in a full cache, after dropping the entry stored
    /// longest ago).
    ///
    /// `ttl_ms` missing, negative or non-finite means `0` (stored, but only ever served stale).
    /// `Private` results are stored under their authorization context (hiding the older `Public`
    /// entry from that context); `Public` ones are shared by all contexts, and replace every
    /// context's private entry for the same request (the newest answer wins).
    pub fn put(&mut self, now_ms: f64, entry: ListEntry<'_, R>) {
        let ListEntry {
            method,
            params,
            auth_context,
            result,
            ttl_ms,
            scope,
        } = entry;
        let key = match scope {
            ListScope::Private => Key::new(
                method,
                params,
                Owner::Private(auth_context.map(str::to_owned)),
            ),
            ListScope::Public => {
                let shared = Key::new(method, params, Owner::Shared);
                // The newest answer for every context: no private entry is newer any more.
                self.remove_where(|key| key.same_request(&shared));
                shared
            }
        };
        if self.entries.len() >= self.max_entries && !self.entries.contains_key(&key) {
            if self.max_entries == 0 {
                return;
            }
            self.drop_oldest();
        }
        self.entries.insert(
            key,
            Entry {
                result,
                received_at_ms: now_ms,
                ttl_ms: sanitize_ttl(ttl_ms),
                stored: self.stored,
            },
        );
        self.stored += 1;
    }

    /// Drops the entry stored longest ago.
    fn drop_oldest(&mut self) {
        let (mut index, mut oldest) = (0, u64::MAX);
        for (i, (_, entry)) in self.entries.iter().enumerate() {
            if entry.stored < oldest {
                (index, oldest) = (i, entry.stored);
            }
        }
        self.entries.remove_index(index);
    }

    /// Looks up `method` with `params` for the caller in `auth_context`.
    ///
    /// The newest entry for the caller: its private entry if it has one, else the public one.
    /// Returned when fresh (`now_ms < received + ttl`); when expired, only if `allow_stale` is
    /// true (serve-stale-on-error), flagged `stale: true`, else `None`: an older entry is never
    /// served instead.
    pub fn get(
        &self,
        now_ms: f64,
        method: &str,
        params: &ListParams,
        auth_context: Option<&str>,
        allow_stale: bool,
    ) -> Option<ListHit<R>> {
        let private = Key::new(
            method,
            params,
            Owner::Private(auth_context.map(str::to_owned)),
        );
        let shared = Key::new(method, params, Owner::Shared);
        // A private entry is newer than the shared one: a public answer removes them all.
        let entry = self
            .entries
            .get(&private)
            .or_else(|| self.entries.get(&shared))?;
        let stale = !entry.is_fresh(now_ms);
        if stale && !allow_stale {
            return None;
        }
        Some(ListHit {
            result: entry.result.clone(),
            stale,
            age_ms: (now_ms - entry.received_at_ms).max(0.0),
        })
    }

    /// Drops every cached page of `method` (all cursors, all authorization contexts), as after an
    /// invalid-cursor error. Returns how many entries were dropped.
    pub fn invalidate_list(&mut self, method: &str) -> usize {
        self.remove_where(|key| key.method == method)
    }

    /// Applies a server notification; returns how many entries were dropped.
    ///
    /// * `notifications/tools/list_changed` → `tools/list`
    /// * `notifications/prompts/list_changed` → `prompts/list`
    /// * `notifications/resources/list_changed` → `resources/list` and `resources/templates/list`
    /// * `notifications/resources/updated` with `uri` → `resources/read` entries for that URI
    ///
    /// Anything else (including `resources/updated` without a URI) drops nothing.
    pub fn handle_notification(&mut self, method: &str, uri: Option<&str>) -> usize {
        match method {
            "notifications/tools/list_changed" => self.invalidate_list("tools/list"),
            "notifications/prompts/list_changed" => self.invalidate_list("prompts/list"),
            "notifications/resources/list_changed" => self.remove_where(|key| {
                key.method == "resources/list" || key.method == "resources/templates/list"
            }),
            "notifications/resources/updated" => match uri {
                Some(uri) => self.remove_where(|key| {
                    key.method == "resources/read" && key.uri.as_deref() == Some(uri)
                }),
                None => 0,
            },
            _ => 0,
        }
    }

    /// Number of cached entries (each page and each private context counts once).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn remove_where(&mut self, doomed: impl Fn(&Key) -> bool) -> usize {
        let before = self.entries.len();
        self.entries.retain(|key, _| !doomed(key));
        before - self.entries.len()
    }
}

#[cfg(test)]
mod tests;
