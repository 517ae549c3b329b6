//! The broadcast channel's state: a ring of slots, each behind its own
//! lock, and the *tail* (the send position, the receiver count, the
//! closing flag and the parked tasks) behind another.
//!
//! # Locks
//!
//! * `tail: Mutex<Tail>` orders the sends: a sender holds it from choosing
//!   the position to waking the parked receivers. Receivers take it only
//!   when the slot they read does not hold their next value (to tell
//!   "nothing yet" from "overwritten", and to park), and when they come
//!   and go.
//! * each slot's `Mutex<Slot>` guards its value, its position and its
//!   count of receivers still to read it. A receiver clones the value
//!   holding only this lock, so a slow `T::clone` holds up nobody but the
//!   sender that wraps round to that very slot (and the other receivers of
//!   that value): not the other senders, not receivers of other slots.
//!   This is tokio's design (tokio 1.54 also uses a mutex per slot: a
//!   read-write lock would let two receivers use `&T` at once, which needs
//!   `T: Sync`, and the channel is `Sync` for any `T: Send`).
//!
//! The lock order is tail, then one slot. A receiver never holds a slot's
//! lock while it takes the tail's: it drops the slot, locks the tail, and
//! looks at the slot again.
//!
//! # Positions
//!
//! Positions count the values sent (`u64`: they do not wrap in practice;
//! the arithmetic wraps as tokio's does). Slot `i` starts out holding
//! position `i - capacity`, a lap before the first, so "the slot holds my
//! next position" is never true of a slot not yet written. A receiver
//! whose next position `next` is not in its slot finds, under the tail
//! lock, either `next == tail` (nothing new: wait, or `Closed` once every
//! sender is gone) or a slot holding a later lap (its value was
//! overwritten: `Lagged` by the distance to the oldest value still held,
//! which it reads next). These are tokio's lag semantics, unchanged.
//!
//! # What runs outside every lock
//!
//! Wakers are cloned before a lock is taken (a poll that must store a new
//! one releases everything, clones and reads again), and are woken or
//! dropped after; overwritten and fully read values are dropped after the
//! lock is released. Only `T::clone` runs under a lock, its slot's, as in
//! tokio.
use crate::loom::sync::{Mutex, MutexGuard};
use crate::sync::mpsc::waiters::WaitList;
use std::task::Waker;

/// The state shared by every handle of a channel.
pub(super) struct Ring<T> {
    slots: Box<[Mutex<Slot<T>>]>,
    /// Capacity (a power of two) minus one.
    mask: usize,
    tail: Mutex<Tail>,
}

/// What the tail lock guards.
pub(super) struct Tail {
    /// The position the next value is sent to (values sent so far).
    pub(super) pos: u64,
    /// Receivers.
    pub(super) rx_count: usize,
    /// Every sender is gone.
    pub(super) tx_closed: bool,
    /// Receivers waiting for a value.
    pub(super) rx_waiters: WaitList<()>,
    /// `Sender::closed()` futures waiting for the last receiver to go.
    pub(super) no_rx_waiters: WaitList<()>,
}

struct Slot<T> {
    /// The position of the value held (a lap before the first position
    /// until the slot is first written).
    pos: u64,
    /// Receivers that have yet to read it.
    rem: usize,
    /// `None` once every receiver has read it.
    val: Option<T>,
}

/// What a receiver finds at its next position.
pub(super) enum Found<'a, T> {
    /// Its value, still in its slot (see [`Reading`]).
    Value(Reading<'a, T>),
    /// Nothing new; the waker was registered if asked for. The waker it
    /// replaced is to be dropped by the caller.
    Empty(Option<Waker>),
    /// Nothing new, and no sender left.
    Closed,
    /// Overwritten: this many values were missed.
    Lagged(u64),
    /// Nothing new, and a waker must be stored but none was cloned yet:
    /// clone it (no lock is held) and look again.
    CloneWaker,
}

/// A receiver's wish to be woken when its next value arrives.
pub(super) struct Park<'a> {
    /// The receiver's entry in `rx_waiters`, once it has one.
    pub(super) key: &'a mut Option<usize>,
    pub(super) waker: &'a Waker,
    /// A clone of `waker`, made with no lock held, if the caller has one.
    pub(super) fresh: &'a mut Option<Waker>,
}

/// A value being read: its slot stays locked until this is dropped, which
/// counts the read (even when `T::clone` panicked) and lets go of the
/// value after its last reader.
pub(super) struct Reading<'a, T> {
    slot: Option<MutexGuard<'a, Slot<T>>>,
}

impl<T> Reading<'_, T> {
    /// A clone of the value (every receive clones, as in tokio); `None` if
    /// there is no value left, which does not happen while the reading
    /// receiver is counted in the slot.
    pub(super) fn value(&self) -> Option<T>
    where
        T: Clone,
    {
        self.slot.as_ref().and_then(|slot| slot.val.clone())
    }
}

impl<T> Drop for Reading<'_, T> {
    fn drop(&mut self) {
        let Some(mut slot) = self.slot.take() else {
            return;
        };
        slot.rem -= 1;
        let spent = if slot.rem == 0 { slot.val.take() } else { None };
        drop(slot);
        // A value's `Drop` may use the channel: after the lock.
        drop(spent);
    }
}

fn lock<S>(mutex: &Mutex<S>) -> MutexGuard<'_, S> {
    // No user code runs under the tail lock, and a slot's lock is held
    // across `T::clone` only before `Reading` counts the read in its
    // `Drop`, which also runs when the clone panics: the state behind a
    // poisoned lock is consistent.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<T> Ring<T> {
    /// A ring of `capacity` slots (a power of two).
    pub(super) fn new(capacity: usize) -> Ring<T> {
        debug_assert!(capacity.is_power_of_two());
        let slots = (0..capacity)
            .map(|i| {
                Mutex::new(Slot {
                    pos: (i as u64).wrapping_sub(capacity as u64),
                    rem: 0,
                    val: None,
                })
            })
            .collect();
        Ring {
            slots,
            mask: capacity - 1,
            tail: Mutex::new(Tail {
                pos: 0,
                rx_count: 0,
                tx_closed: false,
                rx_waiters: WaitList::new(),
                no_rx_waiters: WaitList::new(),
            }),
        }
    }

    pub(super) fn tail(&self) -> MutexGuard<'_, Tail> {
        lock(&self.tail)
    }

    fn capacity(&self) -> u64 {
        self.slots.len() as u64
    }

    fn slot(&self, pos: u64) -> MutexGuard<'_, Slot<T>> {
        lock(&self.slots[(pos & self.mask as u64) as usize])
    }

    /// Writes `value` at the tail for `tail.rx_count` receivers and moves
    /// the tail on; returns the value it overwrote, to be dropped after the
    /// tail lock is released.
    pub(super) fn push(&self, tail: &mut Tail, value: T) -> Option<T> {
        let pos = tail.pos;
        let mut slot = self.slot(pos);
        slot.pos = pos;
        slot.rem = tail.rx_count;
        let overwritten = slot.val.replace(value);
        drop(slot);
        tail.pos = pos.wrapping_add(1);
        overwritten
    }

    /// Reads position `*next` for a receiver (moving `*next` past what it
    /// finds), registering `park` when there is nothing yet.
    pub(super) fn recv(&self, next: &mut u64, park: Option<Park<'_>>) -> Found<'_, T> {
        let slot = self.slot(*next);
        if slot.pos == *next {
            *next = next.wrapping_add(1);
            return Found::Value(Reading { slot: Some(slot) });
        }
        // Not there (yet): decide under the tail lock, which orders us
        // with the sends.
        drop(slot);
        let mut tail = self.tail();
        if *next == tail.pos {
            if tail.tx_closed {
                return Found::Closed;
            }
            return match park {
                Some(park) => Self::park(&mut tail, park),
                None => Found::Empty(None),
            };
        }
        // Sent since we looked, or overwritten: every position before the
        // tail is written, so the slot (locked again, after the tail)
        // holds ours or a later lap.
        let slot = self.slot(*next);
        if slot.pos == *next {
            drop(tail);
            *next = next.wrapping_add(1);
            return Found::Value(Reading { slot: Some(slot) });
        }
        drop(slot);
        // Overwritten: go on from the oldest value held.
        let oldest = tail.pos.wrapping_sub(self.capacity());
        let missed = oldest.wrapping_sub(*next);
        debug_assert!(missed > 0, "a slot before the tail holds a later lap");
        *next = oldest;
        Found::Lagged(missed)
    }

    /// Stores the receiver's waker in `rx_waiters` (tail lock held).
    fn park<'r>(tail: &mut Tail, park: Park<'_>) -> Found<'r, T> {
        let Park { key, waker, fresh } = park;
        if let Some(k) = *key {
            if tail.rx_waiters.is_queued(k) && tail.rx_waiters.will_wake(k, waker) {
                return Found::Empty(None);
            }
        }
        let Some(new) = fresh.take() else {
            return Found::CloneWaker;
        };
        let old = match *key {
            Some(k) if tail.rx_waiters.is_queued(k) => tail.rx_waiters.set_waker(k, new),
            Some(k) => {
                // Dequeued by a send or the close, yet nothing new for us:
                // queue again.
                let (_, old) = tail.rx_waiters.remove(k);
                *key = Some(tail.rx_waiters.push_back((), new));
                old
            }
            None => {
                *key = Some(tail.rx_waiters.push_back((), new));
                None
            }
        };
        Found::Empty(old)
    }

    /// A receiver at `next` leaves after the tail moved to `until` (its
    /// count already taken off under the tail lock): it counts as having
    /// read every value it had yet to read and that is still held.
    pub(super) fn leave(&self, next: u64, until: u64) {
        let from = next.max(until.saturating_sub(self.capacity()));
        for pos in from..until {
            let slot = self.slot(pos);
            // Otherwise overwritten since (its count no longer includes us).
            if slot.pos == pos {
                drop(Reading { slot: Some(slot) });
            }
        }
    }

    /// Values held that some receiver has yet to read (tail lock held).
    pub(super) fn unread(&self, tail: &Tail) -> usize {
        let oldest = tail.pos.saturating_sub(self.capacity());
        let window = tail.pos - oldest;
        // Each receiver reads in order, so the values still to be read
        // are the newest ones: find the first held position with readers
        // left.
        let (mut lo, mut hi) = (0, window);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.slot(oldest + mid).rem == 0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (window - lo) as usize
    }

    /// Whether the newest value has been read by every receiver (tail lock
    /// held).
    pub(super) fn newest_is_read(&self, tail: &Tail) -> bool {
        match tail.pos.checked_sub(1) {
            Some(newest) => self.slot(newest).rem == 0,
            None => true,
        }
    }
}
