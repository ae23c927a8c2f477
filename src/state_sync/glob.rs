//! Dot-glob matching of tool names, as MCP Fusion defines it, plus one extension.
//!
//! Names and patterns split on a separator (`.` by default; `_` or `__` for flat MCP tool
//! names). `*` is exactly one segment (an empty segment counts), `**` is zero or more segments;
//! matching is case-sensitive and covers the whole string. Extension: a `*` inside a segment
//! (`get_*`) matches any run of characters within that one segment.
//!
//! ## Bounds
//!
//! Tool names and patterns are short by protocol (MCP tool names are at most 128 characters;
//! LLM APIs accept 64). Both are bounded, far above any real name, and everything beyond the
//! bounds is answered in constant time:
//!
//! * a pattern longer than [`MAX_PATTERN_LEN`] bytes is invalid ([`validate_pattern`] says
//!   [`PatternError::TooLong`]) and matches nothing;
//! * a name longer than [`MAX_NAME_LEN`] bytes of UTF-8 is matched by no pattern (not even
//!   `**`).
//!
//! ## Cost
//!
//! A `*` inside a segment is matched greedily (the literal runs between stars are found
//! leftmost, in order, with a linear substring search), so one segment comparison is
//! O(len(pattern segment) + len(name segment)). The segments are then paired by an exact
//! dynamic program, O(segments(pattern) × segments(name)) comparisons in O(segments(name))
//! memory: linear in the name for a given pattern. A pattern as policies write them matches a
//! 4 KiB name in about 0.1 ms; the worst case at the bounds (`**.a.a.…` of 1 KiB against a
//! 4 KiB name) takes milliseconds.

use crate::core::envelope::json_string;

/// The default separator.
pub const DEFAULT_SEPARATOR: &str = ".";

/// Longest pattern, in bytes, that [`validate_pattern`] accepts and [`match_glob`] matches
/// with. Valid patterns are ASCII, so this is also their length in characters.
pub const MAX_PATTERN_LEN: usize = 1024;

/// Longest name, in bytes of UTF-8, that any pattern can match: 4 KiB, 32 times the longest
/// tool name MCP allows (MCP Fusion's own suite matches a 289-byte name). Matching is linear in
/// the name for a given pattern; the bound caps the worst case (a 1 KiB pattern of single
/// segments behind `**` against a 4 KiB name: about 1 M segment comparisons).
pub const MAX_NAME_LEN: usize = 4096;

/// Why a pattern is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern is empty.
    Empty,
    /// The pattern is longer than [`MAX_PATTERN_LEN`] bytes.
    TooLong,
    /// A segment is not `**` and not a non-empty run of `[A-Za-z0-9_-]` and `*` without `**`.
    InvalidSegment {
        /// The whole pattern.
        pattern: String,
        /// The offending segment.
        segment: String,
    },
}

impl PatternError {
    /// The message: `pattern must be a non-empty string`, `pattern is longer than 1024
    /// characters`, or `pattern "…" has invalid segment "…": allowed are …`.
    pub fn message(&self) -> String {
        match self {
            Self::Empty => "pattern must be a non-empty string".to_owned(),
            Self::TooLong => "pattern is longer than 1024 characters".to_owned(),
            Self::InvalidSegment { pattern, segment } => crate::core::text::concat(&[
                "pattern ",
                &json_string(pattern),
                " has invalid segment ",
                &json_string(segment),
                ": allowed are \"**\" or non-empty runs of letters, digits, \"_\", \"-\" and \"*\"",
            ]),
        }
    }
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for PatternError {}

fn segments<'a>(s: &'a str, separator: &str) -> Vec<&'a str> {
    if separator.is_empty() {
        vec![s]
    } else {
        s.split(separator).collect()
    }
}

fn is_valid_segment(segment: &str) -> bool {
    segment == "**"
        || (!segment.is_empty()
            && !segment.contains("**")
            && segment
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '*'))
}

/// Checks a pattern: non-empty, at most [`MAX_PATTERN_LEN`] bytes, and every segment valid.
pub fn validate_pattern(pattern: &str, separator: &str) -> Result<(), PatternError> {
    if pattern.is_empty() {
        return Err(PatternError::Empty);
    }
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(PatternError::TooLong);
    }
    match segments(pattern, separator)
        .into_iter()
        .find(|s| !is_valid_segment(s))
    {
        Some(segment) => Err(PatternError::InvalidSegment {
            pattern: pattern.to_owned(),
            segment: segment.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Matches one name segment against one pattern segment where `*` is any run of characters.
///
/// Exact and linear: the text before the first `*` must start the segment and the text after
/// the last `*` must end it; the literal runs in between are found leftmost, in order.
/// Leftmost is always safe with `*` as the only wildcard: any match can slide each run left
/// to its leftmost occurrence and still match. `str::find` is a Two-Way search, so the whole
/// comparison is O(len(pattern) + len(segment)).
pub fn segment_matches(pattern: &str, segment: &str) -> bool {
    // The last `*` by a byte scan (`*` is ASCII): no reverse char searcher in the module.
    let Some(last_star) = pattern.bytes().rposition(|b| b == b'*') else {
        return pattern == segment; // no `*`: the segment is the literal
    };
    let last = &pattern[last_star + 1..];
    let mut runs = pattern[..last_star].split("*");
    let first = runs.next().unwrap_or_default();
    let Some(rest) = segment.strip_prefix(first) else {
        return false;
    };
    let Some(mut middle) = rest.strip_suffix(last) else {
        return false;
    };
    for run in runs {
        match middle.find(run) {
            Some(at) => middle = &middle[at + run.len()..],
            None => return false,
        }
    }
    true
}

/// Segment-level dynamic program shared by matching and containment: `star_star` says whether a
/// pattern segment is `**`, `one(p, n)` whether a non-`**` pattern segment takes name segment
/// `n`, and `can_skip(n)` whether `**` may absorb name segment `n`.
fn segment_dp<P, N>(
    pattern: &[P],
    name: &[N],
    star_star: impl Fn(&P) -> bool,
    one: impl Fn(&P, &N) -> bool,
    can_skip: impl Fn(&N) -> bool,
) -> bool {
    // next[j]: pattern[i+1..] matches name[j..]
    let mut next = vec![false; name.len() + 1];
    next[name.len()] = true;
    let mut cur = vec![false; name.len() + 1];
    for p in pattern.iter().rev() {
        if star_star(p) {
            cur[name.len()] = next[name.len()];
            for j in (0..name.len()).rev() {
                cur[j] = next[j] || (can_skip(&name[j]) && cur[j + 1]);
            }
        } else {
            cur[name.len()] = false;
            for j in 0..name.len() {
                cur[j] = next[j + 1] && one(p, &name[j]);
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    next[0]
}

/// True when `name` matches `pattern` (whole string, case-sensitive). Always false for a
/// pattern over [`MAX_PATTERN_LEN`] or a name over [`MAX_NAME_LEN`] bytes.
pub fn match_glob(pattern: &str, name: &str, separator: &str) -> bool {
    if pattern.len() > MAX_PATTERN_LEN || name.len() > MAX_NAME_LEN {
        return false;
    }
    let p = segments(pattern, separator);
    let n = segments(name, separator);
    segment_dp(
        &p,
        &n,
        |s| *s == "**",
        |ps, ns| segment_matches(ps, ns),
        |_| true,
    )
}

/// True when every name matched by `narrow` is also matched by `wide` (so a policy on `narrow`
/// placed after one on `wide` can never fire). Both patterns should be valid; a pattern over
/// [`MAX_PATTERN_LEN`] bytes covers nothing and is covered by nothing.
pub fn pattern_covers(wide: &str, narrow: &str, separator: &str) -> bool {
    if wide.len() > MAX_PATTERN_LEN || narrow.len() > MAX_PATTERN_LEN {
        return false;
    }
    let w = segments(wide, separator);
    let n = segments(narrow, separator);
    segment_dp(
        &w,
        &n,
        |s| *s == "**",
        // A wide single segment covers a narrow one when its `*`s can absorb the narrow
        // segment's text, `*`s included (a narrow `**` is never a single segment).
        |ws, ns| *ns != "**" && segment_matches(ws, ns),
        // Only a wide `**` absorbs a narrow `**` — and any other narrow segment.
        |_| true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        match_glob(p, n, ".")
    }

    #[test]
    fn design_reference_rows() {
        assert!(!m("a.*", "a"));
        assert!(m("a.*", "a."));
        assert!(m("a.**", "a"));
        assert!(m("**.a", "a"));
        assert!(m("a.*.b", "a..b"));
        assert!(m("a.**.b.**.c", "a.x.b.y.z.c"));
        assert!(!m("Sprints.get", "sprints.get"));
        assert!(m("**", ""));
    }

    #[test]
    fn issue_rows() {
        assert!(!m("sprints.*", "sprints.tasks.get"));
        assert!(m("sprints.*", "sprints.get"));
        assert!(m("*.get", "sprints.get"));
        assert!(!m("*.get", "a.b.get"));
        assert!(m("sprints.*.get", "sprints.x.get"));
        assert!(!m("sprints.*.get", "sprints.get"));
        assert!(m("**.get", "a.b.c.get"));
        assert!(m("a.**.z", "a.z"));
        assert!(m("a.**.z", "a.b.z"));
        assert!(m("a.**.z", "a.b.c.z"));
        assert!(!m("a.**.z", "a.b.c"));
        assert!(m("billing.get_*", "billing.get_invoice"));
        assert!(!m("billing.get_*", "billing.get.x"));
        assert!(!m("billing.get_*", "billing.refund"));
        assert!(m("billing.*_invoice", "billing.get_invoice"));
        assert!(m("sprints.get", "sprints.get"));
        assert!(!m("sprints.get", "sprints.get.x"));
    }

    #[test]
    fn a_hundred_segments() {
        let name = format!("{}.a.a.a.a.a.b", vec!["a"; 100].join("."));
        assert!(m("**.a.a.a.a.a.b", &name));
        assert!(!m("**.a.a.a.a.a.c", &name));
        assert!(m("**.**.**.b", &name));
    }

    /// MCP Fusion's "handles long tool names gracefully": `seg0.seg1.….seg49`, 289 bytes.
    #[test]
    fn long_tool_names() {
        let segs: Vec<String> = (0..50).map(|i| format!("seg{i}")).collect();
        let name = segs.join(".");
        assert_eq!(name.len(), 289);
        assert!(m("**", &name));
        assert!(m("seg0.**", &name));
        assert!(!m("nonexistent.**", &name));
        // `*` is one segment: neither matches fifty.
        assert!(!m("seg0.*", &name));
        assert!(!m("*.seg49", &name));
        assert!(!m("*", &name));
        assert!(m("**.seg49", &name));
        assert!(!m("**.seg48", &name));
        assert!(m("seg0.**.seg49", &name));
        assert!(m("seg0.**.seg25.**.seg49", &name));
        assert!(!m("seg0.**.seg25.**.seg24", &name));
        assert!(m("seg0.seg1.**.seg48.*", &name));
        assert!(m("seg*.**.seg4*", &name));
        assert!(m("**.**.**.**.**", &name));
        assert!(m(&name, &name));
        assert!(!m(&name, &segs[..49].join(".")));
        assert!(m(&format!("{}.**", segs[..49].join(".")), &name));
        assert!(m(&["*"; 50].join("."), &name));
        assert!(!m(&["*"; 49].join("."), &name));
        assert!(!m(&["*"; 51].join("."), &name));
        assert!(match_glob("seg0_**", &segs.join("_"), "_"));
        assert!(!match_glob("seg0_*", &segs.join("_"), "_"));
        assert!(match_glob("seg0__**", &segs.join("__"), "__"));
        assert!(!match_glob("seg0__*", &segs.join("__"), "__"));
        // MCP Fusion's deeply nested `**` against 27 segments: answered (all `**` match all).
        let letters = "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.no-match";
        assert!(m("**.**.**.**.**", letters));
        assert!(!m("**.**.a.**.**.b.**.**.match", letters));
        // 800 segments, near the bound.
        let long: Vec<String> = (0..800).map(|i| format!("s{i}")).collect();
        let long = long.join(".");
        assert!(long.len() > 3800 && long.len() <= MAX_NAME_LEN);
        assert!(m("s0.**.s799", &long));
        assert!(m("**.s500.**", &long));
        assert!(!m("**.s500.s499.**", &long));
        assert!(!m("s0.*", &long));
    }

    #[test]
    fn bounds() {
        let longest = "a".repeat(MAX_NAME_LEN);
        assert!(m("**", &longest));
        assert!(m("a*", &longest));
        let too_long = "a".repeat(MAX_NAME_LEN + 1);
        assert!(!m("**", &too_long), "no pattern matches an over-long name");
        assert!(!m("*", &too_long));
        // Multi-byte characters count in bytes: 1366 × 3 = 4098 bytes.
        assert!(m("*", &"€".repeat(MAX_NAME_LEN / 3)));
        assert!(!m("*", &"€".repeat(MAX_NAME_LEN / 3 + 1)));
        // The longest name of single-character segments, every one of them read.
        let dots = ".".repeat(MAX_NAME_LEN - 1);
        assert!(m("**", &dots));
        assert!(m("*.**.*", &dots));
        assert!(m("**.a*.**", &format!("{dots}a")));
        assert!(!m("**.a", &dots));
        let pattern = format!("{}*", "a".repeat(MAX_PATTERN_LEN - 1));
        assert_eq!(validate_pattern(&pattern, "."), Ok(()));
        let long_pattern = format!("{pattern}*");
        assert_eq!(
            validate_pattern(&long_pattern, "."),
            Err(PatternError::TooLong)
        );
        assert!(PatternError::TooLong
            .to_string()
            .contains("longer than 1024"));
        assert!(!m(&format!("**.{}", "*".repeat(MAX_PATTERN_LEN)), "a"));
        assert!(!pattern_covers(&long_pattern, "a", "."));
        assert!(!pattern_covers("**", &long_pattern, "."));
    }

    #[test]
    fn in_segment_stars() {
        assert!(segment_matches("*", ""));
        assert!(segment_matches("", ""));
        assert!(!segment_matches("", "a"));
        assert!(!segment_matches("a*a", "a"));
        assert!(segment_matches("a*a", "aa"));
        assert!(segment_matches("a*b*c", "abc"));
        assert!(segment_matches("a*b*c", "axxbyyc"));
        assert!(!segment_matches("a*b*c", "axxcyyb"));
        assert!(segment_matches("*ab*ab*", "abab"));
        assert!(!segment_matches("*ab*ab*", "aba"));
        assert!(segment_matches("*é*", "xéx"));
        // The adversarial shape of backtracking matchers, answered in linear time.
        let name = "a".repeat(20_000);
        assert!(!segment_matches(
            &format!("*{}b", "a".repeat(10_000)),
            &name
        ));
        assert!(segment_matches(&format!("*{}", "a".repeat(10_000)), &name));
    }

    #[test]
    fn other_separators() {
        assert!(match_glob("billing_get_*", "billing_get_invoice", "_"));
        assert!(match_glob("billing__*", "billing__get_invoice", "__"));
        assert!(!match_glob("billing__*", "billing__get__invoice", "__"));
        assert!(match_glob("billing__**", "billing__get__invoice", "__"));
    }

    #[test]
    fn validation() {
        for ok in ["a", "a.b", "*", "**", "a.*.b", "get_*", "a-b.c_d", "**.x"] {
            assert_eq!(validate_pattern(ok, "."), Ok(()), "{ok}");
        }
        assert_eq!(validate_pattern("", "."), Err(PatternError::Empty));
        assert!(PatternError::Empty
            .to_string()
            .contains("must be a non-empty string"));
        for bad in ["***", "a..b", "a b", "a.", ".a", "a.**b", "a/b", "é"] {
            let err = validate_pattern(bad, ".").unwrap_err();
            assert!(err.to_string().contains("invalid segment"), "{bad}");
        }
    }

    #[test]
    fn containment() {
        let c = |w: &str, n: &str| pattern_covers(w, n, ".");
        assert!(c("sprints.*", "sprints.update"));
        assert!(c("**", "billing.*"));
        assert!(c("**", "billing.pay"));
        assert!(c("billing.*", "billing.pay"));
        assert!(c("billing.*", "billing.get_*"));
        assert!(c("billing.get_*", "billing.get_x*"));
        assert!(!c("billing.get_*", "billing.*"));
        assert!(!c("billing.pay", "billing.*"));
        assert!(!c("a.*", "a.**"));
        assert!(c("a.**", "a.*"));
        assert!(c("a.**", "a.**.b"));
        assert!(!c("a.*.b", "a.**.b"));
        assert!(!c("x*", "*"));
    }

    /// Naive recursive matcher, the obviously-correct reference.
    fn naive(p: &[&str], n: &[&str]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((&"**", rest)) => (0..=n.len()).any(|k| naive(rest, &n[k..])),
            Some((seg, rest)) => match n.split_first() {
                Some((first, tail)) => {
                    naive_segment(seg.as_bytes(), first.as_bytes()) && naive(rest, tail)
                }
                None => false,
            },
        }
    }

    fn naive_segment(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|k| naive_segment(rest, &s[k..])),
            Some((c, rest)) => s.first() == Some(c) && naive_segment(rest, &s[1..]),
        }
    }

    #[test]
    fn property_against_the_naive_matcher() {
        // xorshift64*: deterministic, seeded.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |bound: u64| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % bound
        };
        let pattern_segments = ["**", "*", "a", "b", "a*", "*b", "a*b", "ab", ""];
        let name_segments = ["a", "b", "ab", "ba", "aab", "", "abb"];
        let mut mismatches = 0;
        for _ in 0..20_000 {
            let p: Vec<&str> = (0..1 + next(6))
                .map(|_| pattern_segments[next(9) as usize])
                .collect();
            let n: Vec<&str> = (0..1 + next(7))
                .map(|_| name_segments[next(7) as usize])
                .collect();
            let (ps, ns) = (p.join("."), n.join("."));
            if match_glob(&ps, &ns, ".") != naive(&p, &n) {
                mismatches += 1;
                eprintln!("mismatch: {ps:?} vs {ns:?}");
            }
        }
        assert_eq!(mismatches, 0);
    }
}
