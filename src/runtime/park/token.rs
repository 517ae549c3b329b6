//! The wake token both worker parkers keep: one word, `EMPTY`, `PARKED` or
//! `NOTIFIED`, the flag half of the park / unpark handshake.
//!
//! ```text
//!   worker                                 notifier
//!   ------                                 --------
//!   take(): NOTIFIED → EMPTY? return       make work visible
//!   begin_sleep(): EMPTY → PARKED          notify(): swap(NOTIFIED)
//!     (NOTIFIED? take it, don't sleep)       was PARKED → wake the sleeper
//!   sleep (condvar, or io_uring_enter)       (condvar notify, eventfd write)
//!   end_sleep(): swap(EMPTY)                 was EMPTY/NOTIFIED → nothing
//! ```
//!
//! **No lost wakeup.** A notifier that runs before the worker's
//! `EMPTY → PARKED` leaves `NOTIFIED`, which the transition finds; one that
//! runs after it sees `PARKED` and must wake the sleeper by the parker's own
//! means, which each parker makes safe against the window between the
//! transition and the sleep (the condvar parker holds its mutex across it;
//! the ring parker's eventfd edge stays queued as a completion).
//!
//! **Coalescing.** Only the notifier that finds `PARKED` wakes the sleeper:
//! waking a busy worker costs one atomic swap.
//!
//! SeqCst on every access: the word is the flag half of the announce /
//! re-check handshake with the scheduler's queues (the notifier makes work
//! visible, then swaps; the worker transitions, then its caller has
//! re-checked the queues), so these accesses must be in one total order
//! with the queues' own SeqCst accesses.
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};

const EMPTY: usize = 0;
const PARKED: usize = 1;
const NOTIFIED: usize = 2;

/// One worker's wake token.
#[derive(Debug)]
pub(crate) struct WakeToken {
    state: AtomicUsize,
}

impl WakeToken {
    pub(crate) fn new() -> WakeToken {
        WakeToken {
            state: AtomicUsize::new(EMPTY),
        }
    }

    /// The worker: consumes a pending notification, if there is one.
    pub(crate) fn take(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
            .is_ok()
    }

    /// The worker, about to sleep: `true` when it may (now `PARKED`);
    /// `false` when a notification arrived since [`WakeToken::take`],
    /// which this consumes.
    pub(crate) fn begin_sleep(&self) -> bool {
        match self.state.compare_exchange(EMPTY, PARKED, SeqCst, SeqCst) {
            Ok(_) => true,
            Err(NOTIFIED) => {
                self.state.swap(EMPTY, SeqCst);
                false
            }
            Err(actual) => panic!("inconsistent park state: {actual}"),
        }
    }

    /// The worker, awake again (notified, timed out, or spurious): leaves
    /// `PARKED`. Returns whether a notification arrived meanwhile (it is
    /// consumed).
    pub(crate) fn end_sleep(&self) -> bool {
        self.state.swap(EMPTY, SeqCst) == NOTIFIED
    }

    /// Whether the worker sleeps (a hint: stale as soon as it is read).
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) fn is_parked(&self) -> bool {
        self.state.load(SeqCst) == PARKED
    }

    /// The notifier: leaves a notification. Returns whether the worker was
    /// asleep, in which case the caller must wake it.
    pub(crate) fn notify(&self) -> bool {
        match self.state.swap(NOTIFIED, SeqCst) {
            PARKED => true,
            EMPTY | NOTIFIED => false,
            actual => panic!("inconsistent park state: {actual}"),
        }
    }
}
