//! [`ResultStore`] on IndexedDB, directly over `web-sys`.
//!
//! A thin layer kept faithful to the platform: DOMException names pass through unchanged, each
//! operation is exactly one transaction, write transactions use `durability: "relaxed"` (a cache
//! may lose its last writes on an OS crash; it must not pay an fsync per tool result), and every
//! request of a transaction is issued before anything is awaited. Index walks (clear, evict)
//! issue their deletes from inside the `getAllKeys` success event, so the transaction can never
//! auto-commit between the read and the deletes.
//!
//! Schema (DESIGN §4): database `dbName` at [`SCHEMA_VERSION`], object store [`STORE_NAME`] keyed
//! by `uri`, indexes `convId`, `addedAt`, `sourceToolName`. Opening a chatbox-core database
//! (version 1, same store, first two indexes) upgrades it in place: nothing is deleted.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Array, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Event, IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStore, IdbObjectStoreParameters,
    IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode,
};

/// `db.transaction(store, "readwrite", { durability: "relaxed" })`. web-sys gates the options
/// dictionary behind `web_sys_unstable_apis`, so this one overload is called through `Reflect`.
///
/// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
fn relaxed_write_transaction(db: &IdbDatabase) -> Result<IdbTransaction, JsValue> {
    let transaction: js_sys::Function = Reflect::get(db, &"transaction".into())?.unchecked_into();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"durability".into(), &"relaxed".into())?;
    transaction
        .call3(db, &store_names(), &"readwrite".into(), &options)
        .map(JsCast::unchecked_into)
}

fn store_names() -> JsValue {
    Array::of2(&STORE_NAME.into(), &USAGE_STORE.into()).into()
}

/// One transaction over both object stores.
struct Tx {
    tx: IdbTransaction,
    results: IdbObjectStore,
    usage: IdbObjectStore,
}

/// `{uri, convId, sizeBytes, lastUsedAt}` for [`USAGE_STORE`].
fn usage_entry(
    uri: &JsValue,
    conv_id: &JsValue,
    size_bytes: &JsValue,
    last_used_at: f64,
) -> js_sys::Object {
    let entry = js_sys::Object::new();
    let _ = Reflect::set(&entry, &fields::URI.into(), uri);
    let _ = Reflect::set(&entry, &fields::CONV_ID.into(), conv_id);
    let _ = Reflect::set(&entry, &fields::SIZE_BYTES.into(), size_bytes);
    let _ = Reflect::set(&entry, &fields::LAST_USED_AT.into(), &last_used_at.into());
    entry
}

/// The usage entry of a stored record object.
fn usage_of_record(record: &JsValue) -> js_sys::Object {
    let get = |k: &str| Reflect::get(record, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let last = get(fields::LAST_USED_AT)
        .as_f64()
        .or_else(|| get(fields::ADDED_AT).as_f64())
        .unwrap_or(0.0);
    let size = get(fields::SIZE_BYTES);
    let size = if size.as_f64().is_some() {
        size
    } else {
        JsValue::from(0)
    };
    usage_entry(&get(fields::URI), &get(fields::CONV_ID), &size, last)
}

/// Usage entries as `(uri, convId, sizeBytes, lastUsedAt)`.
fn usage_rows(all: &JsValue) -> Vec<(JsValue, String, f64, f64)> {
    let Some(all) = all.dyn_ref::<Array>() else {
        return Vec::new();
    };
    all.iter()
        .map(|e| {
            let get = |k: &str| Reflect::get(&e, &k.into()).unwrap_or(JsValue::UNDEFINED);
            (
                get(fields::URI),
                get(fields::CONV_ID).as_string().unwrap_or_default(),
                get(fields::SIZE_BYTES).as_f64().unwrap_or(0.0),
                get(fields::LAST_USED_AT).as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

/// Deletes least-recently-used entries (never `keep`) from both stores until the totals fit
/// `max_bytes` / `max_entries`; returns how many were deleted and the totals (bytes, entries)
/// left. Runs inside a request callback.
fn evict_to_fit(
    tx: &Tx,
    rows: &mut [(JsValue, String, f64, f64)],
    keep: Option<&JsValue>,
    max_bytes: f64,
    max_entries: f64,
) -> (u32, f64, f64) {
    let mut bytes: f64 = rows.iter().map(|r| r.2).sum();
    let mut count = rows.len() as f64;
    rows.sort_by(|a, b| a.3.total_cmp(&b.3));
    let mut evicted = 0;
    for (uri, _, size, _) in rows.iter() {
        if bytes <= max_bytes && count <= max_entries {
            break;
        }
        if keep.is_some_and(|k| k == uri) {
            continue;
        }
        let _ = tx.results.delete(uri);
        let _ = tx.usage.delete(uri);
        bytes -= size;
        count -= 1.0;
        evicted += 1;
    }
    (evicted, bytes, count)
}

use super::idb_events::{request_error, transaction_done, NextEvent};
use super::{js_record, Budget, JsRecord, PutOutcome, ResultStore, StoreError, StoreStats};
use crate::core::record::fields;
use crate::state_sync::glob::match_glob;

/// Version our schema lives at. chatbox-core databases are version 1; opening one upgrades it.
pub const SCHEMA_VERSION: u32 = 3;
/// The object store holding the records.
pub const STORE_NAME: &str = "results";
/// Small per-entry metadata `{uri, convId, sizeBytes, lastUsedAt}`, kept apart from the records so
/// a hit can refresh `lastUsedAt`, and budgets can be computed, without rewriting or reading
/// payloads.
pub const USAGE_STORE: &str = "usage";
/// Index of [`USAGE_STORE`] by last use (LRU order).
const USAGE_BY_LAST_USED: &str = "lastUsedAt";
/// Secondary indexes (name = key path).
const INDEXES: [&str; 3] = [fields::CONV_ID, fields::ADDED_AT, fields::SOURCE_TOOL_NAME];

/// The global `IDBFactory` (`indexedDB`) of this realm: window, worker, or Node with
/// `fake-indexeddb/auto`. Never `window.indexedDB`, which does not exist in workers.
///
/// [MDN: indexedDB](https://developer.mozilla.org/docs/Web/API/indexedDB)
pub(crate) fn factory() -> Result<IdbFactory, StoreError> {
    let value = Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .map_err(|e| StoreError::from_js("reading globalThis.indexedDB", &e))?;
    if value.is_object() {
        Ok(value.unchecked_into())
    } else {
        Err(StoreError::new(
            "NotSupportedError",
            "IndexedDB is not available in this environment (no globalThis.indexedDB); \
             use storage: \"memory\", or import \"fake-indexeddb/auto\" in Node tests",
        ))
    }
}

/// An open connection plus the listener that drops it when another context needs it gone.
pub(crate) struct Connection {
    pub(crate) db: IdbDatabase,
    pub(crate) on_lost: Closure<dyn FnMut(Event)>,
}

impl Connection {
    /// Closes the connection and unhooks the listener, so no event can reach a dropped closure.
    pub(crate) fn release(&self) {
        self.db.set_onversionchange(None);
        let _ = self
            .db
            .remove_event_listener_with_callback("close", self.on_lost.as_ref().unchecked_ref());
        self.db.close();
    }
}

impl Drop for IndexedDbStore {
    /// A cache freed from JS (`free()`, `using`) closes its connection: otherwise the database
    /// would stay open and block another tab's upgrade or delete.
    fn drop(&mut self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.release();
        }
    }
}

pub(crate) type Slot = Rc<RefCell<Option<Rc<Connection>>>>;

/// IndexedDB-backed store. Opens lazily; a failed open is not remembered, so the next call
/// retries. When another tab upgrades or deletes the database (`versionchange`), or the browser
/// closes the connection (`close`), the connection is released and the next call reopens it.
pub struct IndexedDbStore {
    name: String,
    slot: Slot,
    /// Last uses seen by reads and not yet written (uri → ms).
    touched: Rc<RefCell<HashMap<String, f64>>>,
    /// Called when our upgrade waits for another context to close its connection.
    on_blocked: RefCell<Option<Rc<dyn Fn()>>>,
}

/// Pending last-use updates kept before the oldest are dropped.
const TOUCH_LIMIT: usize = 4096;

impl IndexedDbStore {
    /// A store over database `name`; nothing is opened until the first operation.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            slot: Rc::new(RefCell::new(None)),
            touched: Rc::default(),
            on_blocked: RefCell::new(None),
        }
    }

    /// Sets what to call when opening is blocked by another context's open connection (the
    /// open then waits until that context closes it).
    pub fn set_on_blocked(&self, callback: Rc<dyn Fn()>) {
        *self.on_blocked.borrow_mut() = Some(callback);
    }

    /// The database name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// [MDN: IDBFactory.open](https://developer.mozilla.org/docs/Web/API/IDBFactory/open)
    async fn connection(&self) -> Result<Rc<Connection>, StoreError> {
        if let Some(conn) = self.slot.borrow().clone() {
            return Ok(conn);
        }
        let on_blocked = self.on_blocked.borrow().clone();
        let db = open_database(&self.name, on_blocked).await?;
        // Two first calls may race to open; keep the first connection, close the spare.
        if let Some(existing) = self.slot.borrow().clone() {
            db.close();
            return Ok(existing);
        }
        let conn = Rc::new(Connection {
            on_lost: install_lost_handler(&db, Rc::downgrade(&self.slot)),
            db,
        });
        *self.slot.borrow_mut() = Some(conn.clone());
        Ok(conn)
    }

    fn forget(&self, conn: &Rc<Connection>) {
        let mut slot = self.slot.borrow_mut();
        if slot.as_ref().is_some_and(|c| Rc::ptr_eq(c, conn)) {
            *slot = None;
        }
        conn.release();
    }

    /// Starts one transaction on [`STORE_NAME`]. A connection the browser already closed
    /// (`InvalidStateError`) is reopened once, transparently.
    ///
    /// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
    async fn transaction(&self, mode: IdbTransactionMode) -> Result<Tx, StoreError> {
        let mut retried = false;
        loop {
            let conn = self.connection().await?;
            let tx = if mode == IdbTransactionMode::Readwrite {
                relaxed_write_transaction(&conn.db)
            } else {
                conn.db
                    .transaction_with_str_sequence_and_mode(&store_names(), mode)
            };
            match tx {
                Ok(tx) => {
                    let open = |name| {
                        tx.object_store(name)
                            .map_err(|e| StoreError::from_js("opening object store", &e))
                    };
                    let (results, usage) = (open(STORE_NAME)?, open(USAGE_STORE)?);
                    return Ok(Tx { tx, results, usage });
                }
                Err(e) => {
                    let err = StoreError::from_js("starting a transaction", &e);
                    if err.name == "InvalidStateError" && !retried {
                        retried = true;
                        self.forget(&conn);
                        continue;
                    }
                    return Err(err);
                }
            }
        }
    }

    /// Deletes every record whose `index` key lies in `range` (and its usage entry), in one
    /// read-write transaction.
    ///
    /// [MDN: IDBIndex.getAllKeys](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAllKeys),
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete)
    async fn delete_in_index(&self, index: &str, range: &IdbKeyRange) -> Result<u32, StoreError> {
        let context = "deleting by index";
        let tx = Rc::new(self.transaction(IdbTransactionMode::Readwrite).await?);
        let keys_request = tx
            .results
            .index(index)
            .and_then(|i| i.get_all_keys_with_key(range))
            .map_err(|e| StoreError::from_js(context, &e))?;
        let deleted = Rc::new(Cell::new(0u32));
        let on_keys = {
            let (request, deleted, tx) = (keys_request.clone(), deleted.clone(), tx.clone());
            Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
                let Ok(keys) = request.result() else { return };
                let keys: Array = keys.unchecked_into();
                for key in keys.iter() {
                    // A synchronous failure here means the transaction is already aborting;
                    // `transaction_done` reports why.
                    if tx.results.delete(&key).is_ok() && tx.usage.delete(&key).is_ok() {
                        deleted.set(deleted.get() + 1);
                    }
                }
            })
        };
        keys_request
            .add_event_listener_with_callback("success", on_keys.as_ref().unchecked_ref())
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        drop(on_keys);
        Ok(deleted.get())
    }

    /// Runs `on_rows` over every usage entry from inside the transaction (one `getAll` of the
    /// small usage records, never the payloads), then waits for the commit.
    ///
    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
    async fn with_usage_rows<T: Default + 'static>(
        &self,
        tx: Rc<Tx>,
        context: &str,
        on_rows: impl FnMut(&Tx, Vec<(JsValue, String, f64, f64)>) -> T + 'static,
    ) -> Result<T, StoreError> {
        let request = tx
            .usage
            .get_all()
            .map_err(|e| StoreError::from_js(context, &e))?;
        let out: Rc<RefCell<T>> = Rc::default();
        // Pending last uses are written only by read-write transactions (stats() is read-only).
        let writable = tx
            .tx
            .mode()
            .is_ok_and(|m| m == IdbTransactionMode::Readwrite);
        let touched = if writable {
            std::mem::take(&mut *self.touched.borrow_mut())
        } else {
            HashMap::new()
        };
        let handler = {
            let (request, out, tx) = (request.clone(), out.clone(), tx.clone());
            let mut on_rows = on_rows;
            Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
                let mut rows = usage_rows(&request.result().unwrap_or(JsValue::UNDEFINED));
                // Persist the last uses reads remembered, for entries that still exist.
                for row in rows.iter_mut() {
                    if let Some(&last) = row.0.as_string().and_then(|uri| touched.get(&uri)) {
                        if last > row.3 {
                            row.3 = last;
                            let entry =
                                usage_entry(&row.0, &row.1.as_str().into(), &row.2.into(), last);
                            let _ = tx.usage.put(&entry);
                        }
                    }
                }
                *out.borrow_mut() = on_rows(&tx, rows);
            })
        };
        request
            .add_event_listener_with_callback("success", handler.as_ref().unchecked_ref())
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        drop(handler);
        Ok(out.take())
    }
}

/// Opens (creating or upgrading) the database at [`SCHEMA_VERSION`]. If the database exists at a
/// newer version (a newer build of this library), opens it at its current version instead.
async fn open_database(
    name: &str,
    on_blocked: Option<Rc<dyn Fn()>>,
) -> Result<IdbDatabase, StoreError> {
    let factory = factory()?;
    match open_request(&factory, name, Some(SCHEMA_VERSION), on_blocked.clone()).await {
        Err(e) if e.name == "VersionError" => open_request(&factory, name, None, on_blocked).await,
        other => other,
    }
}

async fn open_request(
    factory: &IdbFactory,
    name: &str,
    version: Option<u32>,
    on_blocked: Option<Rc<dyn Fn()>>,
) -> Result<IdbDatabase, StoreError> {
    let context = format!("opening IndexedDB database {name:?}");
    let request: IdbOpenDbRequest = match version {
        Some(v) => factory.open_with_u32(name, v),
        None => factory.open(name),
    }
    .map_err(|e| StoreError::from_js(&context, &e))?;
    let on_upgrade = {
        let request = request.clone();
        Closure::<dyn FnMut(Event)>::new(move |_event: Event| upgrade_schema(&request))
    };
    request.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    // [MDN: blocked](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/blocked_event):
    // report it, and keep waiting — the open proceeds once the other connection closes.
    let on_blocked = on_blocked
        .map(|callback| Closure::<dyn FnMut(Event)>::new(move |_event: Event| callback()));
    if let Some(handler) = &on_blocked {
        request.set_onblocked(Some(handler.as_ref().unchecked_ref()));
    }
    let outcome = NextEvent::new(&request, &["success", "error"]).await;
    request.set_onblocked(None);
    drop(on_blocked);
    request.set_onupgradeneeded(None);
    drop(on_upgrade);
    if outcome != "success" {
        return Err(request_error(&request, &context));
    }
    let db: IdbDatabase = request
        .result()
        .map_err(|e| StoreError::from_js(&context, &e))?
        .unchecked_into();
    let names = db.object_store_names();
    if !names.contains(STORE_NAME) || !names.contains(USAGE_STORE) {
        db.close();
        return Err(StoreError::new(
            "NotFoundError",
            format!("{context}: it lacks the \"results\"/\"usage\" object stores"),
        ));
    }
    Ok(db)
}

/// `upgradeneeded`: create what is missing — the `results` store and its indexes, the `usage`
/// store (filled from existing records: a chatbox-core v1 database keeps every entry) — and
/// never delete anything. Any failure aborts the upgrade, which fails the open with the
/// DOMException (the next call retries).
///
/// [MDN: IDBOpenDBRequest upgradeneeded](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/upgradeneeded_event)
fn upgrade_schema(request: &IdbOpenDbRequest) {
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
    if names.contains(USAGE_STORE) {
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
    // Backfill usage entries for records that predate the usage store (chatbox-core v1).
    let Ok(cursor_request) = results.open_cursor() else {
        let _ = tx.abort();
        return;
    };
    let on_step = {
        let request = cursor_request.clone();
        Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
            let Some(cursor) = request.result().ok().filter(JsValue::is_object) else {
                return;
            };
            let cursor: web_sys::IdbCursorWithValue = cursor.unchecked_into();
            if let Ok(record) = cursor.value() {
                let _ = usage.put(&usage_of_record(&record));
                // chatbox-core records may lack sourceToolName: give them the name reads report
                // ("<unknown>"), so they are in that index and can be invalidated.
                let tool = Reflect::get(&record, &fields::SOURCE_TOOL_NAME.into())
                    .unwrap_or(JsValue::UNDEFINED);
                if !tool.is_string()
                    && Reflect::set(
                        &record,
                        &fields::SOURCE_TOOL_NAME.into(),
                        &crate::core::record::UNKNOWN_SOURCE_TOOL.into(),
                    )
                    .is_ok()
                {
                    let _ = cursor.update(&record);
                }
            }
            let _ = cursor.continue_();
        })
    };
    let _ = cursor_request
        .add_event_listener_with_callback("success", on_step.as_ref().unchecked_ref());
    // The closure must live until the upgrade transaction ends; it is tiny and runs once per
    // database lifetime, so it is handed to the JS GC.
    on_step.forget();
}

/// Releases the connection when another context upgrades or deletes the database
/// ([MDN: versionchange](https://developer.mozilla.org/docs/Web/API/IDBDatabase/versionchange_event))
/// or the browser closes it ([MDN: close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close_event)).
pub(crate) fn install_lost_handler(
    db: &IdbDatabase,
    slot: Weak<RefCell<Option<Rc<Connection>>>>,
) -> Closure<dyn FnMut(Event)> {
    let db_for_handler = db.clone();
    let handler = Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
        db_for_handler.close();
        if let Some(slot) = slot.upgrade() {
            let mut slot = slot.borrow_mut();
            if slot.as_ref().is_some_and(|c| c.db == db_for_handler) {
                *slot = None;
            }
        }
    });
    db.set_onversionchange(Some(handler.as_ref().unchecked_ref()));
    let _ = db.add_event_listener_with_callback("close", handler.as_ref().unchecked_ref());
    handler
}

/// Storage limits enforced on every write (see [`ResultStore::put`]).
impl ResultStore for IndexedDbStore {
    /// One read-write transaction: put the record and its usage entry, read every usage entry
    /// (small), and evict least-recently-used entries until the totals fit the budget.
    ///
    /// [MDN: IDBObjectStore.put](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/put)
    async fn put(
        &self,
        record: &JsRecord,
        budget: Option<&Budget>,
    ) -> Result<PutOutcome, StoreError> {
        let context = "writing a cache entry";
        let tx = Rc::new(self.transaction(IdbTransactionMode::Readwrite).await?);
        let object = js_record::to_js(record);
        if let Err(e) = tx
            .results
            .put(&object)
            .and_then(|_| tx.usage.put(&usage_of_record(&object)))
        {
            let _ = tx.tx.abort();
            return Err(StoreError::from_js(context, &e));
        }
        let Some(budget) = budget.copied() else {
            transaction_done(&tx.tx, context).await?;
            return Ok(PutOutcome::default());
        };
        let keep = JsValue::from_str(&record.uri);
        self.with_usage_rows(tx, context, move |tx, mut rows| {
            let evicted = evict_to_fit(
                tx,
                &mut rows,
                Some(&keep),
                budget.max_bytes,
                budget.max_entries,
            );
            let (evicted, bytes, entries) = evicted;
            PutOutcome {
                evicted,
                totals: Some(StoreStats {
                    entries: entries as u32,
                    bytes,
                    conversations: 0,
                }),
            }
        })
        .await
    }

    /// One read-write transaction: every get issued at once; each hit refreshes its usage entry
    /// (`lastUsedAt = now`) from its own success event.
    ///
    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    async fn get_many(&self, uris: &[&str], now: f64) -> Result<Vec<Option<JsRecord>>, StoreError> {
        if uris.is_empty() {
            return Ok(Vec::new());
        }
        let context = "reading cache entries";
        let tx = self.transaction(IdbTransactionMode::Readonly).await?;
        let requests = uris
            .iter()
            .map(|uri| tx.results.get(&JsValue::from_str(uri)))
            .collect::<Result<Vec<_>, JsValue>>()
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        let records: Vec<Option<JsRecord>> = requests
            .iter()
            .map(|r| r.result().ok().and_then(|v| js_record::from_js(&v)))
            .collect();
        // Reads stay read-only: a hit's new last use is remembered here and written by the next
        // transaction that looks at the usage entries (a budget check or an eviction), which
        // is exactly when least-recently-used order matters.
        let mut touched = self.touched.borrow_mut();
        if touched.len() >= TOUCH_LIMIT {
            touched.clear();
        }
        for record in records.iter().flatten() {
            touched.insert(record.uri.clone(), now);
        }
        Ok(records)
    }

    async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        let range = IdbKeyRange::only(&JsValue::from_str(conv_id))
            .map_err(|e| StoreError::from_js("building a key range", &e))?;
        self.delete_in_index(fields::CONV_ID, &range).await
    }

    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        let range = IdbKeyRange::upper_bound_with_open(&JsValue::from_f64(cutoff_ms), true)
            .map_err(|e| StoreError::from_js("building a key range", &e))?;
        self.delete_in_index(fields::ADDED_AT, &range).await
    }

    async fn evict_lru(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        let context = "evicting least-recently-used entries";
        let tx = Rc::new(self.transaction(IdbTransactionMode::Readwrite).await?);
        self.with_usage_rows(tx, context, move |tx, mut rows| {
            let total: f64 = rows.iter().map(|r| r.2).sum();
            evict_to_fit(
                tx,
                &mut rows,
                None,
                (total - bytes_to_free).max(0.0),
                f64::INFINITY,
            )
            .0
        })
        .await
    }

    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let context = "reading cache statistics";
        let tx = Rc::new(self.transaction(IdbTransactionMode::Readonly).await?);
        self.with_usage_rows(tx, context, |_, rows| {
            StoreStats::of(rows.iter().map(|r| (r.1.as_str(), r.2)))
        })
        .await
    }

    /// Walks the `sourceToolName` index with a key cursor (no payloads are read), tests each
    /// distinct name once, and reads + rewrites only the matching records — every request issued
    /// from inside this transaction's own success events, so it cannot auto-commit midway.
    ///
    /// [MDN: IDBIndex.openKeyCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openKeyCursor)
    async fn mark_stale(
        &self,
        patterns: &[String],
        separator: &str,
        cause: &str,
    ) -> Result<u32, StoreError> {
        let context = "marking cache entries stale";
        let tx = self.transaction(IdbTransactionMode::Readwrite).await?;
        let store = tx.results.clone();
        let cursor_request = store
            .index(fields::SOURCE_TOOL_NAME)
            .and_then(|index| index.open_key_cursor())
            .map_err(|e| StoreError::from_js(context, &e))?;
        let marked = Rc::new(Cell::new(0u32));
        // Rewrites one matching record: IDBObjectStore.get → set staleCause → put.
        let on_record = {
            let (store, marked, cause) = (store.clone(), marked.clone(), JsValue::from_str(cause));
            Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                let Some(request) = event.target().map(JsCast::unchecked_into::<IdbRequest>) else {
                    return;
                };
                let Ok(record) = request.result() else { return };
                let stale = Reflect::get(&record, &fields::STALE_CAUSE.into())
                    .map(|v| v.is_string())
                    .unwrap_or(true);
                if record.is_object()
                    && !stale
                    && Reflect::set(&record, &fields::STALE_CAUSE.into(), &cause).is_ok()
                    && store.put(&record).is_ok()
                {
                    marked.set(marked.get() + 1);
                }
            })
        };
        let on_step = {
            let request = cursor_request.clone();
            let on_record: js_sys::Function = on_record.as_ref().clone().unchecked_into();
            let patterns = patterns.to_vec();
            let separator = separator.to_owned();
            let mut decided: HashMap<String, bool> = HashMap::new();
            Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
                let Some(cursor) = request.result().ok().filter(JsValue::is_object) else {
                    return; // walk finished
                };
                let cursor: web_sys::IdbCursor = cursor.unchecked_into();
                if let (Ok(name), Ok(key)) = (cursor.key(), cursor.primary_key()) {
                    let name = name.as_string().unwrap_or_default();
                    let hit = *decided.entry(name).or_insert_with_key(|name| {
                        patterns.iter().any(|p| match_glob(p, name, &separator))
                    });
                    if hit {
                        if let Ok(get) = store.get(&key) {
                            let _ = get.add_event_listener_with_callback("success", &on_record);
                        }
                    }
                }
                let _ = cursor.continue_();
            })
        };
        cursor_request
            .add_event_listener_with_callback("success", on_step.as_ref().unchecked_ref())
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        drop((on_step, on_record));
        Ok(marked.get())
    }

    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll),
    /// [MDN: IDBIndex.getAll](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAll)
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let context = "listing cache entries";
        let tx = self.transaction(IdbTransactionMode::Readonly).await?;
        let store = &tx.results;
        let request = match conv_id {
            None => store.get_all(),
            Some(conv) => store.index(fields::CONV_ID).and_then(|index| {
                index.get_all_with_key(&IdbKeyRange::only(&JsValue::from_str(conv))?.into())
            }),
        }
        .map_err(|e| StoreError::from_js(context, &e))?;
        let usage_request = tx
            .usage
            .get_all()
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        let all: Array = request
            .result()
            .map_err(|e| StoreError::from_js(context, &e))?
            .unchecked_into();
        // Last use lives in the usage store (and in reads not yet written).
        let mut last_used: HashMap<String, f64> =
            usage_rows(&usage_request.result().unwrap_or(JsValue::UNDEFINED))
                .into_iter()
                .filter_map(|(uri, _, _, last)| uri.as_string().map(|u| (u, last)))
                .collect();
        for (uri, last) in self.touched.borrow().iter() {
            let entry = last_used.entry(uri.clone()).or_insert(*last);
            *entry = entry.max(*last);
        }
        Ok(all
            .iter()
            .filter_map(|v| js_record::from_js(&v))
            .map(|mut r| {
                if let Some(&last) = last_used.get(&r.uri) {
                    r.last_used_at = r.last_used_at.max(last);
                }
                r
            })
            .collect())
    }

    /// [MDN: IDBDatabase.close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close)
    fn close(&self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.release();
        }
    }
}
