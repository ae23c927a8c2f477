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
        .call3(db, &STORE_NAME.into(), &"readwrite".into(), &options)
        .map(JsCast::unchecked_into)
}

use super::idb_events::{request_error, transaction_done, NextEvent};
use super::{js_record, JsRecord, ResultStore, StoreError};
use crate::core::record::fields;
use crate::state_sync::glob::match_glob;

/// Version our schema lives at. chatbox-core databases are version 1; opening one upgrades it.
pub const SCHEMA_VERSION: u32 = 2;
/// The object store holding the records.
pub const STORE_NAME: &str = "results";
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
struct Connection {
    db: IdbDatabase,
    _on_lost: Closure<dyn FnMut(Event)>,
}

type Slot = Rc<RefCell<Option<Rc<Connection>>>>;

/// IndexedDB-backed store. Opens lazily; a failed open is not remembered, so the next call
/// retries. When another tab upgrades or deletes the database (`versionchange`), or the browser
/// closes the connection (`close`), the connection is released and the next call reopens it.
pub struct IndexedDbStore {
    name: String,
    slot: Slot,
}

impl IndexedDbStore {
    /// A store over database `name`; nothing is opened until the first operation.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            slot: Rc::new(RefCell::new(None)),
        }
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
        let db = open_database(&self.name).await?;
        // Two first calls may race to open; keep the first connection, close the spare.
        if let Some(existing) = self.slot.borrow().clone() {
            db.close();
            return Ok(existing);
        }
        let conn = Rc::new(Connection {
            _on_lost: install_lost_handler(&db, Rc::downgrade(&self.slot)),
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
        conn.db.close();
    }

    /// Starts one transaction on [`STORE_NAME`]. A connection the browser already closed
    /// (`InvalidStateError`) is reopened once, transparently.
    ///
    /// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
    async fn transaction(
        &self,
        mode: IdbTransactionMode,
    ) -> Result<(IdbTransaction, IdbObjectStore), StoreError> {
        let mut retried = false;
        loop {
            let conn = self.connection().await?;
            let tx = if mode == IdbTransactionMode::Readwrite {
                relaxed_write_transaction(&conn.db)
            } else {
                conn.db.transaction_with_str_and_mode(STORE_NAME, mode)
            };
            match tx {
                Ok(tx) => {
                    let store = tx
                        .object_store(STORE_NAME)
                        .map_err(|e| StoreError::from_js("opening object store", &e))?;
                    return Ok((tx, store));
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

    /// Deletes every record whose `index` key lies in `range`, in one read-write transaction.
    ///
    /// [MDN: IDBIndex.getAllKeys](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAllKeys),
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete)
    async fn delete_in_index(&self, index: &str, range: &IdbKeyRange) -> Result<u32, StoreError> {
        let context = "deleting by index";
        let (tx, store) = self.transaction(IdbTransactionMode::Readwrite).await?;
        let keys_request = store
            .index(index)
            .and_then(|i| i.get_all_keys_with_key(range))
            .map_err(|e| StoreError::from_js(context, &e))?;
        let deleted = Rc::new(Cell::new(0u32));
        let on_keys = {
            let (request, deleted) = (keys_request.clone(), deleted.clone());
            Closure::<dyn FnMut(Event)>::new(move |_event: Event| {
                let Ok(keys) = request.result() else { return };
                let keys: Array = keys.unchecked_into();
                for key in keys.iter() {
                    // A synchronous failure here means the transaction is already aborting;
                    // `transaction_done` reports why.
                    if store.delete(&key).is_ok() {
                        deleted.set(deleted.get() + 1);
                    }
                }
            })
        };
        keys_request
            .add_event_listener_with_callback("success", on_keys.as_ref().unchecked_ref())
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx, context).await?;
        drop(on_keys);
        Ok(deleted.get())
    }
}

/// Opens (creating or upgrading) the database at [`SCHEMA_VERSION`]. If the database exists at a
/// newer version (a newer build of this library), opens it at its current version instead.
async fn open_database(name: &str) -> Result<IdbDatabase, StoreError> {
    let factory = factory()?;
    match open_request(&factory, name, Some(SCHEMA_VERSION)).await {
        Err(e) if e.name == "VersionError" => open_request(&factory, name, None).await,
        other => other,
    }
}

async fn open_request(
    factory: &IdbFactory,
    name: &str,
    version: Option<u32>,
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
    let outcome = NextEvent::new(&request, &["success", "error"]).await;
    request.set_onupgradeneeded(None);
    drop(on_upgrade);
    if outcome != "success" {
        return Err(request_error(&request, &context));
    }
    let db: IdbDatabase = request
        .result()
        .map_err(|e| StoreError::from_js(&context, &e))?
        .unchecked_into();
    if !db.object_store_names().contains(STORE_NAME) {
        db.close();
        return Err(StoreError::new(
            "NotFoundError",
            format!("{context}: it has no {STORE_NAME:?} object store"),
        ));
    }
    Ok(db)
}

/// `upgradeneeded`: create the store if absent, then add whichever indexes are missing. Never
/// deletes anything, so chatbox-core records survive. Any failure aborts the upgrade, which fails
/// the open with the DOMException (the next call retries).
///
/// [MDN: IDBOpenDBRequest upgradeneeded](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/upgradeneeded_event)
fn upgrade_schema(request: &IdbOpenDbRequest) {
    let req: &IdbRequest = request;
    let (Ok(db), Some(tx)) = (req.result(), req.transaction()) else {
        return;
    };
    let db: IdbDatabase = db.unchecked_into();
    let store = if db.object_store_names().contains(STORE_NAME) {
        tx.object_store(STORE_NAME)
    } else {
        let params = IdbObjectStoreParameters::new();
        params.set_key_path(&JsValue::from_str(fields::URI));
        db.create_object_store_with_optional_parameters(STORE_NAME, &params)
    };
    let ok = store.is_ok_and(|store| {
        let existing = store.index_names();
        INDEXES
            .iter()
            .filter(|index| !existing.contains(index))
            .all(|index| store.create_index_with_str(index, index).is_ok())
    });
    if !ok {
        let _ = tx.abort();
    }
}

/// Releases the connection when another context upgrades or deletes the database
/// ([MDN: versionchange](https://developer.mozilla.org/docs/Web/API/IDBDatabase/versionchange_event))
/// or the browser closes it ([MDN: close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close_event)).
fn install_lost_handler(
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

impl ResultStore for IndexedDbStore {
    /// [MDN: IDBObjectStore.put](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/put)
    async fn put(&self, record: &JsRecord) -> Result<(), StoreError> {
        let context = "writing a cache entry";
        let (tx, store) = self.transaction(IdbTransactionMode::Readwrite).await?;
        if let Err(e) = store.put(&js_record::to_js(record)) {
            let _ = tx.abort();
            return Err(StoreError::from_js(context, &e));
        }
        transaction_done(&tx, context).await
    }

    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    async fn get_many(&self, uris: &[&str]) -> Result<Vec<Option<JsRecord>>, StoreError> {
        if uris.is_empty() {
            return Ok(Vec::new());
        }
        let context = "reading cache entries";
        let (tx, store) = self.transaction(IdbTransactionMode::Readonly).await?;
        let requests = uris
            .iter()
            .map(|uri| store.get(&JsValue::from_str(uri)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx, context).await?;
        Ok(requests
            .iter()
            .map(|r| r.result().ok().and_then(|v| js_record::from_js(&v)))
            .collect())
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
        let (tx, store) = self.transaction(IdbTransactionMode::Readwrite).await?;
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
        transaction_done(&tx, context).await?;
        drop((on_step, on_record));
        Ok(marked.get())
    }

    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll),
    /// [MDN: IDBIndex.getAll](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAll)
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let context = "listing cache entries";
        let (tx, store) = self.transaction(IdbTransactionMode::Readonly).await?;
        let request = match conv_id {
            None => store.get_all(),
            Some(conv) => store.index(fields::CONV_ID).and_then(|index| {
                index.get_all_with_key(&IdbKeyRange::only(&JsValue::from_str(conv))?.into())
            }),
        }
        .map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx, context).await?;
        let all: Array = request
            .result()
            .map_err(|e| StoreError::from_js(context, &e))?
            .unchecked_into();
        Ok(all.iter().filter_map(|v| js_record::from_js(&v)).collect())
    }

    /// [MDN: IDBDatabase.close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close)
    fn close(&self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.db.close();
        }
    }
}
