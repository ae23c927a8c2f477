//! The SEP-2549 caching hints of a list result, as a server sends them: `cacheScope` and `ttlMs`.

/// Who may reuse a cached result: the SEP-2549 `cacheScope` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListScope {
    /// `"public"`: no user-specific data; may be cached and served across authorization contexts.
    Public,
    /// `"private"`: may be cached and reused only within the same authorization context.
    Private,
}

impl ListScope {
    /// The wire value: `"public"` or `"private"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListScope::Public => "public",
            ListScope::Private => "private",
        }
    }

    /// Parses a wire value (`"public"` / `"private"`, exact); anything else is `None`.
    pub fn from_wire(value: &str) -> Option<ListScope> {
        match value {
            "public" => Some(ListScope::Public),
            "private" => Some(ListScope::Private),
            _ => None,
        }
    }
}

/// The caching hints a server attaches to a list result (`ttlMs`, `cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListCacheMeta {
    /// `ttlMs`: a non-negative whole number of milliseconds (always present; `0` = do not reuse).
    pub ttl_ms: f64,
    /// `cacheScope`: always stated, `Private` unless the server says `Public` (SEP-2549 reads an
    /// absent `cacheScope` as `public`, so leaving it out would let a shared cache serve a
    /// per-user list across authorization contexts).
    pub scope: ListScope,
}

/// Builds the caching hints for a server's list result.
///
/// Servers MUST send `ttlMs`, so a `0` TTL is still emitted. Negative and non-finite (`NaN`,
/// `±Infinity`) TTLs become `0`; fractional TTLs are floored, as `ttlMs` is an integer on the wire
/// and flooring never promises more freshness than asked for. No `scope` is `Private`, and the
/// scope is always emitted: SEP-2549 reads an absent `cacheScope` as `public`.
pub fn list_cache_meta(ttl_ms: f64, scope: Option<ListScope>) -> ListCacheMeta {
    ListCacheMeta {
        ttl_ms: sanitize_ttl(Some(ttl_ms)).floor(),
        scope: scope.unwrap_or(ListScope::Private),
    }
}

/// A missing, negative or non-finite TTL is `0` (immediately stale).
pub(super) fn sanitize_ttl(ttl_ms: Option<f64>) -> f64 {
    match ttl_ms {
        Some(t) if t.is_finite() && t > 0.0 => t,
        _ => 0.0,
    }
}
