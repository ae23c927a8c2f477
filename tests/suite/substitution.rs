//! `substituteCacheUris` against real IndexedDB.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

async fn substitute(
    cache: &mcp_result_cache::JsResultCache,
    args: &JsValue,
    scope: Option<&str>,
) -> JsValue {
    let options = scope.map(|c| obj(&[("convId", c.into())]));
    wait(cache.substitute_cache_uris(args.clone(), options))
        .await
        .unwrap()
}

fn strings(v: &JsValue) -> Vec<String> {
    v.unchecked_ref::<Array>()
        .iter()
        .map(|x| x.as_string().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn scalar_hit_replaces_the_uri_key() {
    let cache = idb_cache(&[]);
    let payload = rows(240);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let args = obj(&[("data_uri", uri.as_str().into()), ("title", "chart".into())]);
    let out = substitute(&cache, &args, Some("c")).await;
    assert_eq!(field(&out, "ok"), JsValue::TRUE);
    let resolved = field(&out, "args");
    assert_eq!(to_json(&field(&resolved, "data")), to_json(&payload));
    assert_eq!(field(&resolved, "title"), "chart");
    assert!(!Reflect::has(&resolved, &"data_uri".into()).unwrap());
    // The caller's object is untouched.
    assert_eq!(
        to_json(&args),
        format!(r#"{{"data_uri":"{uri}","title":"chart"}}"#)
    );
    assert!(!Object::is(&resolved, &args));
}

#[wasm_bindgen_test]
async fn array_hit_keeps_order() {
    let cache = idb_cache(&[]);
    let (p1, p2) = (rows(100), rows(130));
    let u1 = put(&cache, &p1, "c").await.unwrap();
    let u2 = put(&cache, &p2, "c").await.unwrap();
    let list: Array = [&u2, &u1, &u2]
        .iter()
        .map(|u| JsValue::from_str(u))
        .collect();
    let out = substitute(&cache, &obj(&[("series_uri", list.into())]), None).await;
    let series = field(&field(&out, "args"), "series");
    let series: &Array = series.unchecked_ref();
    assert_eq!(series.length(), 3);
    assert_eq!(to_json(&series.get(0)), to_json(&p2));
    assert_eq!(to_json(&series.get(1)), to_json(&p1));
    assert_eq!(to_json(&series.get(2)), to_json(&p2));
}

#[wasm_bindgen_test]
async fn conflict_uri_wins_and_fires_an_event() {
    let kinds = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let log = kinds.clone();
    let observer = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
        log.borrow_mut()
            .push(field(&e, "kind").as_string().unwrap());
    });
    let cache = idb_cache(&[("onEvent", observer.as_ref().clone())]);
    let payload = rows(100);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let args = obj(&[("data", json("[1,2,3]")), ("data_uri", uri.as_str().into())]);
    let out = substitute(&cache, &args, None).await;
    assert_eq!(
        to_json(&field(&field(&out, "args"), "data")),
        to_json(&payload)
    );
    assert!(kinds.borrow().contains(&"conflict".to_owned()));
}

#[wasm_bindgen_test]
async fn misses_block_everything_with_every_miss_listed() {
    let cache = idb_cache(&[]);
    let uri = put(&cache, &rows(100), "c").await.unwrap();
    let ghost = "mcp+cache://c/GHOSTGHOSTG";
    // Scalar miss: singular error line.
    let out = substitute(&cache, &obj(&[("data_uri", ghost.into())]), None).await;
    assert_eq!(field(&out, "ok"), JsValue::FALSE);
    let env = field(&out, "envelope");
    assert_eq!(
        field(&env, "error"),
        format!("invalid_args: cache URI {ghost} could not be resolved").as_str()
    );
    assert_eq!(strings(&field(&env, "_missing_uris")), [ghost]);
    assert!(field(&env, "fix_hint")
        .as_string()
        .unwrap()
        .contains("Re-call the source tool"));
    assert!(!Reflect::has(&out, &"args".into()).unwrap());
    // Array with one miss plus another scalar miss: plural, all listed, nothing resolved.
    let ghost2 = "mcp+cache://c/x";
    let list: Array = [uri.as_str(), ghost]
        .iter()
        .map(|u| JsValue::from_str(u))
        .collect();
    let args = obj(&[
        ("a_uri", list.into()),
        ("b_uri", ghost2.into()),
        ("c_uri", uri.as_str().into()),
    ]);
    let out = substitute(&cache, &args, None).await;
    let env = field(&out, "envelope");
    assert_eq!(
        field(&env, "error"),
        "invalid_args: 2 cache URIs could not be resolved"
    );
    assert_eq!(strings(&field(&env, "_missing_uris")), [ghost, ghost2]);
}

#[wasm_bindgen_test]
async fn other_values_pass_through_and_identity_is_kept() {
    let cache = idb_cache(&[]);
    let uri = put(&cache, &rows(100), "c").await.unwrap();
    let mixed: Array = [
        JsValue::from_str(&uri),
        JsValue::from_str("https://x.test/a"),
    ]
    .iter()
    .collect();
    for args in [
        obj(&[
            ("data_uri", "https://example.com/data.json".into()),
            ("n", 1.into()),
        ]),
        obj(&[("data_uri", mixed.into())]),
        obj(&[("title", "no references".into())]),
        JsValue::NULL,
        JsValue::from_str("hello"),
        json("[1,2,3]"),
        JsValue::from_f64(7.0),
    ] {
        let out = substitute(&cache, &args, None).await;
        assert_eq!(field(&out, "ok"), JsValue::TRUE);
        assert!(Object::is(&field(&out, "args"), &args), "{args:?}");
    }
}

#[wasm_bindgen_test]
async fn foreign_conversation_reference_is_a_miss_when_scoped() {
    let cache = idb_cache(&[]);
    let uri = put(&cache, &rows(100), "conv-a").await.unwrap();
    let args = obj(&[("data_uri", uri.as_str().into())]);
    let out = substitute(&cache, &args, Some("conv-b")).await;
    assert_eq!(field(&out, "ok"), JsValue::FALSE);
    assert_eq!(
        strings(&field(&field(&out, "envelope"), "_missing_uris")),
        [uri.as_str()]
    );
    let out = substitute(&cache, &args, Some("conv-a")).await;
    assert_eq!(field(&out, "ok"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn json_pointer_selects_and_a_bad_pointer_is_named() {
    let cache = idb_cache(&[]);
    let payload = rows(100);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let out = substitute(
        &cache,
        &obj(&[("row_uri", format!("{uri}#/rows/1").into())]),
        None,
    )
    .await;
    let row = field(&field(&out, "args"), "row");
    assert_eq!(
        to_json(&row),
        to_json(&field(&field(&payload, "rows"), "1"))
    );
    let out = substitute(
        &cache,
        &obj(&[("row_uri", format!("{uri}#/rows/999").into())]),
        None,
    )
    .await;
    let envelope = field(&out, "envelope");
    let error = field(&envelope, "error").as_string().unwrap();
    assert_eq!(
        error,
        format!("invalid_args: cache URI {uri}#/rows/999 could not be resolved")
    );
    let hint = field(&envelope, "fix_hint").as_string().unwrap();
    assert!(hint.contains("/rows/999"), "{hint}");
    // A fragment that is no JSON Pointer (no leading `/`, a `~` escape that is none) is named
    // the same way, with what a pointer looks like; a reference without an entry is a miss.
    for fragment in ["rows/1", "/rows~2"] {
        let out = substitute(
            &cache,
            &obj(&[("row_uri", format!("{uri}#{fragment}").into())]),
            None,
        )
        .await;
        let hint = field(&field(&out, "envelope"), "fix_hint")
            .as_string()
            .unwrap();
        assert!(
            hint.contains(&format!("The JSON Pointer {fragment} selects nothing"))
                && hint.contains("e.g. #/rows/0"),
            "{hint}"
        );
    }
    let out = substitute(
        &cache,
        &obj(&[("row_uri", "mcp+cache://c/abcdefgh12#rows".into())]),
        None,
    )
    .await;
    let hint = field(&field(&out, "envelope"), "fix_hint")
        .as_string()
        .unwrap();
    assert!(!hint.contains("JSON Pointer"), "{hint}");
}

#[wasm_bindgen_test]
async fn sixteen_references_resolve_in_one_call() {
    let cache = idb_cache(&[]);
    let mut uris = Vec::new();
    for i in 0..16 {
        uris.push(
            put(
                &cache,
                &json(&format!(r#"{{"i":{i},"pad":"{}"}}"#, "x".repeat(5000))),
                "c",
            )
            .await
            .unwrap(),
        );
    }
    let list: Array = uris.iter().map(|u| JsValue::from_str(u)).collect();
    let out = substitute(&cache, &obj(&[("parts_uri", list.into())]), None).await;
    let parts = field(&field(&out, "args"), "parts");
    let parts: &Array = parts.unchecked_ref();
    assert_eq!(parts.length(), 16);
    for (i, part) in parts.iter().enumerate() {
        assert_eq!(field(&part, "i").as_f64(), Some(i as f64));
    }
}

#[wasm_bindgen_test]
async fn proto_keys_stay_plain_data() {
    let cache = idb_cache(&[]);
    let payload = rows(100);
    let uri = put(&cache, &payload, "c").await.unwrap();
    let args = json(&format!(
        r#"{{"__proto__":{{"polluted":true}},"constructor":"x","__proto___uri":"{uri}","data_uri":"{uri}"}}"#
    ));
    let out = substitute(&cache, &args, None).await;
    let resolved = field(&out, "args");
    // `__proto__` became an own data property holding the payload; the prototype is untouched.
    let proto = Object::get_prototype_of(&resolved);
    assert!(Object::is(
        &proto,
        &Object::get_prototype_of(&Object::new())
    ));
    assert!(Object::has_own(
        resolved.unchecked_ref::<Object>(),
        &"__proto__".into()
    ));
    assert_eq!(
        to_json(&Reflect::get(&resolved, &"data".into()).unwrap()),
        to_json(&payload)
    );
    assert_eq!(field(&resolved, "constructor"), "x");
    assert!(field(&Object::new(), "polluted").is_undefined());
    let own = Object::get_own_property_descriptor(
        resolved.unchecked_ref::<Object>(),
        &"__proto__".into(),
    );
    assert_eq!(to_json(&field(&own, "value")), to_json(&payload));
}

#[wasm_bindgen_test]
fn check_inline_list_cap_rules() {
    let many = json(&format!("[{}]", ["1"; 24].join(",")));
    let few = json(&format!("[{}]", ["1"; 15].join(",")));
    let env = mcp_result_cache::check_inline_list_cap(
        "chart.create".into(),
        obj(&[("data", many.clone())]),
        None,
        None,
    )
    .unwrap();
    let error = field(&env, "error").as_string().unwrap();
    assert!(
        error.starts_with("invalid_args: `data` has 24 records (cap: 20)."),
        "{error}"
    );
    assert!(error.contains("data_uri"));
    let hint = field(&env, "fix_hint").as_string().unwrap();
    assert!(hint.contains("chart.create") && hint.contains("data_uri="));
    assert_eq!(field(&env, "_capped_arg"), "data");
    let none = |args: JsValue| {
        mcp_result_cache::check_inline_list_cap("t".into(), args, None, None)
            .unwrap()
            .is_null()
    };
    assert!(none(obj(&[("data", few)])));
    assert!(none(obj(&[
        ("data", many.clone()),
        ("data_uri", "mcp+cache://c/AAAAAAAAAAA".into())
    ])));
    assert!(none(obj(&[("data", JsValue::from_str(&to_json(&many)))])));
    assert!(none(JsValue::NULL));
    assert!(none(many.clone()));
    // Custom cap and argument names.
    let custom = mcp_result_cache::check_inline_list_cap(
        "t".into(),
        obj(&[("points", json("[1,2,3]"))]),
        Some(2.0.into()),
        Some(json(r#"["points"]"#)),
    )
    .unwrap();
    assert_eq!(field(&custom, "_capped_arg"), "points");
}

/// `[(uri, sourceToolName, sourceServer)]` of a substitution's `sources`.
fn sources(out: &JsValue) -> Vec<(String, String, Option<String>)> {
    field(out, "sources")
        .unchecked_ref::<Array>()
        .iter()
        .map(|s| {
            let text = |k: &str| field(&s, k).as_string();
            (
                text("uri").unwrap(),
                text("sourceToolName").unwrap(),
                text("sourceServer"),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn sources_name_each_reference_and_a_derived_entry_its_first_source() {
    let cache = idb_cache(&[]);
    let mail = obj(&[("convId", "c".into()), ("server", "vault".into())]);
    let visible = wait(cache.after_tool_call(
        "invoice.get".into(),
        obj(&[("rows", rows(120))]),
        Some(mail),
    ))
    .await
    .unwrap();
    let uri = field(&visible, "_cache_uri").as_string().unwrap();
    let pointer = format!("{uri}#/rows");
    let input = obj(&[
        ("payload", rows(40)),
        ("convId", "c".into()),
        ("sourceToolName", "cache_select".into()),
        ("threshold", 0.into()),
        ("derivedFrom", uri.as_str().into()),
    ]);
    let derived = wait(cache.cache_tool_result(input))
        .await
        .unwrap()
        .as_string()
        .unwrap();
    let plain = put(&cache, &rows(100), "c").await.unwrap();
    let list: Array = [&pointer, &derived, &plain]
        .iter()
        .map(|u| JsValue::from_str(u))
        .collect();
    let out = substitute(&cache, &obj(&[("data_uri", list.into())]), Some("c")).await;
    assert_eq!(field(&out, "ok"), JsValue::TRUE);
    let vault = Some("vault".to_owned());
    assert_eq!(
        sources(&out),
        [
            (pointer.clone(), "invoice.get".to_owned(), vault.clone()),
            (derived.clone(), "invoice.get".to_owned(), vault),
            (plain, "timeseries.query".to_owned(), None),
        ]
    );
    // beforeToolCall reports them too; nothing resolved, nothing reported.
    let before = wait(cache.before_tool_call(
        "send_report".into(),
        obj(&[("lines_uri", derived.as_str().into())]),
        Some(obj(&[("convId", "c".into()), ("server", "mailer".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(sources(&before)[0].1, "invoice.get");
    let plain_call = wait(cache.before_tool_call(
        "send_report".into(),
        obj(&[("lines", rows(2))]),
        Some(obj(&[("convId", "c".into())])),
    ))
    .await
    .unwrap();
    assert!(!Reflect::has(&plain_call, &"sources".into()).unwrap());
}
