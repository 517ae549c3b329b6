//! A waiter re-polled with a different waker while the event it waits for
//! races the re-poll (issue 24, item 1).
//!
//! No primitive clones a waker under its lock: a re-poll that finds a
//! different waker stored unlocks, clones the new one, locks again and
//! looks at its entry once more before it stores the clone. A release,
//! notification or send that lands in that window has already taken (and
//! woken) the old waker, so the re-poll must see it on its second look and
//! complete; storing the new waker without looking would leave the task
//! asleep for good, which loom reports as a deadlock.
//!
//! In each model a first task polls the waiter once (its waker is the one
//! stored), hands the future over, and a second task awaits it with its
//! own waker, while a third thread sends the event. The first poll may
//! also complete at once; then there is nothing to hand over.
use super::{block_on, model, thread};
use crate::sync::{oneshot, Mutex, Notify, Semaphore};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

/// Polls `future` once on a new thread, with that thread's waker; returns
/// the output, or the future (still registered with that waker).
fn poll_on_a_first_task<F>(mut future: Pin<Box<F>>) -> Result<F::Output, Pin<Box<F>>>
where
    F: Future + Send + 'static,
    F::Output: Send,
{
    thread::spawn(move || {
        let polled = block_on(poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))));
        match polled {
            Poll::Ready(output) => Ok(output),
            Poll::Pending => Err(future),
        }
    })
    .join()
    .unwrap()
}

/// Polls `future` on a first task, then awaits it on this thread (a
/// different waker).
fn first_task_then_this_one<F>(future: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send,
{
    match poll_on_a_first_task(Box::pin(future)) {
        Ok(output) => output,
        Err(future) => block_on(future),
    }
}

/// A queued `Semaphore::acquire` moved to a new task while a permit is
/// added: the new task gets the permit, and no permit is lost or doubled.
#[test]
fn loom_waker_change_semaphore_acquire_racing_a_release() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let releaser = {
            let sem = sem.clone();
            thread::spawn(move || sem.add_permits(1))
        };
        let permit = first_task_then_this_one(sem.clone().acquire_owned()).unwrap();
        assert_eq!(sem.available_permits(), 0);
        drop(permit);
        releaser.join().unwrap();
        assert_eq!(sem.available_permits(), 1);
    });
}

/// A queued `Semaphore::acquire_many` that already holds part of its
/// permits, moved to a new task while `close()` races it: the new task
/// sees the close, and the partial permit goes back exactly once.
#[test]
fn loom_waker_change_semaphore_acquire_racing_close() {
    model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let closer = {
            let sem = sem.clone();
            thread::spawn(move || sem.close())
        };
        let result = first_task_then_this_one(sem.clone().acquire_many_owned(2));
        assert!(result.is_err(), "acquired 2 permits of a semaphore with 1");
        closer.join().unwrap();
        assert_eq!(sem.available_permits(), 1);
    });
}

/// A `Mutex::lock` waiting behind a guard, moved to a new task while the
/// guard is dropped: the new task gets the lock.
#[test]
fn loom_waker_change_mutex_lock_racing_an_unlock() {
    model(|| {
        let mutex = Arc::new(Mutex::new(0_u32));
        let guard = mutex.clone().try_lock_owned().unwrap();
        let unlocker = thread::spawn(move || {
            let mut guard = guard;
            *guard += 1;
        });
        let guard = first_task_then_this_one(mutex.clone().lock_owned());
        assert_eq!(*guard, 1);
        drop(guard);
        unlocker.join().unwrap();
        assert!(mutex.try_lock().is_ok());
    });
}

/// A `Notified` moved to a new task while `notify_one` races it: the new
/// task is woken (through its registration or the stored permit), and the
/// notification is consumed, not left behind as a permit.
#[test]
fn loom_waker_change_notified_racing_notify_one() {
    model(|| {
        let notify = Arc::new(Notify::new());
        let notifier = {
            let notify = notify.clone();
            thread::spawn(move || notify.notify_one())
        };
        first_task_then_this_one(notify.clone().notified_owned());
        notifier.join().unwrap();
        let later = std::pin::pin!(notify.notified());
        assert!(!later.enable(), "the notification was left as a permit");
    });
}

/// A `Notified` made before a racing `notify_waiters`, moved to a new
/// task: it completes.
#[test]
fn loom_waker_change_notified_racing_notify_waiters() {
    model(|| {
        let notify = Arc::new(Notify::new());
        let notified = notify.clone().notified_owned();
        let notifier = {
            let notify = notify.clone();
            thread::spawn(move || notify.notify_waiters())
        };
        first_task_then_this_one(notified);
        notifier.join().unwrap();
    });
}

/// A oneshot `Receiver` moved to a new task while the sender is dropped
/// (`oneshot.rs` has the same with a send): the new task sees the error.
#[test]
fn loom_waker_change_oneshot_receiver_racing_sender_drop() {
    model(|| {
        let (tx, rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || drop(tx));
        assert!(first_task_then_this_one(rx).is_err());
        sender.join().unwrap();
    });
}

/// `Sender::closed` moved to a new task while the receiver calls `close`
/// (`oneshot.rs` has the same with a drop): the new task is woken.
#[test]
fn loom_waker_change_oneshot_sender_closed_racing_receiver_close() {
    model(|| {
        let (tx, mut rx) = oneshot::channel::<u32>();
        let receiver = thread::spawn(move || {
            rx.close();
            rx
        });
        let tx = first_task_then_this_one(async move {
            let mut tx = tx;
            tx.closed().await;
            tx
        });
        assert!(tx.is_closed());
        drop(receiver.join().unwrap());
    });
}
