//! [`BufWriter`]: write-side buffering for any [`AsyncWrite`].
//!
//! Small writes are appended to a `Vec` of fixed capacity; the buffer is
//! written out (`flush_buf`) when the next write would not fit, on flush,
//! on shutdown and before a seek. A write at least as large as the
//! capacity goes straight to the inner writer once the buffer is empty, so
//! big payloads are not copied twice.
//!
//! `flush_buf` can be interrupted by `Pending`: `written` remembers how much
//! of the buffer already reached the inner writer, and the written prefix
//! is dropped only when the loop ends, so no byte is written twice.
use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

pin_project! {
    /// Adds an in-memory buffer to a writer.
    ///
    /// Writing a few bytes at a time straight to a socket or file costs a
    /// system call per write. A `BufWriter` collects small writes and hands
    /// them to the inner [`AsyncWrite`] in large batches. It does not help
    /// with large writes, with a handful of writes, or with a writer that
    /// is already in memory.
    ///
    /// Buffered bytes are **lost** when the `BufWriter` is dropped: call
    /// [`flush`](crate::io::AsyncWriteExt::flush) (or `shutdown`) first.
    ///
    /// It passes [`AsyncRead`] and [`AsyncBufRead`] through to the inner
    /// object, and writes out its buffer before an [`AsyncSeek`].
    pub struct BufWriter<W> {
        #[pin]
        pub(super) inner: W,
        pub(super) buf: Vec<u8>,
        pub(super) capacity: usize,
        // How much of `buf` an interrupted `flush_buf` already wrote.
        pub(super) written: usize,
        pub(super) seek: SeekState,
    }
}

/// Where a `start_seek`/`poll_complete` pair stands.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek requested: `poll_complete` asks the inner writer.
    Idle,
    /// The buffer must be written out, then the inner writer sought.
    Requested(SeekFrom),
    /// The inner writer's seek is in flight.
    InFlight,
}

impl<W: AsyncWrite> BufWriter<W> {
    /// Creates a `BufWriter` with the default capacity (8 KiB at present).
    pub fn new(inner: W) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Creates a `BufWriter` whose buffer holds `cap` bytes.
    pub fn with_capacity(cap: usize, inner: W) -> Self {
        BufWriter {
            inner,
            buf: Vec::with_capacity(cap),
            capacity: cap,
            written: 0,
            seek: SeekState::Idle,
        }
    }

    /// Returns a reference to the inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Returns a mutable reference to the inner writer.
    ///
    /// Writing to it directly puts those bytes before the buffered ones.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Returns a pinned mutable reference to the inner writer.
    ///
    /// Writing to it directly puts those bytes before the buffered ones.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// Unwraps the inner writer. Buffered bytes are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Returns the bytes buffered and not yet written out.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }

    /// Writes the whole buffer to the inner writer (not flushing it).
    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let mut result = Ok(());
        while *me.written < me.buf.len() {
            match ready!(me.inner.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                Ok(0) => {
                    result = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Ok(n) => *me.written += n.min(me.buf.len() - *me.written),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        me.buf.drain(..*me.written);
        *me.written = 0;
        Poll::Ready(result)
    }

    fn room(&self) -> usize {
        self.capacity - self.buf.len()
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if buf.len() > self.room() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if buf.len() >= *me.capacity {
            me.inner.poll_write(cx, buf)
        } else {
            me.buf.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.inner.is_write_vectored() {
            // The inner writer takes slices as they are: buffer them all,
            // or pass them all on when together they fill the buffer.
            let total = bufs
                .iter()
                .fold(0usize, |sum, b| sum.saturating_add(b.len()));
            if total > self.room() {
                ready!(self.as_mut().flush_buf(cx))?;
            }
            let me = self.project();
            if total >= *me.capacity {
                return me.inner.poll_write_vectored(cx, bufs);
            }
            for b in bufs {
                me.buf.extend_from_slice(b);
            }
            return Poll::Ready(Ok(total));
        }

        // The inner writer would take one slice per call: buffer as many
        // whole slices as fit, so one later write carries them all.
        let mut rest = bufs.iter().skip_while(|b| b.is_empty());
        let Some(first) = rest.next() else {
            return Poll::Ready(Ok(0));
        };
        if first.len() > self.room() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if first.len() >= *me.capacity {
            return me.inner.poll_write(cx, first);
        }
        me.buf.extend_from_slice(first);
        let mut total = first.len();
        for b in rest {
            if b.len() > *me.capacity - me.buf.len() {
                break;
            }
            me.buf.extend_from_slice(b);
            total += b.len();
        }
        Poll::Ready(Ok(total))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.project().inner.poll_shutdown(cx)
    }
}

/// Seeks the inner writer, after writing out the buffer.
impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        // Writing out the buffer needs a `Context`: `poll_complete` does it.
        *self.project().seek = SeekState::Requested(position);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let requested = match self.seek {
            SeekState::Idle => return self.project().inner.poll_complete(cx),
            SeekState::Requested(position) => Some(position),
            SeekState::InFlight => None,
        };
        if let Err(e) = ready!(self.as_mut().flush_buf(cx)) {
            *self.as_mut().project().seek = SeekState::Idle;
            return Poll::Ready(Err(e));
        }
        let mut me = self.project();
        if let Some(position) = requested {
            // A seek the inner writer may still have in flight ends first.
            if let Err(e) = ready!(me.inner.as_mut().poll_complete(cx)) {
                *me.seek = SeekState::Idle;
                return Poll::Ready(Err(e));
            }
            if let Err(e) = me.inner.as_mut().start_seek(position) {
                *me.seek = SeekState::Idle;
                return Poll::Ready(Err(e));
            }
        }
        match me.inner.poll_complete(cx) {
            Poll::Pending => {
                *me.seek = SeekState::InFlight;
                Poll::Pending
            }
            Poll::Ready(res) => {
                *me.seek = SeekState::Idle;
                Poll::Ready(res)
            }
        }
    }
}

impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().inner.poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}

impl<W: fmt::Debug> fmt::Debug for BufWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufWriter")
            .field("writer", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.buf.len(), self.capacity),
            )
            .field("written", &self.written)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::{noop_cx, ScriptedWriter, Step};
    use std::io::Cursor;

    type Writer = BufWriter<ScriptedWriter>;

    fn write(w: &mut Writer, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(w).poll_write(&mut noop_cx(), data)
    }

    fn write_vectored(w: &mut Writer, bufs: &[&[u8]]) -> Poll<io::Result<usize>> {
        let slices: Vec<IoSlice<'_>> = bufs.iter().map(|b| IoSlice::new(b)).collect();
        Pin::new(w).poll_write_vectored(&mut noop_cx(), &slices)
    }

    fn ok(p: Poll<io::Result<usize>>) -> usize {
        match p {
            Poll::Ready(Ok(n)) => n,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn small_writes_are_batched_until_flush() {
        let mut w = BufWriter::with_capacity(8, ScriptedWriter::default());
        assert_eq!(ok(write(&mut w, b"abc")), 3);
        assert_eq!(ok(write(&mut w, b"def")), 3);
        assert!(w.get_ref().writes.is_empty());
        assert_eq!(w.buffer(), b"abcdef");
        // The next write does not fit: the buffer goes out in one write.
        assert_eq!(ok(write(&mut w, b"ghi")), 3);
        assert_eq!(w.get_ref().writes, [6]);
        assert_eq!(w.buffer(), b"ghi");
        assert!(Pin::new(&mut w).poll_flush(&mut noop_cx()).is_ready());
        assert_eq!(w.get_ref().data, b"abcdefghi");
        assert_eq!(w.get_ref().writes, [6, 3]);
        assert_eq!(w.get_ref().flushes, 1);
    }

    #[test]
    fn shutdown_writes_out_the_buffer_first() {
        let mut w = BufWriter::with_capacity(8, ScriptedWriter::default());
        assert_eq!(ok(write(&mut w, b"bye")), 3);
        assert!(matches!(
            Pin::new(&mut w).poll_shutdown(&mut noop_cx()),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(w.get_ref().data, b"bye");
        assert!(w.get_ref().shut_down);
        assert!(w.buffer().is_empty());
    }

    #[test]
    fn large_write_bypasses_the_buffer() {
        let mut w = BufWriter::with_capacity(4, ScriptedWriter::default());
        assert_eq!(ok(write(&mut w, b"ab")), 2);
        assert_eq!(ok(write(&mut w, b"0123456789")), 10);
        // The buffered bytes went out first, then the big write unbuffered.
        assert_eq!(w.get_ref().writes, [2, 10]);
        assert_eq!(w.get_ref().data, b"ab0123456789");
        assert!(w.buffer().is_empty());
    }

    #[test]
    fn pending_flush_resumes_without_rewriting() {
        let mut w = BufWriter::with_capacity(4, ScriptedWriter::default());
        assert_eq!(ok(write(&mut w, b"xyz")), 3);
        assert_eq!(ok(write(&mut w, b"!")), 1);
        w.get_mut()
            .set_script([Step::Ready(vec![0; 2]), Step::Pending]);
        // No room: 2 of "xyz!" go out, then the writer is pending.
        assert!(write(&mut w, b"12").is_pending());
        assert_eq!(w.get_ref().data, b"xy");
        assert!(format!("{w:?}").contains("written: 2"));
        // The retry writes only what is left.
        assert_eq!(ok(write(&mut w, b"12")), 2);
        assert_eq!(w.get_ref().data, b"xyz!");
        assert_eq!(w.buffer(), b"12");
    }

    #[test]
    fn write_zero_is_an_error() {
        let script = [Step::Ready(vec![])];
        let mut w = BufWriter::with_capacity(4, ScriptedWriter::new(script));
        assert_eq!(ok(write(&mut w, b"abc")), 3);
        match Pin::new(&mut w).poll_flush(&mut noop_cx()) {
            Poll::Ready(Err(e)) => assert_eq!(e.kind(), io::ErrorKind::WriteZero),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn vectored_into_a_vectored_writer() {
        let mut inner = ScriptedWriter::default();
        inner.vectored = true;
        let mut w = BufWriter::with_capacity(8, inner);
        assert!(w.is_write_vectored());
        assert_eq!(ok(write_vectored(&mut w, &[b"ab", b"", b"cd"])), 4);
        assert_eq!(w.buffer(), b"abcd");
        // Together they fill the buffer: written out, then passed on whole.
        assert_eq!(ok(write_vectored(&mut w, &[b"0123", b"4567"])), 8);
        assert_eq!(w.get_ref().writes, [4, 8]);
        assert_eq!(w.get_ref().data, b"abcd01234567");
    }

    #[test]
    fn vectored_into_a_plain_writer_buffers_whole_slices() {
        let mut w = BufWriter::with_capacity(8, ScriptedWriter::default());
        assert!(!w.get_ref().is_write_vectored());
        assert_eq!(
            ok(write_vectored(&mut w, &[b"", b"abc", b"def", b"ghi"])),
            6
        );
        assert_eq!(w.buffer(), b"abcdef");
        assert_eq!(ok(write_vectored(&mut w, &[b""])), 0);
        // The first slice does not fit: write out, then buffer it.
        assert_eq!(ok(write_vectored(&mut w, &[b"ghi", b"jk"])), 5);
        assert_eq!(w.get_ref().writes, [6]);
        // A first slice as big as the buffer goes straight through.
        assert_eq!(ok(write_vectored(&mut w, &[b"0123456789", b"x"])), 10);
        assert_eq!(w.get_ref().data, b"abcdefghijk0123456789");
    }

    #[test]
    fn seek_writes_out_the_buffer_first() {
        let mut w = BufWriter::with_capacity(8, Cursor::new(Vec::new()));
        let mut cx = noop_cx();
        assert!(Pin::new(&mut w).poll_write(&mut cx, b"hello").is_ready());
        Pin::new(&mut w).start_seek(SeekFrom::Start(1)).unwrap();
        assert!(matches!(
            Pin::new(&mut w).poll_complete(&mut cx),
            Poll::Ready(Ok(1))
        ));
        assert!(Pin::new(&mut w).poll_write(&mut cx, b"E").is_ready());
        assert!(Pin::new(&mut w).poll_flush(&mut cx).is_ready());
        assert_eq!(w.get_ref().get_ref(), b"hEllo");
        assert_eq!(
            format!("{w:?}"),
            "BufWriter { writer: Cursor { inner: [104, 69, 108, 108, 111], pos: 2 }, \
             buffer: 0/8, written: 0 }"
        );
    }

    #[test]
    fn auto_traits() {
        fn is<T: Send + Sync + Unpin>() {}
        is::<BufWriter<Cursor<Vec<u8>>>>();
    }
}
