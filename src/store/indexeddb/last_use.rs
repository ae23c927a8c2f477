//! Last uses: a read stays read-only, so the new `lastUsedAt` of each hit is remembered in
//! memory and written by a later read-write transaction — at the latest by an eviction walk,
//! exactly when least-recently-used order matters. A write leaves them waiting while they are
//! few and recent ([`touches_due`]): the everyday write+read then costs no request for the
//! read's use, and its walk, when it has one, applies them to the rows it meets
//! (`evict_oldest_first`). Listings merge the waiting ones (see `list_records`).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::map::Map;
use crate::core::record::fields;
use crate::store::js_record::number;

/// Pending last-use updates kept (between two writes) before the oldest are dropped.
const TOUCH_LIMIT: usize = 4096;

/// Pending last uses a write writes first instead of leaving them waiting.
const DUE_COUNT: usize = 64;

/// Age (ms, the cache's clock) at which a pending last use is written by the next write: what a
/// page closed or reloaded before any eviction can lose.
const DUE_AGE_MS: f64 = 30_000.0;

/// Last uses seen by reads and not yet written: (uri, the read's ticket, ms), in call order.
pub(super) type Touched = Rc<RefCell<Vec<(String, u64, f64)>>>;

/// Whether a write at `now` writes the pending last uses first: [`DUE_COUNT`] of them are
/// waiting, or the oldest is [`DUE_AGE_MS`] old.
pub(super) fn touches_due(touched: &Touched, now: f64) -> bool {
    let touched = touched.borrow();
    touched.len() >= DUE_COUNT || touched.first().is_some_and(|t| now - t.2 >= DUE_AGE_MS)
}

/// The latest use of each entry among the reads called before `ticket`, waiting now: what a
/// write's eviction walk applies and a listing shows, taken at their turn (an operation called
/// after them may write the uses before they are answered).
pub(super) fn waiting_uses(touched: &Touched, ticket: u64) -> Map<String, f64> {
    let mut uses = Map::new();
    for (uri, read, last) in touched.borrow().iter() {
        if *read < ticket {
            note_use(&mut uses, uri.clone(), *last);
        }
    }
    uses
}

/// Keeps in `uses` the later of `last` and what it has for `uri`.
pub(super) fn note_use(uses: &mut Map<String, f64>, uri: String, last: f64) {
    let entry = uses.get_or_insert_with(uri, |_| last);
    *entry = entry.max(last);
}

/// Puts `row` (a usage row) with `last` as its last use when its own is older (a flush, an
/// eviction walk applying a waiting use); true then.
pub(super) fn renew(tx: &Tx, row: &JsValue, last: f64) -> bool {
    let older = number(row, fields::LAST_USED_AT).is_some_and(|old| old < last);
    if older {
        let _ = Reflect::set(row, &fields::LAST_USED_AT.into(), &last.into());
        let _ = tx.usage.put(row);
    }
    older
}

impl IndexedDbStore {
    /// Remembers `now` as the last use of every entry a read asks for, under the read's
    /// `ticket` (its place in call order), when the read is called (forgetting every pending
    /// one first when [`TOUCH_LIMIT`] are pending: bounded memory for a page that reads
    /// thousands of entries without writing): a write called after the read, before its
    /// answer, already sees the hit as used, and a write called before it never does, even when
    /// that write's transaction is made later (behind a reopening database). A miss costs the
    /// transaction that writes the uses one `get` that finds nothing.
    pub(super) fn remember_touched(&self, uris: &[&str], now: f64, ticket: u64) {
        let mut touched = self.touched.borrow_mut();
        if touched.len() >= TOUCH_LIMIT {
            touched.clear();
        }
        for uri in uris {
            touched.push(((*uri).to_owned(), ticket, now));
        }
    }

    /// Drops the remembered last uses of the URIs starting with `prefix` (one copy of this code,
    /// not one per caller of the generic `read_write`).
    #[inline(never)]
    pub(super) fn forget_touched(&self, prefix: &str) {
        self.touched
            .borrow_mut()
            .retain(|(uri, _, _)| !uri.starts_with(prefix));
    }

    /// Writes the last uses that reads called before `ticket` remembered, every one of them (a
    /// use left pending would let an eviction walk that follows take a just-read entry for an
    /// old one), for entries that still exist. Issued first in a read-write transaction.
    pub(super) fn flush_touched(&self, tx: &Rc<Tx>, handlers: &Handlers, ticket: u64) {
        // The latest use of each entry among those reads, taken out of the pending ones.
        let uses = waiting_uses(&self.touched, ticket);
        self.touched.borrow_mut().retain(|t| t.1 >= ticket);
        for (uri, last) in uses {
            let Ok(request) = tx.usage.get(&JsValue::from_str(&uri)) else {
                continue;
            };
            let tx = tx.clone();
            // Nothing found: evicted or cleared meanwhile.
            handlers.on(&request, move |request| {
                renew(&tx, &request.result().unwrap_or(JsValue::UNDEFINED), last);
            });
        }
    }
}
