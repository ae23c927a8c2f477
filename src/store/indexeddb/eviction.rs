//! Least-recently-used eviction: the walk over the usage rows' `lastUsedAt` index that a write
//! runs inside its own transaction until the budget holds, and the eviction quota recovery asks
//! for ([`crate::store::RecordStore::evict_oldest`]).

use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::IdbCursorWithValue;

use super::last_use::renew;
use super::schema::USAGE_BY_LAST_USED;
use super::totals::{put_totals, usage_size, with_totals};
use super::transaction::Touches;
use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::map::Map;
use crate::core::policy::{Eviction, Room, Totals};
use crate::store::StoreError;

/// Walks the usage entries oldest-first (the `lastUsedAt` index) and deletes each entry and its
/// record, never `keep`, until `walk` is done; then calls `finish(walk)`, which issues the
/// transaction's last requests, and commits it at once ([`Tx::commit_now`]).
///
/// `fresh`: the last uses not yet written (by URI; `waiting_uses` at the write's turn): a row
/// the walk meets that is older than its use is updated to it instead of evicted: it moves to its
/// place in the index, where the cursor meets it again if the walk goes that far. So the walk
/// evicts exactly as if those uses had been written before it, and writes only the ones it
/// reaches.
///
/// [MDN: IDBIndex.openCursor](https://developer.mozilla.org/docs/Web/API/IDBIndex/openCursor)
pub(super) fn evict_oldest_first(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    mut walk: Eviction,
    keep: Option<JsValue>,
    fresh: Map<String, f64>,
    finish: Box<dyn FnOnce(Eviction)>,
) {
    if walk.done() {
        return end(tx, finish, walk);
    }
    let Ok(cursor_request) = tx
        .usage
        .index(USAGE_BY_LAST_USED)
        .and_then(|index| index.open_cursor())
    else {
        let _ = tx.tx.abort();
        return;
    };
    let mut finish = Some(finish);
    let tx = tx.clone();
    handlers.on(&cursor_request, move |request| {
        let cursor = request.result().ok().filter(JsValue::is_object);
        // No cursor: the store is empty.
        if let Some(cursor) = cursor.map(JsCast::unchecked_into::<IdbCursorWithValue>) {
            let row = cursor.value().unwrap_or(JsValue::UNDEFINED);
            let (uri, size) = usage_size(&row);
            let used = uri
                .as_string()
                .and_then(|u| fresh.get(&u).copied())
                .unwrap_or(0.0);
            if !renew(&tx, &row, used)
                && keep.as_ref() != Some(&uri)
                && tx.results.delete(&uri).is_ok()
                && cursor.delete().is_ok()
            {
                walk.evicted(size);
            }
            if !walk.done() {
                let _ = cursor.continue_();
                return;
            }
        }
        if let Some(finish) = finish.take() {
            end(&tx, finish, walk);
        }
    });
}

/// The end of a walk: `finish`'s requests, then the commit (nothing is left to issue).
fn end(tx: &Tx, finish: Box<dyn FnOnce(Eviction)>, walk: Eviction) {
    finish(walk);
    tx.commit_now();
}

impl IndexedDbStore {
    /// [`crate::store::RecordStore::evict_oldest`]: one read-write transaction that walks the
    /// oldest entries until `bytes_to_free` bytes are freed.
    pub(super) async fn evict_lru(&self, bytes_to_free: f64) -> Result<u32, StoreError> {
        self.read_write(
            "evicting least-recently-used entries",
            Touches::Flush,
            self.seq.ticket(),
            move |tx, handlers, out| {
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                with_totals(tx, handlers, Vec::new(), move |totals, _| {
                    let room = Room {
                        bytes: bytes_to_free,
                        entries: 0.0,
                    };
                    let tx = tx2.clone();
                    evict_oldest_first(
                        &tx2,
                        &handlers2,
                        Eviction::new(room),
                        None,
                        Map::new(),
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
}
