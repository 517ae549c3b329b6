//! `watch`: a send racing receivers going to sleep, `wait_for` against a
//! stream of sends, the last sender's drop closing the channel, the last
//! receiver's drop completing `Sender::closed`, and the spurious-wakeup
//! and borrow models tokio keeps in `watch.rs` (tokio #3168).
use super::{block_on, model, thread};
use crate::sync::watch;
use futures::FutureExt;
use std::sync::Arc;

#[test]
fn loom_watch_send_wakes_every_receiver() {
    model(|| {
        let (tx, mut rx1) = watch::channel(1);
        let mut rx2 = rx1.clone();
        let sender = thread::spawn(move || tx.send(2).unwrap());
        block_on(rx1.changed()).unwrap();
        assert_eq!(*rx1.borrow(), 2);
        block_on(rx2.changed()).unwrap();
        assert_eq!(*rx2.borrow_and_update(), 2);
        sender.join().unwrap();
    });
}

/// Two senders, one of which sends the value waited for: `wait_for`
/// returns it whatever the interleaving.
#[test]
fn loom_watch_wait_for_finds_the_value_among_other_sends() {
    model(|| {
        let (tx, mut rx) = watch::channel(false);
        let tx = Arc::new(tx);
        let tx1 = tx.clone();
        let noise = thread::spawn(move || tx1.send_modify(|_| {}));
        let tx2 = tx.clone();
        let setter = thread::spawn(move || tx2.send(true).unwrap());
        assert!(*block_on(rx.wait_for(|value| *value)).unwrap());
        noise.join().unwrap();
        setter.join().unwrap();
    });
}

/// `wait_for` returns the very value its predicate accepted, not a newer
/// one sent meanwhile.
#[test]
fn loom_watch_wait_for_returns_the_accepted_value() {
    model(|| {
        let (tx, mut rx) = watch::channel(0);
        let sender = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        let mut accepted = None;
        let returned = *block_on(rx.wait_for(|value| {
            accepted = Some(*value);
            true
        }))
        .unwrap();
        assert_eq!(Some(returned), accepted);
        sender.join().unwrap();
    });
}

/// Two senders dropped on two threads while the receiver waits: it wakes
/// with the closed error, and `has_changed` reports the close.
#[test]
fn loom_watch_last_sender_drop_wakes_a_waiting_receiver() {
    model(|| {
        let (tx1, mut rx) = watch::channel(0);
        let tx2 = tx1.clone();
        let first = thread::spawn(move || drop(tx1));
        let second = thread::spawn(move || drop(tx2));
        assert!(block_on(rx.changed()).is_err());
        assert!(rx.has_changed().is_err());
        first.join().unwrap();
        second.join().unwrap();
    });
}

/// `Sender::closed` waits for the last of two receivers dropped on two
/// threads.
#[test]
fn loom_watch_closed_completes_when_the_last_receiver_drops() {
    model(|| {
        let (tx, rx1) = watch::channel(0);
        let rx2 = rx1.clone();
        let first = thread::spawn(move || drop(rx1));
        let second = thread::spawn(move || drop(rx2));
        block_on(tx.closed());
        assert!(tx.is_closed());
        first.join().unwrap();
        second.join().unwrap();
    });
}

/// tokio's `watch_spurious_wakeup`: `changed` polled once at a time on
/// several threads between sends; no poll may panic or lose the state.
#[test]
fn loom_watch_changed_polled_across_threads_between_sends() {
    model(|| {
        let (send, mut recv) = watch::channel(0i32);
        send.send(1).unwrap();
        let send_thread = thread::spawn(move || {
            send.send(2).unwrap();
            send
        });
        let _ = recv.changed().now_or_never();
        let send = send_thread.join().unwrap();
        let recv_thread = thread::spawn(move || {
            let _ = recv.changed().now_or_never();
            let _ = recv.changed().now_or_never();
            recv
        });
        send.send(3).unwrap();
        let mut recv = recv_thread.join().unwrap();
        // 3 is the newest value and nothing was sent since it was seen
        // (or it is still unseen): either way, one `changed` at most.
        let _ = recv.changed().now_or_never();
        assert!(recv.changed().now_or_never().is_none());
        let send_thread = thread::spawn(move || send.send(2).unwrap());
        let _ = recv.changed().now_or_never();
        send_thread.join().unwrap();
        assert_eq!(*recv.borrow(), 2);
    });
}

/// tokio's `watch_borrow`: both sides' `borrow` see the last value sent,
/// whichever thread sent it.
#[test]
fn loom_watch_borrow_sees_the_last_send() {
    model(|| {
        let (send, mut recv) = watch::channel(0i32);
        assert_eq!(*send.borrow(), 0);
        assert_eq!(*recv.borrow(), 0);
        send.send(1).unwrap();
        assert_eq!(*send.borrow(), 1);
        let send_thread = thread::spawn(move || {
            send.send(2).unwrap();
            send
        });
        let _ = recv.changed().now_or_never();
        let send = send_thread.join().unwrap();
        let recv_thread = thread::spawn(move || {
            let _ = recv.changed().now_or_never();
            let _ = recv.changed().now_or_never();
            recv
        });
        send.send(3).unwrap();
        let recv = recv_thread.join().unwrap();
        assert_eq!(*recv.borrow(), 3);
        assert_eq!(*send.borrow(), 3);
        send.send(2).unwrap();
        thread::spawn(move || assert_eq!(*recv.borrow(), 2))
            .join()
            .unwrap();
        assert_eq!(*send.borrow(), 2);
    });
}
