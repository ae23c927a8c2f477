//! Consuming invalidation signals: the `<cache_invalidation cause=… domains=… />` tag (entities
//! unescaped), the legacy `[System: Cache invalidated for … — caused by …]` text, and
//! `mcpfusion://stale/<pattern>` notification URIs.

/// One invalidation signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalidation {
    /// The tool whose success caused it.
    pub cause: String,
    /// The invalidated patterns.
    pub domains: Vec<String>,
}

const TAG_OPEN: &str = "<cache_invalidation";
const LEGACY_OPEN: &str = "[System: Cache invalidated for ";
const LEGACY_CAUSE: &str = " — caused by ";

/// Undoes XML escaping: the five named entities and numeric references. Unknown or malformed
/// entities are kept as written.
pub fn unescape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let decoded = tail.find(';').filter(|&end| end <= 12).and_then(|end| {
            let entity = &tail[1..end];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => numeric_reference(entity),
            }?;
            Some((c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `&#65;` / `&#x41;` (digits only: no sign, no spaces), as a character.
fn numeric_reference(entity: &str) -> Option<char> {
    let (digits, radix) = match entity
        .strip_prefix("#x")
        .or_else(|| entity.strip_prefix("#X"))
    {
        Some(hex) => (hex, 16),
        None => (entity.strip_prefix('#')?, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix)
        .ok()
        .and_then(char::from_u32)
}

/// The `name="value"` attributes of a tag body, in order, values unescaped. Parsing stops at
/// the first thing that is not an attribute, so text inside a value is never read as a name.
fn attributes(body: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ':'))
            .unwrap_or(rest.len());
        if name_len == 0 {
            break;
        }
        let name = &rest[..name_len];
        let Some(after_eq) = rest[name_len..].trim_start().strip_prefix('=') else {
            break;
        };
        let value = after_eq.trim_start();
        let Some(quote) = value.chars().next().filter(|q| *q == '"' || *q == '\'') else {
            break;
        };
        let Some(end) = value[1..].find(quote) else {
            break;
        };
        out.push((name, unescape_xml(&value[1..1 + end])));
        rest = value[1 + end + 1..].trim_start();
    }
    out
}

fn attribute(attrs: &[(&str, String)], name: &str) -> Option<String> {
    attrs
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.clone())
}

fn split_domains(domains: &str) -> Vec<String> {
    domains
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Every invalidation signal in a text with its byte span, tag and legacy forms, in order of
/// appearance. A legacy form inside a tag (e.g. in its `cause`) is part of that tag, not a signal.
fn signals(text: &str) -> Vec<(std::ops::Range<usize>, Invalidation)> {
    let mut found: Vec<(std::ops::Range<usize>, Invalidation)> = Vec::new();
    let mut tag_spans: Vec<std::ops::Range<usize>> = Vec::new();
    let mut offset = 0;
    while let Some(start) = text[offset..].find(TAG_OPEN) {
        let begin = offset + start;
        let body_start = begin + TAG_OPEN.len();
        let Some(close) = text[body_start..].find("/>") else {
            break;
        };
        let end = body_start + close + 2;
        tag_spans.push(begin..end);
        let attrs = attributes(&text[body_start..body_start + close]);
        if let (Some(cause), Some(domains)) =
            (attribute(&attrs, "cause"), attribute(&attrs, "domains"))
        {
            found.push((
                begin..end,
                Invalidation {
                    cause,
                    domains: split_domains(&domains),
                },
            ));
        }
        offset = end;
    }
    let mut offset = 0;
    while let Some(start) = text[offset..].find(LEGACY_OPEN) {
        let begin = offset + start;
        let body_start = begin + LEGACY_OPEN.len();
        let Some(close) = text[body_start..].find(']') else {
            break;
        };
        let end = body_start + close + 1;
        let inside_tag = tag_spans.iter().any(|span| span.contains(&begin));
        let body = &text[body_start..body_start + close];
        if let (false, Some((domains, cause))) = (inside_tag, body.rsplit_once(LEGACY_CAUSE)) {
            found.push((
                begin..end,
                Invalidation {
                    cause: cause.trim().to_owned(),
                    domains: split_domains(domains),
                },
            ));
        }
        offset = if inside_tag { body_start } else { end };
    }
    found.sort_by_key(|(span, _)| span.start);
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

/// The pattern in a `mcpfusion://stale/<pattern>` (or legacy `fusion://stale/<pattern>`) URI.
pub fn stale_pattern(uri: &str) -> Option<&str> {
    uri.strip_prefix("mcpfusion://stale/")
        .or_else(|| uri.strip_prefix("fusion://stale/"))
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_sync::decorate::invalidation_tag;

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
    }

    #[test]
    fn stale_uris() {
        assert_eq!(
            stale_pattern("mcpfusion://stale/billing.*"),
            Some("billing.*")
        );
        assert_eq!(stale_pattern("fusion://stale/a"), Some("a"));
        assert_eq!(stale_pattern("mcpfusion://stale/"), None);
        assert_eq!(stale_pattern("https://x"), None);
    }
}
