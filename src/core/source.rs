//! Which server an entry came from. Two MCP servers may both have a tool called `report.get`;
//! a host that says which server a result came from (`wrapMcpClient` passes
//! `serverInfo.name`) gets entries whose invalidations and stale notifications stay with that
//! server. The store keeps one string per entry, the *source*: the tool name, prefixed by the
//! server's name and [`SERVER_MARK`] when there is one. The mark is a control character no
//! tool name contains (MCP tool names are `[A-Za-z0-9_.-]`), and the API shows the two parts
//! separately.

use super::text;
use super::text::concat;

/// Between a server's name and the tool name in a source (U+001F, the unit separator).
pub const SERVER_MARK: char = '\u{1f}';
/// [`SERVER_MARK`] as a string: searched for as one, it needs no `char` searcher in the module.
pub const SERVER_MARK_STR: &str = "\u{1f}";

/// The source of an entry written by `tool` of `server` (just `tool` without a server).
pub fn source_name(server: Option<&str>, tool: &str) -> String {
    match server {
        Some(server) => concat(&[server, SERVER_MARK_STR, tool]),
        None => tool.to_owned(),
    }
}

/// The server (when recorded) and the tool of a source.
pub fn split_source(source: &str) -> (Option<&str>, &str) {
    match text::split_once(source, SERVER_MARK_STR) {
        Some((server, tool)) => (Some(server), tool),
        None => (None, source),
    }
}

/// Whether an invalidation from `scope` (a server, or the host itself: `None`) may touch an
/// entry with this source: the host's touch every entry; a server's touch its own entries and
/// those written without a server.
pub fn in_scope(scope: Option<&str>, source: &str) -> bool {
    match (scope, split_source(source).0) {
        (Some(scope), Some(server)) => scope == server,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_as_a_string_is_the_mark() {
        // Two spellings of one value (the char for scripts/constants.mjs, the string for the
        // searches): a change to either fails here.
        assert_eq!(SERVER_MARK.to_string(), SERVER_MARK_STR);
    }

    #[test]
    fn sources_round_trip_and_scope() {
        assert_eq!(source_name(None, "a.b"), "a.b");
        let s = source_name(Some("alpha"), "report.get");
        assert_eq!(split_source(&s), (Some("alpha"), "report.get"));
        assert_eq!(split_source("report.get"), (None, "report.get"));
        assert!(in_scope(Some("alpha"), &s));
        assert!(!in_scope(Some("beta"), &s));
        assert!(in_scope(None, &s));
        assert!(
            in_scope(Some("beta"), "report.get"),
            "entries without a server"
        );
    }
}
