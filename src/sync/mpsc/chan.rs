//! The state both mpsc flavours share: a queue, the receiver's waker, the
//! closing flags and, for a bounded channel, its capacity as permits.
//!
//! # Design
//!
//! Everything that must change together lives in one [`State`] behind one
//! mutex: pushing a value and taking the receiver's waker, the receiver
//! finding the queue empty and registering its waker, the last sender
//! marking the channel closed. A lost wakeup would need a sender to push
//! between the receiver's check and its registration, which the lock
//! rules out; the loom models in `loom_tests.rs` check exactly these races
//! on this code. Wakers are always cloned before the lock is taken, and
//! woken or dropped, like values, after it is released: a waker may run
//! arbitrary code (or panic), and a value may hold a sender of this very
//! channel whose drop takes the lock. A poll that must store a new waker
//! therefore releases the lock, clones, and looks again (see
//! [`register`]): nothing it had been given is at stake while the clone
//! runs, so a clone that panics loses nothing.
//!
//! The queue is a FIFO of fixed blocks (`block_queue.rs`), which gives
//! back the memory of a burst once it is received.
//!
//! Only the sender counts live outside the lock, as atomics, so that
//! `Clone`, `strong_count` and `WeakSender::upgrade` (a compare-and-swap
//! that refuses to revive a count that reached zero) take no lock. The
//! sender that brings the count to zero then takes the lock to mark the
//! channel closed and wake the receiver.
//!
//! # Capacity (bounded channels)
//!
//! A bounded channel of capacity `n` starts with `n` permits. Sending
//! first acquires one (`reserve`), the queued value holds it, and
//! receiving the value gives it back. Senders that find no permit wait in
//! a FIFO ([`WaitList`]); released permits go to the head of the FIFO
//! first, possibly a part at a time for a sender that asked for several
//! (`reserve_many`), so a large request is not overtaken forever by small
//! ones. A waiting sender that is cancelled gives back what it had been
//! assigned.
//!
//! # Closing
//!
//! The receiver closes the channel by `close()` or by being dropped: from
//! then on no permit is handed out and no value accepted, except from
//! permits already held, which may still send (tokio's rule). The receiver
//! therefore reports the end of the stream (`None`) once the queue is
//! empty and either every sender is gone or, after a close, every permit
//! has come back.
use super::block_queue::BlockQueue;
use super::waiters::WaitList;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::sync::budget as coop;
use std::fmt;
use std::mem;
use std::task::{ready, Context, Poll, Waker};

/// The most permits a bounded channel may have (tokio's
/// `Semaphore::MAX_PERMITS`).
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

/// The channel: shared by every sender, weak sender and the receiver.
pub(crate) struct Chan<T> {
    state: Mutex<State<T>>,
    /// Senders (including those inside `OwnedPermit`s).
    tx_count: AtomicUsize,
    /// Weak senders.
    weak_count: AtomicUsize,
    /// The capacity of a bounded channel; `None` for an unbounded one.
    bound: Option<usize>,
}

struct State<T> {
    queue: BlockQueue<T>,
    /// The receiver's waker while it waits for a value or the end.
    rx_waker: Option<Waker>,
    /// Every sender is gone.
    tx_closed: bool,
    /// The receiver called `close()` or was dropped.
    rx_closed: bool,
    /// The receiver was dropped: values sent with outstanding permits are
    /// dropped at once instead of queued.
    rx_dropped: bool,
    /// Free permits (bounded channels only).
    permits: usize,
    /// Senders waiting for permits, in arrival order.
    send_waiters: WaitList<Reservation>,
    /// `Sender::closed()` futures waiting for the receiver to close.
    closed_waiters: WaitList<()>,
}

/// What a waiting sender asked for and what it has been given so far.
#[derive(Debug)]
struct Reservation {
    need: usize,
    assigned: usize,
}

/// The channel is closed (the receiver closed it, for senders; every
/// sender is gone, for the receiver).
#[derive(Debug)]
pub(crate) struct Closed;

/// Why `try_acquire` failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TryAcquireError {
    Closed,
    NoPermits,
}

/// Why `try_recv` failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TryRecvError {
    Empty,
    Disconnected,
}

fn wake_all(wakers: Vec<Waker>) {
    for waker in wakers {
        waker.wake();
    }
}

impl<T> Chan<T> {
    /// A channel with one sender; `bound` is the capacity of a bounded one.
    pub(crate) fn new(bound: Option<usize>) -> Arc<Chan<T>> {
        Arc::new(Chan {
            state: Mutex::new(State {
                queue: BlockQueue::new(),
                rx_waker: None,
                tx_closed: false,
                rx_closed: false,
                rx_dropped: false,
                permits: bound.unwrap_or(0),
                send_waiters: WaitList::new(),
                closed_waiters: WaitList::new(),
            }),
            tx_count: AtomicUsize::new(1),
            weak_count: AtomicUsize::new(0),
            bound,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // No user code runs under the lock, so a panic cannot leave the
        // state half-updated; a poisoned lock is still consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn bound(&self) -> Option<usize> {
        self.bound
    }

    // ----- sender counts -------------------------------------------------

    /// A new sender next to an existing one.
    pub(crate) fn add_sender(&self) {
        // Relaxed: the caller holds a sender, so the count cannot reach
        // zero concurrently; nothing else is published by the increment.
        self.tx_count.fetch_add(1, Ordering::Relaxed);
    }

    /// A new sender from a weak one, unless every sender is gone already
    /// (a closed channel is never reopened).
    pub(crate) fn try_add_sender(&self) -> bool {
        let mut count = self.tx_count.load(Ordering::Relaxed);
        loop {
            if count == 0 {
                return false;
            }
            // Relaxed: the count itself is the only data; the closing of
            // the channel is published through the lock, not this word.
            match self.tx_count.compare_exchange_weak(
                count,
                count + 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(actual) => count = actual,
            }
        }
    }

    /// A sender is dropped; the last one closes the channel.
    pub(crate) fn drop_sender(&self) {
        // AcqRel: the last sender's decrement is ordered after every other
        // sender's, as with `Arc`; the closing itself happens under the lock.
        if self.tx_count.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let mut st = self.lock();
        st.tx_closed = true;
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    pub(crate) fn strong_count(&self) -> usize {
        self.tx_count.load(Ordering::SeqCst)
    }

    pub(crate) fn add_weak(&self) {
        // Relaxed: a plain statistic; the `Arc` keeps the channel alive.
        self.weak_count.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn drop_weak(&self) {
        // Relaxed: a plain statistic, as above.
        self.weak_count.fetch_sub(1, Ordering::Relaxed);
    }

    pub(crate) fn weak_count(&self) -> usize {
        self.weak_count.load(Ordering::SeqCst)
    }

    // ----- sending -------------------------------------------------------

    /// Sends without a permit (unbounded channels): refused once the
    /// receiver has closed the channel.
    pub(crate) fn send_unbounded(&self, value: T) -> Result<(), T> {
        let mut st = self.lock();
        if st.rx_closed {
            return Err(value);
        }
        st.queue.push_back(value);
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Sends with a permit the caller holds (bounded channels). The value
    /// is queued even after `close()` (a held permit may still send); after
    /// the receiver is dropped it is dropped here and the permit returned.
    pub(crate) fn send_with_permit(&self, value: T) {
        let mut st = self.lock();
        if st.rx_dropped {
            let mut wakers = Vec::new();
            self.release_locked(&mut st, 1, &mut wakers);
            drop(st);
            wake_all(wakers);
            drop(value);
            return;
        }
        st.queue.push_back(value);
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Sends through a bounded channel if a permit is free right now,
    /// taking the permit and queuing the value under one lock.
    pub(crate) fn try_send_bounded(&self, value: T) -> Result<(), (TryAcquireError, T)> {
        let mut st = self.lock();
        if st.rx_closed {
            return Err((TryAcquireError::Closed, value));
        }
        if !st.send_waiters.is_empty() || st.permits == 0 {
            return Err((TryAcquireError::NoPermits, value));
        }
        st.permits -= 1;
        st.queue.push_back(value);
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Takes `n` permits if they are free and nobody waits before us.
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut st = self.lock();
        if st.rx_closed {
            return Err(TryAcquireError::Closed);
        }
        // Nothing asked for: nobody to wait behind.
        if n == 0 || (st.send_waiters.is_empty() && st.permits >= n) {
            st.permits -= n;
            Ok(())
        } else {
            Err(TryAcquireError::NoPermits)
        }
    }

    /// Waits for `n` permits (see [`Acquire`]).
    pub(crate) fn acquire(&self, n: usize) -> Acquire<'_, T> {
        Acquire {
            chan: self,
            need: n,
            key: None,
        }
    }

    /// Gives back permits that were not used to send.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut wakers = Vec::new();
        let mut st = self.lock();
        self.release_locked(&mut st, n, &mut wakers);
        drop(st);
        wake_all(wakers);
    }

    /// Returns `n` permits: to the waiting senders in FIFO order while the
    /// channel is open; after a close, to the pool, waking the receiver
    /// once every permit is back (it waits for that to report the end).
    fn release_locked(&self, st: &mut State<T>, n: usize, wakers: &mut Vec<Waker>) {
        let Some(bound) = self.bound else { return };
        st.permits += n;
        if st.rx_closed {
            if st.permits == bound && st.queue.is_empty() {
                wakers.extend(st.rx_waker.take());
            }
            return;
        }
        while let Some(key) = st.send_waiters.front() {
            let wanted = st.send_waiters.data_mut(key);
            let give = (wanted.need - wanted.assigned).min(st.permits);
            wanted.assigned += give;
            st.permits -= give;
            if wanted.assigned < wanted.need {
                break;
            }
            wakers.extend(st.send_waiters.dequeue(key));
        }
    }

    /// Free permits (the channel's current capacity).
    pub(crate) fn available_permits(&self) -> usize {
        self.lock().permits
    }

    /// Whether the receiver has closed the channel (senders' view).
    pub(crate) fn is_rx_closed(&self) -> bool {
        self.lock().rx_closed
    }

    /// Waits until the receiver closes the channel (see [`RxClosed`]).
    pub(crate) fn rx_closed(&self) -> RxClosed<'_, T> {
        RxClosed {
            chan: self,
            key: None,
        }
    }

    // ----- receiving -----------------------------------------------------

    /// Whether the receiver has seen the end: nothing queued, and either
    /// no sender left or, after a close, no permit outstanding.
    fn is_finished(&self, st: &State<T>) -> bool {
        st.queue.is_empty()
            && (st.tx_closed || (st.rx_closed && self.bound.is_none_or(|b| st.permits == b)))
    }

    /// Receives one value, or `None` at the end.
    pub(crate) fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(coop::poll_proceed(cx));
        // This task's waker, cloned with the lock released (see `register`).
        let mut fresh = None;
        loop {
            let mut st = self.lock();
            if let Some(value) = st.queue.pop_front() {
                let mut wakers = Vec::new();
                self.release_locked(&mut st, 1, &mut wakers);
                drop(st);
                wake_all(wakers);
                coop.made_progress();
                return Poll::Ready(Some(value));
            }
            if self.is_finished(&st) {
                coop.made_progress();
                return Poll::Ready(None);
            }
            match register(&mut st.rx_waker, cx.waker(), &mut fresh) {
                Registered::Done(old) => {
                    drop(st);
                    drop(old);
                    return Poll::Pending;
                }
                Registered::CloneFirst => {
                    drop(st);
                    fresh = Some(cx.waker().clone());
                }
            }
        }
    }

    /// Receives up to `limit` values into `buffer`; 0 at the end (or when
    /// `limit` is 0).
    pub(crate) fn poll_recv_many(
        &self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        let coop = ready!(coop::poll_proceed(cx));
        let mut fresh = None;
        loop {
            let mut st = self.lock();
            let n = st.queue.pop_into(buffer, limit);
            if n > 0 {
                let mut wakers = Vec::new();
                self.release_locked(&mut st, n, &mut wakers);
                drop(st);
                wake_all(wakers);
                coop.made_progress();
                return Poll::Ready(n);
            }
            if self.is_finished(&st) {
                coop.made_progress();
                return Poll::Ready(0);
            }
            match register(&mut st.rx_waker, cx.waker(), &mut fresh) {
                Registered::Done(old) => {
                    drop(st);
                    drop(old);
                    return Poll::Pending;
                }
                Registered::CloneFirst => {
                    drop(st);
                    fresh = Some(cx.waker().clone());
                }
            }
        }
    }

    /// Receives one value without waiting.
    pub(crate) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut st = self.lock();
        if let Some(value) = st.queue.pop_front() {
            let mut wakers = Vec::new();
            self.release_locked(&mut st, 1, &mut wakers);
            drop(st);
            wake_all(wakers);
            return Ok(value);
        }
        if self.is_finished(&st) {
            Err(TryRecvError::Disconnected)
        } else {
            Err(TryRecvError::Empty)
        }
    }

    /// The receiver closes the channel: waiting senders fail, `closed()`
    /// futures complete, queued values stay to be received.
    pub(crate) fn close_rx(&self) {
        let mut wakers = Vec::new();
        let mut st = self.lock();
        self.close_locked(&mut st, &mut wakers);
        drop(st);
        wake_all(wakers);
    }

    fn close_locked(&self, st: &mut State<T>, wakers: &mut Vec<Waker>) {
        st.rx_closed = true;
        st.send_waiters.dequeue_all(wakers);
        st.closed_waiters.dequeue_all(wakers);
    }

    /// The receiver is dropped: close, and drop what is queued.
    pub(crate) fn drop_rx(&self) {
        let mut wakers = Vec::new();
        let mut st = self.lock();
        self.close_locked(&mut st, &mut wakers);
        st.rx_dropped = true;
        let own_waker = st.rx_waker.take();
        let values = mem::take(&mut st.queue);
        self.release_locked(&mut st, values.len(), &mut wakers);
        drop(st);
        wake_all(wakers);
        drop(own_waker);
        drop(values);
    }

    /// The receiver's view of closing: closed by it, or no sender left.
    pub(crate) fn is_closed_for_rx(&self) -> bool {
        let st = self.lock();
        st.rx_closed || st.tx_closed
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().queue.len()
    }
}

/// What [`register`] did.
enum Registered {
    /// The waker is stored; the replaced one, if any, is to be dropped
    /// after the lock is released.
    Done(Option<Waker>),
    /// A new waker must be stored, and none was cloned yet: release the
    /// lock, clone the task's waker into `fresh`, and poll again.
    CloneFirst,
}

/// Makes `slot` wake the task that `waker` wakes, with `fresh` (a clone of
/// `waker` made with the lock released, if the caller has one yet). A
/// waker already in the slot for that task is kept, and nothing is cloned.
fn register(slot: &mut Option<Waker>, waker: &Waker, fresh: &mut Option<Waker>) -> Registered {
    if slot.as_ref().is_some_and(|old| old.will_wake(waker)) {
        return Registered::Done(None);
    }
    match fresh.take() {
        Some(new) => Registered::Done(slot.replace(new)),
        None => Registered::CloneFirst,
    }
}

impl<T> fmt::Debug for Chan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.lock();
        f.debug_struct("Chan")
            .field("len", &st.queue.len())
            .field("bound", &self.bound)
            .field("permits", &st.permits)
            .field("tx_closed", &st.tx_closed)
            .field("rx_closed", &st.rx_closed)
            .field("tx_count", &self.tx_count)
            .finish()
    }
}

/// Future of [`Chan::acquire`]: `need` permits, in FIFO order with the
/// other waiting senders, or `Err(Closed)` once the receiver closes.
///
/// While it waits it owns an entry in the sender FIFO; dropping it removes
/// the entry and gives back the permits already assigned to it.
pub(crate) struct Acquire<'a, T> {
    chan: &'a Chan<T>,
    need: usize,
    key: Option<usize>,
}

impl<T> std::future::Future for Acquire<'_, T> {
    type Output = Result<(), Closed>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = ready!(coop::poll_proceed(cx));
        let chan = self.chan;
        // This task's waker, cloned with the lock released: a clone that
        // panics then leaves nothing half-done (no permit taken yet).
        let mut fresh = None;
        loop {
            let mut st = chan.lock();
            let Some(key) = self.key else {
                if st.rx_closed {
                    coop.made_progress();
                    return Poll::Ready(Err(Closed));
                }
                if self.need == 0 || (st.send_waiters.is_empty() && st.permits >= self.need) {
                    st.permits -= self.need;
                    coop.made_progress();
                    return Poll::Ready(Ok(()));
                }
                let Some(waker) = fresh.take() else {
                    drop(st);
                    fresh = Some(cx.waker().clone());
                    continue;
                };
                // Queue up, taking what is free if nobody is ahead of us.
                let assigned = if st.send_waiters.is_empty() {
                    mem::take(&mut st.permits)
                } else {
                    0
                };
                let reservation = Reservation {
                    need: self.need,
                    assigned,
                };
                self.key = Some(st.send_waiters.push_back(reservation, waker));
                return Poll::Pending;
            };
            if st.send_waiters.is_queued(key) {
                if st.send_waiters.will_wake(key, cx.waker()) {
                    return Poll::Pending;
                }
                let Some(waker) = fresh.take() else {
                    drop(st);
                    fresh = Some(cx.waker().clone());
                    continue;
                };
                let old = st.send_waiters.set_waker(key, waker);
                drop(st);
                drop(old);
                return Poll::Pending;
            }
            // Dequeued: either served in full, or woken by the close.
            // (Dequeuing took its waker: nothing to drop after the lock.)
            self.key = None;
            let (reservation, _no_waker) = st.send_waiters.remove(key);
            coop.made_progress();
            // Served but closed before this poll saw it: the reservation
            // fails (as tokio's does) and its permits go back below, which
            // wakes a receiver waiting for the last permits of a closed
            // channel.
            if reservation.assigned == reservation.need && !st.rx_closed {
                return Poll::Ready(Ok(()));
            }
            let mut wakers = Vec::new();
            chan.release_locked(&mut st, reservation.assigned, &mut wakers);
            drop(st);
            wake_all(wakers);
            return Poll::Ready(Err(Closed));
        }
    }
}

impl<T> Drop for Acquire<'_, T> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut wakers = Vec::new();
        let mut st = self.chan.lock();
        let (reservation, waker) = st.send_waiters.remove(key);
        self.chan
            .release_locked(&mut st, reservation.assigned, &mut wakers);
        drop(st);
        wake_all(wakers);
        drop(waker);
    }
}

/// Future of [`Chan::rx_closed`]: completes once the receiver has closed
/// the channel.
pub(crate) struct RxClosed<'a, T> {
    chan: &'a Chan<T>,
    key: Option<usize>,
}

impl<T> std::future::Future for RxClosed<'_, T> {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let chan = self.chan;
        let mut fresh = None;
        loop {
            let mut st = chan.lock();
            if st.rx_closed {
                let waker = self
                    .key
                    .take()
                    .and_then(|key| st.closed_waiters.remove(key).1);
                drop(st);
                drop(waker);
                return Poll::Ready(());
            }
            if let Some(key) = self.key {
                if st.closed_waiters.will_wake(key, cx.waker()) {
                    return Poll::Pending;
                }
            }
            let Some(waker) = fresh.take() else {
                drop(st);
                fresh = Some(cx.waker().clone());
                continue;
            };
            let old = match self.key {
                Some(key) => st.closed_waiters.set_waker(key, waker),
                None => {
                    self.key = Some(st.closed_waiters.push_back((), waker));
                    None
                }
            };
            drop(st);
            drop(old);
            return Poll::Pending;
        }
    }
}

impl<T> Drop for RxClosed<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let (_, waker) = self.chan.lock().closed_waiters.remove(key);
            drop(waker);
        }
    }
}
