//! [`Sleep`]: a future that completes at a deadline.
use super::entry::TimerEntry;
use super::{safe_delay, Duration, Instant};
use crate::runtime::scheduler;
use crate::task::coop;
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Waits until `deadline` is reached.
///
/// No work is performed while awaiting the sleep; it completes at the
/// first poll after the deadline, and never before it. The timer is
/// registered on the first poll (on the worker that polls it), not here.
///
/// To wait for a [`Duration`], use [`sleep`]; to cancel, drop the future.
///
/// # Panics
///
/// Outside a runtime ("there is no reactor running, must be called from
/// the context of a Tokio 1.x runtime"), and in a runtime built without
/// [`enable_time`](crate::runtime::Builder::enable_time).
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new_timeout(deadline)
}

/// Waits until `duration` has elapsed.
///
/// Equivalent to `sleep_until(Instant::now() + duration)`, except that a
/// duration too large to add (`Duration::MAX`) sleeps for about 30 years
/// instead of panicking. The sleep completes at the first poll after its
/// deadline, and never before it (with nanosecond precision: a runtime with
/// nothing else to do wakes up right at the deadline).
///
/// `sleep` is a future: it does nothing until awaited or polled. To run
/// something at intervals, see [`interval`](crate::time::interval); to
/// bound the time another future may take, [`timeout`](crate::time::timeout).
///
/// # Panics
///
/// As [`sleep_until`].
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let deadline = Instant::now() + safe_delay(duration);
    Sleep::new_timeout(deadline)
}

pin_project! {
    /// Future returned by [`sleep`] and [`sleep_until`].
    ///
    /// Its deadline can be moved with [`Sleep::reset`] (the timer is moved
    /// within the wheel, not re-created). Dropping it frees its timer at
    /// once. `Sleep` is `!Unpin` (the timer lives inside it and the wheel
    /// refers to it while it is registered): pin it with `tokio::pin!`,
    /// `std::pin::pin!` or `Box::pin` to poll it by hand.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        deadline: Instant,
        #[pin]
        entry: TimerEntry,
    }
}

impl Sleep {
    #[track_caller]
    pub(crate) fn new_timeout(deadline: Instant) -> Sleep {
        let handle = scheduler::Handle::current();
        // Panics (at the caller) when the runtime has no timers.
        let _ = handle.driver().time();
        Sleep {
            deadline,
            entry: TimerEntry::new(handle),
        }
    }

    /// The instant at which the future completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the deadline has elapsed: `true` once the timer fired, and
    /// until it is reset to a later deadline.
    pub fn is_elapsed(&self) -> bool {
        self.entry.is_elapsed()
    }

    /// Moves the deadline to `deadline`, whether or not the sleep has
    /// completed: it completes again at the new deadline. A deadline that
    /// has already passed completes it at once (and wakes the task waiting
    /// on it).
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let me = self.project();
        *me.deadline = deadline;
        me.entry.reset(deadline);
    }

    /// Moves the deadline and disarms the timer; it is armed again by the
    /// next poll (`Interval`, which must not be woken before it asks).
    pub(crate) fn reset_without_timer(self: Pin<&mut Self>, deadline: Instant) {
        let me = self.project();
        *me.deadline = deadline;
        me.entry.clear();
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // A unit of the task's budget, spent only if the sleep completes.
        let coop = ready!(coop::poll_proceed(cx));
        let me = self.project();
        let res = me.entry.poll_elapsed(cx, *me.deadline);
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }
}
