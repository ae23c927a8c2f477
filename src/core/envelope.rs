//! The envelopes a host returns to the model instead of dispatching a tool call (docs/PROTOCOL.md, *Envelopes*):
//! unresolvable references, stale references, and over-long inline lists. Wording is part of the
//! contract: models are prompted by it.

use crate::core::text::{concat, join, push_hex4, uint};

/// References an envelope lists at most, in `_missing_uris` and in `_stale_uris` (its error line
/// counts them all), and the pointers, causes and tools its hint names at most.
pub const MAX_LISTED: usize = 32;
/// Bytes of UTF-8 of a reference (or a pointer, a tool name) an envelope shows: a longer one is
/// cut there (at a character boundary) and ends in `…`.
pub const MAX_SHOWN_BYTES: usize = 512;

/// A blocked call's explanation, shaped for the model. Serialized as
/// `{ error, _missing_uris?, _stale_uris?, fix_hint, _capped_arg? }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// `invalid_args: …` — one line saying what is wrong.
    pub error: String,
    /// References that could not be resolved (`_missing_uris`).
    pub missing_uris: Vec<String>,
    /// References whose data a mutation made stale (`_stale_uris`).
    pub stale_uris: Vec<String>,
    /// What the model should do next.
    pub fix_hint: String,
    /// The argument that exceeded the inline-list cap (`_capped_arg`).
    pub capped_arg: Option<String>,
}

/// Why one reference could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceFailure {
    /// No entry (absent, malformed, another conversation, or evicted).
    Missing {
        /// The reference as the model wrote it.
        uri: String,
    },
    /// The entry exists but its `#` JSON Pointer selects nothing.
    BadPointer {
        /// The reference as the model wrote it.
        uri: String,
        /// The pointer.
        pointer: String,
    },
    /// A mutation invalidated the entry.
    Stale {
        /// The reference as the model wrote it.
        uri: String,
        /// The tool whose success invalidated it.
        cause: String,
        /// The tool to re-call for fresh data.
        source_tool_name: String,
    },
}

impl ReferenceFailure {
    /// The reference as the model wrote it.
    pub fn uri(&self) -> &str {
        match self {
            Self::Missing { uri } | Self::BadPointer { uri, .. } | Self::Stale { uri, .. } => uri,
        }
    }
}

/// `text` as an envelope shows it: cut after [`MAX_SHOWN_BYTES`] bytes of UTF-8 (at the
/// character boundary before), with `…`.
fn shown(text: &str) -> String {
    if text.len() <= MAX_SHOWN_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_SHOWN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    concat(&[&text[..end], "…"])
}

/// Pushes `item` as [`shown`] unless it is listed already, while fewer than [`MAX_LISTED`] are.
fn list(listed: &mut Vec<String>, item: &str) {
    if listed.len() < MAX_LISTED {
        let item = shown(item);
        if !listed.contains(&item) {
            listed.push(item);
        }
    }
}

/// How many distinct references `listed` stands for, `noted` in all: its own length while it
/// has room; past that, every one noted (the failures of one call name distinct references:
/// see [`crate::core::substitute::resolve`]).
fn count(listed: &[String], noted: usize) -> usize {
    if listed.len() < MAX_LISTED {
        listed.len()
    } else {
        noted
    }
}

/// The envelope for references that could not be used. Misses (including bad pointers) set the
/// error line when present; otherwise the stale line does. The error line counts every failing
/// reference; `_missing_uris` and `_stale_uris` list the first [`MAX_LISTED`] of each, and every
/// reference, pointer or tool name shown is cut to [`MAX_SHOWN_BYTES`] bytes: what the model
/// reads stays bounded whatever it wrote.
pub fn resolution_envelope(failures: &[ReferenceFailure]) -> Envelope {
    let (mut missing, mut stale) = (Vec::new(), Vec::new());
    let (mut pointers, mut causes, mut sources) = (Vec::new(), Vec::new(), Vec::new());
    let (mut missed, mut staled) = (0, 0);
    for failure in failures {
        match failure {
            ReferenceFailure::Missing { uri } => {
                list(&mut missing, uri);
                missed += 1;
            }
            ReferenceFailure::BadPointer { uri, pointer } => {
                list(&mut missing, uri);
                list(&mut pointers, pointer);
                missed += 1;
            }
            ReferenceFailure::Stale {
                uri,
                cause,
                source_tool_name,
            } => {
                list(&mut stale, uri);
                list(&mut causes, cause);
                list(
                    &mut sources,
                    super::source::split_source(source_tool_name).1,
                );
                staled += 1;
            }
        }
    }
    let mut hints = Vec::new();
    let error = if !missing.is_empty() {
        // The error line is the contract's exact wording; details go into the hint.
        let line = match (missing.as_slice(), count(&missing, missed)) {
            ([one], 1) => concat(&["invalid_args: cache URI ", one, " could not be resolved"]),
            (_, count) => concat(&[
                "invalid_args: ",
                &uint(count as u64),
                " cache URIs could not be resolved",
            ]),
        };
        if !pointers.is_empty() {
            hints.push(concat(&[
                "The JSON Pointer ",
                &join(&pointers, ", "),
                " selects nothing in the cached result: write a path that exists in it (`/` \
                 before each key or index, e.g. #/rows/0), or drop the #fragment to pass the \
                 whole result.",
            ]));
        }
        hints.push(
            "Re-call the source tool that produced this data, then pass the fresh `_cache_uri` \
             from that new result (as `<arg>_uri`) instead of this reference. Never invent or \
             edit a cache URI. If the page was reloaded or the conversation was cleared, ask the \
             user before re-fetching the data."
                .to_owned(),
        );
        line
    } else {
        let causes = join(&causes, ", ");
        match (stale.as_slice(), count(&stale, staled)) {
            ([one], 1) => concat(&[
                "invalid_args: cache URI ",
                one,
                " is stale (invalidated by ",
                &causes,
                ")",
            ]),
            (_, count) => concat(&[
                "invalid_args: ",
                &uint(count as u64),
                " cache URIs are stale (invalidated by ",
                &causes,
                ")",
            ]),
        }
    };
    if !stale.is_empty() {
        hints.push(concat(&[
            "The data behind the stale reference has changed (invalidated by ",
            &join(&causes, ", "),
            "). Re-call ",
            &join(&sources, ", "),
            " to get fresh data and pass the new `_cache_uri` from its result.",
        ]));
    }
    Envelope {
        error,
        missing_uris: missing,
        stale_uris: stale,
        fix_hint: join(&hints, " "),
        capped_arg: None,
    }
}

/// The envelope for an inline array argument longer than the cap.
pub fn inline_cap_envelope(tool_name: &str, arg: &str, count: usize, cap: usize) -> Envelope {
    Envelope {
        error: concat(&[
            "invalid_args: `",
            arg,
            "` has ",
            &uint(count as u64),
            " records (cap: ",
            &uint(cap as u64),
            "). Do not copy records into tool arguments; pass the earlier result by reference \
             in `",
            arg,
            "_uri` instead.",
        ]),
        missing_uris: Vec::new(),
        stale_uris: Vec::new(),
        fix_hint: concat(&[
            "Call ",
            tool_name,
            " again with ",
            arg,
            "_uri=\"<the _cache_uri of the tool result that produced these records>\" and \
             without `",
            arg,
            "`. If no earlier result has a `_cache_uri`, re-call the tool that produces the data \
             first.",
        ]),
        capped_arg: Some(arg.to_owned()),
    }
}

/// `"<tool>|cache-miss|<JSON array of the failing references>"`: a stable key a host can use to
/// notice the model repeating the same failing call.
pub fn cache_miss_signature(tool_name: &str, uris: &[String]) -> String {
    let list: Vec<String> = uris.iter().map(|u| json_string(u)).collect();
    concat(&[tool_name, "|cache-miss|[", &join(&list, ","), "]"])
}

/// `"<tool>|inline-cap|<arg>"`.
pub fn inline_cap_signature(tool_name: &str, arg: &str) -> String {
    concat(&[tool_name, "|inline-cap|", arg])
}

/// A string as `JSON.stringify` writes it.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u");
                push_hex4(&mut out, c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(uri: &str) -> ReferenceFailure {
        ReferenceFailure::Missing { uri: uri.into() }
    }

    #[test]
    fn one_miss_is_singular() {
        let e = resolution_envelope(&[missing("mcp+cache://c/AAAAAAAAAAA")]);
        assert_eq!(
            e.error,
            "invalid_args: cache URI mcp+cache://c/AAAAAAAAAAA could not be resolved"
        );
        assert_eq!(e.missing_uris, ["mcp+cache://c/AAAAAAAAAAA"]);
        assert!(e.fix_hint.contains("Re-call the source tool"));
        assert!(e.fix_hint.contains("`_cache_uri`"));
        assert!(e.fix_hint.contains("ask the user before re-fetching"));
        assert!(e.stale_uris.is_empty());
    }

    #[test]
    fn what_an_envelope_shows_is_bounded_and_its_count_exact() {
        let uris: Vec<String> = (0..1000)
            .map(|i| concat(&["mcp+cache://c/T", &uint(i)]))
            .collect();
        let failures: Vec<ReferenceFailure> = uris.iter().map(|u| missing(u)).collect();
        let e = resolution_envelope(&failures);
        assert_eq!(
            e.error,
            "invalid_args: 1000 cache URIs could not be resolved"
        );
        assert_eq!(e.missing_uris, uris[..MAX_LISTED]);
        // One reference, and one pointer, longer than what is shown: cut, ending in `…`.
        let long = concat(&["mcp+cache://cc/", &"é".repeat(2000)]);
        let pointer = concat(&["/", &"k".repeat(5000)]);
        let e = resolution_envelope(&[ReferenceFailure::BadPointer {
            uri: long.clone(),
            pointer: pointer.clone(),
        }]);
        // 15 ASCII bytes, then 2-byte characters: the cut falls inside one and goes back.
        let shown_uri = concat(&[&long[..MAX_SHOWN_BYTES - 1], "…"]);
        assert_eq!(e.missing_uris, std::slice::from_ref(&shown_uri));
        assert_eq!(
            e.error,
            concat(&[
                "invalid_args: cache URI ",
                &shown_uri,
                " could not be resolved"
            ])
        );
        assert!(
            e.fix_hint.len() < 2 * MAX_SHOWN_BYTES + 600,
            "{}",
            e.fix_hint.len()
        );
        // Stale ones likewise, with the count in the error line.
        let stale: Vec<ReferenceFailure> = uris
            .iter()
            .map(|u| ReferenceFailure::Stale {
                uri: u.clone(),
                cause: "tasks.update".into(),
                source_tool_name: "tasks.list".into(),
            })
            .collect();
        let e = resolution_envelope(&stale);
        assert_eq!(
            e.error,
            "invalid_args: 1000 cache URIs are stale (invalidated by tasks.update)"
        );
        assert_eq!(e.stale_uris.len(), MAX_LISTED);
    }

    #[test]
    fn several_misses_are_plural_and_all_listed_once() {
        let e = resolution_envelope(&[missing("a"), missing("b"), missing("a")]);
        assert_eq!(e.error, "invalid_args: 2 cache URIs could not be resolved");
        assert_eq!(e.missing_uris, ["a", "b"]);
    }

    #[test]
    fn bad_pointer_is_a_miss_naming_the_pointer() {
        let e = resolution_envelope(&[ReferenceFailure::BadPointer {
            uri: "mcp+cache://c/AAAAAAAAAAA#/rows/99".into(),
            pointer: "/rows/99".into(),
        }]);
        assert_eq!(
            e.error,
            "invalid_args: cache URI mcp+cache://c/AAAAAAAAAAA#/rows/99 could not be resolved"
        );
        assert!(e.fix_hint.contains("/rows/99 selects nothing"));
    }

    #[test]
    fn stale_envelope_names_cause_and_source() {
        let e = resolution_envelope(&[ReferenceFailure::Stale {
            uri: "mcp+cache://c/AAAAAAAAAAA".into(),
            cause: "billing.refund".into(),
            source_tool_name: "billing.get_invoice".into(),
        }]);
        assert_eq!(
            e.error,
            "invalid_args: cache URI mcp+cache://c/AAAAAAAAAAA is stale (invalidated by billing.refund)"
        );
        assert_eq!(e.stale_uris, ["mcp+cache://c/AAAAAAAAAAA"]);
        assert!(e.missing_uris.is_empty());
        assert!(e.fix_hint.contains("Re-call billing.get_invoice"));
    }

    #[test]
    fn inline_cap_wording() {
        let e = inline_cap_envelope("chart.create", "data", 24, 20);
        assert!(e
            .error
            .starts_with("invalid_args: `data` has 24 records (cap: 20)."));
        assert!(e.error.contains("data_uri"));
        assert!(e.fix_hint.contains("chart.create"));
        assert!(e.fix_hint.contains("data_uri="));
        assert_eq!(e.capped_arg.as_deref(), Some("data"));
    }

    #[test]
    fn signatures() {
        assert_eq!(
            cache_miss_signature("chart.create", &["mcp+cache://c/x\"y".into()]),
            r#"chart.create|cache-miss|["mcp+cache://c/x\"y"]"#
        );
        assert_eq!(inline_cap_signature("t", "data"), "t|inline-cap|data");
        assert_eq!(json_string("a\u{1}\n"), "\"a\\u0001\\n\"");
    }
}
