//! The condition-variable parker.
//!
//! A three-state word (`EMPTY`, `PARKED`, `NOTIFIED`) in front of a mutex
//! and condvar, as in std's thread parker: `unpark` only takes the mutex when
//! the worker is actually asleep, so waking a busy worker costs one atomic
//! swap.
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Arc, Condvar, Mutex};
use std::fmt;
use std::time::Duration;

const EMPTY: usize = 0;
const PARKED: usize = 1;
const NOTIFIED: usize = 2;

struct Inner {
    state: AtomicUsize,
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
                state: AtomicUsize::new(EMPTY),
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
        // A token from an earlier `unpark`: consume it and return. SeqCst on
        // every access of `state`: it is the flag half of the announce /
        // re-check handshake with `unpark`.
        if self
            .state
            .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
            .is_ok()
        {
            return true;
        }
        if timeout == Some(Duration::ZERO) {
            return false;
        }

        let mut guard = self.mutex.lock().unwrap();
        match self.state.compare_exchange(EMPTY, PARKED, SeqCst, SeqCst) {
            Ok(_) => {}
            Err(NOTIFIED) => {
                // Raced with `unpark`: take the token.
                self.state.swap(EMPTY, SeqCst);
                return true;
            }
            Err(actual) => panic!("inconsistent park state: {actual}"),
        }

        match timeout {
            None => loop {
                guard = self.condvar.wait(guard).unwrap();
                if self
                    .state
                    .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
                    .is_ok()
                {
                    return true;
                }
                // Spurious wakeup: wait again.
            },
            Some(timeout) => {
                let _slack = PreciseTimerSlack::new();
                let (_guard, _) = self.condvar.wait_timeout(guard, timeout).unwrap();
                // Woken, timed out or spurious: leave `PARKED` either way; a
                // token that arrived meanwhile is consumed (the caller
                // re-checks its queues after every return).
                self.state.swap(EMPTY, SeqCst) == NOTIFIED
            }
        }
    }
}

impl Unparker {
    pub(crate) fn unpark(&self) {
        match self.inner.state.swap(NOTIFIED, SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED => {
                // Taking the lock orders this notify after the parker's
                // transition to `PARKED` and its wait: the notification
                // cannot slip in between them.
                drop(self.inner.mutex.lock().unwrap());
                self.inner.condvar.notify_one();
            }
            actual => panic!("inconsistent park state: {actual}"),
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
