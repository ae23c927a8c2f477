//! Read-through access to the database of chatbox-core 0.12, so references it minted keep
//! resolving after a host switches to this package.
//!
//! chatbox-core keeps its results in IndexedDB database [`CHATBOX_CORE_DB_NAME`] at version 1:
//! object store `results` keyed by `uri`, indexes `convId` and `addedAt`, records
//! `{uri, payload, convId, sourceToolName?, addedAt, sizeBytes}`. [`LegacyChatboxStore`] reads
//! those records (and deletes a conversation's records when the host clears it) without ever
//! changing what chatbox-core relies on:
//!
//! - **It never creates the database.** Where the browser has
//!   [`indexedDB.databases()`](https://developer.mozilla.org/docs/Web/API/IDBFactory/databases),
//!   an unlisted database is not opened at all. Otherwise (and as a guard against a database
//!   deleted between that check and the open) it is opened without a version: `upgradeneeded`
//!   then fires only when the database does not exist, and its transaction is aborted at once,
//!   so the open fails with `AbortError` and nothing is created (in Chromium and in
//!   `fake-indexeddb` alike, the database is then not listed by `databases()`).
//! - **It never upgrades the database.** Opening without a version opens an existing database
//!   at its current version; a database without a `results` store counts as absent.
//! - **It never blocks chatbox-core, nor waits on it.** An open without a version never waits
//!   for other connections (no `blocked` event), and our connection closes on `versionchange`,
//!   so chatbox-core's own upgrades and deletes proceed. An open can still wait in IndexedDB's
//!   queue behind someone else's *blocked* upgrade (for example a `ResultCache` whose `dbName`
//!   is chatbox-core's, while a chatbox-core tab holds it open): after [`OPEN_TIMEOUT_MS`] the
//!   operation fails with a `TimeoutError`, the open stays queued, and its connection is kept
//!   for later operations once it arrives.
//!
//! A missing database is remembered for [`ABSENT_RECHECK_MS`], so misses stay cheap; after that
//! (or after [`LegacyChatboxStore::close`]) the next operation checks again, which picks up a
//! database a chatbox-core tab created in the meantime.
//!
//! Reads are read-only transactions: nothing is written to a chatbox-core record, not even a
//! last-use time. Conversation scoping is the caller's: a record carries its `convId`
//! ([`JsRecord::conv_id`]) and should be handed out only for that exact conversation.

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::Poll;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Event, IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStore, IdbOpenDbRequest, IdbRequest,
    IdbTransaction, IdbTransactionMode,
};

use super::idb_events::{listener, request_error, transaction_done, NextEvent};
use super::indexeddb::{
    factory, get_records, keep, start_transaction, Connection, Handlers, Slot, META_STORE,
    TOTALS_KEY,
};
use super::{ErrorKind, JsRecord, StoreError, STORE_NAME, USAGE_STORE};
use crate::core::record::fields;

/// The database chatbox-core 0.12 stores its results in.
pub const CHATBOX_CORE_DB_NAME: &str = "chatbox-core-result-cache";

/// How long a database found missing is taken to stay missing (ms). Within this time, operations
/// answer "nothing there" without touching IndexedDB; afterwards the next one checks again.
pub const ABSENT_RECHECK_MS: f64 = 30_000.0;

/// How long an operation waits for the database to open before failing with `TimeoutError`
/// (ms). Only an open queued behind another context's blocked upgrade takes this long.
pub const OPEN_TIMEOUT_MS: i32 = 3_000;

const OPEN_CONTEXT: &str = "opening the chatbox-core database";

/// Read-through reader of a chatbox-core 0.12 database (see the [module docs](self) for the
/// opening rules). Opens lazily, on the first operation.
pub struct LegacyChatboxStore {
    name: String,
    /// The open connection, if any; emptied when another context upgrades or deletes the
    /// database, or the browser closes it.
    slot: Slot,
    /// When the database was last found missing (ms since the epoch).
    absent_at: Rc<Cell<Option<f64>>>,
    /// An open still in flight: every operation waits on this one request, never a second.
    pending: Rc<RefCell<Option<IdbOpenDbRequest>>>,
}

impl Default for LegacyChatboxStore {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for LegacyChatboxStore {
    /// Closes the connection, so a dropped reader never holds chatbox-core's database open.
    fn drop(&mut self) {
        self.close();
    }
}

impl LegacyChatboxStore {
    /// A reader of [`CHATBOX_CORE_DB_NAME`]; nothing is opened until the first operation.
    pub fn new() -> Self {
        Self::with_name(CHATBOX_CORE_DB_NAME)
    }

    /// A reader of a database with chatbox-core's schema under another name (tests, or a host
    /// that renamed it); nothing is opened until the first operation.
    pub fn with_name(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            slot: Rc::new(RefCell::new(None)),
            absent_at: Rc::new(Cell::new(None)),
            pending: Rc::new(RefCell::new(None)),
        }
    }

    /// The database name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads `uris` in one read-only transaction, every request issued before anything is
    /// awaited; `None` where absent (and everywhere when the database does not exist). Order
    /// follows `uris`. Records are returned whatever their `convId`: scope them before use.
    ///
    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    pub async fn get_many(&self, uris: &[&str]) -> Result<Vec<Option<JsRecord>>, StoreError> {
        let context = "reading chatbox-core entries";
        if uris.is_empty() {
            return Ok(Vec::new());
        }
        let Some((tx, results)) = self.transaction(IdbTransactionMode::Readonly).await? else {
            return Ok(uris.iter().map(|_| None).collect());
        };
        get_records(&tx, &results, uris, context).await
    }

    /// Deletes every record whose `convId` is exactly `conv_id`, in one read-write transaction
    /// (allowed on an existing database without a version change); returns how many. The keys
    /// come from the `convId` index (`getAllKeys`, no payload is read) and the deletes are issued
    /// from its success event, so the transaction cannot commit in between. If the database
    /// was upgraded to this package's schema in the meantime (a cache whose `dbName` is
    /// chatbox-core's), the matching usage entries go too, and so do the stored totals: that
    /// cache's next write recounts them, and its per-conversation rows, from the usage entries
    /// instead of keeping counts of entries that are gone.
    /// Resolves 0 when the database does not exist.
    ///
    /// [MDN: IDBIndex.getAllKeys](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAllKeys),
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete)
    pub async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        let context = "clearing a conversation in the chatbox-core database";
        let Some((tx, results)) = self.transaction(IdbTransactionMode::Readwrite).await? else {
            return Ok(0);
        };
        let usage = tx.object_store(USAGE_STORE).ok();
        let meta = tx.object_store(META_STORE).ok();
        let keys_request = IdbKeyRange::only(&JsValue::from_str(conv_id))
            .and_then(|range| {
                results
                    .index(fields::CONV_ID)?
                    .get_all_keys_with_key(&range)
            })
            .map_err(|e| {
                let _ = tx.abort();
                StoreError::from_js(context, &e)
            })?;
        let deleted = Rc::new(Cell::new(0u32));
        // Through the store's own success handlers: one copy of the listener glue.
        let handlers = Handlers::default();
        let _release = handlers.scope();
        let count = deleted.clone();
        handlers.on(&keys_request, move |request| {
            let Ok(keys) = request.result() else { return };
            let keys: Array = keys.unchecked_into();
            for key in keys.iter() {
                // A synchronous failure means the transaction is already aborting;
                // `transaction_done` reports why.
                if results.delete(&key).is_ok() {
                    count.set(count.get() + 1);
                }
                if let Some(usage) = &usage {
                    let _ = usage.delete(&key);
                }
            }
            if let (Some(meta), true) = (&meta, keys.length() > 0) {
                let _ = meta.delete(&TOTALS_KEY.into());
            }
        });
        transaction_done(&tx, context).await?;
        Ok(deleted.get())
    }

    /// Releases the connection and forgets that the database was missing: the next operation
    /// checks again. An open still in flight is left to finish (its connection is kept).
    ///
    /// [MDN: IDBDatabase.close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close)
    pub fn close(&self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.release();
        }
        self.absent_at.set(None);
    }

    /// True while a recent check found the database missing.
    fn known_absent(&self) -> bool {
        self.absent_at.get().is_some_and(|at| {
            let elapsed = js_sys::Date::now() - at;
            (0.0..ABSENT_RECHECK_MS).contains(&elapsed)
        })
    }

    /// The connection, or `None` when the database does not exist (or lacks a `results` store).
    async fn connection(&self) -> Result<Option<Rc<Connection>>, StoreError> {
        if let Some(conn) = self.slot.borrow().clone() {
            return Ok(Some(conn));
        }
        let in_flight = self.pending.borrow().clone();
        let request = match in_flight {
            Some(request) => request,
            None => {
                if self.known_absent() {
                    return Ok(None);
                }
                let factory = factory()?;
                if listed(&factory, &self.name).await == Some(false) {
                    self.absent_at.set(Some(js_sys::Date::now()));
                    return Ok(None);
                }
                // Another operation may have opened, or started opening, during that await.
                if let Some(conn) = self.slot.borrow().clone() {
                    return Ok(Some(conn));
                }
                let in_flight = self.pending.borrow().clone();
                match in_flight {
                    Some(request) => request,
                    None => self.start_open(&factory)?,
                }
            }
        };
        let outcome = within(
            NextEvent::new(&request, &["success", "error"]),
            OPEN_TIMEOUT_MS,
        )
        .await;
        // The settling handler ran before our listener (it was added first).
        if let Some(conn) = self.slot.borrow().clone() {
            return Ok(Some(conn));
        }
        if self.absent_at.get().is_some() {
            return Ok(None);
        }
        Err(match outcome {
            None => StoreError::new(
                ErrorKind::Other("TimeoutError".to_owned()),
                "opening the chatbox-core database: still waiting behind another context's \
                 version change",
            ),
            Some("error") => request_error(&request, OPEN_CONTEXT),
            Some(_) => StoreError::new(
                ErrorKind::InvalidState,
                "opening the chatbox-core database: the connection closed as it opened",
            ),
        })
    }

    /// Opens the database without a version and installs the handler that settles the open:
    /// it keeps the connection, or records the database as missing. The handler outlives the
    /// calling operation, so an open that arrives after [`OPEN_TIMEOUT_MS`] is still kept.
    ///
    /// [MDN: IDBFactory.open](https://developer.mozilla.org/docs/Web/API/IDBFactory/open),
    /// [MDN: upgradeneeded](https://developer.mozilla.org/docs/Web/API/IDBOpenDBRequest/upgradeneeded_event)
    fn start_open(&self, factory: &IdbFactory) -> Result<IdbOpenDbRequest, StoreError> {
        let request = factory
            .open(&self.name)
            .map_err(|e| StoreError::from_js(OPEN_CONTEXT, &e))?;
        // Without a version, `upgradeneeded` means the database did not exist: abort, so the
        // open fails with AbortError and nothing is created.
        let created = Rc::new(Cell::new(false));
        let on_upgrade = {
            let (request, created) = (request.clone(), created.clone());
            listener(Box::new(move |_event: Event| {
                created.set(true);
                let req: &IdbRequest = &request;
                if let Some(tx) = req.transaction() {
                    // [MDN: IDBTransaction.abort](https://developer.mozilla.org/docs/Web/API/IDBTransaction/abort)
                    let _ = tx.abort();
                }
            }))
        };
        request.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
        let settle = {
            let request = request.clone();
            let slot = Rc::downgrade(&self.slot);
            let (absent_at, pending) = (self.absent_at.clone(), self.pending.clone());
            Closure::once_into_js(move |event: Event| {
                request.set_onupgradeneeded(None);
                drop(on_upgrade);
                *pending.borrow_mut() = None;
                let opened = (event.type_() == "success" && !created.get())
                    .then(|| request.result().ok())
                    .flatten()
                    .map(JsCast::unchecked_into::<IdbDatabase>);
                match opened {
                    Some(db) if db.object_store_names().contains(STORE_NAME) => {
                        absent_at.set(None);
                        adopt(db, &slot);
                    }
                    Some(db) => {
                        db.close();
                        absent_at.set(Some(js_sys::Date::now()));
                    }
                    None if created.get() => absent_at.set(Some(js_sys::Date::now())),
                    None => {}
                }
            })
        };
        for ty in ["success", "error"] {
            request
                .add_event_listener_with_callback(ty, settle.unchecked_ref())
                .map_err(|e| StoreError::from_js(OPEN_CONTEXT, &e))?;
        }
        *self.pending.borrow_mut() = Some(request.clone());
        Ok(request)
    }

    /// Starts one transaction on `results` (with `usage` and `meta` too for read-write, when an
    /// upgrade to this package's schema added them). A connection the browser already closed
    /// (`InvalidStateError`) is reopened once, transparently.
    ///
    /// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
    async fn transaction(
        &self,
        mode: IdbTransactionMode,
    ) -> Result<Option<(IdbTransaction, IdbObjectStore)>, StoreError> {
        let context = "starting a chatbox-core transaction";
        start_transaction(
            &self.slot,
            context,
            move || self.connection(),
            |db| {
                let names = db.object_store_names();
                let tx = if mode == IdbTransactionMode::Readwrite && names.contains(USAGE_STORE) {
                    let scope = Array::of2(&STORE_NAME.into(), &USAGE_STORE.into());
                    if names.contains(META_STORE) {
                        scope.push(&META_STORE.into());
                    }
                    db.transaction_with_str_sequence_and_mode(&scope, mode)?
                } else {
                    db.transaction_with_str_and_mode(STORE_NAME, mode)?
                };
                Ok((tx.object_store(STORE_NAME)?, tx))
            },
        )
        .await
        .map(|made| made.map(|(results, tx)| (tx, results)))
    }
}

/// Keeps `db` as the reader's connection, closing on `versionchange` and `close`; closes it
/// instead when the reader is gone or already has one.
fn adopt(db: IdbDatabase, slot: &Weak<RefCell<Option<Rc<Connection>>>>) {
    match slot.upgrade() {
        Some(slot) => drop(keep(&slot, db)),
        None => db.close(),
    }
}

/// Whether `indexedDB.databases()` lists `name`; `None` where the browser lacks the method or
/// it fails (then the open itself decides).
///
/// [MDN: IDBFactory.databases](https://developer.mozilla.org/docs/Web/API/IDBFactory/databases)
async fn listed(factory: &IdbFactory, name: &str) -> Option<bool> {
    let databases: Function = Reflect::get(factory, &"databases".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let promise: Promise = databases.call0(factory).ok()?.dyn_into().ok()?;
    let list: Array = JsFuture::from(promise).await.ok()?.dyn_into().ok()?;
    Some(list.iter().any(|info| {
        Reflect::get(&info, &"name".into())
            .ok()
            .and_then(|n| n.as_string())
            .is_some_and(|n| n == name)
    }))
}

/// Waits for `event`, or `ms` milliseconds, whichever comes first; `None` on timeout. Without a
/// global `setTimeout` it simply waits for the event.
///
/// [MDN: setTimeout](https://developer.mozilla.org/docs/Web/API/Window/setTimeout)
async fn within(mut event: NextEvent, ms: i32) -> Option<&'static str> {
    let global = js_sys::global();
    let timer_fn = |name: &str| {
        Reflect::get(&global, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
    };
    let mut timer_id = JsValue::UNDEFINED;
    let timer = timer_fn("setTimeout").map(|set_timeout| {
        JsFuture::from(Promise::new(&mut |resolve, _reject| {
            if let Ok(id) = set_timeout.call2(&global, &resolve, &ms.into()) {
                timer_id = id;
            }
        }))
    });
    let mut timer = timer;
    let outcome = poll_fn(|cx| {
        if let Poll::Ready(ty) = Pin::new(&mut event).poll(cx) {
            return Poll::Ready(Some(ty));
        }
        match timer.as_mut().map(|t| Pin::new(t).poll(cx)) {
            Some(Poll::Ready(_)) => Poll::Ready(None),
            _ => Poll::Pending,
        }
    })
    .await;
    if outcome.is_some() {
        if let Some(clear_timeout) = timer_fn("clearTimeout") {
            let _ = clear_timeout.call1(&global, &timer_id);
        }
    }
    outcome
}
