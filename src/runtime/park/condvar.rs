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

/// For the length of one timed wait, asks the kernel to end this thread's
/// timed waits at their deadline rather than up to 50 us later (the default
/// timer slack, prctl(2) `PR_SET_TIMERSLACK`). A timed park is a worker
/// waiting for its next timer, whose lateness is all the user sees: a 1 ms
/// sleep on an idle runtime ended 75 us late with the default slack, about
/// 25 us late with 1 ns. The thread's own slack is put back afterwards (a
/// current-thread runtime parks on the caller's thread, whose other sleeps
/// are not ours to change). Failures are ignored: the wait stays correct,
/// only as late as before.
pub(crate) struct PreciseTimerSlack {
    previous: Option<libc::c_ulong>,
}

impl PreciseTimerSlack {
    pub(crate) fn new() -> PreciseTimerSlack {
        if cfg!(tokiwa_loom) {
            return PreciseTimerSlack { previous: None };
        }
        // SAFETY: PR_GET_TIMERSLACK returns the value and touches no
        // memory of ours.
        let previous = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK) };
        if previous <= 1 {
            return PreciseTimerSlack { previous: None };
        }
        // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches
        // no memory of ours.
        let set = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        PreciseTimerSlack {
            previous: (set == 0).then_some(previous as libc::c_ulong),
        }
    }
}

impl Drop for PreciseTimerSlack {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            // SAFETY: as in `new`.
            let _ = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, previous) };
        }
    }
}
