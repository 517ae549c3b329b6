//! Unit tests of the primitives: behaviour users rely on, polled by hand
//! (a counting waker, so each wakeup is asserted) where the order of
//! events matters, and on tokiwa's runtimes where scheduling matters
//! (contention, the cooperative budget, blocking inside a runtime).
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

mod misc;
mod mutex;
mod notify;
mod oneshot;
mod rwlock;
mod semaphore;
mod watch;

#[cfg(feature = "rt")]
mod runtime;

mod defects_close_and_budget;
mod defects_guard_map;
mod defects_wakers;
mod tokio_bounds;
mod tokio_notify;
mod tokio_semaphore_batch;
mod tokio_task;

/// A waker that counts its wakeups.
#[derive(Default)]
pub(super) struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls futures by hand with one [`CountingWaker`].
pub(super) struct Poller {
    count: Arc<CountingWaker>,
    waker: Waker,
}

impl Poller {
    pub(super) fn new() -> Poller {
        let count = Arc::new(CountingWaker::default());
        let waker = Waker::from(count.clone());
        Poller { count, waker }
    }

    /// Polls `future` once.
    pub(super) fn poll<F: Future + Unpin>(&self, future: &mut F) -> Poll<F::Output> {
        Pin::new(future).poll(&mut Context::from_waker(&self.waker))
    }

    /// Wakeups so far.
    pub(super) fn wakes(&self) -> usize {
        self.count.0.load(Ordering::SeqCst)
    }
}

/// Boxes and pins a future so that [`Poller::poll`] takes it.
pub(super) fn boxed<'a, F: Future + 'a>(future: F) -> Pin<Box<F>> {
    Box::pin(future)
}
