//! Models of the broadcast channel's wakeup races, checked by loom under
//! `--cfg tokiwa_loom` (see `mpsc/loom_tests.rs` for the command) and run
//! once, on std threads, as ordinary tests otherwise.
use super::channel;
use super::error::RecvError;

#[cfg(tokiwa_loom)]
use loom::{future::block_on, model, thread};

#[cfg(not(tokiwa_loom))]
use {futures::executor::block_on, std::thread};

#[cfg(not(tokiwa_loom))]
fn model(body: impl Fn()) {
    body();
}

#[test]
fn loom_broadcast_send_races_receiver_going_to_sleep() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        let sender = thread::spawn(move || {
            tx.send(7).unwrap();
            tx
        });
        assert_eq!(block_on(rx.recv()), Ok(7));
        drop(sender.join().unwrap());
    });
}

#[test]
fn loom_broadcast_last_sender_drop_races_recv() {
    model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        let tx2 = tx.clone();
        let first = thread::spawn(move || drop(tx));
        let second = thread::spawn(move || drop(tx2));
        assert_eq!(block_on(rx.recv()), Err(RecvError::Closed));
        first.join().unwrap();
        second.join().unwrap();
    });
}
