//! What users of the broadcast channel rely on.
use super::error::{RecvError, SendError, TryRecvError};
use super::{channel, Receiver, Sender, WeakSender};
use futures::executor::block_on;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

#[derive(Default)]
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn poll_once<F: Future>(fut: std::pin::Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(waker))
}

#[test]
fn auto_traits_match_tokio() {
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<Sender<u8>>();
    send_sync_unpin::<Receiver<u8>>();
    send_sync_unpin::<WeakSender<u8>>();
    // `Sync` for any `T: Send`, as tokio's (`Cell` is not `Sync`): no two
    // receivers ever use `&T` at once.
    send_sync_unpin::<Sender<std::cell::Cell<u8>>>();
    send_sync_unpin::<Receiver<std::cell::Cell<u8>>>();
    send_sync_unpin::<WeakSender<std::cell::Cell<u8>>>();
    fn send_future<F: Future + Send>(_: F) {}
    let (tx, mut rx) = channel::<u8>(1);
    send_future(rx.recv());
    send_future(tx.closed());
}

#[test]
fn every_receiver_sees_every_value_in_order() {
    let (tx, mut rx1) = channel(4);
    let mut rx2 = tx.subscribe();
    assert_eq!(tx.send(10).unwrap(), 2);
    assert_eq!(tx.send(20).unwrap(), 2);
    block_on(async {
        assert_eq!(rx1.recv().await, Ok(10));
        assert_eq!(rx1.recv().await, Ok(20));
        assert_eq!(rx2.recv().await, Ok(10));
        assert_eq!(rx2.recv().await, Ok(20));
    });
    assert_eq!(rx1.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn a_new_subscriber_sees_only_later_values() {
    let (tx, _rx) = channel(4);
    tx.send(1).unwrap();
    let mut late = tx.subscribe();
    tx.send(2).unwrap();
    assert_eq!(late.try_recv(), Ok(2));
}

#[test]
fn a_lagging_receiver_is_told_how_much_it_missed_then_continues() {
    // Capacity 3 rounds up to 4.
    let (tx, mut rx) = channel(3);
    for i in 0..6 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.len(), 6);
    assert_eq!(block_on(rx.recv()), Err(RecvError::Lagged(2)));
    // It continues from the oldest value held.
    assert_eq!(block_on(rx.recv()), Ok(2));
    assert_eq!(rx.try_recv(), Ok(3));
    tx.send(6).unwrap();
    for _ in 7..12 {
        tx.send(0).unwrap();
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(4)));
    assert_eq!(rx.try_recv(), Ok(0));
}

#[test]
fn resubscribe_starts_at_the_tail() {
    let (tx, mut rx) = channel(2);
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    tx.send(3).unwrap();
    let mut fresh = rx.resubscribe();
    assert!(fresh.same_channel(&rx));
    assert_eq!(fresh.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
    tx.send(4).unwrap();
    assert_eq!(fresh.try_recv(), Ok(4));
    assert_eq!(tx.receiver_count(), 2);
}

#[test]
fn receivers_get_the_rest_then_closed_after_the_last_sender() {
    let (tx, mut rx) = channel(4);
    let tx2 = tx.clone();
    tx.send(1).unwrap();
    drop(tx);
    assert!(!rx.is_closed());
    drop(tx2);
    assert!(rx.is_closed());
    assert_eq!(block_on(rx.recv()), Ok(1));
    assert_eq!(block_on(rx.recv()), Err(RecvError::Closed));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn a_waiting_receiver_is_woken_by_send_and_by_close() {
    let (tx, mut rx) = channel::<u32>(2);
    let wakes = Arc::new(CountingWaker::default());
    let waker = Waker::from(wakes.clone());
    {
        let mut recv = pin!(rx.recv());
        assert!(poll_once(recv.as_mut(), &waker).is_pending());
        tx.send(5).unwrap();
        assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(Ok(5)));
    }
    let mut recv = pin!(rx.recv());
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(tx);
    assert_eq!(wakes.0.load(Ordering::SeqCst), 2);
    assert_eq!(
        poll_once(recv.as_mut(), &waker),
        Poll::Ready(Err(RecvError::Closed))
    );
}

#[test]
fn send_without_receivers_fails_until_one_subscribes() {
    let tx = Sender::<u32>::new(4);
    assert_eq!(tx.receiver_count(), 0);
    assert!(matches!(tx.send(1), Err(SendError(1))));
    let mut rx = tx.subscribe();
    assert_eq!(tx.send(2).unwrap(), 1);
    assert_eq!(rx.try_recv(), Ok(2));
    drop(rx);
    assert!(tx.send(3).is_err());
}

#[test]
fn values_are_freed_once_every_receiver_has_read_them() {
    let (tx, mut rx1) = channel(4);
    let mut rx2 = tx.subscribe();
    let value = Arc::new(());
    tx.send(value.clone()).unwrap();
    tx.send(value.clone()).unwrap();
    assert_eq!(tx.len(), 2);
    assert!(!tx.is_empty());
    drop(rx1.try_recv().unwrap());
    assert_eq!(tx.len(), 2, "rx2 has not read it yet");
    drop(rx2.try_recv().unwrap());
    assert_eq!(tx.len(), 1);
    assert_eq!(Arc::strong_count(&value), 2);
    // A dropped receiver counts as having read everything.
    drop(rx2);
    drop(rx1.try_recv().unwrap());
    assert!(tx.is_empty());
    assert_eq!(Arc::strong_count(&value), 1);
}

#[test]
fn closed_completes_when_the_last_receiver_goes() {
    let (tx, rx1) = channel::<u32>(4);
    let rx2 = tx.subscribe();
    let mut closed = pin!(tx.closed());
    assert!(poll_once(closed.as_mut(), Waker::noop()).is_pending());
    drop(rx1);
    assert!(poll_once(closed.as_mut(), Waker::noop()).is_pending());
    drop(rx2);
    assert!(poll_once(closed.as_mut(), Waker::noop()).is_ready());
}

#[test]
fn weak_senders_do_not_keep_the_channel_open() {
    let (tx, mut rx) = channel::<u32>(4);
    let weak = tx.downgrade();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    let strong = weak.upgrade().unwrap();
    assert_eq!(rx.sender_strong_count(), 2);
    drop(strong);
    drop(tx);
    assert!(weak.upgrade().is_none());
    assert_eq!(rx.sender_weak_count(), 1);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn errors_and_debug_read_as_tokio_s() {
    assert_eq!(RecvError::Lagged(3).to_string(), "channel lagged by 3");
    assert_eq!(RecvError::Closed.to_string(), "channel closed");
    assert_eq!(TryRecvError::Empty.to_string(), "channel empty");
    assert_eq!(SendError(1).to_string(), "channel closed");
    let (tx, rx) = channel::<u8>(1);
    assert_eq!(format!("{tx:?}"), "broadcast::Sender");
    assert_eq!(format!("{rx:?}"), "broadcast::Receiver");
    assert_eq!(format!("{:?}", tx.downgrade()), "broadcast::WeakSender");
}

#[test]
#[should_panic(expected = "broadcast channel capacity cannot be zero")]
fn zero_capacity_panics() {
    let _ = channel::<u8>(0);
}

#[test]
fn blocking_recv_waits_for_another_thread() {
    let (tx, mut rx) = channel(4);
    let sender = std::thread::spawn(move || {
        tx.send(1).unwrap();
    });
    assert_eq!(rx.blocking_recv(), Ok(1));
    sender.join().unwrap();
    assert_eq!(rx.blocking_recv(), Err(RecvError::Closed));
}

#[cfg(feature = "rt")]
mod with_runtime {
    use super::channel;
    use crate::runtime::Builder;

    #[test]
    #[should_panic(expected = "Cannot block the current thread from within a runtime")]
    fn blocking_recv_inside_a_runtime_panics() {
        let (_tx, mut rx) = channel::<u32>(1);
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let _ = rx.blocking_recv();
        });
    }

    #[test]
    fn an_always_ready_receiver_yields_to_other_tasks() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let other_ran = Arc::new(AtomicBool::new(false));
            let seen = other_ran.clone();
            let busy = crate::spawn(async move {
                let (tx, mut rx) = channel(1);
                for i in 0..10_000u32 {
                    tx.send(i).unwrap();
                    assert_eq!(rx.recv().await, Ok(i));
                    if seen.load(Ordering::SeqCst) {
                        return true;
                    }
                }
                false
            });
            let other = crate::spawn(async move { other_ran.store(true, Ordering::SeqCst) });
            assert!(busy.await.unwrap(), "the looping task never yielded");
            other.await.unwrap();
        });
    }
}

#[test]
fn a_panicking_clone_loses_only_that_value() {
    #[derive(Debug, PartialEq)]
    struct PanicsOnZero(u32);
    impl Clone for PanicsOnZero {
        fn clone(&self) -> Self {
            assert_ne!(self.0, 0, "cloning zero");
            PanicsOnZero(self.0)
        }
    }
    let (tx, mut rx) = channel(4);
    let _other = tx.subscribe(); // so that values are cloned, not moved
    tx.send(PanicsOnZero(0)).unwrap();
    tx.send(PanicsOnZero(1)).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rx.try_recv()));
    assert!(caught.is_err());
    assert_eq!(rx.try_recv(), Ok(PanicsOnZero(1)));
    assert_eq!(tx.send(PanicsOnZero(2)).unwrap(), 2);
}

#[test]
fn wakers_are_dropped_and_woken_outside_the_lock() {
    // A waker that sends on the channel when dropped.
    struct SendOnDrop(Sender<()>);
    impl Drop for SendOnDrop {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    impl Wake for SendOnDrop {
        fn wake(self: Arc<Self>) {}
    }

    // Replaced by a later poll's waker.
    let (tx, mut rx) = channel(4);
    let mut recv = Box::pin(rx.recv());
    let waker = Waker::from(Arc::new(SendOnDrop(tx)));
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(waker);
    let _ = poll_once(recv.as_mut(), Waker::noop());
    drop(recv);

    // Woken (and dropped) by a send.
    let (tx, mut rx) = channel(4);
    let mut recv = Box::pin(rx.recv());
    let waker = Waker::from(Arc::new(SendOnDrop(tx.clone())));
    assert!(poll_once(recv.as_mut(), &waker).is_pending());
    drop(waker);
    tx.send(()).unwrap();
}

#[test]
fn a_lagging_receiver_recovers_once_the_senders_are_gone() {
    let (tx, mut rx) = channel(2);
    for i in 1..=4 {
        tx.send(i).unwrap();
    }
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(2)));
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Ok(4));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));

    let (tx, mut rx) = channel(1);
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    let mut resubscribed = rx.resubscribe();
    assert_eq!(resubscribed.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn sender_len_tracks_the_slowest_receiver() {
    // A fixed pseudo-random walk of sends and receives on two receivers.
    let (tx, mut rx1) = channel(16);
    let mut rx2 = tx.subscribe();
    let mut seed: u32 = 0x2545_f491;
    for _ in 0..2000 {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        match seed % 4 {
            0 => {
                let _ = rx1.try_recv();
            }
            1 => {
                let _ = rx2.try_recv();
            }
            _ => {
                tx.send(0).unwrap();
            }
        }
        let expected = rx1.len().max(rx2.len()).min(16);
        assert_eq!(tx.len(), expected);
        assert_eq!(tx.is_empty(), expected == 0);
    }
}

/// Counts its clones; a clone of `poisoned` panics.
#[derive(Debug)]
struct Counted {
    value: usize,
    poisoned: bool,
    clones: Arc<AtomicUsize>,
}

impl Clone for Counted {
    fn clone(&self) -> Counted {
        assert!(!self.poisoned, "clone of a poisoned value");
        self.clones.fetch_add(1, Ordering::SeqCst);
        Counted {
            value: self.value,
            poisoned: false,
            clones: self.clones.clone(),
        }
    }
}

#[test]
fn every_receive_clones_even_the_last_one() {
    let clones = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx1) = channel(4);
    let mut rx2 = tx.subscribe();
    let value = |value| Counted {
        value,
        poisoned: false,
        clones: clones.clone(),
    };
    tx.send(value(1)).unwrap();
    assert_eq!(rx1.try_recv().unwrap().value, 1);
    assert_eq!(rx2.try_recv().unwrap().value, 1);
    // As in tokio: one clone per receive, the last reader's included.
    assert_eq!(clones.load(Ordering::SeqCst), 2);
}

#[test]
fn a_clone_that_panics_loses_that_value_for_that_receiver_only() {
    let clones = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx) = channel(4);
    tx.send(Counted {
        value: 0,
        poisoned: true,
        clones: clones.clone(),
    })
    .unwrap();
    tx.send(Counted {
        value: 1,
        poisoned: false,
        clones: clones.clone(),
    })
    .unwrap();
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rx.try_recv()));
    assert!(first.is_err());
    // The channel is consistent and the receiver has moved past the value.
    assert_eq!(rx.try_recv().unwrap().value, 1);
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Empty)));
}

/// A value whose first clone (once `armed`) waits until the test opens
/// the gate, saying when it has started.
#[derive(Debug)]
struct Gated {
    id: u32,
    gate: Arc<Gate>,
}

#[derive(Debug, Default)]
struct Gate {
    armed: std::sync::atomic::AtomicBool,
    /// (a clone is waiting, the gate is open)
    state: std::sync::Mutex<(bool, bool)>,
    changed: std::sync::Condvar,
}

impl Gate {
    fn open(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }

    fn wait_for_a_clone(&self) -> bool {
        let state = self.state.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, std::time::Duration::from_secs(10), |s| !s.0)
            .unwrap();
        state.0
    }
}

impl Clone for Gated {
    fn clone(&self) -> Gated {
        if self.gate.armed.swap(false, Ordering::SeqCst) {
            let mut state = self.gate.state.lock().unwrap();
            state.0 = true;
            self.gate.changed.notify_all();
            while !state.1 {
                state = self.gate.changed.wait(state).unwrap();
            }
        }
        Gated {
            id: self.id,
            gate: self.gate.clone(),
        }
    }
}

#[test]
fn a_receivers_slow_clone_blocks_neither_senders_nor_other_receivers() {
    let gate = Arc::new(Gate::default());
    let (tx, mut slow) = channel(4);
    let mut other = tx.subscribe();
    let gated = |id| Gated {
        id,
        gate: gate.clone(),
    };
    tx.send(gated(1)).unwrap();
    assert_eq!(other.try_recv().map(|v| v.id), Ok(1));
    gate.armed.store(true, Ordering::SeqCst);
    let slow_reader = std::thread::spawn(move || {
        let first = slow.try_recv().map(|v| v.id);
        (first, slow)
    });
    assert!(gate.wait_for_a_clone(), "the slow clone never started");

    // While that clone runs: a send on another thread, and another
    // receiver reading the new value. (Only a receiver of the same value,
    // or a send that wraps round to its slot, waits for that clone, as in
    // tokio.)
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    let value = gated(2);
    std::thread::spawn(move || {
        let sent = tx2.send(value).map_err(|_| ());
        let read = other.try_recv().map(|v| v.id);
        let _ = done_tx.send((sent, read));
    });
    let outcome = done_rx.recv_timeout(std::time::Duration::from_secs(5));
    gate.open();
    let (sent, read) = outcome.expect(
        "a send and another receiver's receive waited for one receiver's `Clone` \
         (the channel was locked during the clone)",
    );
    assert_eq!(sent, Ok(2));
    assert_eq!(read, Ok(2));
    let (first, mut slow) = slow_reader.join().unwrap();
    assert_eq!(first, Ok(1));
    assert_eq!(slow.try_recv().map(|v| v.id), Ok(2));
    assert!(matches!(slow.try_recv(), Err(TryRecvError::Empty)));
    assert_eq!(tx.len(), 0);
}

#[test]
fn wakers_are_cloned_outside_the_lock() {
    use crate::sync::mpsc::test_wakers::{hooked_waker, within};
    use std::time::Duration;
    let limit = Duration::from_secs(10);
    within(limit, "a waiting receiver's registration", || {
        let (tx, mut rx) = channel::<u32>(2);
        let probe = tx.clone();
        let waker = hooked_waker(move || {
            let _ = probe.len();
        });
        let mut recv = pin!(rx.recv());
        assert!(poll_once(recv.as_mut(), &waker).is_pending());
        tx.send(5).unwrap();
        assert_eq!(poll_once(recv.as_mut(), &waker), Poll::Ready(Ok(5)));
    });
    within(limit, "a `closed()` registration", || {
        let (tx, rx) = channel::<u32>(2);
        let probe = tx.clone();
        let waker = hooked_waker(move || {
            let _ = probe.receiver_count();
        });
        let mut closed = pin!(tx.closed());
        assert!(poll_once(closed.as_mut(), &waker).is_pending());
        drop(rx);
        assert_eq!(poll_once(closed.as_mut(), &waker), Poll::Ready(()));
    });
}

#[test]
fn the_last_receivers_drop_lets_go_of_its_values_before_waking_closed() {
    // tokio's order: a task woken by `closed()` sees the values let go.
    struct CheckOnWake(Sender<u32>, std::sync::atomic::AtomicBool);
    impl Wake for CheckOnWake {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            assert_eq!(self.0.receiver_count(), 0);
            assert_eq!(self.0.len(), 0);
            assert!(self.0.is_empty());
            self.1.store(true, Ordering::SeqCst);
        }
    }
    let (tx, rx) = channel::<u32>(2);
    tx.send(1).unwrap();
    let check = Arc::new(CheckOnWake(tx.clone(), Default::default()));
    let waker = Waker::from(check.clone());
    let mut closed = pin!(tx.closed());
    assert!(poll_once(closed.as_mut(), &waker).is_pending());
    drop(rx);
    assert!(check.1.load(Ordering::SeqCst), "closed() was not woken");
    assert_eq!(poll_once(closed.as_mut(), &waker), Poll::Ready(()));
}
