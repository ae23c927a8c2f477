//! Futures over IndexedDB transaction events, the way `idb` turns requests into promises — but
//! without a promise hop: the waker is called from the event listener itself, and nothing of
//! ours runs inside a transaction between its requests.
//!
//! Handlers are cleared when the future is dropped, so an abandoned wait leaks nothing. (The
//! opens, one request each, are promises made in JS: `idb_objects.js`, `legacy_open.js`.)

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Event, IdbTransaction};

use super::{ErrorKind, StoreError};
use crate::core::text::concat;

/// A listener JS can call, from a boxed closure: every listener made through this shares one
/// copy of wasm-bindgen's closure glue, instead of one per closure type.
pub(crate) fn listener(on_event: Box<dyn FnMut(Event)>) -> Closure<dyn FnMut(Event)> {
    Closure::wrap(on_event)
}

/// A listener that records `ty` as the event fired (the first one wins) and wakes the waiting
/// future.
fn on_fired(shared: &Rc<RefCell<Shared>>, ty: &'static str) -> Closure<dyn FnMut(Event)> {
    let shared = shared.clone();
    listener(Box::new(move |_event: Event| {
        let mut s = shared.borrow_mut();
        if s.fired.is_none() {
            s.fired = Some(ty);
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        }
    }))
}

#[derive(Default)]
struct Shared {
    fired: Option<&'static str>,
    waker: Option<Waker>,
}

/// Ready with the event that fired, or registers the waker.
fn poll_shared(shared: &RefCell<Shared>, cx: &mut Context<'_>) -> Poll<&'static str> {
    let mut s = shared.borrow_mut();
    match s.fired {
        Some(ty) => Poll::Ready(ty),
        None => {
            s.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Waits for a transaction to commit ([MDN: IDBTransaction complete](https://developer.mozilla.org/docs/Web/API/IDBTransaction/complete_event)).
/// An abort becomes the transaction's DOMException (`QuotaExceededError`, `ConstraintError`, …),
/// or `AbortError` when it has none.
///
/// The transaction is this store's own, so its `oncomplete` / `onabort` properties are free:
/// setting them is a plain property write, where `addEventListener` decodes the event type and
/// goes through a catching call (and `removeEventListener` again) on every write.
pub(crate) async fn transaction_done(tx: &IdbTransaction, context: &str) -> Result<(), StoreError> {
    match TransactionEnd::new(tx).await {
        "complete" => Ok(()),
        _ => Err(match tx.error() {
            Some(dom) => StoreError::from_js(context, &dom),
            None => StoreError::new(
                ErrorKind::Abort,
                concat(&[context, ": transaction aborted"]),
            ),
        }),
    }
}

/// Resolves with `"complete"` or `"abort"`, whichever the transaction fires first; its
/// handlers are cleared when dropped.
struct TransactionEnd {
    tx: IdbTransaction,
    shared: Rc<RefCell<Shared>>,
    _handlers: [Closure<dyn FnMut(Event)>; 2],
}

impl TransactionEnd {
    fn new(tx: &IdbTransaction) -> Self {
        let shared = Rc::new(RefCell::new(Shared::default()));
        let handlers = [on_fired(&shared, "complete"), on_fired(&shared, "abort")];
        tx.set_oncomplete(Some(handlers[0].as_ref().unchecked_ref()));
        tx.set_onabort(Some(handlers[1].as_ref().unchecked_ref()));
        Self {
            tx: tx.clone(),
            shared,
            _handlers: handlers,
        }
    }
}

impl Future for TransactionEnd {
    type Output = &'static str;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        poll_shared(&self.shared, cx)
    }
}

impl Drop for TransactionEnd {
    fn drop(&mut self) {
        self.tx.set_oncomplete(None);
        self.tx.set_onabort(None);
    }
}
