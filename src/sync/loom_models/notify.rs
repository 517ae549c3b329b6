//! `Notify`: `notify_waiters` racing a dropped `Notified` (issue 24), and
//! tokio's `loom_notify.rs` races of `notify_waiters` against
//! `notify_one`, polls and cancelled waiters.
use super::{block_on, model, poll_once, thread};
use crate::sync::Notify;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

/// Two `Notified` made before a `notify_waiters`: one is polled once and
/// dropped on a thread, the other awaited on another. The awaited one
/// always completes, and no permit is left behind: `notify_waiters`
/// stores none, and a dropped `Notified` passes on only a `notify_one`.
#[test]
fn loom_notify_waiters_racing_a_dropped_notified() {
    model(|| {
        let notify = Arc::new(Notify::new());
        let dropped = notify.clone().notified_owned();
        let awaited = notify.clone().notified_owned();
        let dropper = thread::spawn(move || {
            let mut dropped = Box::pin(dropped);
            let _ = poll_once(dropped.as_mut());
        });
        let waiter = thread::spawn(move || block_on(awaited));
        notify.notify_waiters();
        dropper.join().unwrap();
        waiter.join().unwrap();
        let later = pin!(notify.notified());
        assert!(!later.enable(), "notify_waiters left a permit");
    });
}

/// `notify_waiters` and `notify_one` racing a task that waits on a
/// `Notified` made on its own thread (so possibly after the
/// `notify_waiters`): the `notify_one` wakes it either way.
#[test]
fn loom_notify_waiters_and_one() {
    model(|| {
        let notify = Arc::new(Notify::new());
        let all = {
            let notify = notify.clone();
            thread::spawn(move || notify.notify_waiters())
        };
        let one = {
            let notify = notify.clone();
            thread::spawn(move || notify.notify_one())
        };
        block_on(notify.notified());
        all.join().unwrap();
        one.join().unwrap();
    });
}

/// Two `Notified` made before a concurrent `notify_waiters`, polled in
/// order: if the first sees the notification, so does the second (one
/// `notify_waiters` is atomic for everything made before it). Each
/// variant says which futures were polled (registered) before the call.
#[test]
fn loom_notify_waiters_poll_consistency() {
    fn variant(polled_before: [bool; 2]) {
        let notify = Arc::new(Notify::new());
        let mut first = Box::pin(notify.notified());
        let mut second = Box::pin(notify.notified());
        if polled_before[0] {
            assert!(poll_once(first.as_mut()).is_pending());
        }
        if polled_before[1] {
            assert!(poll_once(second.as_mut()).is_pending());
        }
        let notifier = {
            let notify = notify.clone();
            thread::spawn(move || notify.notify_waiters())
        };
        let first_ready = poll_once(first.as_mut()).is_ready();
        let second_ready = poll_once(second.as_mut()).is_ready();
        assert!(!first_ready || second_ready);
        notifier.join().unwrap();
    }
    model(|| variant([false, false]));
    model(|| variant([true, false]));
    model(|| variant([false, true]));
    model(|| variant([true, true]));
}

/// A `Notified` picked by `notify_one` may be dropped after it completed
/// (it then sends a new notification) or before (it passes its own on):
/// the other waiter, which waits twice, is woken both times (tokio's
/// `notify_drop`).
#[test]
fn loom_notify_one_passed_on_by_a_dropped_notified() {
    model(|| {
        let notify = Arc::new(Notify::new());
        let dropper = {
            let notify = notify.clone();
            thread::spawn(move || {
                let mut notified = Box::pin(notify.notified());
                block_on(poll_fn(|cx| {
                    if notified.as_mut().poll(cx).is_ready() {
                        notify.notify_one();
                    }
                    Poll::Ready(())
                }));
            })
        };
        let waiter = {
            let notify = notify.clone();
            thread::spawn(move || {
                block_on(async {
                    notify.notified().await;
                    notify.notify_one();
                    notify.notified().await;
                })
            })
        };
        notify.notify_one();
        dropper.join().unwrap();
        waiter.join().unwrap();
    });
}
