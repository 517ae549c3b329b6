//! The errors of the broadcast channel.
use std::fmt;

/// No receiver exists, so the value was not sent; it is inside.
/// Returned by `Sender::send`.
#[derive(Debug)]
pub struct SendError<T>(pub T);

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("channel closed")
    }
}

impl<T: fmt::Debug> std::error::Error for SendError<T> {}

/// Why `Receiver::recv` returned no value.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum RecvError {
    /// Every sender is gone and this receiver has seen every value.
    Closed,
    /// The receiver fell behind: this many values were overwritten before
    /// it read them. It continues with the oldest value still held.
    Lagged(u64),
}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecvError::Closed => f.write_str("channel closed"),
            RecvError::Lagged(n) => write!(f, "channel lagged by {n}"),
        }
    }
}

impl std::error::Error for RecvError {}

/// Why `Receiver::try_recv` returned no value.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum TryRecvError {
    /// No value this receiver has not seen yet; senders remain.
    Empty,
    /// Every sender is gone and this receiver has seen every value.
    Closed,
    /// The receiver fell behind: this many values were overwritten before
    /// it read them. It continues with the oldest value still held.
    Lagged(u64),
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("channel empty"),
            TryRecvError::Closed => f.write_str("channel closed"),
            TryRecvError::Lagged(n) => write!(f, "channel lagged by {n}"),
        }
    }
}

impl std::error::Error for TryRecvError {}
