//! [`Interval`]: ticks at a fixed period.
use super::{safe_delay, sleep_until, Duration, Instant, Sleep};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// An interval that ticks every `period`, the first tick completing
/// immediately.
///
/// Ticks are scheduled from the start, not from when the previous tick was
/// observed: a slow consumer does not drift. What happens when ticks were
/// missed is the interval's [`MissedTickBehavior`] (by default
/// [`Burst`](MissedTickBehavior::Burst)).
///
/// # Panics
///
/// If `period` is zero, and outside a runtime with timers.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    new_interval(Instant::now(), period)
}

/// An interval that ticks every `period`, the first tick at `start`.
///
/// # Panics
///
/// If `period` is zero, and outside a runtime with timers.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    new_interval(start, period)
}

#[track_caller]
fn new_interval(start: Instant, period: Duration) -> Interval {
    Interval {
        delay: Box::pin(sleep_until(start)),
        period: safe_delay(period),
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// What an [`Interval`] does when ticks were missed (its consumer, or the
/// runtime, was too busy to observe them on time).
///
/// A tick counts as missed when it is observed more than 5 ms after it was
/// due (tokio's threshold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Catch up: the missed ticks complete immediately, one per call, until
    /// the schedule is met again; later ticks keep the original schedule.
    ///
    /// Period 50 ms, a tick late by 150 ms: ticks due at 50, 100, 150
    /// complete at once when observed at 200, then 250, 300, ... as
    /// planned.
    #[default]
    Burst,

    /// Start over from now: the next tick is `period` after the late tick
    /// was observed, and the schedule shifts by the delay.
    ///
    /// Period 50 ms, the tick due at 100 observed at 130: the next ticks
    /// are at 180, 230, ...
    Delay,

    /// Drop the missed ticks: the next tick is the next multiple of
    /// `period` (from the original start) after now.
    ///
    /// Period 50 ms, the tick due at 100 observed at 180: the next ticks
    /// are at 200, 250, ...
    Skip,
}

impl MissedTickBehavior {
    /// The tick after one due at `due` observed (late) at `now`.
    fn next_tick(self, due: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => due + period,
            MissedTickBehavior::Delay => now + period,
            MissedTickBehavior::Skip => {
                let late = (now - due).as_nanos() % period.as_nanos();
                // Less than `period`, which fits in a `Duration`; more than
                // 584 years of lateness would not fit in nanoseconds.
                let late = u64::try_from(late)
                    .expect("too much time has elapsed since the interval was supposed to tick");
                now + (period - Duration::from_nanos(late))
            }
        }
    }
}

/// Ticks at a fixed period: returned by [`interval`] and [`interval_at`].
///
/// [`Interval::tick`] waits for the next tick. Unlike a loop of `sleep`s,
/// the schedule does not drift by the time spent between ticks.
#[derive(Debug)]
pub struct Interval {
    /// The next tick; disarmed between a tick and the next poll.
    delay: Pin<Box<Sleep>>,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// Completes when the next tick is due, returning the instant it was
    /// due at (not when it was observed). The first tick completes
    /// immediately.
    ///
    /// Cancel safe: dropping the future does not lose the tick.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick: `Ready` with the instant the tick was due
    /// at, or `Pending` (the waker of `cx` is woken when it is due).
    ///
    /// After `Ready`, the timer is armed again only by the next poll: an
    /// interval that is not polled wakes nobody.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.delay.as_mut().poll(cx));
        let due = self.delay.deadline();
        let now = Instant::now();
        let next = if now > due + Duration::from_millis(5) {
            self.missed_tick_behavior.next_tick(due, now, self.period)
        } else {
            due + self.period
        };
        self.delay.as_mut().reset_without_timer(next);
        Poll::Ready(due)
    }

    /// Restarts the schedule: the next tick is one period from now.
    pub fn reset(&mut self) {
        self.delay.as_mut().reset(Instant::now() + self.period);
    }

    /// Restarts the schedule: the next tick is now.
    pub fn reset_immediately(&mut self) {
        self.delay.as_mut().reset(Instant::now());
    }

    /// Restarts the schedule: the next tick is `after` from now.
    pub fn reset_after(&mut self, after: Duration) {
        self.delay
            .as_mut()
            .reset(Instant::now() + safe_delay(after));
    }

    /// Restarts the schedule: the next tick is at `deadline`.
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.as_mut().reset(deadline);
    }

    /// The behaviour when ticks are missed.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets the behaviour when ticks are missed.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }
}
