//! `oneshot`: a send or a drop racing the other side going to sleep, a
//! receiver (or a `closed()` waiter) moved to a new task between polls,
//! and `close`/drop racing `send` (tokio's `loom_oneshot.rs`).
use super::{block_on, model, poll_once, thread, DropCounter};
use crate::sync::oneshot;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

#[test]
fn loom_oneshot_send_wakes_a_blocked_receiver() {
    model(|| {
        let (tx, rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(1).unwrap());
        assert_eq!(block_on(rx), Ok(1));
        sender.join().unwrap();
    });
}

#[test]
fn loom_oneshot_sender_drop_wakes_a_blocked_receiver() {
    model(|| {
        let (tx, rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || drop(tx));
        assert!(block_on(rx).is_err());
        sender.join().unwrap();
    });
}

/// The receiver is polled by one task, then awaited by another: the send
/// must wake the second task's waker, not the stale first one.
#[test]
fn loom_oneshot_receiver_moved_to_a_new_task() {
    model(|| {
        let (tx, mut rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(1).unwrap());
        let first_task = thread::spawn(move || {
            let got = block_on(poll_fn(|cx| {
                Poll::Ready(match Pin::new(&mut rx).poll(cx) {
                    Poll::Ready(value) => Some(value),
                    Poll::Pending => None,
                })
            }));
            (rx, got)
        });
        let (rx, got) = first_task.join().unwrap();
        match got {
            Some(value) => assert_eq!(value, Ok(1)),
            // The first task's waker is registered; a new task waits now.
            None => assert_eq!(block_on(rx), Ok(1)),
        }
        sender.join().unwrap();
    });
}

/// `Sender::closed` polled by one task, then awaited by another, while the
/// receiver is dropped.
#[test]
fn loom_oneshot_closed_waiter_moved_to_a_new_task() {
    model(|| {
        let (mut tx, rx) = oneshot::channel::<u32>();
        let receiver = thread::spawn(move || drop(rx));
        let first_task = thread::spawn(move || {
            let done = block_on(poll_fn(|cx| Poll::Ready(tx.poll_closed(cx).is_ready())));
            (tx, done)
        });
        let (mut tx, done) = first_task.join().unwrap();
        if !done {
            block_on(tx.closed());
        }
        assert!(tx.is_closed());
        receiver.join().unwrap();
    });
}

/// `close` racing `send`: either the send fails and hands the value back,
/// or it succeeds and the receiver still gets the value (tokio #4225).
#[test]
fn loom_oneshot_close_racing_send() {
    model(|| {
        let (tx, mut rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(7).is_ok());
        rx.close();
        let received = block_on(rx).ok();
        let sent = sender.join().unwrap();
        assert_eq!(received, sent.then_some(7));
    });
}

/// Dropping a receiver that has registered a waker, racing `send`: the
/// value is dropped exactly once, by whichever side ends up with it.
#[test]
fn loom_oneshot_receiver_drop_racing_send_drops_the_value_once() {
    model(|| {
        let drops = DropCounter::default();
        let (tx, mut rx) = oneshot::channel();
        // Register the receiver's waker before the race.
        assert!(poll_once(Pin::new(&mut rx)).is_pending());
        let receiver = thread::spawn(move || drop(rx));
        let returned = tx.send(drops.value()).err();
        receiver.join().unwrap();
        assert_eq!(drops.drops(), usize::from(returned.is_none()));
        drop(returned);
        assert_eq!(drops.drops(), 1);
    });
}
