//! [`sink()`]: a writer that discards everything.
use super::poll_proceed_and_make_progress as poll_spend_budget;
use crate::io::AsyncWrite;

use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// A writer that accepts every byte and keeps none.
///
/// Each operation spends one unit of the task's cooperative budget.
///
/// Created by [`sink()`]; the asynchronous counterpart of
/// [`std::io::Sink`].
pub struct Sink {
    _private: (),
}

/// Creates a [`Sink`]: every write succeeds with the full length of its
/// buffer, whose contents are never read.
///
/// The asynchronous counterpart of [`std::io::sink`].
///
/// # Examples
///
/// ```
/// use tokio::io::{self, AsyncWriteExt};
///
/// # async fn dox() -> io::Result<()> {
/// assert_eq!(io::sink().write(b"gone").await?, 4);
/// # Ok(())
/// # }
/// ```
pub fn sink() -> Sink {
    Sink { _private: () }
}

impl AsyncWrite for Sink {
    #[inline]
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(buf.len()))
    }

    #[inline]
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
    }

    #[inline]
    fn is_write_vectored(&self) -> bool {
        true
    }

    #[inline]
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(()))
    }

    #[inline]
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(()))
    }
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Sink { .. }")
    }
}
