use super::{boxed, Poller};
use crate::sync::oneshot::{self, error::RecvError, error::TryRecvError};
use std::task::Poll;

#[test]
fn dropping_the_sender_wakes_the_receiver_with_an_error() {
    let p = Poller::new();
    let (tx, mut rx) = oneshot::channel::<u32>();
    assert!(p.poll(&mut rx).is_pending());
    drop(tx);
    assert_eq!(p.wakes(), 1);
    assert!(!rx.is_terminated());
    assert_eq!(p.poll(&mut rx), Poll::Ready(Err(RecvError(()))));
    assert!(rx.is_terminated());
    assert_eq!(RecvError(()).to_string(), "channel closed");
}

#[test]
fn send_wakes_the_receiver_with_the_value() {
    let p = Poller::new();
    let (tx, mut rx) = oneshot::channel();
    assert!(p.poll(&mut rx).is_pending());
    assert!(rx.is_empty());
    tx.send(5).unwrap();
    assert_eq!(p.wakes(), 1);
    assert!(!rx.is_empty());
    assert_eq!(p.poll(&mut rx), Poll::Ready(Ok(5)));
    assert!(rx.is_terminated());
}

#[test]
#[should_panic(expected = "called after complete")]
fn polling_a_terminated_receiver_panics() {
    let p = Poller::new();
    let (tx, mut rx) = oneshot::channel();
    tx.send(()).unwrap();
    let _ = p.poll(&mut rx);
    let _ = p.poll(&mut rx);
}

#[test]
fn try_recv_reports_empty_then_value_then_closed() {
    let (tx, mut rx) = oneshot::channel();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    tx.send("v").unwrap();
    assert_eq!(rx.try_recv(), Ok("v"));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert_eq!(TryRecvError::Empty.to_string(), "channel empty");
    assert_eq!(TryRecvError::Closed.to_string(), "channel closed");

    let (tx, mut rx) = oneshot::channel::<()>();
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn close_fails_later_sends_but_keeps_an_earlier_value() {
    let (tx, mut rx) = oneshot::channel();
    tx.send(1).unwrap();
    rx.close();
    assert_eq!(rx.try_recv(), Ok(1));

    let (tx, mut rx) = oneshot::channel();
    rx.close();
    assert!(tx.is_closed());
    assert_eq!(tx.send(2), Err(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn closed_completes_when_the_receiver_goes() {
    let p = Poller::new();
    let (mut tx, rx) = oneshot::channel::<()>();
    {
        let mut closed = boxed(tx.closed());
        assert!(p.poll(&mut closed).is_pending());
        drop(rx);
        assert_eq!(p.wakes(), 1);
        assert!(p.poll(&mut closed).is_ready());
    }
    assert!(tx.is_closed());
    assert!(tx
        .poll_closed(&mut std::task::Context::from_waker(std::task::Waker::noop()))
        .is_ready());
}

#[test]
fn blocking_recv_outside_a_runtime_waits_for_the_sender() {
    let (tx, rx) = oneshot::channel();
    let sender = std::thread::spawn(move || tx.send(9).unwrap());
    assert_eq!(rx.blocking_recv(), Ok(9));
    sender.join().unwrap();
}

#[test]
fn api_has_tokios_auto_traits() {
    fn send_sync<T: Send + Sync + Unpin>() {}
    send_sync::<oneshot::Sender<u8>>();
    send_sync::<oneshot::Receiver<u8>>();
    send_sync::<oneshot::Receiver<std::cell::Cell<u8>>>();
}
