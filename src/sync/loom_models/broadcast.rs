//! `broadcast`: receivers that lag behind concurrent sends, and a receiver
//! dropped while values are sent (tokio's `loom_broadcast.rs`).
use super::{block_on, model, thread};
use crate::sync::broadcast::{self, error::RecvError};
use std::sync::Arc;

/// Receives until the channel closes; returns the values received plus
/// those reported missed by `Lagged`.
async fn count_to_close<T: Clone>(rx: &mut broadcast::Receiver<T>) -> u64 {
    let mut seen = 0;
    loop {
        match rx.recv().await {
            Ok(_) => seen += 1,
            Err(RecvError::Lagged(missed)) => seen += missed,
            Err(RecvError::Closed) => return seen,
        }
    }
}

/// Three values through a channel of capacity 2 to two receivers on two
/// threads: each accounts for all three, received or reported lagged.
#[test]
fn loom_broadcast_lagging_receivers_account_for_every_value() {
    model(|| {
        let (tx, mut rx1) = broadcast::channel(2);
        let mut rx2 = tx.subscribe();
        let first = thread::spawn(move || block_on(count_to_close(&mut rx1)));
        let second = thread::spawn(move || block_on(count_to_close(&mut rx2)));
        for value in 0..3u32 {
            tx.send(value).unwrap();
        }
        drop(tx);
        assert_eq!(first.join().unwrap(), 3);
        assert_eq!(second.join().unwrap(), 3);
    });
}

/// Two senders on two threads overflow a channel of capacity 2 while the
/// receiver reads: it accounts for all four values.
#[test]
fn loom_broadcast_concurrent_senders_and_a_lagging_receiver() {
    model(|| {
        let (tx1, mut rx) = broadcast::channel(2);
        let tx2 = tx1.clone();
        let spawn_sender = |tx: broadcast::Sender<u32>| {
            thread::spawn(move || {
                tx.send(1).unwrap();
                tx.send(2).unwrap();
            })
        };
        let first = spawn_sender(tx1);
        let second = spawn_sender(tx2);
        assert_eq!(block_on(count_to_close(&mut rx)), 4);
        first.join().unwrap();
        second.join().unwrap();
    });
}

/// A receiver dropped on one thread while values are sent and another
/// receiver reads them: the reader gets every value, and once both are
/// done the channel (still open for the reader) holds no copy of any
/// value (a dropped receiver gives up its share of the values it had not
/// read, as tokio's does).
#[test]
fn loom_broadcast_receiver_drop_racing_sends() {
    model(|| {
        let (tx, mut rx1) = broadcast::channel::<Arc<u32>>(4);
        let rx2 = tx.subscribe();
        let dropper = thread::spawn(move || drop(rx2));
        let reader = thread::spawn(move || {
            let values = [block_on(rx1.recv()).unwrap(), block_on(rx1.recv()).unwrap()];
            assert_eq!(block_on(rx1.recv()), Err(RecvError::Closed));
            // Returned too, so that the channel outlives the check below.
            (rx1, values)
        });
        tx.send(Arc::new(0)).unwrap();
        tx.send(Arc::new(1)).unwrap();
        drop(tx);
        dropper.join().unwrap();
        let (rx1, values) = reader.join().unwrap();
        assert_eq!([*values[0], *values[1]], [0, 1]);
        for value in &values {
            assert_eq!(Arc::strong_count(value), 1, "the channel kept a copy");
        }
        drop(rx1);
    });
}

/// Receivers dropped while a sender overflows the channel (tokio's
/// `drop_multiple_rx_with_overflow`, with fewer sends).
#[test]
fn loom_broadcast_receivers_dropped_during_overflow() {
    model(|| {
        let (tx, mut rx) = broadcast::channel(1);
        let rx2 = tx.subscribe();
        tx.send(()).unwrap();
        let tx2 = tx.clone();
        let sender = thread::spawn(move || {
            for _ in 0..3 {
                let _ = tx2.send(());
            }
        });
        let _ = tx.send(());
        let reader = thread::spawn(move || {
            // Drains until the senders are gone (lagging on the way).
            block_on(async { while !matches!(rx.recv().await, Err(RecvError::Closed)) {} })
        });
        drop(rx2);
        drop(tx);
        sender.join().unwrap();
        reader.join().unwrap();
    });
}
