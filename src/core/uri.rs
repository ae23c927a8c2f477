//! `mcp+cache://<convSegment>/<token>[#<json-pointer>]` references: minting, parsing and the
//! conversation-id sanitizer, byte-compatible with the servers that already validate them with
//! `^mcp\+cache://[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_-]{8,16}$`.

use super::pointer::JsonPointer;
use super::text;

/// Scheme of every reference this package mints: `mcp+cache://`.
pub const CACHE_URI_SCHEME: &str = "mcp+cache://";
/// Longest conversation segment a reference may carry (characters).
pub const MAX_CONV_SEGMENT_CHARS: usize = 64;
/// Shortest token a reference may carry (characters).
pub const MIN_TOKEN_CHARS: usize = 8;
/// Longest token a reference may carry (characters).
pub const MAX_TOKEN_CHARS: usize = 16;
/// Longest `#` fragment (JSON Pointer) accepted by [`parse_cache_uri`], in bytes.
///
/// Far above any realistic path into a tool result; it bounds the work a hostile string can cause.
pub const MAX_POINTER_BYTES: usize = 2048;
/// Random bytes in a minted token: 64 bits from the platform CSPRNG, base64url = 11 characters.
pub const TOKEN_BYTES: usize = 8;
/// A token as long as a minted one (the base64url of [`TOKEN_BYTES`] zero bytes): references
/// measured before their write answers.
pub const TOKEN_LIKE: &str = "AAAAAAAAAAA";
/// The conversation segment used for an empty or absent conversation id.
pub const DEFAULT_CONV_SEGMENT: &str = "default";

/// True for the characters allowed in a conversation segment or token: `[A-Za-z0-9_-]`.
pub fn is_segment_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Characters of the digest a lossy segment ends with (48 bits, base64url).
pub const CONV_DIGEST_CHARS: usize = 8;

/// Maps a conversation id (already converted to a string, the way JS `String(id)` does) to the
/// segment used in a URI.
///
/// An id that is already 1–64 characters of `[A-Za-z0-9_-]` is its own segment. Any other id
/// would lose information when squeezed into that alphabet, so its segment is the first 55
/// characters with every other character replaced by `_`, then `-` and an 8-character digest of
/// the whole id: `"会話"` → `"__-<digest>"`, `"对话"` → `"__-<other digest>"`. Two ids that
/// differ therefore get different segments (up to a 48-bit digest collision).
///
/// The segment only shapes the URI: the cache scopes entries by the exact id, never by the
/// segment, so even a digest collision cannot let one conversation read another's entries.
/// Callers map a missing id (`null`/`undefined`) to `"default"` before calling.
///
/// Characters are counted the way JavaScript counts them (UTF-16 code units).
pub fn sanitize_conv_id(conv_id: &str) -> String {
    let lossless = (1..=MAX_CONV_SEGMENT_CHARS).contains(&conv_id.len())
        && conv_id.chars().all(is_segment_char);
    if lossless {
        return conv_id.to_owned();
    }
    let keep = MAX_CONV_SEGMENT_CHARS - CONV_DIGEST_CHARS - 1;
    // Pushed one by one: `collect::<String>()` of chars is code of its own (`Extend<char>`).
    let mut segment = String::with_capacity(MAX_CONV_SEGMENT_CHARS);
    for u in conv_id.encode_utf16().take(keep) {
        segment.push(match char::from_u32(u32::from(u)) {
            Some(c) if is_segment_char(c) => c,
            _ => '_',
        });
    }
    segment.push('-');
    segment.push_str(&conv_digest(conv_id));
    segment
}

/// 48 bits of FNV-1a (64-bit) over the id's UTF-16 code units, base64url: a short, stable tag
/// that tells lossy segments apart. Not a security boundary (scoping compares exact ids).
fn conv_digest(conv_id: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for unit in conv_id.encode_utf16() {
        for byte in unit.to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    base64url_no_pad(&hash.to_be_bytes()[..6])
}

/// Error returned when the platform's cryptographic random source is unavailable.
///
/// Minting never falls back to a weaker generator: a guessable token would let one conversation
/// read another's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RandomSourceError;

impl RandomSourceError {
    /// What failed (the platform's own error text would need `core::fmt`).
    pub fn message(&self) -> &'static str {
        "no cryptographic random source available (crypto.getRandomValues failed)"
    }
}

impl std::fmt::Display for RandomSourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RandomSourceError {}

/// Encodes bytes as base64url (RFC 4648 §5) without padding.
pub fn base64url_no_pad(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Mints a fresh token: [`TOKEN_BYTES`] bytes from the CSPRNG (WebCrypto in browsers and
/// Node, the OS elsewhere), base64url without padding.
pub fn mint_token() -> Result<String, RandomSourceError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|_| RandomSourceError)?;
    Ok(base64url_no_pad(&bytes))
}

/// Mints `mcp+cache://<sanitize(conv_id)>/<token>`.
pub fn mint_cache_uri(conv_id: &str) -> Result<String, RandomSourceError> {
    Ok(format_cache_uri(&sanitize_conv_id(conv_id), &mint_token()?))
}

/// The start of every reference minted for `conv_id`: `mcp+cache://<its segment>/`. A reference
/// that does not start with it belongs to another conversation.
pub fn conversation_prefix(conv_id: &str) -> String {
    format_cache_uri(&sanitize_conv_id(conv_id), "")
}

/// Joins an already valid conversation segment and token into a reference.
pub fn format_cache_uri(conv_segment: &str, token: &str) -> String {
    let mut uri =
        String::with_capacity(CACHE_URI_SCHEME.len() + conv_segment.len() + 1 + token.len());
    uri.push_str(CACHE_URI_SCHEME);
    uri.push_str(conv_segment);
    uri.push('/');
    uri.push_str(token);
    uri
}

/// A parsed reference, borrowing from the input string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheUri<'a> {
    /// The whole reference without its fragment: the storage key.
    pub key: &'a str,
    /// The conversation segment (already sanitized by whoever minted it).
    pub conv_id: &'a str,
    /// The random token.
    pub token: &'a str,
    /// The JSON Pointer after `#`, when the reference had a fragment.
    pub pointer: Option<JsonPointer>,
}

fn is_segment(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len()) && s.chars().all(is_segment_char)
}

/// Parses a reference. Returns `None` for anything that is not exactly the scheme, a valid
/// conversation segment (1–64 of `[A-Za-z0-9_-]`), `/`, a token (8–16 of the same), and
/// optionally `#` followed by a valid RFC 6901 JSON Pointer of at most [`MAX_POINTER_BYTES`].
/// Never panics, whatever the input.
pub fn parse_cache_uri(uri: &str) -> Option<CacheUri<'_>> {
    match split_cache_uri(uri)? {
        (parsed, None) => Some(parsed),
        (parsed, Some(_)) => parsed.pointer.is_some().then_some(parsed),
    }
}

/// [`parse_cache_uri`], with the `#` fragment (at most [`MAX_POINTER_BYTES`]) as written. The
/// reference's `pointer` is `None` when that fragment is no JSON Pointer: a reader can then tell
/// a malformed pointer from a malformed reference.
#[inline(never)]
pub fn split_cache_uri(uri: &str) -> Option<(CacheUri<'_>, Option<&str>)> {
    let (key, fragment) = match text::find(uri, "#") {
        Some(i) => (&uri[..i], Some(&uri[i + 1..])),
        None => (uri, None),
    };
    let rest = key.strip_prefix(CACHE_URI_SCHEME)?;
    let (conv_id, token) = text::split_once(rest, "/")?;
    if !is_segment(conv_id, 1, MAX_CONV_SEGMENT_CHARS)
        || !is_segment(token, MIN_TOKEN_CHARS, MAX_TOKEN_CHARS)
        || fragment.is_some_and(|f| f.len() > MAX_POINTER_BYTES)
    {
        return None;
    }
    let parsed = CacheUri {
        key,
        conv_id,
        token,
        pointer: fragment.and_then(JsonPointer::parse),
    };
    Some((parsed, fragment))
}

/// True when `value` starts with the `mcp+cache://` scheme (whether or not it is well formed).
pub fn has_cache_scheme(value: &str) -> bool {
    value.starts_with(CACHE_URI_SCHEME)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_token_like_is_as_long_as_a_minted_one() {
        assert_eq!(base64url_no_pad(&[0; TOKEN_BYTES]), TOKEN_LIKE);
    }

    /// The server-side validator, written out by hand: `^mcp\+cache://[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_-]{8,16}$`.
    fn server_regex_accepts(uri: &str) -> bool {
        let Some(rest) = uri.strip_prefix("mcp+cache://") else {
            return false;
        };
        let Some((c, t)) = rest.split_once('/') else {
            return false;
        };
        uri.len() <= 128
            && (1..=64).contains(&c.len())
            && c.chars().all(is_segment_char)
            && (8..=16).contains(&t.len())
            && t.chars().all(is_segment_char)
    }

    #[test]
    fn sanitize_keeps_safe_ids_and_digests_lossy_ones() {
        assert_eq!(sanitize_conv_id("default"), "default");
        assert_eq!(sanitize_conv_id("0"), "0");
        assert_eq!(sanitize_conv_id("conv-1_A"), "conv-1_A");
        assert_eq!(sanitize_conv_id(&"a".repeat(64)), "a".repeat(64));
        let lossy = |id: &str| {
            let s = sanitize_conv_id(id);
            assert_eq!(s.len(), s.chars().count(), "{id:?} → {s:?} must be ASCII");
            assert!(s.len() <= MAX_CONV_SEGMENT_CHARS && s.chars().all(is_segment_char));
            let (prefix, digest) = s.rsplit_once('-').unwrap();
            assert_eq!(digest.len(), CONV_DIGEST_CHARS);
            prefix.to_owned()
        };
        assert_eq!(lossy(""), "");
        assert_eq!(lossy("////"), "____");
        assert_eq!(lossy("../evil/../host"), "___evil____host");
        assert_eq!(lossy(&"a".repeat(70)), "a".repeat(55));
        // Counted in UTF-16 code units, as JS does: the emoji is two units, so two `_`.
        assert_eq!(lossy("é漢🙂"), "____");
        assert_eq!(lossy("a b\tc\n"), "a_b_c_");
    }

    #[test]
    fn distinct_ids_get_distinct_segments() {
        let base = "tenant-7c1f0b8e-0d4c-4c39-9a4e-4b7f1d2a9e11/user-8/conversation-000";
        let ids = [
            "会話".to_owned(),
            "对话".to_owned(),
            "🙂 chat".to_owned(),
            "🙃 chat".to_owned(),
            "a/b".to_owned(),
            "a_b".to_owned(),
            "a b".to_owned(),
            format!("{base}1"),
            format!("{base}2"),
            String::new(),
            "default".to_owned(),
        ];
        let segments: HashSet<String> = ids.iter().map(|id| sanitize_conv_id(id)).collect();
        assert_eq!(segments.len(), ids.len());
        assert_eq!(sanitize_conv_id("会話"), sanitize_conv_id("会話"), "stable");
    }

    #[test]
    fn base64url_matches_rfc4648_vectors() {
        assert_eq!(base64url_no_pad(b""), "");
        assert_eq!(base64url_no_pad(b"f"), "Zg");
        assert_eq!(base64url_no_pad(b"fo"), "Zm8");
        assert_eq!(base64url_no_pad(b"foo"), "Zm9v");
        assert_eq!(base64url_no_pad(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url_no_pad(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_no_pad(&[0u8; 8]), "AAAAAAAAAAA");
    }

    #[test]
    fn ten_thousand_minted_uris_are_distinct_and_server_valid() {
        let mut seen = HashSet::new();
        for i in 0..10_000 {
            let uri = mint_cache_uri(&format!("conv/{i}")).unwrap();
            assert!(server_regex_accepts(&uri), "{uri}");
            let parsed = parse_cache_uri(&uri).unwrap();
            assert_eq!(parsed.token.len(), 11);
            assert!(parsed.conv_id.starts_with(&format!("conv_{i}-")));
            assert!(seen.insert(uri));
        }
        assert_eq!(seen.len(), 10_000);
    }

    #[test]
    fn minted_uri_for_hostile_ids_is_valid() {
        for id in ["", "////", "../evil/../host", &"x".repeat(500), "🙂"] {
            assert!(server_regex_accepts(&mint_cache_uri(id).unwrap()));
        }
    }

    #[test]
    fn parse_accepts_valid_references() {
        let p = parse_cache_uri("mcp+cache://conv-1/abcdEFGH_-12").unwrap();
        assert_eq!(p.key, "mcp+cache://conv-1/abcdEFGH_-12");
        assert_eq!(p.conv_id, "conv-1");
        assert_eq!(p.token, "abcdEFGH_-12");
        assert_eq!(p.pointer, None);

        let p = parse_cache_uri("mcp+cache://c/abcdefgh#/data/0").unwrap();
        assert_eq!(p.key, "mcp+cache://c/abcdefgh");
        assert_eq!(p.pointer.unwrap().tokens(), ["data", "0"]);

        let p = parse_cache_uri("mcp+cache://c/abcdefgh#").unwrap();
        assert!(p.pointer.unwrap().tokens().is_empty());
        assert!(parse_cache_uri(&format!(
            "mcp+cache://{}/{}",
            "c".repeat(64),
            "t".repeat(16)
        ))
        .is_some());
    }

    #[test]
    fn parse_rejects_malformed_references() {
        let ten_kb = "a".repeat(10 * 1024);
        let cases = [
            "".to_owned(),
            "https://c/abcdefgh".to_owned(),
            "MCP+CACHE://c/abcdefgh".to_owned(),
            "mcp+cache:/c/abcdefgh".to_owned(),
            "mcp+cache://".to_owned(),
            "mcp+cache://c".to_owned(),
            "mcp+cache://c/".to_owned(),
            "mcp+cache:///abcdefgh".to_owned(),
            "mcp+cache://../abcdefgh".to_owned(),
            "mcp+cache://c/../abcdefgh".to_owned(),
            "mcp+cache://c/abcdefg".to_owned(),
            "mcp+cache://c/abcdefghijklmnopq".to_owned(),
            "mcp+cache://c/abcd\u{0}efgh".to_owned(),
            "mcp+cache://c\n/abcdefgh".to_owned(),
            "mcp+cache://c/abcdefgh\u{7f}".to_owned(),
            "mcp+cache://c/abcdefgh/".to_owned(),
            "mcp+cache://c/abc defgh".to_owned(),
            "mcp+cache://c/abcdéfgh".to_owned(),
            "mcp+cache://c/abcdefgh#data".to_owned(),
            "mcp+cache://c/abcdefgh#/a~2".to_owned(),
            format!("mcp+cache://{}/abcdefgh", "c".repeat(65)),
            format!("mcp+cache://c/{ten_kb}"),
            format!("mcp+cache://{ten_kb}/abcdefgh"),
            format!("mcp+cache://c/abcdefgh#/{ten_kb}"),
            ten_kb.clone(),
        ];
        for case in &cases {
            assert_eq!(parse_cache_uri(case), None, "{case:?}");
        }
    }

    #[test]
    fn parse_never_panics_on_awkward_utf8() {
        for s in [
            "mcp+cache://🙂/🙂🙂🙂🙂🙂🙂🙂🙂",
            "mcp+cache://c/abcdefgh#🙂",
            "#",
            "mcp+cache://#/",
        ] {
            let _ = parse_cache_uri(s);
        }
        assert!(parse_cache_uri("mcp+cache://c/abcdefgh#/🙂").is_some());
    }
}
