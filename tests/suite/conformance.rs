//! One conformance suite for every backend: the same checks over the memory store and IndexedDB
//! (run on a page, in a dedicated worker, and in Node over fake-indexeddb). Each check runs
//! once per storage kind; what it asserts is measured against what is actually stored.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

/// The storage kinds to check: memory and IndexedDB everywhere, and a storage object made in JS
/// where the test run provides `globalThis.mcpTestRedisStorage(prefix)` and that store keeps one
/// budget and one LRU order over every conversation, as these tests expect. `redisStorage` keeps
/// them per conversation (each in its own hash slot, docs/REDIS.md), so `npm test` provides none:
/// Redis is held to the storage contract's own suite (`tests/js/redis-storage-conformance.test.mjs`).
fn kinds() -> Vec<&'static str> {
    let mut kinds = vec!["memory", "indexeddb"];
    if redis_storage_maker().is_some() {
        kinds.push("redis");
    }
    kinds
}

fn redis_storage_maker() -> Option<Function> {
    Reflect::get(&js_sys::global(), &JsValue::from_str("mcpTestRedisStorage"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// The kinds whose caches share one database (or key prefix): IndexedDB and Redis.
fn shared_kinds() -> Vec<&'static str> {
    kinds().into_iter().filter(|k| *k != "memory").collect()
}

/// The `storage` option of a cache of `kind`: Redis under a key prefix of its own per database name.
fn storage_of(kind: &str, db: &str) -> JsValue {
    match (kind, redis_storage_maker()) {
        ("redis", Some(make)) => make.call1(&JsValue::NULL, &JsValue::from_str(db)).unwrap(),
        _ => JsValue::from_str(kind),
    }
}

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn cache_on(kind: &str, db: &str, extra: &[(&str, JsValue)]) -> ResultCache {
    let mut pairs = vec![
        ("dbName", JsValue::from_str(db)),
        ("storage", storage_of(kind, db)),
        ("threshold", 1.into()),
    ];
    pairs.extend(extra.iter().cloned());
    ResultCache::new(Some(obj(&pairs))).unwrap()
}

/// A payload of about `bytes` bytes of JSON.
fn payload(tag: usize, bytes: usize) -> JsValue {
    obj(&[
        ("tag", (tag as f64).into()),
        (
            "pad",
            JsValue::from_str(&"x".repeat(bytes.saturating_sub(30))),
        ),
    ])
}

async fn store(cache: &ResultCache, tag: usize, bytes: usize, conv: &str) -> Option<String> {
    put(cache, &payload(tag, bytes), conv).await
}

/// What is actually stored: (entries, bytes, distinct conversation ids).
async fn stored(cache: &ResultCache) -> (u32, f64, usize) {
    let list: Array = wait(cache.entries(None)).await.unwrap().unchecked_into();
    let bytes = list
        .iter()
        .map(|e| field(&e, "sizeBytes").as_f64().unwrap())
        .sum();
    let convs: BTreeSet<String> = list
        .iter()
        .map(|e| field(&e, "convId").as_string().unwrap())
        .collect();
    (list.length(), bytes, convs.len())
}

async fn stats(cache: &ResultCache) -> (u32, f64, u32) {
    let s = wait(cache.stats()).await.unwrap();
    (
        field(&s, "entries").as_f64().unwrap() as u32,
        field(&s, "bytes").as_f64().unwrap(),
        field(&s, "conversations").as_f64().unwrap() as u32,
    )
}

async fn assert_stats_match(cache: &ResultCache, kind: &str) {
    let (entries, bytes, convs) = stored(cache).await;
    assert_eq!(
        stats(cache).await,
        (entries, bytes, convs as u32),
        "{kind}: stats() equals what is stored"
    );
}

#[wasm_bindgen_test]
async fn least_recently_used_entries_go_first() {
    for kind in kinds() {
        let (now, clock) = manual_clock(1_000.0);
        let cache = cache_on(kind, &fresh_db(), &[("now", now), ("maxEntries", 3.into())]);
        let mut uris = Vec::new();
        for tag in 0..3 {
            clock.set(1_000.0 + tag as f64);
            uris.push(store(&cache, tag, 200, "c").await.unwrap());
        }
        clock.set(2_000.0);
        // Reading the oldest makes it the most recently used.
        assert!(read(&cache, &uris[0].clone().into(), JsValue::UNDEFINED)
            .await
            .is_object());
        clock.set(3_000.0);
        let fourth = store(&cache, 3, 200, "c").await.unwrap();
        let gone = read(&cache, &uris[1].clone().into(), JsValue::UNDEFINED).await;
        assert!(
            gone.is_null(),
            "{kind}: the least recently used entry is evicted"
        );
        for uri in [&uris[0], &uris[2], &fourth] {
            let kept = read(&cache, &uri.clone().into(), JsValue::UNDEFINED).await;
            assert!(kept.is_object(), "{kind}: {uri} kept");
        }
        assert_stats_match(&cache, kind).await;
    }
}

/// Issues `count` writes at once and checks the budget after each one completes, against what
/// is actually stored.
async fn concurrent_writes(caches: &[ResultCache], count: usize, max_bytes: f64, kind: &str) {
    let worst = Rc::new(RefCell::new(0.0f64));
    let pending: Array = Array::new();
    for i in 0..count {
        let cache = &caches[i % caches.len()];
        let write = cache.cache_tool_result(obj(&[
            ("payload", payload(i, 4096)),
            ("convId", JsValue::from_str(&format!("c{}", i % 7))),
        ]));
        pending.push(&write);
    }
    for write in pending.iter() {
        wait(write.unchecked_into::<Promise>()).await.unwrap();
        let (_, bytes, _) = stored(&caches[0]).await;
        let mut worst = worst.borrow_mut();
        *worst = worst.max(bytes);
    }
    let worst = *worst.borrow();
    assert!(
        worst <= max_bytes,
        "{kind}: {worst} bytes stored under maxBytes {max_bytes}"
    );
}

#[wasm_bindgen_test]
async fn a_hundred_concurrent_writes_never_exceed_the_budget() {
    for kind in kinds() {
        let max_bytes = 256.0 * 1024.0;
        let cache = cache_on(kind, &fresh_db(), &[("maxBytes", max_bytes.into())]);
        // Warm up to the budget first, then burst.
        for i in 0..70 {
            store(&cache, i, 4096, "warm").await.unwrap();
        }
        concurrent_writes(std::slice::from_ref(&cache), 100, max_bytes, kind).await;
        assert_stats_match(&cache, kind).await;
        let (entries, _, _) = stored(&cache).await;
        assert!(entries > 50, "{kind}: the budget is used, not emptied");
    }
}

#[wasm_bindgen_test]
async fn two_caches_on_one_database_hold_the_budget_together() {
    for kind in shared_kinds() {
        let db = fresh_db();
        let max_bytes = 128.0 * 1024.0;
        let extra = [("maxBytes", JsValue::from_f64(max_bytes))];
        let caches = [cache_on(kind, &db, &extra), cache_on(kind, &db, &extra)];
        concurrent_writes(&caches, 100, max_bytes, kind).await;
        let (entries, bytes, _) = stored(&caches[0]).await;
        assert_eq!(stats(&caches[1]).await.0, entries, "{kind}");
        assert!(bytes <= max_bytes, "{kind}");
    }
}

#[wasm_bindgen_test]
async fn the_entry_budget_holds_under_concurrency() {
    for kind in kinds() {
        let cache = cache_on(kind, &fresh_db(), &[("maxEntries", 10.into())]);
        let pending: Vec<Promise> = (0..40)
            .map(|i| {
                cache
                    .cache_tool_result(obj(&[("payload", payload(i, 500)), ("convId", "c".into())]))
            })
            .collect();
        for write in pending {
            wait(write).await.unwrap();
            assert!(stored(&cache).await.0 <= 10, "{kind}");
        }
        assert_eq!(stored(&cache).await.0, 10, "{kind}");
        assert_stats_match(&cache, kind).await;
    }
}

#[wasm_bindgen_test]
async fn stats_follow_clears_evictions_and_staleness() {
    for kind in kinds() {
        let (now, clock) = manual_clock(10_000.0);
        let cache = cache_on(kind, &fresh_db(), &[("now", now)]);
        for i in 0..12 {
            clock.set(10_000.0 + i as f64 * 100.0);
            let conv = ["会話", "对话", "c/3"][i % 3];
            store(&cache, i, 1000 + i * 10, conv).await.unwrap();
        }
        assert_stats_match(&cache, kind).await;
        wait(cache.clear_conversation("会話".into())).await.unwrap();
        assert_stats_match(&cache, kind).await;
        assert_eq!(
            stored(&cache).await.0,
            8,
            "{kind}: only 会話's four entries went"
        );
        clock.set(12_000.0);
        wait(cache.evict_older_than(obj(&[("maxAgeMs", 1_500.into())])))
            .await
            .unwrap();
        assert_stats_match(&cache, kind).await;
        let invalidated = wait(cache.invalidate(
            "timeseries.*".into(),
            Some(obj(&[("cause", "billing.refund".into())])),
        ))
        .await
        .unwrap();
        let (entries, _, _) = stored(&cache).await;
        assert_eq!(invalidated.as_f64(), Some(f64::from(entries)), "{kind}");
        let list: Array = wait(cache.entries(None)).await.unwrap().unchecked_into();
        for entry in list.iter() {
            assert_eq!(field(&entry, "staleCause"), "billing.refund", "{kind}");
            let uri = field(&entry, "uri");
            let found = wait(cache.lookup(uri, None)).await.unwrap();
            assert_eq!(field(&found, "status"), "stale", "{kind}");
        }
        // Writes after all of that keep the totals exact.
        store(&cache, 99, 2000, "c/3").await.unwrap();
        assert_stats_match(&cache, kind).await;
    }
}

#[wasm_bindgen_test]
async fn a_write_after_a_clear_with_many_entries_stays_within_budget() {
    for kind in kinds() {
        let events: Rc<RefCell<Vec<String>>> = Rc::default();
        let sink = events.clone();
        let on_event = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
            sink.borrow_mut()
                .push(field(&e, "kind").as_string().unwrap_or_default());
        });
        let on_event: Function = on_event.into_js_value().unchecked_into();
        let cache = cache_on(
            kind,
            &fresh_db(),
            &[("maxEntries", 50.into()), ("onEvent", on_event.into())],
        );
        for i in 0..60 {
            store(&cache, i, 300, if i % 2 == 0 { "a" } else { "b" })
                .await
                .unwrap();
        }
        assert_eq!(stored(&cache).await.0, 50, "{kind}");
        wait(cache.clear_conversation("a".into())).await.unwrap();
        store(&cache, 100, 300, "a").await.unwrap();
        assert_stats_match(&cache, kind).await;
        assert!(events.borrow().iter().any(|k| k == "evict"), "{kind}");
    }
}

#[wasm_bindgen_test]
async fn one_uncloneable_payload_in_a_burst_fails_alone() {
    for kind in kinds() {
        let cache = cache_on(kind, &fresh_db(), &[]);
        let bad = payload(0, 500);
        let f = Function::new_no_args("return 1");
        Reflect::set(&bad, &"fn".into(), &f).unwrap();
        // Each promise gets its handler at once: the refusal may come before the earlier writes.
        let writes: Vec<wasm_bindgen_futures::JsFuture> = (0..10)
            .map(|i| {
                let body = if i == 4 { bad.clone() } else { payload(i, 500) };
                cache
                    .cache_tool_result(obj(&[("payload", body), ("convId", "c".into())]))
                    .into()
            })
            .collect();
        for (i, write) in writes.into_iter().enumerate() {
            let outcome = write.await;
            if i == 4 {
                let err = outcome.unwrap_err();
                // Structured clone refuses a function; JSON (Redis) refuses what it cannot hold.
                let refusal = if kind == "redis" {
                    "TypeError"
                } else {
                    "DataCloneError"
                };
                assert_eq!(field(&err, "name"), refusal, "{kind}");
            } else {
                assert!(outcome.unwrap().is_string(), "{kind}: write {i} stored");
            }
        }
        assert_eq!(stored(&cache).await.0, 9, "{kind}");
        assert_stats_match(&cache, kind).await;
        // The refused write left no trace in the conversation's totals either: clearing it
        // leaves nothing stored and the totals at zero.
        wait(cache.clear_conversation("c".into())).await.unwrap();
        assert_eq!(stored(&cache).await.0, 0, "{kind}");
        assert_stats_match(&cache, kind).await;
    }
}

/// The URIs stored per conversation id.
async fn uris_by_conv(cache: &ResultCache) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let list: Array = wait(cache.entries(None)).await.unwrap().unchecked_into();
    let mut by_conv = std::collections::BTreeMap::<String, BTreeSet<String>>::new();
    for entry in list.iter() {
        by_conv
            .entry(field(&entry, "convId").as_string().unwrap())
            .or_default()
            .insert(field(&entry, "uri").as_string().unwrap());
    }
    by_conv
}

/// Clears take exactly one id's entries, whatever evictions, age evictions and ids sharing a URI
/// segment did before, and the totals stay equal to what is stored after each step.
#[wasm_bindgen_test]
async fn clears_stay_exact_after_evictions_and_shared_segments() {
    for kind in kinds() {
        let (now, clock) = manual_clock(50_000.0);
        let cache = cache_on(
            kind,
            &fresh_db(),
            &[("now", now), ("maxEntries", 24.into())],
        );
        // "x y" is minted under a lossy segment; the id spelled like that segment shares it.
        let lossy_uri = store(&cache, 0, 400, "x y").await.unwrap();
        let segment = lossy_uri
            .trim_start_matches("mcp+cache://")
            .rsplit_once('/')
            .unwrap()
            .0
            .to_owned();
        let twin_uri = store(&cache, 1, 400, &segment).await.unwrap();
        assert!(
            twin_uri.starts_with(&format!("mcp+cache://{segment}/")),
            "{kind}: {twin_uri} shares {segment}"
        );
        let ids = ["x y", segment.as_str(), "plain", "other"];
        // 40 writes under a 24-entry budget: evictions cross every conversation.
        for i in 0..40 {
            clock.set(50_000.0 + i as f64 * 10.0);
            store(&cache, i + 2, 300 + (i % 7) * 50, ids[i % ids.len()])
                .await
                .unwrap();
        }
        assert_stats_match(&cache, kind).await;
        clock.set(50_400.0);
        wait(cache.evict_older_than(obj(&[("maxAgeMs", 250.into())])))
            .await
            .unwrap();
        assert_stats_match(&cache, kind).await;
        for (step, id) in ids.iter().enumerate() {
            let before = uris_by_conv(&cache).await;
            assert!(
                before.contains_key(*id),
                "{kind}: {id} has entries to clear"
            );
            wait(cache.clear_conversation((*id).into())).await.unwrap();
            let after = uris_by_conv(&cache).await;
            assert!(!after.contains_key(*id), "{kind}: {id} fully cleared");
            for other in &ids[step + 1..] {
                assert_eq!(
                    before.get(*other),
                    after.get(*other),
                    "{kind}: clearing {id} kept {other}"
                );
            }
            assert_stats_match(&cache, kind).await;
            // A write after each clear keeps the totals exact too.
            store(&cache, 100 + step, 500, "after").await.unwrap();
            assert_stats_match(&cache, kind).await;
        }
    }
}

/// Runs `body` (JS, given `db`, an open `IDBDatabase`, and `resolve`) on database `name`: what an
/// earlier version of the package left in it, or a look at what is there.
async fn on_database(name: &str, body: &str) -> JsValue {
    let run = Function::new_with_args(
        "name",
        &format!(
            "return new Promise((resolve, reject) => {{
               const open = indexedDB.open(name);
               open.onerror = () => reject(open.error);
               open.onsuccess = () => {{ const db = open.result; {body} }};
             }})"
        ),
    );
    let done: Promise = run
        .call1(&JsValue::NULL, &name.into())
        .unwrap()
        .unchecked_into();
    wait(done).await.unwrap()
}

/// Puts `totals` under `"totals"` and a per-conversation row `["conv", "a"]` into `meta`.
async fn tamper_meta(name: &str, totals: &str) {
    on_database(
        name,
        &format!(
            "const tx = db.transaction('meta', 'readwrite');
             tx.objectStore('meta').put({totals}, 'totals');
             tx.objectStore('meta').put({{ bytes: 5, entries: 3, irregular: false }}, ['conv', 'a']);
             tx.oncomplete = () => {{ db.close(); resolve(); }};
             tx.onabort = () => reject(tx.error);"
        ),
    )
    .await;
}

/// The keys of `meta`.
async fn meta_keys(name: &str) -> Vec<JsValue> {
    let keys = on_database(
        name,
        "const keys = db.transaction('meta').objectStore('meta').getAllKeys();
         keys.onsuccess = () => { db.close(); resolve(keys.result); };
         keys.onerror = () => reject(keys.error);",
    )
    .await;
    Array::from(&keys).to_vec()
}

/// A database whose totals lack the flag of a version that keeps them (written by a version
/// without totals) is recounted by the next read-write transaction, and the per-conversation
/// rows an earlier version may have left go; clears stay exact and stats equal what is stored.
#[wasm_bindgen_test]
async fn totals_written_by_an_older_version_are_recounted() {
    let name = fresh_db();
    let cache = cache_on("indexeddb", &name, &[]);
    for i in 0..6 {
        store(&cache, i, 600, ["a", "b"][i % 2]).await.unwrap();
    }
    cache.close();
    // What an older writer leaves: totals without the flag, and a stale per-conversation row.
    tamper_meta(&name, "{ bytes: 1, entries: 1 }").await;
    let cache = cache_on("indexeddb", &name, &[]);
    wait(cache.clear_conversation("a".into())).await.unwrap();
    assert_stats_match(&cache, "indexeddb").await;
    let left = uris_by_conv(&cache).await;
    assert_eq!(
        left.keys().collect::<Vec<_>>(),
        ["b"],
        "only a's entries went"
    );
    assert_eq!(left["b"].len(), 3);
    store(&cache, 10, 600, "b").await.unwrap();
    wait(cache.clear_conversation("b".into())).await.unwrap();
    assert_stats_match(&cache, "indexeddb").await;
    assert_eq!(stored(&cache).await.0, 0);
    cache.close();
    assert_eq!(meta_keys(&name).await, [JsValue::from_str("totals")]);
}

/// The totals row this package writes carries `exact: true` (written by `idb_objects.js`, read
/// by `totals.rs`), and totals carrying it, or the `perConversation` flag of releases up to 0.3
/// (which kept per-conversation rows), are used as they are, not recounted; the next read-write
/// transaction deletes those rows, which nothing reads any more.
#[wasm_bindgen_test]
async fn flagged_totals_are_used_and_per_conversation_rows_go() {
    for flag in ["exact", "perConversation"] {
        let name = fresh_db();
        let cache = cache_on("indexeddb", &name, &[]);
        for i in 0..4 {
            store(&cache, i, 600, "a").await.unwrap();
        }
        let (entries, bytes, _) = stored(&cache).await;
        cache.close();
        let written = on_database(
            &name,
            "const row = db.transaction('meta').objectStore('meta').get('totals');
             row.onsuccess = () => { db.close(); resolve(row.result); };
             row.onerror = () => reject(row.error);",
        )
        .await;
        assert_eq!(field(&written, "exact"), JsValue::TRUE, "the row written");
        // One entry more than stored: a recount would correct it, using the totals keeps it.
        tamper_meta(
            &name,
            &format!(
                "{{ bytes: {}, entries: {}, {flag}: true }}",
                bytes + 7.0,
                entries + 1
            ),
        )
        .await;
        let cache = cache_on("indexeddb", &name, &[]);
        store(&cache, 9, 600, "b").await.unwrap();
        assert_eq!(
            stats(&cache).await.0,
            entries + 2,
            "{flag}: kept, plus the write"
        );
        cache.close();
        if flag == "perConversation" {
            // Such totals are written with the rows, in one transaction: seeing them is the cue.
            assert_eq!(meta_keys(&name).await, [JsValue::from_str("totals")]);
        }
    }
}

/// Two caches on one database write to two conversations while each clears the other's, all at
/// once: the totals stay exact (every clear takes all of its id's entries and
/// nothing else, and the totals equal what is stored), whichever transaction IndexedDB runs first.
#[wasm_bindgen_test]
async fn concurrent_writes_and_clears_from_two_caches_stay_exact() {
    for kind in shared_kinds() {
        concurrent_writes_and_clears_on(kind).await;
    }
}

async fn concurrent_writes_and_clears_on(kind: &str) {
    let db = fresh_db();
    let caches = [
        cache_on(kind, &db, &[("maxEntries", 40.into())]),
        cache_on(kind, &db, &[("maxEntries", 40.into())]),
    ];
    for round in 0..4 {
        let mut pending: Vec<Promise> = Vec::new();
        for i in 0..24 {
            let (cache, conv) = (&caches[i % 2], ["a", "b"][i % 2]);
            pending.push(cache.cache_tool_result(obj(&[
                ("payload", payload(round * 100 + i, 300 + i * 10)),
                ("convId", conv.into()),
            ])));
            if i == 12 {
                pending.push(caches[0].clear_conversation("b".into()));
                pending.push(caches[1].clear_conversation("a".into()));
            }
        }
        for p in pending {
            wait(p).await.unwrap();
        }
        assert_stats_match(&caches[0], "round").await;
        assert_stats_match(&caches[1], "round").await;
        for (cache, conv, other) in [(&caches[0], "a", "b"), (&caches[1], "b", "a")] {
            let before = uris_by_conv(cache).await;
            wait(cache.clear_conversation(conv.into())).await.unwrap();
            let after = uris_by_conv(cache).await;
            assert!(
                !after.contains_key(conv),
                "round {round}: {conv} fully cleared"
            );
            assert_eq!(
                before.get(other),
                after.get(other),
                "round {round}: {other} kept"
            );
            assert_stats_match(cache, "after a clear").await;
        }
    }
}
