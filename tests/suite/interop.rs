//! What a user switching from chatbox-core or running released MCP Fusion servers relies on,
//! against real IndexedDB: every stale-notification scheme, and a cap that never depends on
//! caching.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

#[wasm_bindgen_test]
async fn every_released_stale_scheme_marks_entries_stale() {
    for scheme in ["mcpfusion://stale/", "fusion://stale/", "vurb://stale/"] {
        let cache = idb_cache(&[]);
        let uri = put(&cache, &rows(100), "c").await.unwrap();
        let message = obj(&[
            ("method", "notifications/resources/updated".into()),
            (
                "params",
                obj(&[("uri", JsValue::from_str(&format!("{scheme}timeseries.*")))]),
            ),
        ]);
        let count = wait(cache.handle_notification(message, None))
            .await
            .unwrap();
        assert_eq!(count.as_f64(), Some(1.0), "{scheme}");
        let found = wait(cache.lookup(uri.into(), None)).await.unwrap();
        assert_eq!(field(&found, "status"), "stale", "{scheme}");
    }
    let cache = idb_cache(&[]);
    put(&cache, &rows(100), "c").await.unwrap();
    let other = obj(&[
        ("method", "notifications/resources/updated".into()),
        (
            "params",
            obj(&[("uri", "https://stale/timeseries.*".into())]),
        ),
    ]);
    let count = wait(cache.handle_notification(other, None)).await.unwrap();
    assert_eq!(count.as_f64(), Some(0.0), "other schemes change nothing");
}

async fn after(
    cache: &mcp_result_cache::JsResultCache,
    result: JsValue,
    extra: &[(&str, JsValue)],
) -> JsValue {
    let mut options = vec![("convId", JsValue::from_str("c"))];
    options.extend(extra.iter().cloned());
    wait(cache.after_tool_call("logs.tail".into(), result, Some(obj(&options))))
        .await
        .unwrap()
}

#[wasm_bindgen_test]
async fn a_30_000_char_text_result_is_previewed_when_stored_and_cut_when_not() {
    let cache = idb_cache(&[]);
    let text = "line of a log\n".repeat(2200)[..30_000].to_owned();
    let block = obj(&[("type", "text".into()), ("text", JsValue::from_str(&text))]);
    let result = obj(&[("content", Array::of1(&block).into())]);
    for (enabled, marker) in [
        (
            true,
            "[preview: the text has 30000 characters in 2143 lines",
        ),
        (false, "[truncated: this result had 30000 characters"),
    ] {
        let shown = after(&cache, result.clone(), &[("enabled", enabled.into())]).await;
        let content: Array = field(&shown, "content").unchecked_into();
        let cut = field(&content.get(0), "text").as_string().unwrap();
        assert!(cut.encode_utf16().count() <= 20_000);
        assert!(cut.contains(marker), "{}", &cut[cut.len() - 300..]);
        assert!(text.starts_with(&cut[..10_000]));
    }
}

#[wasm_bindgen_test]
async fn max_chars_infinity_turns_the_cap_off_and_enabled_false_still_caps() {
    let cache = idb_cache(&[("maxEntryBytes", 50_000.into())]);
    let big = rows(2000);
    let off = after(&cache, big.clone(), &[("maxChars", f64::INFINITY.into())]).await;
    assert!(js_sys::Object::is(&off, &big));
    let disabled = after(&cache, big.clone(), &[("enabled", false.into())]).await;
    assert_eq!(field(&disabled, "_truncated"), JsValue::TRUE);
    assert!(field(&disabled, "_cache_uri").is_undefined());
    assert!(to_json(&disabled).len() <= 20_000);
}
