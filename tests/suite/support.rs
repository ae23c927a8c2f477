//! Helpers: option objects, payload builders, promise awaiting, a controllable clock.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect, JSON};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A database name no other test uses.
pub fn fresh_db() -> String {
    format!(
        "test-{}",
        mcp_result_cache::mint_cache_uri(JsValue::from_str("db"))
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
    )
}

/// `{ k: v, ... }`
pub fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    o.into()
}

/// A JS value from JSON text.
pub fn json(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

/// `JSON.stringify(v)`.
pub fn to_json(v: &JsValue) -> String {
    JSON::stringify(v).unwrap().into()
}

/// `n` time-series rows: `{"rows":[{"t":..,"value":..,"label":..}, ...]}`.
pub fn rows(n: usize) -> JsValue {
    let rows: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"t":"2026-01-01T00:{:02}:00Z","value":{},"label":"row {i}"}}"#,
                i % 60,
                i * 7
            )
        })
        .collect();
    json(&format!(r#"{{"ok":true,"rows":[{}]}}"#, rows.join(",")))
}

/// Awaits a promise, returning its value or rejection.
pub async fn wait(p: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(p).await
}

/// A cache on a fresh IndexedDB database with extra options.
pub fn idb_cache(extra: &[(&str, JsValue)]) -> ResultCache {
    let mut pairs = vec![
        ("dbName", JsValue::from_str(&fresh_db())),
        ("storage", JsValue::from_str("indexeddb")),
    ];
    pairs.extend(extra.iter().cloned());
    ResultCache::new(Some(obj(&pairs))).unwrap()
}

/// `cacheToolResult({ payload, convId, sourceToolName })` resolved to `Option<String>`.
pub async fn put(cache: &ResultCache, payload: &JsValue, conv: &str) -> Option<String> {
    let input = obj(&[
        ("payload", payload.clone()),
        ("convId", JsValue::from_str(conv)),
        ("sourceToolName", JsValue::from_str("timeseries.query")),
    ]);
    let v = wait(cache.cache_tool_result(input)).await.unwrap();
    assert!(
        v.is_null() || v.is_string(),
        "cacheToolResult resolves string | null"
    );
    v.as_string()
}

/// `readCachedPayload(uri, options)`.
pub async fn read(cache: &ResultCache, uri: &JsValue, options: JsValue) -> JsValue {
    wait(cache.read_cached_payload(uri.clone(), Some(options)))
        .await
        .unwrap()
}

/// A clock the test moves: returns the JS function and the cell it reads.
pub fn manual_clock(start: f64) -> (JsValue, Rc<Cell<f64>>) {
    let cell = Rc::new(Cell::new(start));
    let reader = cell.clone();
    let f = Closure::<dyn Fn() -> f64>::new(move || reader.get());
    let func: Function = f.into_js_value().unchecked_into();
    (func.into(), cell)
}
