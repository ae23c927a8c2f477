//! Awaiting several futures at once.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::task::Poll;

/// Runs `a` and `b` concurrently and resolves with both outputs once both are done (what
/// `futures::join!` does, without the dependency). Used where two independent databases are
/// touched by one operation, so its time is the longer of the two rather than their sum.
pub(crate) async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut out_a, mut out_b) = (None, None);
    poll_fn(move |cx| {
        if out_a.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                out_a = Some(v);
            }
        }
        if out_b.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                out_b = Some(v);
            }
        }
        match (out_a.take(), out_b.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (out_a, out_b) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
}

/// Runs every future concurrently and resolves with their outputs, in order, once all are done
/// (`futures::future::join_all` without the dependency). Writes issued this way share one
/// write batch, so one transaction.
pub(crate) async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(move |cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(v) => *output = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(outputs.iter_mut().filter_map(Option::take).collect())
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::join;
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }

    /// Pending `n` times, then ready with `value`.
    fn after(n: usize, value: u32) -> impl Future<Output = u32> {
        let mut left = n;
        std::future::poll_fn(move |cx| {
            if left == 0 {
                Poll::Ready(value)
            } else {
                left -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }

    #[test]
    fn both_outputs_once_both_are_done_and_each_polled_until_then() {
        let waker = Waker::from(Arc::new(Noop));
        let mut cx = Context::from_waker(&waker);
        let mut joined = pin!(join(after(1, 7), after(3, 9)));
        let mut polls = 0;
        let out = loop {
            polls += 1;
            if let Poll::Ready(out) = joined.as_mut().poll(&mut cx) {
                break out;
            }
        };
        assert_eq!(out, (7, 9));
        assert_eq!(
            polls, 4,
            "the slower future decides; the faster one is not waited on first"
        );
    }
}
