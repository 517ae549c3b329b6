//! [`AsyncRead`]: reading bytes without blocking the thread.
//!
//! The trait and its forwarding impls have exactly tokio's shape, so a
//! reader written for tokio implements this one unchanged. A read fills a
//! [`ReadBuf`] instead of returning a count: the buffer may be
//! uninitialised memory, and its cursors record how much was written.
use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ReadBuf;

/// Reads bytes from a source, asynchronously.
///
/// The counterpart of [`std::io::Read`]: instead of blocking until data is
/// available, [`poll_read`](Self::poll_read) returns `Poll::Pending` and
/// arranges for the task to be woken when it may make progress. Utilities
/// (`read`, `read_exact`, `read_to_end`, ...) are on
/// [`AsyncReadExt`](super::AsyncReadExt) with the `io-util` feature.
pub trait AsyncRead {
    /// Attempts to read data into `buf`.
    ///
    /// On success, returns `Poll::Ready(Ok(()))` and places the data in the
    /// unfilled part of `buf`, growing its filled part. If nothing was
    /// filled (and `buf` had room), the source has reached end of file.
    ///
    /// If no data is available, returns `Poll::Pending` and arranges for the
    /// current task (through `cx.waker()`) to be woken when it is. Errors
    /// are returned as `Poll::Ready(Err(e))`.
    ///
    /// An implementation must fill the `ReadBuf` it is given, not replace it
    /// with another one.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>;
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for Box<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        T::poll_read(Pin::new(&mut **self.get_mut()), cx, buf)
    }
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for &mut T {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        T::poll_read(Pin::new(&mut **self.get_mut()), cx, buf)
    }
}

impl<P> AsyncRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncRead,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.as_deref_mut().poll_read(cx, buf)
    }
}

/// Reading from a slice takes bytes off its front.
impl AsyncRead for &[u8] {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = this.len().min(buf.remaining());
        let (head, rest) = this.split_at(n);
        buf.put_slice(head);
        *this = rest;
        Poll::Ready(Ok(()))
    }
}

/// Reads from the cursor's position and advances it; a position past the
/// end reads nothing (end of file).
impl<T: AsRef<[u8]> + Unpin> AsyncRead for io::Cursor<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let data = this.get_ref().as_ref();
        let start = match usize::try_from(this.position()) {
            Ok(start) if start <= data.len() => start,
            _ => return Poll::Ready(Ok(())),
        };
        let n = (data.len() - start).min(buf.remaining());
        buf.put_slice(&data[start..start + n]);
        this.set_position((start + n) as u64);
        Poll::Ready(Ok(()))
    }
}
