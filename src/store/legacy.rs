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
//! (or after [`LegacyChatboxStore::close`]) the next read checks again, which picks up a
//! database a chatbox-core tab created in the meantime. A clear always checks: what a
//! chatbox-core tab stored since the last look is cleared too.
//!
//! The opening is `legacy_open.js`: the `databases()` check, the version-less open and its
//! aborted upgrade, the timeout and the remembered absence are event handlers and timers on JS
//! objects, and cost a fraction there of what they cost as futures in WebAssembly. The
//! connection it resolves is kept here like the cache's own (`keep`: closed on
//! `versionchange` and `close`), and the reads and deletes are this module's transactions.
//!
//! Reads are read-only transactions: nothing is written to a chatbox-core record, not even a
//! last-use time. Conversation scoping is the caller's: a record carries its `convId`
//! ([`JsRecord::conv_id`]) and should be handed out only for that exact conversation.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStore, IdbTransaction, IdbTransactionMode,
};

use super::idb_events::transaction_done;
use super::indexeddb::{
    factory, get_records, keep, start_transaction, Connection, Handlers, Slot, META_STORE,
    TOTALS_KEY,
};
use super::{JsRecord, StoreError, STORE_NAME, USAGE_STORE};
use crate::core::record::fields;

#[wasm_bindgen(module = "/src/store/legacy_open.js")]
extern "C" {
    /// A reader's opening state (a plain JS object).
    #[wasm_bindgen(js_name = mcpLegacyState)]
    fn open_state() -> JsValue;
    /// Resolves the connection (`IDBDatabase`, or `null` when the database is missing); rejects
    /// with the open's error or a `TimeoutError`.
    #[wasm_bindgen(js_name = mcpLegacyOpen)]
    fn open(
        state: &JsValue,
        factory: &IdbFactory,
        name: &str,
        store_name: &str,
        timeout_ms: i32,
        recheck_ms: f64,
    ) -> Promise;
    /// Forgets the absence and closes a connection no operation took (`gone`: for good).
    #[wasm_bindgen(js_name = mcpLegacyClose)]
    fn close_state(state: &JsValue, gone: bool);
    #[wasm_bindgen(js_name = mcpLegacyConvId)]
    fn stored_conv_id(conv_id: &str) -> JsValue;
}

/// The id chatbox-core 0.12 stored for a conversation, in its records' `convId` and its
/// references' segment (its `sanitizeConvId`: every UTF-16 unit outside `[A-Za-z0-9_-]` as `_`,
/// the first 64 kept, `"default"` when empty; `user:42` → `user_42`). Lossy: ids it rewrote to
/// one share their chatbox-core entries, as they did in chatbox-core.
pub fn chatbox_core_conv_id(conv_id: &str) -> String {
    stored_conv_id(conv_id).as_string().unwrap_or_default()
}

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
    /// The opening state `legacy_open.js` keeps: the open in flight (every operation waits on
    /// that one request, never a second), a connection that arrived after its operations gave
    /// up, when the database was last found missing.
    state: JsValue,
}

impl Default for LegacyChatboxStore {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for LegacyChatboxStore {
    /// Closes the connection, so a dropped reader never holds chatbox-core's database open (nor
    /// one still to arrive).
    fn drop(&mut self) {
        self.release();
        close_state(&self.state, true);
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
            state: open_state(),
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
        get_records(&tx, &results, uris, 0, context).await
    }

    /// Deletes every record whose `convId` is the id chatbox-core stored for `conv_id` (its
    /// `sanitizeConvId`: `user:42` → `user_42`, so ids it rewrote to one are cleared together,
    /// as chatbox-core clears them), in one read-write transaction (allowed on an existing
    /// database without a version change); returns how many. The keys
    /// come from the `convId` index (`getAllKeys`, no payload is read) and the deletes are issued
    /// from its success event, so the transaction cannot commit in between. If the database
    /// was upgraded to this package's schema in the meantime (a cache whose `dbName` is
    /// chatbox-core's), the matching usage entries go too, and so do the stored totals: that
    /// cache's next write recounts them from the usage entries
    /// instead of keeping counts of entries that are gone.
    /// Resolves 0 when the database does not exist (looked for again, whatever a read found).
    ///
    /// [MDN: IDBIndex.getAllKeys](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAllKeys),
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete)
    pub async fn delete_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        let context = "clearing a conversation in the chatbox-core database";
        // Never on a remembered absence: the database may have been made since.
        close_state(&self.state, false);
        let Some((tx, results)) = self.transaction(IdbTransactionMode::Readwrite).await? else {
            return Ok(0);
        };
        let usage = tx.object_store(USAGE_STORE).ok();
        let meta = tx.object_store(META_STORE).ok();
        let keys_request = IdbKeyRange::only(&stored_conv_id(conv_id))
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
        self.release();
        close_state(&self.state, false);
    }

    fn release(&self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.release();
        }
    }

    /// The connection, or `None` when the database does not exist (or lacks a `results` store).
    /// `legacy_open.js` opens it (the module docs' rules); an operation that finds the one it
    /// waited on already kept by another keeps using that one.
    async fn connection(&self) -> Result<Option<Rc<Connection>>, StoreError> {
        if let Some(conn) = self.slot.borrow().clone() {
            return Ok(Some(conn));
        }
        let factory = factory()?;
        let opened = open(
            &self.state,
            &factory,
            &self.name,
            STORE_NAME,
            OPEN_TIMEOUT_MS,
            ABSENT_RECHECK_MS,
        );
        let db = JsFuture::from(opened)
            .await
            .map_err(|e| StoreError::from_js(OPEN_CONTEXT, &e))?;
        if db.is_null() {
            return Ok(None);
        }
        Ok(Some(keep(&self.slot, db.unchecked_into::<IdbDatabase>())))
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
