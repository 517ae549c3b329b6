//! [`BufReader`]: read-side buffering for any [`AsyncRead`].
//!
//! The buffer is a fixed boxed slice with a window `pos..filled` of bytes
//! read from the inner reader but not yet handed out. It is refilled only
//! when the window is empty, so a refill is always one `poll_read` into the
//! whole slice. A read at least as large as the buffer, arriving while the
//! window is empty, skips the copy and goes straight to the inner reader.
//!
//! Seeking goes through the inner reader and always empties the window
//! afterwards (std's `BufReader` does the same), so `into_inner` right after
//! a seek gives a reader at the position asked for. A relative seek is
//! corrected by the bytes still buffered, since the inner reader is that far
//! ahead of what the user has seen.
use super::{poll_read_into, DEFAULT_BUF_SIZE};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

pin_project! {
    /// Adds an in-memory buffer to a reader.
    ///
    /// Reading a few bytes at a time straight from a socket or file costs a
    /// system call per read. A `BufReader` reads large blocks from the inner
    /// [`AsyncRead`] into its buffer and serves small reads from there. It
    /// does not help with large reads, with a handful of reads, or with a
    /// reader that is already in memory.
    ///
    /// Buffered bytes are lost when the `BufReader` is dropped or unwrapped
    /// with [`into_inner`](BufReader::into_inner), so do not put two of them
    /// on the same stream.
    ///
    /// It also implements [`AsyncBufRead`], and passes [`AsyncWrite`]
    /// through to the inner object.
    pub struct BufReader<R> {
        #[pin]
        pub(super) inner: R,
        pub(super) buf: Box<[u8]>,
        // Bytes `pos..filled` of `buf` are read but not yet consumed.
        pub(super) pos: usize,
        pub(super) filled: usize,
        pub(super) seek: SeekState,
    }
}

/// Where a `start_seek`/`poll_complete` pair stands.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek requested: `poll_complete` asks the inner reader.
    Idle,
    /// `start_seek` stored the target; `poll_complete` has not run yet.
    Requested(SeekFrom),
    /// A relative seek whose correction by the buffered bytes would
    /// overflow: the inner reader is first moved back over them, then by
    /// this offset.
    SteppingBack(i64),
    /// The inner reader's seek is in flight.
    InFlight,
}

impl<R: AsyncRead> BufReader<R> {
    /// Creates a `BufReader` with the default capacity (8 KiB at present).
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Creates a `BufReader` whose buffer holds `capacity` bytes.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero.
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(capacity > 0, "BufReader capacity must be greater than zero");
        BufReader {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            filled: 0,
            seek: SeekState::Idle,
        }
    }

    /// Returns a reference to the inner reader.
    ///
    /// Reading from it directly bypasses (and desynchronises) the buffer.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Returns a mutable reference to the inner reader.
    ///
    /// Reading from it directly bypasses (and desynchronises) the buffer.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Returns a pinned mutable reference to the inner reader.
    ///
    /// Reading from it directly bypasses (and desynchronises) the buffer.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the inner reader. Buffered bytes are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Returns the bytes buffered and not yet consumed, without reading
    /// more (unlike [`poll_fill_buf`](AsyncBufRead::poll_fill_buf)).
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.filled]
    }
}

impl<R> BufReader<R> {
    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.filled = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let empty = self.pos == self.filled;
        if empty && buf.remaining() >= self.buf.len() {
            // Copying through the buffer would only cost time.
            let res = ready!(self.as_mut().project().inner.poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(res);
        }
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.pos >= *me.filled {
            let mut read_buf = ReadBuf::new(me.buf);
            let filled = ready!(poll_read_into(me.inner, cx, &mut read_buf))?;
            *me.filled = filled;
            *me.pos = 0;
        }
        Poll::Ready(Ok(&me.buf[*me.pos..*me.filled]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = (*me.pos).saturating_add(amt).min(*me.filled);
    }
}

/// Seeks the inner reader; the buffer is always discarded.
///
/// `SeekFrom::Current(n)` is relative to the position the user has read up
/// to, not to the inner reader's (which is ahead by the buffered bytes).
/// Should `n` minus the buffered length overflow an `i64`, two seeks are
/// made: back over the buffered bytes, then by `n`; if the second fails,
/// the reader is left where `SeekFrom::Current(0)` would have put it.
impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        // The inner seek (and the buffer correction) need a `Context`, so
        // everything happens in `poll_complete`.
        *self.project().seek = SeekState::Requested(position);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        loop {
            let state = self.seek;
            // Any early return (error or `Pending`) below either leaves a
            // state to resume from or ends the seek.
            *self.as_mut().project().seek = SeekState::Idle;
            let mut inner = self.as_mut().project().inner;
            match state {
                SeekState::Idle => return inner.poll_complete(cx),
                SeekState::Requested(SeekFrom::Current(n)) => {
                    let buffered = (self.filled - self.pos) as i64;
                    let inner = self.as_mut().project().inner;
                    match n.checked_sub(buffered) {
                        Some(offset) => {
                            inner.start_seek(SeekFrom::Current(offset))?;
                            *self.as_mut().project().seek = SeekState::InFlight;
                        }
                        None => {
                            inner.start_seek(SeekFrom::Current(-buffered))?;
                            *self.as_mut().project().seek = SeekState::SteppingBack(n);
                        }
                    }
                }
                SeekState::Requested(position) => {
                    inner.start_seek(position)?;
                    *self.as_mut().project().seek = SeekState::InFlight;
                }
                SeekState::SteppingBack(n) => {
                    if inner.as_mut().poll_complete(cx)?.is_pending() {
                        *self.as_mut().project().seek = SeekState::SteppingBack(n);
                        return Poll::Pending;
                    }
                    // The inner reader now stands where the user does.
                    self.as_mut().discard_buffer();
                    self.as_mut()
                        .project()
                        .inner
                        .start_seek(SeekFrom::Current(n))?;
                    *self.as_mut().project().seek = SeekState::InFlight;
                }
                SeekState::InFlight => match inner.poll_complete(cx) {
                    Poll::Pending => {
                        *self.as_mut().project().seek = SeekState::InFlight;
                        return Poll::Pending;
                    }
                    Poll::Ready(Ok(position)) => {
                        self.discard_buffer();
                        return Poll::Ready(Ok(position));
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                },
            }
        }
    }
}

impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
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

impl<R: fmt::Debug> fmt::Debug for BufReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufReader")
            .field("reader", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.filled - self.pos, self.buf.len()),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::{noop_cx, ScriptedReader, Step};
    use std::io::Cursor;

    fn read_into(
        r: Pin<&mut BufReader<ScriptedReader>>,
        storage: &mut [u8],
    ) -> Poll<io::Result<Vec<u8>>> {
        let mut cx = noop_cx();
        let mut buf = ReadBuf::new(storage);
        r.poll_read(&mut cx, &mut buf)
            .map_ok(|()| buf.filled().to_vec())
    }

    #[test]
    fn one_byte_then_pending_is_passed_on_faithfully() {
        let script = [
            Step::Ready(b"a".to_vec()),
            Step::Pending,
            Step::Ready(b"bc".to_vec()),
            Step::Pending,
        ];
        let mut r = BufReader::with_capacity(16, ScriptedReader::new(script));
        let mut r = Pin::new(&mut r);
        let mut out = [0u8; 4];
        assert_eq!(
            read_into(r.as_mut(), &mut out).map(Result::unwrap),
            Poll::Ready(b"a".to_vec())
        );
        assert!(read_into(r.as_mut(), &mut out).is_pending());
        assert_eq!(r.get_ref().polls, 2);

        // A one-byte read fills the buffer with all the reader has ready,
        // and the next byte comes from the buffer without polling the reader.
        let mut one = [0u8; 1];
        assert_eq!(
            read_into(r.as_mut(), &mut one).map(Result::unwrap),
            Poll::Ready(b"b".to_vec())
        );
        assert_eq!(r.buffer(), b"c");
        assert_eq!(
            read_into(r.as_mut(), &mut one).map(Result::unwrap),
            Poll::Ready(b"c".to_vec())
        );
        assert_eq!(r.get_ref().polls, 3);

        assert!(read_into(r.as_mut(), &mut out).is_pending());
        // End of file reads as an empty read, repeatedly.
        assert_eq!(
            read_into(r.as_mut(), &mut out).map(Result::unwrap),
            Poll::Ready(vec![])
        );
        assert_eq!(
            read_into(r.as_mut(), &mut out).map(Result::unwrap),
            Poll::Ready(vec![])
        );
    }

    #[test]
    fn fill_buf_and_consume() {
        let mut cx = noop_cx();
        let script = [
            Step::Ready(b"hello".to_vec()),
            Step::Ready(b"world".to_vec()),
        ];
        let mut r = BufReader::with_capacity(8, ScriptedReader::new(script));
        let mut r = Pin::new(&mut r);
        assert!(matches!(
            r.as_mut().poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b"hello"))
        ));
        r.as_mut().consume(3);
        // Still buffered: no new read.
        assert!(matches!(
            r.as_mut().poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b"lo"))
        ));
        // Consuming more than is buffered stops at the end.
        r.as_mut().consume(100);
        assert!(r.buffer().is_empty());
        assert!(matches!(
            r.as_mut().poll_fill_buf(&mut cx),
            Poll::Ready(Ok(b"world"))
        ));
    }

    #[test]
    fn large_read_bypasses_the_buffer() {
        let script = [Step::Ready(vec![1; 10]), Step::Ready(vec![2; 3])];
        let mut r = BufReader::with_capacity(4, ScriptedReader::new(script));
        let mut r = Pin::new(&mut r);
        let mut big = [0u8; 10];
        assert_eq!(
            read_into(r.as_mut(), &mut big).map(Result::unwrap),
            Poll::Ready(vec![1; 10])
        );
        assert!(r.buffer().is_empty());
        let mut small = [0u8; 1];
        assert_eq!(
            read_into(r.as_mut(), &mut small).map(Result::unwrap),
            Poll::Ready(vec![2])
        );
        assert_eq!(r.buffer(), &[2, 2]);
    }

    #[test]
    fn errors_are_passed_on() {
        let script = [Step::Fail(io::ErrorKind::ConnectionReset)];
        let mut r = BufReader::new(ScriptedReader::new(script));
        let mut out = [0u8; 4];
        match read_into(Pin::new(&mut r), &mut out) {
            Poll::Ready(Err(e)) => assert_eq!(e.kind(), io::ErrorKind::ConnectionReset),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn seek(r: &mut BufReader<Cursor<Vec<u8>>>, to: SeekFrom) -> u64 {
        let mut cx = noop_cx();
        Pin::new(&mut *r).start_seek(to).unwrap();
        match Pin::new(&mut *r).poll_complete(&mut cx) {
            Poll::Ready(Ok(p)) => p,
            other => panic!("unexpected {other:?}"),
        }
    }

    fn read_some(r: &mut BufReader<Cursor<Vec<u8>>>, n: usize) -> Vec<u8> {
        let mut cx = noop_cx();
        let mut storage = vec![0u8; n];
        let mut buf = ReadBuf::new(&mut storage);
        match Pin::new(&mut *r).poll_read(&mut cx, &mut buf) {
            Poll::Ready(Ok(())) => buf.filled().to_vec(),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn seek_discards_the_buffer_and_counts_from_the_logical_position() {
        let data: Vec<u8> = (0..20).collect();
        let mut r = BufReader::with_capacity(8, Cursor::new(data));
        assert_eq!(read_some(&mut r, 2), [0, 1]);
        // The cursor is at 8; the user has seen 2 bytes.
        assert_eq!(r.get_ref().position(), 8);
        assert_eq!(seek(&mut r, SeekFrom::Current(3)), 5);
        assert!(r.buffer().is_empty());
        assert_eq!(read_some(&mut r, 1), [5]);
        assert_eq!(seek(&mut r, SeekFrom::Start(1)), 1);
        assert_eq!(r.get_ref().position(), 1);
        assert_eq!(seek(&mut r, SeekFrom::End(-1)), 19);
        assert_eq!(read_some(&mut r, 4), [19]);
        // Seeking within the buffered window still discards it.
        assert_eq!(seek(&mut r, SeekFrom::Start(0)), 0);
        assert_eq!(read_some(&mut r, 1), [0]);
        assert_eq!(seek(&mut r, SeekFrom::Current(0)), 1);
        assert!(r.buffer().is_empty());
        assert_eq!(r.into_inner().position(), 1);
    }

    #[test]
    fn relative_seek_that_would_overflow_steps_back_first() {
        let data: Vec<u8> = (0..20).collect();
        let mut r = BufReader::with_capacity(8, Cursor::new(data));
        assert_eq!(read_some(&mut r, 2), [0, 1]);
        // i64::MIN minus the 6 buffered bytes overflows: the reader first
        // steps back to 2, then the cursor rejects seeking before 0.
        let mut cx = noop_cx();
        Pin::new(&mut r)
            .start_seek(SeekFrom::Current(i64::MIN))
            .unwrap();
        assert!(matches!(
            Pin::new(&mut r).poll_complete(&mut cx),
            Poll::Ready(Err(_))
        ));
        assert_eq!(r.get_ref().position(), 2);
        assert!(r.buffer().is_empty());
    }

    /// A cursor whose every seek is `Pending` once before it completes.
    struct SlowSeek {
        cursor: Cursor<Vec<u8>>,
        seeks: usize,
        pend: bool,
    }

    impl AsyncRead for SlowSeek {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Pin::new(&mut self.cursor).poll_read(cx, buf)
        }
    }

    impl AsyncSeek for SlowSeek {
        fn start_seek(mut self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
            assert!(!self.pend, "a seek was started while another was in flight");
            self.seeks += 1;
            self.pend = true;
            Pin::new(&mut self.cursor).start_seek(position)
        }

        fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            if std::mem::take(&mut self.pend) {
                return Poll::Pending;
            }
            Pin::new(&mut self.cursor).poll_complete(cx)
        }
    }

    #[test]
    fn pending_seeks_resume_where_they_stopped() {
        let mut cx = noop_cx();
        let inner = SlowSeek {
            cursor: Cursor::new((0..20).collect()),
            seeks: 0,
            pend: false,
        };
        let mut r = BufReader::with_capacity(8, inner);
        let mut r = Pin::new(&mut r);
        assert!(matches!(
            r.as_mut().poll_fill_buf(&mut cx),
            Poll::Ready(Ok(_))
        ));
        r.as_mut().consume(2);

        r.as_mut().start_seek(SeekFrom::Current(1)).unwrap();
        assert!(r.as_mut().poll_complete(&mut cx).is_pending());
        // The buffer stays until the seek completes.
        assert_eq!(r.buffer().len(), 6);
        assert!(matches!(
            r.as_mut().poll_complete(&mut cx),
            Poll::Ready(Ok(3))
        ));
        assert!(r.buffer().is_empty());
        assert_eq!(r.get_ref().seeks, 1);

        // The overflowing case: two seeks, each pending once.
        assert!(matches!(
            r.as_mut().poll_fill_buf(&mut cx),
            Poll::Ready(Ok(_))
        ));
        r.as_mut().start_seek(SeekFrom::Current(i64::MIN)).unwrap();
        assert!(r.as_mut().poll_complete(&mut cx).is_pending());
        assert_eq!(r.get_ref().seeks, 1 + 1);
        // The step back completes; the second seek fails (before 0), and
        // the reader is left where the user stood (3).
        assert!(matches!(
            r.as_mut().poll_complete(&mut cx),
            Poll::Ready(Err(_))
        ));
        assert_eq!(r.get_ref().cursor.position(), 3);
        assert!(r.buffer().is_empty());
    }

    #[test]
    fn debug_shows_buffer_use() {
        let mut r = BufReader::with_capacity(8, Cursor::new(vec![1u8, 2, 3]));
        assert_eq!(read_some(&mut r, 1), [1]);
        assert_eq!(
            format!("{r:?}"),
            "BufReader { reader: Cursor { inner: [1, 2, 3], pos: 3 }, buffer: 2/8 }"
        );
    }

    #[test]
    #[should_panic]
    fn zero_capacity_panics() {
        let _ = BufReader::with_capacity(0, Cursor::new(Vec::<u8>::new()));
    }

    #[test]
    fn auto_traits() {
        fn is<T: Send + Sync + Unpin>() {}
        is::<BufReader<Cursor<Vec<u8>>>>();
    }
}
