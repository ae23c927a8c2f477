//! Writes issued together share one transaction.
//!
//! When a host caches several results at once (parallel tool calls, a burst of 50 writes), each
//! write in its own read-write transaction would wait for the previous one to commit. Instead the
//! first write of a turn becomes the batch's leader: it lets the microtask queue run until no
//! more writes join, then runs one transaction for all of them and hands every writer its
//! outcome. A lone write costs one or two extra microtasks, nothing more.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// Where a writer waits for the outcome the leader hands it.
pub(crate) struct Reply<R> {
    value: RefCell<Option<R>>,
    waker: RefCell<Option<Waker>>,
}

impl<R> Reply<R> {
    pub(crate) fn new() -> Rc<Self> {
        Rc::new(Self {
            value: RefCell::new(None),
            waker: RefCell::new(None),
        })
    }

    /// Hands the writer its outcome and wakes it.
    pub(crate) fn send(&self, value: R) {
        *self.value.borrow_mut() = Some(value);
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }
}

/// Resolves once [`Reply::send`] was called.
pub(crate) struct Received<R>(pub(crate) Rc<Reply<R>>);

impl<R> Future for Received<R> {
    type Output = R;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        match self.0.value.borrow_mut().take() {
            Some(value) => Poll::Ready(value),
            None => {
                *self.0.waker.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Lets every microtask already queued run (writes issued in the same turn reach the batch).
pub(crate) async fn next_microtask() {
    let _ = JsFuture::from(Promise::resolve(&JsValue::UNDEFINED)).await;
}
