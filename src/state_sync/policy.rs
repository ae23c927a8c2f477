//! State-Sync policies: first match wins, defaults fill in, eager validation, overlap report.

#[cfg(feature = "server")]
use super::glob::pattern_covers;
use super::glob::{match_glob, validate_pattern, PatternError, MAX_NAME_LEN};
use crate::core::text::{concat, uint};

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
        Self(concat(&[
            &policy_prefix(index),
            ": 'invalidates' must be an array.",
        ]))
    }

    /// `StateSync policy[i]: 'match' must be a non-empty string.`
    pub fn match_not_a_string(index: usize) -> Self {
        Self(concat(&[
            &policy_prefix(index),
            ": 'match' must be a non-empty string.",
        ]))
    }

    fn pattern(prefix: &str, label: &str, err: PatternError) -> Self {
        match err {
            PatternError::Empty => Self(concat(&[
                prefix,
                ": ",
                label,
                " must be a non-empty string.",
            ])),
            PatternError::TooLong => Self(concat(&[
                prefix,
                ": ",
                label,
                " pattern is longer than 1024 characters.",
            ])),
            PatternError::InvalidSegment { pattern, segment } => Self(concat(&[
                prefix,
                ": ",
                label,
                " pattern \"",
                &pattern,
                "\" has invalid segment \"",
                &segment,
                "\". Allowed: alphanumeric, \"_\", \"-\", \"*\", \"**\".",
            ])),
        }
    }

    fn directive(prefix: &str, value: &str) -> Self {
        Self(concat(&[
            prefix,
            ": invalid cacheControl \"",
            value,
            "\". Allowed: \"no-store\", \"immutable\".",
        ]))
    }
}

/// `StateSync policy[<index>]`, the start of every configuration error.
fn policy_prefix(index: usize) -> String {
    concat(&["StateSync policy[", &uint(index as u64), "]"])
}

/// Which rule applies to a tool name: the first matching policy, or the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The policy at this index (the first whose `match` matches).
    Policy(usize),
    /// No policy matches: the defaults apply.
    Defaults,
}

/// Validated policies and defaults; resolves tool names (uncached — callers memoize).
///
/// Every name that one policy matches gets the same [`ResolvedPolicy`], so callers can share
/// one answer per [`Rule`] (see [`PolicyEngine::rule`] and [`PolicyEngine::resolution`]).
#[derive(Debug, Clone)]
pub struct PolicyEngine {
    patterns: Vec<String>,
    /// One answer per policy, then one for the defaults (see [`PolicyEngine::slot`]).
    resolutions: Vec<Option<ResolvedPolicy>>,
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
        let mut patterns = Vec::with_capacity(policies.len());
        let mut resolutions = Vec::with_capacity(policies.len() + 1);
        for (i, policy) in policies.iter().enumerate() {
            let (directive, invalidates) = validate_policy(i, policy, separator)?;
            patterns.push(policy.match_pattern.clone());
            resolutions.push(resolution(directive.or(default_cache_control), invalidates));
        }
        resolutions.push(resolution(default_cache_control, Vec::new()));
        Ok(Self {
            patterns,
            resolutions,
            separator: separator.to_owned(),
        })
    }

    /// How many policies there are.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// True when there are no policies (only defaults).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The first policy whose pattern matches `tool_name`, else the defaults. A name longer
    /// than [`MAX_NAME_LEN`] bytes matches no pattern, so it gets the defaults without being
    /// compared (MCP tool names are far shorter).
    pub fn rule(&self, tool_name: &str) -> Rule {
        if tool_name.len() > MAX_NAME_LEN {
            return Rule::Defaults;
        }
        self.patterns
            .iter()
            .position(|pattern| match_glob(pattern, tool_name, &self.separator))
            .map_or(Rule::Defaults, Rule::Policy)
    }

    /// A dense index for a rule: `0..len()` for the policies, `len()` for the defaults.
    pub fn slot(&self, rule: Rule) -> usize {
        match rule {
            Rule::Policy(i) => i,
            Rule::Defaults => self.patterns.len(),
        }
    }

    /// What a rule applies: its directive (the default filling a missing one) and patterns.
    /// `None` when that is nothing at all.
    pub fn resolution(&self, rule: Rule) -> Option<&ResolvedPolicy> {
        self.resolutions.get(self.slot(rule))?.as_ref()
    }
}

/// Checks one policy: its pattern, directive and invalidated patterns, in that order.
fn validate_policy(
    index: usize,
    policy: &SyncPolicy,
    separator: &str,
) -> Result<(Option<CacheDirective>, Vec<String>), PolicyError> {
    let prefix = policy_prefix(index);
    validate_pattern(&policy.match_pattern, separator)
        .map_err(|e| PolicyError::pattern(&prefix, "'match'", e))?;
    let directive = match &policy.cache_control {
        None => None,
        Some(v) => {
            Some(CacheDirective::parse(v).ok_or_else(|| PolicyError::directive(&prefix, v))?)
        }
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
    Ok((directive, invalidates))
}

fn resolution(
    cache_control: Option<CacheDirective>,
    invalidates: Vec<String>,
) -> Option<ResolvedPolicy> {
    (cache_control.is_some() || !invalidates.is_empty()).then_some(ResolvedPolicy {
        cache_control,
        invalidates,
    })
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

impl Overlap {
    /// MCP Fusion's warning, word for word: `policy[0] (match: "sprints.*") shadows policy[1]
    /// (match: "sprints.update"). The later policy will never match because first-match-wins
    /// applies.`
    pub fn message(&self) -> String {
        concat(&[
            "policy[",
            &uint(self.earlier as u64),
            "] (match: \"",
            &self.earlier_match,
            "\") shadows policy[",
            &uint(self.later as u64),
            "] (match: \"",
            &self.later_match,
            "\"). The later policy will never match because first-match-wins applies.",
        ])
    }
}

/// Every (earlier, later) pair where the earlier pattern covers the later one
/// ([`pattern_covers`]: exact, a `**` of the later one included). Only with the `server`
/// feature, as `pattern_covers`.
#[cfg(feature = "server")]
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

    /// What applies to a tool name (the rule's resolution, cloned).
    fn resolve(engine: &PolicyEngine, name: &str) -> Option<ResolvedPolicy> {
        engine.resolution(engine.rule(name)).cloned()
    }

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
        let update = resolve(&engine, "sprints.update").unwrap();
        assert_eq!(
            update.cache_control,
            Some(CacheDirective::NoStore),
            "default fills in"
        );
        assert_eq!(update.invalidates, ["sprints.*", "tasks.*"]);
        assert_eq!(
            resolve(&engine, "sprints.get").unwrap().invalidates,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&engine, "countries.list").unwrap().cache_control,
            Some(CacheDirective::Immutable)
        );
        // Unmatched → defaults.
        assert_eq!(
            resolve(&engine, "billing.pay").unwrap().cache_control,
            Some(CacheDirective::NoStore)
        );
        // No defaults, no match → nothing.
        let bare = PolicyEngine::new(&[policy("a", Some("immutable"), None)], None, ".").unwrap();
        assert_eq!(resolve(&bare, "b"), None);
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
        assert_eq!(resolve(&engine, "billing.refund"), None);
    }

    #[test]
    fn validation_messages() {
        let err = |p: SyncPolicy| PolicyEngine::new(&[p], None, ".").unwrap_err().to_string();
        assert!(err(policy("", None, None)).contains("must be a non-empty string"));
        assert!(err(policy("a..b", None, None)).contains("invalid segment"));
        assert!(err(policy("a", Some("max-age=5"), None)).contains("invalid cacheControl"));
        assert!(err(policy("a", None, Some(&["x y"]))).contains("invalid segment"));
        assert!(err(policy("a", None, Some(&[""]))).contains("must be a non-empty string"));
        assert!(err(policy(&"a".repeat(1025), None, None)).contains("longer than 1024"));
        assert!(PolicyError::not_an_array(0)
            .to_string()
            .contains("must be an array"));
        assert!(PolicyEngine::new(&[], Some("forever"), ".")
            .unwrap_err()
            .to_string()
            .contains("invalid cacheControl"));
    }

    #[test]
    fn one_resolution_per_rule() {
        let engine = PolicyEngine::new(
            &[
                policy("a.*", None, Some(&["b.*"])),
                policy("c.*", None, None),
            ],
            Some("immutable"),
            ".",
        )
        .unwrap();
        assert_eq!(engine.rule("a.x"), Rule::Policy(0));
        assert_eq!(engine.rule("a.y"), Rule::Policy(0));
        assert_eq!(engine.rule("c.x"), Rule::Policy(1));
        assert_eq!(engine.rule("z"), Rule::Defaults);
        assert_eq!(engine.slot(Rule::Defaults), 2);
        let defaults = engine.resolution(Rule::Defaults).unwrap();
        assert_eq!(defaults.cache_control, Some(CacheDirective::Immutable));
        assert!(defaults.invalidates.is_empty());
        // A long name is never compared: the defaults apply.
        let long = format!("a.{}", "x".repeat(super::super::glob::MAX_NAME_LEN));
        assert_eq!(engine.rule(&long), Rule::Defaults);
        assert_eq!(resolve(&engine, &long), resolve(&engine, "z"));
        let bare = PolicyEngine::new(&[policy("a", None, None)], None, ".").unwrap();
        assert_eq!(bare.resolution(Rule::Policy(0)), None);
        assert_eq!(bare.resolution(Rule::Defaults), None);
        assert_eq!(bare.len(), 1);
        assert!(!bare.is_empty());
    }

    #[test]
    #[cfg(feature = "server")]
    fn overlap_message_is_mcp_fusions() {
        let overlaps = detect_overlaps(&["sprints.*", "sprints.update"], ".");
        assert_eq!(
            overlaps[0].message(),
            "policy[0] (match: \"sprints.*\") shadows policy[1] (match: \"sprints.update\"). \
             The later policy will never match because first-match-wins applies."
        );
    }

    #[test]
    #[cfg(feature = "server")]
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
