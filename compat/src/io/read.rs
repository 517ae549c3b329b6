//! `AsyncRead` and `AsyncBufRead`, both directions.
//!
//! tokio → futures-io is direct: futures-io hands us an initialised
//! `&mut [u8]`, which `ReadBuf::new` wraps as fully initialised, so nothing
//! is zeroed and no `unsafe` is needed. The count returned is the
//! `ReadBuf`'s filled length, which is only a count of bytes in the
//! caller's slice if the reader filled the `ReadBuf` it was given rather
//! than one of its own: `crate::read_buf` checks that.
//!
//! futures-io → tokio has to produce an initialised `&mut [u8]` from a
//! `ReadBuf` whose unfilled part may be uninitialised. The safe tool is
//! `ReadBuf::initialize_unfilled_to(len)`, which zeroes only the bytes in
//! `filled..filled + len` that the `ReadBuf` does not already count as
//! initialised, and marks them initialised. Two rules keep that cheap:
//!
//! 1. What the buffer already knows to be initialised is always offered in
//!    full and never zeroed again. When a caller reuses one `ReadBuf`, or
//!    carries `initialized().len()` over to the next one (tokio's
//!    `read_to_end` does; `BufReader` and `copy` offer initialised memory),
//!    every byte is zeroed at most once however many reads fill the buffer.
//! 2. Beyond that, at most `read_window` fresh bytes are zeroed per call.
//!    The window starts at [`INITIAL_WINDOW`] and doubles, up to
//!    [`MAX_WINDOW`], each time the reader fills all it was offered, so a
//!    fast reader soon gets large slices while a read of a few bytes into a
//!    fresh 1 MiB buffer (tokio issue 7194's quadratic case) zeroes 8 KiB,
//!    not the megabyte. A shorter slice than the buffer is always allowed:
//!    `poll_read` may return fewer bytes than there is room for.
//!
//! Why the initialised length is not cached in `Compat` instead: a later
//! call's `ReadBuf` may point at other memory (a new `Vec`, a reallocated
//! one at the same address), and declaring it initialised with
//! `ReadBuf::assume_init` would give the futures reader uninitialised bytes
//! as `&mut [u8]`, which is undefined behaviour. The `ReadBuf` is the only
//! sound carrier of that fact.
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokiwa::io::ReadBuf;

use super::Compat;
use crate::read_buf::poll_read_in_place;

/// The fresh memory the first futures-io read through a [`Compat`] may
/// zero.
pub(super) const INITIAL_WINDOW: usize = 8 * 1024;

/// The most fresh memory one futures-io read through a [`Compat`] zeroes.
pub(super) const MAX_WINDOW: usize = 1 << 20;

impl<T: futures_io::AsyncRead> tokiwa::io::AsyncRead for Compat<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let remaining = buf.remaining();
        // Already initialised beyond what is filled (rule 1).
        let known = buf.initialized().len() - buf.filled().len();
        let offered = remaining.min(known.max(*this.read_window));
        let slice = buf.initialize_unfilled_to(offered);
        let n = ready!(this.inner.poll_read(cx, slice))?;
        assert!(
            n <= offered,
            "futures-io reader returned {n} bytes read into a slice of {offered}"
        );
        if n == offered && offered >= *this.read_window {
            *this.read_window = (*this.read_window * 2).min(MAX_WINDOW);
        }
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<T: tokiwa::io::AsyncRead> futures_io::AsyncRead for Compat<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        slice: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut buf = ReadBuf::new(slice);
        // The count must be of bytes in `slice` (see `read_buf.rs`).
        ready!(poll_read_in_place(self.project().inner, cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

impl<T: futures_io::AsyncBufRead> tokiwa::io::AsyncBufRead for Compat<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}

impl<T: tokiwa::io::AsyncBufRead> futures_io::AsyncBufRead for Compat<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}
