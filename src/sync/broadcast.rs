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
//! tokiwa's own (whole-graph mode), with tokio's API. The ring of slots,
//! the send position and the parked receivers share one mutex; each slot
//! records the position it holds and how many receivers have yet to read
//! it. Positions are `u64` counts of values sent and never wrap in
//! practice. A receiver keeps the position it reads next, so `next ==
//! tail` means nothing new, and a slot holding another position than
//! `next` means it was overwritten: the receiver lagged. Waiting receivers
//! sit in a [`WaitList`]; every wait spends the task's cooperative budget,
//! as tokio's does. The last reader of a value takes it instead of a
//! clone. Clones are made under the lock (a `Clone` that uses the same
//! channel deadlocks), but overwritten values are dropped, and wakers
//! woken or dropped, after it.
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::sync::blocking::block_on;
use crate::sync::budget::poll_proceed;
use crate::sync::mpsc::waiters::WaitList;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll, Waker};

pub mod error;

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
    state: Mutex<State<T>>,
    /// Capacity (a power of two) minus one.
    mask: usize,
    /// Senders.
    tx_count: AtomicUsize,
    /// Weak senders.
    weak_count: AtomicUsize,
}

struct State<T> {
    slots: Box<[Slot<T>]>,
    /// The position the next value is sent to (values sent so far).
    tail: u64,
    /// Receivers.
    rx_count: usize,
    /// Every sender is gone.
    tx_closed: bool,
    /// Receivers waiting for a value.
    rx_waiters: WaitList<()>,
    /// `Sender::closed()` futures waiting for the last receiver to go.
    no_rx_waiters: WaitList<()>,
}

struct Slot<T> {
    /// The position of the value held (meaningless while `val` is `None`
    /// and `rem` is 0).
    pos: u64,
    /// Receivers that have yet to read it.
    rem: usize,
    val: Option<T>,
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

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic under the lock can only come from a value's `Clone`,
        // which runs before the state changes: the state stays consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn capacity(&self) -> u64 {
        self.mask as u64 + 1
    }

    /// Looks at a receiver's position `next`; on a lag, moves it to the
    /// oldest value held.
    fn find(&self, st: &State<T>, next: &mut u64) -> Found {
        if *next == st.tail {
            return if st.tx_closed {
                Found::Closed
            } else {
                Found::Empty
            };
        }
        let idx = (*next & self.mask as u64) as usize;
        if st.slots[idx].pos == *next {
            return Found::Value(idx);
        }
        let oldest = st.tail - self.capacity();
        let missed = oldest - *next;
        *next = oldest;
        Found::Lagged(missed)
    }

    /// Reads the value in slot `idx` for the receiver at `next`: always a
    /// clone, as in tokio (every receive calls `T::clone`, which code may
    /// count on). The receiver's position and the slot's count change
    /// first, so a `Clone` that panics loses this value for this receiver
    /// but leaves the channel consistent (as in tokio). After its last
    /// reader the channel lets go of the value: it is moved to `spent`, for
    /// the caller to drop once the lock is released (a value's `Drop` may
    /// use the channel).
    fn read(st: &mut State<T>, idx: usize, next: &mut u64, spent: &mut Option<T>) -> Option<T>
    where
        T: Clone,
    {
        *next += 1;
        let slot = &mut st.slots[idx];
        slot.rem -= 1;
        let value = slot.val.clone();
        if slot.rem == 0 {
            *spent = slot.val.take();
        }
        value
    }
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
        let slots = (0..capacity)
            .map(|_| Slot {
                pos: 0,
                rem: 0,
                val: None,
            })
            .collect();
        Sender {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    slots,
                    tail: 0,
                    rx_count: 0,
                    tx_closed: false,
                    rx_waiters: WaitList::new(),
                    no_rx_waiters: WaitList::new(),
                }),
                mask: capacity - 1,
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
        let mut st = self.shared.lock();
        let receivers = st.rx_count;
        if receivers == 0 {
            return Err(SendError(value));
        }
        let pos = st.tail;
        let slot = &mut st.slots[(pos & self.shared.mask as u64) as usize];
        slot.pos = pos;
        slot.rem = receivers;
        let overwritten = slot.val.replace(value);
        st.tail = pos + 1;
        let mut wakers = Vec::new();
        st.rx_waiters.dequeue_all(&mut wakers);
        drop(st);
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
        let st = self.shared.lock();
        let oldest = st.tail.saturating_sub(self.shared.capacity());
        // Each receiver reads in order, so the values still to be read are
        // the newest ones: find the first held position with readers left.
        let rem_at = |i: u64| st.slots[((oldest + i) & self.shared.mask as u64) as usize].rem;
        let window = st.tail - oldest;
        let (mut lo, mut hi) = (0, window);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if rem_at(mid) == 0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (window - lo) as usize
    }

    /// Whether no held value remains to be read by any receiver.
    pub fn is_empty(&self) -> bool {
        let st = self.shared.lock();
        match st.tail.checked_sub(1) {
            Some(newest) => st.slots[(newest & self.shared.mask as u64) as usize].rem == 0,
            None => true,
        }
    }

    /// The number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.lock().rx_count
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
        let mut st = self.shared.lock();
        st.tx_closed = true;
        let mut wakers = Vec::new();
        st.rx_waiters.dequeue_all(&mut wakers);
        drop(st);
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
    let mut st = shared.lock();
    assert!(st.rx_count != MAX_RECEIVERS, "max receivers");
    st.rx_count += 1;
    let next = st.tail;
    drop(st);
    Receiver {
        shared: shared.clone(),
        next,
    }
}

/// What a receiver finds at its position, with the lock held.
enum Found {
    /// A value to clone; the slot index.
    Value(usize),
    Empty,
    Closed,
    Lagged(u64),
}

impl<T> Receiver<T> {
    /// The number of values sent since this receiver last read, including
    /// any already overwritten; more than the capacity means the next
    /// receive reports a lag.
    pub fn len(&self) -> usize {
        (self.shared.lock().tail - self.next) as usize
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
        let Receiver { shared, next } = self;
        // Declared before the guard: dropped after the lock is released.
        let mut spent = None;
        let mut st = shared.lock();
        match shared.find(&st, next) {
            Found::Value(idx) => {
                Shared::read(&mut st, idx, next, &mut spent).ok_or(TryRecvError::Closed)
            }
            Found::Empty => Err(TryRecvError::Empty),
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
        let mut freed = Vec::new();
        let mut wakers = Vec::new();
        let mut st = self.shared.lock();
        // Count as having read every value still held.
        let oldest = st.tail.saturating_sub(self.shared.capacity());
        for pos in self.next.max(oldest)..st.tail {
            let slot = &mut st.slots[(pos & self.shared.mask as u64) as usize];
            if slot.pos == pos && slot.rem > 0 {
                slot.rem -= 1;
                if slot.rem == 0 {
                    freed.extend(slot.val.take());
                }
            }
        }
        st.rx_count -= 1;
        if st.rx_count == 0 {
            st.no_rx_waiters.dequeue_all(&mut wakers);
        }
        drop(st);
        wake_all(wakers);
        drop(freed);
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
        let this = self.get_mut();
        let Receiver { shared, next } = &mut *this.receiver;
        // Declared before the guard: dropped after the lock is released.
        let mut spent = None;
        let mut st = shared.lock();
        let result = match shared.find(&st, next) {
            Found::Value(idx) => {
                Shared::read(&mut st, idx, next, &mut spent).ok_or(RecvError::Closed)
            }
            Found::Closed => Err(RecvError::Closed),
            Found::Lagged(n) => Err(RecvError::Lagged(n)),
            Found::Empty => {
                let old = match this.key {
                    Some(key) if st.rx_waiters.is_queued(key) => {
                        st.rx_waiters.set_waker(key, cx.waker().clone())
                    }
                    Some(key) => {
                        // Dequeued, yet nothing to find (a send or the
                        // close always leaves something): queue again.
                        let (_, old) = st.rx_waiters.remove(key);
                        this.key = Some(st.rx_waiters.push_back((), cx.waker().clone()));
                        old
                    }
                    None => {
                        this.key = Some(st.rx_waiters.push_back((), cx.waker().clone()));
                        None
                    }
                };
                drop(st);
                drop(old);
                return Poll::Pending;
            }
        };
        let waker = this.key.take().and_then(|key| st.rx_waiters.remove(key).1);
        coop.made_progress();
        drop(st);
        drop(waker);
        Poll::Ready(result)
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let (_, waker) = self.receiver.shared.lock().rx_waiters.remove(key);
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
        let mut st = shared.lock();
        if st.rx_count == 0 {
            let waker = self
                .key
                .take()
                .and_then(|key| st.no_rx_waiters.remove(key).1);
            drop(st);
            drop(waker);
            return Poll::Ready(());
        }
        let old = match self.key {
            Some(key) if st.no_rx_waiters.is_queued(key) => {
                st.no_rx_waiters.set_waker(key, cx.waker().clone())
            }
            Some(key) => {
                // The last receiver went, but a new one subscribed since.
                let (_, old) = st.no_rx_waiters.remove(key);
                self.key = Some(st.no_rx_waiters.push_back((), cx.waker().clone()));
                old
            }
            None => {
                self.key = Some(st.no_rx_waiters.push_back((), cx.waker().clone()));
                None
            }
        };
        drop(st);
        drop(old);
        Poll::Pending
    }
}

impl<T> Drop for NoReceivers<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let (_, waker) = self.shared.lock().no_rx_waiters.remove(key);
            drop(waker);
        }
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests;

// Loom models; without `--cfg tokiwa_loom` they run once as plain tests.
#[cfg(test)]
mod loom_tests;
