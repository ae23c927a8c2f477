//! Storage round trips, the threshold, scoping, clearing and eviction.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Reflect};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn status(v: &JsValue) -> String {
    Reflect::get(v, &"status".into())
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
async fn round_trip_of_a_500_row_object() {
    let cache = idb_cache(&[]);
    assert_eq!(cache.storage(), "indexeddb");
    let payload = rows(500);
    let uri = put(&cache, &payload, "conv-1")
        .await
        .expect("500 rows are cached");
    let parsed = mcp_result_cache::parse_cache_uri(JsValue::from_str(&uri));
    assert_eq!(Reflect::get(&parsed, &"convId".into()).unwrap(), "conv-1");
    assert_eq!(
        Reflect::get(&parsed, &"token".into())
            .unwrap()
            .as_string()
            .unwrap()
            .len(),
        11
    );
    let back = read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&back), to_json(&payload));
    let scoped = read(
        &cache,
        &JsValue::from_str(&uri),
        obj(&[("convId", "conv-1".into())]),
    )
    .await;
    assert_eq!(to_json(&scoped), to_json(&payload));
}

#[wasm_bindgen_test]
async fn stored_payload_is_a_copy_not_the_callers_object() {
    let cache = idb_cache(&[]);
    let payload = rows(100);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let before = to_json(&payload);
    Reflect::set(&payload, &"ok".into(), &JsValue::from_str("mutated")).unwrap();
    let back = read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&back), before);
}

#[wasm_bindgen_test]
async fn null_scalars_and_non_serializable_payloads_are_not_cached() {
    let cache = idb_cache(&[("threshold", 0.into())]);
    assert_eq!(put(&cache, &JsValue::NULL, "c").await, None);
    assert_eq!(
        put(&cache, &JsValue::from_str(&"x".repeat(10_000)), "c").await,
        None
    );
    assert_eq!(put(&cache, &JsValue::from_f64(12345.0), "c").await, None);
    // A cycle: JSON.stringify throws, so the size is 0 and nothing is cached.
    let cyclic = rows(10);
    Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
    assert_eq!(mcp_result_cache::estimate_size(cyclic.clone()), 0.0);
    assert_eq!(put(&cache, &cyclic, "c").await, None);
    // BigInt: JSON.stringify throws too.
    let big = obj(&[("n", js_sys::BigInt::from(7u64).into())]);
    assert_eq!(mcp_result_cache::estimate_size(big.clone()), 0.0);
    assert_eq!(put(&cache, &big, "c").await, None);
}

#[wasm_bindgen_test]
async fn threshold_boundary_is_inclusive() {
    let threshold = 4096usize;
    let cache = idb_cache(&[]);
    assert_eq!(cache.threshold(), 4096.0);
    // {"d":"xxx…"} is 8 bytes plus the string.
    let exact = json(&format!(r#"{{"d":"{}"}}"#, "x".repeat(threshold - 8)));
    let short = json(&format!(r#"{{"d":"{}"}}"#, "x".repeat(threshold - 9)));
    assert_eq!(
        mcp_result_cache::estimate_size(exact.clone()),
        threshold as f64
    );
    assert_eq!(
        mcp_result_cache::estimate_size(short.clone()),
        (threshold - 1) as f64
    );
    assert!(put(&cache, &exact, "c").await.is_some());
    assert_eq!(put(&cache, &short, "c").await, None);
}

#[wasm_bindgen_test]
async fn size_counts_utf8_bytes() {
    // "é" is 2 bytes, "🙂" 4 bytes; JSON adds {"d":""} = 8 bytes.
    assert_eq!(
        mcp_result_cache::estimate_size(json(r#"{"d":"é🙂"}"#)),
        14.0
    );
    // Per-call threshold override.
    let cache = idb_cache(&[]);
    let small = json(r#"{"d":"é🙂"}"#);
    let input = obj(&[
        ("payload", small),
        ("convId", "c".into()),
        ("threshold", 14.into()),
    ]);
    let uri = wait(cache.cache_tool_result(input)).await.unwrap();
    assert!(uri.is_string());
}

#[wasm_bindgen_test]
async fn clear_conversation_removes_only_that_conversation() {
    let cache = idb_cache(&[]);
    let a1 = put(&cache, &rows(100), "conv-a").await.unwrap();
    let a2 = put(&cache, &rows(110), "conv-a").await.unwrap();
    let keep = rows(120);
    let b = put(&cache, &keep, "conv-b").await.unwrap();
    let cleared = wait(cache.clear_conversation("conv-a".into()))
        .await
        .unwrap();
    assert!(cleared.is_undefined());
    for uri in [a1, a2] {
        assert!(read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED)
            .await
            .is_null());
    }
    let other = read(&cache, &JsValue::from_str(&b), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&other), to_json(&keep));
}

#[wasm_bindgen_test]
async fn clear_conversation_clears_exactly_the_id_it_is_given() {
    let cache = idb_cache(&[]);
    let uri = put(&cache, &rows(100), "../evil/../host").await.unwrap();
    assert!(uri.starts_with("mcp+cache://___evil____host-"));
    let neighbour = put(&cache, &rows(101), "__/evil/../host").await.unwrap();
    wait(cache.clear_conversation("../evil/../host".into()))
        .await
        .unwrap();
    assert!(read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED)
        .await
        .is_null());
    assert!(
        !read(&cache, &JsValue::from_str(&neighbour), JsValue::UNDEFINED)
            .await
            .is_null()
    );
}

#[wasm_bindgen_test]
async fn evict_older_than_uses_the_injected_clock() {
    let (now, clock) = manual_clock(1_000.0);
    let cache = idb_cache(&[("now", now)]);
    let old = put(&cache, &rows(100), "c").await.unwrap();
    clock.set(5_000.0);
    let fresh_payload = rows(110);
    let fresh = put(&cache, &fresh_payload, "c").await.unwrap();
    clock.set(6_000.0);
    let done = wait(cache.evict_older_than(obj(&[("maxAgeMs", 2_000.into())])))
        .await
        .unwrap();
    assert!(done.is_undefined());
    assert!(read(&cache, &JsValue::from_str(&old), JsValue::UNDEFINED)
        .await
        .is_null());
    let kept = read(&cache, &JsValue::from_str(&fresh), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&kept), to_json(&fresh_payload));
}

#[wasm_bindgen_test]
async fn entries_are_listed_oldest_first_with_ties_in_reference_order() {
    let (now, clock) = manual_clock(0.0);
    let cache = idb_cache(&[("now", now)]);
    let mut written = Vec::new();
    // Written newest first, with three in the same millisecond: listed in the store's own
    // (reference) order, a 1 in 8!/3! chance of looking sorted.
    for (i, at) in [60.0, 50.0, 40.0, 30.0, 20.0, 10.0, 10.0, 10.0]
        .into_iter()
        .enumerate()
    {
        clock.set(at);
        let uri = put(&cache, &rows(100 + i), "c").await.unwrap();
        written.push((at, uri));
    }
    // Oldest first; entries added in the same millisecond in the store's (reference) order.
    written.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let list: js_sys::Array = wait(cache.entries(None)).await.unwrap().unchecked_into();
    let listed: Vec<(f64, String)> = list
        .iter()
        .map(|e| {
            let get = |k: &str| Reflect::get(&e, &k.into()).unwrap();
            (
                get("addedAt").as_f64().unwrap(),
                get("uri").as_string().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed, written);
}

#[wasm_bindgen_test]
async fn evict_older_than_rejects_a_bad_max_age() {
    let cache = idb_cache(&[]);
    let err = wait(cache.evict_older_than(obj(&[("maxAgeMs", (-1).into())])))
        .await
        .unwrap_err();
    assert!(err.is_instance_of::<js_sys::TypeError>());
}

#[wasm_bindgen_test]
async fn non_hits_read_as_null() {
    let cache = idb_cache(&[]);
    let uri = put(&cache, &rows(100), "conv-1").await.unwrap();
    for probe in [
        JsValue::from_str("mcp+cache://conv-1/AAAAAAAAAAA"),
        JsValue::from_str("https://example.com/data.json"),
        JsValue::from_str(&uri.replace("mcp+cache://", "mcp+cachex://")),
        JsValue::from_str("mcp+cache://conv-1/short"),
        JsValue::from_f64(42.0),
        JsValue::NULL,
        JsValue::UNDEFINED,
        obj(&[("uri", JsValue::from_str(&uri))]),
    ] {
        assert!(
            read(&cache, &probe, JsValue::UNDEFINED).await.is_null(),
            "{probe:?}"
        );
        assert_eq!(
            status(&wait(cache.lookup(probe, None)).await.unwrap()),
            "miss"
        );
    }
}

#[wasm_bindgen_test]
async fn another_conversations_reference_is_null_when_scoped() {
    let cache = idb_cache(&[]);
    let uri = JsValue::from_str(&put(&cache, &rows(100), "conv-1").await.unwrap());
    assert!(read(&cache, &uri, obj(&[("convId", "conv-2".into())]))
        .await
        .is_null());
    // The scope is the exact id: "conv/1" and "conv_1" are two conversations.
    let other = JsValue::from_str(&put(&cache, &rows(100), "conv/1").await.unwrap());
    assert!(read(&cache, &other, obj(&[("convId", "conv_1".into())]))
        .await
        .is_null());
    assert!(!read(&cache, &other, obj(&[("convId", "conv/1".into())]))
        .await
        .is_null());
    // Unscoped reads see every conversation.
    assert!(!read(&cache, &uri, JsValue::UNDEFINED).await.is_null());
}

#[wasm_bindgen_test]
async fn lookup_tells_a_stored_null_from_a_miss() {
    let cache = idb_cache(&[]);
    let payload = json(&format!(r#"{{"value":null,"pad":"{}"}}"#, "p".repeat(5000)));
    let uri = put(&cache, &payload, "c").await.unwrap();
    let hit = wait(cache.lookup(format!("{uri}#/value").into(), None))
        .await
        .unwrap();
    assert_eq!(status(&hit), "hit");
    assert!(Reflect::get(&hit, &"payload".into()).unwrap().is_null());
    assert!(Reflect::has(&hit, &"payload".into()).unwrap());
    let miss = wait(cache.lookup("mcp+cache://c/AAAAAAAAAAA".into(), None))
        .await
        .unwrap();
    assert_eq!(status(&miss), "miss");
    assert!(!Reflect::has(&miss, &"payload".into()).unwrap());
}

#[wasm_bindgen_test]
async fn json_pointer_fragment_selects_inside_the_payload() {
    let cache = idb_cache(&[]);
    let payload = rows(100);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let row = read(&cache, &format!("{uri}#/rows/1").into(), JsValue::UNDEFINED).await;
    assert_eq!(
        Reflect::get(&row, &"value".into()).unwrap().as_f64(),
        Some(7.0)
    );
    for bad in [
        "#/rows/100",
        "#/rows/01",
        "#/nope",
        "#/__proto__",
        "#/rows/-",
    ] {
        assert!(
            read(&cache, &format!("{uri}{bad}").into(), JsValue::UNDEFINED)
                .await
                .is_null(),
            "{bad}"
        );
    }
}

#[wasm_bindgen_test]
async fn clearing_a_thousand_entries_completes() {
    let cache = idb_cache(&[("threshold", 0.into())]);
    let mut uris = Vec::new();
    for i in 0..1000 {
        let payload = json(&format!(r#"{{"i":{i}}}"#));
        uris.push(put(&cache, &payload, "bulk").await.unwrap());
    }
    let keep = put(&cache, &json(r#"{"keep":true}"#), "other")
        .await
        .unwrap();
    assert_eq!(
        to_json(&read(&cache, &JsValue::from_str(&uris[999]), JsValue::UNDEFINED).await),
        r#"{"i":999}"#
    );
    wait(cache.clear_conversation("bulk".into())).await.unwrap();
    for uri in [&uris[0], &uris[500], &uris[999]] {
        assert!(read(&cache, &JsValue::from_str(uri), JsValue::UNDEFINED)
            .await
            .is_null());
    }
    assert!(!read(&cache, &JsValue::from_str(&keep), JsValue::UNDEFINED)
        .await
        .is_null());
}

#[wasm_bindgen_test]
async fn storage_errors_keep_their_domexception_name() {
    let cache = idb_cache(&[]);
    // Serializable as JSON (functions are skipped) but not structured-cloneable.
    let payload = rows(100);
    let f = Function::new_no_args("return 1");
    Reflect::set(&payload, &"fn".into(), &f).unwrap();
    let input = obj(&[("payload", payload), ("convId", "c".into())]);
    let err = wait(cache.cache_tool_result(input)).await.unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    let name = Reflect::get(&err, &"name".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert_eq!(name, "DataCloneError");
}

#[wasm_bindgen_test]
async fn memory_storage_has_the_same_semantics() {
    let cache = ResultCache::new(Some(obj(&[("storage", "memory".into())]))).unwrap();
    assert_eq!(cache.storage(), "memory");
    let payload = rows(200);
    let uri = put(&cache, &payload, "m").await.unwrap();
    let expected = to_json(&payload);
    Reflect::set(&payload, &"ok".into(), &false.into()).unwrap();
    let back = read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&back), expected);
    // A reader mutating its copy changes nothing stored either.
    Reflect::set(&back, &"ok".into(), &false.into()).unwrap();
    assert_eq!(
        to_json(&read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await),
        expected
    );
    assert!(read(
        &cache,
        &JsValue::from_str(&uri),
        obj(&[("convId", "x".into())])
    )
    .await
    .is_null());
    wait(cache.clear_conversation("m".into())).await.unwrap();
    assert!(read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED)
        .await
        .is_null());
}

#[wasm_bindgen_test]
async fn events_are_reported_and_a_throwing_observer_changes_nothing() {
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = seen.clone();
    let observer = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        log.borrow_mut().push(
            Reflect::get(&event, &"kind".into())
                .unwrap()
                .as_string()
                .unwrap(),
        );
        wasm_bindgen::throw_str("observer bug");
    });
    let cache = idb_cache(&[("onEvent", observer.as_ref().clone())]);
    let uri = put(&cache, &rows(100), "c").await.expect("still cached");
    assert!(!read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED)
        .await
        .is_null());
    assert!(read(
        &cache,
        &"mcp+cache://c/AAAAAAAAAAA".into(),
        JsValue::UNDEFINED
    )
    .await
    .is_null());
    wait(cache.clear_conversation("c".into())).await.unwrap();
    assert_eq!(*seen.borrow(), ["write", "hit", "miss", "evict"]);
}

#[wasm_bindgen_test]
fn bad_options_are_type_errors() {
    for options in [
        obj(&[("storage", "disk".into())]),
        obj(&[("threshold", (-5).into())]),
        obj(&[("threshold", "big".into())]),
        obj(&[("now", 5.into())]),
        obj(&[("dbName", "".into())]),
        JsValue::from_str("options"),
    ] {
        let err = ResultCache::new(Some(options)).err().expect("rejected");
        assert!(err.is_instance_of::<js_sys::TypeError>());
    }
}

/// Hides `globalThis.indexedDB`; the returned function puts it back.
fn hide_indexed_db() -> Function {
    Function::new_no_args(
        "const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
         Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true, writable: true });
         return () => {
           if (saved) Object.defineProperty(globalThis, 'indexedDB', saved);
           else delete globalThis.indexedDB;
         };",
    )
    .call0(&JsValue::NULL)
    .unwrap()
    .unchecked_into()
}

use mcp_result_cache::store::NO_INDEXED_DB;

#[wasm_bindgen_test]
fn the_builder_chooses_the_storage_and_the_constructor_follows_it() {
    use mcp_result_cache::cache::{ResultCache as Cache, Storage};
    use mcp_result_cache::store::ErrorKind;
    let db = fresh_db();
    let kind = |storage| {
        Cache::builder()
            .db_name(&db)
            .storage(storage)
            .build()
            .map(|cache| cache.storage_kind().to_owned())
    };
    let constructed = |storage: &str| {
        ResultCache::new(Some(obj(&[("storage", storage.into())]))).map(|cache| cache.storage())
    };
    let ok = |k: &str| Ok(k.to_owned());
    assert_eq!(kind(Storage::Auto), ok("indexeddb"));
    assert_eq!(kind(Storage::IndexedDb), ok("indexeddb"));
    assert_eq!(kind(Storage::Memory), ok("memory"));

    // Nothing asserted while `indexedDB` is hidden: a failed assertion must not leave it so.
    let restore = hide_indexed_db();
    let hidden = (
        kind(Storage::Auto),
        kind(Storage::IndexedDb),
        constructed("auto"),
        constructed("indexeddb"),
    );
    restore.call0(&JsValue::NULL).unwrap();
    let (auto, indexed_db, js_auto, js_indexed_db) = hidden;
    assert_eq!(auto, ok("memory"));
    let err = indexed_db.expect_err("refused without indexedDB");
    assert_eq!(err.kind, ErrorKind::NotSupported);
    assert_eq!(err.message, NO_INDEXED_DB);
    assert_eq!(js_auto.ok().as_deref(), Some("memory"));
    let Err(err) = js_indexed_db else {
        panic!("refused without indexedDB");
    };
    assert!(!err.is_instance_of::<js_sys::TypeError>());
    assert_eq!(
        Reflect::get(&err, &"name".into()).unwrap(),
        "NotSupportedError"
    );
    assert_eq!(
        Reflect::get(&err, &"message".into()).unwrap(),
        NO_INDEXED_DB
    );

    assert_eq!(kind(Storage::Auto), ok("indexeddb"), "indexedDB is back");
}

#[wasm_bindgen_test]
async fn a_cache_from_the_builder_stores_reads_and_reports() {
    use mcp_result_cache::cache::{CacheRequest, ResultCache as Cache, Storage};
    use mcp_result_cache::core::record::LookupOutcome;
    let events = Rc::new(RefCell::new(Vec::new()));
    let seen = events.clone();
    let cache = Cache::builder()
        .db_name(fresh_db())
        .storage(Storage::IndexedDb)
        .threshold(Some(0))
        .clock(Box::new(|| 42.0))
        .observer(Box::new(move |event| seen.borrow_mut().push(event.clone())))
        .build()
        .expect("IndexedDB is there");
    let payload = rows(3);
    let uri = cache
        .cache_tool_result(CacheRequest {
            payload: &payload,
            conv_id: "c",
            source_tool_name: "timeseries.query",
            threshold: None,
            known_size: None,
            derived_from: None,
        })
        .await
        .unwrap()
        .expect("stored at threshold 0");
    let LookupOutcome::Hit(back) = cache.lookup(&uri, Some("c")).await.unwrap() else {
        panic!("a hit");
    };
    assert_eq!(to_json(&back), to_json(&payload));
    let entries = cache.entries(None).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].added_at, 42.0);
    let kinds: Vec<&str> = events
        .borrow()
        .iter()
        .map(|e| match e {
            mcp_result_cache::cache::CacheEvent::Write { .. } => "write",
            mcp_result_cache::cache::CacheEvent::Hit { .. } => "hit",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["write", "hit"]);
    cache.close();
}

/// A read's last use waits in memory through a write that evicts nothing, and still decides the
/// eviction of the next write (its walk applies it); a write once the use is 30 s old writes it,
/// so another cache over the same database (a page reloaded, another tab) evicts by it too.
#[wasm_bindgen_test]
async fn a_waiting_last_use_decides_a_later_eviction_and_is_written_once_due() {
    let db = fresh_db();
    let on_db = |now: &JsValue, max_entries: u32| {
        ResultCache::new(Some(obj(&[
            ("dbName", JsValue::from_str(&db)),
            ("storage", JsValue::from_str("indexeddb")),
            ("now", now.clone()),
            ("maxEntries", max_entries.into()),
        ])))
        .unwrap()
    };
    let (now, clock) = manual_clock(10.0);
    let cache = on_db(&now, 3);
    let entry = |tag: &str| {
        json(&format!(
            r#"{{"tag":"{tag}","pad":"{}"}}"#,
            "p".repeat(5000)
        ))
    };
    // The stored URIs, listed (a listing is no use of an entry).
    let stored = |cache: &ResultCache| {
        let list = cache.entries(None);
        async move {
            let list: js_sys::Array = wait(list).await.unwrap().into();
            list.iter()
                .map(|e| {
                    Reflect::get(&e, &"uri".into())
                        .unwrap()
                        .as_string()
                        .unwrap()
                })
                .collect::<Vec<_>>()
        }
    };
    // One cache: a read, a write that evicts nothing, then a write that evicts.
    let a = put(&cache, &entry("a"), "w").await.unwrap();
    clock.set(20.0);
    let b = put(&cache, &entry("b"), "w").await.unwrap();
    clock.set(30.0);
    assert!(read(&cache, &a.clone().into(), JsValue::UNDEFINED)
        .await
        .is_object());
    clock.set(40.0);
    let c = put(&cache, &entry("c"), "w").await.unwrap();
    clock.set(50.0);
    let d = put(&cache, &entry("d"), "w").await.unwrap();
    let left = stored(&cache).await;
    assert!(
        !left.contains(&b),
        "b, the least recently used, is evicted: {left:?}"
    );
    assert!(
        left.contains(&a),
        "a, read before the evicting write, is kept: {left:?}"
    );
    // A cache with room reads, and 30 s later writes (evicting nothing, writing the due use); a
    // third cache over the same database, with nothing remembered, evicts by that use.
    let (roomy_now, roomy_clock) = manual_clock(60.0);
    let roomy = on_db(&roomy_now, 10);
    assert!(read(&roomy, &c.clone().into(), JsValue::UNDEFINED)
        .await
        .is_object());
    roomy_clock.set(30_070.0);
    let e = put(&roomy, &entry("e"), "w").await.unwrap();
    let (other_now, _) = manual_clock(30_080.0);
    let other = on_db(&other_now, 3);
    put(&other, &entry("f"), "w").await.unwrap();
    let left = stored(&other).await;
    assert!(!left.contains(&a), "a (used at 30) is evicted: {left:?}");
    assert!(!left.contains(&d), "d (written at 50) is evicted: {left:?}");
    assert!(
        left.contains(&c),
        "c, read at 60 and written so, is kept: {left:?}"
    );
    assert!(left.contains(&e));
    for cache in [cache, roomy, other] {
        cache.close();
    }
}

/// A write's eviction walk applies the uses that waited at its turn, whatever an operation
/// called right after it (a clear of another conversation, an age eviction, which write the
/// waiting uses themselves) does with them before the walk runs; and a listing called before
/// such an operation shows the uses that waited at its own turn.
#[wasm_bindgen_test]
async fn waiting_uses_hold_against_operations_called_after_a_write_or_a_listing() {
    let entry = |tag: &str| {
        json(&format!(
            r#"{{"tag":"{tag}","pad":"{}"}}"#,
            "p".repeat(5000)
        ))
    };
    let uris_of = |list: JsValue| -> Vec<(String, f64)> {
        js_sys::Array::from(&list)
            .iter()
            .map(|e| {
                let uri = Reflect::get(&e, &"uri".into())
                    .unwrap()
                    .as_string()
                    .unwrap();
                let last = Reflect::get(&e, &"lastUsedAt".into())
                    .unwrap()
                    .as_f64()
                    .unwrap();
                (uri, last)
            })
            .collect()
    };
    for then in ["clear", "age"] {
        let (now, clock) = manual_clock(10.0);
        let cache = idb_cache(&[("now", now), ("maxEntries", 3.into())]);
        let a = put(&cache, &entry("a"), "w").await.unwrap();
        clock.set(20.0);
        let b = put(&cache, &entry("b"), "w").await.unwrap();
        clock.set(30.0);
        put(&cache, &entry("c"), "w").await.unwrap();
        clock.set(40.0);
        assert!(read(&cache, &a.clone().into(), JsValue::UNDEFINED)
            .await
            .is_object());
        clock.set(50.0);
        let after = || match then {
            "clear" => cache.clear_conversation("someone-else".into()),
            _ => cache.evict_older_than(obj(&[("maxAgeMs", 1e9.into())])),
        };
        // Called together: the write's turn comes first, the other operation's transaction next.
        let write =
            cache.cache_tool_result(obj(&[("payload", entry("d")), ("convId", "w".into())]));
        let other = after();
        wait(write).await.unwrap();
        wait(other).await.unwrap();
        let left = uris_of(wait(cache.entries(None)).await.unwrap());
        let has = |uri: &String| left.iter().any(|(u, _)| u == uri);
        assert!(
            has(&a),
            "{then}: a, read before the write, is kept: {left:?}"
        );
        assert!(
            !has(&b),
            "{then}: b, the least recently used, is evicted: {left:?}"
        );
        // A listing, then an operation that writes the waiting uses: the listing shows them.
        clock.set(60.0);
        assert!(read(&cache, &a.clone().into(), JsValue::UNDEFINED)
            .await
            .is_object());
        let listing = cache.entries(None);
        let other = after();
        let listed = uris_of(wait(listing).await.unwrap());
        wait(other).await.unwrap();
        let last = listed.iter().find(|(u, _)| *u == a).map(|(_, l)| *l);
        assert_eq!(
            last,
            Some(60.0),
            "{then}: the listing shows a's waiting use"
        );
        cache.close();
    }
}

#[wasm_bindgen_test]
async fn least_recently_used_entries_are_evicted_first_and_hits_count_as_use() {
    let (now, clock) = manual_clock(1.0);
    let cache = idb_cache(&[("now", now), ("maxEntries", 3.into())]);
    let mut uris = Vec::new();
    for (i, tag) in ["a", "b", "c"].iter().enumerate() {
        clock.set(10.0 * (i as f64 + 1.0));
        uris.push(
            put(
                &cache,
                &json(&format!(
                    r#"{{"tag":"{tag}","pad":"{}"}}"#,
                    "p".repeat(5000)
                )),
                "lru",
            )
            .await
            .unwrap(),
        );
    }
    clock.set(40.0);
    assert!(
        !read(&cache, &JsValue::from_str(&uris[0]), JsValue::UNDEFINED)
            .await
            .is_null(),
        "touch a"
    );
    // A read-only stats() in between must not lose that use.
    wait(cache.stats()).await.unwrap();
    clock.set(50.0);
    let d = put(
        &cache,
        &json(&format!(r#"{{"tag":"d","pad":"{}"}}"#, "p".repeat(5000))),
        "lru",
    )
    .await
    .unwrap();
    let alive = |uri: &String| {
        let uri = JsValue::from_str(uri);
        let cache = &cache;
        async move { !read(cache, &uri, JsValue::UNDEFINED).await.is_null() }
    };
    assert!(alive(&uris[0]).await, "a was used recently: kept");
    assert!(
        !alive(&uris[1]).await,
        "b is the least recently used: evicted"
    );
    assert!(alive(&uris[2]).await);
    assert!(alive(&d).await);
    let stats = wait(cache.stats()).await.unwrap();
    assert_eq!(
        Reflect::get(&stats, &"entries".into()).unwrap().as_f64(),
        Some(3.0)
    );
    assert_eq!(
        Reflect::get(&stats, &"conversations".into())
            .unwrap()
            .as_f64(),
        Some(1.0)
    );
    assert!(
        Reflect::get(&stats, &"bytes".into())
            .unwrap()
            .as_f64()
            .unwrap()
            > 15_000.0
    );
}

#[wasm_bindgen_test]
async fn entries_above_max_entry_bytes_are_skipped_with_an_event() {
    let kinds: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = kinds.clone();
    let observer = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        log.borrow_mut().push(
            Reflect::get(&event, &"kind".into())
                .unwrap()
                .as_string()
                .unwrap(),
        );
    });
    let cache = idb_cache(&[
        ("maxEntryBytes", 10_000.into()),
        ("onEvent", observer.as_ref().clone()),
    ]);
    assert!(put(&cache, &rows(100), "c").await.is_some());
    assert_eq!(put(&cache, &rows(1000), "c").await, None);
    assert_eq!(kinds.borrow().last().map(String::as_str), Some("skip"));
}
