//! State-Sync policies: first match wins, defaults fill in, eager validation, overlap report.

use super::glob::{match_glob, pattern_covers, validate_pattern, PatternError};

/// The binary Cache-Control vocabulary (no max-age).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheDirective {
    /// Safe to cache forever (reference data).
    Immutable,
    /// Re-fetch before acting on it (volatile data).
    NoStore,
}

impl CacheDirective {
    /// `"immutable"` / `"no-store"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Immutable => "immutable",
            Self::NoStore => "no-store",
        }
    }

    /// Parses the exact directive string.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "immutable" => Some(Self::Immutable),
            "no-store" => Some(Self::NoStore),
            _ => None,
        }
    }
}

/// One policy as configured (strings not yet validated).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SyncPolicy {
    /// Glob over tool names.
    pub match_pattern: String,
    /// `"immutable"` / `"no-store"`, when set.
    pub cache_control: Option<String>,
    /// Glob patterns a successful call invalidates, when set.
    pub invalidates: Option<Vec<String>>,
}

/// What applies to one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPolicy {
    /// The directive (from the matching policy, else the default).
    pub cache_control: Option<CacheDirective>,
    /// Patterns invalidated by a successful call (empty: none).
    pub invalidates: Vec<String>,
}

/// A configuration error. Messages name the policy and contain the stable phrases
/// `must be a non-empty string`, `invalid segment`, `invalid cacheControl`, `must be an array`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError(pub String);

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PolicyError {}

impl PolicyError {
    /// `StateSync policy[i]: 'invalidates' must be an array.`
    pub fn not_an_array(index: usize) -> Self {
        Self(format!(
            "StateSync policy[{index}]: 'invalidates' must be an array."
        ))
    }

    /// `StateSync policy[i]: 'match' must be a non-empty string.`
    pub fn match_not_a_string(index: usize) -> Self {
        Self(format!(
            "StateSync policy[{index}]: 'match' must be a non-empty string."
        ))
    }

    fn pattern(prefix: &str, label: &str, err: PatternError) -> Self {
        match err {
            PatternError::Empty => Self(format!("{prefix}: {label} must be a non-empty string.")),
            PatternError::InvalidSegment { pattern, segment } => Self(format!(
                "{prefix}: {label} pattern \"{pattern}\" has invalid segment \"{segment}\". \
                 Allowed: alphanumeric, \"_\", \"-\", \"*\", \"**\"."
            )),
        }
    }

    fn directive(prefix: &str, value: &str) -> Self {
        Self(format!(
            "{prefix}: invalid cacheControl \"{value}\". Allowed: \"no-store\", \"immutable\"."
        ))
    }
}

/// Validated policies and defaults; resolves tool names (uncached — callers memoize).
#[derive(Debug, Clone)]
pub struct PolicyEngine {
    policies: Vec<(String, Option<CacheDirective>, Vec<String>)>,
    default_cache_control: Option<CacheDirective>,
    separator: String,
}

impl PolicyEngine {
    /// Validates everything up front; the first problem is the error.
    pub fn new(
        policies: &[SyncPolicy],
        default_cache_control: Option<&str>,
        separator: &str,
    ) -> Result<Self, PolicyError> {
        if separator.is_empty() {
            return Err(PolicyError(
                "StateSync separator must be a non-empty string.".to_owned(),
            ));
        }
        let default_cache_control = match default_cache_control {
            None => None,
            Some(v) => Some(
                CacheDirective::parse(v)
                    .ok_or_else(|| PolicyError::directive("StateSync defaults", v))?,
            ),
        };
        let mut validated = Vec::with_capacity(policies.len());
        for (i, policy) in policies.iter().enumerate() {
            let prefix = format!("StateSync policy[{i}]");
            validate_pattern(&policy.match_pattern, separator)
                .map_err(|e| PolicyError::pattern(&prefix, "'match'", e))?;
            let directive = match &policy.cache_control {
                None => None,
                Some(v) => Some(
                    CacheDirective::parse(v).ok_or_else(|| PolicyError::directive(&prefix, v))?,
                ),
            };
            let invalidates = policy.invalidates.clone().unwrap_or_default();
            for pattern in &invalidates {
                validate_pattern(pattern, separator).map_err(|e| {
                    PolicyError::pattern(
                        &prefix,
                        "'invalidates' entries must be non-empty strings. Entry",
                        e,
                    )
                })?;
            }
            validated.push((policy.match_pattern.clone(), directive, invalidates));
        }
        Ok(Self {
            policies: validated,
            default_cache_control,
            separator: separator.to_owned(),
        })
    }

    /// The separator names and patterns split on.
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// First matching policy, with the default directive filling a missing one; unmatched names
    /// get the default directive. `None` when nothing applies.
    pub fn resolve(&self, tool_name: &str) -> Option<ResolvedPolicy> {
        let resolved = match self
            .policies
            .iter()
            .find(|(pattern, _, _)| match_glob(pattern, tool_name, &self.separator))
        {
            Some((_, directive, invalidates)) => ResolvedPolicy {
                cache_control: directive.or(self.default_cache_control),
                invalidates: invalidates.clone(),
            },
            None => ResolvedPolicy {
                cache_control: self.default_cache_control,
                invalidates: Vec::new(),
            },
        };
        (resolved.cache_control.is_some() || !resolved.invalidates.is_empty()).then_some(resolved)
    }
}

/// A later policy that can never fire for any name, because an earlier one matches all of its
/// names first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// Index of the earlier (winning) policy.
    pub earlier: usize,
    /// Index of the later (shadowed) policy.
    pub later: usize,
    /// The earlier policy's pattern.
    pub earlier_match: String,
    /// The later policy's pattern.
    pub later_match: String,
}

/// Every (earlier, later) pair where the earlier pattern covers the later one.
pub fn detect_overlaps(patterns: &[&str], separator: &str) -> Vec<Overlap> {
    let mut out = Vec::new();
    for (later, narrow) in patterns.iter().enumerate() {
        for (earlier, wide) in patterns.iter().enumerate().take(later) {
            if pattern_covers(wide, narrow, separator) {
                out.push(Overlap {
                    earlier,
                    later,
                    earlier_match: (*wide).to_owned(),
                    later_match: (*narrow).to_owned(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(m: &str, cc: Option<&str>, inv: Option<&[&str]>) -> SyncPolicy {
        SyncPolicy {
            match_pattern: m.into(),
            cache_control: cc.map(Into::into),
            invalidates: inv.map(|v| v.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[test]
    fn first_match_fall_through_and_defaults() {
        let engine = PolicyEngine::new(
            &[
                policy("sprints.update", None, Some(&["sprints.*", "tasks.*"])),
                policy("sprints.*", Some("no-store"), None),
                policy("countries.*", Some("immutable"), None),
            ],
            Some("no-store"),
            ".",
        )
        .unwrap();
        let update = engine.resolve("sprints.update").unwrap();
        assert_eq!(
            update.cache_control,
            Some(CacheDirective::NoStore),
            "default fills in"
        );
        assert_eq!(update.invalidates, ["sprints.*", "tasks.*"]);
        assert_eq!(
            engine.resolve("sprints.get").unwrap().invalidates,
            Vec::<String>::new()
        );
        assert_eq!(
            engine.resolve("countries.list").unwrap().cache_control,
            Some(CacheDirective::Immutable)
        );
        // Unmatched → defaults.
        assert_eq!(
            engine.resolve("billing.pay").unwrap().cache_control,
            Some(CacheDirective::NoStore)
        );
        // No defaults, no match → nothing.
        let bare = PolicyEngine::new(&[policy("a", Some("immutable"), None)], None, ".").unwrap();
        assert_eq!(bare.resolve("b"), None);
    }

    #[test]
    fn a_match_only_policy_shadows_a_later_specific_one() {
        let engine = PolicyEngine::new(
            &[
                policy("billing.*", None, None),
                policy("billing.refund", None, Some(&["billing.*"])),
            ],
            None,
            ".",
        )
        .unwrap();
        assert_eq!(engine.resolve("billing.refund"), None);
    }

    #[test]
    fn validation_messages() {
        let err = |p: SyncPolicy| PolicyEngine::new(&[p], None, ".").unwrap_err().to_string();
        assert!(err(policy("", None, None)).contains("must be a non-empty string"));
        assert!(err(policy("a..b", None, None)).contains("invalid segment"));
        assert!(err(policy("a", Some("max-age=5"), None)).contains("invalid cacheControl"));
        assert!(err(policy("a", None, Some(&["x y"]))).contains("invalid segment"));
        assert!(err(policy("a", None, Some(&[""]))).contains("must be a non-empty string"));
        assert!(PolicyError::not_an_array(0)
            .to_string()
            .contains("must be an array"));
        assert!(PolicyEngine::new(&[], Some("forever"), ".")
            .unwrap_err()
            .to_string()
            .contains("invalid cacheControl"));
    }

    #[test]
    fn overlap_counts() {
        assert_eq!(
            detect_overlaps(&["sprints.*", "sprints.update"], ".").len(),
            1
        );
        assert_eq!(
            detect_overlaps(&["**", "billing.*", "billing.pay"], ".").len(),
            3
        );
        assert_eq!(detect_overlaps(&["billing.pay", "billing.*"], ".").len(), 0);
        assert_eq!(detect_overlaps(&["a.*", "*.b"], ".").len(), 0);
    }
}
