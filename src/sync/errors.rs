//! The error types shared by the locks and the semaphore, at
//! `tokio::sync::` paths.
use std::error::Error;
use std::fmt;

/// Error returned from [`Semaphore::acquire`](super::Semaphore::acquire)
/// and its variants: the semaphore was closed.
#[derive(Debug)]
pub struct AcquireError(pub(crate) ());

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("semaphore closed")
    }
}

impl Error for AcquireError {}

/// Error returned from [`Semaphore::try_acquire`](super::Semaphore::try_acquire)
/// and its variants.
#[derive(Debug, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// Not enough permits were free.
    NoPermits,
}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryAcquireError::Closed => "semaphore closed",
            TryAcquireError::NoPermits => "no permits available",
        })
    }
}

impl Error for TryAcquireError {}

/// Error returned from `try_lock` (and `try_read`/`try_write` on
/// [`RwLock`](super::RwLock)): the lock is held.
#[derive(Debug)]
pub struct TryLockError(pub(crate) ());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("operation would block")
    }
}

impl Error for TryLockError {}
