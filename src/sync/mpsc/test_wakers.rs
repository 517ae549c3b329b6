//! Test helpers shared by the channel tests (mpsc and broadcast): a waker
//! whose `clone` runs code of the test's choosing, and a watchdog that
//! turns a hang into a failure.
use std::sync::{mpsc, Arc};
use std::task::{RawWaker, RawWakerVTable, Waker};
use std::thread;
use std::time::Duration;

/// What a [`hooked_waker`] runs each time it is cloned.
struct Hook(Box<dyn Fn() + Send + Sync>);

/// A waker that calls `hook` at the start of every `clone` (before the
/// clone exists: a hook that panics makes the clone fail). Waking does
/// nothing. A `Wake` waker cannot do this: it clones through `Arc`.
pub(crate) fn hooked_waker(hook: impl Fn() + Send + Sync + 'static) -> Waker {
    let data = Arc::into_raw(Arc::new(Hook(Box::new(hook))));
    // SAFETY: `data` is an `Arc<Hook>` reference given to the waker; the
    // vtable's functions keep the reference count (see each one).
    unsafe { Waker::from_raw(RawWaker::new(data.cast(), &VTABLE)) }
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

unsafe fn clone(data: *const ()) -> RawWaker {
    let hook = data.cast::<Hook>();
    // SAFETY: `data` is a live `Arc<Hook>` reference held by the waker
    // being cloned, so the `Hook` outlives this call.
    (unsafe { &*hook }.0)();
    // SAFETY: as above; the new waker owns the added reference.
    unsafe { Arc::increment_strong_count(hook) };
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: waking by value consumes the waker's reference.
    unsafe { drop_waker(data) }
}

unsafe fn wake_by_ref(_: *const ()) {}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker owned one reference, given back here once.
    drop(unsafe { Arc::from_raw(data.cast::<Hook>()) });
}

/// Runs `body` on its own thread and panics if it has not returned within
/// `limit` (the thread is left behind, hung). A panic in the body is
/// re-raised here.
#[track_caller]
pub(crate) fn within<R: Send + 'static>(
    limit: Duration,
    what: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = mpsc::channel();
    let thread = thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        let _ = tx.send(result);
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => {
            let _ = thread.join();
            value
        }
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        Err(_) => panic!("watchdog: {what} did not finish within {limit:?} (deadlock)"),
    }
}
