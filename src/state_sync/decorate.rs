//! The server-side strings of MCP Fusion's State Sync, byte-compatible: the
//! `[Cache-Control: …]` description tag and the `<cache_invalidation … />` content item.

use super::policy::CacheDirective;
use crate::core::text;
use crate::core::text::{concat, join};

/// `[Cache-Control: immutable]` / `[Cache-Control: no-store]`.
pub fn cache_control_tag(directive: CacheDirective) -> String {
    concat(&["[Cache-Control: ", directive.as_str(), "]"])
}

/// Finds a trailing tag like `\s*\[Cache-Control:\s*\w[^\[\]]*\]$` (MCP Fusion's pattern, with
/// `[` also excluded inside so that replacing stays idempotent); returns (start of the leading
/// whitespace, the directive text).
fn trailing_tag(description: &str) -> Option<(usize, &str)> {
    let body = description.strip_suffix("]")?;
    let open = body.bytes().rposition(|b| b == b'[')?; // `[` is ASCII: a char boundary
    let inner = body[open + 1..].strip_prefix("Cache-Control:")?;
    let value = inner.trim_start();
    let first = value.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_') || text::find(value, "]").is_some() {
        return None;
    }
    let start = description[..open].trim_end().len();
    Some((start, value))
}

/// Appends the tag after one space, replacing an existing trailing tag; the tag alone for an
/// empty description. Idempotent.
pub fn decorate_description(description: &str, directive: CacheDirective) -> String {
    let base = match trailing_tag(description) {
        Some((start, _)) => &description[..start],
        None => description.trim_end(),
    };
    let tag = cache_control_tag(directive);
    if base.is_empty() {
        tag
    } else {
        concat(&[base, " ", &tag])
    }
}

/// The directive of a trailing `[Cache-Control: …]` tag, if it is one we know.
pub fn parse_cache_control(description: &str) -> Option<CacheDirective> {
    trailing_tag(description).and_then(|(_, value)| CacheDirective::parse(value.trim_end()))
}

/// Escapes `& < > " '` as XML entities.
pub fn escape_xml_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `<cache_invalidation cause="<tool>" domains="<p1>, <p2>" />`, attributes escaped.
pub fn invalidation_tag(cause: &str, patterns: &[String]) -> String {
    concat(&[
        "<cache_invalidation cause=\"",
        &escape_xml_attr(cause),
        "\" domains=\"",
        &escape_xml_attr(&join(patterns, ", ")),
        "\" />",
    ])
}

/// The prefix `StateSync` puts before each pattern of its stale notifications unless told
/// otherwise; hosts accept it and the other spellings in
/// [`STALE_URI_PREFIXES`](super::invalidation::STALE_URI_PREFIXES).
pub const DEFAULT_STALE_URI_PREFIX: &str = "mcpfusion://stale/";

/// The resource URI of a stale-pattern notification: `prefix` followed by the pattern, e.g.
/// `mcpfusion://stale/billing.*`.
pub fn stale_notification_uri(prefix: &str, pattern: &str) -> String {
    let mut uri = String::with_capacity(prefix.len() + pattern.len());
    uri.push_str(prefix);
    uri.push_str(pattern);
    uri
}

/// The method of stale-pattern notifications.
pub const RESOURCE_UPDATED_METHOD: &str = "notifications/resources/updated";

#[cfg(test)]
mod tests {
    use super::*;
    use CacheDirective::*;

    #[test]
    fn description_tags_byte_for_byte() {
        assert_eq!(
            decorate_description("Get sprint details.", NoStore),
            "Get sprint details. [Cache-Control: no-store]"
        );
        assert_eq!(
            decorate_description("List countries. [Cache-Control: immutable]", NoStore),
            "List countries. [Cache-Control: no-store]"
        );
        assert_eq!(
            decorate_description("List countries.  [Cache-Control: max-age=5]", Immutable),
            "List countries. [Cache-Control: immutable]"
        );
        assert_eq!(
            decorate_description("", Immutable),
            "[Cache-Control: immutable]"
        );
        let once = decorate_description("X", Immutable);
        assert_eq!(decorate_description(&once, Immutable), once);
        assert_eq!(
            decorate_description("[Cache-Control: no-store]", Immutable),
            "[Cache-Control: immutable]"
        );
        // Not a trailing tag: left alone.
        assert_eq!(
            decorate_description("See [Cache-Control: no-store] docs", Immutable),
            "See [Cache-Control: no-store] docs [Cache-Control: immutable]"
        );
    }

    #[test]
    fn parse_directives() {
        assert_eq!(
            parse_cache_control("Get. [Cache-Control: no-store]"),
            Some(NoStore)
        );
        assert_eq!(
            parse_cache_control("[Cache-Control:immutable]"),
            Some(Immutable)
        );
        assert_eq!(parse_cache_control("Get. [Cache-Control: max-age=5]"), None);
        assert_eq!(parse_cache_control("Get."), None);
        assert_eq!(parse_cache_control(""), None);
        assert_eq!(
            parse_cache_control("[Cache-Control: no-store] trailing"),
            None
        );
    }

    #[test]
    fn invalidation_tag_bytes() {
        assert_eq!(
            invalidation_tag("tasks.update", &["tasks.*".into(), "sprints.*".into()]),
            r#"<cache_invalidation cause="tasks.update" domains="tasks.*, sprints.*" />"#
        );
        assert_eq!(
            invalidation_tag("tool<\"evil\">", &["a".into()]),
            r#"<cache_invalidation cause="tool&lt;&quot;evil&quot;&gt;" domains="a" />"#
        );
        assert_eq!(escape_xml_attr("a&b'c"), "a&amp;b&apos;c");
        assert_eq!(
            stale_notification_uri(DEFAULT_STALE_URI_PREFIX, "billing.*"),
            "mcpfusion://stale/billing.*"
        );
        assert_eq!(
            stale_notification_uri("vurb://stale/", "billing.*"),
            "vurb://stale/billing.*"
        );
    }
}
