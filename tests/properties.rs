#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the pure Rust layers (`core` and `state_sync`), checked against small
//! independent models written out by hand in this file.
//!
//! Every property asserts behaviour (an exact model, a round trip, soundness), and also runs on
//! arbitrary input, where "never panics" is one of the checks.
//!
//! The number of cases per property comes from `PROPTEST_CASES` (default 256, proptest's own
//! default): `npm test` (`cargo test`) runs the default, `scripts/fuzz.sh` runs
//! `cargo test --release --test properties` with enough cases for at least 10^6 in total.
//! Each property reports how many cases it ran on stderr and, when `PROPERTIES_CASES_LOG` names
//! a file, appends `<property> <cases>` to it (the fuzz script sums that file).
//! Failure persistence is off: a failure prints the shrunk input, and a bug found that way is
//! pinned as a plain `#[test]` at the end of this file.
// Test code: clippy.toml's size rules are for the shipped `.wasm`.
#![allow(
    clippy::disallowed_macros,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;
use std::io::Write;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use proptest::collection::{vec, SizeRange};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use mcp_result_cache::core::cap::{check_inline_list_cap, CappedArg};
use mcp_result_cache::core::envelope::{
    cache_miss_signature, inline_cap_envelope, json_string, resolution_envelope, ReferenceFailure,
};
use mcp_result_cache::core::pointer::{array_index, JsonPointer};
use mcp_result_cache::core::record::LookupOutcome;
use mcp_result_cache::core::substitute::{
    substitute, ArgValue, Edit, Plan, Reference, ReferenceLookup, Resolved, Substitution,
};
use mcp_result_cache::core::uri::{
    format_cache_uri, mint_cache_uri, parse_cache_uri, sanitize_conv_id,
};
use mcp_result_cache::state_sync::decorate::{
    cache_control_tag, decorate_description, escape_xml_attr, invalidation_tag,
    parse_cache_control, stale_notification_uri,
};
use mcp_result_cache::state_sync::glob::{
    match_glob, pattern_covers, segment_matches, validate_pattern, PatternError,
};
use mcp_result_cache::state_sync::invalidation::{
    is_invalidation_text, parse_invalidations, stale_pattern, unescape_xml, Invalidation,
    STALE_URI_PREFIXES,
};
use mcp_result_cache::state_sync::list_cache::{
    list_cache_meta, ListCache, ListEntry, ListHit, ListParams, ListScope,
};
use mcp_result_cache::state_sync::policy::{
    detect_overlaps, CacheDirective, PolicyEngine, ResolvedPolicy, SyncPolicy,
};
use mcp_result_cache::state_sync::template::match_uri_template;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// proptest's default number of cases, used when `PROPTEST_CASES` is unset.
const DEFAULT_CASES: u32 = 256;

/// Cases from `PROPTEST_CASES`, failure persistence off (nothing is written into the tree).
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let mut config = Config::with_cases(cases);
    config.failure_persistence = None;
    config
}

/// Runs one property; panics with the shrunk input on failure, reports the case count on success.
fn check<S>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: Debug,
{
    let mut runner = TestRunner::new(config());
    let passed = Cell::new(0u64);
    let outcome = runner.run(&strategy, |value| {
        test(value)?;
        passed.set(passed.get() + 1);
        Ok(())
    });
    match outcome {
        Ok(()) => record_cases(name, passed.get()),
        Err(TestError::Fail(why, input)) => {
            panic!("property `{name}` failed: {why}\nminimal failing input: {input:#?}")
        }
        Err(TestError::Abort(why)) => panic!("property `{name}` aborted: {why}"),
    }
}

fn record_cases(name: &str, cases: u64) {
    eprintln!("[properties] {name}: {cases} cases");
    if let Some(path) = std::env::var_os("PROPERTIES_CASES_LOG") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open PROPERTIES_CASES_LOG");
        writeln!(file, "{name} {cases}").expect("write PROPERTIES_CASES_LOG");
    }
}

/// Polls a future that is ready at once (the in-memory lookup never waits).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("the in-memory lookup must not wait"),
    }
}

/// xorshift64*, for deriving many samples from one generated seed inside a case.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % bound as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies shared by several properties
// ---------------------------------------------------------------------------------------------

fn string_from(
    chars: impl Strategy<Value = char>,
    len: impl Into<SizeRange>,
) -> impl Strategy<Value = String> {
    vec(chars, len).prop_map(|chars| chars.into_iter().collect::<String>())
}

fn concat_of(
    pool: &'static [&'static str],
    len: impl Into<SizeRange>,
) -> impl Strategy<Value = String> {
    vec(select(pool), len).prop_map(|parts| parts.concat())
}

/// Arbitrary Unicode, including control characters and very long strings.
fn any_text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        8 => string_from(any::<char>(), 0..40),
        1 => string_from(any::<char>(), 0..max),
    ]
}

const SEG_CHARS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

fn seg_char() -> impl Strategy<Value = char> {
    select(SEG_CHARS.chars().collect::<Vec<_>>())
}

fn valid_run(len: impl Into<SizeRange>) -> impl Strategy<Value = String> {
    string_from(seg_char(), len)
}

/// Characters that are interesting next to `[A-Za-z0-9_-]`: separators, escapes, controls
/// (C0, DEL, C1), invisible and multi-byte characters, and anything at all.
fn noise_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => select(vec![
            '/', '#', '~', ' ', '\0', '\n', '\t', '\u{7f}', '\u{85}', '\u{9f}', '\u{a0}', 'é',
            '🙂', '+', ':', '.', '%', '\u{200b}', '\u{feff}',
        ]),
        1 => any::<char>(),
    ]
}

/// Maybe inserts or substitutes one noise character.
fn maybe_corrupt(s: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (
        s,
        prop::option::weighted(
            0.2,
            (any::<prop::sample::Index>(), noise_char(), any::<bool>()),
        ),
    )
        .prop_map(|(s, corruption)| match corruption {
            None => s,
            Some((index, c, replace)) => {
                let mut chars: Vec<char> = s.chars().collect();
                let i = index.index(chars.len() + 1);
                if replace && i < chars.len() {
                    chars[i] = c;
                } else {
                    chars.insert(i, c);
                }
                chars.into_iter().collect()
            }
        })
}

// ---------------------------------------------------------------------------------------------
// Independent models
// ---------------------------------------------------------------------------------------------

const SCHEME: &str = "mcp+cache://";

fn is_seg_byte(b: u8) -> bool {
    matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-')
}

/// Unicode general category Cc: C0, DEL and C1.
fn is_cc(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || (0x7f..=0x9f).contains(&u)
}

/// The servers' `^mcp\+cache://[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_-]{8,16}$`, by hand.
fn server_regex(s: &str) -> bool {
    let Some(rest) = s.strip_prefix(SCHEME) else {
        return false;
    };
    let b = rest.as_bytes();
    let conv = b.iter().take_while(|&&c| is_seg_byte(c)).count();
    if !(1..=64).contains(&conv) || b.get(conv) != Some(&b'/') {
        return false;
    }
    let token = &b[conv + 1..];
    (8..=16).contains(&token.len()) && token.iter().all(|&c| is_seg_byte(c))
}

/// RFC 6901 (plus: no control characters), as a character state machine.
fn model_pointer(p: &str) -> Option<Vec<String>> {
    if p.is_empty() {
        return Some(Vec::new());
    }
    let mut chars = p.chars();
    if chars.next() != Some('/') {
        return None;
    }
    let mut tokens = vec![String::new()];
    while let Some(c) = chars.next() {
        match c {
            c if is_cc(c) => return None,
            '/' => tokens.push(String::new()),
            '~' => match chars.next() {
                Some('0') => tokens.last_mut()?.push('~'),
                Some('1') => tokens.last_mut()?.push('/'),
                _ => return None,
            },
            c => tokens.last_mut()?.push(c),
        }
    }
    Some(tokens)
}

fn escape_pointer_token(t: &str) -> String {
    t.replace('~', "~0").replace('/', "~1")
}

fn pointer_from_tokens(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", escape_pointer_token(t)))
        .collect()
}

#[derive(Debug, PartialEq)]
struct UriModel {
    key: String,
    conv: String,
    token: String,
    pointer: Option<(String, Vec<String>)>,
}

fn model_uri(uri: &str) -> Option<UriModel> {
    let (key, fragment) = match uri.split_once('#') {
        Some((key, fragment)) => (key, Some(fragment)),
        None => (uri, None),
    };
    if !server_regex(key) {
        return None;
    }
    let (conv, token) = key[SCHEME.len()..].split_once('/')?;
    let pointer = match fragment {
        None => None,
        Some(f) if f.len() > 2048 => return None,
        Some(f) => Some((f.to_owned(), model_pointer(f)?)),
    };
    Some(UriModel {
        key: key.to_owned(),
        conv: conv.to_owned(),
        token: token.to_owned(),
        pointer,
    })
}

/// Splits on a (non-empty ASCII) separator left to right, non-overlapping; `""` = no split.
fn split_on<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    if sep.is_empty() {
        return vec![s];
    }
    let (bytes, sep_bytes) = (s.as_bytes(), sep.as_bytes());
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i + sep_bytes.len() <= bytes.len() {
        if &bytes[i..i + sep_bytes.len()] == sep_bytes {
            out.push(&s[start..i]);
            i += sep_bytes.len();
            start = i;
        } else {
            i += 1;
        }
    }
    out.push(&s[start..]);
    out
}

/// Naive wildcard matching within a segment: `*` is any run of characters.
fn naive_segment(p: &[char], s: &[char]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some(('*', rest)) => (0..=s.len()).any(|k| naive_segment(rest, &s[k..])),
        Some((c, rest)) => s.first() == Some(c) && naive_segment(rest, &s[1..]),
    }
}

fn naive_segment_str(p: &str, s: &str) -> bool {
    naive_segment(
        &p.chars().collect::<Vec<_>>(),
        &s.chars().collect::<Vec<_>>(),
    )
}

/// Naive glob over segments: `**` is zero or more segments, anything else one segment.
fn naive_glob(p: &[&str], n: &[&str]) -> bool {
    match p.split_first() {
        None => n.is_empty(),
        Some((&"**", rest)) => (0..=n.len()).any(|k| naive_glob(rest, &n[k..])),
        Some((seg, rest)) => match n.split_first() {
            Some((first, tail)) => naive_segment_str(seg, first) && naive_glob(rest, tail),
            None => false,
        },
    }
}

/// The documented bounds: patterns over 1024 bytes and names over 4096 bytes match nothing.
fn naive_match(pattern: &str, name: &str, sep: &str) -> bool {
    pattern.len() <= 1024
        && name.len() <= mcp_result_cache::state_sync::glob::MAX_NAME_LEN
        && naive_glob(&split_on(pattern, sep), &split_on(name, sep))
}

/// `Ok`, or the first offending segment (`None` = the pattern is empty).
fn model_validate(pattern: &str, sep: &str) -> Result<(), Option<String>> {
    if pattern.is_empty() {
        return Err(None);
    }
    if pattern.len() > 1024 {
        return Err(Some(String::from("(too long)")));
    }
    let valid = |s: &str| {
        s == "**"
            || (!s.is_empty()
                && !s.as_bytes().windows(2).any(|w| w == b"**")
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*')))
    };
    match split_on(pattern, sep).into_iter().find(|s| !valid(s)) {
        Some(segment) => Err(Some(segment.to_owned())),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// core::uri
// ---------------------------------------------------------------------------------------------

fn pointer_token() -> impl Strategy<Value = String> {
    string_from(
        prop_oneof![
            4 => select(vec!['~', '/', '0', '1', 'a', '#', ' ', 'é']),
            1 => any::<char>(),
        ],
        0..6,
    )
}

fn pointer_input() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => vec(pointer_token(), 0..5).prop_map(|tokens| pointer_from_tokens(&tokens)),
        3 => string_from(
            select(vec!['/', '~', '0', '1', '2', 'a', '#', ' ', '\u{1}', '\u{7f}', 'é']),
            0..12,
        ),
        // Around MAX_POINTER_BYTES (2048), with a 2-byte character straddling it sometimes.
        1 => (2040usize..=2050, any::<bool>()).prop_map(|(n, wide)| {
            format!("/{}{}", "a".repeat(n), if wide { "é" } else { "" })
        }),
    ]
}

fn uri_input() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        12 => Just(SCHEME),
        1 => select(vec![
            "", "MCP+CACHE://", "mcp+cache:/", "mcp+cache:", "mcp-cache://", "mcp+cache:///",
            "https://", " mcp+cache://", "mcp+cache://\u{0}",
        ]),
    ];
    let conv = maybe_corrupt(prop_oneof![
        2 => valid_run(1..=64),
        1 => valid_run(0..=3),
        1 => valid_run(60..=66),
    ]);
    let slash = prop_oneof![10 => Just("/"), 1 => select(vec!["", "//", "#", "\\"])];
    let token = maybe_corrupt(prop_oneof![
        3 => valid_run(8..=16),
        1 => valid_run(6..=18),
        1 => valid_run(0..=20),
    ]);
    let fragment = prop::option::weighted(0.4, pointer_input());
    let structured = (scheme, conv, slash, token, fragment).prop_map(|(a, b, c, d, e)| {
        let fragment = e.map(|f| format!("#{f}")).unwrap_or_default();
        format!("{a}{b}{c}{d}{fragment}")
    });
    prop_oneof![
        6 => structured,
        1 => any_text(200),
        1 => any_text(200).prop_map(|s| format!("{SCHEME}{s}")),
        1 => string_from(prop_oneof![seg_char(), noise_char()], 0..4000),
    ]
}

#[test]
fn uri_parse_agrees_with_the_server_regex_and_rfc6901() {
    check(
        "uri_parse_agrees_with_the_server_regex_and_rfc6901",
        uri_input(),
        |uri| {
            let got = parse_cache_uri(&uri);
            let want = model_uri(&uri);
            match (got, want) {
                (None, None) => {}
                (Some(got), Some(want)) => {
                    prop_assert!(server_regex(got.key), "accepted key {:?}", got.key);
                    prop_assert!(uri.starts_with(got.key));
                    prop_assert_eq!(got.key, want.key.as_str());
                    prop_assert_eq!(got.conv_id, want.conv.as_str());
                    prop_assert_eq!(got.token, want.token.as_str());
                    let pointer = got
                        .pointer
                        .as_ref()
                        .map(|p| (p.as_str().to_owned(), p.tokens().to_vec()));
                    prop_assert_eq!(pointer, want.pointer);
                }
                (got, want) => prop_assert!(false, "parse {got:?} but model {want:?}"),
            }
            Ok(())
        },
    );
}

fn conv_id_input() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any_text(300),
        3 => maybe_corrupt(valid_run(0..=80)),
        1 => select(vec![
            "", "default", "default ", " default", "Default", "defaul", "default\u{0}", "_______",
            "../evil/../host", "////",
        ])
        .prop_map(str::to_owned),
        1 => (60usize..=70, noise_char()).prop_map(|(n, c)| c.to_string().repeat(n)),
    ]
}

#[test]
fn sanitize_conv_id_shape_idempotence_and_injectivity() {
    check(
        "sanitize_conv_id_shape_idempotence_and_injectivity",
        (conv_id_input(), conv_id_input()),
        |(id, other)| {
            let out = sanitize_conv_id(&id);
            prop_assert!(
                (1..=64).contains(&out.len()) && out.bytes().all(is_seg_byte),
                "{out:?} is not [A-Za-z0-9_-]{{1,64}}"
            );
            prop_assert_eq!(sanitize_conv_id(&out), out.clone(), "not idempotent");
            let lossless = (1..=64).contains(&id.len()) && id.bytes().all(is_seg_byte);
            prop_assert_eq!(out == id, lossless, "safe ids are their own segment");
            if !lossless {
                // The first 55 UTF-16 code units (as JS counts them), unsafe ones as `_`, then
                // `-` and an 8-character digest of the whole id.
                let input: Vec<u16> = id.encode_utf16().take(55).collect();
                prop_assert_eq!(out.len(), input.len() + 9);
                for (o, i) in out.chars().zip(input) {
                    let safe = i < 0x80 && is_seg_byte(i as u8);
                    prop_assert_eq!(o, if safe { char::from(i as u8) } else { '_' });
                }
                prop_assert_eq!(out.as_bytes()[out.len() - 9], b'-');
            }
            if id != other {
                prop_assert_ne!(
                    out,
                    sanitize_conv_id(&other),
                    "distinct ids share a segment"
                );
            }
            Ok(())
        },
    );
}

#[test]
fn formatted_and_minted_uris_round_trip_through_parse() {
    check(
        "formatted_and_minted_uris_round_trip_through_parse",
        (
            conv_id_input(),
            valid_run(8..=16),
            prop::option::of(vec(pointer_token(), 0..4)),
        ),
        |(id, token, tokens)| {
            let conv = sanitize_conv_id(&id);
            let uri = format_cache_uri(&conv, &token);
            prop_assert_eq!(&uri, &format!("{SCHEME}{conv}/{token}"));
            prop_assert!(server_regex(&uri), "{uri:?}");
            let parsed = parse_cache_uri(&uri);
            prop_assert!(parsed.is_some(), "{uri:?} rejected");
            let parsed = parsed.unwrap();
            prop_assert_eq!(parsed.key, uri.as_str());
            prop_assert_eq!(parsed.conv_id, conv.as_str());
            prop_assert_eq!(parsed.token, token.as_str());
            prop_assert_eq!(parsed.pointer, None);

            if let Some(tokens) = tokens {
                let pointer = pointer_from_tokens(&tokens);
                let with = format!("{uri}#{pointer}");
                let parsed = parse_cache_uri(&with);
                if tokens.iter().any(|t| t.chars().any(is_cc)) {
                    prop_assert_eq!(parsed, None);
                } else {
                    prop_assert!(parsed.is_some(), "{with:?} rejected");
                    let parsed = parsed.unwrap();
                    prop_assert_eq!(parsed.key, uri.as_str());
                    let p = parsed.pointer.unwrap();
                    prop_assert_eq!(p.as_str(), pointer.as_str());
                    prop_assert_eq!(p.tokens(), tokens.as_slice());
                }
            }

            let minted = mint_cache_uri(&id).expect("CSPRNG available natively");
            prop_assert!(server_regex(&minted), "{minted:?}");
            let parsed = parse_cache_uri(&minted).unwrap();
            prop_assert_eq!(parsed.conv_id, conv.as_str());
            prop_assert_eq!(parsed.token.len(), 11);
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// core::pointer
// ---------------------------------------------------------------------------------------------

#[test]
fn json_pointer_parse_agrees_with_the_model() {
    check(
        "json_pointer_parse_agrees_with_the_model",
        prop_oneof![3 => pointer_input(), 1 => any_text(3000)],
        |pointer| {
            let got = JsonPointer::parse(&pointer);
            prop_assert_eq!(
                got.as_ref().map(|p| p.tokens().to_vec()),
                model_pointer(&pointer)
            );
            if let Some(p) = got {
                prop_assert_eq!(p.as_str(), pointer.as_str());
            }
            Ok(())
        },
    );
}

#[test]
fn json_pointer_escaping_round_trips_any_tokens() {
    check(
        "json_pointer_escaping_round_trips_any_tokens",
        vec(prop_oneof![3 => pointer_token(), 1 => any_text(50)], 0..8),
        |tokens| {
            let pointer = pointer_from_tokens(&tokens);
            let parsed = JsonPointer::parse(&pointer);
            if tokens.iter().any(|t| t.chars().any(is_cc)) {
                prop_assert_eq!(parsed, None, "control characters are rejected");
            } else {
                prop_assert!(parsed.is_some(), "{pointer:?} rejected");
                let parsed = parsed.unwrap();
                prop_assert_eq!(parsed.tokens(), tokens.as_slice());
                prop_assert_eq!(parsed.as_str(), pointer.as_str());
            }
            Ok(())
        },
    );
}

#[test]
fn array_index_accepts_exactly_canonical_u32_decimals() {
    check(
        "array_index_accepts_exactly_canonical_u32_decimals",
        prop_oneof![
            2 => any::<u32>().prop_map(|n| n.to_string()),
            2 => string_from(select(vec!['0', '1', '4', '9']), 0..12),
            1 => string_from(
                select(vec!['0', '1', '9', '-', '+', ' ', 'e', 'a', '٣', '０']),
                0..6,
            ),
            1 => (4_294_967_290u64..=4_294_967_300).prop_map(|n| n.to_string()),
        ],
        |token| {
            let want = token.parse::<u32>().ok().filter(|n| n.to_string() == token);
            prop_assert_eq!(array_index(&token), want);
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// core::substitute and core::envelope
// ---------------------------------------------------------------------------------------------

/// References with the cache scheme (well formed or not: only the scheme decides).
const CACHE_URIS: &[&str] = &[
    "mcp+cache://c/AAAAAAAAAAA",
    "mcp+cache://c/BBBBBBBBBBB",
    "mcp+cache://c/CCCCCCCCCCC#/rows/0",
    "mcp+cache://other/DDDDDDDD",
    "mcp+cache://x",
    "mcp+cache://",
    "mcp+cache://c/AAAAAAAAAAA#",
];
const NON_CACHE_STRINGS: &[&str] = &[
    "https://example.com/x.json",
    "",
    "MCP+CACHE://c/AAAAAAAAAAA",
    " mcp+cache://c/AAAAAAAAAAA",
    "mcp+cache:/c/AAAAAAAAAAA",
    "mcp+cache:",
    "data",
];
const ARG_KEYS: &[&str] = &[
    "data",
    "data_uri",
    "x",
    "x_uri",
    "_uri",
    "__uri",
    "uri",
    "__proto__",
    "__proto___uri",
    "constructor",
    "constructor_uri",
    "toString_uri",
    "a",
    "a_uri",
    "b_uri",
    "data_uri_uri",
    "Data_URI",
    "data_url",
    "é_uri",
    "",
];

#[derive(Debug, Clone)]
enum GenValue {
    Text(String),
    List(Vec<String>),
    Other,
}

#[derive(Debug, Clone)]
enum GenOutcome {
    Hit,
    Miss,
    Stale { cause: String, source: String },
    BadPointer(String),
}

fn arg_string() -> impl Strategy<Value = String> {
    prop_oneof![4 => select(CACHE_URIS), 1 => select(NON_CACHE_STRINGS)].prop_map(str::to_owned)
}

fn gen_args() -> impl Strategy<Value = Vec<(String, GenValue)>> {
    let key = prop_oneof![
        3 => select(ARG_KEYS).prop_map(str::to_owned),
        1 => "[a-z_]{0,4}(_uri)?",
    ];
    let value = prop_oneof![
        4 => arg_string().prop_map(GenValue::Text),
        3 => vec(arg_string(), 0..5).prop_map(GenValue::List),
        1 => Just(GenValue::Other),
    ];
    // Keys of a JS object are unique: keep each key's first occurrence.
    vec((key, value), 0..7).prop_map(|args| {
        let mut seen = Vec::new();
        args.into_iter()
            .filter(|(k, _)| {
                let fresh = !seen.contains(k);
                seen.push(k.clone());
                fresh
            })
            .collect()
    })
}

fn gen_outcome() -> impl Strategy<Value = GenOutcome> {
    prop_oneof![
        6 => Just(GenOutcome::Hit),
        1 => Just(GenOutcome::Miss),
        1 => (
            select(vec!["billing.refund", "tasks.update"]),
            select(vec!["billing.get_invoice", "tasks.list"]),
        )
            .prop_map(|(c, s)| GenOutcome::Stale {
                cause: c.to_owned(),
                source: s.to_owned(),
            }),
        1 => select(vec!["/rows/99", "/x", ""]).prop_map(|p| GenOutcome::BadPointer(p.to_owned())),
    ]
}

fn payload_of(uri: &str) -> String {
    format!("payload of {uri}")
}

/// A lookup over an in-memory map that records every call.
struct MemLookup {
    entries: HashMap<String, LookupOutcome<String>>,
    /// Answer only the first `n` references (a short answer: the rest must count as misses).
    answer_only: Option<usize>,
    calls: RefCell<Vec<Vec<String>>>,
}

impl ReferenceLookup<String> for MemLookup {
    type Error = std::convert::Infallible;

    async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<String>>, Self::Error> {
        self.calls
            .borrow_mut()
            .push(uris.iter().map(|u| u.to_string()).collect());
        let mut out: Vec<_> = uris
            .iter()
            .map(|u| self.entries.get(*u).cloned().unwrap_or(LookupOutcome::Miss))
            .collect();
        if let Some(n) = self.answer_only {
            out.truncate(n);
        }
        Ok(out)
    }
}

#[test]
fn substitution_is_all_or_nothing_and_matches_the_model() {
    check(
        "substitution_is_all_or_nothing_and_matches_the_model",
        (
            gen_args(),
            vec(gen_outcome(), CACHE_URIS.len()),
            prop::option::weighted(0.1, 0usize..4),
        ),
        |(args, outcomes, answer_only)| {
            let keys: Vec<&str> = args.iter().map(|(k, _)| k.as_str()).collect();

            // The model plan: `X_uri` (X non-empty) holding a cache-scheme string or a non-empty
            // all-cache-scheme array; conflict iff `X` is a key too.
            let expected_refs: Vec<Reference> = args
                .iter()
                .filter_map(|(key, value)| {
                    if key.len() <= 4 || !key.ends_with("_uri") {
                        return None;
                    }
                    let target = &key[..key.len() - 4];
                    let (uris, is_list) = match value {
                        GenValue::Text(s) if s.starts_with(SCHEME) => (vec![s.clone()], false),
                        GenValue::List(l)
                            if !l.is_empty() && l.iter().all(|s| s.starts_with(SCHEME)) =>
                        {
                            (l.clone(), true)
                        }
                        _ => return None,
                    };
                    Some(Reference {
                        uri_key: key.clone(),
                        target_key: target.to_owned(),
                        uris,
                        is_list,
                        conflict: keys.contains(&target),
                    })
                })
                .collect();
            let mut unique: Vec<String> = Vec::new();
            for uri in expected_refs.iter().flat_map(|r| &r.uris) {
                if !unique.contains(uri) {
                    unique.push(uri.clone());
                }
            }

            let arg_values: Vec<(&str, ArgValue)> = args
                .iter()
                .map(|(k, v)| {
                    let value = match v {
                        GenValue::Text(s) => ArgValue::Text(s),
                        GenValue::List(l) => ArgValue::TextList(l.iter().map(|s| &**s).collect()),
                        GenValue::Other => ArgValue::Other,
                    };
                    (k.as_str(), value)
                })
                .collect();
            let plan = Plan::new(arg_values, |k| keys.contains(&k));
            prop_assert_eq!(&plan.references, &expected_refs);
            prop_assert_eq!(
                plan.unique_uris(),
                unique.iter().map(|s| &**s).collect::<Vec<_>>()
            );
            for r in &plan.references {
                prop_assert!(r.uri_key.ends_with("_uri") && !r.target_key.is_empty());
                prop_assert_eq!(format!("{}_uri", r.target_key), r.uri_key.clone());
                prop_assert!(r.uris.iter().all(|u| u.starts_with(SCHEME)));
            }

            let table: HashMap<String, LookupOutcome<String>> = CACHE_URIS
                .iter()
                .zip(&outcomes)
                .filter_map(|(uri, outcome)| {
                    let outcome = match outcome {
                        GenOutcome::Hit => LookupOutcome::Hit(payload_of(uri)),
                        GenOutcome::Miss => return None,
                        GenOutcome::Stale { cause, source } => LookupOutcome::Stale {
                            cause: cause.clone(),
                            source_tool_name: source.clone(),
                        },
                        GenOutcome::BadPointer(p) => {
                            LookupOutcome::BadPointer { pointer: p.clone() }
                        }
                    };
                    Some((uri.to_string(), outcome))
                })
                .collect();
            let lookup = MemLookup {
                entries: table.clone(),
                answer_only,
                calls: RefCell::new(Vec::new()),
            };
            let Ok(result) = block_on(substitute(&plan, &lookup));
            let calls = lookup.calls.into_inner();

            if expected_refs.is_empty() {
                prop_assert_eq!(result, Substitution::Unchanged);
                prop_assert!(calls.is_empty(), "looked up {calls:?} for nothing");
                return Ok(());
            }
            prop_assert_eq!(
                &calls,
                &vec![unique.clone()],
                "one lookup, unique, first-seen"
            );

            let mut failures = Vec::new();
            for (i, uri) in unique.iter().enumerate() {
                let answered = answer_only.is_none_or(|n| i < n);
                let failure = match table.get(uri).filter(|_| answered) {
                    Some(LookupOutcome::Hit(_)) => continue,
                    None | Some(LookupOutcome::Miss) => {
                        ReferenceFailure::Missing { uri: uri.clone() }
                    }
                    Some(LookupOutcome::Stale {
                        cause,
                        source_tool_name,
                    }) => ReferenceFailure::Stale {
                        uri: uri.clone(),
                        cause: cause.clone(),
                        source_tool_name: source_tool_name.clone(),
                    },
                    Some(LookupOutcome::BadPointer { pointer }) => ReferenceFailure::BadPointer {
                        uri: uri.clone(),
                        pointer: pointer.clone(),
                    },
                };
                failures.push(failure);
            }

            if failures.is_empty() {
                let edits: Vec<Edit<String>> = expected_refs
                    .iter()
                    .map(|r| Edit {
                        reference: r.clone(),
                        value: if r.is_list {
                            Resolved::Many(r.uris.iter().map(|u| payload_of(u)).collect())
                        } else {
                            Resolved::One(payload_of(&r.uris[0]))
                        },
                    })
                    .collect();
                prop_assert_eq!(result, Substitution::Resolved(edits));
            } else {
                let Substitution::Blocked {
                    envelope,
                    failures: got,
                } = result
                else {
                    return Err(TestCaseError::fail(format!(
                        "expected Blocked by {failures:?}, got {result:?}"
                    )));
                };
                prop_assert_eq!(&got, &failures);
                prop_assert_eq!(&envelope, &resolution_envelope(&failures));
                let missing: Vec<&str> = failures
                    .iter()
                    .filter(|f| !matches!(f, ReferenceFailure::Stale { .. }))
                    .map(|f| f.uri())
                    .collect();
                let stale: Vec<&str> = failures
                    .iter()
                    .filter(|f| matches!(f, ReferenceFailure::Stale { .. }))
                    .map(|f| f.uri())
                    .collect();
                prop_assert_eq!(&envelope.missing_uris, &missing);
                prop_assert_eq!(&envelope.stale_uris, &stale);
                prop_assert!(envelope.error.starts_with("invalid_args: "));
                prop_assert!(!envelope.fix_hint.is_empty());
                prop_assert_eq!(envelope.capped_arg, None);
                match missing.as_slice() {
                    [] => {}
                    [one] => prop_assert!(envelope.error.contains(*one)),
                    many => {
                        let line = format!("{} cache URIs could not be resolved", many.len());
                        prop_assert!(envelope.error.contains(&line), "{:?}", envelope.error);
                    }
                }
            }
            Ok(())
        },
    );
}

/// Parses one JSON string literal (RFC 8259: no raw control characters).
fn parse_json_string(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<String> {
    if chars.next()? != '"' {
        return None;
    }
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => out.push(match chars.next()? {
                '"' => '"',
                '\\' => '\\',
                '/' => '/',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'u' => {
                    let hex: String = (0..4).map(|_| chars.next()).collect::<Option<_>>()?;
                    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                        return None;
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                _ => return None,
            }),
            c if (c as u32) < 0x20 => return None,
            c => out.push(c),
        }
    }
}

fn decode_json_string(s: &str) -> Option<String> {
    let mut chars = s.chars().peekable();
    let value = parse_json_string(&mut chars)?;
    chars.next().is_none().then_some(value)
}

fn decode_json_string_array(s: &str) -> Option<Vec<String>> {
    let mut chars = s.chars().peekable();
    if chars.next()? != '[' {
        return None;
    }
    let mut out = Vec::new();
    if chars.peek() == Some(&']') {
        chars.next();
    } else {
        loop {
            out.push(parse_json_string(&mut chars)?);
            match chars.next()? {
                ',' => {}
                ']' => break,
                _ => return None,
            }
        }
    }
    chars.next().is_none().then_some(out)
}

fn json_text() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => any_text(200),
        2 => string_from(
            select(vec!['"', '\\', '\n', '\r', '\t', '\u{8}', '\u{c}', '\u{0}', '\u{1f}', '\u{7f}',
                        '\u{2028}', '/', 'a', 'é', '🙂', '|', ',', '[', ']']),
            0..16,
        ),
    ]
}

#[test]
fn json_string_and_cache_miss_signature_decode_back() {
    check(
        "json_string_and_cache_miss_signature_decode_back",
        (json_text(), vec(json_text(), 0..4)),
        |(s, uris)| {
            let encoded = json_string(&s);
            prop_assert!(!encoded.chars().any(|c| (c as u32) < 0x20), "{encoded:?}");
            prop_assert_eq!(decode_json_string(&encoded), Some(s.clone()));

            let signature = cache_miss_signature(&s, &uris);
            let prefix = format!("{s}|cache-miss|");
            prop_assert!(signature.starts_with(&prefix), "{signature:?}");
            prop_assert_eq!(
                decode_json_string_array(&signature[prefix.len()..]),
                Some(uris.clone())
            );
            Ok(())
        },
    );
}

#[test]
fn inline_list_cap_blocks_the_first_capped_argument_over_the_limit() {
    check(
        "inline_list_cap_blocks_the_first_capped_argument_over_the_limit",
        (
            vec(
                (
                    select(vec!["data", "rows", "items", "x_y"]),
                    prop::option::of(0usize..40),
                    any::<bool>(),
                ),
                0..5,
            ),
            0usize..30,
            select(vec!["chart.create", "t", "a|b"]),
        ),
        |(args, cap, tool)| {
            let capped = args
                .iter()
                .map(|&(name, array_len, has_uri_sibling)| CappedArg {
                    name,
                    array_len,
                    has_uri_sibling,
                });
            let got = check_inline_list_cap(tool, capped, cap);
            let want = args
                .iter()
                .find(|(_, len, sibling)| len.is_some_and(|l| l > cap) && !sibling)
                .map(|&(name, len, _)| (name, len.unwrap()));
            match (got, want) {
                (None, None) => {}
                (Some((name, len, envelope)), Some((want_name, want_len))) => {
                    prop_assert_eq!((name, len), (want_name, want_len));
                    prop_assert_eq!(&envelope, &inline_cap_envelope(tool, name, len, cap));
                    prop_assert_eq!(envelope.capped_arg.as_deref(), Some(name));
                    let line = format!("has {len} records (cap: {cap})");
                    prop_assert!(envelope.error.contains(&line), "{:?}", envelope.error);
                    prop_assert!(envelope.fix_hint.contains(tool));
                }
                (got, want) => prop_assert!(false, "got {got:?}, want {want:?}"),
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// state_sync::glob
// ---------------------------------------------------------------------------------------------

const GLOB_PATTERN_SEGS: &[&str] = &[
    "**", "*", "a", "b", "a*", "*b", "a*b", "ab", "", "*a*", "***", "_", "a_", "*_*", "A", "é*",
];
const GLOB_NAME_SEGS: &[&str] = &[
    "a", "b", "ab", "ba", "aab", "", "abb", "_", "a_b", "A", "é", "*", "__",
];
const SEPARATORS: &[&str] = &[".", "__", "_", "::", ""];

#[test]
fn match_glob_agrees_with_the_naive_matcher() {
    let by_segments = (
        vec(select(GLOB_PATTERN_SEGS), 1..7),
        vec(select(GLOB_NAME_SEGS), 1..8),
        select(SEPARATORS),
    )
        .prop_map(|(p, n, sep)| (p.join(sep), n.join(sep), sep));
    let by_chars = (
        string_from(select(vec!['a', 'b', '*', '.', '_', 'A']), 0..12),
        string_from(select(vec!['a', 'b', '*', '.', '_']), 0..12),
        select(SEPARATORS),
    );
    // Names made from the pattern itself, so that matches are common.
    let instances = (
        vec(select(GLOB_PATTERN_SEGS), 1..7),
        select(SEPARATORS),
        any::<u64>(),
    )
        .prop_map(|(p, sep, seed)| (p.join(sep), instantiate(&p, sep, &mut Rng::new(seed)), sep));
    let arbitrary = (any_text(60), any_text(60), select(SEPARATORS));
    // Near the bounds (4096-byte names, 1024-byte patterns): matches flip to false past them.
    // Near the bounds (4096-byte names, 1024-byte patterns): matches flip to false past them.
    // One leading `**` at most keeps the naive matcher quick on 100-segment names.
    let long = (
        any::<bool>(),
        vec(select(&["*", "a*", "*b", "a*b", "ab*ab"][..]), 1..3),
        vec(select(&["ab", "ba", "aab", "a", "é"][..]), 80..110),
        0usize..3,
    )
        .prop_map(|(star_star, p, n, stars)| {
            let mut segments: Vec<String> = p.iter().map(|s| s.to_string()).collect();
            if stars > 0 {
                // One segment of stars so the pattern straddles 1024 bytes.
                segments.insert(0, "a*".repeat(509 + stars));
            }
            if star_star {
                segments.insert(0, "**".to_owned());
            }
            (segments.join("."), n.join("."), ".")
        });
    check(
        "match_glob_agrees_with_the_naive_matcher",
        prop_oneof![3 => by_segments, 3 => by_chars, 3 => instances, 1 => arbitrary, 1 => long],
        |(pattern, name, sep)| {
            prop_assert_eq!(
                match_glob(&pattern, &name, sep),
                naive_match(&pattern, &name, sep),
                "pattern {:?} name {:?} sep {:?}",
                pattern,
                name,
                sep
            );
            Ok(())
        },
    );
}

#[test]
fn segment_matches_agrees_with_the_naive_matcher() {
    let small = || string_from(select(vec!['a', 'b', '*', 'é']), 0..10);
    check(
        "segment_matches_agrees_with_the_naive_matcher",
        prop_oneof![
            4 => (small(), small()),
            1 => (any_text(30), any_text(30)),
        ],
        |(pattern, segment)| {
            prop_assert_eq!(
                segment_matches(&pattern, &segment),
                naive_segment_str(&pattern, &segment)
            );
            Ok(())
        },
    );
}

const VALID_SEGS: &[&str] = &[
    "**", "*", "a", "b", "a*", "*b", "ab", "a*b", "*a*", "ba", "b*a", "x-1", "A-",
];

fn valid_pattern() -> impl Strategy<Value = String> {
    vec(select(VALID_SEGS), 1..5).prop_map(|segs| segs.join("."))
}

#[test]
fn validate_pattern_accepts_exactly_the_documented_segments() {
    let chars = select(vec!['a', 'Z', '0', '_', '-', '*', '.', ' ', 'é', '/', '\0']);
    check(
        "validate_pattern_accepts_exactly_the_documented_segments",
        (
            prop_oneof![
                3 => string_from(chars, 0..10),
                2 => valid_pattern(),
                1 => vec(select(GLOB_PATTERN_SEGS), 1..5).prop_map(|s| s.join(".")),
                1 => any_text(40),
            ],
            select(vec![".", "_", "__", "::"]),
        ),
        |(pattern, sep)| {
            let got = validate_pattern(&pattern, sep);
            match (got, model_validate(&pattern, sep)) {
                (Ok(()), Ok(())) => {}
                (Err(PatternError::Empty), Err(None)) => {}
                (Err(PatternError::TooLong), Err(Some(why))) if why == "(too long)" => {}
                (
                    Err(PatternError::InvalidSegment {
                        pattern: p,
                        segment,
                    }),
                    Err(Some(want)),
                ) => {
                    prop_assert_eq!(p, pattern.clone());
                    prop_assert_eq!(segment, want, "first invalid segment");
                }
                (got, want) => prop_assert!(false, "got {got:?}, model {want:?}"),
            }
            Ok(())
        },
    );
}

/// A random name matching `pattern` (segments joined by `sep`; fills never contain `.`/`_`).
fn instantiate(pattern: &[&str], sep: &str, rng: &mut Rng) -> String {
    const FILLS: &[&str] = &["", "a", "b", "ab", "ba", "*", "é"];
    const SEGS: &[&str] = &["a", "b", "ab", "", "x"];
    let mut out: Vec<String> = Vec::new();
    for seg in pattern {
        if *seg == "**" {
            for _ in 0..rng.below(4) {
                out.push(rng.pick(SEGS).to_string());
            }
        } else {
            let mut s = String::new();
            for c in seg.chars() {
                if c == '*' {
                    s.push_str(rng.pick(FILLS));
                } else {
                    s.push(c);
                }
            }
            out.push(s);
        }
    }
    out.join(sep)
}

/// A pattern at least as wide as `narrow`: segments widened to `*`/`**`, characters to `*`.
fn generalize(narrow: &[&str], rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for seg in narrow {
        match rng.below(7) {
            0 => out.push("**".to_owned()),
            1 if *seg != "**" => out.push("*".to_owned()),
            2 if *seg != "**" => {
                let mut chars: Vec<char> = seg.chars().collect();
                let i = rng.below(chars.len());
                chars[i] = '*';
                let mut s: String = chars.into_iter().collect();
                while s.contains("**") {
                    s = s.replace("**", "*");
                }
                out.push(s);
            }
            3 => {
                out.push("**".to_owned());
                out.push(seg.to_string());
            }
            _ => out.push(seg.to_string()),
        }
    }
    out
}

#[test]
fn pattern_covers_is_sound() {
    check(
        "pattern_covers_is_sound",
        (
            vec(select(VALID_SEGS), 1..5),
            prop::option::weighted(0.4, vec(select(VALID_SEGS), 1..5)),
            select(vec![".", "__"]),
            any::<u64>(),
        ),
        |(narrow, independent_wide, sep, seed)| {
            let mut rng = Rng::new(seed);
            let wide: Vec<String> = match independent_wide {
                Some(w) => w.iter().map(|s| s.to_string()).collect(),
                None => generalize(&narrow, &mut rng),
            };
            let (n, w) = (narrow.join(sep), wide.join(sep));
            prop_assert_eq!(validate_pattern(&n, sep), Ok(()));
            prop_assert_eq!(validate_pattern(&w, sep), Ok(()));
            // Spot checks of completeness: reflexive, and `**` covers everything.
            prop_assert!(pattern_covers(&n, &n, sep), "{n:?} covers itself");
            prop_assert!(pattern_covers("**", &n, sep));

            let covers = pattern_covers(&w, &n, sep);
            let mut names: Vec<String> = (0..12)
                .map(|_| instantiate(&narrow, sep, &mut rng))
                .collect();
            for name in &names {
                prop_assert!(match_glob(&n, name, sep), "{name:?} instantiates {n:?}");
            }
            names.extend((0..4).map(|_| {
                let k = 1 + rng.below(4);
                (0..k)
                    .map(|_| rng.pick(&["a", "b", "ab", "ba", "", "*"]))
                    .collect::<Vec<_>>()
                    .join(sep)
            }));
            if covers {
                for name in names.iter().filter(|name| match_glob(&n, name, sep)) {
                    prop_assert!(
                        match_glob(&w, name, sep),
                        "covers({w:?}, {n:?}) but {name:?} matches only the narrow one"
                    );
                }
            }
            Ok(())
        },
    );
}

#[test]
fn policy_engine_resolves_first_match_and_validates_like_the_model() {
    let directive = prop_oneof![
        4 => Just(None),
        2 => Just(Some("immutable")),
        2 => Just(Some("no-store")),
        1 => select(vec!["max-age=5", "Immutable", ""]).prop_map(Some),
    ];
    let pattern = prop_oneof![
        12 => valid_pattern(),
        1 => select(vec!["", "a..b", "a b", "a.**b", "***", ".a"]).prop_map(str::to_owned),
    ];
    let policy = (
        pattern.clone(),
        directive.clone(),
        prop::option::of(vec(pattern, 0..3)),
    )
        .prop_map(|(m, cc, inv)| SyncPolicy {
            match_pattern: m,
            cache_control: cc.map(str::to_owned),
            invalidates: inv,
        });
    check(
        "policy_engine_resolves_first_match_and_validates_like_the_model",
        (
            vec(policy, 0..5),
            directive,
            vec(
                vec(select(&["a", "b", "ab", "ba", "", "x"][..]), 1..5),
                1..6,
            ),
            any::<u64>(),
        ),
        |(policies, default, names, seed)| {
            let sep = ".";
            let engine = PolicyEngine::new(&policies, default, sep);

            // Model of validation order: defaults, then per policy match → cacheControl →
            // invalidates.
            let bad_directive = |d: &Option<String>| {
                d.as_deref()
                    .is_some_and(|v| v != "immutable" && v != "no-store")
            };
            let mut problem: Option<(String, &str)> = None;
            if default.is_some_and(|v| v != "immutable" && v != "no-store") {
                problem = Some(("StateSync defaults".into(), "invalid cacheControl"));
            }
            for (i, p) in policies.iter().enumerate() {
                if problem.is_some() {
                    break;
                }
                let prefix = format!("StateSync policy[{i}]");
                let phrase = |pattern: &str| match model_validate(pattern, sep) {
                    Ok(()) => None,
                    Err(None) => Some("must be a non-empty string"),
                    Err(Some(_)) => Some("invalid segment"),
                };
                problem = phrase(&p.match_pattern)
                    .or_else(|| bad_directive(&p.cache_control).then_some("invalid cacheControl"))
                    .or_else(|| p.invalidates.iter().flatten().find_map(|inv| phrase(inv)))
                    .map(|phrase| (prefix, phrase));
            }
            let engine = match (engine, problem) {
                (Ok(engine), None) => engine,
                (Err(err), Some((prefix, phrase))) => {
                    let msg = err.to_string();
                    prop_assert!(msg.starts_with(&prefix), "{msg:?} vs {prefix:?}");
                    prop_assert!(msg.contains(phrase), "{msg:?} lacks {phrase:?}");
                    return Ok(());
                }
                (Ok(_), Some(p)) => return Err(TestCaseError::fail(format!("accepted; {p:?}"))),
                (Err(e), None) => return Err(TestCaseError::fail(format!("rejected: {e}"))),
            };

            let parse = |d: Option<&str>| d.and_then(CacheDirective::parse);
            for name in names.iter().map(|n| n.join(sep)) {
                let first = policies
                    .iter()
                    .find(|p| naive_match(&p.match_pattern, &name, sep));
                let want = match first {
                    Some(p) => ResolvedPolicy {
                        cache_control: parse(p.cache_control.as_deref()).or(parse(default)),
                        invalidates: p.invalidates.clone().unwrap_or_default(),
                    },
                    None => ResolvedPolicy {
                        cache_control: parse(default),
                        invalidates: Vec::new(),
                    },
                };
                let want =
                    (want.cache_control.is_some() || !want.invalidates.is_empty()).then_some(want);
                prop_assert_eq!(
                    engine.resolution(engine.rule(&name)).cloned(),
                    want,
                    "name {:?}",
                    name
                );
            }

            // Every reported overlap is real: names of the later pattern match the earlier one.
            let patterns: Vec<&str> = policies.iter().map(|p| p.match_pattern.as_str()).collect();
            let mut rng = Rng::new(seed);
            for overlap in detect_overlaps(&patterns, sep) {
                prop_assert!(overlap.earlier < overlap.later);
                prop_assert_eq!(overlap.earlier_match.as_str(), patterns[overlap.earlier]);
                prop_assert_eq!(overlap.later_match.as_str(), patterns[overlap.later]);
                let later: Vec<&str> = patterns[overlap.later].split('.').collect();
                for _ in 0..4 {
                    let name = instantiate(&later, sep, &mut rng);
                    prop_assert!(match_glob(patterns[overlap.earlier], &name, sep));
                }
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// state_sync::invalidation and state_sync::decorate
// ---------------------------------------------------------------------------------------------

const XML_FRAGMENTS: &[&str] = &[
    "\"",
    "'",
    "&",
    "&amp;",
    "&lt;",
    "&#65;",
    "&#x42;",
    "&#xD800;",
    "&#99999999999;",
    "&bogus;",
    "&#+65;",
    "&#X41;",
    "&#x;",
    "&#;",
    "&#0;",
    "&#x0000000041;",
    "&quot;",
    "&apos;",
    "&gt;",
    "#",
    "x",
    "+",
    "<",
    ">",
    "/>",
    "<cache_invalidation",
    " cause=",
    " domains=",
    "cause=\"x\"",
    "domains='y'",
    "[System: Cache invalidated for ",
    " — caused by ",
    "]",
    " ",
    "\t",
    "\n",
    "a",
    "billing.refund",
    "é",
    "🙂",
    ",",
    ";",
    "=",
];

/// Whole and partial signals, for texts that do contain invalidations.
const SIGNAL_FRAGMENTS: &[&str] = &[
    "<cache_invalidation cause=\"t\" domains=\"a.*, b\" />",
    "<cache_invalidation domains='x' cause='y'/>",
    "<cache_invalidation cause=\"t\"",
    "[System: Cache invalidated for a.*, b — caused by t]",
    "[System: Cache invalidated for a",
    " — caused by ",
    "/>",
    "]",
    " ",
    "\n",
    "text",
    "&amp;",
    "=",
    "\"",
];

fn xml_text() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any_text(300),
        2 => concat_of(XML_FRAGMENTS, 0..10),
    ]
}

/// XML character references, strictly: the five named entities, `&#` decimal digits `;` and
/// `&#x`/`&#X` hex digits `;` naming a scalar value, with the `;` at most 12 bytes after the `&`
/// (the implementation's bound). Anything else is kept as written.
fn model_unescape(s: &str) -> String {
    let numeric = |e: &str| {
        let (digits, radix) = match e.strip_prefix("#x").or_else(|| e.strip_prefix("#X")) {
            Some(hex) => (hex, 16),
            None => (e.strip_prefix('#')?, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        char::from_u32(u32::from_str_radix(digits, radix).ok()?)
    };
    let mut out = String::new();
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if c == '&' {
            let rest = &s[i..];
            if let Some(semi) = rest.bytes().take(13).position(|b| b == b';') {
                let decoded = match &rest[1..semi] {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    other => numeric(other),
                };
                if let Some(d) = decoded {
                    out.push(d);
                    i += semi + 1;
                    continue;
                }
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[test]
fn invalidation_tag_round_trips_any_cause_and_valid_domains() {
    check(
        "invalidation_tag_round_trips_any_cause_and_valid_domains",
        (xml_text(), vec(valid_pattern(), 0..4), xml_text()),
        |(cause, domains, padding)| {
            let tag = invalidation_tag(&cause, &domains);
            let got = parse_invalidations(&tag);
            let want = vec![Invalidation {
                cause: cause.clone(),
                domains: domains.clone(),
            }];
            // Padding around the tag: whitespace keeps it a pure signal text.
            let blank: String = padding.chars().filter(|c| c.is_whitespace()).collect();
            let padded = format!("{blank}{tag}{blank}");
            prop_assert_eq!(&got, &want, "tag {:?}", tag);
            prop_assert!(is_invalidation_text(&padded));
            prop_assert_eq!(parse_invalidations(&padded), want);
            Ok(())
        },
    );
}

fn tool_name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.-]{1,16}"
}

#[test]
fn invalidation_signals_are_found_in_order_in_mixed_text() {
    let noise = select(vec![
        "",
        " ",
        "\n",
        "\t ",
        "ok ",
        "{\"a\":1} ",
        "text; ",
        "x/> ",
        "a]b ",
    ]);
    check(
        "invalidation_signals_are_found_in_order_in_mixed_text",
        (
            vec(
                (
                    any::<bool>(),
                    tool_name(),
                    vec(valid_pattern(), 0..3),
                    noise.clone(),
                ),
                1..5,
            ),
            noise,
        ),
        |(signals, trailer)| {
            let mut text = String::new();
            let mut want = Vec::new();
            for (legacy, cause, domains, noise) in &signals {
                text.push_str(noise);
                if *legacy {
                    text.push_str(&format!(
                        "[System: Cache invalidated for {} — caused by {cause}]",
                        domains.join(", ")
                    ));
                } else {
                    text.push_str(&invalidation_tag(cause, domains));
                }
                want.push(Invalidation {
                    cause: cause.clone(),
                    domains: domains.clone(),
                });
            }
            text.push_str(trailer);
            prop_assert_eq!(parse_invalidations(&text), want, "text {:?}", text);
            // "Nothing but invalidation signals": true iff everything else is whitespace.
            let only_signals =
                signals.iter().all(|s| s.3.trim().is_empty()) && trailer.trim().is_empty();
            prop_assert_eq!(is_invalidation_text(&text), only_signals, "text {:?}", text);
            Ok(())
        },
    );
}

#[test]
fn xml_escaping_round_trips_and_unescape_never_grows() {
    check(
        "xml_escaping_round_trips_and_unescape_never_grows",
        (xml_text(), any::<char>(), any_text(100)),
        |(s, c, other)| {
            let escaped = escape_xml_attr(&s);
            prop_assert!(!escaped.contains(['<', '>', '"', '\'']), "{escaped:?}");
            for (i, _) in escaped.match_indices('&') {
                let rest = &escaped[i..];
                prop_assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                        .iter()
                        .any(|e| rest.starts_with(e)),
                    "{escaped:?}"
                );
            }
            prop_assert_eq!(unescape_xml(&escaped), s.clone());

            // Numeric references decode every scalar value.
            let u = c as u32;
            for reference in [
                format!("&#{u};"),
                format!("&#x{u:x};"),
                format!("&#X{u:X};"),
            ] {
                prop_assert_eq!(unescape_xml(&reference), c.to_string(), "{:?}", reference);
            }

            // Arbitrary text: agrees with the strict model, never grows, identity without `&`.
            let unescaped = unescape_xml(&s);
            prop_assert_eq!(&unescaped, &model_unescape(&s), "text {:?}", s);
            prop_assert!(unescaped.len() <= s.len());
            if !s.contains('&') {
                prop_assert_eq!(unescaped, s.clone());
            }

            // Stale-notification URIs carry any non-empty pattern, in every accepted scheme.
            for text in [&s, &other] {
                let want = (!text.is_empty()).then_some(text.as_str());
                for prefix in STALE_URI_PREFIXES {
                    let uri = stale_notification_uri(prefix, text);
                    prop_assert_eq!(stale_pattern(&uri), want);
                }
                if !STALE_URI_PREFIXES.iter().any(|p| text.starts_with(p)) {
                    prop_assert_eq!(stale_pattern(text), None);
                }
            }
            Ok(())
        },
    );
}

#[test]
fn parse_invalidations_on_arbitrary_text_is_well_formed() {
    check(
        "parse_invalidations_on_arbitrary_text_is_well_formed",
        prop_oneof![
            1 => xml_text(),
            2 => concat_of(XML_FRAGMENTS, 0..24),
            2 => concat_of(SIGNAL_FRAGMENTS, 0..12),
            1 => string_from(prop_oneof![any::<char>(), select(vec!['<', '/', '>', '[', ']', '"'])], 0..3000),
        ],
        |text| {
            let found = parse_invalidations(&text);
            for inv in &found {
                for d in &inv.domains {
                    prop_assert!(!d.is_empty() && d.trim() == d && !d.contains(','), "{d:?}");
                }
            }
            if !text.contains("<cache_invalidation")
                && !text.contains("[System: Cache invalidated for ")
            {
                prop_assert!(found.is_empty(), "{found:?}");
            }
            if is_invalidation_text(&text) {
                let trimmed = text.trim();
                prop_assert!(
                    trimmed.starts_with("<cache_invalidation")
                        || trimmed.starts_with("[System: Cache invalidated for ")
                );
                prop_assert!(!found.is_empty());
            }
            Ok(())
        },
    );
}

const DESC_FRAGMENTS: &[&str] = &[
    "Get sprint details.",
    " ",
    "  ",
    "\t",
    "\n",
    "\u{a0}",
    "\u{3000}",
    "[",
    "]",
    "Cache-Control:",
    "[Cache-Control: ",
    "[Cache-Control:",
    "immutable",
    "no-store",
    "max-age=5",
    "_x",
    "-",
    "é",
    "x",
];

/// The trailing tag as the implementation defines it (`\s*\[Cache-Control:\s*\w[^\[\]]*\]$`):
/// (start of the whitespace before it, the directive text).
fn model_trailing_tag(d: &str) -> Option<(usize, &str)> {
    let open = d.rfind('[')?;
    let value = d[open + 1..].strip_prefix("Cache-Control:")?.trim_start();
    let directive = value.strip_suffix(']')?;
    let first = directive.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_') || directive.contains(']') {
        return None;
    }
    Some((d[..open].trim_end().len(), directive))
}

fn model_decorate(d: &str, directive: CacheDirective) -> String {
    // Trailing whitespace never survives: the tag goes after exactly one space.
    let base = model_trailing_tag(d).map_or(d.trim_end(), |(start, _)| &d[..start]);
    let tag = format!("[Cache-Control: {}]", directive.as_str());
    if base.is_empty() {
        tag
    } else {
        format!("{base} {tag}")
    }
}

#[test]
fn decorate_description_replaces_the_trailing_tag_and_reads_back() {
    let directive = select(vec![CacheDirective::Immutable, CacheDirective::NoStore]);
    check(
        "decorate_description_replaces_the_trailing_tag_and_reads_back",
        (
            prop_oneof![3 => concat_of(DESC_FRAGMENTS, 0..8), 1 => any_text(300)],
            directive.clone(),
            directive,
        ),
        |(d, x, y)| {
            let once = decorate_description(&d, x);
            prop_assert_eq!(&once, &model_decorate(&d, x));
            prop_assert!(once.ends_with(&cache_control_tag(x)));
            prop_assert_eq!(parse_cache_control(&once), Some(x));
            prop_assert_eq!(
                parse_cache_control(&d),
                model_trailing_tag(&d).and_then(|(_, v)| CacheDirective::parse(v.trim_end()))
            );
            // Idempotent, and a later directive replaces an earlier one — except for the known
            // bug with trailing whitespace (see `bug_decorate_description_is_not_idempotent_…`).
            let trailing_whitespace = model_trailing_tag(&d).is_none() && d.trim_end() != d;
            if !trailing_whitespace {
                prop_assert_eq!(&decorate_description(&once, x), &once, "not idempotent");
                let other = decorate_description(&d, y);
                prop_assert_eq!(&decorate_description(&other, x), &once, "not replaced");
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// state_sync::template
// ---------------------------------------------------------------------------------------------

/// Literals and variable names of a well-formed level-1 template, by a character scan.
fn model_template(t: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut literals = vec![String::new()];
    let mut names: Vec<String> = Vec::new();
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(n) if n.is_ascii_alphanumeric() || n == '_' => name.push(n),
                        _ => return None,
                    }
                }
                let adjacent = !names.is_empty() && literals.last()?.is_empty();
                if name.is_empty() || names.contains(&name) || adjacent {
                    return None;
                }
                names.push(name);
                literals.push(String::new());
            }
            '}' => return None,
            c => literals.last_mut()?.push(c),
        }
    }
    Some((literals, names))
}

/// Every split, each variable (left to right) trying its longest value first.
fn brute_template(literals: &[String], uri: &str) -> Option<Vec<String>> {
    if literals.len() == 1 {
        return (uri == literals[0]).then(Vec::new);
    }
    let rest = uri.strip_prefix(literals[0].as_str())?;
    let limit = rest.find('/').unwrap_or(rest.len());
    let ends: Vec<usize> = rest[..limit]
        .char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .collect();
    for &end in ends.iter().rev() {
        if let Some(mut more) = brute_template(&literals[1..], &rest[end..]) {
            more.insert(0, rest[..end].to_owned());
            return Some(more);
        }
    }
    None
}

const TEMPLATE_TOKENS: &[&str] = &["a", "/", "-", "é", "ab", "{x}", "{y}", "{z}", "{_1}"];
const BAD_TEMPLATE_TOKENS: &[&str] = &["{", "}", "{}", "{+x}", "{x,y}", "{é}", "{x*}", "{ x}"];

#[test]
fn uri_template_matching_agrees_with_brute_force() {
    let small_uri = string_from(select(vec!['a', 'b', '/', '-', 'é']), 0..12);
    check(
        "uri_template_matching_agrees_with_brute_force",
        prop_oneof![
            4 => (
                vec(prop_oneof![8 => select(TEMPLATE_TOKENS), 1 => select(BAD_TEMPLATE_TOKENS)], 0..7)
                    .prop_map(|tokens| tokens.concat()),
                small_uri,
                any::<u64>(),
                any::<bool>(),
            ),
            1 => (any_text(40), any_text(40), any::<u64>(), Just(false)),
        ],
        |(template, random_uri, seed, derive)| {
            let model = model_template(&template);
            // Half the time, a URI made from the template itself (so matches are common).
            let uri = match (&model, derive) {
                (Some((literals, _)), true) => {
                    let mut rng = Rng::new(seed);
                    let mut uri = literals[0].clone();
                    for literal in &literals[1..] {
                        for _ in 0..1 + rng.below(3) {
                            uri.push(rng.pick(&['a', '-', 'é', 'b', '/']));
                        }
                        uri.push_str(literal);
                    }
                    uri
                }
                _ => random_uri,
            };
            let got = match_uri_template(&template, &uri);
            let want = model.and_then(|(literals, names)| {
                let values = brute_template(&literals, &uri)?;
                Some(names.into_iter().zip(values).collect::<Vec<_>>())
            });
            prop_assert_eq!(got, want, "template {:?} uri {:?}", template, uri);
            Ok(())
        },
    );
}

#[test]
fn uri_template_recovers_substituted_values() {
    let literal_char = select(vec![
        'a', '/', '-', '.', '?', '*', '+', 'é', '(', '[', '\\', ':', '%', '$', '^', '|', ' ',
    ]);
    let value = string_from(
        select(vec!['a', 'b', '-', '.', 'é', '%', '2', 'x', '🙂', ' ', '?']),
        1..6,
    );
    check(
        "uri_template_recovers_substituted_values",
        (
            string_from(literal_char.clone(), 0..4),
            vec((value, string_from(literal_char.clone(), 1..4)), 0..5),
            string_from(literal_char, 0..4),
            select(vec!["v", "id", "x_", "N"]),
        ),
        |(head, parts, tail, prefix)| {
            let n = parts.len();
            let names: Vec<String> = (0..n).map(|k| format!("{prefix}{k}")).collect();
            let mut literals = vec![head.clone()];
            literals.extend(
                parts
                    .iter()
                    .take(n.saturating_sub(1))
                    .map(|(_, l)| l.clone()),
            );
            if n > 0 {
                literals.push(tail.clone());
            }
            let values: Vec<&str> = parts.iter().map(|(v, _)| v.as_str()).collect();
            let mut template = literals[0].clone();
            let mut uri = literals[0].clone();
            for k in 0..n {
                template.push_str(&format!("{{{}}}{}", names[k], literals[k + 1]));
                uri.push_str(&format!("{}{}", values[k], literals[k + 1]));
            }

            let got = match_uri_template(&template, &uri);
            prop_assert!(got.is_some(), "{template:?} does not match {uri:?}");
            let got = got.unwrap();
            prop_assert_eq!(
                got.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
                names.clone()
            );
            // Whatever the split, it is a valid one: substituting it back gives the URI.
            let mut rebuilt = literals[0].clone();
            for (k, (_, v)) in got.iter().enumerate() {
                prop_assert!(!v.is_empty() && !v.contains('/'), "value {v:?}");
                rebuilt.push_str(v);
                rebuilt.push_str(&literals[k + 1]);
            }
            prop_assert_eq!(&rebuilt, &uri);
            // Unambiguous when no value shares a character with any literal: exact values.
            let literal_chars: String = literals.concat();
            if values
                .iter()
                .all(|v| !v.contains(|c| literal_chars.contains(c)))
            {
                let got_values: Vec<&str> = got.iter().map(|(_, v)| v.as_str()).collect();
                prop_assert_eq!(got_values, values);
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// state_sync::list_cache
// ---------------------------------------------------------------------------------------------

const LIST_METHODS: &[&str] = &[
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "x/list",
];
const NOTIFICATIONS: &[&str] = &[
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/other",
];

#[derive(Debug, Clone)]
enum ListOp {
    Put {
        now: u16,
        method: usize,
        cursor: Option<u8>,
        uri: Option<u8>,
        ttl: Option<f64>,
        public: bool,
        auth: Option<u8>,
    },
    Get {
        now: u16,
        method: usize,
        cursor: Option<u8>,
        uri: Option<u8>,
        auth: Option<u8>,
        allow_stale: bool,
    },
    InvalidateList(usize),
    Notify(usize, Option<u8>),
    Clear,
}

fn ttl_input() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        1 => Just(None),
        1 => select(vec![0.0, -5.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]).prop_map(Some),
        4 => (1u16..300).prop_map(|t| Some(f64::from(t))),
        1 => (0.0..300.0f64).prop_map(Some),
    ]
}

fn list_op() -> impl Strategy<Value = ListOp> {
    let small = || prop::option::weighted(0.3, 0u8..2);
    let method = || prop_oneof![2 => 0..2usize, 1 => 0..LIST_METHODS.len()];
    prop_oneof![
        4 => (0u16..300, method(), small(), small(), ttl_input(), any::<bool>(), small())
            .prop_map(|(now, method, cursor, uri, ttl, public, auth)| ListOp::Put {
                now, method, cursor, uri, ttl, public, auth,
            }),
        4 => (0u16..300, method(), small(), small(), small(), any::<bool>())
            .prop_map(|(now, method, cursor, uri, auth, allow_stale)| ListOp::Get {
                now, method, cursor, uri, auth, allow_stale,
            }),
        1 => method().prop_map(ListOp::InvalidateList),
        1 => (0..NOTIFICATIONS.len(), small()).prop_map(|(m, u)| ListOp::Notify(m, u)),
        1 => Just(ListOp::Clear),
    ]
}

#[derive(Debug, Clone)]
struct ModelEntry {
    method: &'static str,
    cursor: Option<String>,
    uri: Option<String>,
    /// `None`: shared (public); `Some(auth)`: that context's private entry.
    owner: Option<Option<String>>,
    result: usize,
    received: f64,
    ttl: f64,
}

impl ModelEntry {
    fn fresh(&self, now: f64) -> bool {
        self.ttl > 0.0 && now < self.received + self.ttl
    }
}

fn params(cursor: Option<u8>, uri: Option<u8>) -> ListParams {
    ListParams {
        cursor: cursor.map(|c| format!("cursor-{c}")),
        uri: uri.map(|u| format!("file:///{u}")),
    }
}

#[test]
fn list_cache_agrees_with_a_map_model() {
    check(
        "list_cache_agrees_with_a_map_model",
        vec(list_op(), 0..32),
        |ops| {
            let mut cache: ListCache<usize> = ListCache::new();
            let mut model: Vec<ModelEntry> = Vec::new();
            for (step, op) in ops.iter().enumerate() {
                match *op {
                    ListOp::Put {
                        now,
                        method,
                        cursor,
                        uri,
                        ttl,
                        public,
                        auth,
                    } => {
                        let p = params(cursor, uri);
                        let auth = auth.map(|a| format!("ctx-{a}"));
                        let scope = if public {
                            ListScope::Public
                        } else {
                            ListScope::Private
                        };
                        let now = f64::from(now);
                        cache.put(
                            now,
                            ListEntry {
                                method: LIST_METHODS[method],
                                params: &p,
                                auth_context: auth.as_deref(),
                                result: step,
                                ttl_ms: ttl,
                                scope,
                            },
                        );
                        let request = |e: &ModelEntry| {
                            e.method == LIST_METHODS[method]
                                && e.cursor == p.cursor
                                && e.uri == p.uri
                        };
                        let owner = if public { None } else { Some(auth.clone()) };
                        // A public answer replaces every context's entry for the request.
                        model.retain(|e| !(request(e) && (public || e.owner == owner)));
                        let ttl = ttl.filter(|t| t.is_finite() && *t > 0.0).unwrap_or(0.0);
                        model.push(ModelEntry {
                            method: LIST_METHODS[method],
                            cursor: p.cursor.clone(),
                            uri: p.uri.clone(),
                            owner,
                            result: step,
                            received: now,
                            ttl,
                        });
                    }
                    ListOp::Get {
                        now,
                        method,
                        cursor,
                        uri,
                        auth,
                        allow_stale,
                    } => {
                        let p = params(cursor, uri);
                        let auth = auth.map(|a| format!("ctx-{a}"));
                        let now = f64::from(now);
                        let got =
                            cache.get(now, LIST_METHODS[method], &p, auth.as_deref(), allow_stale);
                        let find = |owner: Option<Option<String>>| {
                            model.iter().find(|e| {
                                e.method == LIST_METHODS[method]
                                    && e.cursor == p.cursor
                                    && e.uri == p.uri
                                    && e.owner == owner
                            })
                        };
                        // The caller's private entry if any (newer than the public one, which
                        // would have replaced it), else the public one; fresh, or stale if allowed.
                        let chosen = find(Some(auth.clone()))
                            .or_else(|| find(None))
                            .map(|e| (e, !e.fresh(now)))
                            .filter(|(_, stale)| allow_stale || !stale);
                        let want = chosen.map(|(e, stale)| ListHit {
                            result: e.result,
                            stale,
                            age_ms: (now - e.received).max(0.0),
                        });
                        prop_assert_eq!(got, want, "step {} {:?}", step, op);
                    }
                    ListOp::InvalidateList(method) => {
                        let before = model.len();
                        model.retain(|e| e.method != LIST_METHODS[method]);
                        prop_assert_eq!(
                            cache.invalidate_list(LIST_METHODS[method]),
                            before - model.len()
                        );
                    }
                    ListOp::Notify(kind, uri) => {
                        let uri = uri.map(|u| format!("file:///{u}"));
                        let doomed: &[&str] = match NOTIFICATIONS[kind] {
                            "notifications/tools/list_changed" => &["tools/list"],
                            "notifications/prompts/list_changed" => &["prompts/list"],
                            "notifications/resources/list_changed" => {
                                &["resources/list", "resources/templates/list"]
                            }
                            _ => &[],
                        };
                        let before = model.len();
                        let updated = NOTIFICATIONS[kind] == "notifications/resources/updated";
                        model.retain(|e| {
                            !(doomed.contains(&e.method)
                                || (updated
                                    && uri.is_some()
                                    && e.method == "resources/read"
                                    && e.uri == uri))
                        });
                        prop_assert_eq!(
                            cache.handle_notification(NOTIFICATIONS[kind], uri.as_deref()),
                            before - model.len()
                        );
                    }
                    ListOp::Clear => {
                        cache.clear();
                        model.clear();
                    }
                }
                prop_assert_eq!(cache.len(), model.len());
                prop_assert_eq!(cache.is_empty(), model.is_empty());
            }
            Ok(())
        },
    );
}

#[test]
fn list_cache_meta_sanitizes_ttl_and_scopes_round_trip() {
    check(
        "list_cache_meta_sanitizes_ttl_and_scopes_round_trip",
        (
            prop_oneof![
                2 => any::<f64>(),
                1 => select(vec![0.0, -0.0, 0.5, 1.0, 1e300, f64::MAX, f64::MIN_POSITIVE,
                                 f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
            ],
            prop::option::of(select(vec![ListScope::Public, ListScope::Private])),
            prop_oneof![
                any_text(20),
                select(vec!["public", "private", "Public", ""]).prop_map(str::to_owned)
            ],
        ),
        |(ttl, scope, wire)| {
            let meta = list_cache_meta(ttl, scope);
            let want = if ttl.is_finite() && ttl > 0.0 {
                ttl.floor()
            } else {
                0.0
            };
            prop_assert!(
                meta.ttl_ms.is_finite() && meta.ttl_ms >= 0.0 && meta.ttl_ms.fract() == 0.0
            );
            prop_assert_eq!(meta.ttl_ms.to_bits(), want.to_bits(), "ttl {}", ttl);
            // No scope is stated as `Private`: SEP-2549 reads an absent one as `public`.
            prop_assert_eq!(meta.scope, scope.unwrap_or(ListScope::Private));
            prop_assert_eq!(ListScope::from_wire(meta.scope.as_str()), Some(meta.scope));
            let want = match wire.as_str() {
                "public" => Some(ListScope::Public),
                "private" => Some(ListScope::Private),
                _ => None,
            };
            prop_assert_eq!(ListScope::from_wire(&wire), want);
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Bugs found by the properties above, pinned with their minimal inputs. Each is `#[ignore]`d
// until the owner fixes it; the property it came from skips exactly that input class.
// ---------------------------------------------------------------------------------------------

/// `decorate_description` claims to be idempotent, but a description ending in whitespace gets
/// the tag after that whitespace plus one space the first time, and the second call trims it.
#[test]

fn bug_decorate_description_is_not_idempotent_after_trailing_whitespace() {
    for d in ["abc ", "abc\n", " ", "\t"] {
        let once = decorate_description(d, CacheDirective::Immutable);
        let twice = decorate_description(&once, CacheDirective::Immutable);
        assert_eq!(twice, once, "description {d:?}");
    }
}

/// `attribute(body, "domains")` takes the first `domains` that follows whitespace and precedes
/// `=`, even inside the (escaped) cause value. When no quote follows it the whole signal is
/// dropped; when the cause ends there, the text up to the real attribute's quote becomes the
/// domain list (`["domains="]`) and the real domains are lost.
#[test]

fn bug_invalidation_tag_with_domains_equals_in_the_cause_loses_its_domains() {
    for cause in ["a domains=b", "a domains="] {
        let tag = invalidation_tag(cause, &["x.*".to_owned()]);
        assert_eq!(
            parse_invalidations(&tag),
            [Invalidation {
                cause: cause.into(),
                domains: vec!["x.*".into()],
            }],
            "tag {tag:?}"
        );
    }
}

/// The legacy scan also runs inside a tag's (escaped) attribute values, where `[`, `]` and `—`
/// are not escaped: one signal is reported twice.
#[test]

fn bug_legacy_signal_inside_a_tag_cause_is_reported_twice() {
    let cause = "[System: Cache invalidated for a — caused by b]";
    let tag = invalidation_tag(cause, &["x".to_owned()]);
    assert_eq!(
        parse_invalidations(&tag),
        [Invalidation {
            cause: cause.into(),
            domains: vec!["x".into()],
        }]
    );
}

/// `unescape_xml` promises to keep malformed entities as written, but parses the digits with
/// `str::parse`/`u32::from_str_radix`, which accept a leading `+`.
#[test]

fn bug_unescape_xml_accepts_a_plus_sign_in_numeric_references() {
    for malformed in ["&#+65;", "&#x+41;", "&#X+41;"] {
        assert_eq!(unescape_xml(malformed), malformed);
    }
}

/// `is_invalidation_text` promises "nothing but invalidation signals" (so a host may strip the
/// item), but only checks that the text starts with a signal that parses: data after it is lost.
#[test]

fn bug_is_invalidation_text_accepts_data_after_the_signal() {
    let tag = invalidation_tag("tasks.update", &["tasks.*".to_owned()]);
    for text in [
        format!("{tag} {{\"rows\":[1,2,3]}}"),
        format!("{tag}\nHere is the data you asked for."),
        "[System: Cache invalidated for a — caused by b] and some data".to_owned(),
    ] {
        assert!(!is_invalidation_text(&text), "{text:?}");
    }
}
