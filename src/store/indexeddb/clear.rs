//! Clearing a conversation without reading its entries: a speculative key-range delete checked
//! against the range's usage rows, and, when the check declines, a second transaction that
//! deletes by key.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbIndex, IdbKeyRange, IdbRequest};

use super::delete::delete_each;
use super::totals::{
    put_totals, read_totals, usage_size, with_totals, with_totals_read, TOTALS_KEY,
};
use super::transaction::Touches;
use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::policy::Totals;
use crate::core::record::fields;
use crate::store::idb_objects;
use crate::store::js_record::field;
use crate::store::{segment_key_bounds, StoreError};

impl IndexedDbStore {
    /// Clearing reads no entry, only the small usage rows (`{uri, convId, sizeBytes, …}`) of
    /// the conversation's URI key range, checked against two counts: its records in the `convId`
    /// index, and all usage rows. When every row in the range is the conversation's and their
    /// number is the first count, every entry in the range is the conversation's and it has none
    /// elsewhere, so two key-range deletes (records, usage rows) remove exactly its entries. The
    /// totals then drop by the rows' sizes, which needs them exact: the clear also requires that
    /// they count every usage row and that every row in the range has a tool name (a 0.1 build,
    /// which skips the totals, leaves rows without one). Any failed check aborts the deletes.
    ///
    /// The deletes are issued speculatively in the same synchronous run as the reads (one
    /// transaction, no round trip between them; requests run in order, so the reads see the
    /// store before the deletes). When the check fails (entries written by chatbox-core under
    /// another segment, another id sharing the segment, a database not yet recounted), that
    /// transaction is aborted, which undoes the deletes, and a second one reads the range's usage
    /// rows and deletes the conversation's entries by key.
    ///
    /// [MDN: IDBObjectStore.delete](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/delete),
    /// [MDN: IDBObjectStore.count](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/count),
    /// [MDN: IDBIndex.count](https://developer.mozilla.org/docs/Web/API/IDBIndex/count),
    /// [MDN: IDBTransaction.abort](https://developer.mozilla.org/docs/Web/API/IDBTransaction/abort)
    pub(super) async fn clear_conversation(
        &self,
        conv_id: &str,
        segment: &str,
    ) -> Result<u32, StoreError> {
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

    /// The speculative clear of [`crate::store::RecordStore::delete_conversation`]: the counts, the rows and
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
        let declined = Rc::new(Cell::new(false));
        let declined_in_tx = declined.clone();
        // Entries of other ids sharing the segment lose only a remembered last use (when the
        // check declines and the range is not deleted after all).
        let prefix = segment_key_bounds(&segment).0;
        let outcome = self
            .read_write(
                "clearing a conversation",
                Touches::Forget(&prefix),
                ticket,
                move |tx, handlers, out| {
                    let range = conversation_range(&segment)?;
                    let rows = tx.usage.get_all_with_key(&range)?;
                    let everywhere = tx
                        .results
                        .index(fields::CONV_ID)?
                        .count_with_key(&IdbKeyRange::only(&conv)?.into())?;
                    let stored = tx.usage.count()?;
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
                            let everywhere = count(&everywhere);
                            // A failed `getAll` never gets here: its error aborts the transaction.
                            let rows: Array = rows
                                .result()
                                .map(JsCast::unchecked_into)
                                .unwrap_or_default();
                            // The range's entries, as long as each is this id's and was written
                            // by a build that keeps the totals (a 0.1 build, which does not,
                            // leaves its usage rows without a tool name).
                            let bytes = idb_objects::range_bytes(&rows, &conv);
                            let own = (bytes >= 0.0).then(|| Totals {
                                bytes,
                                entries: f64::from(rows.length()),
                            });
                            match own {
                                Some(own)
                                    if !recounted
                                        && Some(own.entries) == everywhere
                                        && Some(totals.entries) == count(&stored) =>
                                {
                                    put_totals(
                                        &tx2,
                                        Totals {
                                            bytes: (totals.bytes - own.bytes).max(0.0),
                                            entries: (totals.entries - own.entries).max(0.0),
                                        },
                                    );
                                    out.set(own.entries as u32);
                                }
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

    /// [`crate::store::RecordStore::delete_conversation`] when the speculative clear declined: reads the
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
        self.read_write(
            "clearing a conversation",
            Touches::Flush,
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
                        out,
                    };
                    scope.by_rows(totals, index, only, everywhere.unwrap_or(0.0));
                })
            },
        )
        .await
    }
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
                out,
                ..
            } = &self;
            let rows: Array = rows_request
                .result()
                .map(JsCast::unchecked_into)
                .unwrap_or_default();
            let mut mine: Vec<(JsValue, f64)> = Vec::new();
            for row in rows.iter() {
                if field(&row, fields::CONV_ID) == *conv {
                    mine.push(usage_size(&row));
                }
            }
            let mut totals = totals;
            for (uri, size) in &mine {
                let _ = tx.results.delete(uri);
                let _ = tx.usage.delete(uri);
                totals = totals.without_entry(*size);
            }
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
