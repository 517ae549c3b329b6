//! Blocking a plain thread on a future.
//!
//! `Runtime::block_on` on a multi-thread runtime (and `Handle::block_on`)
//! polls the future on the calling thread and sleeps on a per-thread parker
//! between polls; the future's waker unparks it. The parker is cached in a
//! thread-local so repeated `block_on` calls allocate nothing.
use super::condvar::{Parker, Unparker};
use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
// `std::task::Wake` is implemented for std's `Arc` only.
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

thread_local! {
    static PARKER: RefCell<Option<(Parker, Waker)>> = const { RefCell::new(None) };
}

struct UnparkWaker(Unparker);

impl Wake for UnparkWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` to completion on this thread, parking between polls.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    // Take the cached parker (a nested call on the same thread, e.g. from a
    // destructor, builds its own).
    let (mut parker, waker) = PARKER
        .try_with(|p| p.borrow_mut().take())
        .ok()
        .flatten()
        .unwrap_or_else(|| {
            let parker = Parker::new();
            let waker = Waker::from(Arc::new(UnparkWaker(parker.unparker())));
            (parker, waker)
        });
    let mut cx = Context::from_waker(&waker);
    let out = loop {
        let res = crate::runtime::coop::budget(|| future.as_mut().poll(&mut cx));
        if let Poll::Ready(out) = res {
            break out;
        }
        parker.park(None);
    };
    let _ = PARKER.try_with(|p| *p.borrow_mut() = Some((parker, waker)));
    out
}

/// A waker that unparks this thread, for loops that wait on something else
/// besides a future (a current-thread runtime's core becoming free).
pub(crate) fn current_waker_and_parker() -> (Parker, Waker) {
    let parker = Parker::new();
    let waker = Waker::from(Arc::new(UnparkWaker(parker.unparker())));
    (parker, waker)
}
