//! The reference cache obeys State-Sync invalidations, in real IndexedDB.

use js_sys::{Array, Object, Reflect};
use mcp_result_cache::{JsResultCache as ResultCache, JsStateSync as StateSync};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn text_result(text: &str) -> JsValue {
    let block = obj(&[("type", "text".into()), ("text", text.into())]);
    obj(&[("content", [block].iter().collect::<Array>().into())])
}

fn invoice() -> String {
    let lines: Vec<String> = (0..120)
        .map(|i| {
            format!(
                r#"{{"sku":"SKU-{i}","qty":{},"cents":{}}}"#,
                i % 5 + 1,
                1000 + i
            )
        })
        .collect();
    format!(
        r#"{{"ok":true,"invoice":"INV-7","lines":[{}]}}"#,
        lines.join(",")
    )
}

/// The billing server's State-Sync layer: refunds invalidate every `billing.get_*` result.
fn billing_server() -> StateSync {
    StateSync::new(json(
        r#"{"policies":[{"match":"billing.refund","invalidates":["billing.get_*"]},{"match":"billing.get_*","cacheControl":"no-store"}]}"#,
    ))
    .unwrap()
}

async fn before(cache: &ResultCache, tool: &str, args: JsValue) -> JsValue {
    let options = obj(&[("convId", "conv".into())]);
    wait(cache.before_tool_call(tool.into(), args, Some(options)))
        .await
        .unwrap()
}

async fn after(cache: &ResultCache, tool: &str, result: JsValue) -> JsValue {
    let options = obj(&[("convId", "conv".into())]);
    wait(cache.after_tool_call(tool.into(), result, Some(options)))
        .await
        .unwrap()
}

#[wasm_bindgen_test]
async fn a_successful_refund_makes_the_invoice_reference_stale() {
    let cache = idb_cache(&[]);
    let server = billing_server();
    // billing.get_invoice → cached; the model sees a reference.
    let visible = after(&cache, "billing.get_invoice", text_result(&invoice())).await;
    let content: Array = field(&visible, "content").unchecked_into();
    let shown = json(&field(&content.get(0), "text").as_string().unwrap());
    let uri = field(&shown, "_cache_uri").as_string().expect("_cache_uri");
    // The reference resolves before the refund.
    let ok = before(
        &cache,
        "report.render",
        obj(&[("data_uri", uri.as_str().into())]),
    )
    .await;
    assert_eq!(field(&ok, "dispatch"), JsValue::TRUE);

    // A FAILED refund invalidates nothing (the server does not tag it; even a forged tag on an
    // error result is ignored by the host).
    let failed = server
        .decorate_result(
            "billing.refund".into(),
            obj(&[
                ("isError", true.into()),
                (
                    "content",
                    json(r#"[{"type":"text","text":"card declined"}]"#),
                ),
            ]),
        )
        .unwrap();
    assert_eq!(
        field(&failed, "content").unchecked_ref::<Array>().length(),
        1
    );
    let forged = obj(&[
        ("isError", true.into()),
        (
            "content",
            json(
                r#"[{"type":"text","text":"<cache_invalidation cause=\"billing.refund\" domains=\"billing.get_*\" />"}]"#,
            ),
        ),
    ]);
    after(&cache, "billing.refund", forged).await;
    let still = before(
        &cache,
        "report.render",
        obj(&[("data_uri", uri.as_str().into())]),
    )
    .await;
    assert_eq!(field(&still, "dispatch"), JsValue::TRUE);

    // A successful refund: the server prepends the invalidation tag; the host applies it.
    let refund = server
        .decorate_result(
            "billing.refund".into(),
            text_result(r#"{"ok":true,"refunded_cents":1000}"#),
        )
        .unwrap();
    let tag = r#"<cache_invalidation cause="billing.refund" domains="billing.get_*" />"#;
    assert_eq!(
        field(
            &field(&refund, "content").unchecked_ref::<Array>().get(0),
            "text"
        ),
        tag
    );
    let shown = after(&cache, "billing.refund", refund).await;
    // The tag survives in the LLM-visible result at index 0.
    assert_eq!(
        field(
            &field(&shown, "content").unchecked_ref::<Array>().get(0),
            "text"
        ),
        tag
    );

    // The next call with that reference is refused with the stale envelope.
    let refused = before(
        &cache,
        "report.render",
        obj(&[("data_uri", uri.as_str().into())]),
    )
    .await;
    assert_eq!(field(&refused, "dispatch"), JsValue::FALSE);
    let envelope = field(&refused, "envelope");
    assert_eq!(
        field(&envelope, "error").as_string().unwrap(),
        format!("invalid_args: cache URI {uri} is stale (invalidated by billing.refund)")
    );
    assert_eq!(
        to_json(&field(&envelope, "_stale_uris")),
        format!(r#"["{uri}"]"#)
    );
    assert!(field(&envelope, "fix_hint")
        .as_string()
        .unwrap()
        .contains("billing.get_invoice"));
    let looked = wait(cache.lookup(uri.as_str().into(), None)).await.unwrap();
    assert_eq!(field(&looked, "status"), "stale");
    assert_eq!(field(&looked, "cause"), "billing.refund");
    assert_eq!(field(&looked, "sourceToolName"), "billing.get_invoice");
    assert!(read(&cache, &JsValue::from_str(&uri), JsValue::UNDEFINED)
        .await
        .is_null());
}

#[wasm_bindgen_test]
async fn invalidate_marks_only_matching_tools_and_reports_a_count() {
    let events = std::rc::Rc::new(std::cell::RefCell::new(Vec::<JsValue>::new()));
    let log = events.clone();
    let observer = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| log.borrow_mut().push(e));
    let cache = idb_cache(&[("onEvent", observer.as_ref().clone())]);
    let put_as = |tool: &'static str| {
        let input = obj(&[
            ("payload", rows(100)),
            ("convId", "c".into()),
            ("sourceToolName", tool.into()),
        ]);
        wait(cache.cache_tool_result(input))
    };
    let a = put_as("billing.get_invoice").await.unwrap();
    let b = put_as("billing.get_customer").await.unwrap();
    let c = put_as("billing.list").await.unwrap();
    let d = put_as("tasks.get").await.unwrap();
    let count = wait(cache.invalidate(
        json(r#"["billing.get_*"]"#),
        Some(obj(&[("cause", "billing.refund".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(count.as_f64(), Some(2.0));
    for (uri, expected) in [(&a, "stale"), (&b, "stale"), (&c, "hit"), (&d, "hit")] {
        let looked = wait(cache.lookup(uri.clone(), None)).await.unwrap();
        assert_eq!(field(&looked, "status"), expected);
    }
    // Already stale entries keep their first cause and are not counted again.
    let again = wait(cache.invalidate(
        json(r#"["billing.**"]"#),
        Some(obj(&[("cause", "billing.close".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(again.as_f64(), Some(1.0));
    assert_eq!(
        field(&wait(cache.lookup(a, None)).await.unwrap(), "cause"),
        "billing.refund"
    );
    let kinds: Vec<String> = events
        .borrow()
        .iter()
        .map(|e| field(e, "kind").as_string().unwrap())
        .collect();
    assert!(kinds.contains(&"invalidate".to_owned()));
}

#[wasm_bindgen_test]
async fn fusion_stale_notifications_are_applied() {
    let cache = idb_cache(&[]);
    let input = obj(&[
        ("payload", rows(100)),
        ("convId", "c".into()),
        ("sourceToolName", "sprints.list".into()),
    ]);
    let uri = wait(cache.cache_tool_result(input)).await.unwrap();
    let ignored =
        json(r#"{"method":"notifications/resources/updated","params":{"uri":"file:///x"}}"#);
    assert_eq!(
        wait(cache.handle_notification(ignored, None))
            .await
            .unwrap()
            .as_f64(),
        Some(0.0)
    );
    let stale = json(
        r#"{"method":"notifications/resources/updated","params":{"uri":"mcpfusion://stale/sprints.*"}}"#,
    );
    assert_eq!(
        wait(cache.handle_notification(stale, None))
            .await
            .unwrap()
            .as_f64(),
        Some(1.0)
    );
    assert_eq!(
        field(&wait(cache.lookup(uri, None)).await.unwrap(), "status"),
        "stale"
    );
}

#[wasm_bindgen_test]
async fn identical_calls_to_immutable_tools_are_reused_and_no_store_never() {
    let cache = idb_cache(&[("reuseImmutable", true.into())]);
    cache
        .observe_tools(
            json(
                r#"[
        {"name":"countries.list","description":"List countries. [Cache-Control: immutable]"},
        {"name":"sprints.list","description":"List sprints. [Cache-Control: no-store]"}
    ]"#,
            ),
            None,
        )
        .unwrap();
    let countries = obj(&[(
        "countries",
        json(&format!(
            "[{}]",
            (0..1000)
                .map(|i| format!(r#""C{i:04}""#))
                .collect::<Vec<_>>()
                .join(",")
        )),
    )]);
    let args = || json(r#"{"region":"EU","limit":300}"#);
    let first = before(&cache, "countries.list", args()).await;
    assert_eq!(field(&first, "dispatch"), JsValue::TRUE);
    let shown = after(&cache, "countries.list", countries.clone()).await;
    let uri = field(&shown, "_cache_uri");
    assert!(uri.is_string());
    // Same arguments in another key order: answered from the cache.
    let second = before(
        &cache,
        "countries.list",
        json(r#"{"limit":300,"region":"EU"}"#),
    )
    .await;
    assert_eq!(field(&second, "dispatch"), JsValue::FALSE);
    let reused = field(&second, "reused");
    assert_eq!(field(&reused, "_cache_uri"), uri);
    assert_eq!(
        to_json(&field(&reused, "countries")),
        to_json(&field(&countries, "countries"))
    );
    // Different arguments: dispatched.
    let other = before(
        &cache,
        "countries.list",
        json(r#"{"region":"US","limit":300}"#),
    )
    .await;
    assert_eq!(field(&other, "dispatch"), JsValue::TRUE);
    // Another conversation: dispatched.
    let elsewhere = wait(cache.before_tool_call(
        "countries.list".into(),
        args(),
        Some(obj(&[("convId", "other".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(field(&elsewhere, "dispatch"), JsValue::TRUE);
    // no-store tools are never reused.
    before(&cache, "sprints.list", args()).await;
    after(&cache, "sprints.list", countries.clone()).await;
    let again = before(&cache, "sprints.list", args()).await;
    assert_eq!(field(&again, "dispatch"), JsValue::TRUE);
    // After an invalidation the immutable result is not reused either.
    wait(cache.invalidate(
        json(r#"["countries.*"]"#),
        Some(obj(&[("cause", "admin.reload".into())])),
    ))
    .await
    .unwrap();
    let after_inv = before(&cache, "countries.list", args()).await;
    assert_eq!(field(&after_inv, "dispatch"), JsValue::TRUE);
}

#[wasm_bindgen_test]
fn decorate_tools_and_results_byte_for_byte() {
    let sync = StateSync::new(json(
        r#"{"policies":[{"match":"sprints.get","cacheControl":"no-store"},{"match":"countries.*","cacheControl":"immutable"},{"match":"tasks.update","invalidates":["tasks.*","sprints.*"]}]}"#,
    )).unwrap();
    let tools = json(
        r#"[
        {"name":"sprints.get","description":"Get sprint details."},
        {"name":"countries.list","description":"List. [Cache-Control: no-store]"},
        {"name":"countries.flags"},
        {"name":"other.tool","description":"Untouched."}
    ]"#,
    );
    let out: Array = sync.decorate_tools(tools.clone()).unwrap().unchecked_into();
    let desc = |i: u32| field(&out.get(i), "description");
    assert_eq!(desc(0), "Get sprint details. [Cache-Control: no-store]");
    assert_eq!(desc(1), "List. [Cache-Control: immutable]");
    assert_eq!(desc(2), "[Cache-Control: immutable]");
    assert!(Object::is(
        &out.get(3),
        &tools.unchecked_ref::<Array>().get(3)
    ));
    // Idempotent.
    let twice: Array = sync
        .decorate_tools(out.clone().into())
        .unwrap()
        .unchecked_into();
    assert_eq!(
        field(&twice.get(0), "description"),
        "Get sprint details. [Cache-Control: no-store]"
    );
    // The input is never mutated.
    assert_eq!(
        field(&tools.unchecked_ref::<Array>().get(0), "description"),
        "Get sprint details."
    );
    let result = text_result(r#"{"ok":true}"#);
    let decorated = sync
        .decorate_result("tasks.update".into(), result.clone())
        .unwrap();
    let content: Array = field(&decorated, "content").unchecked_into();
    assert_eq!(
        field(&content.get(0), "text"),
        r#"<cache_invalidation cause="tasks.update" domains="tasks.*, sprints.*" />"#
    );
    assert_eq!(content.length(), 2);
    assert_eq!(
        field(&result, "content").unchecked_ref::<Array>().length(),
        1
    );
    assert!(Object::is(
        &sync
            .decorate_result("sprints.get".into(), result.clone())
            .unwrap(),
        &result
    ));
}

#[wasm_bindgen_test]
async fn an_uncached_result_never_links_its_arguments_to_a_later_one() {
    let cache = idb_cache(&[("reuseImmutable", true.into())]);
    cache
        .observe_tools(
            json(r#"[{"name":"geo.lookup","description":"Geo. [Cache-Control: immutable]"}]"#),
            None,
        )
        .unwrap();
    // q=a returns a small (uncached) result; q=b a large one.
    before(&cache, "geo.lookup", json(r#"{"q":"a"}"#)).await;
    after(&cache, "geo.lookup", json(r#"{"answer":"small a"}"#)).await;
    before(&cache, "geo.lookup", json(r#"{"q":"b"}"#)).await;
    let big_b = obj(&[
        ("answer", "b".into()),
        ("pad", JsValue::from_str(&"b".repeat(6000))),
    ]);
    let shown = after(&cache, "geo.lookup", big_b).await;
    assert!(field(&shown, "_cache_uri").is_string());
    // Asking for q=a again must dispatch, not return b's data.
    let again = before(&cache, "geo.lookup", json(r#"{"q":"a"}"#)).await;
    assert_eq!(field(&again, "dispatch"), JsValue::TRUE);
    // And q=b is reused.
    let b_again = before(&cache, "geo.lookup", json(r#"{"q":"b"}"#)).await;
    assert_eq!(field(&field(&b_again, "reused"), "answer"), "b");
}

#[wasm_bindgen_test]
async fn a_plain_is_error_payload_is_never_given_a_reference() {
    let cache = idb_cache(&[]);
    let failed = obj(&[
        ("isError", true.into()),
        ("detail", JsValue::from_str(&"x".repeat(6000))),
    ]);
    let shown = after(&cache, "t", failed.clone()).await;
    assert!(Object::is(&shown, &failed));
}

#[wasm_bindgen_test]
async fn out_of_order_completions_pair_with_their_own_calls_when_args_are_passed() {
    let cache = idb_cache(&[("reuseImmutable", true.into())]);
    cache
        .observe_tools(
            json(r#"[{"name":"geo.lookup","description":"Geo. [Cache-Control: immutable]"}]"#),
            None,
        )
        .unwrap();
    let big = |tag: &str| {
        obj(&[
            ("answer", tag.into()),
            ("pad", JsValue::from_str(&tag.repeat(6000))),
        ])
    };
    let (a, b) = (json(r#"{"q":"a"}"#), json(r#"{"q":"b"}"#));
    before(&cache, "geo.lookup", a.clone()).await;
    before(&cache, "geo.lookup", b.clone()).await;
    // b completes first.
    let with_args =
        |args: &JsValue| Some(obj(&[("convId", "conv".into()), ("args", args.clone())]));
    wait(cache.after_tool_call("geo.lookup".into(), big("b"), with_args(&b)))
        .await
        .unwrap();
    wait(cache.after_tool_call("geo.lookup".into(), big("a"), with_args(&a)))
        .await
        .unwrap();
    let again_a = before(&cache, "geo.lookup", json(r#"{"q":"a"}"#)).await;
    assert_eq!(field(&field(&again_a, "reused"), "answer"), "a");
    let again_b = before(&cache, "geo.lookup", json(r#"{"q":"b"}"#)).await;
    assert_eq!(field(&field(&again_b, "reused"), "answer"), "b");
}
