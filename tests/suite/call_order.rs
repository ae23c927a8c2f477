//! Call order is the contract: operations take effect in the order they were called, across
//! write batches and across two caches on one database. Every check runs over the memory store
//! and IndexedDB (on a page, in a dedicated worker, and in Node over fake-indexeddb), and reads
//! the database itself: records, usage rows and totals always agree.

use std::collections::{BTreeMap, BTreeSet};

use js_sys::{Array, Promise, Reflect};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

const KINDS: [&str; 2] = ["memory", "indexeddb"];

#[wasm_bindgen(inline_js = r#"
export function dumpDatabase(name) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['results', 'usage', 'meta']);
      const out = { records: [], usage: [], meta: [] };
      // Records as (uri, convId) pairs from the convId index: no payload is read.
      const cursor = tx.objectStore('results').index('convId').openKeyCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) return;
        out.records.push([c.primaryKey, c.key]);
        c.continue();
      };
      const added = tx.objectStore('results').index('addedAt').getAllKeys();
      added.onsuccess = () => { out.addedIndex = added.result; };
      const usage = tx.objectStore('usage').getAll();
      usage.onsuccess = () => { out.usage = usage.result; };
      const keys = tx.objectStore('meta').getAllKeys();
      const values = tx.objectStore('meta').getAll();
      values.onsuccess = () => { out.meta = keys.result.map((k, i) => [k, values.result[i]]); };
      tx.oncomplete = () => { db.close(); resolve(out); };
      tx.onerror = () => { db.close(); reject(tx.error); };
    };
  });
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = dumpDatabase)]
    fn dump_database(name: &str) -> Promise;
}

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn num(v: &JsValue, k: &str) -> f64 {
    field(v, k).as_f64().unwrap_or(f64::NAN)
}

fn cache_on(kind: &str, db: &str, now: &JsValue) -> ResultCache {
    ResultCache::new(Some(obj(&[
        ("dbName", JsValue::from_str(db)),
        ("storage", JsValue::from_str(kind)),
        ("threshold", 1.into()),
        ("now", now.clone()),
    ])))
    .unwrap()
}

/// A payload of about `bytes` bytes of JSON, and its exact JSON size (the budget's rule).
fn payload(tag: usize, bytes: usize) -> (JsValue, f64) {
    let value = obj(&[
        ("tag", (tag as f64).into()),
        (
            "pad",
            JsValue::from_str(&"x".repeat(bytes.saturating_sub(30))),
        ),
    ]);
    let size = to_json(&value).len() as f64;
    (value, size)
}

fn write(cache: &ResultCache, payload: &JsValue, conv: &str, tool: &str) -> Promise {
    cache.cache_tool_result(obj(&[
        ("payload", payload.clone()),
        ("convId", JsValue::from_str(conv)),
        ("sourceToolName", JsValue::from_str(tool)),
    ]))
}

async fn all(promises: Vec<Promise>) -> Vec<JsValue> {
    let array: Array = promises.into_iter().map(JsValue::from).collect();
    let settled: Array = wait(Promise::all(&array)).await.unwrap().unchecked_into();
    settled.iter().collect()
}

/// The stored entries as `uri → (convId, size, stale)`, from `entries()`.
async fn listed(cache: &ResultCache) -> BTreeMap<String, (String, f64, bool)> {
    let list: Array = wait(cache.entries(None)).await.unwrap().unchecked_into();
    list.iter()
        .map(|e| {
            (
                field(&e, "uri").as_string().unwrap(),
                (
                    field(&e, "convId").as_string().unwrap(),
                    num(&e, "sizeBytes"),
                    !field(&e, "staleCause").is_null(),
                ),
            )
        })
        .collect()
}

/// Checks the database itself against `expected` (uri → convId, size): one record and one
/// usage row per entry and nothing else, the `convId` and `addedAt` indexes, and the totals,
/// the only row of `meta`.
async fn assert_database(db: &str, expected: &BTreeMap<String, (String, f64)>, what: &str) {
    let dump = wait(dump_database(db)).await.unwrap();
    let records: BTreeMap<String, String> = Array::from(&field(&dump, "records"))
        .iter()
        .map(|pair| {
            let pair = Array::from(&pair);
            (
                pair.get(0).as_string().unwrap(),
                pair.get(1).as_string().unwrap(),
            )
        })
        .collect();
    let want: BTreeMap<String, String> = expected
        .iter()
        .map(|(uri, (conv, _))| (uri.clone(), conv.clone()))
        .collect();
    assert_eq!(records, want, "{what}: records (convId index)");
    assert_eq!(
        Array::from(&field(&dump, "addedIndex")).length() as usize,
        expected.len(),
        "{what}: addedAt index"
    );
    let usage: BTreeMap<String, (String, f64)> = Array::from(&field(&dump, "usage"))
        .iter()
        .map(|row| {
            (
                field(&row, "uri").as_string().unwrap(),
                (
                    field(&row, "convId").as_string().unwrap_or_default(),
                    num(&row, "sizeBytes"),
                ),
            )
        })
        .collect();
    assert_eq!(&usage, expected, "{what}: usage rows");
    let total_bytes: f64 = expected.values().map(|(_, s)| s).sum();
    let mut seen_totals = false;
    for pair in Array::from(&field(&dump, "meta")).iter() {
        let pair = Array::from(&pair);
        let (key, value) = (pair.get(0), pair.get(1));
        if key.as_string().as_deref() == Some("totals") {
            seen_totals = true;
            assert_eq!(
                (num(&value, "bytes"), num(&value, "entries")),
                (total_bytes, expected.len() as f64),
                "{what}: store-wide totals"
            );
            continue;
        }
        panic!("{what}: meta holds a row other than the totals, under {key:?}");
    }
    assert!(
        seen_totals || expected.is_empty(),
        "{what}: no totals row while entries are stored"
    );
}

#[wasm_bindgen_test]
async fn a_clear_wins_over_the_writes_called_before_it_and_writes_after_it_survive() {
    for kind in KINDS {
        let db = fresh_db();
        let (now, _) = manual_clock(1_000.0);
        let cache = cache_on(kind, &db, &now);
        let (body, size) = payload(0, 4096);
        let before: Vec<Promise> = (0..1000)
            .map(|_| write(&cache, &body, "L", "tool.a"))
            .collect();
        let clear = cache.clear_conversation(JsValue::from_str("L"));
        let after: Vec<Promise> = (0..1000)
            .map(|_| write(&cache, &body, "L", "tool.a"))
            .collect();
        let before = all(before).await;
        wait(clear).await.unwrap();
        let after = all(after).await;
        let survivors: BTreeSet<String> = listed(&cache).await.into_keys().collect();
        let issued_after: BTreeSet<String> = after.iter().map(|u| u.as_string().unwrap()).collect();
        assert_eq!(issued_after.len(), 1000, "{kind}: every later write stored");
        assert_eq!(
            survivors, issued_after,
            "{kind}: the survivors are exactly the writes called after the clear"
        );
        for uri in before.iter().take(50) {
            let gone = read(&cache, uri, JsValue::UNDEFINED).await;
            assert!(
                gone.is_null(),
                "{kind}: a write called before the clear is gone"
            );
        }
        let stats = wait(cache.stats()).await.unwrap();
        assert_eq!(
            (num(&stats, "entries"), num(&stats, "bytes")),
            (1000.0, 1000.0 * size),
            "{kind}: stats agree with what is stored"
        );
        if kind == "indexeddb" {
            let expected = survivors
                .iter()
                .map(|u| (u.clone(), ("L".to_owned(), size)))
                .collect();
            assert_database(&db, &expected, "after the clear").await;
        }
        cache.close();
    }
}

#[wasm_bindgen_test]
async fn clearing_after_reads_and_a_substitution_leaves_nothing_of_the_conversations() {
    for kind in KINDS {
        let db = fresh_db();
        let (now, clock) = manual_clock(1_000.0);
        let cache = cache_on(kind, &db, &now);
        let mut uris: BTreeMap<&str, Vec<JsValue>> = BTreeMap::new();
        for conv in ["L", "M"] {
            let writes = (0..150)
                .map(|i| write(&cache, &payload(i, 600).0, conv, "tool.a"))
                .collect();
            uris.insert(conv, all(writes).await);
        }
        clock.set(2_000.0);
        // 1 000 reads remember last uses; one substitution resolves 200 references at once.
        let reads = (0..1000)
            .map(|i| {
                let conv = if i % 2 == 0 { "L" } else { "M" };
                cache.read_cached_payload(uris[conv][i % 150].clone(), None)
            })
            .collect();
        assert!(all(reads).await.iter().all(JsValue::is_object));
        let refs = js_sys::Object::new();
        for (i, uri) in uris["L"]
            .iter()
            .take(100)
            .chain(uris["M"].iter().take(100))
            .enumerate()
        {
            Reflect::set(&refs, &JsValue::from_str(&format!("a{i}_uri")), uri).unwrap();
        }
        // Called together with the clears: the substitution comes first, and sees everything.
        let substituted = cache.substitute_cache_uris(refs.into(), None);
        let clears = vec![
            cache.clear_conversation(JsValue::from_str("L")),
            cache.clear_conversation(JsValue::from_str("M")),
        ];
        let substituted = wait(substituted).await.unwrap();
        assert_eq!(
            field(&substituted, "ok"),
            JsValue::TRUE,
            "{kind}: substitution saw all 200"
        );
        all(clears).await;
        assert!(listed(&cache).await.is_empty(), "{kind}: no entry listed");
        let stats = wait(cache.stats()).await.unwrap();
        assert_eq!(num(&stats, "entries"), 0.0, "{kind}: stats count none");
        // A write after the clears flushes the remembered last uses: none may come back.
        clock.set(3_000.0);
        let (body, size) = payload(7, 600);
        let kept = wait(write(&cache, &body, "N", "tool.a")).await.unwrap();
        if kind == "indexeddb" {
            let expected = [(kept.as_string().unwrap(), ("N".to_owned(), size))].into();
            assert_database(&db, &expected, "after clearing L and M").await;
        }
        cache.close();
    }
}

#[wasm_bindgen_test]
async fn two_caches_on_one_database_share_call_order() {
    let db = fresh_db();
    let (now, _) = manual_clock(1_000.0);
    let (a, b) = (
        cache_on("indexeddb", &db, &now),
        cache_on("indexeddb", &db, &now),
    );
    let (body, size) = payload(1, 1000);
    let before: Vec<Promise> = (0..100)
        .map(|i| write(if i % 2 == 0 { &a } else { &b }, &body, "L", "tool.a"))
        .collect();
    let clear = b.clear_conversation(JsValue::from_str("L"));
    let after: Vec<Promise> = (0..100).map(|_| write(&a, &body, "L", "tool.a")).collect();
    all(before).await;
    wait(clear).await.unwrap();
    let after = all(after).await;
    let survivors: BTreeSet<String> = listed(&b).await.into_keys().collect();
    let expected: BTreeSet<String> = after.iter().map(|u| u.as_string().unwrap()).collect();
    assert_eq!(
        survivors, expected,
        "cache b's clear sees cache a's earlier writes, not its later ones"
    );
    // A read through one cache sees a write called before it through the other.
    let uri = write(&a, &body, "M", "tool.a");
    let first = after[0].clone();
    let seen = b.read_cached_payload(first, None);
    let uri = wait(uri).await.unwrap();
    assert!(wait(seen).await.unwrap().is_object());
    assert!(read(&b, &uri, JsValue::UNDEFINED).await.is_object());
    let mut all_expected: BTreeMap<String, (String, f64)> = expected
        .into_iter()
        .map(|u| (u, ("L".to_owned(), size)))
        .collect();
    all_expected.insert(uri.as_string().unwrap(), ("M".to_owned(), size));
    assert_database(&db, &all_expected, "two caches").await;
    a.close();
    b.close();
}

// ---------------------------------------------------------------------------------------------
// The model: random interleavings compared with a plain in-memory model after every step.

/// Cases per storage kind in `npm test`; `npm run fuzz` builds with `CALL_ORDER_CASES` set.
const CASES: u64 = match option_env!("CALL_ORDER_CASES") {
    Some(n) => parse_u64(n),
    None => 6,
};

const fn parse_u64(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while i < bytes.len() {
        n = n * 10 + (bytes[i] - b'0') as u64;
        i += 1;
    }
    n
}

/// xorshift64*: deterministic cases from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const CONVS: [&str; 3] = ["L", "M", "N"];
const TOOLS: [&str; 2] = ["tool.a", "tool.b"];

#[derive(Debug, Clone)]
enum Op {
    Write {
        cache: usize,
        conv: &'static str,
        tool: &'static str,
        bytes: usize,
    },
    Read {
        cache: usize,
        uri: String,
    },
    Substitute {
        cache: usize,
        uris: Vec<String>,
    },
    Clear {
        cache: usize,
        conv: &'static str,
    },
    EvictOlder {
        cache: usize,
        age: f64,
    },
    Invalidate {
        cache: usize,
        pattern: &'static str,
    },
}

#[derive(Debug, Clone)]
struct Entry {
    conv: &'static str,
    tool: &'static str,
    size: f64,
    added: f64,
    stale: bool,
}

/// One random case: `steps` steps of up to 10 operations each, called without awaiting in
/// between; a reload (new caches over the same database) may come between steps.
async fn run_case(kind: &str, seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let db = fresh_db();
    let (now, clock) = manual_clock(0.0);
    let open = || {
        let a = cache_on(kind, &db, &now);
        // Memory caches share nothing: the second cache is the first one again.
        let b = if kind == "memory" {
            None
        } else {
            Some(cache_on(kind, &db, &now))
        };
        (a, b)
    };
    let (mut a, mut b) = open();
    let mut model: BTreeMap<String, Entry> = BTreeMap::new();
    let mut gone: Vec<String> = Vec::new();
    let mut log: Vec<String> = Vec::new();
    for step in 0..8 {
        let t = 1_000.0 * (step + 1) as f64;
        clock.set(t);
        if kind == "indexeddb" && step > 0 && rng.below(4) == 0 {
            a.close();
            if let Some(b) = &b {
                b.close();
            }
            (a, b) = open();
            log.push("reload".to_owned());
        }
        let known: Vec<String> = model.keys().cloned().chain(gone.iter().cloned()).collect();
        let pick = |rng: &mut Rng| known[rng.below(known.len())].clone();
        let mut ops = Vec::new();
        for _ in 0..1 + rng.below(10) {
            let cache = rng.below(2);
            let op = match rng.below(10) {
                0..=3 => Op::Write {
                    cache,
                    conv: CONVS[rng.below(3)],
                    tool: TOOLS[rng.below(2)],
                    bytes: 100 + rng.below(3000),
                },
                4 | 5 if !known.is_empty() => Op::Read {
                    cache,
                    uri: pick(&mut rng),
                },
                6 if !known.is_empty() => Op::Substitute {
                    cache,
                    uris: (0..1 + rng.below(4)).map(|_| pick(&mut rng)).collect(),
                },
                7 => Op::Clear {
                    cache,
                    conv: CONVS[rng.below(3)],
                },
                8 => Op::EvictOlder {
                    cache,
                    age: [500.0, 1_500.0, 3_500.0][rng.below(3)],
                },
                _ => Op::Invalidate {
                    cache,
                    pattern: ["tool.a", "tool.*"][rng.below(2)],
                },
            };
            ops.push(op);
        }
        log.push(format!("step {step} at {t}: {ops:?}"));
        let context = || format!("{kind} seed {seed}:\n{}", log.join("\n"));
        // Call every operation, then await them all.
        let mut sizes = Vec::new();
        let promises: Vec<Promise> = ops
            .iter()
            .map(|op| {
                let on = |i: usize| if i == 1 { b.as_ref().unwrap_or(&a) } else { &a };
                match op {
                    Op::Write {
                        cache,
                        conv,
                        tool,
                        bytes,
                    } => {
                        let (body, size) = payload(*bytes, *bytes);
                        sizes.push(size);
                        write(on(*cache), &body, conv, tool)
                    }
                    Op::Read { cache, uri } => on(*cache).lookup(JsValue::from_str(uri), None),
                    Op::Substitute { cache, uris } => {
                        let args = js_sys::Object::new();
                        for (i, uri) in uris.iter().enumerate() {
                            Reflect::set(
                                &args,
                                &JsValue::from_str(&format!("a{i}_uri")),
                                &JsValue::from_str(uri),
                            )
                            .unwrap();
                        }
                        on(*cache).substitute_cache_uris(args.into(), None)
                    }
                    Op::Clear { cache, conv } => {
                        on(*cache).clear_conversation(JsValue::from_str(conv))
                    }
                    Op::EvictOlder { cache, age } => {
                        on(*cache).evict_older_than(obj(&[("maxAgeMs", (*age).into())]))
                    }
                    Op::Invalidate { cache, pattern } => on(*cache).invalidate(
                        Array::of1(&JsValue::from_str(pattern)).into(),
                        Some(obj(&[("cause", JsValue::from_str("test"))])),
                    ),
                }
            })
            .collect();
        let outcomes = all(promises).await;
        // Apply the operations to the model in call order; each read must have seen exactly
        // the model at its place in that order.
        let mut sizes = sizes.into_iter();
        for (op, outcome) in ops.iter().zip(&outcomes) {
            match op {
                Op::Write { conv, tool, .. } => {
                    let uri = outcome
                        .as_string()
                        .unwrap_or_else(|| panic!("write not stored\n{}", context()));
                    let size = sizes.next().unwrap();
                    model.insert(
                        uri,
                        Entry {
                            conv,
                            tool,
                            size,
                            added: t,
                            stale: false,
                        },
                    );
                }
                Op::Read { uri, .. } => {
                    let status = field(outcome, "status").as_string().unwrap();
                    let want = match model.get(uri) {
                        None => "miss",
                        Some(e) if e.stale => "stale",
                        Some(_) => "hit",
                    };
                    assert_eq!(status, want, "read of {uri}\n{}", context());
                }
                Op::Substitute { uris, .. } => {
                    let ok = uris.iter().all(|u| model.get(u).is_some_and(|e| !e.stale));
                    assert_eq!(
                        field(outcome, "ok").as_bool(),
                        Some(ok),
                        "substitution of {uris:?}\n{}",
                        context()
                    );
                }
                Op::Clear { conv, .. } => model.retain(|uri, e| {
                    let keep = e.conv != *conv;
                    if !keep {
                        gone.push(uri.clone());
                    }
                    keep
                }),
                Op::EvictOlder { age, .. } => model.retain(|uri, e| {
                    let keep = e.added >= t - age;
                    if !keep {
                        gone.push(uri.clone());
                    }
                    keep
                }),
                Op::Invalidate { pattern, .. } => {
                    for e in model.values_mut() {
                        if *pattern == "tool.*" || e.tool == *pattern {
                            e.stale = true;
                        }
                    }
                }
            }
        }
        // The settled store equals the model, seen through both caches and in the database.
        let want: BTreeMap<String, (String, f64, bool)> = model
            .iter()
            .map(|(u, e)| (u.clone(), (e.conv.to_owned(), e.size, e.stale)))
            .collect();
        for cache in [Some(&a), b.as_ref()].into_iter().flatten() {
            assert_eq!(listed(cache).await, want, "entries()\n{}", context());
            let stats = wait(cache.stats()).await.unwrap();
            let convs: BTreeSet<&str> = model.values().map(|e| e.conv).collect();
            assert_eq!(
                (
                    num(&stats, "entries"),
                    num(&stats, "bytes"),
                    num(&stats, "conversations")
                ),
                (
                    model.len() as f64,
                    model.values().map(|e| e.size).sum(),
                    convs.len() as f64
                ),
                "stats()\n{}",
                context()
            );
        }
        if kind == "indexeddb" {
            let expected = model
                .iter()
                .map(|(u, e)| (u.clone(), (e.conv.to_owned(), e.size)))
                .collect();
            assert_database(&db, &expected, &context()).await;
        }
    }
    a.close();
    if let Some(b) = b {
        b.close();
    }
}

#[wasm_bindgen_test]
async fn random_interleavings_agree_with_the_model() {
    for kind in KINDS {
        for seed in 1..=CASES {
            run_case(kind, seed).await;
        }
    }
}

#[wasm_bindgen_test]
async fn after_tool_call_takes_its_place_when_called() {
    for kind in KINDS {
        let (now, _) = manual_clock(1_000.0);
        let cache = cache_on(kind, &fresh_db(), &now);
        let rows = to_json(&rows(50));
        let result = json(&format!(
            r#"{{"content":[{{"type":"text","text":{}}},{{"type":"text","text":"<cache_invalidation cause=\"billing.refund\" domains=\"billing.get_invoice\" />"}}]}}"#,
            to_json(&JsValue::from_str(&rows))
        ));
        let shown = cache.after_tool_call(
            JsValue::from_str("billing.refund"),
            result,
            Some(obj(&[("convId", JsValue::from_str("L"))])),
        );
        let clear = cache.clear_conversation(JsValue::from_str("L"));
        let later = write(&cache, &payload(1, 500).0, "L", "tool.a");
        wait(shown).await.unwrap();
        wait(clear).await.unwrap();
        let later = wait(later).await.unwrap().as_string().unwrap();
        let left: Vec<String> = listed(&cache).await.into_keys().collect();
        assert_eq!(
            left,
            vec![later],
            "{kind}: only the write called after the clear is left"
        );
        cache.close();
    }
}

/// A cache over `db` of kind `kind` keeping at most `max_entries`, with `legacyChatboxCore` off.
fn small_cache(kind: &str, db: &str, now: &JsValue, max_entries: u32) -> ResultCache {
    ResultCache::new(Some(obj(&[
        ("dbName", JsValue::from_str(db)),
        ("storage", JsValue::from_str(kind)),
        ("threshold", 1.into()),
        ("now", now.clone()),
        ("maxEntries", max_entries.into()),
        ("legacyChatboxCore", false.into()),
    ])))
    .unwrap()
}

#[wasm_bindgen_test]
async fn a_read_called_after_a_write_never_protects_an_entry_from_its_eviction() {
    // The write's transaction is made late (behind a database that reopens after `close`), but
    // it evicts by the uses called before it: the read called after it is not one of them.
    for kind in KINDS {
        let (now, clock) = manual_clock(1_000.0);
        let cache = small_cache(kind, &fresh_db(), &now, 2);
        let x = wait(write(&cache, &payload(1, 200).0, "c", "tool.a"))
            .await
            .unwrap();
        clock.set(1_001.0);
        let y = wait(write(&cache, &payload(2, 200).0, "c", "tool.a"))
            .await
            .unwrap();
        cache.close();
        clock.set(1_002.0);
        let z = write(&cache, &payload(3, 200).0, "c", "tool.a");
        clock.set(1_003.0);
        let read = cache.lookup(x.clone(), None);
        let z = wait(z).await.unwrap();
        assert_eq!(
            field(&wait(read).await.unwrap(), "status")
                .as_string()
                .as_deref(),
            Some("miss"),
            "{kind}: the write called first evicted the least recently used entry"
        );
        let left: BTreeSet<String> = listed(&cache).await.into_keys().collect();
        let expected: BTreeSet<String> = [y, z].iter().map(|u| u.as_string().unwrap()).collect();
        assert_eq!(left, expected, "{kind}: the two later writes are left");
        cache.close();
    }
}

#[wasm_bindgen_test]
async fn a_listing_shows_the_uses_called_before_it_and_no_later_one() {
    for kind in KINDS {
        let (now, clock) = manual_clock(1_000.0);
        let cache = small_cache(kind, &fresh_db(), &now, 10);
        let x = wait(write(&cache, &payload(1, 200).0, "c", "tool.a"))
            .await
            .unwrap();
        clock.set(1_001.0);
        let before = cache.lookup(x.clone(), None);
        // Both taken as called: the read's use (1 001) before the listing, the later one (1 002)
        // after it.
        wait(Promise::resolve(&JsValue::NULL)).await.unwrap();
        let list = cache.entries(None);
        wait(Promise::resolve(&JsValue::NULL)).await.unwrap();
        clock.set(1_002.0);
        let after = cache.lookup(x, None);
        let list: Array = wait(list).await.unwrap().unchecked_into();
        wait(before).await.unwrap();
        wait(after).await.unwrap();
        assert_eq!(
            num(&list.get(0), "lastUsedAt"),
            1_001.0,
            "{kind}: the listing shows the read called before it, not the one called after"
        );
        cache.close();
    }
}

#[wasm_bindgen_test]
async fn a_derived_read_reads_its_source_where_it_was_called() {
    // A read of a derived entry reads its source too, at the read's place in call order: an
    // operation called after it (a write whose eviction walk takes the least recently used
    // entry, a clear) neither removes the source first nor misses the read's use of it.
    for kind in KINDS {
        for clear in [false, true] {
            let (now, clock) = manual_clock(1_000.0);
            let cache = small_cache(kind, &fresh_db(), &now, 3);
            let source = wait(write(&cache, &payload(1, 200).0, "c", "tool.a"))
                .await
                .unwrap();
            clock.set(1_001.0);
            let derived = wait(cache.cache_tool_result(obj(&[
                ("payload", payload(2, 200).0),
                ("convId", JsValue::from_str("c")),
                ("sourceToolName", JsValue::from_str("tool.read")),
                ("derivedFrom", source.clone()),
            ])))
            .await
            .unwrap();
            clock.set(1_002.0);
            let other = wait(write(&cache, &payload(3, 200).0, "d", "tool.a"))
                .await
                .unwrap();
            clock.set(1_010.0);
            let read = cache.lookup(derived.clone(), None);
            clock.set(1_011.0);
            let after = match clear {
                true => cache.clear_conversation(JsValue::from_str("c")),
                false => write(&cache, &payload(4, 200).0, "d", "tool.a"),
            };
            let read = wait(read).await.unwrap();
            wait(after).await.unwrap();
            assert_eq!(
                field(&read, "status").as_string().as_deref(),
                Some("hit"),
                "{kind}, then {}: the read called first finds its source",
                if clear { "a clear" } else { "a write" }
            );
            if !clear {
                let left: BTreeSet<String> = listed(&cache).await.into_keys().collect();
                assert!(
                    left.contains(&source.as_string().unwrap())
                        && !left.contains(&other.as_string().unwrap()),
                    "{kind}: the write evicted the least recently used entry, not the source the read used"
                );
            }
            cache.close();
        }
    }
}
