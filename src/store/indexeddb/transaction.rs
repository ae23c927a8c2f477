//! Creating transactions in call order: an operation waits for its ticket's turn (see
//! [`crate::store::call_order`]), creates its transaction over the three object stores and
//! passes the turn on at once; and the read-write transaction every changing operation runs
//! in, with the last uses that reads remembered written first.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::IdbTransactionMode;

use super::connection::start_transaction;
use super::last_use::touches_due;
use super::schema::{META_STORE, STORE_NAME, USAGE_STORE};
use super::tx::{store_names, Handlers, Tx};
use super::IndexedDbStore;
use crate::store::idb_events::transaction_done;
use crate::store::idb_objects;
use crate::store::StoreError;

impl IndexedDbStore {
    /// Starts one transaction on the three stores once `ticket`'s turn has come (every
    /// operation called before it has created its own: see [`crate::store::call_order`]), and passes
    /// the turn on — unless `hold` and the transaction was made: the caller passes it then.
    pub(super) async fn transaction(
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
        let connect = move || self.connection();
        let made = start_transaction(&self.slot, "starting a transaction", connect, |db| {
            if mode == IdbTransactionMode::Readwrite {
                idb_objects::relaxed_write_transaction(db, &store_names())
            } else {
                db.transaction_with_str_sequence_and_mode(&store_names(), mode)
            }
        })
        .await?;
        let Some(tx) = made else {
            unreachable!("`IndexedDbStore::connection` always gives a connection")
        };
        let open = |name| {
            tx.object_store(name)
                .map_err(|e| StoreError::from_js("opening object store", &e))
        };
        let (results, usage, meta) = (open(STORE_NAME)?, open(USAGE_STORE)?, open(META_STORE)?);
        Ok(Tx {
            tx,
            results,
            usage,
            meta,
        })
    }

    /// Runs a read-write transaction at `ticket`'s turn: `issue` issues its requests (all
    /// before anything is awaited), then the transaction's completion is awaited and `outcome`
    /// read. The turn is passed on when the transaction is made, except for a clear's first
    /// transaction ([`Touches::Forget`]), whose caller passes it. `touches` says what becomes
    /// of the last uses reads remembered.
    pub(super) fn read_write<'a, T: Copy + Default + 'static>(
        &'a self,
        context: &'a str,
        touches: Touches<'a>,
        ticket: u64,
        issue: impl FnOnce(&Rc<Tx>, &Handlers, Rc<Cell<T>>) -> Result<(), JsValue> + 'a,
    ) -> impl Future<Output = Result<T, StoreError>> + 'a {
        // Not an `async fn`: the driver's future is made here, so the caller's future holds it
        // alone, not these arguments as well (it waits for its turn only once awaited).
        let out = Rc::new(Cell::new(T::default()));
        let sink = out.clone();
        let issue: Issue<'a> = Box::new(move |tx, handlers| issue(tx, handlers, sink));
        let driven = self.drive(context, touches, ticket, issue);
        async move {
            driven.await?;
            Ok(out.get())
        }
    }

    /// The one driver of every read-write transaction's life: waits for the turn, creates the
    /// transaction, writes the remembered last uses (as `touches` says), lets `issue` issue the
    /// operation's requests and awaits the completion. Not generic and boxed, so each operation
    /// adds only its own requests, not another copy of this state machine.
    pub(super) fn drive<'a>(
        &'a self,
        context: &'a str,
        touches: Touches<'a>,
        ticket: u64,
        issue: Issue<'a>,
    ) -> Pin<Box<dyn Future<Output = Result<(), StoreError>> + 'a>> {
        Box::pin(async move {
            let hold = matches!(touches, Touches::Forget(_));
            let mode = IdbTransactionMode::Readwrite;
            let tx = Rc::new(self.transaction(mode, ticket, hold).await?);
            let handlers = Handlers::default();
            let _release = handlers.scope();
            let flush = match touches {
                Touches::Forget(prefix) => {
                    self.forget_touched(prefix);
                    true
                }
                Touches::Defer(now) => touches_due(&self.touched, now),
                Touches::Flush => true,
            };
            if flush {
                self.flush_touched(&tx, &handlers, ticket);
            }
            if let Err(e) = issue(&tx, &handlers) {
                let _ = tx.tx.abort();
                return Err(StoreError::from_js(context, &e));
            }
            transaction_done(&tx.tx, context).await
        })
    }
}

/// An operation's requests, issued inside its transaction by [`IndexedDbStore::drive`].
pub(super) type Issue<'a> = Box<dyn FnOnce(&Rc<Tx>, &Handlers) -> Result<(), JsValue> + 'a>;

/// What a read-write transaction does with the last uses reads remembered before it.
#[derive(Clone, Copy)]
pub(super) enum Touches<'a> {
    /// Writes them first (every operation but a write and a clear).
    Flush,
    /// A write at `now` (the cache's clock): writes them first only when they are due
    /// ([`touches_due`]); otherwise they wait, and its eviction walk, the one step of a write
    /// that least-recently-used order decides, applies them to the rows it meets.
    Defer(f64),
    /// A clear of the conversation with this URI prefix, whose key range the transaction
    /// deletes with requests issued at once: its remembered last uses are dropped, the others
    /// written (a flush's `put` is issued from its `get`'s success event, after those deletes,
    /// and would bring back the usage rows of deleted entries).
    Forget(&'a str),
}
