use super::{boxed, Poller};
use crate::sync::watch;
use std::task::Poll;

#[test]
fn changed_waits_for_an_unseen_version_and_marks_it_seen() {
    let p = Poller::new();
    let (tx, mut rx) = watch::channel(0);
    assert!(!rx.has_changed().unwrap());
    {
        let mut changed = boxed(rx.changed());
        assert!(p.poll(&mut changed).is_pending());
        tx.send(1).unwrap();
        assert_eq!(p.wakes(), 1);
        assert!(matches!(p.poll(&mut changed), Poll::Ready(Ok(()))));
    }
    // `changed` marked version 1 seen; `borrow` does not change that.
    assert_eq!(*rx.borrow(), 1);
    assert!(!rx.borrow().has_changed());
    assert!(!rx.has_changed().unwrap());

    // Two sends before a look: one change, the latest value.
    tx.send(2).unwrap();
    tx.send(3).unwrap();
    assert!(rx.has_changed().unwrap());
    assert!(rx.borrow().has_changed());
    let seen = rx.borrow_and_update();
    assert!(seen.has_changed());
    assert_eq!(*seen, 3);
    drop(seen);
    assert!(!rx.borrow_and_update().has_changed());
    let mut changed = boxed(rx.changed());
    assert!(p.poll(&mut changed).is_pending());
}

#[test]
fn mark_changed_and_unchanged() {
    let p = Poller::new();
    let (tx, mut rx) = watch::channel("a");
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    assert!(matches!(
        p.poll(&mut boxed(rx.changed())),
        Poll::Ready(Ok(()))
    ));
    tx.send_replace("b");
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());
    assert_eq!(*rx.borrow(), "b");
}

#[test]
fn dropping_every_sender_closes_after_the_last_value_is_seen() {
    let p = Poller::new();
    let (tx, mut rx) = watch::channel(0);
    let tx2 = tx.clone();
    assert_eq!(tx.sender_count(), 2);
    tx.send(1).unwrap();
    drop(tx);
    drop(tx2);
    assert!(rx.is_closed());
    // The unseen value still comes first.
    assert!(matches!(
        p.poll(&mut boxed(rx.changed())),
        Poll::Ready(Ok(()))
    ));
    assert!(matches!(
        p.poll(&mut boxed(rx.changed())),
        Poll::Ready(Err(_))
    ));
    assert!(rx.has_changed().is_err());
    assert_eq!(watch::error::RecvError(()).to_string(), "channel closed");
}

#[test]
fn send_fails_without_receivers_but_send_replace_and_modify_do_not() {
    let (tx, rx) = watch::channel(1);
    assert_eq!(tx.receiver_count(), 1);
    drop(rx);
    assert!(tx.is_closed());
    let err = tx.send(2).unwrap_err();
    assert_eq!(err.0, 2);
    assert_eq!(format!("{err:?}"), "SendError { .. }");
    assert_eq!(err.to_string(), "channel closed");
    assert_eq!(tx.send_replace(3), 1);
    tx.send_modify(|v| *v += 1);
    assert_eq!(*tx.borrow(), 4);
    // A receiver subscribed now has seen the current value.
    let rx = tx.subscribe();
    assert!(!rx.has_changed().unwrap());
    assert!(rx.same_channel(&rx.clone()));
    assert!(tx.same_channel(&tx.clone()));
}

#[test]
fn send_if_modified_notifies_only_on_true() {
    let p = Poller::new();
    let (tx, mut rx) = watch::channel(0);
    let mut changed = boxed(rx.changed());
    assert!(p.poll(&mut changed).is_pending());
    assert!(!tx.send_if_modified(|_| false));
    assert_eq!(p.wakes(), 0);
    assert!(p.poll(&mut changed).is_pending());
    assert!(tx.send_if_modified(|v| {
        *v = 9;
        true
    }));
    assert!(p.poll(&mut changed).is_ready());
}

#[test]
fn a_panic_in_send_modify_makes_no_version_and_leaves_the_channel_usable() {
    let (tx, rx) = watch::channel(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tx.send_modify(|_| panic!("boom"));
    }));
    assert!(result.is_err());
    assert!(!rx.has_changed().unwrap());
    tx.send(1).unwrap();
    assert_eq!(*rx.borrow(), 1);
}

#[test]
fn wait_for_checks_the_current_value_then_new_ones() {
    let p = Poller::new();
    let (tx, mut rx) = watch::channel(1);
    assert_eq!(
        *futures::executor::block_on(rx.wait_for(|v| *v == 1)).unwrap(),
        1
    );
    let mut waiting = boxed(rx.wait_for(|v| *v == 3));
    assert!(p.poll(&mut waiting).is_pending());
    tx.send(2).unwrap();
    assert!(p.poll(&mut waiting).is_pending());
    tx.send(3).unwrap();
    assert!(matches!(p.poll(&mut waiting), Poll::Ready(Ok(ref v)) if **v == 3));
    drop(waiting);
    drop(tx);
    assert!(futures::executor::block_on(rx.wait_for(|v| *v == 4)).is_err());
}

#[test]
fn closed_completes_when_the_last_receiver_goes() {
    let p = Poller::new();
    let (tx, rx) = watch::channel(());
    let rx2 = rx.clone();
    let mut closed = boxed(tx.closed());
    assert!(p.poll(&mut closed).is_pending());
    drop(rx);
    assert!(p.poll(&mut closed).is_pending());
    drop(rx2);
    assert!(p.wakes() >= 1);
    assert!(p.poll(&mut closed).is_ready());
}

#[test]
fn api_has_tokios_auto_traits() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<watch::Sender<u8>>();
    send_sync::<watch::Receiver<u8>>();
    let (tx, _rx) = watch::channel(String::new());
    assert_eq!(tx.borrow().len(), 0);
}
