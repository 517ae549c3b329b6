//! A mock task for the ports of tokio's unit tests: what
//! `tokio_test::task::spawn` gives them (tokio-test depends on tokio, so
//! the package named `tokio` cannot use it). A [`MockTask`] owns a pinned
//! future and a waker of its own; `is_woken` says whether that waker was
//! woken since the last poll. Also [`within`], the watchdog that turns a
//! test that would hang (a deadlock) into a failure.
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

#[derive(Default)]
struct WokenFlag(AtomicBool);

impl Wake for WokenFlag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A future polled by hand in a task of its own.
pub(super) struct MockTask<F> {
    future: Pin<Box<F>>,
    woken: Arc<WokenFlag>,
    waker: Waker,
}

/// Spawns `future` in a [`MockTask`] (not polled yet).
pub(super) fn spawn<F: Future>(future: F) -> MockTask<F> {
    let woken = Arc::new(WokenFlag::default());
    let waker = Waker::from(woken.clone());
    MockTask {
        future: Box::pin(future),
        woken,
        waker,
    }
}

impl<F: Future> MockTask<F> {
    /// Polls the future once; clears the woken flag first.
    pub(super) fn poll(&mut self) -> Poll<F::Output> {
        self.woken.0.store(false, Ordering::SeqCst);
        self.future
            .as_mut()
            .poll(&mut Context::from_waker(&self.waker))
    }

    /// Whether the task was woken since its last poll.
    pub(super) fn is_woken(&self) -> bool {
        self.woken.0.load(Ordering::SeqCst)
    }
}

/// Runs `body` on a thread of its own and fails if it has not finished
/// within `limit` (a deadlock would otherwise hang the test run; the
/// stuck thread is left behind). A panic in `body` fails the test too.
pub(super) fn within(limit: Duration, what: &str, body: impl FnOnce() + Send + 'static) {
    let (done_tx, done_rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        body();
        let _ = done_tx.send(());
    });
    match done_rx.recv_timeout(limit) {
        Ok(()) => thread.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: report its panic.
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: not done after {limit:?} (deadlock)")
        }
    }
}
