//! Wakers and the primitives' internal locks (issue 24, items 1 and 6).
//!
//! A waker may own anything: the last reference to a task owns that
//! task's future, and with it a permit, a guard or a channel half whose
//! drop re-enters the primitive. So no waker is dropped (nor cloned) while
//! a primitive's lock is held (tokio #5429, fixed in #5475): each test
//! here registers a waker whose drop re-enters the primitive, makes the
//! primitive the last holder of that waker, and then re-polls with another
//! waker (or cancels), under a watchdog that turns the deadlock into a
//! failure.
//!
//! A waker whose clone panics must leave the primitive as it found it: no
//! permit taken and lost.
use super::{boxed, Poller};
use crate::sync::{oneshot, watch, Mutex, Notify, RwLock, Semaphore};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Wake, Waker};
use std::time::Duration;

/// Runs `body` on its own thread and returns its result, or fails the
/// test if it has not finished after 5 s (a deadlocked thread stays
/// blocked; the test binary exits around it). A panic in `body` is
/// re-raised here.
pub(super) fn within_5s<R: Send + 'static>(
    what: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(result) => result,
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what}: deadlocked (no result after 5 s)")
        }
        Err(RecvTimeoutError::Disconnected) => match thread.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("the body returned without sending"),
        },
    }
}

/// A waker that owns `payload`: dropping its last clone drops the payload.
struct Owning<P>(#[allow(dead_code)] P);

impl<P: Send + Sync + 'static> Wake for Owning<P> {
    fn wake(self: Arc<Self>) {}
}

fn waker_owning<P: Send + Sync + 'static>(payload: P) -> Waker {
    Waker::from(Arc::new(Owning(payload)))
}

fn poll_with<F: std::future::Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    std::pin::Pin::new(future).poll(&mut Context::from_waker(waker))
}

/// Calls `notify_one` on its `Notify` when dropped.
struct NotifyOnDrop(Arc<Notify>);

impl Drop for NotifyOnDrop {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[test]
fn semaphore_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s("Semaphore::acquire re-polled with a new waker", || {
        let sem = Arc::new(Semaphore::new(1));
        let held = sem.clone().try_acquire_owned().unwrap();
        let mut acquire = boxed(sem.clone().acquire_owned());
        let first = waker_owning(held);
        assert!(poll_with(&mut acquire, &first).is_pending());
        // The queue entry now holds the only clone of `first`, and so the
        // permit: replacing that waker releases the permit.
        drop(first);
        let p = Poller::new();
        assert!(p.poll(&mut acquire).is_pending());
        // The permit released by the old waker's drop went to this waiter,
        // whose new waker was woken.
        assert_eq!(p.wakes(), 1);
        let Poll::Ready(Ok(permit)) = p.poll(&mut acquire) else {
            panic!("the released permit was not handed over")
        };
        drop(permit);
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn semaphore_cancel_drops_the_waiters_waker_outside_the_lock() {
    within_5s("a cancelled Semaphore::acquire", || {
        let sem = Arc::new(Semaphore::new(1));
        let held = sem.clone().try_acquire_owned().unwrap();
        let mut acquire = boxed(sem.clone().acquire_owned());
        let first = waker_owning(held);
        assert!(poll_with(&mut acquire, &first).is_pending());
        drop(first);
        // Cancelling removes the queue entry and its waker, which owns the
        // permit.
        drop(acquire);
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn mutex_lock_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s("Mutex::lock re-polled with a new waker", || {
        let mutex = Arc::new(Mutex::new(0u32));
        let guard = mutex.clone().try_lock_owned().unwrap();
        let mut lock = boxed(mutex.lock());
        let first = waker_owning(guard);
        assert!(poll_with(&mut lock, &first).is_pending());
        drop(first);
        let p = Poller::new();
        assert!(p.poll(&mut lock).is_pending());
        assert_eq!(p.wakes(), 1);
        let Poll::Ready(mut guard) = p.poll(&mut lock) else {
            panic!("the lock was not handed over")
        };
        *guard += 1;
    });
}

#[test]
fn rwlock_write_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s("RwLock::write re-polled with a new waker", || {
        let lock = Arc::new(RwLock::new(0u32));
        let reader = lock.clone().try_read_owned().unwrap();
        let mut write = boxed(lock.write());
        let first = waker_owning(reader);
        assert!(poll_with(&mut write, &first).is_pending());
        drop(first);
        let p = Poller::new();
        assert!(p.poll(&mut write).is_pending());
        assert_eq!(p.wakes(), 1);
        assert!(p.poll(&mut write).is_ready());
    });
}

#[test]
fn notified_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s("Notified re-polled with a new waker", || {
        let notify = Arc::new(Notify::new());
        let mut notified = boxed(notify.notified());
        let first = waker_owning(NotifyOnDrop(notify.clone()));
        assert!(poll_with(&mut notified, &first).is_pending());
        drop(first);
        let p = Poller::new();
        // The old waker's drop calls `notify_one`, which picks this waiter.
        assert!(p.poll(&mut notified).is_pending());
        assert_eq!(p.wakes(), 1);
        assert!(p.poll(&mut notified).is_ready());
    });
}

#[test]
fn oneshot_receiver_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s("oneshot::Receiver re-polled with a new waker", || {
        let (tx, mut rx) = oneshot::channel::<u32>();
        let first = waker_owning(tx);
        assert!(poll_with(&mut rx, &first).is_pending());
        drop(first);
        let p = Poller::new();
        // Replacing the waker drops the sender: the receiver learns it.
        assert!(p.poll(&mut rx).is_pending());
        assert_eq!(p.wakes(), 1);
        assert!(matches!(p.poll(&mut rx), Poll::Ready(Err(_))));
    });
}

#[test]
fn oneshot_sender_poll_closed_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s(
        "oneshot::Sender::poll_closed re-polled with a new waker",
        || {
            let (mut tx, rx) = oneshot::channel::<u32>();
            let first = waker_owning(rx);
            assert!(tx
                .poll_closed(&mut Context::from_waker(&first))
                .is_pending());
            drop(first);
            let p = Poller::new();
            let mut closed = boxed(std::future::poll_fn(|cx| tx.poll_closed(cx)));
            assert!(p.poll(&mut closed).is_pending());
            assert_eq!(p.wakes(), 1);
            assert!(p.poll(&mut closed).is_ready());
        },
    );
}

#[test]
fn watch_changed_re_poll_drops_the_old_waker_outside_the_lock() {
    within_5s(
        "watch::Receiver::changed re-polled with a new waker",
        || {
            let (tx, mut rx) = watch::channel(0u32);
            let mut changed = boxed(rx.changed());
            let first = waker_owning(tx);
            assert!(poll_with(&mut changed, &first).is_pending());
            drop(first);
            let p = Poller::new();
            // Replacing the waker drops the last sender, which closes the
            // channel.
            assert!(p.poll(&mut changed).is_pending());
            assert_eq!(p.wakes(), 1);
            assert!(matches!(p.poll(&mut changed), Poll::Ready(Err(_))));
        },
    );
}

/// A waker whose `clone` panics (a buggy executor's, or an allocation
/// failure in its clone).
fn waker_whose_clone_panics() -> Waker {
    fn clone(_: *const ()) -> RawWaker {
        panic!("waker clone failed")
    }
    fn noop(_: *const ()) {}
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
    // SAFETY: the vtable's functions ignore the data pointer, and `clone`
    // never returns.
    unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) }
}

#[test]
fn a_panicking_waker_clone_loses_no_permit() {
    let sem = Semaphore::new(1);
    {
        // Two permits wanted, one free: the acquire takes the free one and
        // queues for the other, and queueing clones the waker.
        let mut acquire = boxed(sem.acquire_many(2));
        let waker = waker_whose_clone_panics();
        let result = catch_unwind(AssertUnwindSafe(|| poll_with(&mut acquire, &waker)));
        assert!(result.is_err(), "the clone did not panic");
    }
    assert_eq!(
        sem.available_permits(),
        1,
        "the permit taken before the waker clone panicked was lost"
    );
    // The semaphore still works.
    let p = Poller::new();
    let mut acquire = boxed(sem.acquire_many(2));
    assert!(p.poll(&mut acquire).is_pending());
    sem.add_permits(1);
    assert!(matches!(p.poll(&mut acquire), Poll::Ready(Ok(_))));
}

#[test]
fn a_panicking_waker_clone_leaves_an_rwlock_writable() {
    let lock = RwLock::with_max_readers(0u32, 4);
    let reader = lock.try_read().unwrap();
    {
        let mut write = boxed(lock.write());
        let waker = waker_whose_clone_panics();
        let result = catch_unwind(AssertUnwindSafe(|| poll_with(&mut write, &waker)));
        assert!(result.is_err(), "the clone did not panic");
    }
    drop(reader);
    assert!(
        lock.try_write().is_ok(),
        "read permits taken before the waker clone panicked were lost"
    );
}
