//! The operation a `File` has in flight, and how it is run.
//!
//! A `File` runs at most one operation at a time: a read into its buffer, a
//! write of its buffer, or a seek (also used by `set_len`). While it runs,
//! the operation owns the buffer and a reference to the descriptor; it
//! resolves to what happened ([`Operation`]) and gives the buffer back.
//!
//! [`InFlight`] is the seam between the file's state machine
//! (`inner.rs`, `async_io.rs`) and the ways of running an operation. Today
//! there is one: the blocking pool, which runs the bodies in
//! `blocking_ops.rs`. A second way (the worker's io_uring) is added as
//! another `Way` variant and another branch in the constructors below; the
//! state machine does not change, because it only ever sees an `InFlight`
//! that resolves to `(Operation, Buf)`.
//!
//! Contract of every way (what the state machine relies on):
//! * it resolves exactly once, to the outcome and the very `Buf` it was
//!   given (a read leaves its bytes in it; a write leaves it empty), or to
//!   an error meaning the buffer is lost;
//! * dropping the `InFlight` never cancels a write (the caller was told it
//!   was done) and never frees the buffer or closes the descriptor while
//!   the kernel may still use them: a ring-backed way keeps both, with its
//!   completion, until the CQE arrives (ARCHITECTURE.md, section 5);
//! * the operations run in the order they are started, one at a time per
//!   `File`, and use and advance the descriptor's own offset (on a ring:
//!   offset `-1`, i.e. `u64::MAX`), so the seek accounting in `async_io.rs`
//!   and a clone's shared cursor stay right.
use std::fs::File as StdFile;
use std::future::Future;
use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::blocking_ops;
use crate::io::blocking::Buf;
use crate::runtime::scheduler;
use crate::task::JoinHandle;

/// What a completed operation did.
#[derive(Debug)]
pub(super) enum Operation {
    /// A read into the buffer: how many bytes it holds now.
    Read(io::Result<usize>),
    /// A write of the whole buffer.
    Write(io::Result<()>),
    /// A seek (or a `set_len`): the new position.
    Seek(io::Result<u64>),
}

/// An operation in flight; resolves to its outcome and the buffer it
/// borrowed. Dropping it detaches the operation, which still completes
/// (and, for a write, still writes).
#[derive(Debug)]
pub(super) struct InFlight {
    way: Way,
}

/// How an [`InFlight`] operation is being run.
#[derive(Debug)]
enum Way {
    /// On the blocking pool.
    Blocking(JoinHandle<(Operation, Buf)>),
}

impl InFlight {
    /// Reads at most `max` bytes into `buf` (which must be empty).
    pub(super) fn read(std: Arc<StdFile>, buf: Buf, max: usize) -> InFlight {
        InFlight::blocking(move || blocking_ops::read(&std, buf, max))
    }

    /// Seeks by `pre_seek` (to account for unread buffered data) if given,
    /// then writes the whole of `buf`. The write must run even if the
    /// runtime shuts down meanwhile, since the caller was told it was done:
    /// `None` when it cannot be started at all.
    pub(super) fn write(
        std: Arc<StdFile>,
        buf: Buf,
        pre_seek: Option<SeekFrom>,
    ) -> Option<InFlight> {
        let handle = scheduler::Handle::current()
            .spawn_mandatory_blocking(move || blocking_ops::write(&std, buf, pre_seek))?;
        Some(InFlight {
            way: Way::Blocking(handle),
        })
    }

    /// Seeks by `pre_seek` if given, then to `pos`.
    pub(super) fn seek(
        std: Arc<StdFile>,
        buf: Buf,
        pre_seek: Option<SeekFrom>,
        pos: SeekFrom,
    ) -> InFlight {
        InFlight::blocking(move || blocking_ops::seek(&std, buf, pre_seek, pos))
    }

    /// Seeks by `pre_seek` if given, then truncates or extends the file to
    /// `size`; reports as a seek.
    pub(super) fn set_len(
        std: Arc<StdFile>,
        buf: Buf,
        pre_seek: Option<SeekFrom>,
        size: u64,
    ) -> InFlight {
        InFlight::blocking(move || blocking_ops::set_len(&std, buf, pre_seek, size))
    }

    fn blocking<F>(body: F) -> InFlight
    where
        F: FnOnce() -> (Operation, Buf) + Send + 'static,
    {
        InFlight {
            way: Way::Blocking(scheduler::Handle::current().spawn_blocking(body)),
        }
    }
}

impl Future for InFlight {
    /// An error here means the operation never ran to completion (its
    /// blocking task was cancelled or panicked) and the buffer is lost.
    type Output = io::Result<(Operation, Buf)>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().way {
            Way::Blocking(handle) => Poll::Ready(Ok(ready!(Pin::new(handle).poll(cx))?)),
        }
    }
}
