//! The errors of the mpsc channels.
use std::error::Error;
use std::fmt;

/// The receiver has closed the channel or been dropped; the value that
/// could not be sent is inside. Returned by `send`.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError").finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("channel closed")
    }
}

impl<T> Error for SendError<T> {}

/// Why `try_send` (or a `try_reserve` method) failed; the value that could
/// not be sent is inside.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// No free capacity right now.
    Full(T),
    /// The receiver has closed the channel or been dropped.
    Closed(T),
}

impl<T> TrySendError<T> {
    /// The value that could not be sent.
    pub fn into_inner(self) -> T {
        match self {
            TrySendError::Full(value) | TrySendError::Closed(value) => value,
        }
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(..) => "Full(..)",
            TrySendError::Closed(..) => "Closed(..)",
        })
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(..) => "no available capacity",
            TrySendError::Closed(..) => "channel closed",
        })
    }
}

impl<T> Error for TrySendError<T> {}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(err: SendError<T>) -> TrySendError<T> {
        TrySendError::Closed(err.0)
    }
}

/// Why `try_recv` found no value.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// Nothing is buffered, but senders (or reserved permits) remain, so a
    /// value may still come.
    Empty,
    /// Nothing is buffered and nothing can be sent any more.
    Disconnected,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryRecvError::Empty => "receiving on an empty channel",
            TryRecvError::Disconnected => "receiving on a closed channel",
        })
    }
}

impl Error for TryRecvError {}

/// Kept for tokio's API: `recv` returns an `Option`, so nothing returns it.
#[derive(Debug, Clone)]
#[doc(hidden)]
#[deprecated(note = "This type is unused because recv returns an Option.")]
pub struct RecvError(());

#[allow(deprecated)]
impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("channel closed")
    }
}

#[allow(deprecated)]
impl Error for RecvError {}

/// Why `send_timeout` failed; the value that could not be sent is inside.
#[cfg(feature = "time")]
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// No capacity became free before the timeout.
    Timeout(T),
    /// The receiver has closed the channel or been dropped.
    Closed(T),
}

#[cfg(feature = "time")]
impl<T> SendTimeoutError<T> {
    /// The value that could not be sent.
    pub fn into_inner(self) -> T {
        match self {
            SendTimeoutError::Timeout(value) | SendTimeoutError::Closed(value) => value,
        }
    }
}

#[cfg(feature = "time")]
impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SendTimeoutError::Timeout(..) => "Timeout(..)",
            SendTimeoutError::Closed(..) => "Closed(..)",
        })
    }
}

#[cfg(feature = "time")]
impl<T> fmt::Display for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SendTimeoutError::Timeout(..) => "timed out waiting on send operation",
            SendTimeoutError::Closed(..) => "channel closed",
        })
    }
}

#[cfg(feature = "time")]
impl<T> Error for SendTimeoutError<T> {}
