//! `UnixDatagram`: a Unix-domain datagram socket.
//!
//! The same shell as `UdpSocket`, over `std::os::unix::net::UnixDatagram`:
//! each operation is one non-blocking syscall, gated and retried by the
//! registration. A fresh `pair` is assumed writable.
use crate::io::poll_evented::PollEvented;
use crate::io::{Interest, ReadBuf, Ready};
use crate::net::unix::SocketAddr;
use crate::net::util::{check_socket_for_blocking, new_socket};
use socket2::{Domain, Socket, Type};
use std::fmt;
use std::io;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::os::unix::net;
use std::path::Path;
use std::task::{ready, Context, Poll};

/// An I/O object representing a Unix datagram socket.
///
/// A socket can be either named (associated with a filesystem path) or
/// unnamed.
///
/// This type does not provide a `split` method, because this functionality
/// can be achieved by wrapping the socket in an [`Arc`]. Note that you do
/// not need a `Mutex` to share the `UnixDatagram` — an `Arc<UnixDatagram>`
/// is enough. This is because all of the methods take `&self` instead of
/// `&mut self`.
///
/// **Note:** named sockets are persisted even after the object is dropped
/// and the program has exited, and cannot be reconnected. It is advised
/// that you either check for and unlink the existing socket if it exists,
/// or use a temporary file that is guaranteed to not already exist.
///
/// [`Arc`]: std::sync::Arc
///
/// # Examples
///
/// Using named sockets, associated with a filesystem path:
///
/// ```no_run
/// # use std::error::Error;
/// # #[tokiwa::main]
/// # async fn main() -> Result<(), Box<dyn Error>> {
/// use tokiwa::net::UnixDatagram;
///
/// // Bind each socket to a filesystem path
/// let tx_path = "/tmp/tx.sock";
/// let tx = UnixDatagram::bind(&tx_path)?;
/// let rx_path = "/tmp/rx.sock";
/// let rx = UnixDatagram::bind(&rx_path)?;
///
/// let bytes = b"hello world";
/// tx.send_to(bytes, &rx_path).await?;
///
/// let mut buf = vec![0u8; 24];
/// let (size, addr) = rx.recv_from(&mut buf).await?;
///
/// let dgram = &buf[..size];
/// assert_eq!(dgram, bytes);
/// assert_eq!(addr.as_pathname().unwrap().to_str().unwrap(), tx_path);
///
/// # Ok(())
/// # }
/// ```
pub struct UnixDatagram {
    io: PollEvented<net::UnixDatagram>,
}

impl UnixDatagram {
    /// Waits for any of the requested ready states.
    ///
    /// This function is usually paired with `try_recv()` or `try_send()`.
    /// It can be used to concurrently `recv` / `send` to the same socket on
    /// a single task without splitting the socket.
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

    /// Waits for the socket to become writable.
    ///
    /// This function is equivalent to `ready(Interest::WRITABLE)` and is
    /// usually paired with `try_send()` or `try_send_to()`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await?;
        Ok(())
    }

    /// Polls for write/send readiness.
    ///
    /// If the socket is not currently ready for sending, this method will
    /// store a clone of the `Waker` from the provided `Context`. When the
    /// socket becomes ready for sending, `Waker::wake` will be called on
    /// the waker.
    ///
    /// Note that on multiple calls to `poll_send_ready` or `poll_send`,
    /// only the `Waker` from the `Context` passed to the most recent call
    /// is scheduled to receive a wakeup.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_write_ready(cx)
    }

    /// Waits for the socket to become readable.
    ///
    /// This function is equivalent to `ready(Interest::READABLE)` and is
    /// usually paired with `try_recv()`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await?;
        Ok(())
    }

    /// Polls for read/receive readiness.
    ///
    /// If the socket is not currently ready for receiving, this method will
    /// store a clone of the `Waker` from the provided `Context`. When the
    /// socket becomes ready for reading, `Waker::wake` will be called on
    /// the waker.
    ///
    /// Note that on multiple calls to `poll_recv_ready`, `poll_recv` or
    /// `poll_peek`, only the `Waker` from the `Context` passed to the most
    /// recent call is scheduled to receive a wakeup.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_read_ready(cx)
    }

    /// Creates a new `UnixDatagram` bound to the specified path.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixDatagram>
    where
        P: AsRef<Path>,
    {
        let socket = new_socket(Domain::UNIX, Type::DGRAM)?;
        socket.bind(&socket2::SockAddr::unix(path)?)?;
        UnixDatagram::new(socket.into())
    }

    /// Creates an unnamed pair of connected sockets.
    ///
    /// This function will create a pair of interconnected Unix sockets for
    /// communicating back and forth between one another.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = Socket::pair(Domain::UNIX, Type::DGRAM.nonblocking(), None)?;
        let a = UnixDatagram::new(a.into())?;
        let b = UnixDatagram::new(b.into())?;
        // Fresh buffers: writable now, readable once the peer sends.
        a.io.registration().assume_ready(Ready::WRITABLE);
        b.io.registration().assume_ready(Ready::WRITABLE);
        Ok((a, b))
    }

    /// Creates new `UnixDatagram` from a `std::os::unix::net::UnixDatagram`.
    ///
    /// This function is intended to be used to wrap a `UnixDatagram` from
    /// the standard library in the tokiwa equivalent.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the socket is in
    /// non-blocking mode. Otherwise all I/O operations on the socket
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`]. Debug builds
    /// panic on a blocking socket, as tokio's do.
    ///
    /// [`set_nonblocking`]: std::os::unix::net::UnixDatagram::set_nonblocking
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(datagram: net::UnixDatagram) -> io::Result<UnixDatagram> {
        check_socket_for_blocking(&datagram)?;
        UnixDatagram::new(datagram)
    }

    /// Turns a `tokiwa::net::UnixDatagram` into a
    /// [`std::os::unix::net::UnixDatagram`].
    ///
    /// The returned socket will have nonblocking mode set as `true`. Use
    /// [`set_nonblocking`] to change the blocking mode if needed.
    ///
    /// [`set_nonblocking`]: fn@std::os::unix::net::UnixDatagram::set_nonblocking
    pub fn into_std(self) -> io::Result<net::UnixDatagram> {
        self.io.into_inner()
    }

    #[track_caller]
    pub(crate) fn new(socket: net::UnixDatagram) -> io::Result<UnixDatagram> {
        let io = PollEvented::new(socket)?;
        Ok(UnixDatagram { io })
    }

    /// Creates a new `UnixDatagram` which is not bound to any address.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        let socket = new_socket(Domain::UNIX, Type::DGRAM)?;
        UnixDatagram::new(socket.into())
    }

    /// Connects the socket to the specified address.
    ///
    /// The `send` method may be used to send data to the specified address.
    /// `recv` and `recv_from` will only receive data from that address.
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.io.connect(path)
    }

    /// Sends data on the socket to the socket's peer.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `send` is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that the message was not sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io
            .async_io(Interest::WRITABLE, || self.io.send(buf))
            .await
    }

    /// Tries to send a datagram to the peer without waiting.
    ///
    /// When the socket buffer is full, `Err(io::ErrorKind::WouldBlock)` is
    /// returned.
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(Interest::WRITABLE, || self.io.send(buf))
    }

    /// Tries to send a datagram to the peer without waiting.
    ///
    /// When the socket buffer is full, `Err(io::ErrorKind::WouldBlock)` is
    /// returned.
    pub fn try_send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        self.io
            .try_io(Interest::WRITABLE, || self.io.send_to(buf, target))
    }

    /// Receives data from the socket.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv` is used as the event in a
    /// `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(Interest::READABLE, || self.io.recv(buf))
            .await
    }

    /// Tries to receive a datagram from the peer without waiting.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Interest::READABLE, || self.io.recv(buf))
    }

    /// Sends data on the socket to the specified address.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `send_to` is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that the message was not sent.
    pub async fn send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        self.io
            .async_io(Interest::WRITABLE, || self.io.send_to(buf, target.as_ref()))
            .await
    }

    /// Receives data from the socket.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv_from` is used as the event in a
    /// `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, addr) = self
            .io
            .async_io(Interest::READABLE, || self.io.recv_from(buf))
            .await?;
        Ok((n, SocketAddr(addr)))
    }

    /// Attempts to receive a single datagram on the specified address.
    ///
    /// Note that on multiple calls to a `poll_*` method in the `recv`
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if the socket is not ready to read
    /// * `Poll::Ready(Ok(addr))` reads data into `ReadBuf` if the socket is
    ///   ready
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        // std's `recv_from` is the one way to get a std `SocketAddr` (it
        // has no public constructor for an unnamed one), and it takes
        // initialised memory.
        let (n, addr) = ready!(self
            .io
            .poll_read_io(cx, || self.io.recv_from(buf.initialize_unfilled())))?;
        buf.advance(n);
        Poll::Ready(Ok(SocketAddr(addr)))
    }

    /// Attempts to send data to the specified address.
    ///
    /// Note that on multiple calls to a `poll_*` method in the send
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if the socket is not ready to write
    /// * `Poll::Ready(Ok(n))` `n` is the number of bytes sent.
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_send_to<P>(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: P,
    ) -> Poll<io::Result<usize>>
    where
        P: AsRef<Path>,
    {
        self.io
            .poll_write_io(cx, || self.io.send_to(buf, target.as_ref()))
    }

    /// Attempts to send data on the socket to the remote address to which
    /// it was previously `connect`ed.
    ///
    /// Note that on multiple calls to a `poll_*` method in the send
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if the socket is not available to write
    /// * `Poll::Ready(Ok(n))` `n` is the number of bytes sent
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_write_io(cx, || self.io.send(buf))
    }

    /// Attempts to receive a single datagram message on the socket from the
    /// remote address to which it is `connect`ed.
    ///
    /// Note that on multiple calls to a `poll_*` method in the `recv`
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if the socket is not ready to read
    /// * `Poll::Ready(Ok(()))` reads data `ReadBuf` if the socket is ready
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.io
            .poll_recv(cx, buf, |s, b| s.recv(b).map(|n| (n, ())))
    }

    /// Tries to receive data from the socket without waiting.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, addr) = self
            .io
            .try_io(Interest::READABLE, || self.io.recv_from(buf))?;
        Ok((n, SocketAddr(addr)))
    }

    /// Tries to receive a datagram from the connected peer into the spare
    /// capacity of `buf` (a `bytes::BufMut`), advancing it by the number
    /// of bytes received, which is returned.
    ///
    /// The spare capacity may be uninitialised: only the kernel writes
    /// into it. A datagram longer than the spare capacity is truncated (the
    /// rest is discarded), as with [`try_recv`](Self::try_recv); reserve
    /// room first. When no datagram is waiting,
    /// `Err(io::ErrorKind::WouldBlock)` is returned.
    #[cfg(feature = "io-util")]
    pub fn try_recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io
            .try_io(Interest::READABLE, || self.recv_buf_once(buf))
    }

    /// Receives a datagram from the connected peer into the spare capacity
    /// of `buf`, advancing it by the number of bytes received, which is
    /// returned; waits until one arrives.
    ///
    /// See [`try_recv_buf`](Self::try_recv_buf) for how the buffer is
    /// filled.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// datagram was received.
    #[cfg(feature = "io-util")]
    pub async fn recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io
            .async_io(Interest::READABLE, || self.recv_buf_once(buf))
            .await
    }

    /// Tries to receive a datagram into the spare capacity of `buf`,
    /// advancing it by the number of bytes received; returns that number
    /// and the sender's address.
    ///
    /// The sender's address can only be produced by std's `recv_from`,
    /// which wants initialised memory, so the spare capacity is zeroed
    /// before the receive. When no datagram is waiting,
    /// `Err(io::ErrorKind::WouldBlock)` is returned.
    #[cfg(feature = "io-util")]
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Interest::READABLE, || self.recv_buf_from_once(buf))
    }

    /// Receives a datagram into the spare capacity of `buf`, advancing it
    /// by the number of bytes received; returns that number and the
    /// sender's address. Waits until a datagram arrives.
    ///
    /// See [`try_recv_buf_from`](Self::try_recv_buf_from) for how the
    /// buffer is filled.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// datagram was received.
    #[cfg(feature = "io-util")]
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Interest::READABLE, || self.recv_buf_from_once(buf))
            .await
    }

    /// One `recv(2)` into `buf`'s spare capacity.
    #[cfg(feature = "io-util")]
    fn recv_buf_once<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let socket = socket2::SockRef::from(self.io.get_ref());
        crate::net::buf_mut::recv_into_spare(buf, |spare| Ok((socket.recv(spare)?, ())))
            .map(|(n, ())| n)
    }

    /// One `recvfrom(2)` into `buf`'s spare capacity, zeroed first (see
    /// `try_recv_buf_from`).
    #[cfg(feature = "io-util")]
    fn recv_buf_from_once<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        crate::net::buf_mut::recv_into_zeroed(buf, |bytes| self.io.recv_from(bytes))
            .map(|(n, addr)| (n, SocketAddr(addr)))
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

    /// Returns the local address that this socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the address of this socket's peer.
    ///
    /// The `connect` method will connect the socket to a peer.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr().map(SocketAddr)
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Shuts down the read, write, or both halves of this connection.
    ///
    /// This function will cause all pending and future I/O calls on the
    /// specified portions to immediately return with an appropriate value
    /// (see the documentation of `Shutdown`).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.shutdown(how)
    }
}

impl TryFrom<net::UnixDatagram> for UnixDatagram {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`UnixDatagram::from_std(stream)`](UnixDatagram::from_std).
    fn try_from(stream: net::UnixDatagram) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for UnixDatagram {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
