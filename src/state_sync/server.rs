//! What an MCP server's `StateSync` does, minus the JS values: which rule a tool name gets
//! (remembered for the names seen last), how a tool's description is decorated, and what
//! `decorateResult` adds to a successful result and announces.
//!
//! A decorated result is a copy of the original with every own property kept but `content`,
//! which becomes `[{ type: "text", text: <the invalidation tag> }, ...the original content]`
//! (the original items only when `content` was an array). Then `onInvalidation` hears
//! `{ causedBy, patterns, timestamp }` and the notification sink gets one
//! `notifications/resources/updated` per pattern, whose `params.uri` is the stale URI.

use crate::core::map::Map;
use std::cell::RefCell;

use super::decorate::{invalidation_tag, stale_notification_uri};
use super::policy::{CacheDirective, PolicyEngine, Rule};

/// Resolutions remembered per [`StateSync`] before the memo is reset.
const MEMO_LIMIT: usize = 512;

/// Longest `staleUriPrefix`, in UTF-16 units.
pub const MAX_STALE_PREFIX_LEN: usize = 256;

/// The error for a `staleUriPrefix` that [`valid_stale_prefix`] refuses (or that is not a
/// string, or is longer than [`MAX_STALE_PREFIX_LEN`]).
pub const STALE_PREFIX_MESSAGE: &str =
    "staleUriPrefix must be a string ending with \"stale/\" (e.g. \"mcpfusion://stale/\", \"vurb://stale/\")";

/// A usable `staleUriPrefix`: it ends with `stale/` (and so is not empty).
pub fn valid_stale_prefix(prefix: &str) -> bool {
    prefix.ends_with("stale/")
}

/// The `type` of the content block a decorated result starts with.
pub const INVALIDATION_BLOCK_TYPE: &str = "text";

/// What `decorateResult` adds to a successful result of a tool whose rule invalidates patterns.
#[derive(Debug, PartialEq)]
pub struct ResultInvalidation<'a> {
    /// The text of the block put first in `content`: `<cache_invalidation cause=… domains=… />`.
    pub tag: String,
    /// The invalidated patterns, in policy order (`onInvalidation`'s `patterns`).
    pub patterns: &'a [String],
    /// The prefix of the stale notifications' URIs.
    stale_uri_prefix: &'a str,
}

impl ResultInvalidation<'_> {
    /// The `params.uri` of each stale notification, in order: the prefix followed by each
    /// pattern.
    pub fn stale_uris(&self) -> impl Iterator<Item = String> + '_ {
        self.patterns
            .iter()
            .map(|p| stale_notification_uri(self.stale_uri_prefix, p))
    }
}

/// A server's State-Sync policies with the prefix of its stale notifications.
pub struct StateSync {
    engine: PolicyEngine,
    stale_uri_prefix: String,
    /// Tool name → rule, for the names seen last (bounded by [`MEMO_LIMIT`]).
    memo: RefCell<Map<String, Rule>>,
}

impl StateSync {
    /// The policies of `engine`; stale notifications name `stale_uri_prefix` + pattern.
    #[inline]
    pub fn new(engine: PolicyEngine, stale_uri_prefix: String) -> StateSync {
        StateSync {
            engine,
            stale_uri_prefix,
            memo: RefCell::default(),
        }
    }

    /// The policies.
    pub fn engine(&self) -> &PolicyEngine {
        &self.engine
    }

    /// The rule for a tool name; `None` (a name that cannot be matched: too long, or with a
    /// lone surrogate) gets the defaults.
    pub fn rule(&self, name: Option<&str>) -> Rule {
        let Some(name) = name else {
            return Rule::Defaults;
        };
        // Looked up and stored by the same key type: one comparison routine in the `.wasm`.
        let name = name.to_owned();
        if let Some(&rule) = self.memo.borrow().get(&name) {
            return rule;
        }
        let rule = self.engine.rule(&name);
        let mut memo = self.memo.borrow_mut();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(name, rule);
        rule
    }

    /// The directive a tool's description gets (see
    /// [`decorate_description`](super::decorate::decorate_description)), or `None` when
    /// the tool stays as it is.
    #[inline]
    pub fn directive(&self, name: Option<&str>) -> Option<CacheDirective> {
        self.engine.resolution(self.rule(name))?.cache_control
    }

    /// What a result of tool `name` gains, or `None` when it is returned as it is: an error
    /// result (`isError: true`), a name that cannot be matched, or a rule that invalidates
    /// nothing.
    #[inline]
    pub fn result_invalidation<'a>(
        &'a self,
        name: Option<&str>,
        is_error: bool,
    ) -> Option<ResultInvalidation<'a>> {
        let cause = name.filter(|_| !is_error)?;
        let patterns = &self.engine.resolution(self.rule(Some(cause)))?.invalidates;
        if patterns.is_empty() {
            return None;
        }
        Some(ResultInvalidation {
            tag: invalidation_tag(cause, patterns),
            patterns,
            stale_uri_prefix: &self.stale_uri_prefix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_sync::decorate::DEFAULT_STALE_URI_PREFIX;
    use crate::state_sync::policy::SyncPolicy;

    fn policy(pattern: &str, cache_control: Option<&str>, invalidates: &[&str]) -> SyncPolicy {
        SyncPolicy {
            match_pattern: pattern.into(),
            cache_control: cache_control.map(Into::into),
            invalidates: (!invalidates.is_empty())
                .then(|| invalidates.iter().map(|p| (*p).to_owned()).collect()),
        }
    }

    fn sync(prefix: &str) -> StateSync {
        let policies = [
            policy("tasks.update", None, &["tasks.*", "sprints.*"]),
            policy("tasks.*", Some("no-store"), &[]),
            policy("countries.list", Some("immutable"), &[]),
        ];
        let engine = PolicyEngine::new(&policies, None, ".").expect("valid policies");
        StateSync::new(engine, prefix.into())
    }

    #[test]
    fn a_successful_call_is_tagged_and_announced() {
        let sync = sync("vurb://stale/");
        let got = sync
            .result_invalidation(Some("tasks.update"), false)
            .expect("tasks.update invalidates");
        assert_eq!(
            got.tag,
            r#"<cache_invalidation cause="tasks.update" domains="tasks.*, sprints.*" />"#
        );
        assert_eq!(got.patterns, ["tasks.*", "sprints.*"]);
        assert_eq!(
            got.stale_uris().collect::<Vec<_>>(),
            ["vurb://stale/tasks.*", "vurb://stale/sprints.*"]
        );
        let default = self::sync(DEFAULT_STALE_URI_PREFIX);
        let got = default.result_invalidation(Some("tasks.update"), false);
        assert_eq!(
            got.map(|g| g.stale_uris().collect::<Vec<_>>()),
            Some(vec![
                "mcpfusion://stale/tasks.*".to_owned(),
                "mcpfusion://stale/sprints.*".to_owned()
            ])
        );
    }

    #[test]
    fn results_that_announce_nothing_stay_as_they_are() {
        let sync = sync(DEFAULT_STALE_URI_PREFIX);
        // An error result, an unmatchable name, a rule without invalidations, no rule at all.
        assert_eq!(sync.result_invalidation(Some("tasks.update"), true), None);
        assert_eq!(sync.result_invalidation(None, false), None);
        assert_eq!(sync.result_invalidation(Some("tasks.get"), false), None);
        assert_eq!(sync.result_invalidation(Some("weather.now"), false), None);
    }

    #[test]
    fn directives_follow_the_first_matching_policy() {
        let sync = sync(DEFAULT_STALE_URI_PREFIX);
        assert_eq!(
            sync.directive(Some("tasks.get")),
            Some(CacheDirective::NoStore)
        );
        assert_eq!(
            sync.directive(Some("countries.list")),
            Some(CacheDirective::Immutable)
        );
        // `tasks.update` matches the first policy, which has no directive.
        assert_eq!(sync.directive(Some("tasks.update")), None);
        assert_eq!(sync.directive(Some("weather.now")), None);
        assert_eq!(sync.directive(None), None);
    }

    #[test]
    fn the_memo_never_changes_an_answer() {
        let sync = sync(DEFAULT_STALE_URI_PREFIX);
        assert_eq!(sync.rule(None), Rule::Defaults);
        // More names than the memo holds, twice over: every answer is the engine's.
        for round in 0..2 {
            for i in 0..(MEMO_LIMIT * 2) {
                let name =
                    crate::core::text::concat(&["tasks.", &crate::core::text::uint(i as u64)]);
                assert_eq!(sync.rule(Some(&name)), Rule::Policy(1), "round {round}");
            }
            assert_eq!(sync.rule(Some("tasks.update")), Rule::Policy(0));
            assert_eq!(sync.rule(Some("countries.list")), Rule::Policy(2));
            assert_eq!(sync.rule(Some("weather.now")), Rule::Defaults);
        }
        assert!(sync.memo.borrow().len() <= MEMO_LIMIT);
    }

    #[test]
    fn stale_prefixes_must_end_with_stale() {
        for good in [
            "mcpfusion://stale/",
            "fusion://stale/",
            "vurb://stale/",
            "stale/",
        ] {
            assert!(valid_stale_prefix(good), "{good}");
        }
        for bad in ["", "vurb://stale", "vurb://stale/x", "vurb://"] {
            assert!(!valid_stale_prefix(bad), "{bad}");
        }
    }
}
