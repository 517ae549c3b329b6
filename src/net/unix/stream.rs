//! `UnixStream`: a connected Unix-domain stream socket.
//!
//! `connect` is non-blocking like TCP's: `EINPROGRESS` means wait until
//! writable and read `SO_ERROR`. (A full listen backlog makes a Unix
//! `connect(2)` fail with `EAGAIN` instead; that is returned as the
//! `WouldBlock` error it is, as tokio does.) A fresh `pair` is assumed
//! writable, an accepted stream readable and writable.
use crate::io::poll_evented::PollEvented;
use crate::io::{AsyncRead, AsyncWrite, Interest, Ready};
use crate::net::evented::{poll_read_via, poll_write_via};
use crate::net::unix::socket_addr::{self, SocketAddr};
use crate::net::unix::split::{
    split, split_owned, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf,
};
use crate::net::unix::ucred::{self, UCred};
use crate::net::util::{check_socket_for_blocking, is_connect_in_progress, new_socket};
use socket2::{Domain, Socket, Type};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::os::unix::net;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A structure representing a connected Unix socket.
///
/// This socket can be connected directly with [`UnixStream::connect`] or
/// accepted from a listener with [`UnixListener::accept`]. Additionally, a
/// pair of anonymous Unix sockets can be created with
/// `UnixStream::pair`.
///
/// To shut down the stream in the write direction, you can call the
/// [`shutdown()`] method. This will cause the other peer to receive a read
/// of length 0, indicating that no more data will be sent. This only closes
/// the stream in one direction.
///
/// [`shutdown()`]: fn@crate::io::AsyncWriteExt::shutdown
/// [`UnixListener::accept`]: crate::net::UnixListener::accept
pub struct UnixStream {
    pub(super) io: PollEvented<net::UnixStream>,
}

impl UnixStream {
    /// Connects to the socket named by `path`.
    ///
    /// This function will create a new Unix socket and connect to the path
    /// specified, associating the returned stream with the default event
    /// loop's handle. A path starting with a NUL byte names a socket in the
    /// abstract namespace.
    pub async fn connect<P>(path: P) -> io::Result<UnixStream>
    where
        P: AsRef<Path>,
    {
        let addr = socket_addr::from_path(path.as_ref())?;
        UnixStream::connect_addr(&addr).await
    }

    /// Connects to the socket named by the socket address `addr`.
    pub async fn connect_addr(addr: &SocketAddr) -> io::Result<UnixStream> {
        let socket = new_socket(Domain::UNIX, Type::STREAM)?;
        match socket.connect(&addr.to_sock_addr()?) {
            Ok(()) => {}
            Err(e) if is_connect_in_progress(&e) => {}
            Err(e) => return Err(e),
        }
        UnixStream::connect_std(socket.into()).await
    }

    /// Registers a socket whose non-blocking `connect` is under way and
    /// waits for its outcome.
    pub(crate) async fn connect_std(stream: net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(stream)?;
        stream.io.connected().await?;
        Ok(stream)
    }

    #[track_caller]
    pub(crate) fn new(stream: net::UnixStream) -> io::Result<UnixStream> {
        let io = PollEvented::new(stream)?;
        Ok(UnixStream { io })
    }

    pub(crate) fn new_accepted(stream: net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(stream)?;
        stream
            .io
            .registration()
            .assume_ready(Ready::READABLE | Ready::WRITABLE);
        Ok(stream)
    }

    /// Waits for any of the requested ready states.
    ///
    /// This function is usually paired with `try_read()` or `try_write()`.
    /// It can be used to concurrently read / write to the same socket on a
    /// single task without splitting the socket.
    ///
    /// The function may complete without the socket being ready. This is a
    /// false-positive and attempting an operation will return with
    /// `io::ErrorKind::WouldBlock`. The function can also return with an
    /// empty [`Ready`] set, so you should always check the returned value
    /// and possibly wait again if the requested states are not set.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.io.ready(interest).await
    }

    /// Waits for the socket to become readable.
    ///
    /// This function is equivalent to `ready(Interest::READABLE)` and is
    /// usually paired with `try_read()`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await?;
        Ok(())
    }

    /// Polls for read readiness.
    ///
    /// If the unix stream is not currently ready for reading, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the unix stream becomes ready for reading, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_read_ready` or `poll_read`,
    /// only the `Waker` from the `Context` passed to the most recent call
    /// is scheduled to receive a wakeup.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_read_ready(cx)
    }

    /// Try to read data from the stream into the provided buffer, returning
    /// how many bytes were read.
    ///
    /// Receives any pending data from the socket but does not wait for new
    /// data to arrive. On success, returns the number of bytes read.
    ///
    /// # Return
    ///
    /// If data is successfully read, `Ok(n)` is returned, where `n` is the
    /// number of bytes read. If `n` is `0`, then it can indicate one of two
    /// scenarios:
    ///
    /// 1. The stream's read half is closed and will no longer yield data.
    /// 2. The specified buffer was 0 bytes in length.
    ///
    /// If the stream is not ready to read data,
    /// `Err(io::ErrorKind::WouldBlock)` is returned.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_read(buf)
    }

    /// Tries to read data from the stream into the provided buffers,
    /// returning how many bytes were read.
    ///
    /// Data is copied to fill each buffer in order, with the final buffer
    /// written to possibly being only partially filled. This method behaves
    /// equivalently to a single call to [`try_read()`] with concatenated
    /// buffers.
    ///
    /// [`try_read()`]: UnixStream::try_read()
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.io.try_read_vectored(bufs)
    }

    /// Tries to read data from the stream into the spare capacity of `buf`
    /// (a `bytes::BufMut`, such as `Vec<u8>` or `BytesMut`), advancing its
    /// write position by the number of bytes read, which is returned.
    ///
    /// The spare capacity may be uninitialised: only the kernel writes
    /// into it. A buffer with no spare capacity is grown by
    /// `BufMut::chunk_mut` first (`Vec` and `BytesMut` do so).
    ///
    /// `Ok(0)` means the stream reached end-of-file. If it is not ready
    /// to read, `Err(io::ErrorKind::WouldBlock)` is returned, exactly as
    /// from [`try_read()`]; it is usually paired with `readable()`.
    ///
    /// [`try_read()`]: UnixStream::try_read()
    #[cfg(feature = "io-util")]
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_read_buf(buf)
    }

    /// Waits for the socket to become writable.
    ///
    /// This function is equivalent to `ready(Interest::WRITABLE)` and is
    /// usually paired with `try_write()`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await?;
        Ok(())
    }

    /// Polls for write readiness.
    ///
    /// If the unix stream is not currently ready for writing, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the unix stream becomes ready for writing, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_write_ready` or `poll_write`,
    /// only the `Waker` from the `Context` passed to the most recent call
    /// is scheduled to receive a wakeup.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_write_ready(cx)
    }

    /// Tries to write a buffer to the stream, returning how many bytes were
    /// written.
    ///
    /// The function will attempt to write the entire contents of `buf`, but
    /// only part of the buffer may be written. If the stream is not ready
    /// to write data, `Err(io::ErrorKind::WouldBlock)` is returned.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_write(buf)
    }

    /// Tries to write several buffers to the stream, returning how many
    /// bytes were written.
    ///
    /// Data is written from each buffer in order, with the final buffer
    /// read from possible being only partially consumed. This method
    /// behaves equivalently to a single call to [`try_write()`] with
    /// concatenated buffers.
    ///
    /// [`try_write()`]: UnixStream::try_write()
    pub fn try_write_vectored(&self, buf: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.io.try_write_vectored(buf)
    }

    /// Tries to read or write from the socket using a user-provided IO
    /// operation.
    ///
    /// If the socket is ready, the provided closure is called; a
    /// `WouldBlock` it returns clears the readiness. If the socket is not
    /// ready, the closure is not called and `WouldBlock` is returned. The
    /// closure should only return `WouldBlock` when its own syscall on this
    /// socket did, and should not use this type's methods.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.try_io(interest, f)
    }

    /// Reads or writes from the socket using a user-provided IO operation.
    ///
    /// The readiness of the socket is awaited and when the socket is ready,
    /// the provided closure is called; a `WouldBlock` from the closure
    /// clears the readiness and waits again. See [`try_io`](Self::try_io)
    /// for the caveats.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.async_io(interest, f).await
    }

    /// Creates new `UnixStream` from a `std::os::unix::net::UnixStream`.
    ///
    /// This function is intended to be used to wrap a `UnixStream` from the
    /// standard library in the tokiwa equivalent.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the stream is in
    /// non-blocking mode. Otherwise all I/O operations on the stream
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`]. Debug builds
    /// panic on a blocking stream, as tokio's do.
    ///
    /// [`set_nonblocking`]: std::os::unix::net::UnixStream::set_nonblocking
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(stream: net::UnixStream) -> io::Result<UnixStream> {
        check_socket_for_blocking(&stream)?;
        UnixStream::new(stream)
    }

    /// Turns a `tokiwa::net::UnixStream` into a
    /// [`std::os::unix::net::UnixStream`].
    ///
    /// The returned stream will have nonblocking mode set as `true`. Use
    /// [`set_nonblocking`] to change the blocking mode if needed.
    ///
    /// [`set_nonblocking`]: fn@std::os::unix::net::UnixStream::set_nonblocking
    pub fn into_std(self) -> io::Result<net::UnixStream> {
        self.io.into_inner()
    }

    /// Creates an unnamed pair of connected sockets.
    ///
    /// This function will create a pair of interconnected Unix sockets for
    /// communicating back and forth between one another. Each socket will
    /// be associated with the default event loop's handle.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = Socket::pair(Domain::UNIX, Type::STREAM.nonblocking(), None)?;
        let a = UnixStream::new(a.into())?;
        let b = UnixStream::new(b.into())?;
        // Fresh buffers: writable now, readable once the peer writes.
        a.io.registration().assume_ready(Ready::WRITABLE);
        b.io.registration().assume_ready(Ready::WRITABLE);
        Ok((a, b))
    }

    /// Returns the socket address of the local half of this connection.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the socket address of the remote half of this connection.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr().map(SocketAddr)
    }

    /// Returns effective credentials of the process which called `connect`
    /// or `pair`.
    pub fn peer_cred(&self) -> io::Result<UCred> {
        ucred::peer_cred(self)
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Splits a `UnixStream` into a read half and a write half, which can
    /// be used to read and write the stream concurrently.
    ///
    /// This method is more efficient than [`into_split`], but the halves
    /// cannot be moved into independently spawned tasks.
    ///
    /// [`into_split`]: Self::into_split()
    // The lifetimes show in the documentation that the split borrows.
    #[allow(clippy::needless_lifetimes)]
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        split(self)
    }

    /// Splits a `UnixStream` into a read half and a write half, which can
    /// be used to read and write the stream concurrently.
    ///
    /// Unlike [`split`], the owned halves can be moved to separate tasks,
    /// however this comes at the cost of a heap allocation.
    ///
    /// **Note:** Dropping the write half will shut down the write half of
    /// the stream. This is equivalent to calling
    /// [`shutdown()`](crate::io::AsyncWriteExt::shutdown) on the
    /// `UnixStream`.
    ///
    /// [`split`]: Self::split()
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split_owned(self)
    }
}

impl TryFrom<net::UnixStream> for UnixStream {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`UnixStream::from_std(stream)`](UnixStream::from_std).
    fn try_from(stream: net::UnixStream) -> io::Result<Self> {
        Self::from_std(stream)
    }
}

impl AsyncRead for UnixStream {
    poll_read_via!(io);
}

impl AsyncWrite for UnixStream {
    poll_write_via!(io);

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_shutdown_write(cx)
    }
}

impl fmt::Debug for UnixStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRef<Self> for UnixStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

impl AsRawFd for UnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for UnixStream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
