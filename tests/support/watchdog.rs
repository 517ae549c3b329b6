//! Turns a hanging test into a failing one.
//!
//! The body runs on a fresh thread; the test thread waits for it with a
//! deadline. A panic in the body is re-raised on the test thread with its
//! original payload (so `should_panic(expected = ...)` still works); a body
//! still running at the deadline fails the test. The hung thread is left
//! behind: the test binary exits without waiting for it.
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// The default limit for one test body. Generous: the suite runs in debug
/// mode on a two-core machine, many test binaries in parallel. A healthy
/// body takes well under a second.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `body` on its own thread and panics if it has not finished within
/// `limit`.
#[track_caller]
pub fn watchdog<F>(limit: Duration, body: F)
where
    F: FnOnce() + Send + 'static,
{
    within(limit, "test body", body)
}

/// Like [`watchdog`], for one step of a test that must return (a shutdown,
/// a drop): the failure names `what`.
#[track_caller]
pub fn within<F>(limit: Duration, what: &str, body: F)
where
    F: FnOnce() + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let name = thread::current()
        .name()
        .unwrap_or("test")
        .rsplit("::")
        .next()
        .unwrap_or("test")
        .to_owned();
    let thread = thread::Builder::new()
        .name(format!("body-{name}"))
        .spawn(move || {
            let res = panic::catch_unwind(AssertUnwindSafe(body));
            let _ = tx.send(res);
        })
        .expect("failed to start the test body's thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(())) => {
            let _ = thread.join();
        }
        Ok(Err(payload)) => {
            let _ = thread.join();
            panic::resume_unwind(payload)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("watchdog: {what} did not finish within {limit:?} (hang or deadlock)")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("watchdog: {what}'s thread died without reporting")
        }
    }
}
