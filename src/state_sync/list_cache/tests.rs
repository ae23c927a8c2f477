//! The list cache's rules: keys, scopes, freshness, notifications.

use super::*;

const TOOLS: &str = "tools/list";

fn first() -> ListParams {
    ListParams::first_page()
}

/// A `tools/list` result to store.
fn entry<'a, R>(
    params: &'a ListParams,
    result: R,
    ttl_ms: f64,
    scope: ListScope,
    auth_context: Option<&'a str>,
) -> ListEntry<'a, R> {
    ListEntry {
        method: TOOLS,
        params,
        auth_context,
        result,
        ttl_ms: Some(ttl_ms),
        scope,
    }
}

fn at_cursor(cursor: &str) -> ListParams {
    ListParams {
        cursor: Some(cursor.into()),
        uri: None,
    }
}

fn for_uri(uri: &str) -> ListParams {
    ListParams {
        cursor: None,
        uri: Some(uri.into()),
    }
}

fn public(cache: &mut ListCache<&'static str>, now: f64, ttl: Option<f64>, value: &'static str) {
    cache.put(
        now,
        ListEntry {
            method: TOOLS,
            params: &first(),
            auth_context: None,
            result: value,
            ttl_ms: ttl,
            scope: ListScope::Public,
        },
    );
}

fn get(
    cache: &ListCache<&'static str>,
    now: f64,
    auth: Option<&str>,
    allow_stale: bool,
) -> Option<ListHit<&'static str>> {
    cache.get(now, TOOLS, &first(), auth, allow_stale)
}

#[test]
fn meta_always_carries_ttl_and_clamps() {
    assert_eq!(
        list_cache_meta(0.0, None),
        ListCacheMeta {
            ttl_ms: 0.0,
            scope: ListScope::Private
        }
    );
    assert_eq!(
        list_cache_meta(60_000.0, Some(ListScope::Public)),
        ListCacheMeta {
            ttl_ms: 60_000.0,
            scope: ListScope::Public
        }
    );
    assert_eq!(list_cache_meta(-5.0, None).ttl_ms, 0.0);
    assert_eq!(list_cache_meta(f64::NAN, None).ttl_ms, 0.0);
    assert_eq!(list_cache_meta(f64::INFINITY, None).ttl_ms, 0.0);
    assert_eq!(list_cache_meta(f64::NEG_INFINITY, None).ttl_ms, 0.0);
    assert_eq!(list_cache_meta(1500.9, None).ttl_ms, 1500.0);
    assert_eq!(
        list_cache_meta(1.0, Some(ListScope::Private)).scope,
        ListScope::Private
    );
}

#[test]
fn scope_wire_values() {
    assert_eq!(ListScope::Public.as_str(), "public");
    assert_eq!(ListScope::Private.as_str(), "private");
    assert_eq!(ListScope::from_wire("public"), Some(ListScope::Public));
    assert_eq!(ListScope::from_wire("private"), Some(ListScope::Private));
    assert_eq!(ListScope::from_wire("Public"), None);
    assert_eq!(ListScope::from_wire(""), None);
}

#[test]
fn fresh_until_boundary_exclusive() {
    let mut cache = ListCache::new();
    public(&mut cache, 1000.0, Some(500.0), "v");
    let hit = get(&cache, 1000.0, None, false).unwrap();
    assert_eq!(
        hit,
        ListHit {
            result: "v",
            stale: false,
            age_ms: 0.0
        }
    );
    let hit = get(&cache, 1499.0, None, false).unwrap();
    assert!(!hit.stale);
    assert_eq!(hit.age_ms, 499.0);
    // now == received + ttl is no longer fresh.
    assert_eq!(get(&cache, 1500.0, None, false), None);
    assert_eq!(get(&cache, 9999.0, None, false), None);
}

#[test]
fn zero_ttl_is_never_fresh() {
    let mut cache = ListCache::new();
    public(&mut cache, 1000.0, Some(0.0), "v");
    assert_eq!(cache.len(), 1);
    assert_eq!(get(&cache, 1000.0, None, false), None);
    let hit = get(&cache, 1000.0, None, true).unwrap();
    assert!(hit.stale);
    assert_eq!(hit.result, "v");
}

#[test]
fn missing_ttl_means_zero() {
    let mut cache = ListCache::new();
    public(&mut cache, 1000.0, None, "v");
    assert_eq!(get(&cache, 1000.0, None, false), None);
    assert!(get(&cache, 1000.0, None, true).unwrap().stale);
}

#[test]
fn negative_and_non_finite_ttl_mean_zero() {
    for ttl in [-1.0, -1e12, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut cache = ListCache::new();
        public(&mut cache, 1000.0, Some(ttl), "v");
        assert_eq!(get(&cache, 1000.0, None, false), None, "ttl {ttl}");
        assert_eq!(get(&cache, 0.0, None, false), None, "ttl {ttl}");
        assert!(get(&cache, 1000.0, None, true).unwrap().stale, "ttl {ttl}");
    }
}

#[test]
fn stale_served_only_when_allowed() {
    let mut cache = ListCache::new();
    public(&mut cache, 1000.0, Some(100.0), "v");
    assert_eq!(get(&cache, 1200.0, None, false), None);
    assert_eq!(
        get(&cache, 1200.0, None, true),
        Some(ListHit {
            result: "v",
            stale: true,
            age_ms: 200.0
        })
    );
    // A fresh entry is not flagged stale even when stale is allowed.
    assert!(!get(&cache, 1050.0, None, true).unwrap().stale);
    // Nothing cached: nothing returned, stale or not.
    assert_eq!(
        cache.get(1200.0, "prompts/list", &first(), None, true),
        None
    );
}

#[test]
fn age_never_negative() {
    let mut cache = ListCache::new();
    public(&mut cache, 1000.0, Some(100.0), "v");
    let hit = get(&cache, 900.0, None, false).unwrap();
    assert_eq!(hit.age_ms, 0.0);
}

#[test]
fn private_never_crosses_auth_contexts() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(
        0.0,
        entry(&p, "alice", 1e6, ListScope::Private, Some("alice")),
    );
    assert_eq!(
        get(&cache, 1.0, Some("alice"), false).unwrap().result,
        "alice"
    );
    assert_eq!(get(&cache, 1.0, Some("bob"), false), None);
    assert_eq!(get(&cache, 1.0, None, false), None);
    // Not even stale.
    assert_eq!(get(&cache, 1.0, Some("bob"), true), None);
    assert_eq!(get(&cache, 1.0, None, true), None);
    assert_eq!(get(&cache, 1.0, Some(""), true), None);
}

#[test]
fn private_without_auth_context_is_its_own_context() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(0.0, entry(&p, "anon", 1e6, ListScope::Private, None));
    assert_eq!(get(&cache, 1.0, None, false).unwrap().result, "anon");
    assert_eq!(get(&cache, 1.0, Some("alice"), true), None);
    assert_eq!(get(&cache, 1.0, Some(""), true), None);
}

#[test]
fn private_contexts_are_stored_separately() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(0.0, entry(&p, "a", 1e6, ListScope::Private, Some("alice")));
    cache.put(0.0, entry(&p, "b", 1e6, ListScope::Private, Some("bob")));
    assert_eq!(cache.len(), 2);
    assert_eq!(get(&cache, 1.0, Some("alice"), false).unwrap().result, "a");
    assert_eq!(get(&cache, 1.0, Some("bob"), false).unwrap().result, "b");
}

#[test]
fn public_is_shared_across_contexts() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(0.0, entry(&p, "pub", 1e6, ListScope::Public, Some("alice")));
    assert_eq!(cache.len(), 1);
    for auth in [Some("alice"), Some("bob"), None] {
        assert_eq!(get(&cache, 1.0, auth, false).unwrap().result, "pub");
    }
    // Another context's public answer replaces the shared entry.
    cache.put(2.0, entry(&p, "pub2", 1e6, ListScope::Public, Some("bob")));
    assert_eq!(cache.len(), 1);
    assert_eq!(
        get(&cache, 3.0, Some("alice"), false).unwrap().result,
        "pub2"
    );
}

#[test]
fn private_takes_precedence_over_public() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(0.0, entry(&p, "pub", 1e6, ListScope::Public, None));
    cache.put(
        0.0,
        entry(&p, "mine", 1e6, ListScope::Private, Some("alice")),
    );
    assert_eq!(
        get(&cache, 1.0, Some("alice"), false).unwrap().result,
        "mine"
    );
    assert_eq!(get(&cache, 1.0, Some("bob"), false).unwrap().result, "pub");
    assert_eq!(get(&cache, 1.0, None, false).unwrap().result, "pub");
    // Stale fallback also prefers the private entry.
    assert_eq!(
        get(&cache, 2e6, Some("alice"), true).unwrap().result,
        "mine"
    );
}

#[test]
fn fresh_public_beats_stale_private() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(
        0.0,
        entry(&p, "mine", 10.0, ListScope::Private, Some("alice")),
    );
    cache.put(0.0, entry(&p, "pub", 1e6, ListScope::Public, Some("bob")));
    let hit = get(&cache, 50.0, Some("alice"), true).unwrap();
    assert_eq!((hit.result, hit.stale), ("pub", false));
}

#[test]
fn newer_public_answer_replaces_callers_private_entry() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(
        0.0,
        entry(&p, "old", 1e6, ListScope::Private, Some("alice")),
    );
    cache.put(5.0, entry(&p, "new", 1e6, ListScope::Public, Some("alice")));
    assert_eq!(cache.len(), 1);
    assert_eq!(
        get(&cache, 6.0, Some("alice"), false).unwrap().result,
        "new"
    );
}

#[test]
fn newer_private_answer_supersedes_the_public_entry_for_its_context() {
    let mut cache = ListCache::new();
    let p = first();
    cache.put(
        0.0,
        entry(&p, "old", 60_000.0, ListScope::Public, Some("alice")),
    );
    cache.put(
        10.0,
        entry(&p, "new", 5_000.0, ListScope::Private, Some("alice")),
    );
    assert_eq!(
        get(&cache, 11.0, Some("alice"), false).unwrap().result,
        "new"
    );
    // The newer answer expired: the older public one is not served instead, fresh or stale.
    assert_eq!(get(&cache, 6_000.0, Some("alice"), false), None);
    let hit = get(&cache, 6_000.0, Some("alice"), true).unwrap();
    assert_eq!((hit.result, hit.stale), ("new", true));
    // Other contexts still get the public entry.
    assert_eq!(
        get(&cache, 6_000.0, Some("bob"), false).unwrap().result,
        "old"
    );
    // "Do not reuse" (ttl 0) is not answered by the older public entry either.
    cache.put(
        6_001.0,
        entry(&p, "zero", 0.0, ListScope::Private, Some("alice")),
    );
    assert_eq!(get(&cache, 6_001.0, Some("alice"), false), None);
    // Same millisecond: the order of the puts decides.
    let mut cache = ListCache::new();
    cache.put(0.0, entry(&p, "pub", 1e6, ListScope::Public, Some("bob")));
    cache.put(
        0.0,
        entry(&p, "mine", 0.0, ListScope::Private, Some("alice")),
    );
    assert_eq!(get(&cache, 0.0, Some("alice"), false), None);
    assert_eq!(get(&cache, 0.0, Some("bob"), false).unwrap().result, "pub");
}

#[test]
fn pages_are_cached_independently() {
    let mut cache = ListCache::new();
    let p1 = first();
    let p2 = at_cursor("c2");
    let p3 = at_cursor("c3");
    cache.put(0.0, entry(&p1, "page1", 100.0, ListScope::Public, None));
    cache.put(0.0, entry(&p2, "page2", 1000.0, ListScope::Public, None));
    assert_eq!(cache.len(), 2);
    assert_eq!(
        cache.get(50.0, TOOLS, &p1, None, false).unwrap().result,
        "page1"
    );
    assert_eq!(
        cache.get(50.0, TOOLS, &p2, None, false).unwrap().result,
        "page2"
    );
    assert_eq!(cache.get(50.0, TOOLS, &p3, None, true), None);
    // Page 1 expires on its own TTL; page 2 is still fresh.
    assert_eq!(cache.get(500.0, TOOLS, &p1, None, false), None);
    assert_eq!(
        cache.get(500.0, TOOLS, &p2, None, false).unwrap().result,
        "page2"
    );
    // Method is part of the key too.
    assert_eq!(cache.get(50.0, "prompts/list", &p1, None, true), None);
}

#[test]
fn uri_is_part_of_the_key() {
    let mut cache = ListCache::new();
    let a = for_uri("file:///a");
    let b = for_uri("file:///b");
    cache.put(
        0.0,
        ListEntry {
            method: "resources/read",
            params: &a,
            auth_context: None,
            result: "A",
            ttl_ms: Some(100.0),
            scope: ListScope::Public,
        },
    );
    assert_eq!(
        cache
            .get(1.0, "resources/read", &a, None, false)
            .unwrap()
            .result,
        "A"
    );
    assert_eq!(cache.get(1.0, "resources/read", &b, None, true), None);
    assert_eq!(cache.get(1.0, "resources/read", &first(), None, true), None);
}

#[test]
fn params_are_keyed_exactly() {
    let mut cache = ListCache::new();
    let requests = [
        first(),
        at_cursor(""),
        at_cursor("2"),
        for_uri("2"),
        for_uri("file:///tmp/public"),
        for_uri("file:///tmp/public/"),
        ListParams {
            cursor: Some("2".to_owned()),
            uri: Some("2".to_owned()),
        },
    ];
    for (i, p) in requests.iter().enumerate() {
        cache.put(0.0, entry(p, i, 1e6, ListScope::Public, None));
    }
    assert_eq!(cache.len(), requests.len());
    for (i, p) in requests.iter().enumerate() {
        assert_eq!(cache.get(1.0, TOOLS, p, None, false).unwrap().result, i);
    }
}

#[test]
fn invalid_cursor_drops_every_page_of_the_list() {
    let mut cache = ListCache::new();
    for cursor in [None, Some("c2"), Some("c3")] {
        let p = ListParams {
            cursor: cursor.map(str::to_owned),
            uri: None,
        };
        cache.put(0.0, entry(&p, "t", 1e6, ListScope::Public, None));
        cache.put(0.0, entry(&p, "t", 1e6, ListScope::Private, Some("alice")));
        cache.put(0.0, entry(&p, "t", 1e6, ListScope::Private, None));
    }
    cache.put(
        0.0,
        ListEntry {
            method: "prompts/list",
            params: &first(),
            auth_context: None,
            result: "p",
            ttl_ms: Some(1e6),
            scope: ListScope::Public,
        },
    );
    assert_eq!(cache.len(), 10);
    assert_eq!(cache.invalidate_list(TOOLS), 9);
    assert_eq!(cache.len(), 1);
    assert_eq!(
        cache.get(1.0, TOOLS, &at_cursor("c2"), Some("alice"), true),
        None
    );
    assert!(cache
        .get(1.0, "prompts/list", &first(), None, false)
        .is_some());
    assert_eq!(cache.invalidate_list(TOOLS), 0);
}

fn populated() -> ListCache<&'static str> {
    let mut cache = ListCache::new();
    let page2 = at_cursor("c2");
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        cache.put(
            0.0,
            ListEntry {
                method,
                params: &first(),
                auth_context: None,
                result: "x",
                ttl_ms: Some(1e6),
                scope: ListScope::Public,
            },
        );
        cache.put(
            0.0,
            ListEntry {
                method,
                params: &page2,
                auth_context: Some("a"),
                result: "x",
                ttl_ms: Some(1e6),
                scope: ListScope::Private,
            },
        );
    }
    for uri in ["file:///a", "file:///b"] {
        let p = for_uri(uri);
        cache.put(
            0.0,
            ListEntry {
                method: "resources/read",
                params: &p,
                auth_context: None,
                result: "r",
                ttl_ms: Some(1e6),
                scope: ListScope::Public,
            },
        );
        cache.put(
            0.0,
            ListEntry {
                method: "resources/read",
                params: &p,
                auth_context: Some("a"),
                result: "r",
                ttl_ms: Some(1e6),
                scope: ListScope::Private,
            },
        );
    }
    cache
}

fn methods(cache: &ListCache<&'static str>) -> Vec<String> {
    let mut methods: Vec<String> = cache.entries.keys().map(|k| k.method.clone()).collect();
    methods.sort();
    methods.dedup();
    methods
}

#[test]
fn tools_list_changed_drops_tools_list() {
    let mut cache = populated();
    assert_eq!(cache.len(), 12);
    assert_eq!(
        cache.handle_notification("notifications/tools/list_changed", None),
        2
    );
    assert_eq!(cache.len(), 10);
    assert!(!methods(&cache).contains(&"tools/list".to_owned()));
}

#[test]
fn prompts_list_changed_drops_prompts_list() {
    let mut cache = populated();
    assert_eq!(
        cache.handle_notification("notifications/prompts/list_changed", None),
        2
    );
    assert!(!methods(&cache).contains(&"prompts/list".to_owned()));
    assert!(methods(&cache).contains(&"tools/list".to_owned()));
}

#[test]
fn resources_list_changed_drops_resources_and_templates_lists() {
    let mut cache = populated();
    assert_eq!(
        cache.handle_notification("notifications/resources/list_changed", None),
        4
    );
    assert_eq!(
        methods(&cache),
        vec!["prompts/list", "resources/read", "tools/list"]
    );
}

#[test]
fn resources_updated_drops_reads_of_that_uri() {
    let mut cache = populated();
    assert_eq!(
        cache.handle_notification("notifications/resources/updated", Some("file:///a")),
        2
    );
    let a = for_uri("file:///a");
    let b = for_uri("file:///b");
    assert_eq!(cache.get(1.0, "resources/read", &a, Some("a"), true), None);
    assert!(cache
        .get(1.0, "resources/read", &b, Some("a"), false)
        .is_some());
    assert_eq!(cache.len(), 10);
    // No URI, or an unknown URI: nothing dropped.
    assert_eq!(
        cache.handle_notification("notifications/resources/updated", None),
        0
    );
    assert_eq!(
        cache.handle_notification("notifications/resources/updated", Some("file:///zz")),
        0
    );
    assert_eq!(cache.len(), 10);
}

#[test]
fn unknown_notifications_drop_nothing() {
    let mut cache = populated();
    for method in [
        "notifications/progress",
        "notifications/tools/list_changed/",
        "tools/list",
        "",
    ] {
        assert_eq!(cache.handle_notification(method, Some("file:///a")), 0);
    }
    assert_eq!(cache.len(), 12);
}

#[test]
fn len_is_empty_and_clear() {
    let mut cache: ListCache<&'static str> = ListCache::new();
    assert!(cache.is_empty());
    assert_eq!(cache.len(), 0);
    public(&mut cache, 0.0, Some(10.0), "v");
    cache.put(
        0.0,
        ListEntry {
            method: "prompts/list",
            params: &first(),
            auth_context: None,
            result: "p",
            ttl_ms: Some(100.0),
            scope: ListScope::Public,
        },
    );
    assert!(!cache.is_empty());
    assert_eq!(cache.len(), 2);
    cache.clear();
    assert!(cache.is_empty());
    assert_eq!(get(&cache, 0.0, None, true), None);
}

/// Stores `value` privately for `auth` at the first page of `tools/list`.
fn private(cache: &mut ListCache<&'static str>, now: f64, auth: &'static str, value: &'static str) {
    cache.put(
        now,
        entry(&first(), value, 60_000.0, ListScope::Private, Some(auth)),
    );
}

#[test]
fn a_full_cache_drops_the_entry_stored_longest_ago() {
    let mut cache: ListCache<&'static str> = ListCache::with_max_entries(3);
    private(&mut cache, 10.0, "a", "a1");
    private(&mut cache, 5.0, "b", "b1"); // an earlier time, stored later
    private(&mut cache, 20.0, "c", "c1");
    assert_eq!(cache.len(), 3);
    let hit = |cache: &ListCache<&'static str>, auth| {
        get(cache, 40.0, Some(auth), true).map(|h| h.result)
    };
    // A new one drops the one stored longest ago, whatever the clock said.
    private(&mut cache, 40.0, "d", "d1");
    assert_eq!(cache.len(), 3);
    assert_eq!(
        ["a", "b", "c", "d"].map(|auth| hit(&cache, auth)),
        [None, Some("b1"), Some("c1"), Some("d1")]
    );
    // Replacing an entry never drops another, and makes it the newest.
    private(&mut cache, 41.0, "b", "b2");
    assert_eq!(cache.len(), 3);
    // An expired entry goes in its turn, not before: the older fresh one goes first.
    cache.put(
        42.0,
        entry(&first(), "e1", 0.0, ListScope::Private, Some("e")),
    );
    assert_eq!(
        ["b", "c", "d", "e"].map(|auth| hit(&cache, auth)),
        [Some("b2"), None, Some("d1"), Some("e1")]
    );
}

#[test]
fn dropping_never_brings_an_older_public_answer_back() {
    // The public answer, then a private one for "a" at an earlier clock reading: full, the
    // next entry drops the public one (stored first), never the private one that hides it.
    let mut cache: ListCache<&'static str> = ListCache::with_max_entries(2);
    public(&mut cache, 100.0, Some(60_000.0), "public");
    private(&mut cache, 90.0, "a", "a-private");
    private(&mut cache, 110.0, "z", "z-private");
    assert_eq!(
        get(&cache, 120.0, Some("a"), false).map(|h| h.result),
        Some("a-private")
    );
    assert_eq!(get(&cache, 120.0, Some("q"), false), None);
}

#[test]
fn max_entries_zero_stores_nothing_and_the_default_is_bounded() {
    let mut off: ListCache<&'static str> = ListCache::with_max_entries(0);
    private(&mut off, 1.0, "a", "a1");
    public(&mut off, 1.0, Some(10.0), "p");
    assert!(off.is_empty());
    let mut cache: ListCache<&'static str> = ListCache::new();
    const AUTHS: usize = DEFAULT_MAX_LIST_ENTRIES + 5;
    let auths: Vec<&'static str> = (0..AUTHS)
        .map(|i| &*Box::leak(i.to_string().into_boxed_str()))
        .collect();
    for (i, auth) in auths.iter().enumerate() {
        private(&mut cache, i as f64, auth, "v");
    }
    assert_eq!(cache.len(), DEFAULT_MAX_LIST_ENTRIES);
    assert_eq!(get(&cache, 0.0, Some(auths[4]), false), None);
    assert!(get(&cache, 0.0, Some(auths[5]), false).is_some());
}
