//! [`AsyncBufRead`]: a reader with an internal buffer that can be inspected.
use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::AsyncRead;

/// A reader with an internal buffer, asynchronously: lines and delimited
/// records can be found in it without copying byte by byte.
///
/// The counterpart of [`std::io::BufRead`]. Utilities (`read_line`,
/// `lines`, `read_until`, ...) are on
/// [`AsyncBufReadExt`](super::AsyncBufReadExt) with the `io-util` feature.
pub trait AsyncBufRead: AsyncRead {
    /// Attempts to return the contents of the internal buffer, filling it
    /// from the inner reader if it is empty.
    ///
    /// On success returns `Poll::Ready(Ok(buf))`; an empty `buf` means end
    /// of file. The bytes stay buffered until [`consume`](Self::consume)
    /// is called. If no data is available, returns `Poll::Pending` and
    /// arranges for the current task to be woken when it is.
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;

    /// Marks `amt` bytes of the buffer returned by
    /// [`poll_fill_buf`](Self::poll_fill_buf) as read: they will not be
    /// returned again.
    ///
    /// `amt` must be at most the length of that buffer; the behaviour for a
    /// larger `amt` is up to the implementation (it may panic).
    fn consume(self: Pin<&mut Self>, amt: usize);
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for Box<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        T::poll_fill_buf(Pin::new(&mut **self.get_mut()), cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        T::consume(Pin::new(&mut **self.get_mut()), amt);
    }
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for &mut T {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        T::poll_fill_buf(Pin::new(&mut **self.get_mut()), cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        T::consume(Pin::new(&mut **self.get_mut()), amt);
    }
}

impl<P> AsyncBufRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncBufRead,
{
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.as_deref_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.as_deref_mut().consume(amt);
    }
}

/// A slice is its own buffer.
impl AsyncBufRead for &[u8] {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(Ok(*self.get_mut()))
    }

    /// # Panics
    ///
    /// Panics if `amt` is longer than the slice.
    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        *this = &this[amt..];
    }
}

/// The buffer is the data from the cursor's position on.
impl<T: AsRef<[u8]> + Unpin> AsyncBufRead for io::Cursor<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(io::BufRead::fill_buf(self.get_mut()))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        io::BufRead::consume(self.get_mut(), amt);
    }
}
