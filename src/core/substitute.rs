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
use super::map::Map;
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
        self.distinct().0
    }

    /// [`Self::unique_uris`], and the place in it of each reference of each argument in turn (so
    /// [`resolve`] searches nothing). A sorted [`Map`] finds a reference seen before in
    /// O(log n): a call with thousands of references must not cost a search of all the others
    /// for each one.
    fn distinct(&self) -> (Vec<&str>, Vec<usize>) {
        let mut unique: Vec<&str> = Vec::new();
        let mut places = Vec::new();
        let mut seen: Map<&str, usize> = Map::new();
        for reference in &self.references {
            for uri in &reference.uris {
                let next = unique.len();
                let place = *seen.get_or_insert_with(uri, |_| next);
                if place == next {
                    unique.push(uri);
                }
                places.push(place);
            }
        }
        (unique, places)
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
pub fn resolve<P: Clone>(plan: &Plan, outcomes: Vec<LookupOutcome<P>>) -> Substitution<P> {
    if plan.is_empty() {
        return Substitution::Unchanged;
    }
    let (unique, places) = plan.distinct();
    resolve_distinct(plan, &unique, places, outcomes)
}

/// [`resolve`] once the plan's distinct references are known.
fn resolve_distinct<P: Clone>(
    plan: &Plan,
    unique: &[&str],
    places: Vec<usize>,
    outcomes: Vec<LookupOutcome<P>>,
) -> Substitution<P> {
    let mut failures = Vec::new();
    for (i, uri) in unique.iter().enumerate() {
        match outcomes.get(i) {
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
    // Every reference of every argument in turn: its outcome's payload.
    let mut places = places.into_iter();
    let mut hit = || match places.next().and_then(|i| outcomes.get(i)) {
        Some(LookupOutcome::Hit(p)) => p.clone(),
        _ => unreachable!("every reference was checked to be a hit"),
    };
    let edits = plan
        .references
        .iter()
        .map(|reference| Edit {
            value: if reference.is_list {
                Resolved::Many(reference.uris.iter().map(|_| hit()).collect())
            } else {
                Resolved::One(hit())
            },
            reference: reference.clone(),
        })
        .collect();
    Substitution::Resolved(edits)
}

/// Looks every reference of `plan` up in one call, and resolves.
pub async fn substitute<P: Clone, L: ReferenceLookup<P>>(
    plan: &Plan,
    lookup: &L,
) -> Result<Substitution<P>, L::Error> {
    if plan.is_empty() {
        return Ok(Substitution::Unchanged);
    }
    let (unique, places) = plan.distinct();
    let outcomes = lookup.lookup_many(&unique).await?;
    Ok(resolve_distinct(plan, &unique, places, outcomes))
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
        let out = block_on(substitute(&plan, &l)).unwrap();
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

    /// Thousands of references, repeated within and across arguments: each is read once, in
    /// first-seen order, and every argument gets its own references' payloads in its order.
    #[test]
    fn many_references_each_read_once_and_placed_in_order() {
        let uris: Vec<String> = (0..3000)
            .map(|i| format!("mcp+cache://c/{i:011}"))
            .collect();
        // Backwards, then every third one again: first-seen order is not the sorted one.
        let list: Vec<&str> = uris
            .iter()
            .rev()
            .chain(uris.iter().step_by(3))
            .map(String::as_str)
            .collect();
        let single = uris[1500].as_str();
        let plan = Plan::new(
            [
                ("a_uri", ArgValue::TextList(list.clone())),
                ("b_uri", ArgValue::Text(single)),
            ],
            |_| false,
        );
        let unique = plan.unique_uris();
        assert_eq!(
            unique,
            uris.iter().rev().map(String::as_str).collect::<Vec<_>>()
        );
        // Each reference's payload is its own URI.
        let outcomes = unique.iter().map(|u| LookupOutcome::Hit(*u)).collect();
        let Substitution::Resolved(edits) = resolve(&plan, outcomes) else {
            panic!("every reference is a hit")
        };
        assert_eq!(edits[0].value, Resolved::Many(list));
        assert_eq!(edits[1].value, Resolved::One(single));
        // A missing one among them blocks the call, counted once however often it is repeated.
        let outcomes = unique
            .iter()
            .map(|u| {
                if *u == uris[0] {
                    LookupOutcome::Miss
                } else {
                    LookupOutcome::Hit(*u)
                }
            })
            .collect();
        let Substitution::Blocked { failures, .. } = resolve(&plan, outcomes) else {
            panic!("a miss blocks")
        };
        assert_eq!(
            failures,
            vec![ReferenceFailure::Missing {
                uri: uris[0].clone()
            }]
        );
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
