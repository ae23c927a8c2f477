//! `substituteCacheUris` (docs/PROTOCOL.md, *Substitution*), generic over the payload type and the lookup, so the same
//! algorithm runs on JS values in the browser and on plain Rust values in native tests.
//!
//! Rules: a top-level key `X_uri` whose value is a `mcp+cache://` string, or a non-empty array
//! whose every element is one, is resolved into `X` (array order kept) and `X_uri` is removed.
//! When `X` is also present the reference wins and the edit is flagged as a conflict. Other
//! schemes and mixed arrays are left alone. Resolution is all-or-nothing: any miss or stale
//! reference blocks the whole call, counting every failing reference (the envelope lists the
//! first [`crate::core::envelope::MAX_LISTED`]).

use super::envelope::{resolution_envelope, Envelope, ReferenceFailure};
use super::record::LookupOutcome;
use super::uri::has_cache_scheme;

/// Suffix that marks an argument as a reference.
pub const URI_ARG_SUFFIX: &str = "_uri";

/// A top-level argument value, as far as substitution cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue<'a> {
    /// A string.
    Text(&'a str),
    /// An array whose every element is a string (possibly empty).
    TextList(Vec<&'a str>),
    /// Anything else.
    Other,
}

/// One argument to rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The `X_uri` key to remove.
    pub uri_key: String,
    /// The `X` key to set.
    pub target_key: String,
    /// The references, in order.
    pub uris: Vec<String>,
    /// The value was an array (so the result is an array too).
    pub is_list: bool,
    /// `X` was present as well: the reference wins.
    pub conflict: bool,
}

/// What a call's arguments ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The arguments to rewrite, in key order.
    pub references: Vec<Reference>,
}

impl Plan {
    /// Scans top-level arguments. `has_key(k)` tells whether `k` is an own key of the arguments
    /// (for conflict detection).
    pub fn new<'a>(
        args: impl IntoIterator<Item = (&'a str, ArgValue<'a>)>,
        has_key: impl Fn(&str) -> bool,
    ) -> Self {
        let mut references = Vec::new();
        for (key, value) in args {
            let Some(target) = key.strip_suffix(URI_ARG_SUFFIX).filter(|t| !t.is_empty()) else {
                continue;
            };
            let (uris, is_list) = match value {
                ArgValue::Text(s) if has_cache_scheme(s) => (vec![s.to_owned()], false),
                ArgValue::TextList(list)
                    if !list.is_empty() && list.iter().all(|s| has_cache_scheme(s)) =>
                {
                    (list.into_iter().map(str::to_owned).collect(), true)
                }
                _ => continue,
            };
            references.push(Reference {
                uri_key: key.to_owned(),
                target_key: target.to_owned(),
                uris,
                is_list,
                conflict: has_key(target),
            });
        }
        Self { references }
    }

    /// True when nothing needs resolving (the caller returns its args object unchanged).
    pub fn is_empty(&self) -> bool {
        self.references.is_empty()
    }

    /// Every distinct reference, first-seen order: what to read in one transaction.
    pub fn unique_uris(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for uri in self.references.iter().flat_map(|r| &r.uris) {
            if !out.contains(&uri.as_str()) {
                out.push(uri);
            }
        }
        out
    }
}

/// A resolved argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved<P> {
    /// From a single reference.
    One(P),
    /// From an array of references, in order.
    Many(Vec<P>),
}

/// One rewrite: remove `reference.uri_key`, set `reference.target_key` to `value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit<P> {
    /// What was rewritten.
    pub reference: Reference,
    /// The new value.
    pub value: Resolved<P>,
}

/// The outcome of substitution.
#[derive(Debug, Clone, PartialEq)]
pub enum Substitution<P> {
    /// Nothing to resolve: use the arguments as they are (the same object).
    Unchanged,
    /// Apply these rewrites to a copy of the arguments.
    Resolved(Vec<Edit<P>>),
    /// Do not dispatch; show the model this envelope (bounded: see
    /// [`crate::core::envelope::resolution_envelope`]).
    Blocked {
        /// The envelope.
        envelope: Envelope,
        /// The failing references, first-seen order.
        failures: Vec<ReferenceFailure>,
    },
}

/// Looks references up, all at once.
#[allow(async_fn_in_trait)]
pub trait ReferenceLookup<P> {
    /// Why a lookup failed as a whole (storage unavailable, …).
    type Error;
    /// One outcome per reference, in order.
    async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<P>>, Self::Error>;
}

/// Combines a plan with the outcomes of [`Plan::unique_uris`] (same order).
pub fn resolve<P: Clone>(plan: Plan, outcomes: Vec<LookupOutcome<P>>) -> Substitution<P> {
    if plan.is_empty() {
        return Substitution::Unchanged;
    }
    let unique = plan.unique_uris();
    let find = |uri: &str| {
        unique
            .iter()
            .position(|u| *u == uri)
            .and_then(|i| outcomes.get(i))
    };
    let mut failures = Vec::new();
    for uri in &unique {
        match find(uri) {
            Some(LookupOutcome::Hit(_)) => {}
            Some(LookupOutcome::Stale {
                cause,
                source_tool_name,
            }) => failures.push(ReferenceFailure::Stale {
                uri: (*uri).to_owned(),
                cause: cause.clone(),
                source_tool_name: source_tool_name.clone(),
            }),
            Some(LookupOutcome::BadPointer { pointer }) => {
                failures.push(ReferenceFailure::BadPointer {
                    uri: (*uri).to_owned(),
                    pointer: pointer.clone(),
                })
            }
            Some(LookupOutcome::Miss) | None => failures.push(ReferenceFailure::Missing {
                uri: (*uri).to_owned(),
            }),
        }
    }
    if !failures.is_empty() {
        return Substitution::Blocked {
            envelope: resolution_envelope(&failures),
            failures,
        };
    }
    let hit = |uri: &str| match find(uri) {
        Some(LookupOutcome::Hit(p)) => p.clone(),
        _ => unreachable!("every reference was checked to be a hit"),
    };
    let edits = plan
        .references
        .iter()
        .map(|reference| Edit {
            value: if reference.is_list {
                Resolved::Many(reference.uris.iter().map(|u| hit(u)).collect())
            } else {
                Resolved::One(hit(&reference.uris[0]))
            },
            reference: reference.clone(),
        })
        .collect();
    Substitution::Resolved(edits)
}

/// Plans, looks every reference up in one call, and resolves.
pub async fn substitute<P: Clone, L: ReferenceLookup<P>>(
    plan: Plan,
    lookup: &L,
) -> Result<Substitution<P>, L::Error> {
    if plan.is_empty() {
        return Ok(Substitution::Unchanged);
    }
    let outcomes = lookup.lookup_many(&plan.unique_uris()).await?;
    Ok(resolve(plan, outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::HashMap;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Polls a future that is ready at once (our in-memory lookup never waits).
    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("in-memory lookup must not wait"),
        }
    }

    struct MapLookup {
        entries: HashMap<&'static str, LookupOutcome<&'static str>>,
        calls: Cell<usize>,
    }

    impl ReferenceLookup<&'static str> for MapLookup {
        type Error = ();
        async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<&'static str>>, ()> {
            self.calls.set(self.calls.get() + 1);
            Ok(uris
                .iter()
                .map(|u| self.entries.get(u).cloned().unwrap_or(LookupOutcome::Miss))
                .collect())
        }
    }

    const A: &str = "mcp+cache://c/AAAAAAAAAAA";
    const B: &str = "mcp+cache://c/BBBBBBBBBBB";
    const S: &str = "mcp+cache://c/SSSSSSSSSSS";

    fn lookup() -> MapLookup {
        let mut entries = HashMap::new();
        entries.insert(A, LookupOutcome::Hit("rows-a"));
        entries.insert(B, LookupOutcome::Hit("rows-b"));
        entries.insert(
            S,
            LookupOutcome::Stale {
                cause: "billing.refund".into(),
                source_tool_name: "billing.get_invoice".into(),
            },
        );
        MapLookup {
            entries,
            calls: Cell::new(0),
        }
    }

    fn run(args: Vec<(&str, ArgValue)>) -> (Substitution<&'static str>, usize) {
        let keys: Vec<String> = args.iter().map(|(k, _)| k.to_string()).collect();
        let plan = Plan::new(args, |k| keys.iter().any(|x| x == k));
        let l = lookup();
        let out = block_on(substitute(plan, &l)).unwrap();
        (out, l.calls.get())
    }

    #[test]
    fn scalar_hit() {
        let (out, calls) = run(vec![
            ("data_uri", ArgValue::Text(A)),
            ("title", ArgValue::Text("t")),
        ]);
        let Substitution::Resolved(edits) = out else {
            panic!()
        };
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].reference.uri_key, "data_uri");
        assert_eq!(edits[0].reference.target_key, "data");
        assert!(!edits[0].reference.conflict);
        assert_eq!(edits[0].value, Resolved::One("rows-a"));
        assert_eq!(calls, 1);
    }

    #[test]
    fn array_hit_keeps_order() {
        let (out, _) = run(vec![("series_uri", ArgValue::TextList(vec![B, A, B]))]);
        let Substitution::Resolved(edits) = out else {
            panic!()
        };
        assert_eq!(
            edits[0].value,
            Resolved::Many(vec!["rows-b", "rows-a", "rows-b"])
        );
    }

    #[test]
    fn conflict_uri_wins() {
        let (out, _) = run(vec![
            ("data", ArgValue::Other),
            ("data_uri", ArgValue::Text(A)),
        ]);
        let Substitution::Resolved(edits) = out else {
            panic!()
        };
        assert!(edits[0].reference.conflict);
        assert_eq!(edits[0].value, Resolved::One("rows-a"));
    }

    #[test]
    fn untouched_cases() {
        for args in [
            vec![("data_uri", ArgValue::Text("https://example.com/x.json"))],
            vec![("data_uri", ArgValue::TextList(vec![A, "https://x"]))],
            vec![("data_uri", ArgValue::TextList(vec![]))],
            vec![("data_uri", ArgValue::Other)],
            vec![("_uri", ArgValue::Text(A))],
            vec![("data", ArgValue::Text(A))],
            vec![],
        ] {
            let (out, calls) = run(args);
            assert_eq!(out, Substitution::Unchanged);
            assert_eq!(calls, 0);
        }
    }

    #[test]
    fn one_miss_blocks_everything_and_lists_all_misses() {
        let m1 = "mcp+cache://c/MMMMMMMMMMM";
        let m2 = "mcp+cache://c/x";
        let (out, calls) = run(vec![
            ("a_uri", ArgValue::Text(A)),
            ("b_uri", ArgValue::TextList(vec![B, m1])),
            ("c_uri", ArgValue::Text(m2)),
        ]);
        assert_eq!(calls, 1);
        let Substitution::Blocked { envelope, failures } = out else {
            panic!()
        };
        assert_eq!(envelope.missing_uris, [m1, m2]);
        assert_eq!(failures.len(), 2);
        assert_eq!(
            envelope.error,
            "invalid_args: 2 cache URIs could not be resolved"
        );
    }

    #[test]
    fn stale_blocks_with_the_stale_envelope() {
        let (out, _) = run(vec![("data_uri", ArgValue::Text(S))]);
        let Substitution::Blocked { envelope, .. } = out else {
            panic!()
        };
        assert_eq!(envelope.stale_uris, [S]);
        assert!(envelope
            .error
            .contains("is stale (invalidated by billing.refund)"));
    }

    #[test]
    fn sixteen_references_are_looked_up_in_one_call() {
        let many: Vec<&str> = (0..16).map(|i| if i % 2 == 0 { A } else { B }).collect();
        let (out, calls) = run(vec![("data_uri", ArgValue::TextList(many))]);
        assert_eq!(calls, 1);
        let Substitution::Resolved(edits) = out else {
            panic!()
        };
        let Resolved::Many(values) = &edits[0].value else {
            panic!()
        };
        assert_eq!(values.len(), 16);
    }
}
