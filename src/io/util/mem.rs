//! In-memory pipes: [`simplex`] (one direction) and [`duplex`] (a pair of
//! connected streams, one pipe each way).
//!
//! A pipe ([`SimplexStream`]) is a byte queue of bounded size, a `closed`
//! flag and one parked waker per side. A write that finds the queue full
//! parks the writer; a read that takes bytes wakes it. A read that finds
//! the queue empty parks the reader; a write wakes it. Closing (shutdown or
//! drop of either end) wakes both: the reader drains what is left and then
//! sees end of file, the writer gets `BrokenPipe`.
//!
//! A [`DuplexStream`] shares its two pipes with its peer behind mutexes.
//! The pipe operations therefore never wake (or drop) a waker themselves:
//! they hand it back in a [`Deferred`], acted on once the lock is released,
//! since a waker may run arbitrary code, including code that locks the
//! same pipe.
//!
//! Reads and writes spend a unit of the task's cooperative budget (with
//! the `rt` feature), as tokio's do: a task moving data through an
//! always-ready pipe still yields.
use crate::io::{split, AsyncRead, AsyncWrite, ReadBuf, ReadHalf, WriteHalf};
use crate::loom::sync::{Arc, Mutex, MutexGuard};

use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::PoisonError;
use std::task::{Context, Poll, Waker};

/// One end of an in-memory, bidirectional byte stream.
///
/// [`duplex`] creates two connected ends: bytes written to one are read
/// from the other, in both directions, like a pair of connected sockets.
/// Each direction buffers at most `max_buf_size` bytes; a writer that finds
/// the buffer full waits until the other end reads.
///
/// # Closing
///
/// When one end is dropped, the other can still read what was already
/// written, then reads end of file (0 bytes). Its writes, including one
/// already waiting for room, fail at once with `BrokenPipe`. Shutting down
/// an end ([`shutdown`](crate::io::AsyncWriteExt::shutdown)) closes only its
/// writing direction.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # async fn dox() -> std::io::Result<()> {
/// let (mut client, mut server) = tokio::io::duplex(64);
/// client.write_all(b"ping").await?;
/// let mut buf = [0u8; 4];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<SimplexStream>>,
    write: Arc<Mutex<SimplexStream>>,
}

/// An in-memory, one-directional byte pipe.
///
/// [`simplex`] creates one already split into its reading and writing
/// halves; [`SimplexStream::new_unsplit`] creates a single value that is
/// both (and [`ReadHalf::unsplit`] puts the halves back together). At most
/// `max_buf_size` bytes are buffered; a writer that finds the buffer full
/// waits for a read.
///
/// The reader sees end of file once the pipe is shut down
/// ([`shutdown`](crate::io::AsyncWriteExt::shutdown)) and drained; writes
/// after that fail with `BrokenPipe`. Dropping a
/// [`WriteHalf`] does not shut the pipe down.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # async fn dox() -> std::io::Result<()> {
/// let (mut rx, mut tx) = tokio::io::simplex(64);
/// tx.write_all(b"ping").await?;
/// let mut buf = [0u8; 4];
/// rx.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    /// Written and not yet read; never longer than `max_buf_size`.
    buffer: VecDeque<u8>,
    /// Shut down (or, inside a `DuplexStream`, one end dropped).
    closed: bool,
    max_buf_size: usize,
    /// The reader parked on an empty pipe.
    read_waker: Option<Waker>,
    /// The writer parked on a full pipe.
    write_waker: Option<Waker>,
}

/// Creates a pair of connected [`DuplexStream`]s, each direction buffering
/// up to `max_buf_size` bytes.
///
/// # Panics
///
/// Panics if `max_buf_size` is 0.
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let one = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    let two = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    let first = DuplexStream {
        read: one.clone(),
        write: two.clone(),
    };
    let second = DuplexStream {
        read: two,
        write: one,
    };
    (first, second)
}

/// Creates a [`SimplexStream`] buffering up to `max_buf_size` bytes,
/// split into its reading and writing halves.
///
/// # Panics
///
/// Panics if `max_buf_size` is 0.
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    split(SimplexStream::new_unsplit(max_buf_size))
}

/// Wakers a pipe operation took out, to wake (or drop) once no lock is
/// held.
#[derive(Default)]
#[must_use]
struct Deferred {
    /// The other side, which can now make progress.
    wake: Option<Waker>,
    /// This side's previous waker, replaced by the current one.
    replaced: Option<Waker>,
}

impl Deferred {
    fn run(self) {
        if let Some(waker) = self.wake {
            waker.wake();
        }
        drop(self.replaced);
    }
}

/// Parks `cx`'s waker in `slot`, handing back the one it replaces.
fn park(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(parked) if parked.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

/// Locks a pipe. Every pipe operation leaves the pipe consistent at each
/// step, so a poisoned lock (a panic elsewhere while it was held) is safe
/// to keep using.
fn lock(pipe: &Mutex<SimplexStream>) -> MutexGuard<'_, SimplexStream> {
    pipe.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs one pipe operation under the task's cooperative budget: the unit
/// is kept if the operation completed.
fn budgeted<T>(cx: &mut Context<'_>, op: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    #[cfg(feature = "rt")]
    {
        let unit = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let res = op(cx);
        if res.is_ready() {
            unit.made_progress();
        }
        res
    }
    #[cfg(not(feature = "rt"))]
    op(cx)
}

impl SimplexStream {
    /// Creates a [`SimplexStream`] buffering up to `max_buf_size` bytes,
    /// usable for both reading and writing (see [`simplex`] for separate
    /// halves).
    ///
    /// # Panics
    ///
    /// Panics if `max_buf_size` is 0.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        SimplexStream {
            buffer: VecDeque::new(),
            closed: false,
            max_buf_size,
            read_waker: None,
            write_waker: None,
        }
    }

    /// Closes the pipe from the writing end: the reader must be told.
    fn close_write(&mut self) -> Deferred {
        self.closed = true;
        Deferred {
            wake: self.read_waker.take(),
            replaced: None,
        }
    }

    /// Closes the pipe from the reading end: the writer must be told.
    fn close_read(&mut self) -> Deferred {
        self.closed = true;
        Deferred {
            wake: self.write_waker.take(),
            replaced: None,
        }
    }

    fn read(
        &mut self,
        cx: &Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> (Poll<io::Result<()>>, Deferred) {
        let mut deferred = Deferred::default();
        if buf.remaining() == 0 {
            return (Poll::Ready(Ok(())), deferred);
        }
        if self.buffer.is_empty() {
            if !self.closed {
                deferred.replaced = park(&mut self.read_waker, cx);
                return (Poll::Pending, deferred);
            }
            // Closed and drained: end of file.
            return (Poll::Ready(Ok(())), deferred);
        }
        let n = self.buffer.len().min(buf.remaining());
        let (front, back) = self.buffer.as_slices();
        let from_front = n.min(front.len());
        buf.put_slice(&front[..from_front]);
        buf.put_slice(&back[..n - from_front]);
        self.buffer.drain(..n);
        deferred.wake = self.write_waker.take();
        (Poll::Ready(Ok(())), deferred)
    }

    fn write(&mut self, cx: &Context<'_>, bufs: &[&[u8]]) -> (Poll<io::Result<usize>>, Deferred) {
        let mut deferred = Deferred::default();
        if self.closed {
            return (Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())), deferred);
        }
        if bufs.iter().all(|b| b.is_empty()) {
            return (Poll::Ready(Ok(0)), deferred);
        }
        let room = self.max_buf_size - self.buffer.len();
        if room == 0 {
            deferred.replaced = park(&mut self.write_waker, cx);
            return (Poll::Pending, deferred);
        }
        let mut written = 0;
        for b in bufs {
            let n = b.len().min(room - written);
            self.buffer.extend(&b[..n]);
            written += n;
            if written == room {
                break;
            }
        }
        deferred.wake = self.read_waker.take();
        (Poll::Ready(Ok(written)), deferred)
    }
}

fn slices<'a>(bufs: &'a [IoSlice<'a>]) -> Vec<&'a [u8]> {
    bufs.iter().map(|b| &**b).collect()
}

impl AsyncRead for SimplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        budgeted(cx, |cx| {
            let (res, deferred) = me.read(cx, buf);
            deferred.run();
            res
        })
    }
}

impl AsyncWrite for SimplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        budgeted(cx, |cx| {
            let (res, deferred) = me.write(cx, &[buf]);
            deferred.run();
            res
        })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        budgeted(cx, |cx| {
            let (res, deferred) = me.write(cx, &slices(bufs));
            deferred.run();
            res
        })
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().close_write().run();
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        budgeted(cx, |cx| {
            let (res, deferred) = lock(&self.read).read(cx, buf);
            deferred.run();
            res
        })
    }
}

impl AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        budgeted(cx, |cx| {
            let (res, deferred) = lock(&self.write).write(cx, &[buf]);
            deferred.run();
            res
        })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        budgeted(cx, |cx| {
            let (res, deferred) = lock(&self.write).write(cx, &slices(bufs));
            deferred.run();
            res
        })
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let deferred = lock(&self.write).close_write();
        deferred.run();
        Poll::Ready(Ok(()))
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        // Each statement releases its lock before the wakers run.
        let reader = lock(&self.write).close_write();
        let writer = lock(&self.read).close_read();
        reader.run();
        writer.run();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::WakeCounter;

    fn read(s: &mut DuplexStream, cx: &mut Context<'_>, n: usize) -> Poll<io::Result<Vec<u8>>> {
        let mut storage = vec![0u8; n];
        let mut buf = ReadBuf::new(&mut storage);
        Pin::new(s)
            .poll_read(cx, &mut buf)
            .map_ok(|()| buf.filled().to_vec())
    }

    fn write(s: &mut DuplexStream, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(s).poll_write(cx, data)
    }

    #[test]
    fn writer_waits_for_room_and_is_woken_by_a_read() {
        let (mut a, mut b) = duplex(4);
        let writer = WakeCounter::new();
        let reader = WakeCounter::new();
        assert!(matches!(
            write(&mut a, &mut writer.cx(), b"abcdef"),
            Poll::Ready(Ok(4))
        ));
        assert!(write(&mut a, &mut writer.cx(), b"ef").is_pending());
        assert_eq!(writer.wakes(), 0);
        // The other direction is independent.
        assert!(matches!(
            write(&mut b, &mut reader.cx(), b"xy"),
            Poll::Ready(Ok(2))
        ));

        assert_eq!(
            read(&mut b, &mut reader.cx(), 3).map(Result::unwrap),
            Poll::Ready(b"abc".to_vec())
        );
        assert_eq!(writer.wakes(), 1);
        assert!(matches!(
            write(&mut a, &mut writer.cx(), b"efgh"),
            Poll::Ready(Ok(3))
        ));
        assert_eq!(
            read(&mut b, &mut reader.cx(), 10).map(Result::unwrap),
            Poll::Ready(b"defg".to_vec())
        );
        assert_eq!(
            read(&mut a, &mut reader.cx(), 10).map(Result::unwrap),
            Poll::Ready(b"xy".to_vec())
        );
    }

    #[test]
    fn reader_waits_for_bytes_and_is_woken_by_a_write() {
        let (mut a, mut b) = duplex(8);
        let reader = WakeCounter::new();
        assert!(read(&mut b, &mut reader.cx(), 4).is_pending());
        assert!(matches!(
            write(&mut a, &mut reader.cx(), b"hi"),
            Poll::Ready(Ok(2))
        ));
        assert_eq!(reader.wakes(), 1);
        assert_eq!(
            read(&mut b, &mut reader.cx(), 4).map(Result::unwrap),
            Poll::Ready(b"hi".to_vec())
        );
    }

    #[test]
    fn dropping_one_end_gives_eof_after_the_data_and_broken_pipe() {
        let (mut a, b) = duplex(4);
        let (mut c, mut d) = duplex(4);
        let writer = WakeCounter::new();
        let reader = WakeCounter::new();

        assert!(matches!(
            write(&mut a, &mut writer.cx(), b"abcd"),
            Poll::Ready(Ok(4))
        ));
        assert!(write(&mut a, &mut writer.cx(), b"e").is_pending());
        assert!(read(&mut a, &mut reader.cx(), 4).is_pending());
        drop(b);
        // Both parked sides were woken.
        assert_eq!(writer.wakes(), 1);
        assert_eq!(reader.wakes(), 1);
        match write(&mut a, &mut writer.cx(), b"e") {
            Poll::Ready(Err(e)) => assert_eq!(e.kind(), io::ErrorKind::BrokenPipe),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            read(&mut a, &mut reader.cx(), 4).map(Result::unwrap),
            Poll::Ready(vec![])
        );

        // Data written before the drop is still delivered.
        assert!(matches!(
            write(&mut c, &mut writer.cx(), b"last"),
            Poll::Ready(Ok(4))
        ));
        drop(c);
        assert_eq!(
            read(&mut d, &mut reader.cx(), 8).map(Result::unwrap),
            Poll::Ready(b"last".to_vec())
        );
        assert_eq!(
            read(&mut d, &mut reader.cx(), 8).map(Result::unwrap),
            Poll::Ready(vec![])
        );
    }

    #[test]
    fn shutdown_closes_one_direction() {
        let (mut a, mut b) = duplex(4);
        let cx = WakeCounter::new();
        assert!(Pin::new(&mut a).poll_shutdown(&mut cx.cx()).is_ready());
        assert_eq!(
            read(&mut b, &mut cx.cx(), 4).map(Result::unwrap),
            Poll::Ready(vec![])
        );
        assert!(matches!(
            write(&mut a, &mut cx.cx(), b"x"),
            Poll::Ready(Err(_))
        ));
        // The other direction still works.
        assert!(matches!(
            write(&mut b, &mut cx.cx(), b"ok"),
            Poll::Ready(Ok(2))
        ));
        assert_eq!(
            read(&mut a, &mut cx.cx(), 4).map(Result::unwrap),
            Poll::Ready(b"ok".to_vec())
        );
    }

    #[test]
    fn vectored_writes_fill_up_to_the_limit() {
        let (mut a, mut b) = duplex(5);
        let cx = WakeCounter::new();
        let bufs = [
            IoSlice::new(b""),
            IoSlice::new(b"abc"),
            IoSlice::new(b"defg"),
        ];
        assert!(a.is_write_vectored());
        assert!(matches!(
            Pin::new(&mut a).poll_write_vectored(&mut cx.cx(), &bufs),
            Poll::Ready(Ok(5))
        ));
        assert_eq!(
            read(&mut b, &mut cx.cx(), 8).map(Result::unwrap),
            Poll::Ready(b"abcde".to_vec())
        );
    }

    #[test]
    fn simplex_halves_and_unsplit() {
        let (mut rx, mut tx) = simplex(8);
        let cx = WakeCounter::new();
        assert!(matches!(
            Pin::new(&mut tx).poll_write(&mut cx.cx(), b"one"),
            Poll::Ready(Ok(3))
        ));
        let mut storage = [0u8; 8];
        let mut buf = ReadBuf::new(&mut storage);
        assert!(Pin::new(&mut rx)
            .poll_read(&mut cx.cx(), &mut buf)
            .is_ready());
        assert_eq!(buf.filled(), b"one");

        let mut pipe = rx.unsplit(tx);
        assert!(Pin::new(&mut pipe)
            .poll_write(&mut cx.cx(), b"two")
            .is_ready());
        assert!(Pin::new(&mut pipe).poll_shutdown(&mut cx.cx()).is_ready());
        let mut buf = ReadBuf::new(&mut storage);
        assert!(Pin::new(&mut pipe)
            .poll_read(&mut cx.cx(), &mut buf)
            .is_ready());
        assert_eq!(buf.filled(), b"two");
        let mut buf = ReadBuf::new(&mut storage);
        assert!(Pin::new(&mut pipe)
            .poll_read(&mut cx.cx(), &mut buf)
            .is_ready());
        assert!(buf.filled().is_empty());
    }

    #[test]
    #[should_panic]
    fn zero_size_panics() {
        let _ = duplex(0);
    }

    #[test]
    fn auto_traits() {
        fn is<T: Send + Sync + Unpin>() {}
        is::<DuplexStream>();
        is::<SimplexStream>();
    }

    #[cfg(feature = "rt")]
    #[test]
    fn a_loop_through_a_duplex_yields_to_other_tasks() {
        use crate::io::util::test_io::yields_to_a_neighbour;
        use crate::io::{AsyncReadExt, AsyncWriteExt};
        use std::sync::atomic::Ordering;

        assert!(yields_to_a_neighbour(|neighbour_ran| async move {
            let (mut tx, mut rx) = duplex(8 * 1024);
            let mut buf = [0u8; 4096];
            for _ in 0..10_000 {
                tx.write_all(&[3; 4096]).await.unwrap();
                rx.read_exact(&mut buf).await.unwrap();
                if neighbour_ran.load(Ordering::SeqCst) {
                    return true;
                }
            }
            false
        }));
    }
}
