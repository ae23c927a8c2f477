//! What the model is shown of each block of an MCP `CallToolResult` (docs/CONTENT.md): the
//! block kinds, the media rule (pass small media unchanged, store and link big media and
//! blobs), and the texts that stand in for what was stored. Pure: the pipeline reads the JS
//! blocks and applies these decisions.

use super::text::{concat, push_uint};

/// Default `mediaMaxBytes`: decoded bytes above which an image, audio clip or blob is stored
/// and linked instead of shown. 1 MiB keeps ordinary screenshots and short clips visible to
/// the model (providers accept images of several MB).
pub const DEFAULT_MEDIA_MAX_BYTES: u32 = 1 << 20;

/// The `_meta` key listing every reference minted for one result, in order.
pub const META_URIS_KEY: &str = "mcp-result-cache/uris";

/// The `Symbol.for` key under which a result the cache answers itself (a read-back tool's)
/// names the reference it was read from: what is stored of that result is derived from that
/// entry, so it keeps the entry's server and tool and goes stale with it. A symbol, because no
/// server's JSON can carry one.
pub const DERIVED_FROM_SYMBOL: &str = "mcp-result-cache/derivedFrom";

/// A content block, as far as the cache cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// `{type: "text", text}`.
    Text,
    /// `{type: "image" | "audio", data, mimeType}`: media the model sees as media.
    Media,
    /// `{type: "resource", resource: {uri, text | blob}}`: an embedded resource.
    Resource,
    /// `{type: "resource_link", uri, …}`: already a reference; always kept.
    Link,
    /// Any other block type (kept; a base64 `data` member is treated as a blob).
    Other,
}

/// The kind of a block by its `type`.
pub fn block_kind(block_type: &str) -> BlockKind {
    match block_type {
        "text" => BlockKind::Text,
        "image" | "audio" => BlockKind::Media,
        "resource" => BlockKind::Resource,
        "resource_link" => BlockKind::Link,
        _ => BlockKind::Other,
    }
}

/// Bytes that `chars` characters of base64 decode to, `padding` of them being `=`.
pub fn base64_decoded_len(chars: u64, padding: u64) -> u64 {
    (chars / 4 * 3 + (chars % 4) * 3 / 4).saturating_sub(padding)
}

/// Whether binary data is stored and linked instead of shown. Media (`shown_as_text: false`)
/// go by their decoded size alone; a blob the model would read as base64 text is also stored
/// when its text exceeds what is left of `maxChars`.
pub fn stores_binary(
    decoded_bytes: u64,
    base64_chars: u64,
    shown_as_text: bool,
    media_max_bytes: u64,
    text_budget: u64,
) -> bool {
    decoded_bytes > media_max_bytes || (shown_as_text && base64_chars > text_budget)
}

/// The one text line that follows the link to stored binary data: what it was and how to
/// pass it on.
pub fn stored_binary_note(
    what: &str,
    mime_type: &str,
    bytes: u64,
    uri: &str,
    data_pointer: &str,
) -> String {
    let mut note = concat(&["[", what, " ", mime_type, ", "]);
    push_uint(&mut note, bytes);
    note.push_str(" bytes, stored as ");
    note.push_str(uri);
    note.push_str(
        ". To pass its base64 data to another tool, give that tool's `<arg>_uri` the reference \"",
    );
    note.push_str(uri);
    note.push_str(data_pointer);
    note.push_str("\".]");
    note
}

/// The note shown instead of binary data that is too large to show and could not be stored.
pub fn unkept_binary_note(what: &str, mime_type: &str, bytes: u64) -> String {
    let mut note = concat(&["[", what, " ", mime_type, ", "]);
    push_uint(&mut note, bytes);
    note.push_str(" bytes");
    note.push_str(NOT_STORED);
    note
}

/// How the notes for what was neither shown nor stored end.
const NOT_STORED: &str = ": too large to show, and not stored.]";

/// The one line that stands for the blocks left out once `maxChars` is spent: how many, their
/// characters (texts, base64), and where they are: stored in order as one array at `uri`, each
/// block as the server sent it (`None`: not stored).
pub fn left_out_note(blocks: u32, chars: u64, uri: Option<&str>) -> String {
    let mut note = String::from("[blocks not shown: ");
    push_uint(&mut note, u64::from(blocks));
    note.push_str(", with ");
    push_uint(&mut note, chars);
    note.push_str(" characters");
    match uri {
        Some(uri) => note.push_str(&concat(&[
            ", stored in order as one array: \"",
            uri,
            "#/0\" is the first block, \"",
            uri,
            "#/1\" the next, and so on; a text block's text is \"",
            uri,
            "#/0/text",
            PASS_ON,
        ])),
        None => note.push_str(NOT_STORED),
    }
    note
}

/// The line after a text preview: how much there is and where the whole text is.
pub fn preview_marker(total_chars: u32, total_lines: u32, reference: &str) -> String {
    let mut marker = String::from("\n[preview: the text has ");
    push_uint(&mut marker, u64::from(total_chars));
    marker.push_str(" characters in ");
    push_uint(&mut marker, u64::from(total_lines));
    marker.push_str(" lines, stored in full as \"");
    marker.push_str(reference);
    marker.push_str(PASS_ON);
    marker
}

/// How a line that names a stored text ends: how to pass it on (after the reference).
const PASS_ON: &str = "\". To use it in another tool call, pass that reference as the tool's \
     `<arg>_uri` argument; do not copy the text.]";

/// How many UTF-16 units of a `total`-unit text a preview keeps within `budget` with `marker`
/// after it: the budget less the marker, never less than 0. The pipeline then backs off to the
/// last line break in the kept part, when there is one in its second half.
pub fn preview_keep(total: u32, budget: u32, marker_len: u32) -> u32 {
    budget.saturating_sub(marker_len).min(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(block_kind("text"), BlockKind::Text);
        assert_eq!(block_kind("image"), BlockKind::Media);
        assert_eq!(block_kind("audio"), BlockKind::Media);
        assert_eq!(block_kind("resource"), BlockKind::Resource);
        assert_eq!(block_kind("resource_link"), BlockKind::Link);
        assert_eq!(block_kind("blob"), BlockKind::Other);
    }

    #[test]
    fn base64_lengths() {
        // "", "a", "ab", "abc", "abcd" encoded.
        assert_eq!(base64_decoded_len(0, 0), 0);
        assert_eq!(base64_decoded_len(4, 2), 1); // YQ==
        assert_eq!(base64_decoded_len(4, 1), 2); // YWI=
        assert_eq!(base64_decoded_len(4, 0), 3); // YWJj
        assert_eq!(base64_decoded_len(8, 2), 4); // YWJjZA==
        assert_eq!(base64_decoded_len(3, 0), 2); // unpadded "YWI"
        assert_eq!(base64_decoded_len(2, 0), 1); // unpadded "YQ"
    }

    #[test]
    fn binary_rule() {
        let mib = u64::from(DEFAULT_MEDIA_MAX_BYTES);
        // Media go by decoded size only, whatever the text budget.
        assert!(!stores_binary(mib, mib * 4 / 3, false, mib, 0));
        assert!(stores_binary(mib + 1, mib * 4 / 3, false, mib, 1 << 40));
        // A blob read as text is also stored when its base64 would not fit the text budget.
        assert!(stores_binary(60_000, 80_000, true, mib, 20_000));
        assert!(!stores_binary(6_000, 8_000, true, mib, 20_000));
    }

    #[test]
    fn notes_name_the_reference() {
        let note = stored_binary_note("image", "image/png", 66_214, "mcp+cache://c/t", "#/data");
        assert!(note.starts_with("[image image/png, 66214 bytes, stored as mcp+cache://c/t."));
        assert!(note.contains("\"mcp+cache://c/t#/data\""));
        assert!(unkept_binary_note("blob", "application/pdf", 9).contains("not stored"));
        let marker = preview_marker(219_304, 5_120, "mcp+cache://c/t#/content");
        assert!(marker.contains("219304 characters in 5120 lines"));
        assert!(marker.contains("\"mcp+cache://c/t#/content\""));
    }

    #[test]
    fn the_left_out_note_counts_and_names_the_array() {
        let note = left_out_note(4_600, 234_600, Some("mcp+cache://c/t"));
        assert!(note.starts_with("[blocks not shown: 4600, with 234600 characters, stored"));
        assert!(note.contains("\"mcp+cache://c/t#/0\" is the first block"));
        assert!(note.contains("\"mcp+cache://c/t#/1\" the next"));
        assert!(note.contains("\"mcp+cache://c/t#/0/text\". To use it"));
        assert!(note.ends_with("do not copy the text.]"));
        assert_eq!(
            left_out_note(1, 50, None),
            "[blocks not shown: 1, with 50 characters: too large to show, and not stored.]"
        );
    }

    #[test]
    fn preview_keeps_what_the_budget_leaves() {
        assert_eq!(preview_keep(10_000, 4_000, 200), 3_800);
        assert_eq!(preview_keep(100, 4_000, 200), 100);
        assert_eq!(preview_keep(10_000, 100, 200), 0);
    }
}
