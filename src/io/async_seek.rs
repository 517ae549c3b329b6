//! [`AsyncSeek`]: moving a cursor within a stream of bytes.
//!
//! Seeking is split in two, as in tokio: [`AsyncSeek::start_seek`] submits
//! the move (a file, for instance, hands it to the blocking pool) and
//! [`AsyncSeek::poll_complete`] waits for it and reports the new position.
use std::io::{self, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Seeks within a stream of bytes, asynchronously.
///
/// The counterpart of [`std::io::Seek`]. The utilities (`seek`, `rewind`,
/// `stream_position`) are on [`AsyncSeekExt`](super::AsyncSeekExt) with the
/// `io-util` feature.
pub trait AsyncSeek {
    /// Starts moving to `position`.
    ///
    /// Must be followed by [`poll_complete`](Self::poll_complete) until it
    /// returns `Ready` before another seek is started. An error here means
    /// the seek was not started (another one is in flight, for example).
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for the seek started by [`start_seek`](Self::start_seek) and
    /// returns the new position, counted from the start of the stream.
    ///
    /// With no seek in flight, returns the current position (which is how
    /// `stream_position` is computed); an implementation may do so by
    /// returning `Poll::Ready(Ok(position))` right away.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        T::start_seek(Pin::new(&mut **self.get_mut()), position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        T::poll_complete(Pin::new(&mut **self.get_mut()), cx)
    }
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        T::start_seek(Pin::new(&mut **self.get_mut()), position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        T::poll_complete(Pin::new(&mut **self.get_mut()), cx)
    }
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncSeek,
{
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.as_deref_mut().start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.as_deref_mut().poll_complete(cx)
    }
}

/// Seeks at once (with `std::io::Seek`'s rules: seeking before the start
/// is an error, past the end is allowed); `poll_complete` is always ready.
impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        io::Seek::seek(self.get_mut(), position).map(|_| ())
    }

    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}
