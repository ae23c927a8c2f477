//! Call order: the transactions of one database are created in the order their operations
//! were called, by every store over that database in this realm.
//!
//! IndexedDB runs transactions whose scopes overlap in the order they were *created* (every
//! transaction here spans the same three object stores), so creating them in call order makes
//! every operation take effect in call order: a clear sees the writes called before it, a write
//! called after a clear survives it, a read sees every write called before it. Batching stays:
//! writes called one after another, with no other operation between them, share one
//! transaction (see `IndexedDbStore::write`); any other operation seals the batch before it.
//!
//! Each operation takes a ticket synchronously, when it is called (the first poll of its
//! future, before anything is awaited), waits for its turn, creates its transaction and passes
//! the turn on at once (`IndexedDbStore::transaction`): transactions still queue up inside
//! IndexedDB without a round trip between them. A clear keeps its turn until its second
//! transaction, if it needs one, is created: when its speculative key-range delete declines,
//! that transaction must come before anything called after it.
//!
//! Tickets are plain numbers, passed on explicitly and only at their turn: every path from
//! taking a ticket reaches `IndexedDbStore::transaction`, which waits for the turn and passes
//! it on whatever happens (an operation's future is never dropped before it completes: the
//! exports spawn them and they run to completion).

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::rc::Rc;
use std::task::{Poll, Waker};

/// The ticket counter of one database name.
#[derive(Default)]
pub(crate) struct Sequencer {
    /// Tickets handed out.
    issued: Cell<u64>,
    /// The ticket whose transaction is created next.
    turn: Cell<u64>,
    /// Operations waiting for their turn.
    waiting: RefCell<Vec<(u64, Waker)>>,
}

thread_local! {
    /// One sequencer per database name, shared by every store over it in this realm (kept for
    /// the realm's lifetime: a few words per database name).
    static SEQUENCERS: RefCell<Vec<(String, Rc<Sequencer>)>> = const { RefCell::new(Vec::new()) };
}

impl Sequencer {
    /// The sequencer of database `name`.
    pub(crate) fn of(name: &str) -> Rc<Self> {
        SEQUENCERS.with(|all| {
            let mut all = all.borrow_mut();
            if let Some((_, seq)) = all.iter().find(|(n, _)| n == name) {
                return seq.clone();
            }
            let made = Rc::new(Self::default());
            all.push((name.to_owned(), made.clone()));
            made
        })
    }

    /// A ticket behind every ticket taken so far.
    pub(crate) fn ticket(&self) -> u64 {
        let number = self.issued.get();
        self.issued.set(number + 1);
        number
    }

    /// True when no ticket was taken after `ticket`: an operation called now comes right after
    /// it (a write may join the batch holding it).
    pub(crate) fn is_last(&self, ticket: u64) -> bool {
        self.issued.get() == ticket + 1
    }

    /// Resolves when every ticket before `ticket` has been passed on.
    pub(crate) fn turn(&self, ticket: u64) -> impl Future<Output = ()> + '_ {
        poll_fn(move |cx| {
            if self.turn.get() == ticket {
                return Poll::Ready(());
            }
            let mut waiting = self.waiting.borrow_mut();
            match waiting.iter_mut().find(|(n, _)| *n == ticket) {
                Some(slot) => slot.1 = cx.waker().clone(),
                None => waiting.push((ticket, cx.waker().clone())),
            }
            Poll::Pending
        })
    }

    /// Lets the operation after `ticket` create its transaction. Called at `ticket`'s turn;
    /// passing it again does nothing.
    pub(crate) fn pass(&self, ticket: u64) {
        if ticket != self.turn.get() {
            return;
        }
        let next = ticket + 1;
        self.turn.set(next);
        let mut waiting = self.waiting.borrow_mut();
        if let Some(i) = waiting.iter().position(|(n, _)| *n == next) {
            waiting.swap_remove(i).1.wake();
        }
    }
}
