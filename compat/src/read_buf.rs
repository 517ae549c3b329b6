//! Lending a tokio `ReadBuf` to a reader we do not control, and trusting
//! what it reports.
//!
//! `AsyncRead::poll_read` takes `&mut ReadBuf<'_>`, so a reader can, in
//! safe code, replace the whole `ReadBuf` with one over memory of its own
//! (`*buf = ReadBuf::new(leaked)`) and fill that. The returned `ReadBuf`'s
//! invariant "filled ⊆ initialised" then describes the other memory. An
//! adapter that reads `buf.filled().len()` afterwards and applies the count
//! to the memory it lent would report bytes nobody wrote there: hyper's
//! `ReadBufCursor::advance` would declare uninitialised memory initialised
//! (undefined behaviour reached from safe code), and a futures-io count
//! would name data the caller's slice never received, possibly more than
//! the slice holds.
//!
//! [`poll_read_in_place`] therefore checks, after a successful read, that
//! the `ReadBuf` still covers the memory it was lent: the same start and
//! the same capacity. Safe code cannot build a second `ReadBuf` of the
//! caller's lifetime over that memory (it is reachable only through the
//! original, and `take` borrows it for less), so a `ReadBuf` that passes is
//! the one lent, possibly moved out and back, whose bookkeeping is its own
//! and sound. An empty buffer may start at a dangling address shared by
//! every empty slice; a swap between two of them is harmless, since neither
//! can hold a filled byte.
//!
//! A reader that swapped the buffer broke `AsyncRead`'s contract and there
//! is no correct count to return, so this panics, as tokio-util's
//! `poll_read_buf` does ("buf was swapped", tokio-util `src/util/
//! poll_buf.rs`). Pending and errors are passed on unchecked: the adapters
//! use nothing of the buffer then.
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokiwa::io::{AsyncRead, ReadBuf};

/// `reader.poll_read(cx, buf)`, panicking if the reader reports success in
/// a `ReadBuf` over other memory than `buf`'s.
pub(crate) fn poll_read_in_place<R: AsyncRead + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<()>> {
    let lent = (buf.filled().as_ptr(), buf.capacity());
    let poll = reader.poll_read(cx, buf);
    if let Poll::Ready(Ok(())) = poll {
        let returned = (buf.filled().as_ptr(), buf.capacity());
        assert!(
            returned == lent,
            "AsyncRead::poll_read replaced the ReadBuf it was given with one over \
             other memory (buf was swapped): {returned:?} instead of {lent:?}"
        );
    }
    poll
}
