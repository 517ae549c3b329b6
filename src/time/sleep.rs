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
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        deadline: Instant,
        // tokio-console's view of the timer (`trace` below); zero-sized
        // without `tokio_unstable` + `tracing`.
        trace: trace::Ctx,
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
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            trace: trace::Ctx::new(std::panic::Location::caller()),
            #[cfg(not(all(tokio_unstable, feature = "tracing")))]
            trace: trace::Ctx,
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
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        me.trace.reset(deadline);
        me.entry.reset(deadline);
    }

    /// Moves the deadline and disarms the timer; it is armed again by the
    /// next poll (`Interval`, which must not be woken before it asks).
    pub(crate) fn reset_without_timer(self: Pin<&mut Self>, deadline: Instant) {
        let me = self.project();
        *me.deadline = deadline;
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        {
            me.trace.armed = false;
        }
        me.entry.clear();
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("entry", &self.entry)
            .finish()
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let me = self.project();
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let (_resource, _async_op, _async_op_poll) = (
            me.trace.ctx.resource_span.enter(),
            me.trace.ctx.async_op_span.enter(),
            me.trace.ctx.async_op_poll_span.enter(),
        );
        // A unit of the task's budget, spent only if the sleep completes.
        let coop = coop::poll_proceed(cx);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let coop = crate::util::trace::poll_op("poll_elapsed", coop);
        let coop = ready!(coop);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        if !me.trace.armed {
            // This poll registers the timer.
            me.trace.armed = true;
            trace::state_update(*me.deadline);
        }
        let res = me.entry.poll_elapsed(cx, *me.deadline);
        if res.is_ready() {
            coop.made_progress();
        }
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let res = crate::util::trace::poll_op("poll_elapsed", res);
        res
    }
}

#[cfg(not(all(tokio_unstable, feature = "tracing")))]
mod trace {
    /// Nothing to trace.
    pub(super) struct Ctx;
}

/// A `Sleep` as tokio-console sees it: a `timer` resource whose async op
/// is the wait, and whose state is the time left (`util/trace.rs`). The
/// spans are tokio's, with its targets.
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod trace {
    use super::Instant;
    use crate::util::trace::AsyncOpCtx;

    pub(super) struct Ctx {
        pub(super) ctx: AsyncOpCtx,
        /// Whether the timer is registered; the poll that registers it
        /// reports the time left, as tokio's does when it creates its
        /// timer.
        pub(super) armed: bool,
    }

    impl Ctx {
        pub(super) fn new(location: &'static std::panic::Location<'static>) -> Ctx {
            let resource_span = tracing::trace_span!(
                target: "tokio::time::sleep",
                parent: None,
                "runtime.resource",
                concrete_type = "Sleep",
                kind = "timer",
                loc.file = location.file(),
                loc.line = location.line(),
                loc.col = location.column(),
            );
            let async_op_span = tracing::trace_span!(
                target: "tokio::time::sleep",
                parent: &resource_span,
                "runtime.resource.async_op",
                source = "Sleep::new_timeout",
            );
            let async_op_poll_span = tracing::trace_span!(
                target: "tokio::time::sleep",
                parent: &async_op_span,
                "runtime.resource.async_op.poll",
            );
            Ctx {
                ctx: AsyncOpCtx {
                    async_op_span,
                    async_op_poll_span,
                    resource_span,
                },
                armed: false,
            }
        }

        /// `Sleep::reset`: a new async op, and the new time left.
        pub(super) fn reset(&mut self, deadline: Instant) {
            let _resource = self.ctx.resource_span.enter();
            self.ctx.async_op_span = tracing::trace_span!(
                target: "tokio::time::sleep",
                "runtime.resource.async_op",
                source = "Sleep::reset",
            );
            let _async_op = self.ctx.async_op_span.enter();
            self.ctx.async_op_poll_span = tracing::trace_span!(
                target: "tokio::time::sleep",
                "runtime.resource.async_op.poll",
            );
            self.armed = true;
            state_update(deadline);
        }
    }

    /// The time left until `deadline`, in milliseconds rounded up (tokio's
    /// timer ticks).
    pub(super) fn state_update(deadline: Instant) {
        let left = deadline.saturating_duration_since(Instant::now());
        let millis = left.as_nanos().div_ceil(1_000_000);
        tracing::trace!(
            target: "runtime::resource::state_update",
            duration = u64::try_from(millis).unwrap_or(u64::MAX),
            duration.unit = "ms",
            duration.op = "override",
        );
    }
}
