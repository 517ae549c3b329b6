//! [`copy_buf()`]: [`copy`](super::copy) for readers that have a buffer
//! of their own, written straight from it.
//!
//! Same rules as `copy`: the writer is flushed when the reader has nothing
//! ready (and at the end), and each poll spends one unit of the task's
//! cooperative budget, kept if the reader made progress.
use crate::io::{AsyncBufRead, AsyncWrite};

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Copies everything `reader` produces into `writer`, until end of file,
/// writing straight from the reader's own buffer.
///
/// Returns the number of bytes copied. Unlike [`copy`](crate::io::copy) it
/// allocates nothing: the reader is an
/// [`AsyncBufRead`] (for instance a [`BufReader`](crate::io::BufReader),
/// whose capacity then sets the size of the writes).
///
/// The writer is flushed at the end, and whenever the reader has nothing
/// ready. It is not shut down.
///
/// # Errors
///
/// `Interrupted` errors from `poll_fill_buf` and `poll_write` are retried;
/// any other error, including from flushing, ends the copy and is returned.
///
/// # Examples
///
/// ```
/// use tokio::io;
///
/// # async fn dox() -> std::io::Result<()> {
/// let mut reader: &[u8] = b"hello";
/// let mut writer: Vec<u8> = Vec::new();
/// assert_eq!(io::copy_buf(&mut reader, &mut writer).await?, 5);
/// assert_eq!(writer, b"hello");
/// # Ok(())
/// # }
/// ```
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    CopyBuf {
        reader,
        writer,
        copied: 0,
        unflushed: false,
    }
    .await
}

/// The future behind [`copy_buf`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
struct CopyBuf<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    copied: u64,
    /// Bytes reached the writer since its last flush.
    unflushed: bool,
}

impl<R, W> Future for CopyBuf<'_, R, W>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        #[cfg(feature = "rt")]
        let budget = ready!(crate::task::coop::poll_proceed(cx));
        let me = self.get_mut();
        loop {
            let available = match Pin::new(&mut *me.reader).poll_fill_buf(cx) {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(res) => {
                    #[cfg(feature = "rt")]
                    budget.made_progress();
                    res?
                }
                Poll::Pending => {
                    if me.unflushed {
                        ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                        me.unflushed = false;
                    }
                    return Poll::Pending;
                }
            };

            if available.is_empty() {
                ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                me.unflushed = false;
                return Poll::Ready(Ok(me.copied));
            }

            let n = match ready!(Pin::new(&mut *me.writer).poll_write(cx, available)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            me.copied += n as u64;
            me.unflushed = true;
            Pin::new(&mut *me.reader).consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::{noop_cx, ScriptedReader, ScriptedWriter, Step};
    use crate::io::{BufReader, BufWriter};
    use futures::executor::block_on;

    #[test]
    fn copies_in_reader_buffer_sized_writes() {
        let data: Vec<u8> = (0..100u8).collect();
        let mut reader = BufReader::with_capacity(32, &data[..]);
        let mut writer = ScriptedWriter::default();
        assert_eq!(block_on(copy_buf(&mut reader, &mut writer)).unwrap(), 100);
        assert_eq!(writer.data, data);
        assert_eq!(writer.writes, [32, 32, 32, 4]);
        assert_eq!(writer.flushes, 1);
    }

    #[test]
    fn flushes_while_the_reader_is_pending() {
        let script = [
            Step::Ready(b"ping".to_vec()),
            Step::Pending,
            Step::Ready(b"!".to_vec()),
        ];
        let mut reader = BufReader::new(ScriptedReader::new(script));
        let mut writer = BufWriter::new(ScriptedWriter::default());
        let mut fut = Box::pin(copy_buf(&mut reader, &mut writer));
        assert!(fut.as_mut().poll(&mut noop_cx()).is_pending());
        drop(fut);
        assert_eq!(writer.get_ref().data, b"ping");
        assert_eq!(writer.get_ref().flushes, 1);
        assert_eq!(block_on(copy_buf(&mut reader, &mut writer)).unwrap(), 1);
        assert_eq!(writer.get_ref().data, b"ping!");
    }

    #[test]
    fn write_zero_is_an_error() {
        let mut reader: &[u8] = b"abc";
        let mut writer = ScriptedWriter::new([Step::Ready(vec![])]);
        let err = block_on(copy_buf(&mut reader, &mut writer)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    }

    #[cfg(feature = "rt")]
    #[test]
    fn copy_buf_spends_budget_even_between_unbudgeted_objects() {
        use crate::io::util::test_io::yields_to_a_neighbour;
        use std::sync::atomic::Ordering;

        assert!(yields_to_a_neighbour(|neighbour_ran| async move {
            for _ in 0..100_000 {
                let mut reader: &[u8] = b"hello";
                let mut writer = Vec::new();
                copy_buf(&mut reader, &mut writer).await.unwrap();
                if neighbour_ran.load(Ordering::SeqCst) {
                    return true;
                }
            }
            false
        }));
    }
}
