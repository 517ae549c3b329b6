//! Models of the races a channel must survive, checked by loom under
//! `--cfg tokiwa_loom` and run once, on std threads, as ordinary tests
//! otherwise:
//!
//! ```text
//! RUSTFLAGS="--cfg tokiwa_loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
//!   cargo test -j1 --release --manifest-path whole-graph/tokio/Cargo.toml \
//!   --no-default-features --features sync,rt --lib loom_
//! ```
//!
//! Each model blocks the receiving (or sending) thread on the real
//! channel future, so a lost wakeup shows as a deadlock loom reports.
use super::{channel, unbounded_channel};

#[cfg(tokiwa_loom)]
use loom::{future::block_on, model, thread};

#[cfg(not(tokiwa_loom))]
use {futures::executor::block_on, std::thread};

/// Without loom: the body once, on real threads.
#[cfg(not(tokiwa_loom))]
fn model(body: impl Fn()) {
    body();
}

#[test]
fn loom_send_races_receiver_going_to_sleep() {
    model(|| {
        let (tx, mut rx) = unbounded_channel::<u32>();
        let sender = thread::spawn(move || {
            tx.send(7).unwrap();
            // Keep the channel open until the value is in: the receiver
            // must be woken by the send, not by the drop.
            tx
        });
        assert_eq!(block_on(rx.recv()), Some(7));
        drop(sender.join().unwrap());
    });
}

#[test]
fn loom_bounded_send_races_receiver_going_to_sleep() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let sender = thread::spawn(move || {
            tx.try_send(7).unwrap();
            tx
        });
        assert_eq!(block_on(rx.recv()), Some(7));
        drop(sender.join().unwrap());
    });
}

#[test]
fn loom_last_sender_drop_races_recv() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let tx2 = tx.clone();
        let first = thread::spawn(move || drop(tx));
        let second = thread::spawn(move || drop(tx2));
        assert_eq!(block_on(rx.recv()), None);
        first.join().unwrap();
        second.join().unwrap();
    });
}

#[test]
fn loom_waiting_sender_is_woken_by_recv() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        tx.try_send(1).unwrap();
        let sender = thread::spawn(move || {
            // The buffer is full: this waits for the receive below.
            block_on(tx.send(2)).unwrap();
        });
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), Some(2));
        sender.join().unwrap();
    });
}

#[test]
fn loom_close_fails_a_waiting_sender() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        tx.try_send(1).unwrap();
        let sender = thread::spawn(move || block_on(tx.send(2)).is_err());
        rx.close();
        assert!(
            sender.join().unwrap(),
            "no capacity was freed before the close"
        );
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), None);
    });
}

#[test]
fn loom_two_waiting_senders_are_both_served() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let tx2 = tx.clone();
        let first = thread::spawn(move || block_on(tx.send(1)).unwrap());
        let second = thread::spawn(move || block_on(tx2.send(2)).unwrap());
        let mut got = [block_on(rx.recv()), block_on(rx.recv())];
        got.sort();
        assert_eq!(got, [Some(1), Some(2)]);
        assert_eq!(block_on(rx.recv()), None);
        first.join().unwrap();
        second.join().unwrap();
    });
}
