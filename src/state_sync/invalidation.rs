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
                _ => entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
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

/// `name="value"` inside a tag body, unescaped.
fn attribute(body: &str, name: &str) -> Option<String> {
    let mut search = body;
    loop {
        let at = search.find(name)?;
        let before_ok = at == 0 || search[..at].ends_with(char::is_whitespace);
        let after = search[at + name.len()..].trim_start();
        if before_ok {
            if let Some(value) = after.strip_prefix('=').map(str::trim_start) {
                let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
                let value = &value[1..];
                let end = value.find(quote)?;
                return Some(unescape_xml(&value[..end]));
            }
        }
        search = &search[at + name.len()..];
    }
}

fn split_domains(domains: &str) -> Vec<String> {
    domains
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Every invalidation signal in a text, tag and legacy forms, in order of appearance.
pub fn parse_invalidations(text: &str) -> Vec<Invalidation> {
    let mut found: Vec<(usize, Invalidation)> = Vec::new();
    let mut offset = 0;
    while let Some(start) = text[offset..].find(TAG_OPEN) {
        let begin = offset + start;
        let body_start = begin + TAG_OPEN.len();
        let Some(close) = text[body_start..].find("/>") else {
            break;
        };
        let body = &text[body_start..body_start + close];
        if let (Some(cause), Some(domains)) = (attribute(body, "cause"), attribute(body, "domains"))
        {
            found.push((
                begin,
                Invalidation {
                    cause,
                    domains: split_domains(&domains),
                },
            ));
        }
        offset = body_start + close + 2;
    }
    let mut offset = 0;
    while let Some(start) = text[offset..].find(LEGACY_OPEN) {
        let begin = offset + start;
        let body_start = begin + LEGACY_OPEN.len();
        let Some(close) = text[body_start..].find(']') else {
            break;
        };
        let body = &text[body_start..body_start + close];
        if let Some((domains, cause)) = body.rsplit_once(LEGACY_CAUSE) {
            found.push((
                begin,
                Invalidation {
                    cause: cause.trim().to_owned(),
                    domains: split_domains(domains),
                },
            ));
        }
        offset = body_start + close + 1;
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, inv)| inv).collect()
}

/// True when a content item's text is nothing but invalidation signals (so a host can strip it
/// from the data and show it separately).
pub fn is_invalidation_text(text: &str) -> bool {
    let trimmed = text.trim();
    (trimmed.starts_with(TAG_OPEN) || trimmed.starts_with(LEGACY_OPEN))
        && !parse_invalidations(trimmed).is_empty()
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
