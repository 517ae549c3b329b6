//! Time error types.
use std::error;
use std::fmt;

/// An error of the timer: shut down, at capacity, or an invalid duration.
///
/// tokiwa's timers report none of these through a `Result` (a `Sleep`
/// polled after its runtime shut down panics, as tokio's does); the type is
/// tokio's public API, kept for code that names it.
#[derive(Debug, Copy, Clone)]
pub struct Error(Kind);

#[derive(Debug, Clone, Copy, Eq, PartialEq)]
enum Kind {
    Shutdown,
    AtCapacity,
    Invalid,
}

/// The error of [`Timeout`](crate::time::Timeout): the deadline passed
/// before the future completed.
#[derive(Debug, PartialEq, Eq)]
pub struct Elapsed(());

impl Error {
    /// The timer was shut down.
    pub fn shutdown() -> Error {
        Error(Kind::Shutdown)
    }

    /// Whether the timer was shut down.
    pub fn is_shutdown(&self) -> bool {
        self.0 == Kind::Shutdown
    }

    /// The timer is at capacity.
    pub fn at_capacity() -> Error {
        Error(Kind::AtCapacity)
    }

    /// Whether the timer is at capacity.
    pub fn is_at_capacity(&self) -> bool {
        self.0 == Kind::AtCapacity
    }

    /// The duration was invalid.
    pub fn invalid() -> Error {
        Error(Kind::Invalid)
    }

    /// Whether the duration was invalid.
    pub fn is_invalid(&self) -> bool {
        self.0 == Kind::Invalid
    }
}

impl error::Error for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::Shutdown => {
                "the timer is shutdown, must be called from the context of Tokio runtime"
            }
            Kind::AtCapacity => "timer is at capacity and cannot create a new entry",
            Kind::Invalid => "timer duration exceeds maximum duration",
        })
    }
}

impl Elapsed {
    pub(crate) fn new() -> Elapsed {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(_: Elapsed) -> std::io::Error {
        std::io::ErrorKind::TimedOut.into()
    }
}
