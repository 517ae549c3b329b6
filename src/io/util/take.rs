//! [`Take`]: a reader that ends after a limit of bytes.
//!
//! Each read lends the inner reader at most `limit` bytes of the caller's
//! buffer (a [`ReadBuf::take`] of it) and moves the caller's cursors by what
//! [`poll_read_into`] confirms was written there. What the caller's buffer
//! knows to be initialised is declared on the lent one and back, so an
//! inner reader that zeroes its buffer (`initialize_unfilled`) does not
//! zero the same bytes on every read.
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

pin_project! {
    /// A reader that gives at most a limited number of bytes of another;
    /// created by [`AsyncReadExt::take`](super::AsyncReadExt::take).
    ///
    /// Once the limit is reached it reports end of file without calling
    /// the inner reader.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless you `.await` or poll them"]
    pub struct Take<R> {
        #[pin]
        inner: R,
        limit: u64,
    }
}

pub(super) fn take<R: AsyncRead>(inner: R, limit: u64) -> Take<R> {
    Take { inner, limit }
}

impl<R: AsyncRead> Take<R> {
    /// How many more bytes this reader will give before end of file.
    ///
    /// This may exceed what the inner reader has left.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Sets how many more bytes this reader will give; a reader that
    /// reached its limit can be resumed this way.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly does not count
    /// against the limit.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader, pinned. Reading from it directly does not count
    /// against the limit.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the inner reader; bytes it still has stay unread.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.project();
        if *me.limit == 0 {
            return Poll::Ready(Ok(()));
        }
        let max = usize::try_from(*me.limit).unwrap_or(usize::MAX);
        let known = buf.initialized().len() - buf.filled().len();
        let mut lent = buf.take(max);
        let known = known.min(lent.capacity());
        // SAFETY: `lent` starts at `buf`'s unfilled part, whose first
        // `known` bytes `buf` knows to be initialised.
        unsafe { lent.assume_init(known) };
        let n = ready!(poll_read_into(me.inner, cx, &mut lent))?;
        let initialized = lent.initialized().len();
        // SAFETY: `poll_read_into` confirmed that `lent` is still the buffer
        // over `buf`'s unfilled part, so its first `initialized` bytes (of
        // which the first `n` are filled) are initialised there.
        unsafe { buf.assume_init(initialized) };
        buf.advance(n);
        *me.limit -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        // At the limit the inner reader is not asked: it might wait forever.
        if *me.limit == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let available = ready!(me.inner.poll_fill_buf(cx))?;
        let n = usize::try_from(*me.limit).map_or(available.len(), |l| l.min(available.len()));
        Poll::Ready(Ok(&available[..n]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        // Never past the limit: an oversized `amt` must not reset it.
        let amt = usize::try_from(*me.limit).map_or(amt, |l| l.min(amt));
        *me.limit -= amt as u64;
        me.inner.consume(amt);
    }
}
