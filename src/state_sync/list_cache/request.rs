//! What a caller hands the list cache and gets back: the parameters that select a result, a
//! result to store with its hints, and a hit.

use super::meta::ListScope;

/// The request parameters that affect a list (or read) result, and so belong to the cache key.
///
/// Both are compared exactly: an empty cursor (`Some("")`) is a different request from the first
/// page (`None`), and a cursor is never matched against a URI. MCP defines both as strings; a
/// caller holding untyped values (the JS bindings) must refuse anything else rather than map it
/// to `None` or to a string that another value could also produce.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ListParams {
    /// The pagination cursor (`None` for the first page).
    pub cursor: Option<String>,
    /// The resource URI (`resources/read`).
    pub uri: Option<String>,
}

impl ListParams {
    /// Parameters for the first page of a list (no cursor, no URI).
    pub fn first_page() -> ListParams {
        ListParams::default()
    }
}

/// A list result to store with [`ListCache::put`](super::ListCache::put): the request it
/// answers and its hints.
#[derive(Clone, Debug, PartialEq)]
pub struct ListEntry<'a, R> {
    /// The request method (`tools/list`, `resources/read`, …).
    pub method: &'a str,
    /// The request parameters that select the result.
    pub params: &'a ListParams,
    /// The authorization context it was fetched with (`None` is a context of its own).
    pub auth_context: Option<&'a str>,
    /// The result.
    pub result: R,
    /// Its `ttlMs`, when it has a number there.
    pub ttl_ms: Option<f64>,
    /// Its `cacheScope` (`Private` when absent: stricter than SEP-2549's `public`).
    pub scope: ListScope,
}

/// A cache hit returned by [`ListCache::get`](super::ListCache::get).
#[derive(Clone, Debug, PartialEq)]
pub struct ListHit<R> {
    /// The cached result.
    pub result: R,
    /// `true` when the TTL has run out (only returned when the caller allowed stale results).
    pub stale: bool,
    /// Milliseconds since the result was stored (never negative).
    pub age_ms: f64,
}
