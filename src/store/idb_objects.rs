//! The plain objects the IndexedDB store writes (records, usage rows, totals rows), each built
//! by one call into `idb_objects.js` rather than one boundary crossing per property: on a 4 KB
//! write those crossings (a string decoded for every field name, a catching `Reflect.set` for
//! every field) cost more than the requests they feed. The field names are those of
//! docs/PROTOCOL.md (*Storage*) and [`crate::core::record::fields`]. Also the upgrade's cursor
//! walks, whose listeners are JS functions that go with their requests.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::{IdbDatabase, IdbObjectStore, IdbTransaction};

use super::JsRecord;
use crate::core::record::{fields, UNKNOWN_SOURCE_TOOL};

#[wasm_bindgen(module = "/src/store/idb_objects.js")]
extern "C" {
    #[wasm_bindgen(js_name = mcpCacheRecord)]
    fn record_object(
        uri: &JsValue,
        payload: &JsValue,
        conv_id: &str,
        source_tool_name: &str,
        added_at: f64,
        size_bytes: f64,
        last_used_at: f64,
    ) -> Object;

    #[wasm_bindgen(js_name = mcpCacheUsageRow)]
    fn usage_row_object(record: &JsValue, unknown_tool: &str) -> Object;

    /// The bytes of a clear's key range (its usage rows, `rows`), when every row is `conv_id`'s
    /// and has a tool name; -1 otherwise.
    #[wasm_bindgen(js_name = mcpCacheRangeBytes)]
    pub(super) fn range_bytes(rows: &Array, conv_id: &JsValue) -> f64;

    /// `{bytes, entries, exact: true}`: the store-wide totals row.
    #[wasm_bindgen(js_name = mcpCacheTotalsRow)]
    pub(super) fn totals_row(bytes: f64, entries: f64) -> Object;

    #[wasm_bindgen(js_name = mcpCacheBackfillUsage, catch)]
    fn backfill_usage_rows(
        results: &IdbObjectStore,
        usage: &IdbObjectStore,
        unknown_tool: &str,
    ) -> Result<(), JsValue>;

    #[wasm_bindgen(js_name = mcpCacheNameUsageRows, catch)]
    fn name_usage_rows_from(
        results: &IdbObjectStore,
        usage: &IdbObjectStore,
        index: &str,
        unknown_tool: &str,
    ) -> Result<(), JsValue>;

    /// `tx.commit()`, when the engine has it and the transaction is still active.
    ///
    /// [MDN: IDBTransaction.commit](https://developer.mozilla.org/docs/Web/API/IDBTransaction/commit)
    #[wasm_bindgen(js_name = mcpCacheCommit)]
    pub(super) fn commit(tx: &IdbTransaction);

    /// `db.transaction(storeNames, "readwrite", { durability: "relaxed" })`: web-sys gates the
    /// options dictionary behind `web_sys_unstable_apis`.
    ///
    /// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
    #[wasm_bindgen(js_name = mcpCacheRelaxedWrite, catch)]
    pub(super) fn relaxed_write_transaction(
        db: &IdbDatabase,
        store_names: &JsValue,
    ) -> Result<IdbTransaction, JsValue>;
}

/// `{uri, convId, sizeBytes, lastUsedAt, sourceToolName}` of a stored record (chatbox-core
/// records have no `lastUsedAt`: their `addedAt` stands in; a missing size counts 0, a missing
/// tool name is [`UNKNOWN_SOURCE_TOOL`], passed in so that the name is written once, in Rust).
pub(super) fn usage_row(record: &JsValue) -> Object {
    usage_row_object(record, UNKNOWN_SOURCE_TOOL)
}

/// Inside an upgrade: writes a usage row for every record (a walk of its own; it ends with the
/// upgrade transaction). Fails with what opening the walk threw.
pub(super) fn backfill_usage(
    results: &IdbObjectStore,
    usage: &IdbObjectStore,
) -> Result<(), JsValue> {
    backfill_usage_rows(results, usage, UNKNOWN_SOURCE_TOOL)
}

/// Inside an upgrade from versions 2 to 4: names every usage row from the retired tool-name
/// `index` of the records, then deletes the index (two walks; `"<unknown>"` for a record the
/// index did not hold). Fails with what opening the first walk threw.
pub(super) fn name_usage_rows(
    results: &IdbObjectStore,
    usage: &IdbObjectStore,
    index: &str,
) -> Result<(), JsValue> {
    name_usage_rows_from(results, usage, index, UNKNOWN_SOURCE_TOOL)
}

/// The stored object of `record`: `{uri, payload, convId, sourceToolName, addedAt, sizeBytes,
/// lastUsedAt, staleCause?, derivedFrom?}`, with `uri` the record's URI already made a JS string (the write
/// uses the same value as the key it reports).
pub(super) fn record(record: &JsRecord, uri: &JsValue) -> Object {
    let obj = record_object(
        uri,
        &record.payload,
        &record.conv_id,
        &record.source_tool_name,
        record.added_at,
        record.size_bytes,
        record.last_used_at,
    );
    if let Some(cause) = &record.stale_cause {
        // Setting a data property on a fresh plain object cannot fail.
        let _ = Reflect::set(&obj, &fields::STALE_CAUSE.into(), &JsValue::from_str(cause));
    }
    if let Some(source) = &record.derived_from {
        let _ = Reflect::set(
            &obj,
            &fields::DERIVED_FROM.into(),
            &JsValue::from_str(source),
        );
    }
    obj
}
