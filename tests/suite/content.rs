//! `afterToolCall` on MCP `CallToolResult`s, block by block (docs/CONTENT.md): media, blobs,
//! big text, the data's JSON copy, `structuredContent` left true to its schema, block order.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn blocks(result: &JsValue) -> Vec<JsValue> {
    field(result, "content")
        .unchecked_into::<Array>()
        .iter()
        .collect()
}

fn minted(result: &JsValue) -> Vec<String> {
    let meta = field(result, "_meta");
    if meta.is_undefined() {
        return Vec::new();
    }
    field(&meta, "mcp-result-cache/uris")
        .unchecked_into::<Array>()
        .iter()
        .map(|u| u.as_string().unwrap())
        .collect()
}

fn base64(chars: usize) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..chars)
        .map(|i| char::from(alphabet[(i * 7 + i / 3) % 64]))
        .collect()
}

fn block(pairs: &[(&str, JsValue)]) -> JsValue {
    obj(pairs)
}

fn result(content: &[JsValue], extra: &[(&str, JsValue)]) -> JsValue {
    let mut pairs = vec![("content", content.iter().collect::<Array>().into())];
    pairs.extend(extra.iter().cloned());
    obj(&pairs)
}

async fn after(
    cache: &mcp_result_cache::JsResultCache,
    result: &JsValue,
    extra: &[(&str, JsValue)],
) -> JsValue {
    let mut pairs = vec![("convId", JsValue::from_str("c"))];
    pairs.extend(extra.iter().cloned());
    wait(cache.after_tool_call("tool".into(), result.clone(), Some(obj(&pairs))))
        .await
        .unwrap()
}

#[wasm_bindgen_test]
async fn small_media_and_links_pass_big_media_is_stored_and_linked() {
    let cache = idb_cache(&[]);
    let small = block(&[
        ("type", "image".into()),
        ("data", base64(6_000).into()),
        ("mimeType", "image/png".into()),
    ]);
    let link = block(&[
        ("type", "resource_link".into()),
        ("uri", "file:///a.txt".into()),
        ("name", "a.txt".into()),
    ]);
    let original = result(&[small.clone(), link.clone()], &[]);
    let shown = after(&cache, &original, &[]).await;
    assert!(
        Object::is(&shown, &original),
        "nothing to change: the same object"
    );

    let annotations = obj(&[("audience", json(r#"["user"]"#))]);
    let big = block(&[
        ("type", "audio".into()),
        ("data", JsValue::from_str(&(base64(3_998) + "=="))),
        ("mimeType", "audio/wav".into()),
        ("annotations", annotations.clone()),
    ]);
    let text = block(&[("type", "text".into()), ("text", "a clip".into())]);
    let original = result(&[text.clone(), big.clone(), link.clone()], &[]);
    let shown = after(&cache, &original, &[("mediaMaxBytes", 1_000.into())]).await;
    let out = blocks(&shown);
    assert_eq!(out.len(), 4, "text, link, note, link: {}", to_json(&shown));
    assert!(Object::is(&out[0], &text));
    assert_eq!(field(&out[1], "type"), JsValue::from_str("resource_link"));
    assert_eq!(field(&out[1], "mimeType"), JsValue::from_str("audio/wav"));
    assert_eq!(field(&out[1], "size"), JsValue::from_f64(2_998.0));
    assert!(Object::is(&field(&out[1], "annotations"), &annotations));
    let uri = field(&out[1], "uri");
    let note = field(&out[2], "text").as_string().unwrap();
    assert!(
        note.contains(&uri.as_string().unwrap()) && note.contains("#/data"),
        "{note}"
    );
    assert!(Object::is(&out[3], &link), "block order kept");
    assert_eq!(minted(&shown), vec![uri.as_string().unwrap()]);
    // The stored block round-trips whole.
    assert_eq!(
        to_json(&read(&cache, &uri, JsValue::UNDEFINED).await),
        to_json(&big)
    );
}

#[wasm_bindgen_test]
async fn a_blob_over_the_text_budget_is_stored_and_the_model_sees_a_bounded_text() {
    let cache = idb_cache(&[]);
    let blob = base64(80_000);
    let embedded = block(&[
        ("type", "resource".into()),
        (
            "resource",
            obj(&[
                ("uri", "file:///report.pdf".into()),
                ("mimeType", "application/pdf".into()),
                ("blob", JsValue::from_str(&blob)),
            ]),
        ),
    ]);
    let shown = after(
        &cache,
        &result(&[embedded], &[]),
        &[("maxChars", 2_000.into())],
    )
    .await;
    let out = blocks(&shown);
    assert_eq!(field(&out[0], "type"), JsValue::from_str("resource_link"));
    assert_eq!(
        field(&out[0], "name"),
        JsValue::from_str("file:///report.pdf")
    );
    assert!(to_json(&shown).len() < 2_000, "{}", to_json(&shown));
    let uri = field(&out[0], "uri").as_string().unwrap();
    let data = read(
        &cache,
        &JsValue::from_str(&(uri + "#/resource/blob")),
        JsValue::UNDEFINED,
    )
    .await;
    assert_eq!(data, JsValue::from_str(&blob));
}

#[wasm_bindgen_test]
async fn big_text_shows_a_preview_with_the_reference() {
    let cache = idb_cache(&[]);
    let lines: Vec<String> = (0..5_000).map(|i| format!("line {i}: some text")).collect();
    let text = lines.join("\n");
    // The filesystem server's shape: the text, and `{content: text}` as structuredContent.
    let structured = obj(&[("content", JsValue::from_str(&text))]);
    let original = result(
        &[block(&[
            ("type", "text".into()),
            ("text", JsValue::from_str(&text)),
        ])],
        &[("structuredContent", structured)],
    );
    let shown = after(&cache, &original, &[("maxChars", 4_000.into())]).await;
    let out = blocks(&shown);
    assert_eq!(out.len(), 1);
    let preview = field(&out[0], "text").as_string().unwrap();
    assert!(
        preview.starts_with("line 0: some text\nline 1: some text\n"),
        "{preview}"
    );
    assert!(preview.encode_utf16().count() <= 4_000);
    assert!(preview.contains("5000 lines"), "{preview}");
    let uris = minted(&shown);
    assert_eq!(uris.len(), 1, "the data once; the text is its member");
    assert!(
        preview.contains(&(uris[0].clone() + "#/content")),
        "{preview}"
    );
    assert!(
        field(&shown, "structuredContent").is_undefined(),
        "absent, never rewritten"
    );
    let whole = read(
        &cache,
        &JsValue::from_str(&(uris[0].clone() + "#/content")),
        JsValue::UNDEFINED,
    )
    .await;
    assert_eq!(whole, JsValue::from_str(&text));

    // Plain text with no structured content: the block is stored, the preview points into it.
    let original = result(
        &[block(&[
            ("type", "text".into()),
            ("text", JsValue::from_str(&text)),
        ])],
        &[],
    );
    let shown = after(&cache, &original, &[("maxChars", 4_000.into())]).await;
    let preview = field(&blocks(&shown)[0], "text").as_string().unwrap();
    let uri = minted(&shown)[0].clone();
    assert!(preview.contains(&(uri.clone() + "#/text")), "{preview}");
    let whole = read(
        &cache,
        &JsValue::from_str(&(uri + "#/text")),
        JsValue::UNDEFINED,
    )
    .await;
    assert_eq!(whole, JsValue::from_str(&text));
}

#[wasm_bindgen_test]
async fn the_json_copy_is_replaced_in_place_and_structured_content_stays_true() {
    let cache = idb_cache(&[]);
    let data = rows(2_000);
    let pretty =
        js_sys::JSON::stringify_with_replacer_and_space(&data, &JsValue::NULL, &2.into()).unwrap();
    let original = result(
        &[
            block(&[
                ("type", "text".into()),
                ("text", "Here are the rows:".into()),
            ]),
            block(&[("type", "text".into()), ("text", pretty.into())]),
        ],
        &[("structuredContent", data.clone())],
    );
    let shown = after(&cache, &original, &[]).await;
    let out = blocks(&shown);
    assert_eq!(
        out.len(),
        2,
        "the pretty-printed copy is the data's copy: {}",
        to_json(&shown)
    );
    let summary = json(&field(&out[1], "text").as_string().unwrap());
    assert_eq!(field(&summary, "_truncated"), JsValue::TRUE);
    assert_eq!(
        field(&summary, "_cache_uri").as_string().unwrap(),
        minted(&shown)[0]
    );
    assert!(field(&shown, "structuredContent").is_undefined());

    // Non-object structured content: an array is stored; a number passes as it is.
    let list = field(&data, "rows");
    let original = result(
        &[block(&[
            ("type", "text".into()),
            ("text", JsValue::from_str(&to_json(&list))),
        ])],
        &[("structuredContent", list.clone())],
    );
    let shown = after(&cache, &original, &[]).await;
    assert_eq!(minted(&shown).len(), 1);
    let original = result(
        &[block(&[("type", "text".into()), ("text", "42".into())])],
        &[("structuredContent", 42.into())],
    );
    assert!(Object::is(&after(&cache, &original, &[]).await, &original));
}

#[wasm_bindgen_test]
async fn input_required_and_error_results_are_never_stored() {
    let cache = idb_cache(&[]);
    let data = rows(500);
    for extra in [
        ("resultType", JsValue::from_str("input_required")),
        ("isError", JsValue::TRUE),
    ] {
        let original = result(
            &[block(&[
                ("type", "text".into()),
                ("text", JsValue::from_str(&to_json(&data))),
            ])],
            &[extra],
        );
        let shown = after(&cache, &original, &[]).await;
        assert!(minted(&shown).is_empty());
    }
    let stats = wait(cache.stats()).await.unwrap();
    assert_eq!(field(&stats, "entries"), JsValue::from_f64(0.0));
}
