//! The operation a `File` has in flight, and how it is run.
//!
//! A `File` runs at most one operation at a time: a read into its buffer, a
//! write of its buffer, or a seek (also used by `set_len`). While it runs,
//! the operation owns the buffer and a reference to the descriptor; it
//! resolves to what happened ([`Operation`]) and gives the buffer back.
//!
//! [`InFlight`] is the seam between the file's state machine
//! (`inner.rs`, `async_io.rs`) and the ways of running an operation:
//!
//! * the blocking pool, which runs the bodies in `blocking_ops.rs` (legacy
//!   mode, and any caller that is not a worker);
//! * in io_uring mode, on a worker: reads and writes go through the
//!   worker's ring (`fs/ring/`), a seek by a known offset (`Start`,
//!   `Current`: offset arithmetic in the kernel, which never blocks) is a
//!   plain `lseek` done at once, and `set_len` and a seek from the end
//!   (which may ask the filesystem) stay on the blocking pool.
//!
//! The state machine does not tell them apart: it only ever sees an
//! `InFlight` that resolves to `(Operation, Buf)`.
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
use super::exclusive::Exclusive;
use crate::fs::ring;
use crate::io::blocking::Buf;
use crate::runtime::scheduler;
use crate::task::JoinHandle;

/// A write through the ring: `pre_seek` first (by the current position, an
/// `lseek` that never blocks), then the whole buffer. If the future ends up
/// where no ring is, the rest goes to the blocking pool (as a write that
/// must run: the caller was told it was done).
async fn ring_write(
    std: Arc<StdFile>,
    mut buf: Buf,
    pre_seek: Option<SeekFrom>,
) -> io::Result<(Operation, Buf)> {
    if let Some(pre) = pre_seek {
        if let Err(e) = std::io::Seek::seek(&mut &*std, pre) {
            buf.reset();
            return Ok((Operation::Write(Err(e)), buf));
        }
    }
    match ring::write_all(std, buf).await {
        Ok((res, mut buf)) => {
            buf.reset();
            Ok((Operation::Write(res), buf))
        }
        Err((std, mut buf, done)) => {
            let body = move || {
                let res = buf.write_tail_to(&mut &*std, done);
                (Operation::Write(res), buf)
            };
            let handle = scheduler::Handle::current()
                .spawn_mandatory_blocking(body)
                .ok_or_else(|| io::Error::other("background task failed"))?;
            Ok(handle.await?)
        }
    }
}

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

/// An operation on the worker's ring, boxed (its future type is an
/// `async` block's). It is only `Send`; [`Way::Ring`] wraps it in an
/// [`Exclusive`] so that `InFlight`, and with it `File`'s futures, are
/// `Sync` as tokio's are.
type RingFuture = Pin<Box<dyn Future<Output = io::Result<(Operation, Buf)>> + Send>>;

/// How an [`InFlight`] operation is being run.
enum Way {
    /// On the blocking pool.
    Blocking(JoinHandle<(Operation, Buf)>),
    /// Through the worker's ring (falling back to the pool if the future
    /// ends up polled where no ring is).
    Ring(Exclusive<RingFuture>),
    /// Already done (an `lseek` by a known offset, or a ring write that
    /// completed within its first poll, in io_uring mode).
    Done(Option<io::Result<(Operation, Buf)>>),
}

impl std::fmt::Debug for Way {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Way::Blocking(_) => "Blocking",
            Way::Ring(_) => "Ring",
            Way::Done(_) => "Done",
        })
    }
}

impl InFlight {
    /// Reads at most `max` bytes into `buf` (which must be empty).
    pub(super) fn read(std: Arc<StdFile>, buf: Buf, max: usize) -> InFlight {
        if ring::available() {
            return InFlight::ring(async move {
                match ring::read(std, buf, max).await {
                    Ok((res, buf)) => Ok((Operation::Read(res), buf)),
                    Err((std, buf)) => {
                        let body = move || blocking_ops::read(&std, buf, max);
                        Ok(scheduler::Handle::current().spawn_blocking(body).await?)
                    }
                }
            });
        }
        InFlight::blocking(move || blocking_ops::read(&std, buf, max))
    }

    /// Seeks by `pre_seek` (to account for unread buffered data) if given,
    /// then writes the whole of `buf`. The write must run even if the
    /// runtime shuts down meanwhile, since the caller was told it was done:
    /// `None` when it cannot be started at all.
    ///
    /// On a ring the write is submitted here, in the caller's poll: its
    /// bytes are reported written when this returns, and from then on a
    /// dropped `File` (or `InFlight`) no longer stops it (the ring's table
    /// finishes an abandoned write; see `fs/ring/`). A future that is
    /// never polled would never start, and the bytes would be lost.
    pub(super) fn write(
        std: Arc<StdFile>,
        buf: Buf,
        pre_seek: Option<SeekFrom>,
        cx: &mut Context<'_>,
    ) -> Option<InFlight> {
        if ring::available() {
            let mut fut: RingFuture = Box::pin(ring_write(std, buf, pre_seek));
            let way = match fut.as_mut().poll(cx) {
                Poll::Ready(done) => Way::Done(Some(done)),
                Poll::Pending => Way::Ring(Exclusive::new(fut)),
            };
            return Some(InFlight { way });
        }
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
        if !matches!(pos, SeekFrom::End(_)) && ring::available() {
            return InFlight {
                way: Way::Done(Some(Ok(blocking_ops::seek(&std, buf, pre_seek, pos)))),
            };
        }
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

    fn ring(fut: impl Future<Output = io::Result<(Operation, Buf)>> + Send + 'static) -> InFlight {
        InFlight {
            way: Way::Ring(Exclusive::new(Box::pin(fut))),
        }
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
            // The ring's ways spend the task's budget as a `JoinHandle`
            // does: a read of a cached file completes at once, and a loop
            // of them must still yield (tokio's `fs_file::coop`).
            Way::Ring(fut) => {
                let coop = ready!(crate::task::coop::poll_proceed(cx));
                let out = ready!(fut.get_mut().as_mut().poll(cx));
                coop.made_progress();
                Poll::Ready(out)
            }
            Way::Done(done) => {
                let coop = ready!(crate::task::coop::poll_proceed(cx));
                coop.made_progress();
                Poll::Ready(done.take().expect("InFlight polled after completion"))
            }
        }
    }
}
