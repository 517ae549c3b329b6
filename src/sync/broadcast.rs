//! A multi-producer, multi-consumer channel in which every receiver sees
//! every value: values are broadcast.
//!
//! [`channel`] makes a [`Sender`] and a first [`Receiver`];
//! [`Sender::subscribe`] (or [`Receiver::resubscribe`]) adds receivers,
//! which see the values sent after they were made. A value is stored once
//! and cloned for each receiver as it reads it (so `T: Clone`), and freed
//! once every receiver that existed when it was sent has read it.
//!
//! # Lagging
//!
//! The channel holds at most its capacity, rounded up to a power of two,
//! of values. A send into a full channel overwrites the oldest value, even
//! if some receiver has not read it: senders never wait for slow
//! receivers. Such a receiver's next `recv` (or `try_recv`) returns
//! [`RecvError::Lagged`] with the number of values it missed; it stays
//! subscribed, and its following receives return the oldest value still
//! held, then the next ones in order.
//!
//! # Closing
//!
//! Once every [`Sender`] is dropped, a receiver first gets the values it
//! has not read yet, then [`RecvError::Closed`]. A dropped receiver counts
//! as having read everything. [`WeakSender`]s do not keep the channel open.
//!
//! # Implementation
//!
//! tokiwa's own (whole-graph mode), with tokio's API and tokio's layout
//! (`ring.rs`): a ring of slots, each behind its own mutex, and the send
//! position with the parked receivers behind another. A receiver clones
//! its value holding only that value's slot, so a slow `Clone` does not
//! hold up the senders (unless one wraps round to that very slot) or the
//! receivers of other values. Positions are `u64` counts of values sent;
//! a receiver keeps the position it reads next, and a slot holding another
//! position means nothing new yet or, if a later one, that the receiver
//! lagged. Waiting receivers sit in a [`WaitList`]; every wait spends the
//! task's cooperative budget, as tokio's does. Wakers are cloned before a
//! lock is taken and woken or dropped after; overwritten and fully read
//! values are dropped after the lock.
//!
//! [`WaitList`]: crate::sync::mpsc::waiters::WaitList
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::Arc;
use crate::sync::blocking::block_on;
use crate::sync::budget::poll_proceed;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll, Waker};

pub mod error;
mod ring;

use ring::{Found, Park, Ring};

use error::{RecvError, SendError, TryRecvError};

/// The most receivers a channel may have (tokio's limit).
const MAX_RECEIVERS: usize = usize::MAX >> 2;

/// Sends values to every [`Receiver`] of a broadcast channel; clone it for
/// more producers. Made by [`channel`] or [`Sender::new`].
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A sender that does not keep the channel open; [`upgrade`] it to send.
///
/// [`upgrade`]: WeakSender::upgrade
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives every value sent after it was subscribed. Made by [`channel`],
/// [`Sender::subscribe`] or [`Receiver::resubscribe`].
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The position this receiver reads next.
    next: u64,
}

struct Shared<T> {
    ring: Ring<T>,
    /// Senders.
    tx_count: AtomicUsize,
    /// Weak senders.
    weak_count: AtomicUsize,
}

fn wake_all(wakers: Vec<Waker>) {
    for waker in wakers {
        waker.wake();
    }
}

/// Creates a broadcast channel holding at most `capacity` values (rounded
/// up to a power of two), and its first receiver.
///
/// # Panics
///
/// If `capacity` is 0 or more than `usize::MAX / 2`.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::new(capacity);
    let rx = tx.subscribe();
    (tx, rx)
}

impl<T> Sender<T> {
    /// Creates a broadcast channel with no receiver yet (see [`channel`]):
    /// sending fails until one [subscribes](Sender::subscribe).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 or more than `usize::MAX / 2`.
    #[track_caller]
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "broadcast channel capacity cannot be zero");
        assert!(
            capacity <= usize::MAX >> 1,
            "broadcast channel capacity exceeded `usize::MAX / 2`"
        );
        let capacity = capacity.next_power_of_two();
        Sender {
            shared: Arc::new(Shared {
                ring: Ring::new(capacity),
                tx_count: AtomicUsize::new(1),
                weak_count: AtomicUsize::new(0),
            }),
        }
    }

    /// Sends a value to every current receiver and returns how many there
    /// are. A full channel overwrites its oldest value (see the module's
    /// "Lagging").
    ///
    /// Fails, giving the value back, when there is no receiver; a later
    /// [`subscribe`](Sender::subscribe) makes sending work again. `Ok`
    /// does not promise that any receiver will read the value.
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut tail = self.shared.ring.tail();
        let receivers = tail.rx_count;
        if receivers == 0 {
            drop(tail);
            return Err(SendError(value));
        }
        let overwritten = self.shared.ring.push(&mut tail, value);
        let mut wakers = Vec::new();
        tail.rx_waiters.dequeue_all(&mut wakers);
        drop(tail);
        wake_all(wakers);
        drop(overwritten);
        Ok(receivers)
    }

    /// A new receiver, which sees the values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        new_receiver(&self.shared)
    }

    /// A [`WeakSender`] for this channel, which does not keep it open.
    #[must_use = "Downgrade creates a WeakSender without destroying the original non-weak sender."]
    pub fn downgrade(&self) -> WeakSender<T> {
        // Relaxed: a plain statistic; the `Arc` keeps the channel alive.
        self.shared.weak_count.fetch_add(1, Ordering::Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// The number of values held that some receiver has yet to read
    /// (overwritten values are not counted, unlike [`Receiver::len`]).
    pub fn len(&self) -> usize {
        let tail = self.shared.ring.tail();
        self.shared.ring.unread(&tail)
    }

    /// Whether no held value remains to be read by any receiver.
    pub fn is_empty(&self) -> bool {
        let tail = self.shared.ring.tail();
        self.shared.ring.newest_is_read(&tail)
    }

    /// The number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.ring.tail().rx_count
    }

    /// Whether both senders send into the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Completes when the channel has no receiver left.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn closed(&self) {
        NoReceivers {
            shared: &self.shared,
            key: None,
        }
        .await;
    }

    /// The number of [`Sender`] handles.
    pub fn strong_count(&self) -> usize {
        self.shared.tx_count.load(Ordering::SeqCst)
    }

    /// The number of [`WeakSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.shared.weak_count.load(Ordering::SeqCst)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        // Relaxed: the caller holds a sender, so the count cannot reach
        // zero concurrently.
        self.shared.tx_count.fetch_add(1, Ordering::Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: the last decrement is ordered after every other one, as
        // with `Arc`; the closing itself is published through the lock.
        if self.shared.tx_count.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let mut tail = self.shared.ring.tail();
        tail.tx_closed = true;
        let mut wakers = Vec::new();
        tail.rx_waiters.dequeue_all(&mut wakers);
        drop(tail);
        wake_all(wakers);
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("broadcast::Sender")
    }
}

impl<T> WeakSender<T> {
    /// A [`Sender`] for the channel, or `None` if every sender is already
    /// gone.
    #[must_use]
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut count = self.shared.tx_count.load(Ordering::Relaxed);
        loop {
            if count == 0 {
                return None;
            }
            // Relaxed: only the count itself is exchanged; the closing of
            // the channel is published through the lock.
            match self.shared.tx_count.compare_exchange_weak(
                count,
                count + 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Some(Sender {
                        shared: self.shared.clone(),
                    })
                }
                Err(actual) => count = actual,
            }
        }
    }

    /// The number of [`Sender`] handles.
    pub fn strong_count(&self) -> usize {
        self.shared.tx_count.load(Ordering::SeqCst)
    }

    /// The number of [`WeakSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.shared.weak_count.load(Ordering::SeqCst)
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        // Relaxed: a plain statistic.
        self.shared.weak_count.fetch_add(1, Ordering::Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        // Relaxed: a plain statistic.
        self.shared.weak_count.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("broadcast::WeakSender")
    }
}

/// A receiver that reads from the current tail. (A free function: loom's
/// `Arc` cannot be a method receiver.)
fn new_receiver<T>(shared: &Arc<Shared<T>>) -> Receiver<T> {
    let mut tail = shared.ring.tail();
    assert!(tail.rx_count != MAX_RECEIVERS, "max receivers");
    tail.rx_count += 1;
    let next = tail.pos;
    drop(tail);
    Receiver {
        shared: shared.clone(),
        next,
    }
}

impl<T> Receiver<T> {
    /// The number of values sent since this receiver last read, including
    /// any already overwritten; more than the capacity means the next
    /// receive reports a lag.
    pub fn len(&self) -> usize {
        (self.shared.ring.tail().pos - self.next) as usize
    }

    /// Whether every value sent so far has been read by this receiver.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The number of [`Sender`] handles.
    pub fn sender_strong_count(&self) -> usize {
        self.shared.tx_count.load(Ordering::SeqCst)
    }

    /// The number of [`WeakSender`] handles.
    pub fn sender_weak_count(&self) -> usize {
        self.shared.weak_count.load(Ordering::SeqCst)
    }

    /// Whether every sender is gone (values not yet read may remain).
    pub fn is_closed(&self) -> bool {
        self.shared.tx_count.load(Ordering::SeqCst) == 0
    }
}

impl<T: Clone> Receiver<T> {
    /// A new receiver of the same channel, which sees the values sent from
    /// now on (not those this one has yet to read).
    pub fn resubscribe(&self) -> Self {
        new_receiver(&self.shared)
    }

    /// Receives the next value, waiting if this receiver has read
    /// everything.
    ///
    /// Fails with [`RecvError::Lagged`] if values were overwritten before
    /// this receiver read them (it then continues with the oldest value
    /// held), and with [`RecvError::Closed`] once every sender is gone and
    /// every value has been read.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a dropped future has consumed nothing.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        Recv {
            receiver: self,
            key: None,
        }
        .await
    }

    /// Receives the next value without waiting; as
    /// [`recv`](Receiver::recv), and [`TryRecvError::Empty`] when there is
    /// nothing new yet.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.shared.ring.recv(&mut self.next, None) {
            Found::Value(reading) => reading.value().ok_or(TryRecvError::Closed),
            Found::Empty(_) | Found::CloneWaker => Err(TryRecvError::Empty),
            Found::Closed => Err(TryRecvError::Closed),
            Found::Lagged(n) => Err(TryRecvError::Lagged(n)),
        }
    }

    /// Receives the next value from synchronous code, sleeping the thread
    /// until there is one; as [`recv`](Receiver::recv).
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        block_on(self.recv())
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut wakers = Vec::new();
        let mut tail = self.shared.ring.tail();
        tail.rx_count -= 1;
        let until = tail.pos;
        if tail.rx_count == 0 {
            tail.no_rx_waiters.dequeue_all(&mut wakers);
        }
        drop(tail);
        // Values sent from `until` on no longer count this receiver; the
        // ones before, it counts as read. Then (as tokio does) the
        // `closed()` futures are woken: they see the values let go.
        self.shared.ring.leave(self.next, until);
        wake_all(wakers);
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("broadcast::Receiver")
    }
}

/// Future of [`Receiver::recv`]; while it waits it owns an entry in the
/// channel's list of parked receivers.
struct Recv<'a, T> {
    receiver: &'a mut Receiver<T>,
    key: Option<usize>,
}

impl<T: Clone> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = ready!(poll_proceed(cx));
        let Recv { receiver, key } = self.get_mut();
        let Receiver { shared, next } = &mut **receiver;
        // This task's waker, cloned with no lock held.
        let mut fresh = None;
        let result = loop {
            let park = Park {
                key: &mut *key,
                waker: cx.waker(),
                fresh: &mut fresh,
            };
            match shared.ring.recv(next, Some(park)) {
                Found::Value(reading) => break reading.value().ok_or(RecvError::Closed),
                Found::Closed => break Err(RecvError::Closed),
                Found::Lagged(n) => break Err(RecvError::Lagged(n)),
                Found::Empty(old) => {
                    drop(old);
                    return Poll::Pending;
                }
                Found::CloneWaker => fresh = Some(cx.waker().clone()),
            }
        };
        // Done: leave the parked receivers if this future had joined them.
        if let Some(key) = key.take() {
            let (_, waker) = shared.ring.tail().rx_waiters.remove(key);
            drop(waker);
        }
        coop.made_progress();
        Poll::Ready(result)
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let (_, waker) = self.receiver.shared.ring.tail().rx_waiters.remove(key);
            drop(waker);
        }
    }
}

/// Future of [`Sender::closed`].
struct NoReceivers<'a, T> {
    shared: &'a Shared<T>,
    key: Option<usize>,
}

impl<T> Future for NoReceivers<'_, T> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let shared = self.shared;
        let mut fresh = None;
        loop {
            let mut tail = shared.ring.tail();
            if tail.rx_count == 0 {
                let waker = self
                    .key
                    .take()
                    .and_then(|key| tail.no_rx_waiters.remove(key).1);
                drop(tail);
                drop(waker);
                return Poll::Ready(());
            }
            if let Some(key) = self.key {
                if tail.no_rx_waiters.is_queued(key)
                    && tail.no_rx_waiters.will_wake(key, cx.waker())
                {
                    return Poll::Pending;
                }
            }
            let Some(waker) = fresh.take() else {
                drop(tail);
                fresh = Some(cx.waker().clone());
                continue;
            };
            let old = match self.key {
                Some(key) if tail.no_rx_waiters.is_queued(key) => {
                    tail.no_rx_waiters.set_waker(key, waker)
                }
                Some(key) => {
                    // The last receiver went, but a new one subscribed since.
                    let (_, old) = tail.no_rx_waiters.remove(key);
                    self.key = Some(tail.no_rx_waiters.push_back((), waker));
                    old
                }
                None => {
                    self.key = Some(tail.no_rx_waiters.push_back((), waker));
                    None
                }
            };
            drop(tail);
            drop(old);
            return Poll::Pending;
        }
    }
}

impl<T> Drop for NoReceivers<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let (_, waker) = self.shared.ring.tail().no_rx_waiters.remove(key);
            drop(waker);
        }
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests;

// Loom models; without `--cfg tokiwa_loom` they run once as plain tests.
#[cfg(test)]
mod loom_tests;
