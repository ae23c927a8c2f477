//! Last uses: a read stays read-only, so the new `lastUsedAt` of each hit is remembered in
//! memory and written by the next read-write transaction, before its eviction walk — exactly
//! when least-recently-used order matters.

use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::record::fields;
use crate::store::js_record::number;

/// Pending last-use updates kept before the oldest are dropped.
const TOUCH_LIMIT: usize = 4096;

/// Pending last uses written per write transaction, at most.
const TOUCH_FLUSH_LIMIT: usize = 64;

impl IndexedDbStore {
    /// Remembers `now` as the last use of every entry a read asks for, when the read is called
    /// (forgetting every pending one first when [`TOUCH_LIMIT`] are pending): a write called
    /// after the read, before its answer, already sees the hit as used. A miss costs the next
    /// write one `get` that finds nothing.
    pub(super) fn remember_touched(&self, uris: &[&str], now: f64) {
        let mut touched = self.touched.borrow_mut();
        if touched.len() >= TOUCH_LIMIT {
            touched.clear();
        }
        for uri in uris {
            touched.insert((*uri).to_owned(), now);
        }
    }

    /// Drops the remembered last uses of the URIs starting with `prefix` (one copy of this code,
    /// not one per caller of the generic `read_write`).
    #[inline(never)]
    pub(super) fn forget_touched(&self, prefix: &str) {
        self.touched
            .borrow_mut()
            .retain(|uri, _| !uri.starts_with(prefix));
    }

    /// Writes the last uses that reads remembered (at most [`TOUCH_FLUSH_LIMIT`] per
    /// transaction), for entries that still exist. Issued first in a write transaction, so the
    /// eviction walk that follows sees them.
    pub(super) fn flush_touched(&self, tx: &Rc<Tx>, handlers: &Handlers) {
        let batch: Vec<(String, f64)> = {
            let mut touched = self.touched.borrow_mut();
            let keys: Vec<String> = touched.keys().take(TOUCH_FLUSH_LIMIT).cloned().collect();
            let mut batch = Vec::with_capacity(keys.len());
            for key in keys {
                if let Some(entry) = touched.remove_entry(&key) {
                    batch.push(entry);
                }
            }
            batch
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
}
