//! [`Timeout`]: a future with a deadline.
use super::error::Elapsed;
use super::{Duration, Instant, Sleep};
use crate::runtime::coop;
use pin_project_lite::pin_project;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Requires `future` to complete within `duration`.
///
/// The returned future resolves to `Ok` with the future's output if it
/// completes first, or to `Err(Elapsed)` once `duration` has elapsed (the
/// inner future is then dropped with the `Timeout`). The future is polled
/// before the deadline is checked, so one that is ready is never timed
/// out, even with a zero duration. A duration too large to add to the
/// current instant (`Duration::MAX`) never times out.
///
/// Cancelling is dropping: a timeout stops the future at its next
/// `.await` point, it does not interrupt running code.
///
/// # Panics
///
/// Outside a runtime, or in one built without timers (unless `duration`
/// is too large to add, in which case no timer is made).
#[track_caller]
pub fn timeout<F>(duration: Duration, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    // `Option::map` would report its own location, not the caller's, in
    // the panic of a runtime without timers.
    #[allow(clippy::manual_map)]
    let delay = match Instant::now().checked_add(duration) {
        Some(deadline) => Some(Sleep::new_timeout(deadline)),
        None => None,
    };
    Timeout {
        value: future.into_future(),
        delay,
    }
}

/// Requires `future` to complete before `deadline`.
///
/// As [`timeout`], with an instant instead of a duration.
///
/// # Panics
///
/// Outside a runtime, or in one built without timers.
#[track_caller]
pub fn timeout_at<F>(deadline: Instant, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    Timeout {
        value: future.into_future(),
        delay: Some(Sleep::new_timeout(deadline)),
    }
}

pin_project! {
    /// Future returned by [`timeout`] and [`timeout_at`].
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        #[pin]
        delay: Option<Sleep>,
    }
}

impl<T> Timeout<T> {
    /// A reference to the inner future.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// A mutable reference to the inner future.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// The inner future, dropping the timer.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Future> Future for Timeout<T> {
    type Output = Result<T::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = self.project();
        let had_budget = coop::has_budget_remaining();
        if let Poll::Ready(v) = me.value.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        match me.delay.as_pin_mut() {
            Some(delay) => poll_delay(had_budget, delay, cx).map(Err),
            None => Poll::Pending,
        }
    }
}

/// The deadline's half of `Timeout::poll` (not generic over the future).
fn poll_delay(had_budget: bool, delay: Pin<&mut Sleep>, cx: &mut Context<'_>) -> Poll<Elapsed> {
    let poll = move || delay.poll(cx).map(|()| Elapsed::new());
    if had_budget && !coop::has_budget_remaining() {
        // The inner future spent the last of the budget: the deadline is
        // still checked, or a future that always exhausts the budget could
        // never time out.
        coop::unconstrained_call(poll)
    } else {
        poll()
    }
}
