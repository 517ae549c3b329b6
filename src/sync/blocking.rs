//! Waiting for a future by blocking the thread: the `blocking_*` methods
//! of every primitive (`blocking_recv`, `blocking_send`, `blocking_lock`,
//! ...).
//!
//! The thread sleeps between polls and the future's waker wakes it, so a
//! blocked caller costs no CPU. With the runtime, the runtime's own thread
//! parker is used (`runtime/park/thread.rs`, cached per thread); without
//! it, std's.
//!
//! Blocking a thread that drives a runtime would stall every task on it
//! (and deadlock if the value it waits for comes from one of them), so, as
//! in tokio, it panics there with tokio's message. Inside `block_in_place`
//! or on the blocking pool the thread does not drive the runtime, and
//! blocking is allowed.
use std::future::Future;

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

/// Runs `future` to completion on this thread, sleeping between polls.
///
/// # Panics
///
/// With tokio's message, when the current thread drives a runtime.
#[track_caller]
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    assert_not_in_runtime();
    #[cfg(feature = "rt")]
    {
        crate::runtime::park::thread::block_on(future)
    }
    #[cfg(not(feature = "rt"))]
    {
        std_park::block_on(future)
    }
}

#[cfg(not(feature = "rt"))]
mod std_park {
    use std::future::Future;
    use std::pin::pin;
    // `std::task::Wake` is implemented for std's `Arc` only; this count
    // takes part in no protocol a loom model checks.
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread::{self, Thread};

    /// Unparks the blocked thread.
    struct Unpark(Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    pub(super) fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let waker = Waker::from(Arc::new(Unpark(thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            // A wake between the poll and here leaves the token that makes
            // this return at once; a spurious return only costs a poll.
            thread::park();
        }
    }
}
