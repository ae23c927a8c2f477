//! RFC 6901 JSON Pointers, as used in the `#` fragment of a reference (`mcp+cache://c/t#/data/0`).
//!
//! Parsing is pure; walking a value is done by the layer that owns the value (a JS value in
//! [`crate::cache`], so the payload is never copied into Rust), using [`array_index`] for the
//! array rule.

use super::text;

/// A parsed JSON Pointer: the unescaped reference tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPointer {
    source: String,
    tokens: Vec<String>,
}

impl JsonPointer {
    /// Parses `""` (the whole document) or `/token/token…`, where `~0` means `~` and `~1` means
    /// `/`; any other `~` escape, or a non-empty pointer not starting with `/`, is invalid.
    /// Control characters are rejected too: they never occur in a pointer a model copied.
    pub fn parse(pointer: &str) -> Option<Self> {
        if pointer.is_empty() {
            return Some(Self {
                source: String::new(),
                tokens: Vec::new(),
            });
        }
        let body = pointer.strip_prefix("/")?;
        if pointer.chars().any(char::is_control) {
            return None;
        }
        let mut tokens = Vec::new();
        for raw in text::split(body, "/") {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => token.push('~'),
                        Some('1') => token.push('/'),
                        _ => return None,
                    }
                } else {
                    token.push(c);
                }
            }
            tokens.push(token);
        }
        Some(Self {
            source: pointer.to_owned(),
            tokens,
        })
    }

    /// The unescaped tokens, outermost first.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The pointer as written (escaped), e.g. `/data/0`.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

/// Interprets a token as an array index per RFC 6901: `0` or a decimal without leading zeros.
/// `-` (past-the-end) and anything else select nothing.
pub fn array_index(token: &str) -> Option<u32> {
    if token.is_empty() || token.len() > 10 || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if token.len() > 1 && token.starts_with("0") {
        return None;
    }
    crate::core::text::parse_u32(token, 10)
}

/// Longest member name [`member_reference`] writes a reference for: `_cache_refs` entries are
/// meant to be copied verbatim by a model, so they stay short.
pub const MAX_REF_MEMBER_CHARS: usize = 64;

/// `<uri>#/<member>` with the member name escaped as RFC 6901 requires (`~` → `~0`, `/` →
/// `~1`): a ready reference to one top-level member of a stored object. `None` for names a
/// pointer cannot carry (control characters) or longer than [`MAX_REF_MEMBER_CHARS`].
pub fn member_reference(uri: &str, member: &str) -> Option<String> {
    if member.chars().count() > MAX_REF_MEMBER_CHARS || member.chars().any(char::is_control) {
        return None;
    }
    let mut out = String::with_capacity(uri.len() + member.len() + 2);
    out.push_str(uri);
    out.push_str("#/");
    for c in member.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_references_round_trip() {
        let uri = "mcp+cache://c/AAAAAAAAAAA";
        assert_eq!(
            member_reference(uri, "rows").unwrap(),
            "mcp+cache://c/AAAAAAAAAAA#/rows"
        );
        let odd = member_reference(uri, "a/b~c").unwrap();
        assert_eq!(odd, "mcp+cache://c/AAAAAAAAAAA#/a~1b~0c");
        let parsed = crate::core::uri::parse_cache_uri(&odd).unwrap();
        assert_eq!(parsed.pointer.unwrap().tokens(), ["a/b~c"]);
        assert_eq!(member_reference(uri, "x\ny"), None);
        assert_eq!(member_reference(uri, &"k".repeat(65)), None);
    }

    #[test]
    fn parses_rfc6901_examples() {
        assert!(JsonPointer::parse("").unwrap().tokens().is_empty());
        assert_eq!(JsonPointer::parse("/").unwrap().tokens(), [""]);
        assert_eq!(JsonPointer::parse("/foo/0").unwrap().tokens(), ["foo", "0"]);
        assert_eq!(JsonPointer::parse("/a~1b").unwrap().tokens(), ["a/b"]);
        assert_eq!(JsonPointer::parse("/m~0n").unwrap().tokens(), ["m~n"]);
        assert_eq!(JsonPointer::parse("/~01").unwrap().tokens(), ["~1"]);
        assert_eq!(JsonPointer::parse("/data/1").unwrap().as_str(), "/data/1");
    }

    #[test]
    fn rejects_invalid_pointers() {
        for p in ["data", "/a~", "/a~2", "/a\u{0}", "~1", "/x\n"] {
            assert_eq!(JsonPointer::parse(p), None, "{p:?}");
        }
    }

    #[test]
    fn array_index_rule() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("17"), Some(17));
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-"), None);
        assert_eq!(array_index("1e3"), None);
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("99999999999"), None);
    }
}
