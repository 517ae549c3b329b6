//! A timer's registration: the part of a `Sleep` that a wheel points to.
//!
//! A [`TimerEntry`] lives inside its (pinned) `Sleep`, so registering
//! allocates nothing beyond the wheel's slab node, which holds the exact
//! deadline and an [`EntryPtr`] to the entry's [`EntryShared`]: its state
//! byte and its waker slot. The owner (whoever holds `Pin<&mut Sleep>`)
//! and the thread processing the wheel share those two; everything else
//! (which wheel, which slab key) is the owner's alone.
//!
//! # States
//!
//! | state        | in a wheel | who may touch `EntryShared`                 |
//! |--------------|------------|---------------------------------------------|
//! | `IDLE`       | no         | the owner                                   |
//! | `REGISTERED` | yes        | the owner; the wheel's holder, under its lock |
//! | `FIRED`      | no         | the owner; the wheel's holder until it unlocks |
//! | `DONE`       | no         | the owner                                   |
//!
//! * `IDLE`: never armed, or disarmed by `Interval` (`clear`).
//! * `REGISTERED` → `FIRED`: only by the wheel's processing (or shutdown),
//!   under the wheel's lock and the waker slot's lock: it takes the waker
//!   and publishes `FIRED` before it releases the slot, so a poll that
//!   stores a waker either finds `FIRED` or has its waker taken.
//! * `DONE`: elapsed without the wheel's help (armed with a deadline
//!   already past), or fired and then settled by the owner under the lock.
//! * Every other transition is the owner's. Leaving `REGISTERED` or
//!   `FIRED` (reset, clear, drop) takes the wheel's lock first.
//!
//! # Safety
//!
//! The wheel stores a raw pointer to `EntryShared`. It stays valid because
//! the entry is pinned (it does not move while registered) and because
//! dropping it takes the wheel's lock whenever the state is `REGISTERED`
//! or `FIRED`: by then the entry is out of the wheel, and any thread that
//! fired it has released the lock, so nobody uses the pointer after the
//! memory goes away. A leaked (`mem::forget`) pinned `Sleep` never frees
//! its memory, which pinning guarantees.
use super::driver::TimeHandle;
use super::wheel::Key;
use super::Instant;
use crate::loom::sync::atomic::{AtomicU8, Ordering};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::runtime::scheduler;
use std::fmt;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

const IDLE: u8 = 0;
const REGISTERED: u8 = 1;
const FIRED: u8 = 2;
const DONE: u8 = 3;

/// Polling a timer whose runtime has shut down.
const SHUTTING_DOWN: &str = "A Tokio 1.x context was found, but it is being shutdown.";

// Orderings on `state`: stores `Release`, loads `Acquire`. Each transition
// that memory safety depends on is also ordered by a lock (the wheel's, or
// the waker slot's for `FIRED`); the atomic lets the owner's fast paths
// (already elapsed, never registered) skip those locks, and a `FIRED` seen
// without a lock then carries the firing thread's writes with it.

/// The timer of one `Sleep`.
pub(crate) struct TimerEntry {
    /// The runtime whose driver the timer uses.
    handle: scheduler::Handle,
    shared: EntryShared,
    /// The wheel it is in (meaningful while `REGISTERED` or `FIRED`).
    wheel: usize,
    /// Its slab key there (meaningful while `REGISTERED`).
    key: Key,
    _pinned: PhantomPinned,
}

/// What the wheel's processing touches, through an [`EntryPtr`].
pub(crate) struct EntryShared {
    state: AtomicU8,
    waker: Mutex<Option<Waker>>,
}

/// A pointer to a registered entry, stored in a wheel.
#[derive(Clone, Copy)]
pub(crate) struct EntryPtr(NonNull<EntryShared>);

// SAFETY: `EntryShared` is `Sync` (an atomic and a mutex), and the pointer
// is only dereferenced under the wheel's lock while the entry is alive (see
// the module's safety notes), whichever thread holds it.
unsafe impl Send for EntryPtr {}

impl EntryPtr {
    /// Marks the entry fired and takes its waker.
    ///
    /// # Safety
    ///
    /// The entry was in a wheel until now (state `REGISTERED`) and that
    /// wheel's lock is held.
    pub(crate) unsafe fn fire(self) -> Option<Waker> {
        // SAFETY: a registered entry is alive while its wheel's lock is
        // held (the owner takes the lock before dropping it).
        let shared = unsafe { self.0.as_ref() };
        let mut slot = shared.lock_waker();
        debug_assert_eq!(shared.state.load(Ordering::Acquire), REGISTERED);
        shared.state.store(FIRED, Ordering::Release);
        slot.take()
    }
}

impl EntryShared {
    /// The waker slot. Poison is ignored: the slot's contents stay valid
    /// whatever panicked (a user's `Waker::clone`).
    fn lock_waker(&self) -> MutexGuard<'_, Option<Waker>> {
        self.waker.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    fn set_state(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// Polling a registered entry: ready if it fired, else leaves `waker`
    /// in the slot.
    fn poll_registered(&self, waker: &Waker) -> Poll<()> {
        let mut slot = self.lock_waker();
        // Under the slot's lock, which `fire` holds while it publishes.
        if self.state() == FIRED {
            return Poll::Ready(());
        }
        let old = match &*slot {
            Some(current) if current.will_wake(waker) => None,
            _ => slot.replace(waker.clone()),
        };
        drop(slot);
        // Dropped outside the lock: a waker's destructor may drop timers.
        drop(old);
        Poll::Pending
    }
}

impl TimerEntry {
    /// An unarmed timer of `handle`'s runtime, which must have timers.
    pub(crate) fn new(handle: scheduler::Handle) -> TimerEntry {
        TimerEntry {
            handle,
            shared: EntryShared {
                state: AtomicU8::new(IDLE),
                waker: Mutex::new(None),
            },
            wheel: 0,
            key: 0,
            _pinned: PhantomPinned,
        }
    }

    fn time(&self) -> &TimeHandle {
        self.handle.driver().time()
    }

    /// The pinned entry's fields.
    fn fields(self: Pin<&mut Self>) -> &mut TimerEntry {
        // SAFETY: nothing moves out of the entry through this reference:
        // callers only read and assign the plain fields and use `shared`
        // in place, so its address (which the wheel holds) stays put.
        unsafe { self.get_unchecked_mut() }
    }

    /// Whether the timer has elapsed (fired, or found past when armed).
    pub(crate) fn is_elapsed(&self) -> bool {
        matches!(self.shared.state(), FIRED | DONE)
    }

    /// Ready once `deadline` has passed; arms the timer on the first poll.
    ///
    /// # Panics
    ///
    /// With tokio's message when the runtime has shut down.
    pub(crate) fn poll_elapsed(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        deadline: Instant,
    ) -> Poll<()> {
        let this = self.fields();
        let time = this.time();
        let elapsed = matches!(this.shared.state(), FIRED | DONE);
        assert!(
            !time.is_shutdown() || (elapsed && time.fired_ready_after_shutdown()),
            "{}",
            SHUTTING_DOWN
        );
        match this.shared.state() {
            FIRED | DONE => Poll::Ready(()),
            REGISTERED => this.shared.poll_registered(cx.waker()),
            _ => {
                let deadline = time.to_ns(deadline);
                if deadline <= time.now_ns() {
                    this.shared.set_state(DONE);
                    return Poll::Ready(());
                }
                // Nothing refers to an idle entry: the waker goes in first,
                // so it is there when the timer can fire.
                let old = this.shared.lock_waker().replace(cx.waker().clone());
                drop(old);
                assert!(this.arm(deadline), "{}", SHUTTING_DOWN);
                Poll::Pending
            }
        }
    }

    /// Moves the deadline: the timer fires at `deadline` (at once, waking
    /// its waker, if that has passed).
    pub(crate) fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let this = self.fields();
        // Borrows the `handle` field only: `key` is assigned below.
        let time = this.handle.driver().time();
        let deadline = time.to_ns(deadline);
        let past = deadline <= time.now_ns();
        match this.shared.state() {
            IDLE | DONE => {
                if past {
                    this.shared.set_state(DONE);
                } else {
                    // After shutdown the entry stays out (`DONE`); the
                    // next poll panics.
                    this.arm(deadline);
                }
            }
            _ => {
                let mut wake = None;
                let ptr = this.ptr();
                let mut wheel = time.lock(this.wheel);
                // Re-read under the lock: the wheel may have fired it.
                let registered = this.shared.state() == REGISTERED;
                if past {
                    if registered {
                        wheel.remove(this.key);
                        wake = this.shared.lock_waker().take();
                    }
                    this.shared.set_state(DONE);
                } else if registered {
                    wheel.reset(this.key, deadline);
                } else {
                    match wheel.insert(deadline, ptr) {
                        Some(key) => {
                            this.key = key;
                            this.shared.set_state(REGISTERED);
                        }
                        None => this.shared.set_state(DONE),
                    }
                }
                drop(wheel);
                if let Some(waker) = wake {
                    waker.wake();
                }
            }
        }
    }

    /// Disarms the timer (`Interval` re-arms it on its next poll).
    pub(crate) fn clear(self: Pin<&mut Self>) {
        let this = self.fields();
        let state = this.shared.state();
        if state == IDLE || state == DONE {
            this.shared.set_state(IDLE);
            return;
        }
        let mut wheel = this.time().lock(this.wheel);
        if this.shared.state() == REGISTERED {
            wheel.remove(this.key);
        }
        this.shared.set_state(IDLE);
        let old = this.shared.lock_waker().take();
        drop(wheel);
        drop(old);
    }

    /// Puts an entry that is in no wheel into one (the current worker's).
    /// Returns `false` if the driver is shut down (the entry is then
    /// `DONE`).
    fn arm(&mut self, deadline: u64) -> bool {
        let time = self.handle.driver().time();
        let index = time.pick_wheel();
        let ptr = self.ptr();
        let mut wheel = time.lock(index);
        // The state changes under the lock: the wheel may fire the entry
        // as soon as the lock is released.
        match wheel.insert(deadline, ptr) {
            Some(key) => {
                self.wheel = index;
                self.key = key;
                self.shared.set_state(REGISTERED);
                true
            }
            None => {
                self.shared.set_state(DONE);
                false
            }
        }
    }

    fn ptr(&self) -> EntryPtr {
        EntryPtr(NonNull::from(&self.shared))
    }
}

impl Drop for TimerEntry {
    fn drop(&mut self) {
        let state = self.shared.state();
        if state != REGISTERED && state != FIRED {
            return;
        }
        // The wheel may hold or be using the pointer: take its lock (see
        // the module's safety notes) and leave it. (A registered entry's
        // runtime has timers; `time_opt` only keeps a destructor from ever
        // panicking.)
        let Some(time) = self.handle.driver().time_opt() else {
            return;
        };
        let mut wheel = time.lock(self.wheel);
        if self.shared.state() == REGISTERED {
            wheel.remove(self.key);
        }
        self.shared.set_state(DONE);
        drop(wheel);
        // The waker, if any, drops with the entry, after the lock.
    }
}

impl fmt::Debug for TimerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerEntry")
            .field("elapsed", &self.is_elapsed())
            .finish_non_exhaustive()
    }
}
