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

/// Lets every task and microtask already queued run (writes issued in the same turn reach the
/// batch): returns `Pending` once after waking itself, so the executor polls it again on its
/// next tick — after the tasks of this tick (the other writers spawned in the same turn) and the
/// microtasks queued before that tick. No promise and no JS closure are made for it.
pub(crate) fn next_microtask() -> impl Future<Output = ()> {
    struct YieldOnce(bool);
    impl Future for YieldOnce {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
    YieldOnce(false)
}
