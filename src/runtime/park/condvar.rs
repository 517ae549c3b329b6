//! The condition-variable parker.
//!
//! The wake token (`token.rs`) in front of a mutex and condvar: `unpark`
//! only takes the mutex when the worker is actually asleep, so waking a
//! busy worker costs one atomic swap. The mutex is held from the token's
//! `EMPTY → PARKED` until the wait releases it, and a notifier that found
//! `PARKED` takes it before notifying: the notification cannot slip in
//! between the transition and the wait.
use super::token::WakeToken;
use crate::loom::sync::{Arc, Condvar, Mutex};
use std::fmt;
use std::time::Duration;

struct Inner {
    token: WakeToken,
    mutex: Mutex<()>,
    condvar: Condvar,
}

/// The worker's end: only the owning worker parks.
pub(crate) struct Parker {
    inner: Arc<Inner>,
}

/// The waking end, shared with every thread.
#[derive(Clone)]
pub(crate) struct Unparker {
    inner: Arc<Inner>,
}

impl Parker {
    pub(crate) fn new() -> Parker {
        Parker {
            inner: Arc::new(Inner {
                token: WakeToken::new(),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
            }),
        }
    }

    pub(crate) fn unparker(&self) -> Unparker {
        Unparker {
            inner: self.inner.clone(),
        }
    }

    /// Blocks until unparked or until `timeout` passes (`None`: no limit).
    /// `Some(Duration::ZERO)` only consumes a pending token. Returns whether
    /// an unpark token was consumed (`false`: timed out or spurious).
    pub(crate) fn park(&mut self, timeout: Option<Duration>) -> bool {
        self.inner.park(timeout)
    }
}

impl Inner {
    fn park(&self, timeout: Option<Duration>) -> bool {
        // A notification from an earlier `unpark`: consume it and return.
        if self.token.take() {
            return true;
        }
        if timeout == Some(Duration::ZERO) {
            return false;
        }

        let mut guard = self.mutex.lock().unwrap();
        if !self.token.begin_sleep() {
            // Raced with `unpark`: its notification is consumed.
            return true;
        }

        match timeout {
            None => loop {
                guard = self.condvar.wait(guard).unwrap();
                if self.token.take() {
                    return true;
                }
                // Spurious wakeup: still `PARKED`, wait again.
            },
            Some(timeout) => {
                let _slack = PreciseTimerSlack::new();
                let (_guard, _) = self.condvar.wait_timeout(guard, timeout).unwrap();
                // Woken, timed out or spurious: leave `PARKED` either way; a
                // notification that arrived meanwhile is consumed (the
                // caller re-checks its queues after every return).
                self.token.end_sleep()
            }
        }
    }
}

impl Unparker {
    pub(crate) fn unpark(&self) {
        if self.inner.token.notify() {
            // Taking the lock orders this notify after the parker's
            // transition to `PARKED` and its wait: the notification
            // cannot slip in between them.
            drop(self.inner.mutex.lock().unwrap());
            self.inner.condvar.notify_one();
        }
    }
}

impl fmt::Debug for Parker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parker").finish_non_exhaustive()
    }
}

impl fmt::Debug for Unparker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Unparker").finish_non_exhaustive()
    }
}

/// Asks the kernel to end this thread's timed waits at their deadline
/// rather than up to 50 us later (the default timer slack, prctl(2)
/// `PR_SET_TIMERSLACK`), and puts the thread's own slack back when dropped.
/// A timed park is a worker waiting for its next timer, whose lateness is
/// all the user sees: a 1 ms sleep on an idle runtime ended 75 us late with
/// the default slack, about 25 us late with 1 ns.
///
/// Two scopes:
/// - [`PreciseTimerSlack::while_driving`]: for as long as this thread runs
///   a scheduler (a worker thread's life, a current-thread runtime's
///   `block_on`). One get and two sets per scope, not per wait: a server's
///   worker parks with a timer pending at nearly every turn, and three
///   `prctl` calls per timed wait were a measurable share of its syscalls.
/// - [`PreciseTimerSlack::new`]: for one timed wait, on a thread that is not
///   in such a scope (a thread parked by `block_on` while another drives).
///   It does nothing inside a driving scope.
///
/// The thread's own slack is put back at the end of either scope (a
/// current-thread runtime runs on the caller's thread, whose other sleeps
/// are not ours to change). Failures are ignored: the waits stay correct,
/// only as late as before.
pub(crate) struct PreciseTimerSlack {
    previous: Option<libc::c_ulong>,
    /// This guard opened the thread's driving scope (and closes it).
    scope: bool,
}

std::thread_local! {
    /// A driving scope is open on this thread: its slack is precise already.
    static DRIVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl PreciseTimerSlack {
    /// A guard that changed nothing and restores nothing.
    const INERT: PreciseTimerSlack = PreciseTimerSlack {
        previous: None,
        scope: false,
    };

    /// For one timed wait (nothing when this thread is in a driving scope).
    pub(crate) fn new() -> PreciseTimerSlack {
        if DRIVING.with(|d| d.get()) {
            return PreciseTimerSlack::INERT;
        }
        PreciseTimerSlack {
            previous: Self::set_precise(),
            scope: false,
        }
    }

    /// For as long as this thread drives a scheduler (nested scopes: only
    /// the outermost one sets and restores).
    pub(crate) fn while_driving() -> PreciseTimerSlack {
        if DRIVING.with(|d| d.replace(true)) {
            return PreciseTimerSlack::INERT;
        }
        PreciseTimerSlack {
            previous: Self::set_precise(),
            scope: true,
        }
    }

    /// Sets 1 ns; returns the slack to put back, if it was changed.
    fn set_precise() -> Option<libc::c_ulong> {
        if cfg!(tokiwa_loom) {
            return None;
        }
        // SAFETY: PR_GET_TIMERSLACK returns the value and touches no
        // memory of ours.
        let previous = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK) };
        if previous <= 1 {
            return None;
        }
        // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches
        // no memory of ours.
        let set = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        (set == 0).then_some(previous as libc::c_ulong)
    }
}

impl Drop for PreciseTimerSlack {
    fn drop(&mut self) {
        if self.scope {
            DRIVING.with(|d| d.set(false));
        }
        if let Some(previous) = self.previous {
            // SAFETY: as in `new`.
            let _ = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, previous) };
        }
    }
}
