//! The write path: writes called one after another, with no other operation between them,
//! share one read-write transaction (a batch led by the first write's ticket), which puts the
//! records and their usage rows, reads the totals and evicts oldest-first until the budget
//! holds, all before anything is awaited.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Object;
use wasm_bindgen::JsValue;

use super::eviction::evict_oldest_first;
use super::last_use::waiting_uses;
use super::totals::{put_totals, read_totals, with_totals_read};
use super::transaction::Touches;
use super::IndexedDbStore;
use crate::core::policy::{room_needed_for, Eviction};
use crate::store::idb_objects;
use crate::store::write_batch::{next_microtask, Received, Reply};
use crate::store::{Budget, ErrorKind, JsRecord, StoreError, Totals, WriteOutcome};

/// A write waiting in the batch, and where its writer waits for the outcome.
pub(super) struct BatchedWrite {
    record: JsRecord,
    budget: Budget,
    reply: Rc<Reply<Result<WriteOutcome, StoreError>>>,
}

/// Microtasks a batch's leader waits at most for more writes to join.
const BATCH_WAIT_MICROTASKS: usize = 8;

impl IndexedDbStore {
    /// [`crate::store::RecordStore::write`]: joins the newest batch when nothing was called
    /// since it began, otherwise leads a new one; each batch is one read-write transaction that
    /// puts the records and their usage entries, reads the totals, evicts oldest-first while
    /// the policy says more room is needed, and stores the new totals.
    ///
    /// [MDN: IDBObjectStore.put](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/put)
    pub(super) async fn batched_write(
        &self,
        record: &JsRecord,
        budget: &Budget,
    ) -> Result<WriteOutcome, StoreError> {
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
                        StoreError::new(ErrorKind::DataClone, "the payload cannot be stored")
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
        let touched = self.touched.clone();
        let now = batch.last().map_or(0.0, |w| w.record.added_at);
        let outcome = self
            .read_write(
                "writing cache entries",
                Touches::Defer(now),
                ticket,
                move |tx, handlers, out| {
                    // The uses waiting now, at this write's turn: an operation called after it
                    // may write or drop them before this transaction's walk runs.
                    let fresh = waiting_uses(&touched, ticket);
                    // Keys are fresh 64-bit tokens: a write never replaces an entry, so it only
                    // adds. The totals' read goes first: IndexedDB answers it while it stores the
                    // records, so the round trip to this page that the totals need overlaps the
                    // puts instead of following them.
                    let totals_request = read_totals(tx)?;
                    let mut incoming = Totals::default();
                    for (i, object) in objects.iter().enumerate() {
                        match tx.results.put(object) {
                            Ok(_) => {
                                tx.usage.put(&idb_objects::usage_row(object))?;
                                incoming = incoming.with_entry(sizes[i]);
                            }
                            Err(e) => {
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
                        Box::new(move |totals, _| {
                            let walk = Eviction::new(room_needed_for(totals, incoming, &budget));
                            evict_oldest_first(&tx2, &handlers2, walk, keep, fresh, {
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
}
