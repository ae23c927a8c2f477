//! The schema of a database this store opens: its object stores and indexes, and the
//! `upgradeneeded` handler that creates what is missing and never deletes anything (a
//! chatbox-core database, version 1, is upgraded in place and keeps every entry).

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbObjectStoreParameters, IdbOpenDbRequest, IdbRequest};

use crate::core::record::fields;
use crate::store::idb_objects;

/// Version our schema lives at. chatbox-core databases are version 1; opening one upgrades it.
/// Version 4 added the `meta` store; version 5 moved the tool name from an index of the records
/// to the usage rows (see `upgrade_schema`).
pub const SCHEMA_VERSION: u32 = 5;
/// Running totals (`{bytes, entries}` under the key `"totals"`).
pub const META_STORE: &str = "meta";
/// The object store holding the records.
pub const STORE_NAME: &str = "results";
/// Small per-entry metadata `{uri, convId, sizeBytes, lastUsedAt, sourceToolName}`, kept apart
/// from the records so a hit can refresh `lastUsedAt`, budgets can be computed and a tool's
/// entries found, without rewriting or reading payloads.
pub const USAGE_STORE: &str = "usage";
/// Index of [`USAGE_STORE`] by last use (LRU order).
pub(super) const USAGE_BY_LAST_USED: &str = "lastUsedAt";
/// Secondary indexes of the records (name = key path).
const INDEXES: [&str; 2] = [fields::CONV_ID, fields::ADDED_AT];
/// The records' index by tool name, versions 2 to 4. Every index of a store costs each write and
/// each delete of a record (a clear of 1 000 entries: ~4 ms of ~21); the usage rows carry the
/// name instead, read in one request by [`crate::store::RecordStore::mark_stale`].
const RETIRED_TOOL_INDEX: &str = fields::SOURCE_TOOL_NAME;

/// `upgradeneeded`: create what is missing — the `results` store and its indexes, the `meta`
/// store, the `usage` store (filled from existing records: a chatbox-core v1 database keeps
/// every entry) — and never delete anything. Any failure aborts the upgrade, which fails the open with the
/// DOMException (the next call retries).
///
/// [MDN: IDBOpenDBRequest upgradeneeded](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/upgradeneeded_event)
pub(super) fn upgrade_schema(request: &IdbOpenDbRequest) {
    let req: &IdbRequest = request;
    let (Ok(db), Some(tx)) = (req.result(), req.transaction()) else {
        return;
    };
    let db: IdbDatabase = db.unchecked_into();
    let names = db.object_store_names();
    let key_path = || {
        let params = IdbObjectStoreParameters::new();
        params.set_key_path(&JsValue::from_str(fields::URI));
        params
    };
    let results = if names.contains(STORE_NAME) {
        tx.object_store(STORE_NAME)
    } else {
        db.create_object_store_with_optional_parameters(STORE_NAME, &key_path())
    };
    let Ok(results) = results else {
        let _ = tx.abort();
        return;
    };
    let existing = results.index_names();
    let indexes_ok = INDEXES
        .iter()
        .filter(|index| !existing.contains(index))
        .all(|index| results.create_index_with_str(index, index).is_ok());
    if !indexes_ok {
        let _ = tx.abort();
        return;
    }
    // Totals start absent: the first write transaction counts the usage rows once.
    if !names.contains(META_STORE) && db.create_object_store(META_STORE).is_err() {
        let _ = tx.abort();
        return;
    }
    if names.contains(USAGE_STORE) {
        // Versions 2 to 4: the tool names move from the retired index to the usage rows.
        let named = !existing.contains(RETIRED_TOOL_INDEX)
            || tx.object_store(USAGE_STORE).is_ok_and(|usage| {
                idb_objects::name_usage_rows(&results, &usage, RETIRED_TOOL_INDEX).is_ok()
            });
        if !named {
            let _ = tx.abort();
        }
        return;
    }
    let usage = db
        .create_object_store_with_optional_parameters(USAGE_STORE, &key_path())
        .and_then(|usage| {
            usage.create_index_with_str(USAGE_BY_LAST_USED, fields::LAST_USED_AT)?;
            Ok(usage)
        });
    let Ok(usage) = usage else {
        let _ = tx.abort();
        return;
    };
    // Any version that had the tool-name index but no usage store: the backfill below reads the
    // names from the records themselves.
    if existing.contains(RETIRED_TOOL_INDEX) && results.delete_index(RETIRED_TOOL_INDEX).is_err() {
        let _ = tx.abort();
        return;
    }
    // Backfill usage rows for records that predate the usage store (chatbox-core v1).
    if idb_objects::backfill_usage(&results, &usage).is_err() {
        let _ = tx.abort();
    }
}
