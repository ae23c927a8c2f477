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
use crate::core::text;

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
        text::split(s, separator).collect()
    }
}

fn is_valid_segment(segment: &str) -> bool {
    segment == "**"
        || (!segment.is_empty()
            && text::find(segment, "**").is_none()
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
    let mut runs = text::split(&pattern[..last_star], "*");
    let first = runs.next().unwrap_or_default();
    let Some(rest) = segment.strip_prefix(first) else {
        return false;
    };
    let Some(mut middle) = rest.strip_suffix(last) else {
        return false;
    };
    for run in runs {
        match text::find(middle, run) {
            Some(at) => middle = &middle[at + run.len()..],
            None => return false,
        }
    }
    true
}

/// Segment-level dynamic program: `star_star` says whether a pattern segment is `**`, `one(p, n)`
/// whether a non-`**` pattern segment takes name segment `n`, and `can_skip(n)` whether `**`
/// may absorb name segment `n`.
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

/// Whether the segments of `name` match those of `pattern` ([`segment_dp`]): one copy for
/// [`match_glob`] and [`pattern_covers`].
fn segments_match(pattern: &[&str], name: &[&str]) -> bool {
    segment_dp(
        pattern,
        name,
        |s| *s == "**",
        |ps, ns| segment_matches(ps, ns),
        |_| true,
    )
}

/// True when `name` matches `pattern` (whole string, case-sensitive). Always false for a
/// pattern over [`MAX_PATTERN_LEN`] or a name over [`MAX_NAME_LEN`] bytes.
pub fn match_glob(pattern: &str, name: &str, separator: &str) -> bool {
    if pattern.len() > MAX_PATTERN_LEN || name.len() > MAX_NAME_LEN {
        return false;
    }
    let p = segments(pattern, separator);
    let n = segments(name, separator);
    segments_match(&p, &n)
}

/// How many segment comparisons [`pattern_covers`] makes before it gives up (answering
/// `false`): patterns as policies write them need hundreds to thousands (a later pattern with
/// five `**` against an earlier one of five segments: about a million); a pathological pair
/// of 1 KiB patterns stops within tens of milliseconds.
#[cfg(feature = "server")]
const COVER_WORK: usize = 1 << 22;

/// True when every name matched by `narrow` is also matched by `wide` (so a policy on `narrow`
/// placed after one on `wide` can never fire). Both patterns should be valid; a pattern over
/// [`MAX_PATTERN_LEN`] bytes covers nothing and is covered by nothing.
///
/// Exact: `wide` must match every name `every_name` makes of `narrow`. A segment of `narrow`
/// is its own text, its `*`s standing for any text: no literal of `wide` takes a `*`, only a
/// `*` of `wide` does, and that takes any text in its place. A `**` of `narrow` is zero to
/// `wide.len() + 1` segments `*`, which only a `*` or `**` of `wide` takes: a longer run has
/// more segments than `wide` has segments other than `**`, so (as `wide` matches the run one
/// shorter) a `**` of `wide` takes one of them, and so any number more. Deciding this is
/// coNP-hard in general (the names multiply with each `**`), so a pair needing more than
/// `COVER_WORK` segment comparisons answers `false`: never a cover that is not one.
///
/// Only with the `server` feature (`detectOverlaps`): the host `.wasm` is smaller for not
/// having it even unused, as `segments_match` then has one caller to be inlined into.
#[cfg(feature = "server")]
pub fn pattern_covers(wide: &str, narrow: &str, separator: &str) -> bool {
    if wide.len() > MAX_PATTERN_LEN || narrow.len() > MAX_PATTERN_LEN {
        return false;
    }
    let mut budget = COVER_WORK;
    every_name(
        &segments(wide, separator),
        &segments(narrow, separator),
        &mut Vec::new(),
        &mut budget,
    )
}

/// Whether `wide` matches every name made of `name` followed by what `narrow` stands for, a
/// `**` being 0 to `wide.len() + 1` segments `*` (a run of `**` counts as one). No segment at
/// all is no name (`""` is one empty segment). Each name tried takes its comparisons from
/// `budget`; too few left answers `false`.
#[cfg(feature = "server")]
fn every_name<'a>(
    wide: &[&str],
    narrow: &[&'a str],
    name: &mut Vec<&'a str>,
    budget: &mut usize,
) -> bool {
    let Some((first, rest)) = narrow.split_first() else {
        let work = wide.len() * (name.len() + 1);
        if *budget < work {
            return false;
        }
        *budget -= work;
        return name.is_empty() || segments_match(wide, name);
    };
    let len = name.len();
    let star_star = *first == "**";
    let mut runs = 1;
    if !star_star {
        name.push(first);
    } else if rest.first() != Some(&"**") {
        runs = wide.len() + 2;
    }
    let mut all = true;
    for _ in 0..runs {
        all = all && every_name(wide, rest, name, budget);
        name.push("*");
    }
    name.truncate(len);
    all
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

/// [`pattern_covers`]: spot checks, then proofs by brute force.
#[cfg(all(test, feature = "server"))]
mod cover_tests {
    use super::*;

    #[test]
    fn containment() {
        // Over the bound: covers nothing, covered by nothing.
        let long_pattern = format!("{}**", "a".repeat(MAX_PATTERN_LEN - 1));
        assert!(!pattern_covers(&long_pattern, "a", "."));
        assert!(!pattern_covers("**", &long_pattern, "."));
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
        // A `**` of the narrow pattern is not one segment: `*.**` and `**.*` are the same names
        // (one or more), and a wide `*` takes any one of them.
        assert!(c("billing.*.**", "billing.**.refund"));
        assert!(c("a.**.*", "a.*.**"));
        assert!(c("a.*.**", "a.**.*"));
        assert!(c("a.**.*", "a.b.**"));
        assert!(c("**.*.**", "**.x*.**"));
        assert!(c("*.**", "**.*"));
        assert!(c("**.**", "**"));
        assert!(c("*.**", "**"), "a name has at least one segment");
        assert!(!c("*.*.**", "**"));
        assert!(!c("a.**.*", "a.**"));
        assert!(!c("**.a.*", "**.a.**"));
    }

    /// Every sequence of 1 to `max` items of `alphabet`, joined by `separator`.
    fn sequences(alphabet: &[&str], max: usize, separator: &str) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        let mut last = vec![String::new()];
        for len in 1..=max {
            last = last
                .iter()
                .flat_map(|prefix| {
                    alphabet.iter().map(move |item| match len {
                        1 => (*item).to_owned(),
                        _ => format!("{prefix}{separator}{item}"),
                    })
                })
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    /// For every pair of `patterns`: whether `pattern_covers` says the first covers the second
    /// exactly when `match_glob` finds none of `names` that the second matches and the first
    /// does not. Returns the pairs where they disagree, and how many pairs cover.
    fn disagreements(patterns: &[String], names: &[String]) -> (Vec<(String, String)>, usize) {
        // Which names each pattern matches, one bit per name.
        let matched: Vec<Vec<u64>> = patterns
            .iter()
            .map(|p| {
                let mut bits = vec![0u64; names.len().div_ceil(64)];
                for (i, name) in names.iter().enumerate() {
                    if match_glob(p, name, ".") {
                        bits[i / 64] |= 1 << (i % 64);
                    }
                }
                bits
            })
            .collect();
        let (mut wrong, mut covering) = (Vec::new(), 0);
        for (wide, wide_bits) in patterns.iter().zip(&matched) {
            for (narrow, narrow_bits) in patterns.iter().zip(&matched) {
                let subset = narrow_bits.iter().zip(wide_bits).all(|(n, w)| n & !w == 0);
                let covers = pattern_covers(wide, narrow, ".");
                covering += usize::from(covers);
                if covers != subset {
                    wrong.push((wide.clone(), narrow.clone()));
                }
            }
        }
        (wrong, covering)
    }

    /// `pattern_covers` is exact on segments, proven by brute force: every pair of patterns of
    /// 1 to 3 segments over `**`, `*`, `a` and `a*` (84 patterns), against every name of 1 to 7
    /// segments over `a`, `az` and `z` (3 279 names).
    ///
    /// Why these names stand for all names. Against these patterns a name segment counts only
    /// by whether it is `a` and whether it starts with `a`: `a`, `az` and `z` are the three
    /// kinds there are. Why 7 segments are enough: a name has at least one segment; a wide
    /// pattern without `**` matches names of one length only, at most 3, so if it misses a
    /// name of a narrow pattern it misses one of at most 4 segments; a wide pattern with `**`
    /// has at most `m = 2` other segments, and if it misses a name of the narrow pattern, it
    /// misses one where each run of segments taken by a run of `**` of the narrow pattern is
    /// at most `m + 1 = 3` long (were every such name matched, in a longer run one segment is
    /// taken by a `**` of the wide pattern, which takes any number more). A narrow pattern of 3
    /// segments has at most two such runs around one other segment: 3 + 1 + 3 = 7.
    #[test]
    fn covers_exactly_when_no_name_tells_them_apart() {
        let patterns = sequences(&["**", "*", "a", "a*"], 3, ".");
        let names = sequences(&["a", "az", "z"], 7, ".");
        assert_eq!((patterns.len(), names.len()), (84, 3279));
        let (wrong, covering) = disagreements(&patterns, &names);
        assert!(
            wrong.is_empty(),
            "(wide, narrow) pattern_covers gets wrong: {wrong:?}"
        );
        // Not vacuous: many pairs cover, most do not.
        assert!(covering > 500 && covering < 84 * 84 / 2, "{covering}");
    }

    /// The same within one segment: every pair of segments of 1 to 4 characters over `a`, `b`
    /// and `*` without `**`, against every segment of 0 to 4 characters over `a`, `b` and `z`.
    /// Enough: if a wide segment covers what a narrow one with each `*` replaced by `z` is, it
    /// covers the narrow one (no literal of the wide one takes that `z`, so a `*` does, and it
    /// takes any text in its place); that stand-in is at most 4 characters.
    #[test]
    fn segment_covers_exactly_when_no_segment_tells_them_apart() {
        let patterns: Vec<String> = sequences(&["a", "b", "*"], 4, "")
            .into_iter()
            .filter(|p| !p.contains("**"))
            .collect();
        let mut names = sequences(&["a", "b", "z"], 4, "");
        names.push(String::new());
        let (wrong, covering) = disagreements(&patterns, &names);
        assert!(
            wrong.is_empty(),
            "(wide, narrow) pattern_covers gets wrong: {wrong:?}"
        );
        assert!(covering > 100, "{covering}");
    }
}
