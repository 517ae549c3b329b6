//! Waiting for a future by blocking the thread: the `blocking_*` methods.
//!
//! They park the calling thread (`std::thread::park`) until the future's
//! waker unparks it, so a blocked caller costs no CPU. Called from a thread
//! that drives a runtime they panic with tokio's message instead: blocking
//! there would stall every task of that worker, and a future that needs one
//! of them to make progress would never complete.
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// tokio's message, which users match on in their tests.
#[cfg(feature = "rt")]
const BLOCKING_IN_RUNTIME: &str = "Cannot block the current thread from within a runtime. This \
     happens because a function attempted to block the current thread while the thread is \
     being used to drive asynchronous tasks.";

/// Panics if the current thread drives a runtime.
#[track_caller]
pub(crate) fn assert_not_in_runtime() {
    #[cfg(feature = "rt")]
    if crate::runtime::context::current_enter_state()
        != crate::runtime::context::EnterRuntime::NotEntered
    {
        panic!("{}", BLOCKING_IN_RUNTIME);
    }
}

/// Unparks the blocked thread.
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion on this thread, parking between polls.
/// Panics (with tokio's message) inside a runtime.
#[track_caller]
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    assert_not_in_runtime();
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // A spurious return (or an unpark token left by an earlier wake) only
        // costs one more poll.
        thread::park();
    }
}
