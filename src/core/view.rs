//! How the model is shown a stored result — whole (within `maxChars`) or as a preview — and
//! which read-back tools its hints name.

/// Display settings of a cache (`view`, `readTools` options), overridable per call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    /// `view: "preview"`: a stored result is shown as its headline fields, its shape, its first
    /// rows (at most [`PREVIEW_CHARS`] of JSON) and its reference, whatever its size.
    pub preview: bool,
    /// The name prefix of the read-back tools the host offers the model (`cacheTools`), when it
    /// offers them: hints then say which tool reads more.
    pub read_tools: Option<String>,
}

/// The prefix of the read-back tools' names when none is given (`cache_read`, …).
pub const DEFAULT_READ_TOOLS_PREFIX: &str = "cache_";

/// Characters of JSON the first rows of a preview take at most.
pub const PREVIEW_CHARS: u32 = 1500;

/// The view's value of the `view` option: `"full"` or `"preview"`; `None` for anything else.
pub fn parse_view(value: &str) -> Option<bool> {
    match value {
        "full" => Some(false),
        "preview" => Some(true),
        _ => None,
    }
}

/// A valid tool-name prefix: at most 32 ASCII letters, digits, `_`, `-` or `.` (so that the
/// tool names stay within the 64 characters model providers accept).
pub fn is_tool_prefix(prefix: &str) -> bool {
    prefix.len() <= 32
        && prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Appends the sentence naming the read-back tools `<prefix>read`, `<prefix>search` and
/// `<prefix>select`.
pub fn push_read_hint(hint: &mut String, prefix: &str) {
    let tools: [(&str, &str); 3] = [
        (
            "read",
            " (page through it, or one part with a #/pointer uri), ",
        ),
        ("search", " (find values) or "),
        ("select", " (filter rows into a new reference)"),
    ];
    hint.push_str(" To look inside it, call ");
    for (name, what) in tools {
        hint.push_str(prefix);
        hint.push_str(name);
        hint.push_str(what);
    }
    hint.push_str(" with this uri.");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_prefixes() {
        assert_eq!(parse_view("full"), Some(false));
        assert_eq!(parse_view("preview"), Some(true));
        assert_eq!(parse_view("Preview"), None);
        assert!(is_tool_prefix("cache_") && is_tool_prefix("") && is_tool_prefix("a.b-c"));
        assert!(!is_tool_prefix("cache read") && !is_tool_prefix(&"x".repeat(33)));
    }

    #[test]
    fn read_hint_names_the_three_tools() {
        let mut hint = String::from("Stored.");
        push_read_hint(&mut hint, "cache_");
        assert_eq!(
            hint,
            "Stored. To look inside it, call cache_read (page through it, or one part with a \
             #/pointer uri), cache_search (find values) or cache_select (filter rows into a new \
             reference) with this uri."
        );
    }
}
