//! [`empty()`]: a reader at end of file and a writer that discards.
use super::poll_proceed_and_make_progress as poll_spend_budget;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// An I/O object that reads nothing and accepts everything.
///
/// Reads always report end of file, writes succeed with the whole buffer
/// without looking at it, and seeks always land at position 0. Each
/// operation spends one unit of the task's cooperative budget.
///
/// Created by [`empty()`]; the asynchronous counterpart of
/// [`std::io::Empty`].
pub struct Empty {
    _private: (),
}

/// Creates an [`Empty`]: every read returns end of file (0 bytes) and every
/// write succeeds with the full length of its buffer.
///
/// The asynchronous counterpart of [`std::io::empty`].
///
/// # Examples
///
/// ```
/// use tokio::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # async fn dox() {
/// let mut text = String::new();
/// io::empty().read_to_string(&mut text).await.unwrap();
/// assert!(text.is_empty());
///
/// assert_eq!(io::empty().write(b"discarded").await.unwrap(), 9);
/// # }
/// ```
pub fn empty() -> Empty {
    Empty { _private: () }
}

impl AsyncRead for Empty {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Empty {
    #[inline]
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(&[]))
    }

    #[inline]
    fn consume(self: Pin<&mut Self>, _amt: usize) {}
}

impl AsyncWrite for Empty {
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

impl AsyncSeek for Empty {
    #[inline]
    fn start_seek(self: Pin<&mut Self>, _position: SeekFrom) -> io::Result<()> {
        Ok(())
    }

    #[inline]
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        ready!(poll_spend_budget(cx));
        Poll::Ready(Ok(0))
    }
}

impl fmt::Debug for Empty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Empty { .. }")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::noop_cx;

    #[test]
    fn reads_eof_writes_everything_seeks_to_zero() {
        let mut cx = noop_cx();
        let mut e = empty();
        let mut storage = [7u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        assert!(matches!(
            Pin::new(&mut e).poll_read(&mut cx, &mut buf),
            Poll::Ready(Ok(()))
        ));
        assert!(buf.filled().is_empty());
        assert!(matches!(
            Pin::new(&mut e).poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b)) if b.is_empty()
        ));
        assert!(matches!(
            Pin::new(&mut e).poll_write(&mut cx, b"abc"),
            Poll::Ready(Ok(3))
        ));
        let bufs = [IoSlice::new(b"ab"), IoSlice::new(b"cde")];
        assert!(matches!(
            Pin::new(&mut e).poll_write_vectored(&mut cx, &bufs),
            Poll::Ready(Ok(5))
        ));
        Pin::new(&mut e).start_seek(SeekFrom::Start(40)).unwrap();
        assert!(matches!(
            Pin::new(&mut e).poll_complete(&mut cx),
            Poll::Ready(Ok(0))
        ));
        assert_eq!(format!("{e:?}"), "Empty { .. }");
    }
}
