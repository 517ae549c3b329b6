//! The wake protocol of the io_uring driver, apart from the ring.
//!
//! In io_uring mode a worker sleeps *in the kernel*, inside
//! `io_uring_enter(GETEVENTS)` on its own ring, so that a completion and a
//! wakeup end the same wait. Other threads wake it by writing an eventfd on
//! which the ring holds a multishot `PollAdd`: each write is an edge, the
//! edge posts a completion, the completion ends the wait.
//!
//! ```text
//!   notifier                           worker (owns the ring)
//!   --------                           ----------------------
//!   make work visible                  announce parked, re-check queues
//!   swap(state, NOTIFIED) ─┐           cas(state, EMPTY → PARKED)
//!     was PARKED?          │             (NOTIFIED? take it, don't sleep)
//!       write(eventfd) ────┼──edge──▶  io_uring_enter(GETEVENTS, 1, timeout)
//!     was EMPTY/NOTIFIED:  │           swap(state, EMPTY)
//!       nothing (coalesced)┘           drain the CQ; a wake CQE without
//!                                        F_MORE re-arms the poll
//! ```
//!
//! **No lost wakeup.** The state word is the wake token of `token.rs`, the
//! flag half of the handshake, shared with the condvar parker: a notifier that runs before the worker's
//! `EMPTY → PARKED` leaves `NOTIFIED`, which the worker finds; one that runs
//! after it sees `PARKED` and writes the eventfd. That write cannot be lost
//! either: if it lands before the worker enters the kernel, the poll's
//! completion is already queued (with `DEFER_TASKRUN`, as task work that
//! the worker's own `GETEVENTS` runs), and a wait for one completion
//! returns at once while any completion sits unreaped in the CQ.
//!
//! **Coalescing.** Only the notifier that moves `PARKED → NOTIFIED` writes:
//! one eventfd write per sleep, however many threads notify.
//!
//! **The multishot can end.** The kernel may terminate a multishot poll
//! (its final CQE has no `F_MORE`, e.g. after a completion-queue overflow).
//! That final CQE itself ends the wait; [`WakePoll::on_cqe`] then asks for a
//! re-arm, which is pushed before the worker can wait again (the next wait
//! submits it first). An error CQE is a fault that would leave the worker
//! deaf, so it panics with the errno and the worker id instead of sleeping.
//!
//! The ring itself is behind [`WakeRing`], so the loom model
//! (`loom_tests/ring_wake.rs`) runs this exact code against a condvar fake
//! with the eventfd's edge and coalescing semantics.
use super::token::WakeToken;
use std::time::Duration;

/// What a parked worker's ring must do for the protocol.
pub(crate) trait WakeRing {
    /// Submits what is queued and blocks until at least one completion is
    /// in the CQ (already there: returns at once) or `timeout` passes.
    fn wait(&mut self, timeout: Option<Duration>);
}

/// Writes the eventfd (the notifier's half of the edge).
pub(crate) trait WakeSignal {
    fn signal(&self);
}

/// The shared word of one worker: `EMPTY`, `PARKED` (asleep in the ring,
/// must be signalled) or `NOTIFIED` (a token the next park consumes).
#[derive(Debug)]
pub(crate) struct WakeState {
    token: WakeToken,
}

/// What a notification did (for the metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Notify {
    /// The worker slept: the eventfd was written.
    Signalled,
    /// Awake, or already notified: no write needed.
    Coalesced,
}

impl WakeState {
    pub(crate) fn new() -> WakeState {
        WakeState {
            token: WakeToken::new(),
        }
    }

    /// Whether the worker sleeps in its ring (a hint).
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) fn is_parked(&self) -> bool {
        self.token.is_parked()
    }

    /// The notifier's side: only the notifier that finds the worker
    /// asleep writes the eventfd.
    pub(crate) fn unpark(&self, signal: &impl WakeSignal) -> Notify {
        if self.token.notify() {
            signal.signal();
            Notify::Signalled
        } else {
            Notify::Coalesced
        }
    }

    /// The worker's side: blocks in `ring` until notified, a completion
    /// arrives or `timeout` passes. `Some(ZERO)` only consumes a pending
    /// token. Returns whether a notification was consumed.
    pub(crate) fn park(&self, ring: &mut impl WakeRing, timeout: Option<Duration>) -> bool {
        if self.token.take() {
            return true;
        }
        if timeout == Some(Duration::ZERO) {
            return false;
        }
        if !self.token.begin_sleep() {
            return true;
        }
        ring.wait(timeout);
        // Woken, timed out, or a completion: leave `PARKED` either way. A
        // notifier that wrote the eventfd meanwhile left a wake CQE that the
        // next drain consumes (at worst one spurious return later).
        self.token.end_sleep()
    }
}

/// The worker-owned view of its multishot wake poll.
#[derive(Debug)]
pub(crate) struct WakePoll {
    armed: bool,
    worker: usize,
}

impl WakePoll {
    /// A poll that the first [`WakePoll::take_rearm`] arms.
    pub(crate) fn new(worker: usize) -> WakePoll {
        WakePoll {
            armed: false,
            worker,
        }
    }

    /// Handles a CQE of the wake poll: `res` is the poll mask or `-errno`,
    /// `more` its `F_MORE` flag.
    ///
    /// # Panics
    ///
    /// On an error CQE: the worker could no longer be woken.
    pub(crate) fn on_cqe(&mut self, res: i32, more: bool) {
        if res < 0 && res != -libc::ECANCELED {
            panic!(
                "tokiwa worker {}: the io_uring poll on its wake eventfd failed: {}",
                self.worker,
                std::io::Error::from_raw_os_error(-res)
            );
        }
        if !more {
            self.armed = false;
        }
    }

    /// Whether the poll is armed (or about to be: its `PollAdd` queued).
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) fn is_armed(&self) -> bool {
        self.armed
    }

    /// Whether the poll must be (re-)armed now; marks it armed. The caller
    /// pushes the `PollAdd` before its next wait.
    pub(crate) fn take_rearm(&mut self) -> bool {
        !std::mem::replace(&mut self.armed, true)
    }
}
