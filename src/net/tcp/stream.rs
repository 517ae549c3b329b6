//! `TcpStream`: a connected TCP socket.
//!
//! `connect` starts a non-blocking `connect(2)`, registers the socket,
//! waits until it is writable (the handshake finished one way or the
//! other) and then reads `SO_ERROR`: a refused or unreachable peer is that
//! error. Reads and writes go through `PollEvented`; the `try_*` methods
//! are one syscall gated on the readiness the reactor last reported.
use crate::io::poll_evented::{copy_to, copy_to_uninit, PollEvented};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use crate::net::addr::{try_each, ToSocketAddrs};
use crate::net::evented::{poll_read_via, poll_write_via};
use crate::net::tcp::split::{
    split, split_owned, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf,
};
use crate::net::util::{check_socket_for_blocking, is_connect_in_progress, new_socket};
use socket2::{Domain, SockRef, Type};
use std::fmt;
use std::io;
use std::net::{self, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// A TCP stream between a local and a remote socket.
///
/// A TCP stream can either be created by connecting to an endpoint, via the
/// [`connect`] method, or by [accepting] a connection from a [listener]. A
/// TCP stream can also be created via the [`TcpSocket`] type.
///
/// Reading and writing to a `TcpStream` is usually done using the
/// convenience methods found on the [`AsyncReadExt`] and [`AsyncWriteExt`]
/// traits.
///
/// [`connect`]: method@TcpStream::connect
/// [accepting]: method@crate::net::TcpListener::accept
/// [listener]: struct@crate::net::TcpListener
/// [`TcpSocket`]: struct@crate::net::TcpSocket
/// [`AsyncReadExt`]: trait@crate::io::AsyncReadExt
/// [`AsyncWriteExt`]: trait@crate::io::AsyncWriteExt
///
/// # Examples
///
/// ```no_run
/// use tokiwa::net::TcpStream;
/// use tokiwa::io::AsyncWriteExt;
/// use std::error::Error;
///
/// #[tokiwa::main]
/// async fn main() -> Result<(), Box<dyn Error>> {
///     // Connect to a peer
///     let mut stream = TcpStream::connect("127.0.0.1:8080").await?;
///
///     // Write some data.
///     stream.write_all(b"hello world!").await?;
///
///     Ok(())
/// }
/// ```
///
/// To shut down the stream in the write direction, you can call the
/// [`shutdown()`] method. This will cause the other peer to receive a read
/// of length 0, indicating that no more data will be sent. This only closes
/// the stream in one direction.
///
/// [`shutdown()`]: fn@crate::io::AsyncWriteExt::shutdown
pub struct TcpStream {
    pub(super) io: PollEvented<net::TcpStream>,
}

impl TcpStream {
    /// Opens a TCP connection to a remote host.
    ///
    /// `addr` is an address of the remote host. Anything which implements
    /// the [`ToSocketAddrs`] trait can be supplied as the address. If `addr`
    /// yields multiple addresses, connect will be attempted with each of the
    /// addresses until a connection is successful. If none of the addresses
    /// result in a successful connection, the error returned from the last
    /// connection attempt (the last address) is returned.
    ///
    /// To configure the socket before connecting, you can use the
    /// [`TcpSocket`](crate::net::TcpSocket) type.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokiwa::net::TcpStream;
    /// use tokiwa::io::AsyncWriteExt;
    /// use std::error::Error;
    ///
    /// #[tokiwa::main]
    /// async fn main() -> Result<(), Box<dyn Error>> {
    ///     // Connect to a peer
    ///     let mut stream = TcpStream::connect("127.0.0.1:8080").await?;
    ///
    ///     // Write some data.
    ///     stream.write_all(b"hello world!").await?;
    ///
    ///     Ok(())
    /// }
    /// ```
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        try_each(addr, TcpStream::connect_addr).await
    }

    async fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        let socket = new_socket(Domain::for_address(addr), Type::STREAM)?;
        match socket.connect(&addr.into()) {
            Ok(()) => {}
            Err(e) if is_connect_in_progress(&e) => {}
            Err(e) => return Err(e),
        }
        TcpStream::connect_std(socket.into()).await
    }

    /// Registers a socket whose non-blocking `connect` is under way and
    /// waits for its outcome.
    pub(crate) async fn connect_std(stream: net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::new(stream)?;
        stream.io.connected().await?;
        Ok(stream)
    }

    #[track_caller]
    pub(crate) fn new(stream: net::TcpStream) -> io::Result<TcpStream> {
        let io = PollEvented::new(stream)?;
        Ok(TcpStream { io })
    }

    /// A stream fresh from `accept`: the peer may well have sent already,
    /// so the first read tries the socket without waiting for an event.
    pub(crate) fn new_accepted(stream: net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::new(stream)?;
        stream
            .io
            .registration()
            .assume_ready(Ready::READABLE | Ready::WRITABLE);
        Ok(stream)
    }

    /// Creates new `TcpStream` from a `std::net::TcpStream`.
    ///
    /// This function is intended to be used to wrap a TCP stream from the
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
    /// [`set_nonblocking`]: std::net::TcpStream::set_nonblocking
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::error::Error;
    /// use tokiwa::net::TcpStream;
    ///
    /// #[tokiwa::main]
    /// async fn main() -> Result<(), Box<dyn Error>> {
    ///     let std_stream = std::net::TcpStream::connect("127.0.0.1:34254")?;
    ///     std_stream.set_nonblocking(true)?;
    ///     let stream = TcpStream::from_std(std_stream)?;
    ///     # let _ = stream;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(stream: net::TcpStream) -> io::Result<TcpStream> {
        check_socket_for_blocking(&stream)?;
        TcpStream::new(stream)
    }

    /// Turns a `tokiwa::net::TcpStream` into a [`std::net::TcpStream`].
    ///
    /// The returned [`std::net::TcpStream`] will have nonblocking mode set
    /// as `true`. Use [`set_nonblocking`] to change the blocking mode if
    /// needed.
    ///
    /// [`set_nonblocking`]: fn@std::net::TcpStream::set_nonblocking
    pub fn into_std(self) -> io::Result<net::TcpStream> {
        self.io.into_inner()
    }

    /// Returns the local address that this stream is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Returns the remote address that this stream is connected to.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Attempts to receive data on the socket, without removing that data
    /// from the queue, registering the current task for wakeup if data is
    /// not yet available.
    ///
    /// Note that on multiple calls to `poll_peek`, `poll_read` or
    /// `poll_read_ready`, only the `Waker` from the `Context` passed to the
    /// most recent call is scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if data is not yet available.
    /// * `Poll::Ready(Ok(n))` if data is available. `n` is the number of
    ///   bytes peeked, which were also placed in `buf`.
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        self.io.poll_recv(cx, buf, |s, b| {
            let n = self
                .io
                .read_queued_or(false, b, copy_to_uninit, |b| s.peek(b))?;
            Ok((n, n))
        })
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
    /// This method is cancel safe. Once a readiness event occurs, the method
    /// will continue to return immediately until the readiness event is
    /// consumed by an attempt to read or write that fails with
    /// `WouldBlock` or `Poll::Pending`.
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
    /// This method is cancel safe. Once a readiness event occurs, the method
    /// will continue to return immediately until the readiness event is
    /// consumed by an attempt to read that fails with `WouldBlock` or
    /// `Poll::Pending`.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await?;
        Ok(())
    }

    /// Polls for read readiness.
    ///
    /// If the tcp stream is not currently ready for reading, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the tcp stream becomes ready for reading, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_read_ready`, `poll_read` or
    /// `poll_peek`, only the `Waker` from the `Context` passed to the most
    /// recent call is scheduled to receive a wakeup.
    ///
    /// This function is intended for cases where creating and pinning a
    /// future via [`readable`] is not feasible. Where possible, using
    /// [`readable`] is preferred, as this supports polling from multiple
    /// tasks at once.
    ///
    /// [`readable`]: method@Self::readable
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_read_ready(cx)
    }

    /// Tries to read data from the stream into the provided buffer,
    /// returning how many bytes were read.
    ///
    /// Receives any pending data from the socket but does not wait for new
    /// data to arrive. On success, returns the number of bytes read.
    /// Because `try_read()` is non-blocking, the buffer does not have to be
    /// stored by the async task and can exist entirely on the stack.
    ///
    /// Usually, [`readable()`] or [`ready()`] is used with this function.
    ///
    /// [`readable()`]: TcpStream::readable()
    /// [`ready()`]: TcpStream::ready()
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
    /// [`try_read()`]: TcpStream::try_read()
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
    /// [`try_read()`]: TcpStream::try_read()
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
    /// This method is cancel safe. Once a readiness event occurs, the method
    /// will continue to return immediately until the readiness event is
    /// consumed by an attempt to write that fails with `WouldBlock` or
    /// `Poll::Pending`.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await?;
        Ok(())
    }

    /// Polls for write readiness.
    ///
    /// If the tcp stream is not currently ready for writing, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the tcp stream becomes ready for writing, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_write_ready` or `poll_write`,
    /// only the `Waker` from the `Context` passed to the most recent call is
    /// scheduled to receive a wakeup.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_write_ready(cx)
    }

    /// Try to write a buffer to the stream, returning how many bytes were
    /// written.
    ///
    /// The function will attempt to write the entire contents of `buf`, but
    /// only part of the buffer may be written.
    ///
    /// If the stream is not ready to write data,
    /// `Err(io::ErrorKind::WouldBlock)` is returned.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_write(buf)
    }

    /// Tries to write several buffers to the stream, returning how many
    /// bytes were written.
    ///
    /// Data is written from each buffer in order, with the final buffer
    /// read from possibly being only partially consumed. This method
    /// behaves equivalently to a single call to [`try_write()`] with
    /// concatenated buffers.
    ///
    /// [`try_write()`]: TcpStream::try_write()
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.io.try_write_vectored(bufs)
    }

    /// Tries to read or write from the socket using a user-provided IO
    /// operation.
    ///
    /// If the socket is ready, the provided closure is called. The closure
    /// should attempt to perform IO operation on the socket by manually
    /// calling the appropriate syscall. If the operation fails because the
    /// socket is not actually ready, then the closure should return a
    /// `WouldBlock` error and the readiness flag is cleared. The return
    /// value of the closure is then returned by `try_io`.
    ///
    /// If the socket is not ready, then the closure is not called and a
    /// `WouldBlock` error is returned.
    ///
    /// The closure should only return a `WouldBlock` error if it has
    /// performed an IO operation on the socket that failed due to the
    /// socket not being ready. Returning a `WouldBlock` error in any other
    /// situation will incorrectly clear the readiness flag, which can cause
    /// the socket to behave incorrectly.
    ///
    /// The closure should not perform the IO operation using any of the
    /// methods defined on the tokiwa `TcpStream` type, as this will mess
    /// with the readiness flag and can cause the socket to behave
    /// incorrectly.
    ///
    /// This method is not intended to be used with combined interests. The
    /// closure should perform only one type of IO operation, so it should
    /// not require more than one ready state.
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
    /// the provided closure is called. The closure should attempt to
    /// perform IO operation on the socket by manually calling the
    /// appropriate syscall. If the operation fails because the socket is
    /// not actually ready, then the closure should return a `WouldBlock`
    /// error. In such case the readiness flag is cleared and the socket
    /// readiness is awaited again. This loop is repeated until the closure
    /// returns an `Ok` or an error other than `WouldBlock`.
    ///
    /// The same caveats as for [`try_io`](Self::try_io) apply.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.async_io(interest, f).await
    }

    /// Receives data on the socket from the remote address to which it is
    /// connected, without removing that data from the queue. On success,
    /// returns the number of bytes peeked.
    ///
    /// Successive calls return the same data. This is accomplished by
    /// passing `MSG_PEEK` as a flag to the underlying `recv` system call.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If the method is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no peek was performed, and that `buf` has not
    /// been modified.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(Interest::READABLE, || {
                self.io
                    .read_queued_or(false, &mut *buf, copy_to, |buf| self.io.peek(buf))
            })
            .await
    }

    /// Gets the value of the `TCP_NODELAY` option on this socket.
    ///
    /// For more information about this option, see [`set_nodelay`].
    ///
    /// [`set_nodelay`]: TcpStream::set_nodelay
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.nodelay()
    }

    /// Sets the value of the `TCP_NODELAY` option on this socket.
    ///
    /// If set, this option disables the Nagle algorithm. This means that
    /// segments are always sent as soon as possible, even if there is only
    /// a small amount of data. When not set, data is buffered until there
    /// is a sufficient amount to send out, thereby avoiding the frequent
    /// sending of small packets.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.set_nodelay(nodelay)
    }

    /// Gets the value of the `TCP_QUICKACK` option on this socket.
    ///
    /// For more information about this option, see [`set_quickack`].
    ///
    /// [`set_quickack`]: TcpStream::set_quickack
    pub fn quickack(&self) -> io::Result<bool> {
        SockRef::from(self).tcp_quickack()
    }

    /// Enable or disable `TCP_QUICKACK`.
    ///
    /// This flag causes Linux to eagerly send `ACK`s rather than delaying
    /// them. Linux may reset this flag after further operations on the
    /// socket.
    ///
    /// See [`man 7 tcp`](https://man7.org/linux/man-pages/man7/tcp.7.html).
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        SockRef::from(self).set_tcp_quickack(quickack)
    }

    /// Reads the linger duration for this socket by getting the `SO_LINGER`
    /// option.
    ///
    /// For more information about this option, see [`set_zero_linger`] and
    /// [`set_linger`].
    ///
    /// [`set_linger`]: TcpStream::set_linger
    /// [`set_zero_linger`]: TcpStream::set_zero_linger
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        SockRef::from(self).linger()
    }

    /// Sets the linger duration of this socket by setting the `SO_LINGER`
    /// option.
    ///
    /// This option controls the action taken when a stream has unsent
    /// messages and the stream is closed. If `SO_LINGER` is set, the system
    /// shall block the process until it can transmit the data or until the
    /// time expires.
    ///
    /// If `SO_LINGER` is not specified, and the stream is closed, the
    /// system handles the call in a way that allows the process to continue
    /// as quickly as possible.
    ///
    /// This option is deprecated because setting `SO_LINGER` on a socket
    /// used with tokio is always incorrect as it leads to blocking the
    /// thread when the socket is closed. For more details, please see:
    ///
    /// > Volumes of communications have been devoted to the intricacies of
    /// > `SO_LINGER` versus non-blocking (`O_NONBLOCK`) sockets. From what I
    /// > can tell, the final word is: don't do it. Rely on the `shutdown()`-
    /// > followed-by-`read()`-eof technique instead.
    /// >
    /// > From [The ultimate `SO_LINGER` page, or: why is my tcp not reliable](https://blog.netherlabs.nl/articles/2009/01/18/the-ultimate-so_linger-page-or-why-is-my-tcp-not-reliable)
    ///
    /// Although this method is deprecated, it will not be removed from
    /// tokiwa.
    ///
    /// Note that the special case of setting `SO_LINGER` to zero does not
    /// lead to blocking. tokiwa provides [`set_zero_linger`] for this
    /// purpose.
    ///
    /// [`set_zero_linger`]: TcpStream::set_zero_linger
    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        SockRef::from(self).set_linger(dur)
    }

    /// Sets a linger duration of zero on this socket by setting the
    /// `SO_LINGER` option.
    ///
    /// This causes the connection to be forcefully aborted ("abortive
    /// close") when the socket is dropped or closed. Instead of the normal
    /// TCP shutdown handshake (`FIN`/`ACK`), a TCP `RST` (reset) segment is
    /// sent to the peer, and the socket immediately discards any unsent
    /// data residing in the socket send buffer.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        SockRef::from(self).set_linger(Some(Duration::ZERO))
    }

    /// Gets the value of the `IP_TTL` option for this socket.
    ///
    /// For more information about this option, see [`set_ttl`].
    ///
    /// [`set_ttl`]: TcpStream::set_ttl
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets the value for the `IP_TTL` option on this socket.
    ///
    /// This value sets the time-to-live field that is used in every packet
    /// sent from this socket.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }

    /// Splits a `TcpStream` into a read half and a write half, which can be
    /// used to read and write the stream concurrently.
    ///
    /// This method is more efficient than [`into_split`], but the halves
    /// cannot be moved into independently spawned tasks.
    ///
    /// [`into_split`]: TcpStream::into_split()
    // The lifetimes show in the documentation that the split borrows.
    #[allow(clippy::needless_lifetimes)]
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        split(self)
    }

    /// Splits a `TcpStream` into a read half and a write half, which can be
    /// used to read and write the stream concurrently.
    ///
    /// Unlike [`split`], the owned halves can be moved to separate tasks,
    /// however this comes at the cost of a heap allocation.
    ///
    /// **Note:** Dropping the write half will shut down the write half of
    /// the TCP stream. This is equivalent to calling
    /// [`shutdown()`](crate::io::AsyncWriteExt::shutdown) on the
    /// `TcpStream`.
    ///
    /// [`split`]: TcpStream::split()
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split_owned(self)
    }
}

impl TryFrom<net::TcpStream> for TcpStream {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`TcpStream::from_std(stream)`](TcpStream::from_std).
    fn try_from(stream: net::TcpStream) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

impl AsyncRead for TcpStream {
    poll_read_via!(io);
}

impl AsyncWrite for TcpStream {
    poll_write_via!(io);

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_shutdown_write(cx)
    }
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRef<Self> for TcpStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

impl AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for TcpStream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
