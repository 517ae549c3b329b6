//! [`join()`]: a reader and a writer presented as one
//! `AsyncRead + AsyncWrite` value (the reverse of `split`, for two
//! unrelated objects).
use crate::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Joins `reader` and `writer` into one value that reads from the first
/// and writes to the second.
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

pin_project! {
    /// A reader and a writer as one `AsyncRead + AsyncWrite` value,
    /// created by [`join`].
    ///
    /// Reads (and, if the reader has them, buffered reads) go to the
    /// reader; writes, flushes and shutdown go to the writer.
    #[derive(Debug)]
    pub struct Join<R, W> {
        #[pin]
        reader: R,
        #[pin]
        writer: W,
    }
}

impl<R, W> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    /// Separates the reader and the writer again.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// Returns a reference to the reader.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// Returns a reference to the writer.
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// Returns a mutable reference to the reader.
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Returns a mutable reference to the writer.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// Returns a pinned mutable reference to the reader.
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().reader
    }

    /// Returns a pinned mutable reference to the writer.
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().writer
    }
}

impl<R: AsyncRead, W> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().reader.poll_read(cx, buf)
    }
}

impl<R, W: AsyncWrite> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.writer.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_shutdown(cx)
    }
}

impl<R: AsyncBufRead, W> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().reader.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().reader.consume(amt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::noop_cx;

    #[test]
    fn reads_from_the_reader_and_writes_to_the_writer() {
        let mut cx = noop_cx();
        let mut j = join(&b"in"[..], Vec::new());
        let mut storage = [0u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        assert!(Pin::new(&mut j).poll_read(&mut cx, &mut buf).is_ready());
        assert_eq!(buf.filled(), b"in");
        assert!(matches!(
            Pin::new(&mut j).poll_write(&mut cx, b"out"),
            Poll::Ready(Ok(3))
        ));
        assert_eq!(j.writer(), b"out");
        j.writer_mut().push(b'!');
        assert!(j.reader().is_empty());
        let (_, written) = j.into_inner();
        assert_eq!(written, b"out!");
    }
}
