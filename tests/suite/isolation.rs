//! Conversation isolation, the result cap and payload refusal against real IndexedDB.

use js_sys::{ArrayBuffer, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

#[wasm_bindgen_test]
async fn ids_that_sanitize_alike_never_share_entries() {
    let cache = idb_cache(&[]);
    let long = "tenant-7c1f0b8e-0d4c-4c39-9a4e-4b7f1d2a9e11/user-8/conversation-000";
    let pairs = [
        ("会話".to_owned(), "对话".to_owned()),
        ("🙂 chat".to_owned(), "🙃 chat".to_owned()),
        (format!("{long}1"), format!("{long}2")),
    ];
    for (a, b) in pairs {
        let uri_a = put(&cache, &rows(300), &a).await.unwrap();
        let uri_b = put(&cache, &rows(301), &b).await.unwrap();
        let (seg_a, seg_b) = (
            uri_a.rsplit_once('/').unwrap().0,
            uri_b.rsplit_once('/').unwrap().0,
        );
        assert_ne!(seg_a, seg_b, "{a} / {b}");
        let cross = read(
            &cache,
            &uri_a.clone().into(),
            obj(&[("convId", b.as_str().into())]),
        )
        .await;
        assert!(cross.is_null(), "{b} read {a}'s entry");
        let own = read(
            &cache,
            &uri_a.clone().into(),
            obj(&[("convId", a.as_str().into())]),
        )
        .await;
        assert!(own.is_object());
        wait(cache.clear_conversation(a.as_str().into()))
            .await
            .unwrap();
        let gone = read(&cache, &uri_a.into(), JsValue::UNDEFINED).await;
        assert!(gone.is_null());
        let kept = read(&cache, &uri_b.into(), obj(&[("convId", b.as_str().into())])).await;
        assert!(kept.is_object(), "clearing {a} deleted {b}'s entry");
    }
}

#[wasm_bindgen_test]
async fn a_result_refused_by_max_entry_bytes_is_still_capped() {
    let cache = idb_cache(&[("maxEntryBytes", 50_000.into())]);
    let big = rows(3000);
    let visible = wait(cache.after_tool_call(
        "timeseries.query".into(),
        big.clone(),
        Some(obj(&[("convId", "c".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(field(&visible, "_truncated"), JsValue::TRUE);
    assert!(field(&visible, "_cache_uri").is_undefined());
    assert!(to_json(&visible).len() <= 20_000);
    let hint = field(&visible, "_truncation_hint").as_string().unwrap();
    assert!(hint.contains("not kept"), "{hint}");
}

#[wasm_bindgen_test]
async fn binary_payloads_are_refused_so_the_budget_counts_what_is_stored() {
    let cache = idb_cache(&[("maxBytes", (1024.0 * 1024.0).into())]);
    let payload = obj(&[
        ("pad", JsValue::from_str(&"x".repeat(5000))),
        ("blob", ArrayBuffer::new(8 * 1024 * 1024).into()),
    ]);
    let stored = put(&cache, &payload, "c").await;
    assert_eq!(
        stored, None,
        "an ArrayBuffer would be stored whole but counted as {{}}"
    );
    let stats = wait(cache.stats()).await.unwrap();
    assert_eq!(field(&stats, "entries").as_f64(), Some(0.0));
}
