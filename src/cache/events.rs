//! What the cache reports to an `onEvent` observer.

/// One observable cache event. The observer runs synchronously; if it throws, the error is
/// swallowed and the operation's outcome is unchanged.
#[derive(Debug, Clone, PartialEq)]
pub enum CacheEvent {
    /// A result was stored.
    Write {
        /// The minted reference.
        uri: String,
        /// Its conversation segment.
        conv_id: String,
        /// The tool that produced it.
        source_tool_name: String,
        /// UTF-8 bytes of its JSON.
        size_bytes: f64,
    },
    /// A reference resolved to a fresh entry.
    Hit {
        /// The reference as given (with any fragment).
        uri: String,
    },
    /// A reference resolved to nothing (absent, malformed, foreign conversation, bad pointer).
    Miss {
        /// The reference as given.
        uri: String,
    },
    /// A reference resolved to an entry a mutation invalidated.
    Stale {
        /// The reference as given.
        uri: String,
        /// The invalidating tool.
        cause: String,
    },
    /// A call held both `X` and `X_uri`; the reference won.
    Conflict {
        /// The tool called.
        tool_name: String,
        /// The overwritten argument (`X`).
        key: String,
        /// The reference(s) that replaced it.
        uris: Vec<String>,
    },
    /// A call was blocked by the inline-list cap.
    Cap {
        /// The tool called.
        tool_name: String,
        /// The capped argument.
        arg: String,
        /// Its length.
        count: usize,
        /// The cap.
        cap: usize,
    },
    /// Entries were marked stale by an invalidation.
    Invalidate {
        /// The tool (or notification) that caused it.
        cause: String,
        /// The patterns applied.
        patterns: Vec<String>,
        /// How many entries became stale.
        count: u32,
    },
    /// An identical call to an `immutable` tool was answered from the cache.
    Reuse {
        /// The tool.
        tool_name: String,
        /// The reference reused.
        uri: String,
    },
    /// Entries were deleted.
    Evict {
        /// How many.
        count: u32,
        /// Why: `"clearConversation"`, `"maxAge"`, `"budget"` (maxBytes/maxEntries, least
        /// recently used first) or `"quota"` (the browser refused a write).
        reason: &'static str,
    },
    /// A result was not stored although it passed the threshold.
    Skip {
        /// Why: `"maxEntryBytes"` (too big), `"notPlainJson"` (binary data, a `Map`, a class
        /// instance or `toJSON`: its JSON size would not be what is stored) or `"maxDepth"`.
        reason: &'static str,
        /// Its size.
        size_bytes: f64,
        /// The limit it exceeded (bytes, or depth for `"maxDepth"`; 0 for `"notPlainJson"`).
        limit: f64,
    },
    /// Opening (upgrading) the database waits for another tab to close its connection; the
    /// operation continues once it does.
    Blocked {
        /// The database name.
        database: String,
    },
    /// A storage operation failed.
    Error {
        /// The operation, e.g. `"cacheToolResult"`.
        operation: &'static str,
        /// The DOMException name.
        name: String,
        /// The message.
        message: String,
    },
}

impl CacheEvent {
    /// The `kind` string JS observers switch on.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Write { .. } => "write",
            Self::Hit { .. } => "hit",
            Self::Miss { .. } => "miss",
            Self::Stale { .. } => "stale",
            Self::Conflict { .. } => "conflict",
            Self::Cap { .. } => "cap",
            Self::Invalidate { .. } => "invalidate",
            Self::Reuse { .. } => "reuse",
            Self::Evict { .. } => "evict",
            Self::Skip { .. } => "skip",
            Self::Blocked { .. } => "blocked",
            Self::Error { .. } => "error",
        }
    }
}
