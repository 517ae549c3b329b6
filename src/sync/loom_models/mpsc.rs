//! `mpsc`: the receiver dropped while a sender sends through a permit it
//! reserved (issue 24). Whichever comes first, the value is dropped
//! exactly once, and at once: a value sent after the receiver is gone is
//! dropped by the send, one sent before is dropped with the receiver
//! (`chan.rs`, "Closing"). Nothing waits for the last sender to go.
use super::{model, thread, DropCounter};
use crate::sync::mpsc;

/// `Permit::send` with a permit reserved before the race.
#[test]
fn loom_mpsc_receiver_drop_racing_permit_send() {
    model(|| {
        let drops = DropCounter::default();
        let (tx, rx) = mpsc::channel(1);
        let permit = tx.try_reserve().unwrap();
        let receiver = thread::spawn(move || drop(rx));
        permit.send(drops.value());
        receiver.join().unwrap();
        assert_eq!(drops.drops(), 1, "the value outlived the receiver");
        assert!(tx.is_closed());
        drop(tx);
        assert_eq!(drops.drops(), 1);
    });
}

/// The same with an `OwnedPermit` reserved before the race (it keeps the
/// channel's only sender), and a second value sent through a permit
/// reserved in the race, which fails once the receiver is gone.
#[test]
fn loom_mpsc_receiver_drop_racing_owned_permit_send() {
    model(|| {
        let drops = DropCounter::default();
        let (tx, rx) = mpsc::channel(2);
        let permit = tx.clone().try_reserve_owned().unwrap();
        let (first, second) = (drops.value(), drops.value());
        let sender = thread::spawn(move || {
            let tx = permit.send(first);
            // Reserved after the receiver may have gone: then it fails.
            if let Ok(permit) = tx.try_reserve() {
                permit.send(second);
            };
        });
        drop(rx);
        sender.join().unwrap();
        assert_eq!(drops.drops(), 2, "a value outlived the receiver");
        assert!(tx.is_closed());
        drop(tx);
        assert_eq!(drops.drops(), 2);
    });
}
