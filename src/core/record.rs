//! The stored record (docs/PROTOCOL.md, *Storage*), generic over the payload so the core never needs to know what a
//! payload is. In the browser the payload is a `JsValue` that IndexedDB structured-clones; it is
//! never deserialized into Rust.

/// Field names of a stored record, shared by every store and by chatbox-core's databases.
pub mod fields {
    /// Primary key: the reference without fragment.
    pub const URI: &str = "uri";
    /// The tool result, stored as the value it is.
    pub const PAYLOAD: &str = "payload";
    /// The sanitized conversation segment (indexed).
    pub const CONV_ID: &str = "convId";
    /// The tool whose result this is (indexed).
    pub const SOURCE_TOOL_NAME: &str = "sourceToolName";
    /// Write time, ms since the epoch (indexed).
    pub const ADDED_AT: &str = "addedAt";
    /// UTF-8 bytes of the payload's JSON.
    pub const SIZE_BYTES: &str = "sizeBytes";
    /// Last write or hit, ms since the epoch (absent in chatbox-core records).
    pub const LAST_USED_AT: &str = "lastUsedAt";
    /// Why the entry is stale, when a mutation invalidated it.
    pub const STALE_CAUSE: &str = "staleCause";
    /// For a part of another entry (a read-back selection): that entry's key. The part is only
    /// handed out while its source is.
    pub const DERIVED_FROM: &str = "derivedFrom";
}

/// Most links followed from a derived entry to its first source; a longer chain reads as absent.
pub const MAX_DERIVATION_DEPTH: usize = 8;

/// Name used when the caller does not say which tool produced a result.
pub const UNKNOWN_SOURCE_TOOL: &str = "<unknown>";

/// One cached tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheRecord<P> {
    /// Storage key: the reference without any `#` fragment.
    pub uri: String,
    /// The tool result.
    pub payload: P,
    /// The sanitized conversation segment the reference belongs to.
    pub conv_id: String,
    /// The tool that produced the payload.
    pub source_tool_name: String,
    /// When the entry was written (ms since the epoch, from the cache's clock).
    pub added_at: f64,
    /// UTF-8 bytes of `JSON.stringify(payload)`.
    pub size_bytes: f64,
    /// Last write or hit; records written by chatbox-core lack it and read as `added_at`.
    pub last_used_at: f64,
    /// Set when a mutation invalidated the data behind this entry: the causing tool.
    pub stale_cause: Option<String>,
    /// The key of the entry this one was derived from ([`fields::DERIVED_FROM`]).
    pub derived_from: Option<String>,
}

impl<P> CacheRecord<P> {
    /// True when the entry may be handed out for `conv_scope` (`None` = any conversation).
    pub fn visible_to(&self, conv_scope: Option<&str>) -> bool {
        conv_scope.is_none_or(|c| c == self.conv_id)
    }
}

/// What looking a reference up found, before any pointer is applied.
#[derive(Debug, Clone, PartialEq)]
pub enum LookupOutcome<P> {
    /// A fresh entry.
    Hit(P),
    /// No entry (or one of another conversation, or an unusable reference).
    Miss,
    /// An entry a mutation made stale.
    Stale {
        /// The tool whose success invalidated it.
        cause: String,
        /// The tool to re-call for fresh data.
        source_tool_name: String,
    },
    /// A fresh entry, but the reference's `#` JSON Pointer selects nothing in it.
    BadPointer {
        /// The pointer as written in the reference.
        pointer: String,
    },
}

impl<P> LookupOutcome<P> {
    /// Classifies a stored record for a reader scoped to `conv_scope`.
    pub fn from_record(record: Option<CacheRecord<P>>, conv_scope: Option<&str>) -> Self {
        match record {
            Some(r) if r.visible_to(conv_scope) => match r.stale_cause {
                Some(cause) => Self::Stale {
                    cause,
                    source_tool_name: r.source_tool_name,
                },
                None => Self::Hit(r.payload),
            },
            _ => Self::Miss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(conv: &str, stale: Option<&str>) -> CacheRecord<u8> {
        CacheRecord {
            uri: format!("mcp+cache://{conv}/abcdefgh"),
            payload: 7,
            conv_id: conv.into(),
            source_tool_name: "t.get".into(),
            added_at: 1.0,
            size_bytes: 10.0,
            last_used_at: 1.0,
            stale_cause: stale.map(Into::into),
            derived_from: None,
        }
    }

    #[test]
    fn lookup_outcomes() {
        assert_eq!(
            LookupOutcome::from_record(Some(record("a", None)), None),
            LookupOutcome::Hit(7)
        );
        assert_eq!(
            LookupOutcome::from_record(Some(record("a", None)), Some("a")),
            LookupOutcome::Hit(7)
        );
        assert_eq!(
            LookupOutcome::from_record(Some(record("a", None)), Some("b")),
            LookupOutcome::Miss
        );
        assert_eq!(
            LookupOutcome::<u8>::from_record(None, None),
            LookupOutcome::Miss
        );
        assert_eq!(
            LookupOutcome::from_record(Some(record("a", Some("t.refund"))), None),
            LookupOutcome::Stale {
                cause: "t.refund".into(),
                source_tool_name: "t.get".into()
            }
        );
    }
}
