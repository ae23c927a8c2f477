//! One transaction over the three object stores, and the success handlers of its requests:
//! what every operation issues its requests through.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbObjectStore, IdbRequest, IdbTransaction};

use super::schema::{META_STORE, STORE_NAME, USAGE_STORE};
use crate::store::idb_events::listener;
use crate::store::idb_objects;

thread_local! {
    /// `[results, usage, meta]`, made once: every transaction spans the three stores.
    static STORE_NAMES: JsValue =
        Array::of3(&STORE_NAME.into(), &USAGE_STORE.into(), &META_STORE.into()).into();
}

pub(super) fn store_names() -> JsValue {
    STORE_NAMES.with(JsValue::clone)
}

/// One transaction over the three object stores.
pub(super) struct Tx {
    pub(super) tx: IdbTransaction,
    pub(super) results: IdbObjectStore,
    pub(super) usage: IdbObjectStore,
    pub(super) meta: IdbObjectStore,
}

impl Tx {
    /// Commits now: the caller has issued the transaction's last request. Without it, the
    /// browser commits a transaction only once this page has seen the last request's success
    /// event and issued nothing more, one round trip to IndexedDB's backend later (a quarter of
    /// a 4 KB write in Chromium: bench/READING.md). Only for a transaction whose every request
    /// with a success handler that issues more has already fired it: a request issued after the
    /// commit throws. Where `commit` is missing (older browsers) or refused, the transaction
    /// commits on its own.
    pub(super) fn commit_now(&self) {
        idb_objects::commit(&self.tx);
    }
}

/// The success handlers of one transaction's requests, kept alive until it ends. Handlers may
/// add more (an eviction walk registers its cursor handler from the totals handler).
#[derive(Clone, Default)]
pub(in crate::store) struct Handlers(Rc<RefCell<Vec<Handler>>>);

/// A request's success listener.
type Handler = Closure<dyn FnMut(Event)>;

impl Handlers {
    /// Calls `on_success(request)` from `request`'s success event (each time it fires: a cursor
    /// fires once per step).
    pub(in crate::store) fn on(
        &self,
        request: &IdbRequest,
        on_success: impl FnMut(&IdbRequest) + 'static,
    ) {
        self.on_boxed(request, Box::new(on_success));
    }

    /// [`Self::on`] without generics: one copy of the listener glue serves every call site.
    fn on_boxed(&self, request: &IdbRequest, mut on_success: Box<dyn FnMut(&IdbRequest)>) {
        let target = request.clone();
        let closure = listener(Box::new(move |_event: Event| on_success(&target)));
        // The request is this transaction's own: its `onsuccess` is free, and setting it is a
        // plain property write (no event-type string, nothing that can throw).
        request.set_onsuccess(Some(closure.as_ref().unchecked_ref()));
        self.0.borrow_mut().push(closure);
    }

    /// A guard that frees every handler when the transaction's scope ends. The handlers hold
    /// clones of this list (a handler may register more), so the list is a reference cycle:
    /// without emptying it, each transaction's closures and request objects would never be
    /// freed.
    pub(in crate::store) fn scope(&self) -> HandlersScope {
        HandlersScope(self.clone())
    }
}

/// Empties a [`Handlers`] list when dropped (after the transaction has settled, success or not).
pub(in crate::store) struct HandlersScope(Handlers);

impl Drop for HandlersScope {
    fn drop(&mut self) {
        let released = std::mem::take(&mut *self.0 .0.borrow_mut());
        drop(released);
    }
}
