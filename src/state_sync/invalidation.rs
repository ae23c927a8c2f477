//! Consuming invalidation signals: the `<cache_invalidation cause=… domains=… />` tag (entities
//! unescaped), the legacy `[System: Cache invalidated for … — caused by …]` text, and the
//! `<scheme>://stale/<pattern>` URIs of stale notifications (see [`STALE_URI_PREFIXES`]).
//!
//! Tool results are untrusted and can be large, so every parser here runs in time linear in
//! its input: each scan resumes where the previous one stopped and never looks further than
//! the signal it is reading.

use crate::core::envelope::json_string;
use crate::core::text;

/// One invalidation signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalidation {
    /// The tool whose success caused it.
    pub cause: String,
    /// The invalidated patterns.
    pub domains: Vec<String>,
}

/// The URI prefixes of stale-pattern notifications (`notifications/resources/updated` whose
/// `params.uri` is a prefix followed by a glob pattern), as the releases of MCP Fusion spelled
/// them:
///
/// * `mcpfusion://stale/`: what this package's `StateSync` sends by default;
/// * `fusion://stale/`: MCP Fusion v2.6 to v3.1;
/// * `vurb://stale/`: v3.2 and later (the framework renamed Vurb).
pub const STALE_URI_PREFIXES: [&str; 3] = [
    crate::state_sync::decorate::DEFAULT_STALE_URI_PREFIX,
    "fusion://stale/",
    "vurb://stale/",
];

const TAG_OPEN: &str = "<cache_invalidation";
const LEGACY_OPEN: &str = "[System: Cache invalidated for ";
const LEGACY_CAUSE: &str = " — caused by ";

/// Longest entity we decode, `&` and `;` included (`&#x10FFFF;` and `&#1114111;` fit).
const ENTITY_MAX_LEN: usize = 13;

/// Undoes XML escaping: the five named entities and numeric references. Unknown or malformed
/// entities are kept as written.
///
/// One pass over the bytes: an entity ends at the first `;` after its `&`, at most 12 bytes
/// later. That `;` is looked up once for all the `&`s before it, and the `&`s too far from it
/// are skipped together, so a run of `&`s costs one scan, not one per `&`. Text between decoded
/// entities is copied in whole runs.
pub fn unescape_xml(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0; // `s[..copied]` is already in `out`
    let mut at = 0; // where to look for the next `&`
    let mut semi = 0; // the first `;` after the current `&`, once looked up
    while let Some(offset) = bytes[at..].iter().position(|&b| b == b'&') {
        let amp = at + offset;
        if semi <= amp {
            match bytes[amp..].iter().position(|&b| b == b';') {
                Some(p) => semi = amp + p,
                None => break, // no `;` left: no entity from here on
            }
        }
        if semi - amp >= ENTITY_MAX_LEN {
            // Every `&` before `semi - 12` ends at this same, too distant `;`.
            at = semi + 1 - ENTITY_MAX_LEN;
            continue;
        }
        at = amp + 1;
        // `&` and `;` are ASCII, so both ends are character boundaries.
        let Some(c) = decode_entity(&s[amp + 1..semi]) else {
            continue;
        };
        out.push_str(&s[copied..amp]);
        out.push(c);
        copied = semi + 1;
        at = copied;
    }
    out.push_str(&s[copied..]);
    out
}

/// The character an entity's name stands for (`amp`, `#65`, `#x41`, …).
fn decode_entity(entity: &str) -> Option<char> {
    match entity {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => numeric_reference(entity),
    }
}

/// `&#65;` / `&#x41;` (digits only: no sign, no spaces), as a character.
fn numeric_reference(entity: &str) -> Option<char> {
    let (digits, radix) = match entity
        .strip_prefix("#x")
        .or_else(|| entity.strip_prefix("#X"))
    {
        Some(hex) => (hex, 16),
        None => (entity.strip_prefix("#")?, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    crate::core::text::parse_u32(digits, radix).and_then(char::from_u32)
}

/// The `name="value"` attributes of a tag body, in order, values as written. Parsing stops
/// at the first thing that is not an attribute, so text inside a value is never read as a name.
fn attributes(body: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        // Name characters are ASCII, so the first other byte starts a character.
        let name_len = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b':'))
            .unwrap_or(rest.len());
        if name_len == 0 {
            break;
        }
        let name = &rest[..name_len];
        let Some(after_eq) = rest[name_len..].trim_start().strip_prefix("=") else {
            break;
        };
        let value = after_eq.trim_start();
        // The quote as a string (one byte): one `str` searcher serves every search.
        let quote = match value.as_bytes().first() {
            Some(b'"' | b'\'') => &value[..1],
            _ => break,
        };
        let Some(end) = text::find(&value[1..], quote) else {
            break;
        };
        out.push((name, &value[1..1 + end]));
        rest = value[1 + end + 1..].trim_start();
    }
    out
}

/// The first attribute called `name`, unescaped (only the attributes used are unescaped).
fn attribute(attrs: &[(&str, &str)], name: &str) -> Option<String> {
    attrs
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| unescape_xml(v))
}

fn split_domains(domains: &str) -> Vec<String> {
    let mut list = Vec::new();
    for domain in text::split(domains, ",").map(str::trim) {
        if !domain.is_empty() {
            list.push(domain.to_owned());
        }
    }
    list
}

type Span = std::ops::Range<usize>;

/// Every invalidation signal in a text with its byte span, tag and legacy forms, in order of
/// appearance. A legacy form inside a tag (e.g. in its `cause`) is part of that tag, not a signal.
fn signals(text: &str) -> Vec<(Span, Invalidation)> {
    let (tag_signals, tag_spans) = tags(text);
    let legacy = legacy_signals(text, &tag_spans);
    // Both lists are in order of appearance: merge them (stably, tags first on a tie).
    let mut merged = Vec::with_capacity(tag_signals.len() + legacy.len());
    let mut tags = tag_signals.into_iter().peekable();
    let mut legacy = legacy.into_iter().peekable();
    loop {
        let take_legacy = match (tags.peek(), legacy.peek()) {
            (Some(t), Some(l)) => l.0.start < t.0.start,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let next = if take_legacy {
            legacy.next()
        } else {
            tags.next()
        };
        match next {
            Some(signal) => merged.push(signal),
            None => return merged,
        }
    }
}

/// The `<cache_invalidation … />` tags: the signals, and the spans of every tag (with or
/// without the two attributes), in order and disjoint.
fn tags(text: &str) -> (Vec<(Span, Invalidation)>, Vec<Span>) {
    let mut found = Vec::new();
    let mut spans = Vec::new();
    let mut resume = 0; // openings before this are inside the previous tag
    for begin in text::occurrences(text, TAG_OPEN) {
        if begin < resume {
            continue;
        }
        let body_start = begin + TAG_OPEN.len();
        let Some(close) = find_tag_end(&text[body_start..]) else {
            break; // no tag closes after this one, so no later tag can either
        };
        // A `<` before the end: this opening is prose (`<cache_invalidation> is a tag`), not a
        // tag (attribute values escape `<`); a tag after it is still read.
        if text.as_bytes()[body_start + close] == b'<' {
            continue;
        }
        let end = body_start + close + 2;
        spans.push(begin..end);
        let attrs = attributes(&text[body_start..body_start + close]);
        if let (Some(cause), Some(domains)) =
            (attribute(&attrs, "cause"), attribute(&attrs, "domains"))
        {
            let domains = split_domains(&domains);
            found.push((begin..end, Invalidation { cause, domains }));
        }
        resume = end;
    }
    (found, spans)
}

/// Where the first `/>` starts, or the first `<` before it (not a tag's end: the caller tells).
fn find_tag_end(s: &str) -> Option<usize> {
    s.as_bytes()
        .windows(2)
        .position(|pair| pair == b"/>" || pair[0] == b'<')
}

/// The legacy `[System: Cache invalidated for … — caused by …]` texts outside the tags.
/// `tag_spans` is sorted and disjoint, and the texts are met in order, so one cursor walks it:
/// a text that starts inside a tag skips to the end of that tag.
fn legacy_signals(text: &str, tag_spans: &[Span]) -> Vec<(Span, Invalidation)> {
    let mut found = Vec::new();
    let mut next_tag = 0;
    let mut resume = 0; // openings before this belong to a tag or to the previous text
    for begin in text::occurrences(text, LEGACY_OPEN) {
        if begin < resume {
            continue;
        }
        while tag_spans
            .get(next_tag)
            .is_some_and(|span| span.end <= begin)
        {
            next_tag += 1;
        }
        if let Some(tag) = tag_spans.get(next_tag).filter(|span| span.start <= begin) {
            resume = tag.end;
            continue;
        }
        let body_start = begin + LEGACY_OPEN.len();
        let Some(close) = text::find(&text[body_start..], "]") else {
            break; // no `]` closes this text, so none closes a later one either
        };
        let end = body_start + close + 1;
        let body = &text[body_start..body_start + close];
        if let Some((domains, cause)) = split_at_last(body, LEGACY_CAUSE) {
            let cause = cause.trim().to_owned();
            let domains = split_domains(domains);
            found.push((begin..end, Invalidation { cause, domains }));
        }
        resume = end;
    }
    found
}

/// Every invalidation signal in a text, tag and legacy forms, in order of appearance.
pub fn parse_invalidations(text: &str) -> Vec<Invalidation> {
    signals(text).into_iter().map(|(_, inv)| inv).collect()
}

/// True when a content item's text is nothing but invalidation signals (so a host can strip it
/// from the data and show it separately).
pub fn is_invalidation_text(text: &str) -> bool {
    let found = signals(text);
    if found.is_empty() {
        return false;
    }
    // Everything outside the signals must be whitespace.
    let mut at = 0;
    for (span, _) in &found {
        if span.start > at && !text[at..span.start].trim().is_empty() {
            return false;
        }
        at = at.max(span.end);
    }
    text[at..].trim().is_empty()
}

/// The pattern in a stale-notification URI: any of [`STALE_URI_PREFIXES`] followed by a
/// non-empty pattern (`vurb://stale/billing.*` → `billing.*`).
pub fn stale_pattern(uri: &str) -> Option<&str> {
    STALE_URI_PREFIXES
        .iter()
        .find_map(|prefix| uri.strip_prefix(prefix))
        .filter(|p| !p.is_empty())
}

/// The invalidations of one or more texts as one JSON array, `[{"cause":…,"domains":[…]}, …]`
/// in order of appearance: what a host's `parseInvalidations` answers, built as one text so that
/// crossing into JS costs one `JSON.parse` however many signals a result holds.
pub struct InvalidationsJson {
    json: String,
}

impl Default for InvalidationsJson {
    fn default() -> Self {
        InvalidationsJson {
            json: String::from("["),
        }
    }
}

impl InvalidationsJson {
    /// An empty array.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends every invalidation signal of `text`.
    pub fn push_text(&mut self, text: &str) {
        for inv in parse_invalidations(text) {
            let json = &mut self.json;
            json.push_str(if json.len() > 1 {
                ",{\"cause\":"
            } else {
                "{\"cause\":"
            });
            json.push_str(&json_string(&inv.cause));
            json.push_str(",\"domains\":[");
            for (i, domain) in inv.domains.iter().enumerate() {
                if i > 0 {
                    json.push(',');
                }
                json.push_str(&json_string(domain));
            }
            json.push_str("]}");
        }
    }

    /// The JSON text.
    pub fn finish(mut self) -> String {
        self.json.push(']');
        self.json
    }
}

/// `text.rsplit_once(separator)`, by forward searches (each resumes one byte after the last
/// match, so overlapping occurrences are found too): the module then carries one string
/// searcher, the forward one `match_indices` and `find` use, not the reverse one as well. Linear:
/// every search stops at the next occurrence. `separator` must start with an ASCII byte.
fn split_at_last<'a>(text: &'a str, separator: &str) -> Option<(&'a str, &'a str)> {
    let mut last = None;
    let mut from = 0;
    while let Some(at) = text::find(&text[from..], separator) {
        last = Some(from + at);
        from += at + 1;
    }
    last.map(|at| (&text[..at], &text[at + separator.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_sync::decorate::invalidation_tag;

    #[test]
    fn split_at_last_is_rsplit_once() {
        for text in [
            "",
            "a",
            "a — caused by b",
            "a — caused by — caused by b",
            " — caused by ",
            " — caused by  — caused by x — caused by",
            "é — caused by ü — caused by ß",
        ] {
            assert_eq!(
                split_at_last(text, LEGACY_CAUSE),
                text.rsplit_once(LEGACY_CAUSE),
                "{text}"
            );
        }
    }

    #[test]
    fn round_trips_the_tag_with_entities() {
        let tag = invalidation_tag(
            "tool<\"evil\"> & 'co'",
            &["billing.*".into(), "tasks.get_*".into()],
        );
        assert_eq!(
            parse_invalidations(&tag),
            [Invalidation {
                cause: "tool<\"evil\"> & 'co'".into(),
                domains: vec!["billing.*".into(), "tasks.get_*".into()],
            }]
        );
        assert!(is_invalidation_text(&format!("  {tag}\n")));
    }

    #[test]
    fn an_opening_in_prose_does_not_swallow_the_tag_after_it() {
        let text = "Note: <cache_invalidation> is a tag. \
                    <cache_invalidation cause=\"t\" domains=\"a.*\" />";
        assert_eq!(
            parse_invalidations(text),
            [Invalidation {
                cause: "t".into(),
                domains: vec!["a.*".into()],
            }]
        );
        assert!(!is_invalidation_text(text), "prose around the tag");
    }

    #[test]
    fn legacy_text() {
        let text = "[System: Cache invalidated for sprints.*, tasks.* — caused by sprints.update]";
        assert_eq!(
            parse_invalidations(text),
            [Invalidation {
                cause: "sprints.update".into(),
                domains: vec!["sprints.*".into(), "tasks.*".into()]
            }]
        );
        assert!(is_invalidation_text(text));
    }

    #[test]
    fn several_and_noise() {
        let text = r#"x <cache_invalidation domains="a.*" cause="t1" /> [System: Cache invalidated for b — caused by t2] <cache_invalidation cause="t3" domains="c" />"#;
        let causes: Vec<_> = parse_invalidations(text)
            .into_iter()
            .map(|i| i.cause)
            .collect();
        assert_eq!(causes, ["t1", "t2", "t3"]);
        assert!(!is_invalidation_text(r#"{"ok":true}"#));
        assert!(parse_invalidations("<cache_invalidation cause=\"x\"").is_empty());
        assert!(parse_invalidations("<cache_invalidation />").is_empty());
        assert_eq!(unescape_xml("&amp;&#65;&#x42;&bogus;&"), "&AB&bogus;&");
        assert_eq!(unescape_xml("&#x10FFFF;&#1114111;"), "\u{10FFFF}\u{10FFFF}");
        assert_eq!(
            unescape_xml("&#x00010FFFF;"),
            "\u{10FFFF}",
            "`;` 12 bytes after `&`"
        );
        assert_eq!(
            unescape_xml("&#x000010FFFF;"),
            "&#x000010FFFF;",
            "`;` 13 bytes after"
        );
        assert_eq!(unescape_xml("&&amp;&"), "&&&");
        assert_eq!(unescape_xml("a&amp"), "a&amp", "no `;` at the end");
        assert_eq!(unescape_xml("&amp;&amp"), "&&amp");
        assert_eq!(
            unescape_xml("&&&&&&&&&&&&&&&&&&&&amp;"),
            "&&&&&&&&&&&&&&&&&&&&"
        );
        assert_eq!(
            unescape_xml("&&&&&&&&&&&&&&&&&&&#65;;"),
            "&&&&&&&&&&&&&&&&&&A;"
        );
    }

    #[test]
    fn legacy_text_inside_tags_is_skipped() {
        let tag = r#"<cache_invalidation cause="[System: Cache invalidated for x — caused by y]" domains="a" />"#;
        let text = format!("{tag}{tag}[System: Cache invalidated for b — caused by t]");
        let causes: Vec<_> = parse_invalidations(&text)
            .into_iter()
            .map(|i| i.cause)
            .collect();
        assert_eq!(
            causes,
            [
                "[System: Cache invalidated for x — caused by y]",
                "[System: Cache invalidated for x — caused by y]",
                "t"
            ]
        );
        assert!(is_invalidation_text(&text));
        // A legacy text that opens before a tag and closes after it holds the tag.
        let around = format!("[System: Cache invalidated for b {tag} — caused by t]");
        assert_eq!(parse_invalidations(&around).len(), 2);
    }

    #[test]
    fn stale_uris() {
        assert_eq!(
            stale_pattern("mcpfusion://stale/billing.*"),
            Some("billing.*")
        );
        assert_eq!(stale_pattern("fusion://stale/a"), Some("a"));
        assert_eq!(stale_pattern("vurb://stale/a.**"), Some("a.**"));
        assert_eq!(stale_pattern("mcpfusion://stale/"), None);
        assert_eq!(stale_pattern("vurb://stale/"), None);
        assert_eq!(stale_pattern("Vurb://stale/a"), None, "schemes are exact");
        assert_eq!(stale_pattern("xvurb://stale/a"), None);
        assert_eq!(stale_pattern("https://x"), None);
    }

    #[test]
    fn invalidations_as_one_json_array() {
        let empty = InvalidationsJson::new();
        assert_eq!(empty.finish(), "[]");
        let mut json = InvalidationsJson::new();
        json.push_text("no signal here");
        json.push_text(&invalidation_tag(
            "tasks.update",
            &["tasks.*".into(), "sprints.*".into()],
        ));
        json.push_text(
            "[System: Cache invalidated for a.*, b.* — caused by x] \
             <cache_invalidation cause=\"q&quot;\\\" domains=\"\" />",
        );
        assert_eq!(
            json.finish(),
            r#"[{"cause":"tasks.update","domains":["tasks.*","sprints.*"]},{"cause":"x","domains":["a.*","b.*"]},{"cause":"q\"\\","domains":[]}]"#
        );
        // Control characters are escaped, so the text always parses as JSON.
        let mut json = InvalidationsJson::new();
        json.push_text("<cache_invalidation cause=\"a\u{1}\n\" domains=\"x\" />");
        assert_eq!(json.finish(), r#"[{"cause":"a\u0001\n","domains":["x"]}]"#);
    }
}
