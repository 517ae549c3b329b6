//! [`Instant`]: a measurement of the runtime's clock.
use std::fmt;
use std::ops;
use std::time::Duration;

/// A measurement of a monotonically nondecreasing clock. Opaque and useful
/// only with [`Duration`].
///
/// It wraps `std::time::Instant`, and reads the same clock, except that
/// with the `test-util` feature [`Instant::now`] inside a runtime whose
/// clock is paused (`time::pause`) returns that clock's reading.
///
/// Instants are always guaranteed to be no less than any previously
/// measured instant of the same clock, and are often used for measuring
/// how long an operation takes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// Returns an instant corresponding to "now": the current runtime's
    /// paused clock if it is paused (`test-util`), else the system's
    /// monotonic clock.
    pub fn now() -> Instant {
        #[cfg(feature = "test-util")]
        if let Some(now) = super::clock::now_in_context() {
            return now;
        }
        Instant::from_std(std::time::Instant::now())
    }

    /// Creates a tokiwa instant from a `std::time::Instant`.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// Converts the instant to a `std::time::Instant`.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// The time elapsed from `earlier` to `self`; zero if `earlier` is
    /// later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time elapsed from `earlier` to `self`, or `None` if `earlier` is
    /// later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// The time elapsed from `earlier` to `self`; zero if `earlier` is
    /// later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time elapsed since this instant was created (by [`Instant::now`]'s
    /// clock).
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// `self + duration`, or `None` if that cannot be represented.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, or `None` if that cannot be represented.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(time: std::time::Instant) -> Instant {
        Instant::from_std(time)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(time: Instant) -> std::time::Instant {
        time.into_std()
    }
}

impl ops::Add<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    ///
    /// If the result cannot be represented (see [`Instant::checked_add`]).
    fn add(self, other: Duration) -> Instant {
        Instant::from_std(self.std + other)
    }
}

impl ops::AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl ops::Sub for Instant {
    type Output = Duration;

    /// Saturates at zero, like [`Instant::duration_since`].
    fn sub(self, rhs: Instant) -> Duration {
        self.std.saturating_duration_since(rhs.std)
    }
}

impl ops::Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    ///
    /// If the result cannot be represented (see [`Instant::checked_sub`]).
    fn sub(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std - rhs)
    }
}

impl ops::SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
