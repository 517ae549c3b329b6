//! `JoinError`: why a task did not produce its output.
use super::Id;
use std::any::Any;
use std::fmt;
use std::io;

/// Task failed to execute to completion.
pub struct JoinError {
    repr: Repr,
    id: Id,
}

enum Repr {
    Cancelled,
    Panic(Payload),
}

/// A panic payload that is `Sync` because nothing can borrow its contents:
/// the payload is only ever moved out whole.
struct Payload(Box<dyn Any + Send + 'static>);

// SAFETY: the only access through `&Payload` is `as_str`, which calls
// `type_id` (it reads no data of the value) and then hands out `&String` or
// `&&'static str`, both `Sync`. Every other use moves the box out by value. So
// sharing `&Payload` between threads never shares a `!Sync` value.
unsafe impl Sync for Payload {}

impl Payload {
    fn as_str(&self) -> Option<&str> {
        if let Some(s) = self.0.downcast_ref::<String>() {
            Some(s)
        } else {
            self.0.downcast_ref::<&'static str>().copied()
        }
    }
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    pub(crate) fn panic(id: Id, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(Payload(payload)),
            id,
        }
    }

    /// Returns true if the error was caused by the task being cancelled.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Returns true if the error was caused by the task panicking.
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// Consumes the join error, returning the object with which the task
    /// panicked.
    ///
    /// # Panics
    ///
    /// Panics if the error was not caused by a panic; use
    /// [`try_into_panic`](JoinError::try_into_panic) to test first.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError` reason is not a panic.")
    }

    /// Consumes the join error, returning the panic payload if the task
    /// panicked, or the error itself otherwise.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(p) => Ok(p.0),
            _ => Err(self),
        }
    }

    /// Returns the [`Id`] of the task that failed.
    pub fn id(&self) -> Id {
        self.id
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "task {} was cancelled", self.id),
            Repr::Panic(p) => match p.as_str() {
                Some(msg) => write!(f, "task {} panicked with message {:?}", self.id, msg),
                None => write!(f, "task {} panicked", self.id),
            },
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "JoinError::Cancelled({:?})", self.id),
            Repr::Panic(p) => match p.as_str() {
                Some(msg) => write!(f, "JoinError::Panic({:?}, {:?}, ...)", self.id, msg),
                None => write!(f, "JoinError::Panic({:?}, ...)", self.id),
            },
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for io::Error {
    fn from(src: JoinError) -> io::Error {
        io::Error::other(match src.repr {
            Repr::Cancelled => "task was cancelled",
            Repr::Panic(_) => "task panicked",
        })
    }
}
