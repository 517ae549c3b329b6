//! What users of the mpsc channels rely on.
use super::error::{SendError, TryRecvError, TrySendError};
use super::{channel, unbounded_channel, OwnedPermit, Permit, Receiver, Sender};
use futures::executor::block_on;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts its wakes.
#[derive(Default)]
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting_waker() -> (Arc<CountingWaker>, Waker) {
    let counter = Arc::new(CountingWaker::default());
    (counter.clone(), Waker::from(counter))
}

fn poll_once<F: Future>(fut: std::pin::Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(waker))
}

#[test]
fn auto_traits_match_tokio() {
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<Sender<u8>>();
    send_sync_unpin::<Receiver<u8>>();
    send_sync_unpin::<Permit<'static, u8>>();
    send_sync_unpin::<OwnedPermit<u8>>();
    send_sync_unpin::<super::WeakSender<u8>>();
    send_sync_unpin::<super::UnboundedSender<u8>>();
    send_sync_unpin::<super::UnboundedReceiver<u8>>();
    send_sync_unpin::<super::WeakUnboundedSender<u8>>();
    fn send_future<F: Future + Send>(_: F) {}
    let (tx, mut rx) = channel::<u8>(1);
    send_future(tx.send(1));
    send_future(tx.reserve_many(1));
    send_future(rx.recv());
}

#[test]
fn values_arrive_in_send_order() {
    let (tx, mut rx) = channel(8);
    let (utx, mut urx) = unbounded_channel();
    block_on(async {
        for i in 0..8 {
            tx.send(i).await.unwrap();
            utx.send(i).unwrap();
        }
        for i in 0..8 {
            assert_eq!(rx.recv().await, Some(i));
            assert_eq!(urx.recv().await, Some(i));
        }
    });
}

#[test]
fn a_full_channel_makes_senders_wait_until_a_receive() {
    let (tx, mut rx) = channel(2);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert!(matches!(tx.try_send(3), Err(TrySendError::Full(3))));
    assert_eq!(tx.capacity(), 0);
    assert_eq!(tx.max_capacity(), 2);

    let (wakes, waker) = counting_waker();
    let mut send = pin!(tx.send(3));
    assert!(poll_once(send.as_mut(), &waker).is_pending());
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(
        wakes.0.load(Ordering::SeqCst),
        1,
        "the receive wakes the sender"
    );
    assert!(matches!(
        poll_once(send.as_mut(), &waker),
        Poll::Ready(Ok(()))
    ));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn an_unused_permit_gives_its_capacity_back() {
    let (tx, mut rx) = channel::<u32>(2);
    let permit = tx.try_reserve().unwrap();
    assert_eq!(tx.capacity(), 1);
    drop(permit);
    assert_eq!(tx.capacity(), 2);

    let owned = block_on(tx.clone().reserve_owned()).unwrap();
    assert_eq!(rx.capacity(), 1);
    let tx2 = owned.release();
    assert_eq!(rx.capacity(), 2);

    let permit = block_on(tx2.reserve()).unwrap();
    permit.send(5);
    assert_eq!(rx.capacity(), 1, "the buffered value holds the slot");
    assert_eq!(rx.try_recv(), Ok(5));
    assert_eq!(rx.capacity(), 2);
}

#[test]
fn a_waiting_sender_is_served_before_a_later_try_send() {
    let (tx, mut rx) = channel(1);
    tx.try_send(1).unwrap();
    let mut send = pin!(tx.send(2));
    assert!(poll_once(send.as_mut(), Waker::noop()).is_pending());
    assert_eq!(rx.try_recv(), Ok(1));
    // The freed slot went to the waiting sender, not to this newcomer.
    assert!(matches!(tx.try_send(3), Err(TrySendError::Full(3))));
    assert!(poll_once(send.as_mut(), Waker::noop()).is_ready());
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn reserve_many_reserves_all_or_waits() {
    let (tx, mut rx) = channel::<u32>(4);
    assert!(
        block_on(tx.reserve_many(5)).is_err(),
        "more than the capacity"
    );
    assert!(matches!(
        tx.try_reserve_many(5),
        Err(TrySendError::Full(()))
    ));

    let mut permits = block_on(tx.reserve_many(3)).unwrap();
    assert_eq!(permits.len(), 3);
    assert_eq!(tx.capacity(), 1);
    permits.next().unwrap().send(1);
    permits.next().unwrap().send(2);
    drop(permits);
    assert_eq!(tx.capacity(), 2, "the unused permit came back");

    // Two slots free, four wanted: it waits, holding what it got, and a
    // later small request queues behind it.
    let mut four = pin!(tx.reserve_many(4));
    assert!(poll_once(four.as_mut(), Waker::noop()).is_pending());
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
    assert_eq!(rx.try_recv(), Ok(1));
    assert!(poll_once(four.as_mut(), Waker::noop()).is_pending());
    assert_eq!(rx.try_recv(), Ok(2));
    match poll_once(four.as_mut(), Waker::noop()) {
        Poll::Ready(Ok(permits)) => assert_eq!(permits.len(), 4),
        _ => panic!("four slots are free"),
    }
    assert_eq!(tx.capacity(), 4);
}

#[test]
fn a_cancelled_reservation_gives_back_what_it_was_assigned() {
    let (tx, mut rx) = channel::<u32>(2);
    tx.try_send(1).unwrap();
    {
        let mut two = pin!(tx.reserve_many(2));
        assert!(poll_once(two.as_mut(), Waker::noop()).is_pending());
        assert_eq!(tx.capacity(), 0, "the free slot is assigned to the waiter");
    }
    assert_eq!(tx.capacity(), 1);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(tx.capacity(), 2);
}

#[test]
fn a_weak_sender_cannot_revive_a_closed_channel() {
    let (tx, mut rx) = channel::<u32>(1);
    let weak = tx.downgrade();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    let upgraded = weak.upgrade().expect("a sender is alive");
    assert_eq!(rx.sender_strong_count(), 2);
    drop(upgraded);
    drop(tx);
    assert!(weak.upgrade().is_none());
    assert_eq!(weak.strong_count(), 0);
    assert_eq!(block_on(rx.recv()), None);

    let (utx, _urx) = unbounded_channel::<u32>();
    let uweak = utx.downgrade();
    drop(utx);
    assert!(uweak.upgrade().is_none());
}

#[test]
fn recv_ends_after_the_last_sender_and_the_buffer() {
    let (tx, mut rx) = channel(4);
    let tx2 = tx.clone();
    tx.try_send(1).unwrap();
    tx2.try_send(2).unwrap();
    drop(tx);
    assert!(!rx.is_closed());
    drop(tx2);
    assert!(rx.is_closed());
    block_on(async {
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, None);
    });
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
}

#[test]
fn the_last_sender_drop_wakes_a_waiting_receiver() {
    let (tx, mut rx) = unbounded_channel::<u32>();
    let (wakes, waker) = counting_waker();
    let mut recv = pin!(rx.recv());
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(tx);
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(None));
}

#[test]
fn close_then_drain() {
    let (tx, mut rx) = channel(4);
    tx.try_send(1).unwrap();
    let permit = tx.try_reserve().unwrap();
    let mut closed = pin!(tx.closed());
    assert!(poll_once(closed.as_mut(), Waker::noop()).is_pending());
    rx.close();
    assert!(poll_once(closed.as_mut(), Waker::noop()).is_ready());
    assert!(tx.is_closed());
    assert!(matches!(tx.try_send(9), Err(TrySendError::Closed(9))));
    assert!(matches!(block_on(tx.send(9)), Err(SendError(9))));
    // A permit reserved before the close may still send.
    permit.send(2);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(block_on(rx.recv()), None);
}

#[test]
fn after_close_recv_waits_for_outstanding_permits() {
    let (tx, mut rx) = channel::<u32>(2);
    let permit = tx.try_reserve().unwrap();
    rx.close();
    let (wakes, waker) = counting_waker();
    let mut recv = pin!(rx.recv());
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(permit);
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(None));
}

#[test]
fn closing_fails_waiting_senders() {
    let (tx, mut rx) = channel(1);
    tx.try_send(1).unwrap();
    let (wakes, waker) = counting_waker();
    let mut send = pin!(tx.send(2));
    assert!(poll_once(send.as_mut(), &waker).is_pending());
    rx.close();
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert!(matches!(
        poll_once(send.as_mut(), &waker),
        Poll::Ready(Err(SendError(2)))
    ));
}

#[test]
fn unbounded_send_fails_once_the_receiver_is_gone() {
    let (tx, rx) = unbounded_channel();
    tx.send(1).unwrap();
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(2), Err(SendError(2)));
    block_on(tx.closed());
}

#[test]
fn recv_many_takes_at_most_the_limit() {
    let (tx, mut rx) = channel(8);
    for i in 0..5 {
        tx.try_send(i).unwrap();
    }
    let mut buffer = Vec::new();
    block_on(async {
        assert_eq!(rx.recv_many(&mut buffer, 0).await, 0);
        assert_eq!(rx.recv_many(&mut buffer, 2).await, 2);
        assert_eq!(buffer, [0, 1]);
        assert_eq!(rx.recv_many(&mut buffer, 10).await, 3);
        assert_eq!(buffer, [0, 1, 2, 3, 4]);
        assert_eq!(tx.capacity(), 8);
        drop(tx);
        assert_eq!(rx.recv_many(&mut buffer, 10).await, 0);
    });
    assert_eq!(buffer.len(), 5);
}

#[test]
fn len_and_is_empty_count_buffered_values() {
    let (tx, mut rx) = unbounded_channel();
    assert!(rx.is_empty());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(rx.len(), 2);
    rx.try_recv().unwrap();
    assert_eq!(rx.len(), 1);
}

#[test]
fn dropping_the_receiver_drops_buffered_values_outside_the_lock() {
    // A buffered value that holds a sender of the very same channel: its
    // drop must not deadlock on the channel's lock.
    struct HoldsSender(#[allow(dead_code)] super::UnboundedSender<HoldsSender>);
    let (tx, rx) = unbounded_channel();
    tx.send(HoldsSender(tx.clone())).unwrap();
    drop(rx);
    assert_eq!(tx.strong_count(), 1);
}

#[test]
fn same_channel_and_debug() {
    let (tx, _rx) = channel::<u8>(1);
    let (other, _orx) = channel::<u8>(1);
    assert!(tx.same_channel(&tx.clone()));
    assert!(!tx.same_channel(&other));
    assert_eq!(format!("{:?}", SendError(1)), "SendError { .. }");
    assert_eq!(SendError(1).to_string(), "channel closed");
    assert_eq!(format!("{:?}", TrySendError::Full(1)), "Full(..)");
    assert_eq!(TrySendError::Full(1).to_string(), "no available capacity");
    assert_eq!(
        TryRecvError::Empty.to_string(),
        "receiving on an empty channel"
    );
    assert_eq!(
        TryRecvError::Disconnected.to_string(),
        "receiving on a closed channel"
    );
}

#[test]
fn blocking_calls_wait_for_another_thread() {
    let (tx, mut rx) = channel(1);
    let producer = std::thread::spawn(move || {
        for i in 0..3 {
            tx.blocking_send(i).unwrap();
        }
    });
    assert_eq!(rx.blocking_recv(), Some(0));
    let mut buffer = Vec::new();
    while rx.blocking_recv_many(&mut buffer, 4) > 0 {}
    assert_eq!(buffer, [1, 2]);
    producer.join().unwrap();
}

#[cfg(feature = "rt")]
mod with_runtime {
    use super::super::{channel, unbounded_channel};
    use crate::runtime::{Builder, Runtime};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn current_thread() -> Runtime {
        Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    #[should_panic(expected = "Cannot block the current thread from within a runtime")]
    fn blocking_recv_inside_a_runtime_panics() {
        let (_tx, mut rx) = unbounded_channel::<u32>();
        current_thread().block_on(async move {
            rx.blocking_recv();
        });
    }

    #[test]
    #[should_panic(expected = "Cannot block the current thread from within a runtime")]
    fn blocking_send_inside_a_runtime_panics() {
        let (tx, _rx) = channel::<u32>(1);
        current_thread().block_on(async move {
            let _ = tx.blocking_send(1);
        });
    }

    /// A task whose channel is always ready must still let the other task
    /// on its thread run: the channel spends the cooperative budget.
    #[test]
    fn an_always_ready_receiver_yields_to_other_tasks() {
        current_thread().block_on(async {
            let other_ran = Arc::new(AtomicBool::new(false));
            let seen = other_ran.clone();
            // Spawned first, so it runs first: without the budget it would
            // finish its whole loop before the other task starts.
            let busy = crate::spawn(async move {
                let (tx, mut rx) = channel(1);
                let (utx, mut urx) = unbounded_channel();
                for i in 0..10_000u32 {
                    tx.send(i).await.unwrap();
                    assert_eq!(rx.recv().await, Some(i));
                    utx.send(i).unwrap();
                    assert_eq!(urx.recv().await, Some(i));
                    if seen.load(Ordering::SeqCst) {
                        return true;
                    }
                }
                false
            });
            let flag = other_ran.clone();
            let other = crate::spawn(async move { flag.store(true, Ordering::SeqCst) });
            assert!(busy.await.unwrap(), "the looping task never yielded");
            other.await.unwrap();
        });
    }

    /// Senders on several workers, one receiver: every value arrives once,
    /// each sender's values in its order, and back-pressure never loses a
    /// wakeup across threads.
    #[cfg(feature = "rt-multi-thread")]
    #[test]
    fn many_senders_on_a_multi_thread_runtime() {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        rt.block_on(async {
            let (tx, mut rx) = channel::<(u32, u32)>(4);
            for sender in 0..4 {
                let tx = tx.clone();
                crate::spawn(async move {
                    for i in 0..1000 {
                        tx.send((sender, i)).await.unwrap();
                    }
                });
            }
            drop(tx);
            let mut next = [0u32; 4];
            while let Some((sender, i)) = rx.recv().await {
                assert_eq!(next[sender as usize], i);
                next[sender as usize] += 1;
            }
            assert_eq!(next, [1000; 4]);
        });
    }

    #[cfg(feature = "time")]
    #[test]
    fn send_timeout_elapses_on_a_full_channel() {
        use super::super::error::SendTimeoutError;
        use crate::time::Duration;

        current_thread().block_on(async {
            let (tx, mut rx) = channel(1);
            tx.send(1).await.unwrap();
            let err = tx
                .send_timeout(2, Duration::from_millis(20))
                .await
                .unwrap_err();
            assert!(matches!(err, SendTimeoutError::Timeout(2)));
            assert_eq!(err.to_string(), "timed out waiting on send operation");
            assert_eq!(rx.recv().await, Some(1));
            tx.send_timeout(3, Duration::from_millis(20)).await.unwrap();
            drop(rx);
            assert!(matches!(
                tx.send_timeout(4, Duration::from_millis(20)).await,
                Err(SendTimeoutError::Closed(4))
            ));
        });
    }
}

#[test]
fn reserving_nothing_succeeds_even_when_full_but_not_when_closed() {
    let (tx, rx) = channel::<u32>(1);
    tx.try_send(1).unwrap();
    assert_eq!(tx.try_reserve_many(0).unwrap().len(), 0);
    assert_eq!(block_on(tx.reserve_many(0)).unwrap().len(), 0);
    assert!(matches!(
        tx.try_reserve_many(usize::MAX),
        Err(TrySendError::Full(()))
    ));
    drop(rx);
    assert!(matches!(
        tx.try_reserve_many(0),
        Err(TrySendError::Closed(()))
    ));
    assert!(block_on(tx.reserve_many(0)).is_err());
}

#[test]
fn a_failed_partial_reservation_wakes_the_closed_receiver_once_idle() {
    let (tx, mut rx) = channel::<u32>(2);
    let permit = tx.try_reserve().unwrap();
    let mut two = pin!(tx.reserve_many(2));
    assert!(poll_once(two.as_mut(), Waker::noop()).is_pending());
    rx.close();
    let (wakes, waker) = counting_waker();
    let mut recv = pin!(rx.recv());
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(permit);
    assert_eq!(wakes.0.load(Ordering::SeqCst), 0, "a slot is still held");
    assert!(matches!(
        poll_once(two.as_mut(), Waker::noop()),
        Poll::Ready(Err(_))
    ));
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(None));
}

#[test]
fn wakers_are_dropped_outside_the_lock() {
    // A waker that owns a permit of the channel it waits on: dropping it
    // gives the permit back, which takes the channel's lock.
    struct PermitInWaker(#[allow(dead_code)] OwnedPermit<u32>);
    impl Wake for PermitInWaker {
        fn wake(self: Arc<Self>) {}
    }

    let (tx, rx) = channel::<u32>(2);
    let permit = tx.clone().try_reserve_owned().unwrap();
    tx.try_send(1).unwrap();
    let waker = Waker::from(Arc::new(PermitInWaker(permit)));
    let mut reserve = Box::pin(tx.reserve());
    assert!(poll_once(reserve.as_mut(), &waker).is_pending());
    drop(waker);
    // Closing wakes (and so drops) the only reference to that waker.
    drop(rx);
    assert!(matches!(
        poll_once(reserve.as_mut(), Waker::noop()),
        Poll::Ready(Err(_))
    ));

    // The same when the waiting future itself is dropped.
    let (tx, _rx) = channel::<u32>(2);
    let permit = tx.clone().try_reserve_owned().unwrap();
    tx.try_send(1).unwrap();
    let waker = Waker::from(Arc::new(PermitInWaker(permit)));
    let mut reserve = Box::pin(tx.reserve());
    assert!(poll_once(reserve.as_mut(), &waker).is_pending());
    drop(waker);
    drop(reserve);
    assert_eq!(tx.capacity(), 1);
}

#[test]
fn a_served_reservation_fails_once_the_receiver_closed_and_wakes_it() {
    let (tx, mut rx) = channel::<()>(1);
    let held = tx.try_reserve().unwrap();
    let (reserve_wakes, reserve_waker) = counting_waker();
    let mut reserve = pin!(tx.reserve());
    assert!(poll_once(reserve.as_mut(), &reserve_waker).is_pending());
    // The slot goes to the waiting reservation, which has not seen it yet.
    drop(held);
    assert_eq!(reserve_wakes.0.load(Ordering::SeqCst), 1);
    rx.close();
    let (recv_wakes, recv_waker) = counting_waker();
    {
        let mut recv = pin!(rx.recv());
        // Closed, but a slot is still out: the receiver waits for it.
        assert!(poll_once(recv.as_mut(), &recv_waker).is_pending());
        // The reservation fails on the closed channel and gives the slot
        // back, which ends the receiver's wait.
        assert!(matches!(
            poll_once(reserve.as_mut(), &reserve_waker),
            Poll::Ready(Err(SendError(())))
        ));
        assert_eq!(recv_wakes.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll_once(recv.as_mut(), &recv_waker), Poll::Ready(None));
    }
}

#[test]
fn a_permit_keeps_its_value_when_waking_the_receiver_panics() {
    struct PanickingWaker;
    impl Wake for PanickingWaker {
        fn wake(self: Arc<Self>) {
            panic!("the receiver's waker panics");
        }
    }
    let (tx, mut rx) = channel(1);
    let waker = Waker::from(Arc::new(PanickingWaker));
    assert!(poll_once(pin!(rx.recv()), &waker).is_pending());
    let permit = tx.try_reserve().unwrap();
    let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| permit.send(7)));
    assert!(sent.is_err());
    // The value was queued before the wake: its slot stays taken.
    assert_eq!(tx.capacity(), 0);
    assert_eq!(rx.len(), 1);
    assert_eq!(rx.try_recv(), Ok(7));
    assert_eq!(tx.capacity(), 1);
}

#[test]
fn a_waker_clone_that_panics_loses_no_capacity() {
    use super::test_wakers::hooked_waker;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let panicking = hooked_waker(|| panic!("the waker's clone panics"));

    // Two asked, one free: the reservation queues up and is given the free
    // slot; the clone of its waker panics.
    let (tx, mut rx) = channel::<u32>(2);
    let held = tx.try_reserve().unwrap();
    {
        let mut reserve = pin!(tx.reserve_many(2));
        let polled = catch_unwind(AssertUnwindSafe(|| {
            poll_once(reserve.as_mut(), &panicking).is_pending()
        }));
        assert!(polled.is_err());
    }
    drop(held);
    assert_eq!(tx.capacity(), 2, "a slot was lost to the panicking clone");

    // A queued reservation re-polled with a waker whose clone panics keeps
    // what it was given, and gives it back when dropped.
    let held = tx.try_reserve_many(2).unwrap();
    {
        let mut reserve = pin!(tx.reserve_many(2));
        assert!(poll_once(reserve.as_mut(), Waker::noop()).is_pending());
        drop(held); // both slots go to the queued reservation
        let polled = catch_unwind(AssertUnwindSafe(|| {
            let _ = poll_once(reserve.as_mut(), &panicking);
        }));
        // Served before the poll: it completes without cloning at all.
        assert!(polled.is_ok());
    }
    assert_eq!(tx.capacity(), 2);
    let held = tx.try_reserve_many(2).unwrap();
    {
        let mut reserve = pin!(tx.reserve());
        assert!(poll_once(reserve.as_mut(), Waker::noop()).is_pending());
        let polled = catch_unwind(AssertUnwindSafe(|| {
            let _ = poll_once(reserve.as_mut(), &panicking);
        }));
        assert!(polled.is_err());
    }
    drop(held);
    assert_eq!(tx.capacity(), 2);

    // The receiver's and `closed()`'s registrations: nothing is lost, and
    // the channel still works.
    let polled = catch_unwind(AssertUnwindSafe(|| {
        let _ = poll_once(pin!(rx.recv()), &panicking);
    }));
    assert!(polled.is_err());
    let polled = catch_unwind(AssertUnwindSafe(|| {
        let _ = poll_once(pin!(tx.closed()), &panicking);
    }));
    assert!(polled.is_err());
    tx.try_send(1).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(tx.capacity(), 2);
}

#[test]
fn wakers_are_cloned_outside_the_lock() {
    use super::test_wakers::{hooked_waker, within};
    use std::time::Duration;
    // A waker whose clone uses the channel it is registered with (a task
    // handle whose clone updates shared state, say).
    fn waker_using(tx: &Sender<u32>) -> Waker {
        let tx = tx.clone();
        hooked_waker(move || {
            let _ = tx.capacity();
        })
    }
    let limit = Duration::from_secs(10);

    within(limit, "a waiting receiver's registration", || {
        let (tx, mut rx) = channel::<u32>(1);
        let waker = waker_using(&tx);
        let mut recv = pin!(rx.recv());
        assert!(poll_once(recv.as_mut(), &waker).is_pending());
        tx.try_send(1).unwrap();
        assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(Some(1)));
    });
    within(limit, "a waiting sender's registration", || {
        let (tx, mut rx) = channel::<u32>(1);
        tx.try_send(1).unwrap();
        let mut reserve = pin!(tx.reserve());
        assert!(poll_once(reserve.as_mut(), &waker_using(&tx)).is_pending());
        // Re-polled by another task's waker: the waker is replaced.
        assert!(poll_once(reserve.as_mut(), &waker_using(&tx)).is_pending());
        assert_eq!(rx.try_recv(), Ok(1));
        assert!(matches!(
            poll_once(reserve.as_mut(), Waker::noop()),
            Poll::Ready(Ok(_))
        ));
    });
    within(limit, "a `closed()` registration", || {
        let (tx, mut rx) = channel::<u32>(1);
        let mut closed = pin!(tx.closed());
        assert!(poll_once(closed.as_mut(), &waker_using(&tx)).is_pending());
        assert!(poll_once(closed.as_mut(), &waker_using(&tx)).is_pending());
        rx.close();
        assert_eq!(poll_once(closed.as_mut(), Waker::noop()), Poll::Ready(()));
    });
}
