//! [`BufStream`]: buffering in both directions, as a
//! `BufReader<BufWriter<RW>>`.
use super::{BufReader, BufWriter};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project! {
    /// Buffers both the reads and the writes of an I/O object that is
    /// [`AsyncRead`] and [`AsyncWrite`].
    ///
    /// [`BufReader`] and [`BufWriter`] each buffer one direction; a
    /// `BufStream` is one wrapped in the other, so small reads and small
    /// writes both cost fewer system calls. Their documentation describes
    /// the details (buffered writes are lost unless flushed, buffered reads
    /// are lost on `into_inner`).
    #[derive(Debug)]
    pub struct BufStream<RW> {
        #[pin]
        inner: BufReader<BufWriter<RW>>,
    }
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// Wraps `stream` in a [`BufWriter`] and a [`BufReader`] of default
    /// capacities.
    pub fn new(stream: RW) -> BufStream<RW> {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// Wraps `stream` with the given read and write buffer capacities.
    ///
    /// # Panics
    ///
    /// Panics if `reader_capacity` is zero.
    #[track_caller]
    pub fn with_capacity(
        reader_capacity: usize,
        writer_capacity: usize,
        stream: RW,
    ) -> BufStream<RW> {
        BufStream {
            inner: BufReader::with_capacity(
                reader_capacity,
                BufWriter::with_capacity(writer_capacity, stream),
            ),
        }
    }

    /// Returns a reference to the inner I/O object.
    ///
    /// Using it directly bypasses (and desynchronises) the buffers.
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// Returns a mutable reference to the inner I/O object.
    ///
    /// Using it directly bypasses (and desynchronises) the buffers.
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// Returns a pinned mutable reference to the inner I/O object.
    ///
    /// Using it directly bypasses (and desynchronises) the buffers.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW> {
        self.project().inner.get_pin_mut().get_pin_mut()
    }

    /// Unwraps the inner I/O object. Buffered bytes, both ways, are lost.
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

impl<RW> From<BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(b: BufReader<BufWriter<RW>>) -> Self {
        BufStream { inner: b }
    }
}

impl<RW> From<BufWriter<BufReader<RW>>> for BufStream<RW> {
    /// Turns the nesting inside out, keeping both buffers' contents.
    fn from(b: BufWriter<BufReader<RW>>) -> Self {
        let BufWriter {
            inner: reader,
            buf,
            capacity,
            written,
            seek: write_seek,
        } = b;
        let BufReader {
            inner: stream,
            buf: read_buf,
            pos,
            filled,
            seek: read_seek,
        } = reader;
        let writer = BufWriter {
            inner: stream,
            buf,
            capacity,
            written,
            seek: write_seek,
        };
        BufStream {
            inner: BufReader {
                inner: writer,
                buf: read_buf,
                pos,
                filled,
                seek: read_seek,
            },
        }
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncWrite for BufStream<RW> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncRead for BufStream<RW> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().inner.poll_read(cx, buf)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}

/// Seeks the inner object: buffered writes are written out first and
/// buffered reads are discarded, with `SeekFrom::Current` counted from
/// what the user has read (see [`BufReader`]'s `AsyncSeek`).
impl<RW: AsyncRead + AsyncWrite + AsyncSeek> AsyncSeek for BufStream<RW> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.project().inner.start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.project().inner.poll_complete(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::noop_cx;
    use std::io::Cursor;

    #[test]
    fn buffers_both_ways_and_converts_inside_out() {
        let mut cx = noop_cx();
        let mut writer = BufWriter::with_capacity(
            16,
            BufReader::with_capacity(4, Cursor::new(b"abcdef".to_vec())),
        );
        // Fill the read buffer through the writer's pass-through.
        assert!(matches!(
            Pin::new(&mut writer).poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b"abcd"))
        ));
        Pin::new(&mut writer).consume(1);
        assert!(Pin::new(&mut writer).poll_write(&mut cx, b"XY").is_ready());

        let mut s = BufStream::from(writer);
        // Both buffers survived the conversion.
        assert!(matches!(
            Pin::new(&mut s).poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b"bcd"))
        ));
        assert_eq!(s.get_ref().get_ref(), b"abcdef");
        assert!(Pin::new(&mut s).poll_flush(&mut cx).is_ready());
        // The write lands at the inner cursor's position (4).
        assert_eq!(s.get_ref().get_ref(), b"abcdXY");
        assert!(s.is_write_vectored());
        assert_eq!(s.into_inner().position(), 6);
    }

    #[test]
    fn auto_traits() {
        fn is<T: Send + Sync + Unpin>() {}
        is::<BufStream<Cursor<Vec<u8>>>>();
    }
}
