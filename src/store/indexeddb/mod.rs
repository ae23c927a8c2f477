//! [`RecordStore`] on IndexedDB, directly over `web-sys`.
//!
//! A thin layer kept faithful to the platform: DOMException names pass through unchanged, each
//! operation is exactly one transaction, write transactions use `durability: "relaxed"` (a cache
//! may lose its last writes on an OS crash; it must not pay an fsync per tool result), and every
//! request of a transaction is issued before anything is awaited. Follow-up requests (an
//! eviction walk, the deletes of a clear) are issued from inside the success events of the same
//! transaction, so it can never auto-commit midway; a write commits explicitly once its last
//! request is issued (`Tx::commit_now`).
//!
//! Schema: database `dbName` at [`SCHEMA_VERSION`]:
//! - [`STORE_NAME`] keyed by `uri`, indexes `convId`, `addedAt`: the records;
//! - [`USAGE_STORE`] keyed by `uri`, index `lastUsedAt`:
//!   `{uri, convId, sizeBytes, lastUsedAt, sourceToolName}`, what eviction, budgets and
//!   invalidation need without reading payloads;
//! - [`META_STORE`]: the running totals `{bytes, entries, exact}` under the key `"totals"`,
//!   updated in the same transaction as every write and delete. A database without them (just
//!   upgraded, or last written by a version without totals) counts its usage rows once, in the
//!   first read-write transaction.
//!
//! Opening a chatbox-core database (version 1, same store, first two indexes) upgrades it in
//! place: nothing is deleted.
//!
//! One concept per file:
//! - `connection`: the factory, opening and upgrading, the lost-connection listener, and the
//!   transaction start that reopens a connection the browser closed (shared with
//!   [`crate::store::legacy`]);
//! - `schema`: the object stores and indexes, and the `upgradeneeded` handler;
//! - `tx`: one transaction over the three stores and its requests' success handlers;
//! - `transaction`: creating transactions in call order, and the read-write transaction every
//!   changing operation runs in;
//! - `last_use`: the last uses reads remember and the next write transaction writes;
//! - `totals`: the running totals;
//! - `eviction`: the oldest-first walk;
//! - `write`: batched writes;
//! - `read`: reads by key, statistics, listing;
//! - `delete`: deletes by key, and the age eviction;
//! - `clear`: clearing a conversation;
//! - `stale`: invalidation by tool name.

mod clear;
mod connection;
mod delete;
mod eviction;
mod last_use;
mod read;
mod schema;
mod stale;
mod totals;
mod transaction;
mod tx;
mod write;

pub use connection::NO_INDEXED_DB;
pub(in crate::store) use connection::{factory, keep, start_transaction, Connection, Slot};
pub(in crate::store) use read::get_records;
pub use schema::{META_STORE, SCHEMA_VERSION, STORE_NAME, USAGE_STORE};
pub(in crate::store) use totals::TOTALS_KEY;
pub(in crate::store) use tx::Handlers;

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use super::call_order::Sequencer;
use super::{Budget, JsRecord, RecordStore, StoreError, StoreStats, WriteOutcome};
use write::BatchedWrite;

/// IndexedDB-backed store. Opens lazily; a failed open is not remembered, so the next call
/// retries. When another tab upgrades or deletes the database (`versionchange`), or the browser
/// closes the connection (`close`), the connection is released and the next call reopens it.
pub struct IndexedDbStore {
    name: String,
    slot: Slot,
    /// Last uses seen by reads and not yet written: (uri, the read's ticket, ms), in call order.
    touched: last_use::Touched,
    /// Called when our upgrade waits for another context to close its connection.
    on_blocked: RefCell<Option<Rc<dyn Fn()>>>,
    /// Call order over this database, shared with every store over it in this realm.
    seq: Rc<Sequencer>,
    /// Write batches waiting for their turn, oldest first, each under its leader's ticket
    /// number; only the newest can still be joined (while no other ticket follows it).
    batches: RefCell<Vec<(u64, Vec<BatchedWrite>)>>,
}

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

/// Each operation's body lives in the file of its concept (see the module docs).
impl RecordStore for IndexedDbStore {
    fn write(
        &self,
        record: &JsRecord,
        budget: &Budget,
    ) -> impl Future<Output = Result<WriteOutcome, StoreError>> {
        self.batched_write(record, budget)
    }

    fn read_many(
        &self,
        uris: &[&str],
        now: f64,
    ) -> impl Future<Output = Result<Vec<Option<JsRecord>>, StoreError>> {
        self.get_many(uris, now)
    }

    fn evict_oldest(&self, bytes_to_free: f64) -> impl Future<Output = Result<u32, StoreError>> {
        self.evict_lru(bytes_to_free)
    }

    fn stats(&self) -> impl Future<Output = Result<StoreStats, StoreError>> {
        self.read_stats()
    }

    fn delete_conversation(
        &self,
        conv_id: &str,
        segment: &str,
    ) -> impl Future<Output = Result<u32, StoreError>> {
        self.clear_conversation(conv_id, segment)
    }

    fn delete_added_before(&self, cutoff_ms: f64) -> impl Future<Output = Result<u32, StoreError>> {
        self.delete_by_age(cutoff_ms)
    }

    fn mark_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> impl Future<Output = Result<u32, StoreError>> {
        self.mark_tools_stale(matches, cause)
    }

    fn list(
        &self,
        conv_id: Option<&str>,
    ) -> impl Future<Output = Result<Vec<JsRecord>, StoreError>> {
        self.list_records(conv_id)
    }

    /// [MDN: IDBDatabase.close](https://developer.mozilla.org/docs/Web/API/IDBDatabase/close)
    fn close(&self) {
        if let Some(conn) = self.slot.borrow_mut().take() {
            conn.release();
        }
    }
}
