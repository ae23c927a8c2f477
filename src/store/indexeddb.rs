//! [`RecordStore`] on IndexedDB, directly over `web-sys`.
//!
//! A thin layer kept faithful to the platform: DOMException names pass through unchanged, each
//! operation is exactly one transaction, write transactions use `durability: "relaxed"` (a cache
//! may lose its last writes on an OS crash; it must not pay an fsync per tool result), and every
//! request of a transaction is issued before anything is awaited. Follow-up requests (an
//! eviction walk, the deletes of a clear) are issued from inside the success events of the same
//! transaction, so it can never auto-commit midway.
//!
//! Schema: database `dbName` at [`SCHEMA_VERSION`]:
//! - [`STORE_NAME`] keyed by `uri`, indexes `convId`, `addedAt`: the records;
//! - [`USAGE_STORE`] keyed by `uri`, index `lastUsedAt`:
//!   `{uri, convId, sizeBytes, lastUsedAt, sourceToolName}`, what eviction, budgets and
//!   invalidation need without reading payloads;
//! - [`META_STORE`]: the running totals `{bytes, entries, perConversation}` under the key
//!   `"totals"`, and one row per conversation under `["conv", convId]` (see
//!   `conversation_totals`), all updated in the same transaction as every write and delete. A
//!   database without them (just upgraded, or last written by an older version) counts its usage
//!   rows once, in the first read-write transaction.
//!
//! Opening a chatbox-core database (version 1, same store, first two indexes) upgrades it in
//! place: nothing is deleted.

use crate::core::map::Map;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Event, IdbCursorDirection, IdbCursorWithValue, IdbDatabase, IdbFactory, IdbIndex, IdbKeyRange,
    IdbObjectStore, IdbObjectStoreParameters, IdbOpenDbRequest, IdbRequest, IdbTransaction,
    IdbTransactionMode,
};

thread_local! {
    /// `[results, usage, meta]`, made once: every transaction spans the three stores.
    static STORE_NAMES: JsValue =
        Array::of3(&STORE_NAME.into(), &USAGE_STORE.into(), &META_STORE.into()).into();
}

fn store_names() -> JsValue {
    STORE_NAMES.with(JsValue::clone)
}

/// One transaction over the three object stores.
pub(super) struct Tx {
    pub(super) tx: IdbTransaction,
    pub(super) results: IdbObjectStore,
    pub(super) usage: IdbObjectStore,
    pub(super) meta: IdbObjectStore,
}

/// A usage entry's `(uri, sizeBytes)`.
fn usage_size(entry: &JsValue) -> (JsValue, f64) {
    (
        field(entry, fields::URI),
        number(entry, fields::SIZE_BYTES).unwrap_or(0.0),
    )
}

/// Key of the totals in [`META_STORE`].
pub(super) const TOTALS_KEY: &str = "totals";

/// The totals, when they were written with per-conversation rows alongside (otherwise the
/// store is recounted, rows included).
fn totals_of(value: &JsValue) -> Option<Totals> {
    if !field(value, PER_CONVERSATION).is_truthy() {
        return None;
    }
    Some(Totals {
        bytes: number(value, "bytes")?,
        entries: number(value, "entries")?,
    })
}

/// The success handlers of one transaction's requests, kept alive until it ends. Handlers may
/// add more (an eviction walk registers its cursor handler from the totals handler).
#[derive(Clone, Default)]
pub(super) struct Handlers(Rc<RefCell<Vec<Handler>>>);

/// A request's success listener.
type Handler = Closure<dyn FnMut(Event)>;

impl Handlers {
    /// Calls `on_success(request)` from `request`'s success event (each time it fires: a cursor
    /// fires once per step).
    pub(super) fn on(&self, request: &IdbRequest, on_success: impl FnMut(&IdbRequest) + 'static) {
        self.on_boxed(request, Box::new(on_success));
    }

    /// [`Self::on`] without generics: one copy of the listener glue serves every call site.
    fn on_boxed(&self, request: &IdbRequest, mut on_success: Box<dyn FnMut(&IdbRequest)>) {
        let target = request.clone();
        let closure = Closure::<dyn FnMut(Event)>::new(move |_event: Event| on_success(&target));
        // The request is this transaction's own: its `onsuccess` is free, and setting it is a
        // plain property write (no event-type string, nothing that can throw).
        request.set_onsuccess(Some(closure.as_ref().unchecked_ref()));
        self.0.borrow_mut().push(closure);
    }

    /// A guard that frees every handler when the transaction's scope ends. The handlers hold
    /// clones of this list (a handler may register more), so the list is a reference cycle:
    /// without emptying it, each transaction's closures and request objects would never be
    /// freed.
    fn scope(&self) -> HandlersScope {
        HandlersScope(self.clone())
    }
}

/// Empties a [`Handlers`] list when dropped (after the transaction has settled, success or not).
struct HandlersScope(Handlers);

impl Drop for HandlersScope {
    fn drop(&mut self) {
        let released = std::mem::take(&mut *self.0 .0.borrow_mut());
        drop(released);
    }
}

/// Updates the totals in [`META_STORE`] (inside a handler of the same transaction).
fn put_totals(tx: &Tx, totals: Totals) {
    let _ = tx.meta.put_with_key(
        &idb_objects::totals_row(totals.bytes, totals.entries),
        &JsValue::from_str(TOTALS_KEY),
    );
}

/// Reads the totals, then calls `then(totals, recounted)` from the success event. A database
/// without them (just upgraded, or written by an older version) counts its usage rows once,
/// here, leaving out `uncounted` (the entries a write has just put, which the caller adds
/// itself), and rebuilds the per-conversation rows from them (`recounted` is then true: rows
/// read before this point are out of date).
///
/// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get),
/// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
fn with_totals(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    uncounted: Vec<JsValue>,
    then: impl FnOnce(Totals, bool) + 'static,
) -> Result<(), JsValue> {
    let request = read_totals(tx)?;
    with_totals_read(tx, handlers, &request, uncounted, Box::new(then));
    Ok(())
}

/// Issues the `get` of the totals (for [`with_totals_read`]).
fn read_totals(tx: &Tx) -> Result<IdbRequest, JsValue> {
    tx.meta.get(&JsValue::from_str(TOTALS_KEY))
}

/// [`with_totals`] over a `get` of the totals issued earlier in the same transaction (a write
/// issues it before its puts: see [`IndexedDbStore::write_batch`]). `then` is boxed: one copy
/// of the two listeners serves every caller.
fn with_totals_read(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    request: &IdbRequest,
    uncounted: Vec<JsValue>,
    then: Box<dyn FnOnce(Totals, bool)>,
) {
    let mut then = Some(then);
    let (tx2, handlers2) = (tx.clone(), handlers.clone());
    handlers.on(request, move |request| {
        let Some(then) = then.take() else { return };
        if let Some(totals) = request.result().ok().as_ref().and_then(totals_of) {
            return then(totals, false);
        }
        let Ok(all) = tx2.usage.get_all() else { return };
        let mut then = Some(then);
        let uncounted = uncounted.clone();
        let tx3 = tx2.clone();
        handlers2.on(&all, move |all| {
            let rows: Array = all.result().map(JsCast::unchecked_into).unwrap_or_default();
            let totals = rows
                .iter()
                .map(|row| usage_size(&row))
                .filter(|(uri, _)| !uncounted.contains(uri))
                .fold(Totals::default(), |t, (_, size)| t.with_entry(size));
            conversation_totals::rebuild(&tx3, &rows, &uncounted);
            if let Some(then) = then.take() {
                then(totals, true);
            }
        });
    });
}

/// Walks the usage entries oldest-first (the `lastUsedAt` index) and deletes each entry and its
/// record, never `keep`, until `walk` is done; then applies `deltas` (the caller's, plus the
/// evictions) to the per-conversation rows and calls `finish(walk)`.
///
/// [MDN: IDBIndex.openCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openCursor)
fn evict_oldest_first(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    mut walk: Eviction,
    keep: Option<JsValue>,
    deltas: ConversationDeltas,
    finish: Box<dyn FnOnce(Eviction)>,
) {
    if walk.done() {
        deltas.apply(tx, handlers);
        return finish(walk);
    }
    let Ok(cursor_request) = tx
        .usage
        .index(USAGE_BY_LAST_USED)
        .and_then(|index| index.open_cursor())
    else {
        let _ = tx.tx.abort();
        return;
    };
    let mut finish = Some((finish, deltas));
    let (tx, handlers2) = (tx.clone(), handlers.clone());
    handlers.on(&cursor_request, move |request| {
        let cursor = request.result().ok().filter(JsValue::is_object);
        let Some(cursor) = cursor.map(JsCast::unchecked_into::<IdbCursorWithValue>) else {
            if let Some((finish, deltas)) = finish.take() {
                deltas.apply(&tx, &handlers2);
                finish(walk); // the store is empty
            }
            return;
        };
        let row = cursor.value().unwrap_or(JsValue::UNDEFINED);
        let (uri, size) = usage_size(&row);
        if keep.as_ref() != Some(&uri) && tx.results.delete(&uri).is_ok() && cursor.delete().is_ok()
        {
            walk.evicted(size);
            if let Some((_, deltas)) = finish.as_mut() {
                deltas.remove_row(&row, size);
            }
        }
        if walk.done() {
            if let Some((finish, deltas)) = finish.take() {
                deltas.apply(&tx, &handlers2);
                finish(walk);
            }
        } else {
            let _ = cursor.continue_();
        }
    });
}

use super::call_order::Sequencer;
use super::conversation_totals::{
    self, ConversationDeltas, ConversationTotals, SharedDeltas, PER_CONVERSATION,
};
use super::idb_events::{request_error, transaction_done, NextEvent};
use super::idb_objects;
use super::js_record::{field, number};
use super::write_batch::{next_microtask, Received, Reply};
use super::{
    js_record, segment_key_bounds, Budget, JsRecord, RecordStore, StoreError, StoreStats, Totals,
    WriteOutcome,
};
use crate::core::envelope::json_string;
use crate::core::policy::{room_needed_for, Eviction, Room};
use crate::core::record::{fields, UNKNOWN_SOURCE_TOOL};
use crate::core::text::concat;

/// Version our schema lives at. chatbox-core databases are version 1; opening one upgrades it.
/// Version 4 added [`META_STORE`]; version 5 moved the tool name from an index of the records
/// to the usage rows (see [`upgrade_schema`]).
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
const USAGE_BY_LAST_USED: &str = "lastUsedAt";
/// Secondary indexes of the records (name = key path).
const INDEXES: [&str; 2] = [fields::CONV_ID, fields::ADDED_AT];
/// The records' index by tool name, versions 2 to 4. Every index of a store costs each write and
/// each delete of a record (a clear of 1 000 entries: ~4 ms of ~21); the usage rows carry the
/// name instead, read in one request by [`RecordStore::mark_stale`].
const RETIRED_TOOL_INDEX: &str = fields::SOURCE_TOOL_NAME;

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
    touched: Rc<RefCell<Map<String, f64>>>,
    /// Called when our upgrade waits for another context to close its connection.
    on_blocked: RefCell<Option<Rc<dyn Fn()>>>,
    /// Call order over this database, shared with every store over it in this realm.
    seq: Rc<Sequencer>,
    /// Write batches waiting for their turn, oldest first, each under its leader's ticket
    /// number; only the newest can still be joined (while no other ticket follows it).
    batches: RefCell<Vec<(u64, Vec<BatchedWrite>)>>,
}

/// A write waiting in the batch, and where its writer waits for the outcome.
struct BatchedWrite {
    record: JsRecord,
    budget: Budget,
    reply: Rc<Reply<Result<WriteOutcome, StoreError>>>,
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
            seq: Sequencer::of(name),
            batches: RefCell::default(),
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

    /// Starts one transaction on the three stores once `ticket`'s turn has come (every
    /// operation called before it has created its own: see [`super::call_order`]), and passes
    /// the turn on — unless `hold` and the transaction was made: the caller passes it then.
    async fn transaction(
        &self,
        mode: IdbTransactionMode,
        ticket: u64,
        hold: bool,
    ) -> Result<Tx, StoreError> {
        self.seq.turn(ticket).await;
        let made = self.create_transaction(mode).await;
        if !hold || made.is_err() {
            self.seq.pass(ticket);
        }
        made
    }

    /// One transaction on the three stores. A connection the browser already closed
    /// (`InvalidStateError`) is reopened once, transparently.
    ///
    /// [MDN: IDBDatabase.transaction](https://developer.mozilla.org/docs/Web/API/IDBDatabase/transaction)
    async fn create_transaction(&self, mode: IdbTransactionMode) -> Result<Tx, StoreError> {
        let mut retried = false;
        loop {
            let conn = self.connection().await?;
            let tx = if mode == IdbTransactionMode::Readwrite {
                idb_objects::relaxed_write_transaction(&conn.db, &store_names())
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
                    let (results, usage, meta) =
                        (open(STORE_NAME)?, open(USAGE_STORE)?, open(META_STORE)?);
                    return Ok(Tx {
                        tx,
                        results,
                        usage,
                        meta,
                    });
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

    /// One read-write transaction for a batch of writes: put every record and its usage entry,
    /// read the totals, evict oldest-first (never the batch's last record) until the whole
    /// batch fits the budget — exactly what writing them one by one would leave — and store the
    /// new totals.
    ///
    /// [MDN: IDBObjectStore.put](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/put)
    ///
    /// A record the browser refuses to clone (`DataCloneError`, thrown by `put` itself) is left
    /// out with its error; the others are written. Resolves the outcome and, per write, its
    /// refusal if any.
    async fn write_batch(
        &self,
        batch: &[BatchedWrite],
        ticket: u64,
    ) -> Result<(WriteOutcome, Vec<Option<StoreError>>), StoreError> {
        // Each URI crosses into JS once: the key and the record's `uri` are the same JS string.
        let (keys, objects): (Vec<JsValue>, Vec<Object>) = batch
            .iter()
            .map(|w| {
                let uri = JsValue::from_str(&w.record.uri);
                let object = idb_objects::record(&w.record, &uri);
                (uri, object)
            })
            .unzip();
        let sizes: Vec<f64> = batch.iter().map(|w| w.record.size_bytes).collect();
        let conv_ids: Vec<String> = batch.iter().map(|w| w.record.conv_id.clone()).collect();
        let refused: Rc<RefCell<Vec<Option<StoreError>>>> =
            Rc::new(RefCell::new(vec![None; batch.len()]));
        // Budgets only shrink (quota recovery): the tightest one in the batch applies.
        let budget = batch.iter().map(|w| w.budget).fold(
            Budget {
                max_bytes: f64::INFINITY,
                max_entries: f64::INFINITY,
            },
            |a, b| Budget {
                max_bytes: a.max_bytes.min(b.max_bytes),
                max_entries: a.max_entries.min(b.max_entries),
            },
        );
        let keep = keys.last().cloned();
        let refusals = refused.clone();
        let outcome = self
            .read_write(
                "writing cache entries",
                None,
                ticket,
                move |tx, handlers, out| {
                    // Keys are fresh 64-bit tokens: a write never replaces an entry, so it only adds.
                    let mut deltas = ConversationDeltas::default();
                    for (conv_id, size) in conv_ids.iter().zip(&sizes) {
                        deltas.add(conv_id, *size, 1.0);
                    }
                    // The reads go first: IndexedDB answers them while it stores the records, so
                    // the round trip to this page that the totals need overlaps the puts instead of
                    // following them. The conversation rows before the totals: the totals' success
                    // event finds them read.
                    deltas.read_ahead(tx);
                    let totals_request = read_totals(tx)?;
                    let mut incoming = Totals::default();
                    for (i, object) in objects.iter().enumerate() {
                        match tx.results.put(object) {
                            Ok(_) => {
                                tx.usage.put(&idb_objects::usage_row(object))?;
                                incoming = incoming.with_entry(sizes[i]);
                            }
                            Err(e) => {
                                deltas.add(&conv_ids[i], sizes[i], -1.0);
                                refusals.borrow_mut()[i] =
                                    Some(StoreError::from_js("writing a cache entry", &e));
                            }
                        }
                    }
                    let (tx2, handlers2) = (tx.clone(), handlers.clone());
                    with_totals_read(
                        tx,
                        handlers,
                        &totals_request,
                        keys,
                        Box::new(move |totals, recounted| {
                            let mut deltas = deltas;
                            if recounted {
                                deltas.forget_read_ahead();
                            }
                            let walk = Eviction::new(room_needed_for(totals, incoming, &budget));
                            evict_oldest_first(&tx2, &handlers2, walk, keep, deltas, {
                                let tx = tx2.clone();
                                Box::new(move |walk| {
                                    let after = Totals {
                                        bytes: (totals.bytes + incoming.bytes - walk.freed_bytes())
                                            .max(0.0),
                                        entries: (totals.entries + incoming.entries
                                            - f64::from(walk.count))
                                        .max(0.0),
                                    };
                                    put_totals(&tx, after);
                                    out.set(WriteOutcome {
                                        evicted: walk.count,
                                        totals: after,
                                    });
                                })
                            });
                        }),
                    );
                    Ok(())
                },
            )
            .await?;
        Ok((outcome, refused.take()))
    }

    /// Drops the remembered last uses of the URIs starting with `prefix` (one copy of this code,
    /// not one per caller of the generic `read_write`).
    #[inline(never)]
    fn forget_touched(&self, prefix: &str) {
        self.touched
            .borrow_mut()
            .retain(|uri, _| !uri.starts_with(prefix));
    }

    /// Writes the last uses that reads remembered (at most [`TOUCH_FLUSH_LIMIT`] per
    /// transaction), for entries that still exist. Issued first in a write transaction, so the
    /// eviction walk that follows sees them.
    fn flush_touched(&self, tx: &Rc<Tx>, handlers: &Handlers) {
        let batch: Vec<(String, f64)> = {
            let mut touched = self.touched.borrow_mut();
            let keys: Vec<String> = touched.keys().take(TOUCH_FLUSH_LIMIT).cloned().collect();
            keys.into_iter()
                .filter_map(|k| touched.remove_entry(&k))
                .collect()
        };
        for (uri, last) in batch {
            let Ok(request) = tx.usage.get(&JsValue::from_str(&uri)) else {
                continue;
            };
            let tx = tx.clone();
            handlers.on(&request, move |request| {
                let Some(entry) = request.result().ok().filter(JsValue::is_object) else {
                    return; // evicted or cleared meanwhile
                };
                if number(&entry, fields::LAST_USED_AT).is_some_and(|old| old < last) {
                    let _ = Reflect::set(&entry, &fields::LAST_USED_AT.into(), &last.into());
                    let _ = tx.usage.put(&entry);
                }
            });
        }
    }

    /// Runs a read-write transaction at `ticket`'s turn: `issue` issues its requests (all
    /// before anything is awaited), then the transaction's completion is awaited and `outcome`
    /// read. The turn is passed on when the transaction is made, except for a clear's first
    /// transaction (`cleared` given), whose caller passes it.
    ///
    /// `cleared`: the URI prefix of a conversation whose key range this transaction deletes
    /// with requests issued at once. Its remembered last uses are dropped instead of flushed:
    /// a flush's `put` is issued from its `get`'s success event, after those deletes, and would
    /// bring back the usage rows of deleted entries.
    async fn read_write<T: Copy + Default + 'static>(
        &self,
        context: &str,
        cleared: Option<&str>,
        ticket: u64,
        issue: impl FnOnce(&Rc<Tx>, &Handlers, Rc<Cell<T>>) -> Result<(), JsValue>,
    ) -> Result<T, StoreError> {
        let mode = IdbTransactionMode::Readwrite;
        let tx = Rc::new(self.transaction(mode, ticket, cleared.is_some()).await?);
        let handlers = Handlers::default();
        let _release = handlers.scope();
        let out = Rc::new(Cell::new(T::default()));
        if let Some(prefix) = cleared {
            self.forget_touched(prefix);
        }
        self.flush_touched(&tx, &handlers);
        if let Err(e) = issue(&tx, &handlers, out.clone()) {
            let _ = tx.tx.abort();
            return Err(StoreError::from_js(context, &e));
        }
        transaction_done(&tx.tx, context).await?;
        Ok(out.get())
    }

    /// Runs the batch of `ticket`: lets the writes called in this turn join (a bounded wait,
    /// cut short as soon as another operation is called), waits for its turn, writes them all
    /// in one transaction and hands every writer its outcome.
    async fn lead(&self, number: u64) {
        let queued = |batches: &[(u64, Vec<BatchedWrite>)]| {
            batches
                .iter()
                .find(|(n, _)| *n == number)
                .map_or(0, |(_, w)| w.len())
        };
        for _ in 0..BATCH_WAIT_MICROTASKS {
            let before = queued(&self.batches.borrow());
            next_microtask().await;
            if !self.seq.is_last(number) || queued(&self.batches.borrow()) == before {
                break;
            }
        }
        self.seq.turn(number).await;
        let batch = {
            let mut batches = self.batches.borrow_mut();
            match batches.iter().position(|(n, _)| *n == number) {
                Some(i) => batches.remove(i).1,
                None => Vec::new(),
            }
        };
        let outcome = self.write_batch(&batch, number).await;
        for (i, write) in batch.iter().enumerate() {
            let own = match &outcome {
                Err(e) => Err(e.clone()),
                Ok((_, refused)) if refused[i].is_some() => {
                    Err(refused[i].clone().unwrap_or_else(|| {
                        StoreError::new("DataCloneError", "the payload cannot be stored")
                    }))
                }
                // The whole batch's evictions are reported once, by its first write.
                Ok((o, _)) => Ok(WriteOutcome {
                    evicted: if i == 0 { o.evicted } else { 0 },
                    ..*o
                }),
            };
            write.reply.send(own);
        }
    }

    /// The speculative clear of [`RecordStore::delete_conversation`]: the counts, the rows and
    /// the two key-range deletes issued at once. `Some(cleared)` when the check held; `None`
    /// when it did not, after aborting (which undoes the deletes).
    async fn clear_by_range(
        &self,
        conv_id: &str,
        segment: &str,
        ticket: u64,
    ) -> Result<Option<u32>, StoreError> {
        let segment = segment.to_owned();
        let conv = JsValue::from_str(conv_id);
        let own_key = conversation_totals::conv_key(conv_id);
        let declined = Rc::new(Cell::new(false));
        let declined_in_tx = declined.clone();
        // Entries of other ids sharing the segment lose only a remembered last use (when the
        // check declines and the range is not deleted after all).
        let prefix = segment_key_bounds(&segment).0;
        let outcome = self
            .read_write(
                "clearing a conversation",
                Some(&prefix),
                ticket,
                move |tx, handlers, out| {
                    let range = conversation_range(&segment)?;
                    let in_range = tx.usage.count_with_key(&range)?;
                    let everywhere = tx
                        .results
                        .index(fields::CONV_ID)?
                        .count_with_key(&IdbKeyRange::only(&conv)?.into())?;
                    let own = tx.meta.get(&own_key)?;
                    let totals_request = read_totals(tx)?;
                    tx.results.delete(&range)?;
                    tx.usage.delete(&range)?;
                    let tx2 = tx.clone();
                    with_totals_read(
                        tx,
                        handlers,
                        &totals_request,
                        Vec::new(),
                        Box::new(move |totals, recounted| {
                            let count = |r: &IdbRequest| r.result().ok().and_then(|n| n.as_f64());
                            let (in_range, everywhere) = (count(&in_range), count(&everywhere));
                            let own = own
                                .result()
                                .ok()
                                .and_then(|v| ConversationTotals::from_js(&v));
                            match own {
                                Some(own)
                                    if !recounted
                                        && !own.irregular
                                        && Some(own.totals.entries) == in_range
                                        && in_range == everywhere =>
                                {
                                    let _ = tx2.meta.delete(&own_key);
                                    put_totals(
                                        &tx2,
                                        Totals {
                                            bytes: (totals.bytes - own.totals.bytes).max(0.0),
                                            entries: (totals.entries - own.totals.entries).max(0.0),
                                        },
                                    );
                                    out.set(own.totals.entries as u32);
                                }
                                // Nothing of this id is stored and the range is empty: nothing deleted.
                                None if !recounted
                                    && everywhere == Some(0.0)
                                    && in_range == Some(0.0) => {}
                                _ => {
                                    declined_in_tx.set(true);
                                    let _ = tx2.tx.abort();
                                }
                            }
                        }),
                    );
                    Ok(())
                },
            )
            .await;
        match outcome {
            _ if declined.get() => Ok(None),
            Ok(cleared) => Ok(Some(cleared)),
            Err(e) => Err(e),
        }
    }

    /// [`RecordStore::delete_conversation`] when the speculative clear declined: reads the
    /// range's usage rows and deletes the conversation's entries by key (then, through the
    /// `convId` index, those it has outside the range).
    ///
    /// The totals are recounted from the usage rows first (their stored copy is dropped in this
    /// transaction). A declined check can mean that someone wrote without keeping the totals —
    /// a tab still on a release whose schema had no totals, sharing this database during a
    /// deploy — and subtracting this clear from totals that missed those writes would compound
    /// the drift. Declines are rare (chatbox-core entries outside their range, ids sharing a
    /// segment), so the recount's cost, one read of the usage rows, is too.
    async fn clear_checked(
        &self,
        conv_id: &str,
        segment: &str,
        ticket: u64,
    ) -> Result<u32, StoreError> {
        let segment = segment.to_owned();
        let conv = JsValue::from_str(conv_id);
        let own_key = conversation_totals::conv_key(conv_id);
        self.read_write(
            "clearing a conversation",
            None,
            ticket,
            move |tx, handlers, out| {
                let range = conversation_range(&segment)?;
                let only = IdbKeyRange::only(&conv)?;
                let index = tx.results.index(fields::CONV_ID)?;
                let everywhere = index.count_with_key(&only)?;
                tx.meta.delete(&TOTALS_KEY.into())?;
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                with_totals(tx, handlers, Vec::new(), move |totals, _| {
                    let everywhere = everywhere.result().ok().and_then(|n| n.as_f64());
                    let scope = Clear {
                        tx: tx2,
                        handlers: handlers2,
                        range,
                        conv,
                        own_key,
                        out,
                    };
                    scope.by_rows(totals, index, only, everywhere.unwrap_or(0.0));
                })
            },
        )
        .await
    }
}

/// Microtasks a batch's leader waits at most for more writes to join.
const BATCH_WAIT_MICROTASKS: usize = 8;

/// Pending last uses written per write transaction, at most.
const TOUCH_FLUSH_LIMIT: usize = 64;

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
    let context = concat(&["opening IndexedDB database ", &json_string(name)]);
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
    if ![STORE_NAME, USAGE_STORE, META_STORE]
        .iter()
        .all(|store| names.contains(store))
    {
        db.close();
        return Err(StoreError::new(
            "NotFoundError",
            concat(&[
                &context,
                ": it lacks the \"results\"/\"usage\"/\"meta\" object stores",
            ]),
        ));
    }
    Ok(db)
}

/// `upgradeneeded`: create what is missing — the `results` store and its indexes, the `meta`
/// store, the `usage` store (filled from existing records: a chatbox-core v1 database keeps
/// every entry) — and never delete anything. Any failure aborts the upgrade, which fails the open with the
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
    // Totals start absent: the first write transaction counts the usage rows once.
    if !names.contains(META_STORE) && db.create_object_store(META_STORE).is_err() {
        let _ = tx.abort();
        return;
    }
    if names.contains(USAGE_STORE) {
        if existing.contains(RETIRED_TOOL_INDEX) {
            name_usage_rows(&tx, results);
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
                let _ = usage.put(&idb_objects::usage_row(&record));
            }
            let _ = cursor.continue_();
        })
    };
    cursor_request.set_onsuccess(Some(on_step.as_ref().unchecked_ref()));
    // The closure must live until the upgrade transaction ends; it is tiny and runs once per
    // database lifetime, so it is handed to the JS GC.
    on_step.forget();
}

/// Versions 2 to 4 → 5: copies each record's tool name from the retired index into its usage
/// row, then deletes the index. Two walks inside the upgrade transaction, no payload read: a key
/// cursor over the index (key = tool name, primary key = URI), then a cursor over the usage
/// rows that rewrites each one with its name (`"<unknown>"` for a record the index did not
/// hold: it had no name).
///
/// [MDN: IDBIndex.openKeyCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openKeyCursor),
/// [MDN: IDBCursor.update](https://developer.mozilla.org/docs/Web/API/IDBCursor/update),
/// [MDN: IDBObjectStore.deleteIndex](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/deleteIndex)
fn name_usage_rows(tx: &IdbTransaction, results: IdbObjectStore) {
    let (Ok(usage), Ok(names)) = (
        tx.object_store(USAGE_STORE),
        results
            .index(RETIRED_TOOL_INDEX)
            .and_then(|index| index.open_key_cursor()),
    ) else {
        let _ = tx.abort();
        return;
    };
    let tx = tx.clone();
    // A JS `Map` (URI → name): the keys stay JS strings, nothing is copied into wasm memory.
    let by_uri = js_sys::Map::new();
    let mut rows_walk: Option<IdbRequest> = None;
    let on_step = {
        let names = names.clone();
        Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let Some(target) = event.target() else { return };
            let request: IdbRequest = target.unchecked_into();
            let cursor = request.result().ok().filter(JsValue::is_object);
            if request == names {
                let Some(cursor) = cursor.map(JsCast::unchecked_into::<web_sys::IdbCursor>) else {
                    // Every name is known: walk the usage rows with this same listener.
                    let _ = results.delete_index(RETIRED_TOOL_INDEX);
                    match usage.open_cursor() {
                        Ok(rows) => rows_walk = Some(rows),
                        Err(_) => {
                            let _ = tx.abort();
                        }
                    }
                    if let Some(rows) = &rows_walk {
                        rows.set_onsuccess(names.onsuccess().as_ref());
                    }
                    return;
                };
                if let (Ok(name), Ok(uri)) = (cursor.key(), cursor.primary_key()) {
                    by_uri.set(&uri, &name);
                }
                let _ = cursor.continue_();
                return;
            }
            let Some(cursor) = cursor.map(JsCast::unchecked_into::<IdbCursorWithValue>) else {
                return; // every row named
            };
            if let Ok(row) = cursor.value() {
                let name = Some(by_uri.get(&field(&row, fields::URI)))
                    .filter(JsValue::is_string)
                    .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.into());
                if Reflect::set(&row, &fields::SOURCE_TOOL_NAME.into(), &name).is_ok() {
                    let _ = cursor.update(&row);
                }
            }
            let _ = cursor.continue_();
        })
    };
    names.set_onsuccess(Some(on_step.as_ref().unchecked_ref()));
    // Lives until the upgrade transaction ends; runs once per database lifetime.
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

impl RecordStore for IndexedDbStore {
    /// One read-write transaction: put the record and its usage entry, read the totals, evict
    /// oldest-first while the policy says more room is needed, store the new totals.
    ///
    /// [MDN: IDBObjectStore.put](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/put)
    async fn write(&self, record: &JsRecord, budget: &Budget) -> Result<WriteOutcome, StoreError> {
        let reply = Reply::new();
        let write = BatchedWrite {
            record: record.clone(),
            budget: *budget,
            reply: reply.clone(),
        };
        // Join the newest batch when nothing was called since it began; otherwise lead one.
        let ticket = {
            let mut batches = self.batches.borrow_mut();
            match batches.last_mut() {
                Some((number, writes)) if self.seq.is_last(*number) => {
                    writes.push(write);
                    None
                }
                _ => {
                    let ticket = self.seq.ticket();
                    batches.push((ticket, vec![write]));
                    Some(ticket)
                }
            }
        };
        if let Some(ticket) = ticket {
            self.lead(ticket).await;
        }
        Received(reply).await
    }

    /// One read-only transaction, every get issued at once. Reads stay read-only: a hit's new
    /// last use is remembered here and written by the next write transaction, before its
    /// eviction walk — exactly when least-recently-used order matters.
    ///
    /// [MDN: IDBObjectStore.get](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/get)
    async fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        if uris.is_empty() {
            return Ok(Vec::new());
        }
        let context = "reading cache entries";
        let ticket = self.seq.ticket();
        let tx = self
            .transaction(IdbTransactionMode::Readonly, ticket, false)
            .await?;
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
        let mut touched = self.touched.borrow_mut();
        if touched.len() >= TOUCH_LIMIT {
            touched.clear();
        }
        for record in records.iter().flatten() {
            touched.insert(record.uri.clone(), now);
        }
        Ok(records)
    }

    async fn evict_oldest(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        self.read_write(
            "evicting least-recently-used entries",
            None,
            self.seq.ticket(),
            move |tx, handlers, out| {
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                with_totals(tx, handlers, Vec::new(), move |totals, _| {
                    let room = Room {
                        bytes: bytes_to_free,
                        entries: 0.0,
                    };
                    let tx = tx2.clone();
                    let (walk, deltas) = (Eviction::new(room), ConversationDeltas::default());
                    evict_oldest_first(
                        &tx2,
                        &handlers2,
                        walk,
                        None,
                        deltas,
                        Box::new(move |walk| {
                            put_totals(
                                &tx,
                                Totals {
                                    bytes: (totals.bytes - walk.freed_bytes()).max(0.0),
                                    entries: (totals.entries - f64::from(walk.count)).max(0.0),
                                },
                            );
                            out.set(walk.count);
                        }),
                    );
                })
            },
        )
        .await
    }

    /// The totals, and the number of distinct conversation ids (a `nextunique` key cursor over
    /// the `convId` index: one step per conversation, no payload read).
    ///
    /// [MDN: IDBIndex.openKeyCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openKeyCursor)
    async fn stats(&self) -> Result<StoreStats, StoreError> {
        let context = "reading cache statistics";
        let ticket = self.seq.ticket();
        let tx = Rc::new(
            self.transaction(IdbTransactionMode::Readonly, ticket, false)
                .await?,
        );
        let handlers = Handlers::default();
        let _release = handlers.scope();
        let totals = Rc::new(Cell::new(Totals::default()));
        let conversations = Rc::new(Cell::new(0u32));
        let issued = (|| -> Result<(), JsValue> {
            let sink = totals.clone();
            with_totals(&tx, &handlers, Vec::new(), move |t, _| sink.set(t))?;
            let cursor = tx
                .results
                .index(fields::CONV_ID)?
                .open_key_cursor_with_range_and_direction(
                    &JsValue::NULL,
                    IdbCursorDirection::Nextunique,
                )?;
            let count = conversations.clone();
            handlers.on(&cursor, move |request| {
                if let Some(cursor) = request.result().ok().filter(JsValue::is_object) {
                    count.set(count.get() + 1);
                    let _ = cursor.unchecked_into::<web_sys::IdbCursor>().continue_();
                }
            });
            Ok(())
        })();
        issued.map_err(|e| StoreError::from_js(context, &e))?;
        transaction_done(&tx.tx, context).await?;
        Ok(StoreStats {
            entries: totals.get().entries as u32,
            bytes: totals.get().bytes,
            conversations: conversations.get(),
        })
    }

    /// Clearing reads no entry. The conversation's row in [`META_STORE`] (bytes, count, whether
    /// any entry lies outside its URI key range) is checked against two counts: the usage rows in
    /// its URI key range and its records in the `convId` index. When all three agree, every entry
    /// in the range is the conversation's and it has none elsewhere, so two key-range deletes
    /// (records, usage rows) remove exactly its entries and the totals drop by the row's figures.
    ///
    /// The deletes are issued speculatively in the same synchronous run as the counts (one
    /// transaction, no round trip between them; requests run in order, so the counts see the
    /// store before the deletes). When the check fails (entries written by chatbox-core under
    /// another segment, another id sharing the segment, a database not yet recounted), that
    /// transaction is aborted, which undoes the deletes, and a second one reads the range's usage
    /// rows and deletes the conversation's entries by key.
    ///
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete),
    /// [MDN: IDBObjectStore.count](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/count),
    /// [MDN: IDBIndex.count](https://developer.mozilla.org/docs/Web/API/IDBIndex/count),
    /// [MDN: IDBTransaction.abort](https://developer.mozilla.org/docs/Web/API/IDBTransaction/abort)
    async fn delete_conversation(&self, conv_id: &str, segment: &str) -> Result<u32, StoreError> {
        // Held until both transactions are created: what is called after the clear must not
        // come between them.
        let ticket = self.seq.ticket();
        match self.clear_by_range(conv_id, segment, ticket).await {
            // Declined and rolled back: nothing was deleted.
            Ok(None) => self.clear_checked(conv_id, segment, ticket).await,
            done => {
                self.seq.pass(ticket);
                done.map(Option::unwrap_or_default)
            }
        }
    }

    /// Walks the `addedAt` index with a key cursor (no payload read); each old entry's usage
    /// row gives its size for the totals.
    async fn delete_added_before(&self, cutoff_ms: f64) -> Result<u32, StoreError> {
        let ticket = self.seq.ticket();
        self.read_write(
            "evicting old entries",
            None,
            ticket,
            move |tx, handlers, out| {
                let range =
                    IdbKeyRange::upper_bound_with_open(&JsValue::from_f64(cutoff_ms), true)?;
                let index = tx.results.index(fields::ADDED_AT)?;
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                with_totals(tx, handlers, Vec::new(), move |totals, _| {
                    // Issued from the totals' success event, so its own listener is in place first.
                    if let Ok(keys) = index.get_all_keys_with_key(&range) {
                        delete_each(&tx2, &handlers2, keys, totals, out);
                    }
                })
            },
        )
        .await
    }

    /// Reads every usage row in one request (small rows: no payload is read), asks `matches`
    /// once per distinct tool name, and reads + rewrites only the matching records — every
    /// request issued from inside this transaction's own success events, so it cannot
    /// auto-commit midway.
    ///
    /// A usage row without a tool name was written into this schema by an older build of this
    /// package (two tabs on different releases during a deploy): its record, which carries the
    /// name, is read and decides, and the row gets the name for next time. Skipping such rows
    /// would leave data a mutation made stale served as fresh.
    ///
    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
    async fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        let cause = JsValue::from_str(cause);
        self.read_write(
            "marking cache entries stale",
            None,
            self.seq.ticket(),
            move |tx, handlers, out| {
                let rows_request = tx.usage.get_all()?;
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                handlers.on(&rows_request, move |request| {
                    let rows: Array = request
                        .result()
                        .map(JsCast::unchecked_into)
                        .unwrap_or_default();
                    let mut decided: Map<String, bool> = Map::new();
                    for row in rows.iter() {
                        let uri = field(&row, fields::URI);
                        let Some(name) = field(&row, fields::SOURCE_TOOL_NAME).as_string() else {
                            let matches = matches.clone();
                            let unnamed = Some(Unnamed { row, matches });
                            mark_one(&tx2, &handlers2, &uri, cause.clone(), out.clone(), unnamed);
                            continue;
                        };
                        if *decided.get_or_insert_with(name, |name| matches(name)) {
                            mark_one(&tx2, &handlers2, &uri, cause.clone(), out.clone(), None);
                        }
                    }
                });
                Ok(())
            },
        )
        .await
    }

    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll),
    /// [MDN: IDBIndex.getAll](https://developer.mozilla.org/docs/Web/API/IDBIndex/getAll)
    async fn list(&self, conv_id: Option<&str>) -> Result<Vec<JsRecord>, StoreError> {
        let context = "listing cache entries";
        let ticket = self.seq.ticket();
        let tx = self
            .transaction(IdbTransactionMode::Readonly, ticket, false)
            .await?;
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
        let rows: Array = usage_request
            .result()
            .map(JsCast::unchecked_into)
            .unwrap_or_default();
        let mut last_used: Map<String, f64> = rows
            .iter()
            .filter_map(|row| {
                let uri = field(&row, fields::URI).as_string()?;
                Some((uri, number(&row, fields::LAST_USED_AT)?))
            })
            .collect();
        for (uri, last) in self.touched.borrow().iter() {
            let entry = last_used.get_or_insert_with(uri.clone(), |_| *last);
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

/// Deletes each record whose key is in `keys` (an `IDBRequest` resolving to them) and its usage
/// row, subtracting the sizes the usage rows give from `totals` and from the per-conversation
/// rows, and counts into `out`.
fn delete_each(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    keys: IdbRequest,
    totals: Totals,
    out: Rc<Cell<u32>>,
) {
    let (tx, handlers2) = (tx.clone(), handlers.clone());
    let totals = Rc::new(Cell::new(totals));
    let deltas: SharedDeltas = Rc::default();
    handlers.on(&keys, move |keys| {
        let keys: Array = keys
            .result()
            .map(JsCast::unchecked_into)
            .unwrap_or_default();
        for key in keys.iter() {
            let Ok(row) = tx.usage.get(&key) else {
                continue;
            };
            let (tx, totals, out, deltas) =
                (tx.clone(), totals.clone(), out.clone(), deltas.clone());
            handlers2.on(&row, move |row| {
                let Some(row) = row.result().ok().filter(JsValue::is_object) else {
                    return; // already gone
                };
                let (uri, size) = usage_size(&row);
                if tx.results.delete(&uri).is_ok() && tx.usage.delete(&uri).is_ok() {
                    totals.set(totals.get().without_entry(size));
                    deltas.borrow_mut().remove_row(&row, size);
                    out.set(out.get() + 1);
                }
            });
        }
        // Requests complete in order: this one's success follows every row's above.
        let Ok(last) = tx.meta.get(&JsValue::from_str(TOTALS_KEY)) else {
            return;
        };
        let (tx, totals, deltas, handlers3) = (
            tx.clone(),
            totals.clone(),
            deltas.clone(),
            handlers2.clone(),
        );
        handlers2.on(&last, move |_| {
            put_totals(&tx, totals.get());
            std::mem::take(&mut *deltas.borrow_mut()).apply(&tx, &handlers3);
        });
    });
}

/// The URI key range of a conversation segment: `["mcp+cache://<segment>/", "mcp+cache://<segment>0")`.
fn conversation_range(segment: &str) -> Result<IdbKeyRange, JsValue> {
    let (lower, upper) = segment_key_bounds(segment);
    IdbKeyRange::bound_with_lower_open_and_upper_open(&lower.into(), &upper.into(), false, true)
}

/// The requests of a `clearConversation` transaction that reads the range's rows.
struct Clear {
    tx: Rc<Tx>,
    handlers: Handlers,
    /// The conversation's URI key range.
    range: IdbKeyRange,
    conv: JsValue,
    /// Its key in [`META_STORE`].
    own_key: JsValue,
    out: Rc<Cell<u32>>,
}

impl Clear {
    /// Reads the range's usage rows and deletes the conversation's by key, then (through the
    /// `convId` index) those it has outside the range.
    ///
    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
    fn by_rows(self, totals: Totals, index: IdbIndex, only: IdbKeyRange, everywhere: f64) {
        let Ok(rows_request) = self.tx.usage.get_all_with_key(&self.range) else {
            return; // the transaction is aborting: its error is reported
        };
        let handlers = self.handlers.clone();
        handlers.on(&rows_request, move |rows_request| {
            let Clear {
                tx,
                handlers,
                conv,
                own_key,
                out,
                ..
            } = &self;
            let rows: Array = rows_request
                .result()
                .map(JsCast::unchecked_into)
                .unwrap_or_default();
            let mine: Vec<(JsValue, f64)> = rows
                .iter()
                .filter(|row| field(row, fields::CONV_ID) == *conv)
                .map(|row| usage_size(&row))
                .collect();
            let mut totals = totals;
            for (uri, size) in &mine {
                let _ = tx.results.delete(uri);
                let _ = tx.usage.delete(uri);
                totals = totals.without_entry(*size);
            }
            let _ = tx.meta.delete(own_key);
            put_totals(tx, totals);
            out.set(mine.len() as u32);
            if everywhere > mine.len() as f64 {
                // Entries of this id outside its key range: find them by the index.
                if let Ok(keys) = index.get_all_keys_with_key(&only) {
                    delete_each(tx, handlers, keys, totals, out.clone());
                }
            }
        });
    }
}

/// A usage row without a tool name, and the question to ask of the name its record carries.
struct Unnamed {
    row: JsValue,
    matches: Rc<dyn Fn(&str) -> bool>,
}

/// Reads one record and rewrites it with `staleCause` unless it is already stale. For an
/// `unnamed` usage row, the record's tool name (`"<unknown>"` without one) is first written onto
/// the row, and decides whether the record is marked.
fn mark_one(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    key: &JsValue,
    cause: JsValue,
    out: Rc<Cell<u32>>,
    unnamed: Option<Unnamed>,
) {
    let Ok(get) = tx.results.get(key) else { return };
    let tx = tx.clone();
    handlers.on(&get, move |request| {
        let Ok(record) = request.result() else { return };
        if !record.is_object() {
            return;
        }
        if let Some(Unnamed { row, matches }) = &unnamed {
            let name = field(&record, fields::SOURCE_TOOL_NAME)
                .as_string()
                .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.to_owned());
            if Reflect::set(row, &fields::SOURCE_TOOL_NAME.into(), &name.as_str().into()).is_ok() {
                let _ = tx.usage.put(row);
            }
            if !matches(&name) {
                return;
            }
        }
        let stale = field(&record, fields::STALE_CAUSE).is_string();
        if !stale
            && Reflect::set(&record, &fields::STALE_CAUSE.into(), &cause).is_ok()
            && tx.results.put(&record).is_ok()
        {
            out.set(out.get() + 1);
        }
    });
}
