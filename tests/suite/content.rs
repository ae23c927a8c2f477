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

/// The beginning of `value`'s JSON, for failure messages.
fn brief(value: &JsValue) -> String {
    to_json(value).chars().take(600).collect()
}

/// Characters of text the model reads: texts, embedded texts and blobs.
fn shown_chars(result: &JsValue) -> usize {
    blocks(result)
        .iter()
        .map(|b| {
            let resource = field(b, "resource");
            let of = |k| match resource.is_object() {
                true => field(&resource, k),
                false => JsValue::UNDEFINED,
            };
            [field(b, "text"), of("text"), of("blob")]
                .iter()
                .filter_map(JsValue::as_string)
                .map(|s| s.encode_utf16().count())
                .sum::<usize>()
        })
        .sum()
}

/// The first reference quoted in `text`, without its pointer.
fn quoted_reference(text: &str) -> Option<String> {
    let start = text.find("\"mcp+cache://")? + 1;
    let reference = &text[start..start + text[start..].find('"')?];
    Some(reference.split('#').next().unwrap().to_owned())
}

/// The blocks the server sent, put back together from what the model was shown and the
/// references it holds: kept blocks as they are, a preview's or a link's stored block, every
/// block of a stored array of the blocks not shown. Notes after links stand for nothing.
async fn sent_again(cache: &mcp_result_cache::JsResultCache, shown: &JsValue) -> Vec<String> {
    let mut sent = Vec::new();
    let mut after_link = false;
    for block in blocks(shown) {
        let note = std::mem::take(&mut after_link);
        let uri = field(&block, "uri").as_string().unwrap_or_default();
        if uri.starts_with("mcp+cache://") {
            let stored = read(cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
            sent.push(to_json(&stored));
            after_link = true;
            continue;
        }
        let text = field(&block, "text").as_string().unwrap_or_default();
        match quoted_reference(&text) {
            Some(_) if note => {}
            Some(uri) => {
                let stored = read(cache, &JsValue::from_str(&uri), JsValue::UNDEFINED).await;
                if js_sys::Array::is_array(&stored) {
                    let stored: Array = stored.unchecked_into();
                    sent.extend(stored.iter().map(|b| to_json(&b)));
                } else {
                    sent.push(to_json(&stored));
                }
            }
            None => sent.push(to_json(&block)),
        }
    }
    sent
}

fn text_blocks(n: usize, what: &str) -> Vec<JsValue> {
    (0..n)
        .map(|i| {
            block(&[
                ("type", "text".into()),
                (
                    "text",
                    JsValue::from_str(&format!("{what} {i:04}: {}", "y".repeat(40))),
                ),
            ])
        })
        .collect()
}

async fn entries(cache: &mcp_result_cache::JsResultCache) -> f64 {
    field(&wait(cache.stats()).await.unwrap(), "entries")
        .as_f64()
        .unwrap()
}

#[wasm_bindgen_test]
async fn many_small_texts_stay_within_max_chars_and_every_one_stays_reachable() {
    let cache = idb_cache(&[]);
    let mut sent = text_blocks(5_000, "hit");
    // Short texts among them: none is shown out of its place, after the blocks left out.
    for i in (0..5_000).step_by(7) {
        sent[i] = block(&[("type", "text".into()), ("text", "ok".into())]);
    }
    let original = result(&sent, &[]);
    let shown = after(&cache, &original, &[]).await;
    let chars = shown_chars(&shown);
    assert!(chars <= 20_000 + 1_000, "{chars} characters shown");
    assert!(
        blocks(&shown).len() <= 500,
        "{} blocks",
        blocks(&shown).len()
    );
    // What fits is shown whole, in order; the first text that does not fit is previewed; the
    // rest are stored together, once.
    assert!(Object::is(&blocks(&shown)[0], &sent[0]));
    assert!(entries(&cache).await <= 2.0);
    assert_eq!(minted(&shown).len() as f64, entries(&cache).await);
    let expected: Vec<String> = sent.iter().map(to_json).collect();
    assert!(
        sent_again(&cache, &shown).await == expected,
        "every block reachable, in order"
    );
}

#[wasm_bindgen_test]
async fn many_blobs_and_big_media_stay_within_max_chars_and_keep_their_types() {
    let cache = idb_cache(&[]);
    let mut sent: Vec<JsValue> = (0..2_000)
        .map(|i| {
            block(&[
                ("type", "resource".into()),
                (
                    "resource",
                    obj(&[
                        ("uri", JsValue::from_str(&format!("file:///b{i}.bin"))),
                        ("mimeType", "application/x-b".into()),
                        ("blob", JsValue::from_str(&base64(372))),
                    ]),
                ),
            ])
        })
        .collect();
    // Media over `mediaMaxBytes` after the budget is spent join the blocks not shown.
    sent.extend((0..50).map(|_| {
        block(&[
            ("type", "image".into()),
            ("data", JsValue::from_str(&base64(2_000))),
            ("mimeType", "image/png".into()),
        ])
    }));
    let original = result(&sent, &[]);
    let shown = after(&cache, &original, &[("mediaMaxBytes", 1_000.into())]).await;
    let chars = shown_chars(&shown);
    assert!(chars <= 20_000 + 1_000, "{chars} characters shown");
    // A few blobs stored and linked while their notes fit, then all the others together.
    assert!(entries(&cache).await <= 4.0, "{}", entries(&cache).await);
    assert_eq!(minted(&shown).len() as f64, entries(&cache).await);
    let expected: Vec<String> = sent.iter().map(to_json).collect();
    assert!(
        sent_again(&cache, &shown).await == expected,
        "every block reachable, in order"
    );

    // Big media while the budget lasts: each stored and linked with its type, as before.
    let shown = after(
        &cache,
        &result(&sent[2_000..2_003], &[]),
        &[("mediaMaxBytes", 1_000.into())],
    )
    .await;
    let out = blocks(&shown);
    assert_eq!(out.len(), 6, "a link and a note each: {}", brief(&shown));
    assert_eq!(field(&out[0], "mimeType"), JsValue::from_str("image/png"));
    // One block past the budget is decided on its own: after a preview, a big image is linked.
    let long = block(&[
        ("type", "text".into()),
        ("text", JsValue::from_str(&"z".repeat(30_000))),
    ]);
    let shown = after(
        &cache,
        &result(&[long, sent[2_000].clone()], &[]),
        &[("mediaMaxBytes", 1_000.into())],
    )
    .await;
    let out = blocks(&shown);
    assert_eq!(out.len(), 3, "{}", brief(&shown));
    assert_eq!(field(&out[1], "type"), JsValue::from_str("resource_link"));
    assert_eq!(field(&out[1], "mimeType"), JsValue::from_str("image/png"));
}

#[wasm_bindgen_test]
async fn many_error_blocks_are_cut_to_max_chars_once() {
    let cache = idb_cache(&[]);
    let sent = text_blocks(5_000, "error");
    let total: usize = sent
        .iter()
        .map(|b| field(b, "text").as_string().unwrap().len())
        .sum();
    for extra in [
        ("isError", JsValue::TRUE),
        ("resultType", JsValue::from_str("input_required")),
    ] {
        let original = result(&sent, &[extra]);
        let shown = after(&cache, &original, &[("maxChars", 2_000.into())]).await;
        let chars = shown_chars(&shown);
        assert!(chars <= 2_000, "{chars} characters shown");
        let out = blocks(&shown);
        let marker = field(out.last().unwrap(), "text").as_string().unwrap();
        assert!(
            marker.contains(&format!("this result had {total} characters")),
            "{marker}"
        );
        assert_eq!(
            out.iter()
                .filter(|b| field(b, "text").as_string().unwrap().contains("[truncated"))
                .count(),
            1
        );
    }
    // `enabled: false`: nothing stored, the texts shown stay within maxChars plus one line.
    let shown = after(
        &cache,
        &result(&sent, &[]),
        &[("maxChars", 2_000.into()), ("enabled", false.into())],
    )
    .await;
    let chars = shown_chars(&shown);
    assert!(chars <= 2_000 + 1_000, "{chars} characters shown");
    assert!(minted(&shown).is_empty());
    assert_eq!(entries(&cache).await, 0.0);
}

#[wasm_bindgen_test]
async fn a_failed_calls_structured_content_is_kept_only_within_max_chars() {
    let cache = idb_cache(&[]);
    let error = || {
        block(&[
            ("type", "text".into()),
            ("text", "the query timed out".into()),
        ])
    };
    let failed = ("isError", JsValue::TRUE);
    let small = json(r#"{"code":"TIMEOUT","retryable":true}"#);
    // Small: the very same object.
    let original = result(
        &[error()],
        &[failed.clone(), ("structuredContent", small.clone())],
    );
    let shown = after(&cache, &original, &[("maxChars", 2_000.into())]).await;
    assert_eq!(shown, original);
    // Big (about 120 000 characters of JSON): left out, the text kept.
    let original = result(
        &[error()],
        &[failed.clone(), ("structuredContent", rows(2_000))],
    );
    let shown = after(&cache, &original, &[("maxChars", 2_000.into())]).await;
    assert!(
        field(&shown, "structuredContent").is_undefined(),
        "{}",
        brief(&shown)
    );
    assert_eq!(field(&shown, "isError"), JsValue::TRUE);
    assert_eq!(blocks(&shown).len(), 1);
    assert_eq!(
        field(&blocks(&shown)[0], "text"),
        JsValue::from_str("the query timed out")
    );
    // Small, but with texts that fill maxChars: left out too, and the texts cut once.
    let mut texts = text_blocks(100, "error");
    texts.insert(0, error());
    let original = result(&texts, &[failed, ("structuredContent", small)]);
    let shown = after(&cache, &original, &[("maxChars", 2_000.into())]).await;
    assert!(
        field(&shown, "structuredContent").is_undefined(),
        "{}",
        brief(&shown)
    );
    assert!(shown_chars(&shown) <= 2_000);
    // A result waiting for input is the host's: its structuredContent is passed on.
    let data = rows(2_000);
    let original = result(
        &[error()],
        &[
            ("resultType", "input_required".into()),
            ("structuredContent", data.clone()),
        ],
    );
    let shown = after(&cache, &original, &[("maxChars", 2_000.into())]).await;
    assert_eq!(field(&shown, "structuredContent"), data);
    assert_eq!(entries(&cache).await, 0.0);
}

#[wasm_bindgen_test]
async fn structured_content_without_a_text_copy_is_shown_within_max_chars() {
    let cache = idb_cache(&[]);
    // Big: the summary is shown, with the reference; structuredContent is left out.
    let data = rows(2_000);
    let shown = after(
        &cache,
        &result(&[], &[("structuredContent", data.clone())]),
        &[],
    )
    .await;
    assert!(
        field(&shown, "structuredContent").is_undefined(),
        "{}",
        brief(&shown)
    );
    let out = blocks(&shown);
    assert_eq!(out.len(), 1, "{}", brief(&shown));
    let summary = json(&field(&out[0], "text").as_string().unwrap());
    assert_eq!(field(&summary, "_truncated"), JsValue::TRUE);
    let uri = field(&summary, "_cache_uri");
    assert_eq!(uri.as_string().unwrap(), minted(&shown)[0]);
    assert!(shown_chars(&shown) <= 20_000);
    assert_eq!(
        to_json(&read(&cache, &uri, JsValue::UNDEFINED).await),
        to_json(&data)
    );
    // The same after a text that is not its copy.
    let said = block(&[("type", "text".into()), ("text", "2000 rows".into())]);
    let shown = after(
        &cache,
        &result(
            std::slice::from_ref(&said),
            &[("structuredContent", data.clone())],
        ),
        &[],
    )
    .await;
    assert!(field(&shown, "structuredContent").is_undefined());
    let out = blocks(&shown);
    assert!(Object::is(&out[0], &said));
    assert_eq!(
        field(
            &json(&field(&out[1], "text").as_string().unwrap()),
            "_truncated"
        ),
        JsValue::TRUE
    );

    // Stored, and within maxChars: the whole payload with its reference; structuredContent stays.
    let data = rows(100);
    let shown = after(
        &cache,
        &result(&[], &[("structuredContent", data.clone())]),
        &[],
    )
    .await;
    let visible = json(&field(&blocks(&shown)[0], "text").as_string().unwrap());
    assert_eq!(
        field(&visible, "_cache_uri").as_string().unwrap(),
        minted(&shown)[0]
    );
    assert_eq!(
        to_json(&field(&visible, "rows")),
        to_json(&field(&data, "rows"))
    );
    assert!(Object::is(&field(&shown, "structuredContent"), &data));
}

#[wasm_bindgen_test]
async fn a_text_after_a_summarized_json_copy_is_still_shown() {
    let cache = idb_cache(&[]);
    let data = rows(2_000);
    let note = block(&[
        ("type", "text".into()),
        ("text", JsValue::from_str(&"n".repeat(3_000))),
    ]);
    let original = result(
        &[
            block(&[
                ("type", "text".into()),
                ("text", JsValue::from_str(&to_json(&data))),
            ]),
            note.clone(),
        ],
        &[],
    );
    let shown = after(&cache, &original, &[]).await;
    let out = blocks(&shown);
    assert_eq!(out.len(), 2, "{}", brief(&shown));
    assert!(Object::is(&out[1], &note), "{}", brief(&shown));
    assert_eq!(minted(&shown).len(), 1);
}
