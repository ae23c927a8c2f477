//! Size rules: a result's size is the UTF-8 byte length of `JSON.stringify(payload)`; a payload
//! that cannot be serialized has size 0 and is never cached; a result is cached when
//! `size >= threshold`.

/// Results whose JSON is at least this many UTF-8 bytes are cached by default.
pub const DEFAULT_CACHE_THRESHOLD_BYTES: u32 = 4096;
/// `afterToolCall` summarizes results whose JSON exceeds this many characters by default.
pub const DEFAULT_MAX_TOOL_RESULT_CHARS: u32 = 20_000;
/// Default cap on the length of an inline array argument.
pub const INLINE_LIST_MAX_RECORDS: u32 = 20;

/// UTF-8 byte length of a string given as UTF-16 code units (the form JS strings have), without
/// materializing the UTF-8. A lone surrogate counts 3 bytes, as `TextEncoder` encodes it as U+FFFD.
pub fn utf8_len_of_utf16(units: impl IntoIterator<Item = u16>) -> u64 {
    let mut bytes = 0u64;
    let mut pending_high = false;
    for u in units {
        if pending_high {
            pending_high = false;
            if (0xDC00..0xE000).contains(&u) {
                bytes += 1; // high (3) + low: a pair is 4 bytes in all
                continue;
            }
        }
        bytes += match u {
            0..=0x7F => 1,
            0x80..=0x7FF => 2,
            0xD800..=0xDBFF => {
                pending_high = true;
                3
            }
            _ => 3,
        };
    }
    bytes
}

/// The caching decision: serializable (size > 0) and at least `threshold` bytes.
pub fn should_cache(size_bytes: u64, threshold: u64) -> bool {
    size_bytes > 0 && size_bytes >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len(s: &str) -> u64 {
        utf8_len_of_utf16(s.encode_utf16())
    }

    #[test]
    fn utf16_to_utf8_length_matches_rust_strings() {
        for s in ["", "abc", "é", "漢字", "🙂", "a🙂é漢", "{\"k\":\"v\"}"] {
            assert_eq!(len(s), s.len() as u64, "{s}");
        }
    }

    #[test]
    fn lone_surrogates_count_as_replacement_characters() {
        assert_eq!(utf8_len_of_utf16([0xD800]), 3);
        assert_eq!(utf8_len_of_utf16([0xDC00]), 3);
        assert_eq!(utf8_len_of_utf16([0xD800, 0x41]), 4);
        assert_eq!(utf8_len_of_utf16([0xD800, 0xD800, 0xDC00]), 7);
    }

    #[test]
    fn threshold_boundary() {
        assert!(should_cache(4096, 4096));
        assert!(!should_cache(4095, 4096));
        assert!(!should_cache(0, 0));
        assert!(should_cache(1, 0));
    }
}
