//! The two-call host pipeline with a fake dispatcher.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Reflect};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

/// A chat engine's dispatch loop around a fake MCP server, recording what tools received.
struct Host {
    cache: ResultCache,
    dispatched: Rc<RefCell<Vec<(String, JsValue)>>>,
}

impl Host {
    fn new(extra: &[(&str, JsValue)]) -> Self {
        Self {
            cache: idb_cache(extra),
            dispatched: Rc::default(),
        }
    }

    /// One tool call: beforeToolCall → (dispatch | envelope) → afterToolCall.
    async fn call(
        &self,
        tool: &str,
        args: JsValue,
        result: impl Fn(&JsValue) -> JsValue,
        enabled: bool,
    ) -> JsValue {
        let options = obj(&[("enabled", enabled.into()), ("convId", "conv".into())]);
        let before = wait(
            self.cache
                .before_tool_call(tool.into(), args, Some(options.clone())),
        )
        .await
        .unwrap();
        if field(&before, "dispatch") != JsValue::TRUE {
            return before;
        }
        let args = field(&before, "args");
        self.dispatched
            .borrow_mut()
            .push((tool.to_owned(), args.clone()));
        let raw = result(&args);
        wait(self.cache.after_tool_call(tool.into(), raw, Some(options)))
            .await
            .unwrap()
    }
}

fn table(n: usize) -> JsValue {
    let rows: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"t":{i},"value":{}}}"#, i * 3))
        .collect();
    json(&format!(
        r#"{{"ok":true,"rows":{n},"columns":["t","value"],"data":[{}]}}"#,
        rows.join(",")
    ))
}

#[wasm_bindgen_test]
async fn by_reference_flow_with_a_fake_dispatcher() {
    let host = Host::new(&[]);
    // 1. A 240-row result gets a reference; the model sees the payload plus `_cache_uri`.
    let visible = host
        .call(
            "timeseries.query",
            obj(&[("metric", "cpu".into())]),
            |_| table(240),
            true,
        )
        .await;
    let uri = field(&visible, "_cache_uri")
        .as_string()
        .expect("_cache_uri");
    assert!(uri.starts_with("mcp+cache://conv/"));
    assert_eq!(field(&visible, "rows").as_f64(), Some(240.0));
    // 2. The next call carries `data_uri`: the tool receives the 240 rows.
    let chart = host
        .call(
            "chart.create",
            obj(&[("data_uri", uri.as_str().into())]),
            |_| json(r#"{"ok":true}"#),
            true,
        )
        .await;
    assert_eq!(field(&chart, "ok"), JsValue::TRUE);
    let (tool, args) = host.dispatched.borrow().last().cloned().unwrap();
    assert_eq!(tool, "chart.create");
    let data = field(&field(&args, "data"), "data");
    assert_eq!(data.unchecked_ref::<Array>().length(), 240);
    assert!(field(&args, "data_uri").is_undefined());
    // LLM-visible argument size, inline vs by reference.
    let inline = to_json(&obj(&[("data", field(&args, "data"))])).len();
    let by_ref = to_json(&obj(&[("data_uri", uri.as_str().into())])).len();
    web_sys_console_log(&format!(
        "240-row flow: inline args {inline} chars, by reference {by_ref} chars"
    ));
    assert!(by_ref * 20 < inline);
}

fn web_sys_console_log(message: &str) {
    let console = Reflect::get(&js_sys::global(), &"console".into()).unwrap();
    let log: js_sys::Function = Reflect::get(&console, &"log".into())
        .unwrap()
        .unchecked_into();
    let _ = log.call1(&console, &message.into());
}

#[wasm_bindgen_test]
async fn a_5000_row_result_is_summarized() {
    let host = Host::new(&[]);
    let big = table(5000);
    let visible = host
        .call("timeseries.query", obj(&[]), |_| big.clone(), true)
        .await;
    assert_eq!(field(&visible, "_truncated"), JsValue::TRUE);
    assert_eq!(field(&visible, "rows").as_f64(), Some(5000.0));
    assert_eq!(to_json(&field(&visible, "columns")), r#"["t","value"]"#);
    assert!(field(&visible, "data").is_undefined());
    let uri = field(&visible, "_cache_uri").as_string().unwrap();
    let shape = field(&visible, "_cache_shape");
    assert_eq!(field(&shape, "rows").as_f64(), Some(5000.0));
    assert!(field(&shape, "bytes").as_f64().unwrap() > 20_000.0);
    assert_eq!(
        field(&visible, "_originalChars").as_f64(),
        Some(to_json(&big).len() as f64)
    );
    let hint = field(&visible, "_truncation_hint").as_string().unwrap();
    assert!(hint.contains(&uri) && hint.contains("_uri") && hint.contains("Do not re-query"));
    assert!(to_json(&visible).len() < 20_000);
    // The ORIGINAL (all 5000 rows) was cached.
    let stored = read(&host.cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
    assert_eq!(to_json(&stored), to_json(&big));
}

#[wasm_bindgen_test]
async fn a_miss_never_reaches_the_dispatcher() {
    let host = Host::new(&[]);
    let ghost = "mcp+cache://conv/GHOSTGHOSTG";
    let out = host
        .call(
            "chart.create",
            obj(&[("data_uri", ghost.into())]),
            |_| panic!("dispatched"),
            true,
        )
        .await;
    assert_eq!(field(&out, "dispatch"), JsValue::FALSE);
    assert_eq!(
        field(&out, "signature"),
        format!(r#"chart.create|cache-miss|["{ghost}"]"#).as_str()
    );
    assert!(field(&field(&out, "envelope"), "error")
        .as_string()
        .unwrap()
        .contains("could not be resolved"));
    assert!(host.dispatched.borrow().is_empty());
}

#[wasm_bindgen_test]
async fn inline_cap_blocks_24_passes_15_and_prefers_the_reference() {
    let host = Host::new(&[]);
    let records = |n: usize| {
        json(&format!(
            "[{}]",
            (0..n)
                .map(|i| format!(r#"{{"v":{i}}}"#))
                .collect::<Vec<_>>()
                .join(",")
        ))
    };
    let out = host
        .call(
            "chart.create",
            obj(&[("data", records(24))]),
            |_| panic!("dispatched"),
            true,
        )
        .await;
    assert_eq!(field(&out, "dispatch"), JsValue::FALSE);
    assert_eq!(field(&out, "signature"), "chart.create|inline-cap|data");
    assert_eq!(field(&field(&out, "envelope"), "_capped_arg"), "data");
    host.call(
        "chart.create",
        obj(&[("data", records(15))]),
        |_| json(r#"{"ok":true}"#),
        true,
    )
    .await;
    assert_eq!(host.dispatched.borrow().len(), 1);
    // 99 inline records + data_uri: the reference wins and the cached rows are dispatched.
    let visible = host
        .call("timeseries.query", obj(&[]), |_| table(240), true)
        .await;
    let uri = field(&visible, "_cache_uri");
    host.call(
        "chart.create",
        obj(&[("data", records(99)), ("data_uri", uri)]),
        |_| json(r#"{"ok":true}"#),
        true,
    )
    .await;
    let (_, args) = host.dispatched.borrow().last().cloned().unwrap();
    assert_eq!(field(&field(&args, "data"), "rows").as_f64(), Some(240.0));
}

#[wasm_bindgen_test]
async fn disabled_mode_stores_nothing_but_still_caps() {
    let host = Host::new(&[]);
    let args = obj(&[("data_uri", "mcp+cache://x/y".into())]);
    let before = wait(host.cache.before_tool_call(
        "chart.create".into(),
        args.clone(),
        Some(obj(&[("enabled", false.into())])),
    ))
    .await
    .unwrap();
    assert_eq!(field(&before, "dispatch"), JsValue::TRUE);
    assert!(js_sys::Object::is(&field(&before, "args"), &args));
    let big = table(5000);
    let after = wait(host.cache.after_tool_call(
        "t".into(),
        big.clone(),
        Some(obj(&[("enabled", false.into())])),
    ))
    .await
    .unwrap();
    assert_eq!(field(&after, "_truncated"), JsValue::TRUE);
    assert!(field(&after, "_cache_uri").is_undefined());
    let small = table(5);
    let after = wait(host.cache.after_tool_call(
        "t".into(),
        small.clone(),
        Some(obj(&[("enabled", false.into())])),
    ))
    .await
    .unwrap();
    assert!(js_sys::Object::is(&after, &small));
}

/// The JSON object in the last text block of a `CallToolResult`.
fn last_text_json(result: &JsValue) -> JsValue {
    let content: Array = field(result, "content").unchecked_into();
    json(
        &field(&content.get(content.length() - 1), "text")
            .as_string()
            .unwrap(),
    )
}

#[wasm_bindgen_test]
async fn call_tool_results_use_structured_content_or_json_text() {
    let host = Host::new(&[]);
    let data = table(240);
    let structured = obj(&[
        ("content", json(r#"[{"type":"text","text":"240 rows"}]"#)),
        ("structuredContent", data.clone()),
    ]);
    let visible = wait(host.cache.after_tool_call("q".into(), structured, None))
        .await
        .unwrap();
    // Still a CallToolResult: the server's text as it was, then a link to the stored data (no
    // text of the result shows it); structuredContent is the server's own, and `_meta` lists
    // the reference.
    let content: Array = field(&visible, "content").unchecked_into();
    assert_eq!(content.length(), 2);
    assert_eq!(
        field(&content.get(0), "text"),
        JsValue::from_str("240 rows")
    );
    let link = content.get(1);
    assert_eq!(field(&link, "type"), JsValue::from_str("resource_link"));
    let uri = field(&link, "uri");
    assert!(uri.is_string());
    assert!(js_sys::Object::is(
        &field(&visible, "structuredContent"),
        &data
    ));
    let minted: Array = field(&field(&visible, "_meta"), "mcp-result-cache/uris").unchecked_into();
    assert_eq!(minted.get(0), uri);
    assert!(to_json(&read(&host.cache, &uri, JsValue::UNDEFINED).await) == to_json(&data));
    let text_item = obj(&[
        ("type", "text".into()),
        ("text", JsValue::from_str(&to_json(&data))),
    ]);
    let texty = obj(&[("content", [text_item].iter().collect::<Array>().into())]);
    let visible = wait(host.cache.after_tool_call("q".into(), texty, None))
        .await
        .unwrap();
    assert!(field(&last_text_json(&visible), "_cache_uri").is_string());
    assert!(field(&visible, "structuredContent").is_undefined());
    // isError results never get a reference.
    let failed = obj(&[
        ("isError", true.into()),
        ("structuredContent", data),
        ("content", json("[]")),
    ]);
    let visible = wait(host.cache.after_tool_call("q".into(), failed.clone(), None))
        .await
        .unwrap();
    assert!(js_sys::Object::is(&visible, &failed));
}

#[wasm_bindgen_test]
async fn small_results_pass_through_unchanged() {
    let host = Host::new(&[]);
    let small = json(r#"{"ok":true,"rows":2}"#);
    let visible = wait(host.cache.after_tool_call("q".into(), small.clone(), None))
        .await
        .unwrap();
    assert!(js_sys::Object::is(&visible, &small));
}
