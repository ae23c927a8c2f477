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

/// Reads a listing of records as lookups read each of them: a derived entry is only as good as
/// its source, so it takes its first source's tool and staleness (a mark of its own counts for
/// nothing); one whose source is not in `records` (gone, of another conversation, or more than
/// [`MAX_DERIVATION_DEPTH`] links away) is left out, as a lookup finds nothing for it.
pub fn resolve_derived<P>(records: &mut Vec<CacheRecord<P>>) {
    // Twice over the list: first the entries a lookup finds nothing for are left out (a chain
    // through one left out finds no source), then the rest take their first source's tool and
    // cause. Resolved in that order, an entry made stale first cannot end a later chain through
    // it early: it answers what that chain would find further on.
    resolve_pass(records, false);
    resolve_pass(records, true);
}

/// One pass of [`resolve_derived`]: leaves out the entries a lookup finds nothing for, or
/// (`resolve`) gives the others their first source's tool and cause.
#[inline(never)]
fn resolve_pass<P>(records: &mut Vec<CacheRecord<P>>, resolve: bool) {
    let mut i = 0;
    while i < records.len() {
        // The record `i` reads with: it ends the chain, as it is not a fresh derived one.
        let (mut at, mut links) = (i, 0);
        let end = loop {
            let r = &records[at];
            let Some(source) = r.derived_from.as_deref() else {
                break Some(at);
            };
            links += 1;
            let found = records
                .iter()
                .position(|s| s.uri == source && s.conv_id == r.conv_id);
            match found.filter(|_| links <= MAX_DERIVATION_DEPTH) {
                Some(next) => at = next,
                None => break None,
            }
        };
        match end {
            Some(e) => {
                if resolve && e != i {
                    records[i].source_tool_name = records[e].source_tool_name.clone();
                    records[i].stale_cause = records[e].stale_cause.clone();
                }
                i += 1;
            }
            None => drop(records.remove(i)),
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

    fn derived(token: &str, from: Option<&str>, stale: Option<&str>) -> CacheRecord<u8> {
        CacheRecord {
            uri: format!("mcp+cache://a/{token}"),
            source_tool_name: format!("tool-{token}"),
            derived_from: from.map(|t| format!("mcp+cache://a/{t}")),
            ..record("a", stale)
        }
    }

    fn read(records: Vec<CacheRecord<u8>>) -> Vec<(String, String, Option<String>)> {
        let mut records = records;
        resolve_derived(&mut records);
        records
            .into_iter()
            .map(|r| (r.uri[14..].to_owned(), r.source_tool_name, r.stale_cause))
            .collect()
    }

    #[test]
    fn listed_derived_entries_read_as_lookups_read_them() {
        let row = |t: &str, tool: &str, cause: Option<&str>| {
            (t.to_owned(), format!("tool-{tool}"), cause.map(Into::into))
        };
        // A part of a stale source is stale with its cause and reads with the source's tool;
        // a part of a fresh one is fresh; a part of a part follows the chain to its first source.
        assert_eq!(
            read(vec![
                derived("src00001", None, Some("t.refund")),
                derived("part0001", Some("src00001"), None),
                derived("part0002", Some("part0001"), None),
                derived("src00002", None, None),
                derived("part0003", Some("src00002"), None),
            ]),
            [
                row("src00001", "src00001", Some("t.refund")),
                row("part0001", "src00001", Some("t.refund")),
                row("part0002", "src00001", Some("t.refund")),
                row("src00002", "src00002", None),
                row("part0003", "src00002", None),
            ]
        );
        // Its own cause counts for nothing (the source's staleness is what it reads with); a
        // missing source, one of another conversation or a cycle leaves the part out.
        let mut other = derived("src00003", None, None);
        other.conv_id = "b".into();
        assert_eq!(
            read(vec![
                derived("part0004", Some("gone0001"), Some("t.own")),
                derived("part0005", Some("gone0001"), None),
                other,
                derived("part0006", Some("src00003"), None),
                derived("loop0001", Some("loop0002"), None),
                derived("loop0002", Some("loop0001"), None),
            ]),
            [row("src00003", "src00003", None)]
        );
        // Marked stale on its own (another server's `**`), a part of a fresh source is fresh.
        assert_eq!(
            read(vec![
                derived("src00004", None, None),
                derived("part0007", Some("src00004"), Some("the server's **")),
            ]),
            [
                row("src00004", "src00004", None),
                row("part0007", "src00004", None),
            ]
        );
        // At most MAX_DERIVATION_DEPTH links from an entry to its first source.
        let chain = |links: usize, stale: Option<&str>| {
            let mut records = vec![derived("link0000", None, stale)];
            for i in 1..=links {
                let from = format!("link{:04}", i - 1);
                records.push(derived(&format!("link{i:04}"), Some(&from), None));
            }
            read(records).len()
        };
        // Fresh or stale, listed before or after the entries derived from it: whether an entry
        // is in depends on its own chain only.
        for stale in [None, Some("t.refund")] {
            assert_eq!(chain(MAX_DERIVATION_DEPTH, stale), MAX_DERIVATION_DEPTH + 1);
            assert_eq!(
                chain(MAX_DERIVATION_DEPTH + 1, stale),
                MAX_DERIVATION_DEPTH + 1
            );
        }
    }
}
