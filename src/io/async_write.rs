//! [`AsyncWrite`]: writing bytes without blocking the thread.
//!
//! The trait and its forwarding impls have exactly tokio's shape (the
//! in-memory writers are `Vec<u8>` and the `Cursor`s over `&mut [u8]`,
//! `&mut Vec<u8>`, `Vec<u8>` and `Box<[u8]>`), so a writer written for tokio
//! implements this one unchanged.
use std::io::{self, IoSlice};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Writes bytes to a sink, asynchronously.
///
/// The counterpart of [`std::io::Write`], plus
/// [`poll_shutdown`](Self::poll_shutdown) to close the write side. Each
/// method returns `Poll::Pending` instead of blocking, after arranging for
/// the task to be woken when it may make progress. Utilities (`write_all`,
/// `flush`, `shutdown`, ...) are on [`AsyncWriteExt`](super::AsyncWriteExt)
/// with the `io-util` feature.
pub trait AsyncWrite {
    /// Attempts to write bytes from `buf`, returning how many were written.
    ///
    /// `Ok(0)` usually means the sink no longer accepts bytes (or `buf` was
    /// empty). If the sink cannot take any now, returns `Poll::Pending` and
    /// arranges for the current task to be woken when it can.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>;

    /// Attempts to flush: every byte written so far reaches its
    /// destination before this returns `Ready(Ok(()))`.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Attempts to shut the writer down, flushing first: once it returns
    /// `Ready(Ok(()))` the sink is closed (a TCP stream sends its FIN), and
    /// further writes may fail.
    ///
    /// Shutting down an already shut down writer should succeed again.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Like [`poll_write`](Self::poll_write), from several buffers in order.
    ///
    /// The default writes the first non-empty buffer with `poll_write`
    /// (or an empty one if all are empty); writers that can do better say
    /// so with [`is_write_vectored`](Self::is_write_vectored).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().map(|b| &**b).find(|b| !b.is_empty());
        self.poll_write(cx, first.unwrap_or(&[]))
    }

    /// Whether [`poll_write_vectored`](Self::poll_write_vectored) is
    /// efficient (writes several buffers at once). `false` by default.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// Forwards every method of `AsyncWrite` to `**self`, for the pointer types
/// whose target is `Unpin`.
macro_rules! forward_to_unpin_target {
    () => {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            T::poll_write(Pin::new(&mut **self.get_mut()), cx, buf)
        }

        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            T::poll_write_vectored(Pin::new(&mut **self.get_mut()), cx, bufs)
        }

        fn is_write_vectored(&self) -> bool {
            T::is_write_vectored(&**self)
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            T::poll_flush(Pin::new(&mut **self.get_mut()), cx)
        }

        fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            T::poll_shutdown(Pin::new(&mut **self.get_mut()), cx)
        }
    };
}

impl<T: ?Sized + AsyncWrite + Unpin> AsyncWrite for Box<T> {
    forward_to_unpin_target!();
}

impl<T: ?Sized + AsyncWrite + Unpin> AsyncWrite for &mut T {
    forward_to_unpin_target!();
}

impl<P> AsyncWrite for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncWrite,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.as_deref_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.as_deref_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.as_ref().get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.as_deref_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.as_deref_mut().poll_shutdown(cx)
    }
}

/// Appends to the vector; never pending, never fails.
impl AsyncWrite for Vec<u8> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(io::Write::write_vectored(self.get_mut(), bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// `AsyncWrite` for a `Cursor` over `$inner`, through its `std::io::Write`
/// impl (which decides whether the cursor may grow the buffer); shutting
/// down is flushing.
macro_rules! cursor_writer {
    ($($inner:ty),* $(,)?) => {$(
        impl AsyncWrite for io::Cursor<$inner> {
            fn poll_write(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                Poll::Ready(io::Write::write(self.get_mut(), buf))
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                Poll::Ready(io::Write::write_vectored(self.get_mut(), bufs))
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(io::Write::flush(self.get_mut()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.poll_flush(cx)
            }
        }
    )*};
}

cursor_writer!(&mut [u8], &mut Vec<u8>, Vec<u8>, Box<[u8]>);
