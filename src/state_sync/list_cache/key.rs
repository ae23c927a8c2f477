//! How an entry is kept: its key (request, parameters and owner) and its freshness.

use super::request::ListParams;

/// Whose entry this is: shared (public) or one authorization context's (private).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Owner {
    Shared,
    Private(Option<String>),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Key {
    pub(super) method: String,
    cursor: Option<String>,
    pub(super) uri: Option<String>,
    owner: Owner,
}

impl Key {
    pub(super) fn new(method: &str, params: &ListParams, owner: Owner) -> Key {
        Key {
            method: method.to_owned(),
            cursor: params.cursor.clone(),
            uri: params.uri.clone(),
            owner,
        }
    }

    /// Whether `self` is for the same request as `other`, whoever's entry each is.
    pub(super) fn same_request(&self, other: &Key) -> bool {
        self.method == other.method && self.cursor == other.cursor && self.uri == other.uri
    }
}

pub(super) struct Entry<R> {
    pub(super) result: R,
    pub(super) received_at_ms: f64,
    pub(super) ttl_ms: f64,
    /// Its place in the order entries were stored (the oldest goes first from a full cache).
    pub(super) stored: u64,
}

impl<R> Entry<R> {
    /// Fresh while `now < received_at + ttl`; a zero TTL is never fresh (even if the clock
    /// went backwards).
    pub(super) fn is_fresh(&self, now_ms: f64) -> bool {
        self.ttl_ms > 0.0 && now_ms < self.received_at_ms + self.ttl_ms
    }
}
