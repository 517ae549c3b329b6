//! tokio 1.54.1's `src/sync/tests/notify.rs`, run against tokiwa's
//! `Notify` (and `watch`, which tokio tests there too).
use super::tokio_task::{spawn, within};
use crate::sync::Notify;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, RawWaker, RawWakerVTable, Waker};
use std::time::Duration;

/// A waker whose clone calls `notify_one` on the `Notify` it points to:
/// a `Notified` that clones the waker under the `Notify`'s lock
/// deadlocks (tokio clones before it locks).
#[test]
fn notify_clones_waker_before_lock() {
    const VTABLE: &RawWakerVTable = &RawWakerVTable::new(clone_w, wake, wake_by_ref, drop_w);

    unsafe fn clone_w(data: *const ()) -> RawWaker {
        let ptr = data as *const Notify;
        // SAFETY: `data` came from `Arc::into_raw` of an `Arc<Notify>`
        // whose count this waker holds; the clone gets its own count.
        unsafe { Arc::<Notify>::increment_strong_count(ptr) };
        // Code that must not run while the wait list is locked.
        // SAFETY: the count taken above keeps the `Notify` alive.
        unsafe { (*ptr).notify_one() };
        RawWaker::new(data, VTABLE)
    }

    unsafe fn drop_w(data: *const ()) {
        // SAFETY: each waker holds one count of the `Arc<Notify>`.
        drop(unsafe { Arc::<Notify>::from_raw(data as *const Notify) });
    }

    unsafe fn wake(_data: *const ()) {
        unreachable!()
    }

    unsafe fn wake_by_ref(_data: *const ()) {
        unreachable!()
    }

    within(Duration::from_secs(10), "first poll of a Notified", || {
        let notify = Arc::new(Notify::new());
        let notify2 = notify.clone();
        // SAFETY: the vtable's functions uphold the `RawWaker` contract
        // for a pointer from `Arc::into_raw` (see each function).
        let waker =
            unsafe { Waker::from_raw(RawWaker::new(Arc::into_raw(notify2).cast(), VTABLE)) };
        let mut cx = Context::from_waker(&waker);
        let future = pin!(notify.notified());
        // The result does not matter: the poll must not deadlock.
        let _ = future.poll(&mut cx);
    });
}

#[test]
fn notify_waiters_handles_panicking_waker() {
    use futures::task::ArcWake;

    struct PanickingWaker(#[allow(dead_code)] Arc<Notify>);

    impl ArcWake for PanickingWaker {
        fn wake_by_ref(_arc_self: &Arc<Self>) {
            panic!("waker panicked");
        }
    }

    let notify = Arc::new(Notify::new());
    let bad_fut = pin!(notify.notified());
    let waker = futures::task::waker(Arc::new(PanickingWaker(notify.clone())));
    let mut cx = Context::from_waker(&waker);
    let _ = bad_fut.poll(&mut cx);

    let mut futs = Vec::new();
    for _ in 0..32 {
        let mut fut = spawn(notify.notified());
        assert!(fut.poll().is_pending());
        futs.push(fut);
    }

    assert!(std::panic::catch_unwind(|| notify.notify_waiters()).is_err());

    for mut fut in futs {
        assert!(fut.poll().is_ready());
    }
}

#[test]
fn notify_simple() {
    let notify = Notify::new();

    let mut fut1 = spawn(notify.notified());
    assert!(fut1.poll().is_pending());

    let mut fut2 = spawn(notify.notified());
    assert!(fut2.poll().is_pending());

    notify.notify_waiters();

    assert!(fut1.poll().is_ready());
    assert!(fut2.poll().is_ready());
}

#[test]
#[cfg(feature = "rt")]
fn watch_test() {
    let rt = crate::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let (tx, mut rx) = crate::sync::watch::channel(());
        crate::spawn(async move {
            let _ = tx.send(());
        });
        rx.changed().await.unwrap();
    });
}
