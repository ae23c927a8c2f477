//! Read-through of chatbox-core 0.12 databases: a v1 database built by hand exactly as
//! chatbox-core builds it, read without creating, upgrading or blocking anything.

use js_sys::{Array, Function, Promise, Reflect};
use mcp_result_cache::store::{LegacyChatboxStore, CHATBOX_CORE_DB_NAME};
use mcp_result_cache::JsResultCache as ResultCache;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::*;

/// Calls a JS function built from `params` and `body`, awaiting the promise it returns.
async fn js(params: &str, body: &str, args: &[JsValue]) -> JsValue {
    let f = Function::new_with_args(params, body);
    let out = f
        .apply(&JsValue::NULL, &args.iter().collect::<Array>())
        .unwrap();
    wait(Promise::resolve(&out)).await.unwrap()
}

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn strings(v: &JsValue) -> Vec<String> {
    let mut out: Vec<String> = v
        .unchecked_ref::<Array>()
        .iter()
        .map(|x| x.as_string().unwrap())
        .collect();
    out.sort();
    out
}

/// A database name for this test only.
fn legacy_name() -> String {
    format!("{}-chatbox-core", fresh_db())
}

/// A chatbox-core record: `{uri, payload: {tag, rows}, convId, sourceToolName?, addedAt, sizeBytes}`.
fn record(conv: &str, token: &str, tool: Option<&str>) -> JsValue {
    let tool = tool.map_or(String::new(), |t| format!(r#""sourceToolName":"{t}","#));
    json(&format!(
        r#"{{"uri":"mcp+cache://{conv}/{token}","payload":{{"tag":"{token}","rows":[{{"t":1,"v":2}},{{"t":2,"v":3}}]}},
            "convId":"{conv}",{tool}"addedAt":1700000000000,"sizeBytes":6144}}"#
    ))
}

/// Creates chatbox-core 0.12's schema (version 1) holding `records`. With `keep`, resolves the
/// open connection, which — like a chatbox-core tab — never closes on `versionchange` (it counts
/// them in `globalThis.legacyVersionChanges`); otherwise closes it.
async fn create_v1(name: &str, records: &[JsValue], keep: bool) -> JsValue {
    js(
        "name, records, keep",
        "globalThis.legacyVersionChanges = 0;
         return new Promise((resolve, reject) => {
           const req = indexedDB.open(name, 1);
           req.onupgradeneeded = () => {
             const store = req.result.createObjectStore('results', { keyPath: 'uri' });
             store.createIndex('convId', 'convId');
             store.createIndex('addedAt', 'addedAt');
             for (const r of records) store.put(r);
           };
           req.onsuccess = () => {
             const db = req.result;
             if (!keep) { db.close(); resolve(undefined); return; }
             db.onversionchange = () => { globalThis.legacyVersionChanges++; };
             resolve(db);
           };
           req.onerror = () => reject(req.error);
           req.onblocked = () => reject(new Error('blocked'));
         });",
        &[
            name.into(),
            records.iter().collect::<Array>().into(),
            keep.into(),
        ],
    )
    .await
}

/// `{version, stores, indexes}` of an existing database, from a fresh open without a version.
async fn schema(name: &str) -> JsValue {
    js(
        "name",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name);
           req.onupgradeneeded = () => reject(new Error('the database did not exist'));
           req.onsuccess = () => {
             const db = req.result;
             const indexes = [...db.transaction('results').objectStore('results').indexNames];
             const out = { version: db.version, stores: [...db.objectStoreNames], indexes };
             db.close();
             resolve(out);
           };
           req.onerror = () => reject(req.error);
         });",
        &[name.into()],
    )
    .await
}

/// Whether `indexedDB.databases()` lists `name`.
async fn listed(name: &str) -> bool {
    js(
        "name",
        "return indexedDB.databases().then((all) => all.some((d) => d.name === name));",
        &[name.into()],
    )
    .await
    .as_bool()
    .unwrap()
}

fn tag(record: &Option<mcp_result_cache::store::JsRecord>) -> Option<String> {
    record
        .as_ref()
        .map(|r| field(&r.payload, "tag").as_string().unwrap())
}

/// The `tag` of each of `uris` as `store` reads them (`None`: absent).
async fn tags_of(store: &LegacyChatboxStore, uris: &[&str]) -> Vec<Option<String>> {
    store
        .get_many(uris)
        .await
        .unwrap()
        .iter()
        .map(tag)
        .collect()
}

#[wasm_bindgen_test]
async fn reads_a_v1_database_held_open_by_chatbox_core_without_upgrading_it() {
    let name = legacy_name();
    let old = record("chat-1", "OLDTOKEN001", Some("timeseries.query"));
    let no_tool = record("chat-2", "OLDTOKEN002", None);
    let holder = create_v1(&name, &[old, no_tool], true).await;
    let store = LegacyChatboxStore::with_name(&name);
    let got = store
        .get_many(&[
            "mcp+cache://chat-1/OLDTOKEN001",
            "mcp+cache://chat-1/NOSUCHTOKEN",
            "mcp+cache://chat-2/OLDTOKEN002",
        ])
        .await
        .unwrap();
    assert_eq!(
        got.iter().map(tag).collect::<Vec<_>>(),
        [Some("OLDTOKEN001".into()), None, Some("OLDTOKEN002".into())]
    );
    let first = got[0].as_ref().unwrap();
    assert_eq!(first.uri, "mcp+cache://chat-1/OLDTOKEN001");
    assert_eq!(first.conv_id, "chat-1");
    assert_eq!(first.source_tool_name, "timeseries.query");
    assert_eq!(first.added_at, 1_700_000_000_000.0);
    assert_eq!(first.last_used_at, first.added_at);
    assert_eq!(first.size_bytes, 6144.0);
    assert_eq!(first.stale_cause, None);
    assert_eq!(
        to_json(&field(&first.payload, "rows")),
        r#"[{"t":1,"v":2},{"t":2,"v":3}]"#
    );
    let second = got[2].as_ref().unwrap();
    assert_eq!(second.conv_id, "chat-2");
    assert_eq!(second.source_tool_name, "<unknown>");

    // chatbox-core's connection saw no version change and still has version 1.
    assert_eq!(field(&holder, "version"), 1);
    assert_eq!(
        js("", "return globalThis.legacyVersionChanges;", &[]).await,
        0
    );
    store.close();
    let after = schema(&name).await;
    assert_eq!(field(&after, "version"), 1);
    assert_eq!(strings(&field(&after, "stores")), ["results"]);
    assert_eq!(strings(&field(&after, "indexes")), ["addedAt", "convId"]);
    holder.unchecked_ref::<web_sys::IdbDatabase>().close();
}

#[wasm_bindgen_test]
async fn an_absent_database_reads_as_empty_and_is_never_created() {
    assert_eq!(LegacyChatboxStore::new().name(), CHATBOX_CORE_DB_NAME);
    let name = legacy_name();
    let store = LegacyChatboxStore::with_name(&name);
    let got = store
        .get_many(&["mcp+cache://chat-1/A", "mcp+cache://chat-1/B"])
        .await
        .unwrap();
    assert!(got.iter().all(Option::is_none));
    assert_eq!(got.len(), 2);
    assert_eq!(store.delete_conversation("chat-1").await.unwrap(), 0);
    store.close();
    assert_eq!(
        store
            .get_many(&["mcp+cache://chat-1/A"])
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(!listed(&name).await, "the reader created the database");
}

#[wasm_bindgen_test]
async fn without_indexeddb_databases_the_open_is_aborted_and_nothing_is_created() {
    let absent = legacy_name();
    let present = legacy_name();
    create_v1(
        &present,
        &[record("chat-1", "OLDTOKEN001", Some("timeseries.query"))],
        false,
    )
    .await;
    // A browser without IDBFactory.databases() (Firefox before 126): the reader must open
    // without a version and abort the upgrade that reveals a missing database.
    let hidden = js(
        "",
        "globalThis.savedDatabases = IDBFactory.prototype.databases;
         delete IDBFactory.prototype.databases;
         return typeof indexedDB.databases === 'undefined';",
        &[],
    )
    .await;
    let absent_store = LegacyChatboxStore::with_name(&absent);
    let missing = absent_store.get_many(&["mcp+cache://chat-1/A"]).await;
    let cleared = absent_store.delete_conversation("chat-1").await;
    let present_store = LegacyChatboxStore::with_name(&present);
    let found = present_store
        .get_many(&["mcp+cache://chat-1/OLDTOKEN001"])
        .await;
    js(
        "",
        "IDBFactory.prototype.databases = globalThis.savedDatabases;",
        &[],
    )
    .await;
    assert_eq!(hidden, JsValue::TRUE, "databases() could not be hidden");
    assert!(missing.unwrap()[0].is_none());
    assert_eq!(cleared.unwrap(), 0);
    assert_eq!(tag(&found.unwrap()[0]).as_deref(), Some("OLDTOKEN001"));
    assert!(!listed(&absent).await, "the aborted open left a database");
    assert_eq!(field(&schema(&present).await, "version"), 1);
}

#[wasm_bindgen_test]
async fn absence_is_remembered_until_close() {
    let name = legacy_name();
    let uri = "mcp+cache://chat-1/OLDTOKEN001";
    let store = LegacyChatboxStore::with_name(&name);
    assert!(store.get_many(&[uri]).await.unwrap()[0].is_none());
    // chatbox-core creates its database after the reader looked.
    create_v1(&name, &[record("chat-1", "OLDTOKEN001", None)], false).await;
    assert!(
        store.get_many(&[uri]).await.unwrap()[0].is_none(),
        "a recent absence is answered without another check"
    );
    store.close();
    assert_eq!(
        tag(&store.get_many(&[uri]).await.unwrap()[0]).as_deref(),
        Some("OLDTOKEN001")
    );
}

#[wasm_bindgen_test]
async fn a_clear_looks_again_within_a_remembered_absence() {
    let name = legacy_name();
    let uri = "mcp+cache://chat-1/OLDTOKEN001";
    let store = LegacyChatboxStore::with_name(&name);
    assert!(store.get_many(&[uri]).await.unwrap()[0].is_none());
    // chatbox-core stores a result of the conversation after the reader found no database.
    create_v1(&name, &[record("chat-1", "OLDTOKEN001", None)], false).await;
    assert_eq!(
        store.delete_conversation("chat-1").await.unwrap(),
        1,
        "the clear found the new database despite the remembered absence"
    );
    store.close();
    assert!(
        store.get_many(&[uri]).await.unwrap()[0].is_none(),
        "the conversation's record is gone"
    );
}

#[wasm_bindgen_test]
async fn delete_conversation_removes_exactly_that_conversation() {
    let name = legacy_name();
    let records = [
        record("chat-1", "A1", None),
        record("chat-1", "A2", None),
        record("chat-10", "B1", None),
        record("chat-2", "C1", None),
    ];
    let holder = create_v1(&name, &records, true).await;
    let store = LegacyChatboxStore::with_name(&name);
    assert_eq!(store.delete_conversation("chat-1").await.unwrap(), 2);
    let uris = [
        "mcp+cache://chat-1/A1",
        "mcp+cache://chat-1/A2",
        "mcp+cache://chat-10/B1",
        "mcp+cache://chat-2/C1",
    ];
    assert_eq!(
        tags_of(&store, &uris).await,
        [None, None, Some("B1".into()), Some("C1".into())]
    );
    assert_eq!(store.delete_conversation("chat-1").await.unwrap(), 0);
    // Seen from chatbox-core's own connection: gone, and still version 1.
    let left = js(
        "db",
        "return new Promise((resolve) => {
           const req = db.transaction('results').objectStore('results').getAllKeys();
           req.onsuccess = () => resolve(req.result);
         });",
        std::slice::from_ref(&holder),
    )
    .await;
    assert_eq!(
        strings(&left),
        ["mcp+cache://chat-10/B1", "mcp+cache://chat-2/C1"]
    );
    assert_eq!(field(&holder, "version"), 1);
    assert_eq!(
        js("", "return globalThis.legacyVersionChanges;", &[]).await,
        0
    );
    store.close();
    holder.unchecked_ref::<web_sys::IdbDatabase>().close();
}

/// chatbox-core stored an id outside `[A-Za-z0-9_-]` (or over 64 UTF-16 units) as its
/// `sanitizeConvId` rewrote it: clearing the host's id clears those records, as chatbox-core's
/// own clear did, and leaves other conversations alone.
#[wasm_bindgen_test]
async fn a_clear_finds_the_id_as_chatbox_core_rewrote_it() {
    let name = legacy_name();
    let long = "x".repeat(64);
    let records = [
        record("user_42", "A1", None),
        record("user_43", "B1", None),
        record(&long, "C1", None),
        record("default", "D1", None),
        record("_", "E1", None),
    ];
    create_v1(&name, &records, false).await;
    let store = LegacyChatboxStore::with_name(&name);
    assert_eq!(store.delete_conversation("user:42").await.unwrap(), 1);
    assert_eq!(store.delete_conversation(&"x".repeat(70)).await.unwrap(), 1);
    assert_eq!(store.delete_conversation("").await.unwrap(), 1);
    // One UTF-16 unit, one `_` (chatbox-core's expression has no `u` flag): "é" is one unit.
    assert_eq!(store.delete_conversation("é").await.unwrap(), 1);
    let uris = [
        "mcp+cache://user_42/A1",
        "mcp+cache://user_43/B1",
        "mcp+cache://default/D1",
        "mcp+cache://_/E1",
    ];
    assert_eq!(
        tags_of(&store, &uris).await,
        [None, Some("B1".into()), None, None]
    );
    store.close();
}

#[wasm_bindgen_test]
async fn our_connection_never_blocks_a_chatbox_core_upgrade() {
    let name = legacy_name();
    create_v1(&name, &[record("chat-1", "OLDTOKEN001", None)], false).await;
    let store = LegacyChatboxStore::with_name(&name);
    let uri = "mcp+cache://chat-1/OLDTOKEN001";
    assert!(store.get_many(&[uri]).await.unwrap()[0].is_some());
    // chatbox-core upgrades its database while our connection is open.
    let upgrade = js(
        "name",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name, 2);
           req.onblocked = () => resolve({ blocked: true }); // would wait for us forever
           req.onupgradeneeded = () => req.result.createObjectStore('extra');
           req.onsuccess = () => { const v = req.result.version; req.result.close(); resolve({ blocked: false, version: v }); };
           req.onerror = () => reject(req.error);
         });",
        &[name.as_str().into()],
    )
    .await;
    assert_eq!(field(&upgrade, "blocked"), JsValue::FALSE);
    assert_eq!(field(&upgrade, "version"), 2);
    // The next read reopens, at the version chatbox-core chose.
    assert!(store.get_many(&[uri]).await.unwrap()[0].is_some());
    assert_eq!(field(&schema(&name).await, "version"), 2);
    store.close();
}

#[wasm_bindgen_test]
async fn an_open_queued_behind_a_blocked_upgrade_times_out_then_recovers() {
    let name = legacy_name();
    let holder = create_v1(&name, &[record("chat-1", "OLDTOKEN001", None)], true).await;
    // Someone upgrades while chatbox-core holds the database: that upgrade is blocked, and any
    // open queued after it waits too.
    js(
        "name",
        "globalThis.legacyUpgrade = new Promise((resolve, reject) => {
           const req = indexedDB.open(name, 2);
           req.onsuccess = () => { req.result.close(); resolve(); };
           req.onerror = () => reject(req.error);
         });",
        &[name.as_str().into()],
    )
    .await;
    let store = LegacyChatboxStore::with_name(&name);
    let uri = "mcp+cache://chat-1/OLDTOKEN001";
    let err = store.get_many(&[uri]).await.unwrap_err();
    assert_eq!(err.name(), "TimeoutError");
    // chatbox-core's tab goes away: the upgrade runs, and the queued open is kept.
    holder.unchecked_ref::<web_sys::IdbDatabase>().close();
    js("", "return globalThis.legacyUpgrade;", &[]).await;
    assert_eq!(
        tag(&store.get_many(&[uri]).await.unwrap()[0]).as_deref(),
        Some("OLDTOKEN001")
    );
    store.close();
}

/// A database of an earlier schema of this package (records indexed by tool name; usage rows
/// without it, or no usage store at all) is upgraded in place: the index goes, every usage row
/// gets its record's tool name (`"<unknown>"` for a record that had none), nothing else changes,
/// and invalidation by tool finds exactly the matching entries.
/// The `sourceToolName` of every usage row of database `name`, as stored.
async fn usage_tool_names(name: &str) -> JsValue {
    js(
        "name",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name);
           req.onsuccess = () => {
             const get = req.result.transaction('usage').objectStore('usage').getAll();
             get.onsuccess = () => { req.result.close(); resolve(get.result.map((row) => row.sourceToolName)); };
           };
           req.onerror = () => reject(req.error);
         });",
        &[name.into()],
    )
    .await
}

async fn tool_names_move_to_the_usage_rows(version: u32, with_usage: bool) {
    let name = fresh_db();
    let records = [
        record("c", "TOKENA001", Some("billing.get_invoice")),
        record("c", "TOKENB002", Some("tasks.get")),
        record("d", "TOKENC003", None),
    ];
    js(
        "name, records, version, withUsage",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name, version);
           req.onupgradeneeded = () => {
             const db = req.result;
             const results = db.createObjectStore('results', { keyPath: 'uri' });
             for (const index of ['convId', 'addedAt', 'sourceToolName']) results.createIndex(index, index);
             for (const r of records) results.put(r);
             if (!withUsage) return;
             const usage = db.createObjectStore('usage', { keyPath: 'uri' });
             usage.createIndex('lastUsedAt', 'lastUsedAt');
             const meta = db.createObjectStore('meta');
             let bytes = 0;
             for (const r of records) {
               usage.put({ uri: r.uri, convId: r.convId, sizeBytes: r.sizeBytes, lastUsedAt: r.addedAt });
               bytes += r.sizeBytes;
             }
             meta.put({ bytes, entries: records.length }, 'totals');
           };
           req.onsuccess = () => { req.result.close(); resolve(); };
           req.onerror = () => reject(req.error);
         });",
        &[
            name.clone().into(),
            records.iter().collect::<Array>().into(),
            version.into(),
            with_usage.into(),
        ],
    )
    .await;
    let cache = idb_cache(&[("dbName", name.clone().into())]);
    let count = wait(cache.invalidate(
        json(r#"["billing.*"]"#),
        Some(obj(&[("cause", "billing.refund".into())])),
    ))
    .await
    .unwrap();
    assert_eq!(count.as_f64(), Some(1.0), "v{version}");
    for (uri, expected) in [
        ("mcp+cache://c/TOKENA001", "stale"),
        ("mcp+cache://c/TOKENB002", "hit"),
        ("mcp+cache://d/TOKENC003", "hit"),
    ] {
        let looked = wait(cache.lookup(uri.into(), None)).await.unwrap();
        assert_eq!(field(&looked, "status"), expected, "v{version} {uri}");
    }
    let stats = wait(cache.stats()).await.unwrap();
    assert_eq!(field(&stats, "entries").as_f64(), Some(3.0), "v{version}");
    cache.close();
    let after = schema(&name).await;
    assert_eq!(field(&after, "version").as_f64(), Some(5.0));
    assert_eq!(strings(&field(&after, "indexes")), ["addedAt", "convId"]);
    let tools = usage_tool_names(&name).await;
    assert_eq!(
        strings(&tools),
        ["<unknown>", "billing.get_invoice", "tasks.get"]
    );
}

#[wasm_bindgen_test]
async fn a_version_4_database_moves_tool_names_to_the_usage_rows() {
    tool_names_move_to_the_usage_rows(4, true).await;
}

#[wasm_bindgen_test]
async fn a_database_with_the_tool_index_but_no_usage_store_gets_named_usage_rows() {
    tool_names_move_to_the_usage_rows(2, false).await;
}

/// Two tabs on different releases during a deploy: an older build, which knew no tool names on
/// usage rows, keeps writing into this schema. Invalidation still finds its entries through
/// their records, and names the rows for next time.
#[wasm_bindgen_test]
async fn usage_rows_an_older_build_wrote_without_tool_names_are_still_invalidated() {
    let name = fresh_db();
    let options = [
        ("dbName", JsValue::from(name.clone())),
        ("threshold", 0.into()),
    ];
    let cache = idb_cache(&options);
    let mut uris = Vec::new();
    for tool in ["billing.get_invoice", "tasks.get"] {
        let input = obj(&[
            ("payload", rows(3)),
            ("convId", "c".into()),
            ("sourceToolName", tool.into()),
        ]);
        let uri = wait(cache.cache_tool_result(input)).await.unwrap();
        assert!(uri.is_string(), "cached: {uri:?}");
        uris.push(uri);
    }
    cache.close();
    // What the older build leaves: the record has its tool name, the usage row none.
    js(
        "name",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name);
           req.onsuccess = () => {
             const tx = req.result.transaction('usage', 'readwrite');
             const usage = tx.objectStore('usage');
             const all = usage.getAll();
             all.onsuccess = () => { for (const row of all.result) { delete row.sourceToolName; usage.put(row); } };
             tx.oncomplete = () => { req.result.close(); resolve(); };
             tx.onabort = () => reject(tx.error);
           };
           req.onerror = () => reject(req.error);
         });",
        &[name.clone().into()],
    )
    .await;
    let cache = idb_cache(&options);
    let count = wait(cache.invalidate(json(r#"["billing.*"]"#), None))
        .await
        .unwrap();
    assert_eq!(count.as_f64(), Some(1.0));
    for (uri, expected) in uris.iter().zip(["stale", "hit"]) {
        let looked = wait(cache.lookup(uri.clone(), None)).await.unwrap();
        assert_eq!(field(&looked, "status"), expected);
    }
    cache.close();
    let tools = usage_tool_names(&name).await;
    assert_eq!(strings(&tools), ["billing.get_invoice", "tasks.get"]);
}

/// A cache whose `dbName` is chatbox-core's upgrades that database in place; a read-through
/// clear of it (another cache's `legacyChatboxCore`) then deletes records and usage rows
/// behind the first cache's totals. The totals go with them: the first cache's next operation
/// recounts, so its budget and `stats()` match what is stored, and its own clears stay exact.
#[wasm_bindgen_test]
async fn a_read_through_clear_of_an_upgraded_database_leaves_totals_that_match() {
    let name = legacy_name();
    let records = [
        record("chat-1", "A1", Some("billing.get_invoice")),
        record("chat-1", "A2", None),
        record("chat-2", "C1", None),
    ];
    create_v1(&name, &records, false).await;
    let owner = idb_cache(&[("dbName", name.clone().into()), ("threshold", 0.into())]);
    // A write stores the totals the owner keeps from then on.
    let first = put(&owner, &rows(3), "chat-2").await.expect("cached");
    let before = wait(owner.stats()).await.unwrap();
    assert_eq!(field(&before, "entries").as_f64(), Some(4.0));
    let written = field(&before, "bytes").as_f64().unwrap() - 3.0 * 6144.0;

    let reader = LegacyChatboxStore::with_name(&name);
    assert_eq!(reader.delete_conversation("chat-1").await.unwrap(), 2);
    reader.close();

    let after = wait(owner.stats()).await.unwrap();
    assert_eq!(field(&after, "entries").as_f64(), Some(2.0));
    assert_eq!(field(&after, "bytes").as_f64(), Some(6144.0 + written));
    let second = put(&owner, &rows(3), "chat-2").await.expect("cached");
    let stats = wait(owner.stats()).await.unwrap();
    assert_eq!(field(&stats, "entries").as_f64(), Some(3.0));
    wait(owner.clear_conversation("chat-2".into()))
        .await
        .unwrap();
    let cleared = wait(owner.stats()).await.unwrap();
    assert_eq!(field(&cleared, "entries").as_f64(), Some(0.0));
    assert_eq!(field(&cleared, "bytes").as_f64(), Some(0.0));
    for uri in [first, second] {
        let looked = wait(owner.lookup(uri.into(), None)).await.unwrap();
        assert_eq!(field(&looked, "status"), "miss");
    }
    owner.close();
}

/// What a tab on the 0.1 release (schema 3: no totals) does to database `name` during a deploy:
/// writes entry `mcp+cache://<conv>/<token>` (100 bytes; a usage row without a tool name) and,
/// given `delete`, deletes that entry, all in one transaction that never touches the totals.
async fn write_as_old_build(name: &str, conv: &str, token: &str, delete: Option<&str>) {
    js(
        "name, conv, token, other",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.open(name);
           req.onsuccess = () => {
             const tx = req.result.transaction(['results', 'usage'], 'readwrite');
             const uri = `mcp+cache://${conv}/${token}`;
             tx.objectStore('results').put({ uri, payload: { old: true }, convId: conv, sourceToolName: 'x.get', addedAt: 1, sizeBytes: 100 });
             tx.objectStore('usage').put({ uri, convId: conv, sizeBytes: 100, lastUsedAt: 1 });
             if (other) { tx.objectStore('results').delete(other); tx.objectStore('usage').delete(other); }
             tx.oncomplete = () => { req.result.close(); resolve(); };
             tx.onabort = () => reject(tx.error);
           };
           req.onerror = () => reject(req.error);
         });",
        &[name.into(), conv.into(), token.into(), delete.map_or(JsValue::NULL, JsValue::from)],
    )
    .await;
}

/// One entry stored in `c` and one in `d` (`per_entry` bytes each), then a 0.1 tab writes
/// `<conv>/<token>` (and deletes d's entry, given `delete_d`), then `c` is cleared. Answers the
/// cache, d's entry, `per_entry` and the stats after the clear.
async fn clear_after_old_build(
    conv: &str,
    token: &str,
    delete_d: bool,
) -> (ResultCache, String, f64, JsValue) {
    let name = fresh_db();
    let cache = idb_cache(&[("dbName", name.clone().into()), ("threshold", 0.into())]);
    put(&cache, &rows(3), "c").await.expect("cached");
    let d = put(&cache, &rows(3), "d").await.expect("cached");
    let per_entry = field(&wait(cache.stats()).await.unwrap(), "bytes")
        .as_f64()
        .unwrap()
        / 2.0;
    write_as_old_build(&name, conv, token, delete_d.then_some(d.as_str())).await;
    wait(cache.clear_conversation("c".into())).await.unwrap();
    let after = wait(cache.stats()).await.unwrap();
    (cache, d, per_entry, after)
}

/// The 0.1 tab writes into another conversation than the one cleared: no row of the cleared
/// range shows it, but the usage rows then number more than the totals count, so the clear
/// recounts and the totals match what is stored.
#[wasm_bindgen_test]
async fn a_clear_after_a_skipped_write_elsewhere_leaves_exact_totals() {
    let (cache, _, per_entry, after) = clear_after_old_build("d", "OLDBUILD03", false).await;
    assert_eq!(field(&after, "entries").as_f64(), Some(2.0));
    assert_eq!(field(&after, "bytes").as_f64(), Some(per_entry + 100.0));
    cache.close();
}

/// The same 0.1 tab writes into the conversation and also deletes another's entry (its eviction,
/// or its clear), so the usage rows still number what the totals count: the row it wrote, which
/// has no tool name, still makes the clear recount, and the totals match what is stored.
#[wasm_bindgen_test]
async fn a_clear_after_a_skipped_write_and_a_skipped_delete_leaves_exact_totals() {
    let (cache, _, _, after) = clear_after_old_build("c", "OLDBUILD02", true).await;
    assert_eq!(field(&after, "entries").as_f64(), Some(0.0));
    assert_eq!(field(&after, "bytes").as_f64(), Some(0.0));
    cache.close();
}

/// A tab on the 0.1 release (schema 3: no totals) writes into this schema during a deploy: its
/// entry is not in this release's totals. Clearing that conversation declines the key-range
/// check and recounts, so the totals match what is stored afterwards instead of drifting further.
#[wasm_bindgen_test]
async fn a_clear_after_writes_that_skipped_the_totals_leaves_exact_totals() {
    // What such a tab leaves: a record and a usage row, no totals.
    let (cache, kept, per_entry, after) = clear_after_old_build("c", "OLDBUILD01", false).await;
    assert_eq!(field(&after, "entries").as_f64(), Some(1.0));
    assert_eq!(field(&after, "bytes").as_f64(), Some(per_entry));
    let looked = wait(cache.lookup(kept.into(), None)).await.unwrap();
    assert_eq!(field(&looked, "status"), "hit");
    let gone = wait(cache.lookup("mcp+cache://c/OLDBUILD01".into(), None))
        .await
        .unwrap();
    assert_eq!(field(&gone, "status"), "miss");
    cache.close();
}
