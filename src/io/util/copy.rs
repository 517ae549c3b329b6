//! [`copy()`], and the buffer engine it shares with
//! [`copy_bidirectional`](super::copy_bidirectional).
//!
//! A [`CopyBuffer`] holds bytes read but not yet written (`start..end`) and
//! alternates between the two sides within one poll:
//!
//! 1. While there is room and the reader has not ended, read more: a fuller
//!    buffer makes for larger writes. A `Pending` read is ignored if there
//!    are bytes to write.
//! 2. Write out everything buffered. While the writer is `Pending`, top the
//!    buffer up from the reader so the next write is larger.
//! 3. Once the reader has ended and everything is written, flush the writer
//!    and report the byte count.
//!
//! When the reader is `Pending` with nothing left to write, the writer is
//! flushed before the copy waits: the reader may be waiting for a reply to
//! bytes still sitting in a buffered writer, and without the flush the two
//! sides would wait for each other forever.
//!
//! Each poll spends one unit of the task's cooperative budget (with the
//! `rt` feature), kept only if the poll made progress, as tokio's copy
//! does: copying between always-ready objects still lets other tasks run.
use super::poll_read_into;
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// The copy state of one direction: a buffer and how far it got.
#[derive(Debug)]
pub(super) struct CopyBuffer {
    buf: Box<[u8]>,
    /// The buffered bytes not yet written are `buf[start..end]`.
    start: usize,
    end: usize,
    /// The reader reported end of file.
    reader_done: bool,
    /// Bytes reached the writer since its last flush.
    unflushed: bool,
    /// Bytes written so far.
    copied: u64,
}

/// One unit of the task's budget, spent if the poll makes progress.
struct BudgetUnit {
    #[cfg(feature = "rt")]
    unit: crate::task::coop::RestoreOnPending,
}

impl BudgetUnit {
    fn poll_take(cx: &mut Context<'_>) -> Poll<BudgetUnit> {
        #[cfg(feature = "rt")]
        {
            let unit = ready!(crate::task::coop::poll_proceed(cx));
            Poll::Ready(BudgetUnit { unit })
        }
        #[cfg(not(feature = "rt"))]
        {
            let _ = cx;
            Poll::Ready(BudgetUnit {})
        }
    }

    fn made_progress(&self) {
        #[cfg(feature = "rt")]
        self.unit.made_progress();
    }
}

impl CopyBuffer {
    pub(super) fn new(size: usize) -> CopyBuffer {
        CopyBuffer {
            buf: vec![0; size].into_boxed_slice(),
            start: 0,
            end: 0,
            reader_done: false,
            unflushed: false,
            copied: 0,
        }
    }

    /// Reads into the free space after `end`; end of file sets
    /// `reader_done`.
    fn poll_read_more<R>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
    ) -> Poll<io::Result<()>>
    where
        R: AsyncRead + ?Sized,
    {
        let n = loop {
            let mut buf = ReadBuf::new(&mut self.buf[self.end..]);
            match ready!(poll_read_into(reader.as_mut(), cx, &mut buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Poll::Ready(Err(e)),
                Ok(n) => break n,
            }
        };
        if n == 0 {
            self.reader_done = true;
        }
        self.end += n;
        Poll::Ready(Ok(()))
    }

    /// Writes some of the buffered bytes; while the writer is pending,
    /// reads more if there is room.
    fn poll_write_some<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<usize>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        loop {
            match writer
                .as_mut()
                .poll_write(cx, &self.buf[self.start..self.end])
            {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(res) => return Poll::Ready(res),
                Poll::Pending => {
                    if !self.reader_done && self.end < self.buf.len() {
                        ready!(self.poll_read_more(cx, reader))?;
                    }
                    return Poll::Pending;
                }
            }
        }
    }

    /// Drives the copy until the reader ends (then returns the byte count),
    /// an error occurs, or both sides are pending.
    pub(super) fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        let budget = ready!(BudgetUnit::poll_take(cx));
        loop {
            if !self.reader_done && self.end < self.buf.len() {
                match self.poll_read_more(cx, reader.as_mut()) {
                    Poll::Ready(res) => {
                        budget.made_progress();
                        res?;
                    }
                    Poll::Pending if self.start < self.end => {}
                    Poll::Pending => {
                        if self.unflushed {
                            ready!(writer.as_mut().poll_flush(cx))?;
                            budget.made_progress();
                            self.unflushed = false;
                        }
                        return Poll::Pending;
                    }
                }
            }

            while self.start < self.end {
                let n = ready!(self.poll_write_some(cx, reader.as_mut(), writer.as_mut()))?;
                budget.made_progress();
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                if n > self.end - self.start {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "writer reported more bytes written than it was given",
                    )));
                }
                self.start += n;
                self.copied += n as u64;
                self.unflushed = true;
            }
            self.start = 0;
            self.end = 0;

            if self.reader_done {
                ready!(writer.as_mut().poll_flush(cx))?;
                budget.made_progress();
                self.unflushed = false;
                return Poll::Ready(Ok(self.copied));
            }
        }
    }
}

/// Copies everything `reader` produces into `writer`, until end of file.
///
/// Returns the number of bytes copied. Uses an 8 KiB heap buffer; for a
/// reader that is already buffered ([`AsyncBufRead`](crate::io::AsyncBufRead),
/// such as a [`BufReader`](crate::io::BufReader) of any size) see
/// [`copy_buf`](crate::io::copy_buf), which needs none.
///
/// The writer is flushed at the end, and also whenever the reader has
/// nothing ready, so bytes never wait in a buffered writer while the copy
/// waits for the reader. The writer is not shut down.
///
/// The asynchronous counterpart of [`std::io::copy`].
///
/// # Errors
///
/// `Interrupted` errors from reads and writes are retried; any other read,
/// write or flush error ends the copy at once and is returned.
///
/// # Examples
///
/// ```
/// use tokio::io;
///
/// # async fn dox() -> std::io::Result<()> {
/// let mut reader: &[u8] = b"hello";
/// let mut writer: Vec<u8> = Vec::new();
/// assert_eq!(io::copy(&mut reader, &mut writer).await?, 5);
/// assert_eq!(writer, b"hello");
/// # Ok(())
/// # }
/// ```
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    Copy {
        reader,
        writer,
        buf: CopyBuffer::new(super::DEFAULT_BUF_SIZE),
    }
    .await
}

/// The future behind [`copy`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
struct Copy<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    buf: CopyBuffer,
}

impl<R, W> Future for Copy<'_, R, W>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        me.buf
            .poll_copy(cx, Pin::new(&mut *me.reader), Pin::new(&mut *me.writer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::{ScriptedReader, ScriptedWriter, Step};
    use crate::io::BufWriter;
    use futures::executor::block_on;

    #[test]
    fn counts_the_bytes_and_flushes_at_the_end() {
        let data: Vec<u8> = (0..20_000u32).map(|i| i as u8).collect();
        let mut reader = &data[..];
        let mut writer = ScriptedWriter::default();
        assert_eq!(block_on(copy(&mut reader, &mut writer)).unwrap(), 20_000);
        assert_eq!(writer.data, data);
        assert_eq!(writer.flushes, 1);
        assert!(!writer.shut_down);
    }

    #[test]
    fn flushes_while_the_reader_is_pending() {
        // The writer buffers; the reader pends in the middle. A copy that
        // did not flush then would leave "ping" in the BufWriter while
        // waiting (a peer waiting for it would never answer).
        let script = [
            Step::Ready(b"ping".to_vec()),
            Step::Pending,
            Step::Ready(b"!".to_vec()),
        ];
        let mut reader = ScriptedReader::new(script);
        let mut writer = BufWriter::new(ScriptedWriter::default());
        let mut fut = Box::pin(copy(&mut reader, &mut writer));
        let mut cx = crate::io::util::test_io::noop_cx();
        assert!(fut.as_mut().poll(&mut cx).is_pending());
        drop(fut);
        assert_eq!(writer.get_ref().data, b"ping");
        assert_eq!(writer.get_ref().flushes, 1);
        assert!(writer.buffer().is_empty());
        assert_eq!(block_on(copy(&mut reader, &mut writer)).unwrap(), 1);
        assert_eq!(writer.get_ref().data, b"ping!");
    }

    #[test]
    fn short_and_pending_writes() {
        let script = [
            Step::Ready(vec![0; 3]),
            Step::Pending,
            Step::Ready(vec![0; 1]),
        ];
        let mut reader: &[u8] = b"abcdefg";
        let mut writer = ScriptedWriter::new(script);
        assert_eq!(block_on(copy(&mut reader, &mut writer)).unwrap(), 7);
        assert_eq!(writer.data, b"abcdefg");
        assert_eq!(writer.writes, [3, 1, 3]);
    }

    #[test]
    fn errors_end_the_copy_and_interrupts_are_retried() {
        let script = [
            Step::Ready(b"ab".to_vec()),
            Step::Fail(io::ErrorKind::Interrupted),
            Step::Ready(b"c".to_vec()),
            Step::Fail(io::ErrorKind::BrokenPipe),
        ];
        let mut reader = ScriptedReader::new(script);
        let mut writer = ScriptedWriter::default();
        let err = block_on(copy(&mut reader, &mut writer)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);

        let mut reader: &[u8] = b"abc";
        let mut writer = ScriptedWriter::new([Step::Ready(vec![])]);
        let err = block_on(copy(&mut reader, &mut writer)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    }

    #[cfg(feature = "rt")]
    #[test]
    fn copying_from_repeat_into_sink_yields_to_other_tasks() {
        use crate::io::util::test_io::yields_to_a_neighbour;
        use crate::io::{repeat, sink, AsyncReadExt};
        use std::sync::atomic::Ordering;

        assert!(yields_to_a_neighbour(|neighbour_ran| async move {
            let mut source = repeat(7);
            for _ in 0..200 {
                let n = copy(&mut (&mut source).take(1 << 16), &mut sink())
                    .await
                    .unwrap();
                assert_eq!(n, 1 << 16);
                if neighbour_ran.load(Ordering::SeqCst) {
                    return true;
                }
            }
            false
        }));
    }

    #[cfg(feature = "rt")]
    #[test]
    fn copy_spends_budget_even_between_unbudgeted_objects() {
        use crate::io::util::test_io::yields_to_a_neighbour;
        use std::sync::atomic::Ordering;

        // Neither `&[u8]` nor `Vec<u8>` consults the budget: only the copy
        // itself can make the task yield.
        assert!(yields_to_a_neighbour(|neighbour_ran| async move {
            for _ in 0..100_000 {
                let mut reader: &[u8] = b"hello";
                let mut writer = Vec::new();
                copy(&mut reader, &mut writer).await.unwrap();
                if neighbour_ran.load(Ordering::SeqCst) {
                    return true;
                }
            }
            false
        }));
    }
}
