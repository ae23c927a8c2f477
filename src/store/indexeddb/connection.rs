//! Opening a database and keeping its connection: the `indexedDB` factory, the open request
//! (made in `idb_objects.js`: creating or upgrading to [`SCHEMA_VERSION`], falling back to the
//! current version on `VersionError`, reporting `blocked`), the listener that drops a connection another context
//! needs gone (`versionchange`, `close`), and the transaction start that reopens a connection
//! the browser already closed (`InvalidStateError`) once. The chatbox-core reader
//! ([`crate::store::legacy`]) keeps its connection through the same pieces.

use std::cell::RefCell;
use std::future::Future;
use std::rc::{Rc, Weak};

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Event, IdbDatabase, IdbFactory};

use super::schema::{upgrade_schema, META_STORE, SCHEMA_VERSION, STORE_NAME, USAGE_STORE};
use super::IndexedDbStore;
use crate::core::envelope::json_string;
use crate::core::text::concat;
use crate::store::idb_events::listener;
use crate::store::{ErrorKind, StoreError};

/// The message of the `NotSupportedError` of a cache that needs IndexedDB where the global scope
/// has no `indexedDB` (`storage: "indexeddb"`, or the database gone from the global scope).
pub const NO_INDEXED_DB: &str = "IndexedDB is not available here (no globalThis.indexedDB): use \
                                 storage: \"memory\", or in Node tests import \"fake-indexeddb/auto\" first";

/// The global `IDBFactory` (`indexedDB`) of this realm: window, worker, or Node with
/// `fake-indexeddb/auto`. Never `window.indexedDB`, which does not exist in workers.
///
/// [MDN: indexedDB](https://developer.mozilla.org/docs/Web/API/indexedDB)
pub(in crate::store) fn factory() -> Result<IdbFactory, StoreError> {
    let value = Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .map_err(|e| StoreError::from_js("reading globalThis.indexedDB", &e))?;
    if value.is_object() {
        Ok(value.unchecked_into())
    } else {
        Err(StoreError::new(ErrorKind::NotSupported, NO_INDEXED_DB))
    }
}

/// An open connection plus the listener that drops it when another context needs it gone.
pub(in crate::store) struct Connection {
    pub(in crate::store) db: IdbDatabase,
    pub(in crate::store) on_lost: Closure<dyn FnMut(Event)>,
}

impl Connection {
    /// Closes the connection and unhooks the listener, so no event can reach a dropped closure.
    pub(in crate::store) fn release(&self) {
        self.db.set_onversionchange(None);
        let _ = self
            .db
            .remove_event_listener_with_callback("close", self.on_lost.as_ref().unchecked_ref());
        self.db.close();
    }
}

/// Where an owner keeps its connection: empty until the first operation opens one, and again
/// once the connection is lost.
pub(in crate::store) type Slot = Rc<RefCell<Option<Rc<Connection>>>>;

/// Keeps `db` as `slot`'s connection, with the listener that empties the slot when the
/// connection is lost. When the slot already holds one, that one is returned: `db` is closed
/// when it is another connection (two first calls raced to open), and left alone when it is the
/// same (operations that waited on one open).
pub(in crate::store) fn keep(slot: &Slot, db: IdbDatabase) -> Rc<Connection> {
    if let Some(existing) = slot.borrow().clone() {
        if existing.db != db {
            db.close();
        }
        return existing;
    }
    let conn = Rc::new(Connection {
        on_lost: install_lost_handler(&db, Rc::downgrade(slot)),
        db,
    });
    *slot.borrow_mut() = Some(conn.clone());
    conn
}

/// Empties `slot` if it still holds `conn`, and releases `conn`.
fn forget(slot: &Slot, conn: &Rc<Connection>) {
    let mut held = slot.borrow_mut();
    if held.as_ref().is_some_and(|c| Rc::ptr_eq(c, conn)) {
        *held = None;
    }
    drop(held);
    conn.release();
}

/// Starts a transaction with `start` on the connection `connect` gives (`None`: there is no
/// database, and so no transaction). A connection the browser already closed
/// (`InvalidStateError` from `start`) is forgotten and reopened once, transparently; any other
/// failure is reported with `context`.
///
/// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
pub(in crate::store) async fn start_transaction<T, Opened>(
    slot: &Slot,
    context: &str,
    connect: impl Fn() -> Opened,
    start: impl Fn(&IdbDatabase) -> Result<T, JsValue>,
) -> Result<Option<T>, StoreError>
where
    Opened: Future<Output = Result<Option<Rc<Connection>>, StoreError>>,
{
    let mut retried = false;
    loop {
        let Some(conn) = connect().await? else {
            return Ok(None);
        };
        match start(&conn.db) {
            Ok(made) => return Ok(Some(made)),
            Err(e) => {
                let err = StoreError::from_js(context, &e);
                if matches!(err.kind, ErrorKind::InvalidState) && !retried {
                    retried = true;
                    forget(slot, &conn);
                    continue;
                }
                return Err(err);
            }
        }
    }
}

impl IndexedDbStore {
    /// The open connection, opening (creating, upgrading) the database when there is none:
    /// always `Some` (the `Option` is [`start_transaction`]'s, for the chatbox-core reader).
    ///
    /// [MDN: IDBFactory.open](https://developer.mozilla.org/docs/Web/API/IDBFactory/open)
    pub(super) async fn connection(&self) -> Result<Option<Rc<Connection>>, StoreError> {
        if let Some(conn) = self.slot.borrow().clone() {
            return Ok(Some(conn));
        }
        let on_blocked = self.on_blocked.borrow().clone();
        let db = open_database(&self.name, on_blocked).await?;
        // Two first calls may race to open; keep the first connection, close the spare.
        Ok(Some(keep(&self.slot, db)))
    }
}

#[wasm_bindgen(module = "/src/store/idb_objects.js")]
extern "C" {
    /// The open request and its handlers: resolves the connection; rejects with the request's
    /// error or a `NotFoundError`.
    #[wasm_bindgen(js_name = mcpCacheOpen)]
    fn open_request(
        factory: &IdbFactory,
        name: &str,
        version: u32,
        stores: &Array,
        on_upgrade: &JsValue,
        on_blocked: &JsValue,
    ) -> Promise;
}

/// Opens (creating or upgrading) the database at [`SCHEMA_VERSION`], upgrading the schema on
/// `upgradeneeded` and reporting `blocked` (the open proceeds once the other connection closes).
/// If the database exists at a newer version (a newer build of this library), opens it at its
/// current version instead. The database must then have all three stores. The request and its
/// handlers are `idb_objects.js`'s `mcpCacheOpen`; the upgrade and the report are listeners
/// here, alive until the open settles.
///
/// [MDN: IDBFactory.open](https://developer.mozilla.org/docs/Web/API/IDBFactory/open),
/// [MDN: blocked](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/blocked_event)
async fn open_database(
    name: &str,
    on_blocked: Option<Rc<dyn Fn()>>,
) -> Result<IdbDatabase, StoreError> {
    let factory = factory()?;
    let context = concat(&["opening IndexedDB database ", &json_string(name)]);
    let on_upgrade = listener(Box::new(|event: Event| {
        if let Some(request) = event.target() {
            upgrade_schema(request.unchecked_ref());
        }
    }));
    let on_blocked = on_blocked.map(|callback| listener(Box::new(move |_event: Event| callback())));
    let stores = Array::of3(&STORE_NAME.into(), &USAGE_STORE.into(), &META_STORE.into());
    let opened = open_request(
        &factory,
        name,
        SCHEMA_VERSION,
        &stores,
        on_upgrade.as_ref(),
        on_blocked
            .as_ref()
            .map_or(&JsValue::UNDEFINED, |c| c.as_ref()),
    );
    let db = JsFuture::from(opened).await;
    drop((on_upgrade, on_blocked));
    db.map(JsCast::unchecked_into)
        .map_err(|e| StoreError::from_js(&context, &e))
}

/// Releases the connection when another context upgrades or deletes the database
/// ([MDN: versionchange](https://developer.mozilla.org/docs/Web/API/IDBDatabase/versionchange_event))
/// or the browser closes it ([MDN: close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close_event)).
fn install_lost_handler(
    db: &IdbDatabase,
    slot: Weak<RefCell<Option<Rc<Connection>>>>,
) -> Closure<dyn FnMut(Event)> {
    let db_for_handler = db.clone();
    let handler = listener(Box::new(move |_event: Event| {
        db_for_handler.close();
        if let Some(slot) = slot.upgrade() {
            let mut slot = slot.borrow_mut();
            if slot.as_ref().is_some_and(|c| c.db == db_for_handler) {
                *slot = None;
            }
        }
    }));
    db.set_onversionchange(Some(handler.as_ref().unchecked_ref()));
    let _ = db.add_event_listener_with_callback("close", handler.as_ref().unchecked_ref());
    handler
}
