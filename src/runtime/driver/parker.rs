//! A worker's parker, as the drivers hand it to the scheduler: the
//! condition variable of `runtime/park/condvar.rs` (legacy mode) or the
//! worker's ring (io_uring mode, `uring/`). Both keep the contract stated
//! in `runtime/park/mod.rs`; the scheduler sees only this enum.
use crate::runtime::park::condvar;
use std::time::Duration;

/// A worker's parker: the condition variable (legacy mode) or its ring
/// (io_uring mode).
#[derive(Debug)]
pub(crate) enum Parker {
    Condvar(condvar::Parker),
    #[cfg(feature = "uring")]
    Uring(super::uring::Parker),
}

/// The waking end of a [`Parker`].
#[derive(Clone, Debug)]
pub(crate) enum Unparker {
    Condvar(condvar::Unparker),
    #[cfg(feature = "uring")]
    Uring(super::uring::Unparker),
}

impl Parker {
    /// A condition-variable parker.
    pub(crate) fn new() -> Parker {
        Parker::Condvar(condvar::Parker::new())
    }

    pub(crate) fn unparker(&self) -> Unparker {
        match self {
            Parker::Condvar(p) => Unparker::Condvar(p.unparker()),
            #[cfg(feature = "uring")]
            Parker::Uring(p) => Unparker::Uring(p.unparker()),
        }
    }

    /// Blocks until unparked or until `timeout` passes (`None`: no limit).
    /// `Some(Duration::ZERO)` only consumes a pending token. Returns whether
    /// an unpark token was consumed.
    pub(crate) fn park(&mut self, timeout: Option<Duration>) -> bool {
        match self {
            Parker::Condvar(p) => p.park(timeout),
            #[cfg(feature = "uring")]
            Parker::Uring(p) => p.park(timeout),
        }
    }
}

impl Unparker {
    pub(crate) fn unpark(&self) {
        match self {
            Unparker::Condvar(u) => u.unpark(),
            #[cfg(feature = "uring")]
            Unparker::Uring(u) => u.unpark(),
        }
    }
}
