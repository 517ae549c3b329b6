//! `UdpSocket`: a UDP socket.
//!
//! Every operation is one `send`/`recv` family syscall on a non-blocking
//! `std::net::UdpSocket`, gated and retried by its registration. The
//! receive operations wait for `READABLE | ERROR`, as tokio's do, so an
//! ICMP error queued on a connected socket (`ECONNREFUSED`) wakes a
//! receiver, which then gets the error. The `poll_*` receives fill a
//! `ReadBuf` through `socket2`, without zeroing it first.
//!
//! The socket options (`SO_BROADCAST`, multicast, TTL, TOS, the bound
//! device) are in `options.rs`.
use crate::io::poll_evented::PollEvented;
use crate::io::{Interest, ReadBuf, Ready};
use crate::net::addr::{to_socket_addrs, try_each, ToSocketAddrs};
use crate::net::util::{check_socket_for_blocking, new_socket};
use socket2::{Domain, SockAddr, SockRef, Type};
use std::fmt;
use std::io;
use std::net::{self, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::task::{Context, Poll};

mod options;

/// A UDP socket.
///
/// UDP is "connectionless", unlike TCP. Meaning, regardless of what
/// address you've bound to, a `UdpSocket` is free to communicate with many
/// different remotes. In tokiwa there are basically two main ways to use
/// `UdpSocket`:
///
/// * one to many: [`bind`](`UdpSocket::bind`) and use
///   [`send_to`](`UdpSocket::send_to`) and
///   [`recv_from`](`UdpSocket::recv_from`) to communicate with many
///   different addresses
/// * one to one: [`connect`](`UdpSocket::connect`) and associate with a
///   single address, using [`send`](`UdpSocket::send`) and
///   [`recv`](`UdpSocket::recv`) to communicate only with that remote
///   address
///
/// This type does not provide a `split` method, because this functionality
/// can be achieved by instead wrapping the socket in an [`Arc`]. Note that
/// you do not need a `Mutex` to share the `UdpSocket` — an
/// `Arc<UdpSocket>` is enough. This is because all of the methods take
/// `&self` instead of `&mut self`.
///
/// [`Arc`]: std::sync::Arc
///
/// # Example: one to many (bind)
///
/// ```no_run
/// use tokiwa::net::UdpSocket;
/// use std::io;
///
/// #[tokiwa::main]
/// async fn main() -> io::Result<()> {
///     let sock = UdpSocket::bind("0.0.0.0:8080").await?;
///     let mut buf = [0; 1024];
///     loop {
///         let (len, addr) = sock.recv_from(&mut buf).await?;
///         println!("{:?} bytes received from {:?}", len, addr);
///
///         let len = sock.send_to(&buf[..len], addr).await?;
///         println!("{:?} bytes sent", len);
///     }
/// }
/// ```
pub struct UdpSocket {
    io: PollEvented<net::UdpSocket>,
}

impl UdpSocket {
    /// Creates a new `UdpSocket`, which will be bound to the specified
    /// address.
    ///
    /// The returned socket is ready for accepting connections and
    /// connecting to others.
    ///
    /// Binding with a port number of 0 will request that the OS assigns a
    /// port to this listener. The port allocated can be queried via the
    /// `local_addr` method.
    ///
    /// If `addr` yields multiple addresses, bind is attempted with each in
    /// turn; the last error is returned if none succeeds.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        try_each(addr, |addr| std::future::ready(UdpSocket::bind_addr(addr))).await
    }

    fn bind_addr(addr: SocketAddr) -> io::Result<UdpSocket> {
        let socket = new_socket(Domain::for_address(addr), Type::DGRAM)?;
        socket.bind(&addr.into())?;
        UdpSocket::new(socket.into())
    }

    #[track_caller]
    fn new(socket: net::UdpSocket) -> io::Result<UdpSocket> {
        let io = PollEvented::new(socket)?;
        Ok(UdpSocket { io })
    }

    /// Creates new `UdpSocket` from a previously bound
    /// `std::net::UdpSocket`.
    ///
    /// This function is intended to be used to wrap a UDP socket from the
    /// standard library in the tokiwa equivalent.
    ///
    /// This can be used in conjunction with `socket2`'s `Socket` interface
    /// to configure a socket before it's handed off, such as setting
    /// options like `reuse_address` or binding to multiple addresses.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the socket is in
    /// non-blocking mode. Otherwise all I/O operations on the socket
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`]. Debug builds
    /// panic on a blocking socket, as tokio's do.
    ///
    /// [`set_nonblocking`]: std::net::UdpSocket::set_nonblocking
    ///
    /// # Panics
    ///
    /// This function panics if thread-local runtime is not set.
    #[track_caller]
    pub fn from_std(socket: net::UdpSocket) -> io::Result<UdpSocket> {
        check_socket_for_blocking(&socket)?;
        UdpSocket::new(socket)
    }

    /// Turns a `tokiwa::net::UdpSocket` into a [`std::net::UdpSocket`].
    ///
    /// The returned [`std::net::UdpSocket`] will have nonblocking mode set
    /// as `true`. Use [`set_nonblocking`] to change the blocking mode if
    /// needed.
    ///
    /// [`set_nonblocking`]: fn@std::net::UdpSocket::set_nonblocking
    pub fn into_std(self) -> io::Result<net::UdpSocket> {
        self.io.into_inner()
    }

    fn as_socket(&self) -> SockRef<'_> {
        SockRef::from(self.io.get_ref())
    }

    /// Returns the local address that this socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Returns the socket address of the remote peer this socket was
    /// connected to.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Connects the UDP socket setting the default destination for send()
    /// and limiting packets that are read via `recv` from the address
    /// specified in `addr`.
    ///
    /// If `addr` yields multiple addresses, each is tried in turn; the last
    /// error is returned if none succeeds.
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        try_each(addr, |addr| std::future::ready(self.io.connect(addr))).await
    }

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
    /// If the udp stream is not currently ready for sending, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the udp socket becomes ready for sending, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_send_ready` or `poll_send`,
    /// only the `Waker` from the `Context` passed to the most recent call
    /// is scheduled to receive a wakeup.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_write_ready(cx)
    }

    /// Sends data on the socket to the remote address that the socket is
    /// connected to.
    ///
    /// The [`connect`] method will connect this socket to a remote address.
    /// This method will fail if the socket is not connected.
    ///
    /// [`connect`]: method@Self::connect
    ///
    /// # Return
    ///
    /// On success, the number of bytes sent is returned, otherwise, the
    /// encountered error is returned.
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

    /// Attempts to send data on the socket to the remote address to which
    /// it was previously `connect`ed.
    ///
    /// The [`connect`] method will connect this socket to a remote address.
    /// This method will fail if the socket is not connected.
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
    ///
    /// [`connect`]: method@Self::connect
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_write_io(cx, || self.io.send(buf))
    }

    /// Tries to send data on the socket to the remote address to which it
    /// is connected.
    ///
    /// When the socket buffer is full, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `writable()`.
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(Interest::WRITABLE, || self.io.send(buf))
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
    /// If the udp stream is not currently ready for receiving, this method
    /// will store a clone of the `Waker` from the provided `Context`. When
    /// the udp socket becomes ready for reading, `Waker::wake` will be
    /// called on the waker.
    ///
    /// Note that on multiple calls to `poll_recv_ready`, `poll_recv` or
    /// `poll_peek`, only the `Waker` from the `Context` passed to the most
    /// recent call is scheduled to receive a wakeup.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_read_ready(cx)
    }

    /// Receives a single datagram message on the socket from the remote
    /// address to which it is connected. On success, returns the number of
    /// bytes read.
    ///
    /// The function must be called with valid byte array `buf` of
    /// sufficient size to hold the message bytes. If a message is too long
    /// to fit in the supplied buffer, excess bytes may be discarded.
    ///
    /// The [`connect`] method will connect this socket to a remote address.
    /// This method will fail if the socket is not connected.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv` is used as the event in a
    /// `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    ///
    /// [`connect`]: method@Self::connect
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.async_recv(|| self.io.recv(buf)).await
    }

    /// Attempts to receive a single datagram message on the socket from the
    /// remote address to which it is `connect`ed.
    ///
    /// The [`connect`] method will connect this socket to a remote address.
    /// This method resolves to an error if the socket is not connected.
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
    ///
    /// [`connect`]: method@Self::connect
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.io
            .poll_recv(cx, buf, |s, b| s.recv(b).map(|n| (n, ())))
    }

    /// Tries to receive a single datagram message on the socket from the
    /// remote address to which it is connected. On success, returns the
    /// number of bytes read.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `readable()`.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Interest::READABLE, || self.io.recv(buf))
    }

    /// Sends data on the socket to the given address. On success, returns
    /// the number of bytes written.
    ///
    /// Address type can be any implementor of [`ToSocketAddrs`] trait. See
    /// its documentation for concrete examples. Only the first address it
    /// resolves to is used.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `send_to` is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that the message was not sent.
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], addr: A) -> io::Result<usize> {
        let mut addrs = to_socket_addrs(addr).await?;
        match addrs.next() {
            Some(target) => {
                self.io
                    .async_io(Interest::WRITABLE, || self.io.send_to(buf, target))
                    .await
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no addresses to send data to",
            )),
        }
    }

    /// Attempts to send data on the socket to a given address.
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
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write_io(cx, || self.io.send_to(buf, target))
    }

    /// Tries to send data on the socket to the given address, but if the
    /// send is blocked this will return right away.
    ///
    /// This function is usually paired with `writable()`.
    ///
    /// # Returns
    ///
    /// If successful, returns the number of bytes sent
    ///
    /// Users should ensure that when the remote cannot receive, the
    /// [`ErrorKind::WouldBlock`] is properly handled. An error can also
    /// occur if the IP version of the socket does not match that of
    /// `target`.
    ///
    /// [`ErrorKind::WouldBlock`]: std::io::ErrorKind::WouldBlock
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        self.io
            .try_io(Interest::WRITABLE, || self.io.send_to(buf, target))
    }

    /// Receives a single datagram message on the socket. On success,
    /// returns the number of bytes read and the origin.
    ///
    /// The function must be called with valid byte array `buf` of
    /// sufficient size to hold the message bytes. If a message is too long
    /// to fit in the supplied buffer, excess bytes may be discarded.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv_from` is used as the event in a
    /// `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.async_recv(|| self.io.recv_from(buf)).await
    }

    /// Attempts to receive a single datagram on the socket.
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
        self.io.poll_recv(cx, buf, |s, b| {
            let (n, addr) = s.recv_from(b)?;
            Ok((n, ip_addr(addr)?))
        })
    }

    /// Tries to receive a single datagram message on the socket. On
    /// success, returns the number of bytes read and the origin.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `readable()`.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Interest::READABLE, || self.io.recv_from(buf))
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
        self.async_recv(|| self.recv_buf_once(buf)).await
    }

    /// Tries to receive a datagram into the spare capacity of `buf`,
    /// advancing it by the number of bytes received; returns that number
    /// and the sender's address.
    ///
    /// See [`try_recv_buf`](Self::try_recv_buf) for how the buffer is
    /// filled. When no datagram is waiting,
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
    /// See [`try_recv_buf`](Self::try_recv_buf) for how the buffer is
    /// filled.
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
        self.async_recv(|| self.recv_buf_from_once(buf)).await
    }

    /// One `recv(2)` into `buf`'s spare capacity.
    #[cfg(feature = "io-util")]
    fn recv_buf_once<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let socket = SockRef::from(self.io.get_ref());
        crate::net::buf_mut::recv_into_spare(buf, |spare| Ok((socket.recv(spare)?, ())))
            .map(|(n, ())| n)
    }

    /// One `recvfrom(2)` into `buf`'s spare capacity.
    #[cfg(feature = "io-util")]
    fn recv_buf_from_once<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let socket = SockRef::from(self.io.get_ref());
        crate::net::buf_mut::recv_into_spare(buf, |spare| {
            let (n, addr) = socket.recv_from(spare)?;
            Ok((n, ip_addr(addr)?))
        })
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

    /// Receives a single datagram from the connected address without
    /// removing it from the queue. On success, returns the number of bytes
    /// read from whence the data came.
    ///
    /// # Notes
    ///
    /// On Windows, if the data is larger than the buffer specified, the
    /// buffer is filled with the first part of the data, and peek returns
    /// the error `WSAEMSGSIZE(10040)`. The excess data is lost. Make sure
    /// to always use a sufficiently large buffer to hold the maximum UDP
    /// packet size, which can be up to 65536 bytes in size.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.async_recv(|| self.io.peek(buf)).await
    }

    /// Receives data from the connected address, without removing it from
    /// the input queue.
    ///
    /// Note that on multiple calls to a `poll_*` method in the `recv`
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    ///
    /// # Return value
    ///
    /// * `Poll::Pending` if the socket is not ready to read
    /// * `Poll::Ready(Ok(()))` reads data into `ReadBuf` if the socket is
    ///   ready
    /// * `Poll::Ready(Err(e))` if an error is encountered.
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.io
            .poll_recv(cx, buf, |s, b| s.peek(b).map(|n| (n, ())))
    }

    /// Tries to receive data on the connected address without removing it
    /// from the input queue. On success, returns the number of bytes read.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `readable()`.
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Interest::READABLE, || self.io.peek(buf))
    }

    /// Receives data from the socket, without removing it from the input
    /// queue. On success, returns the number of bytes read and the address
    /// from whence the data came.
    ///
    /// # Notes
    ///
    /// On Windows, if the data is larger than the buffer specified, the
    /// buffer is filled with the first part of the data, and `peek_from`
    /// returns the error `WSAEMSGSIZE(10040)`. The excess data is lost.
    /// Make sure to always use a sufficiently large buffer to hold the
    /// maximum UDP packet size, which can be up to 65536 bytes in size.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.async_recv(|| self.io.peek_from(buf)).await
    }

    /// Receives data from the socket, without removing it from the input
    /// queue. On success, returns the sending address of the datagram.
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
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        self.io.poll_recv(cx, buf, |s, b| {
            let (n, addr) = s.peek_from(b)?;
            Ok((n, ip_addr(addr)?))
        })
    }

    /// Tries to receive data on the socket without removing it from the
    /// input queue. On success, returns the number of bytes read and the
    /// sending address of the datagram.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `readable()`.
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Interest::READABLE, || self.io.peek_from(buf))
    }

    /// Retrieves the sender of the data at the head of the input queue,
    /// waiting if empty.
    ///
    /// This is equivalent to calling [`peek_from`] with a zero-sized
    /// buffer, but suppresses the `WSAEMSGSIZE` error on Windows.
    ///
    /// [`peek_from`]: method@Self::peek_from
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.async_recv(|| self.peek_sender_inner()).await
    }

    /// Retrieves the sender of the data at the head of the input queue,
    /// scheduling a wakeup if empty.
    ///
    /// Note that on multiple calls to a `poll_*` method in the `recv`
    /// direction, only the `Waker` from the `Context` passed to the most
    /// recent call will be scheduled to receive a wakeup.
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.io.poll_read_io(cx, || self.peek_sender_inner())
    }

    /// Tries to retrieve the sender of the data at the head of the input
    /// queue.
    ///
    /// When there is no pending data, `Err(io::ErrorKind::WouldBlock)` is
    /// returned. This function is usually paired with `readable()`.
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io
            .try_io(Interest::READABLE, || self.peek_sender_inner())
    }

    /// Waits until a datagram, or an error queued on the socket (an ICMP
    /// "port unreachable" on a connected socket), can be received, and runs
    /// the receive `f` until it does not block.
    async fn async_recv<R>(&self, f: impl FnMut() -> io::Result<R>) -> io::Result<R> {
        self.io
            .async_io(Interest::READABLE | Interest::ERROR, f)
            .await
    }

    fn peek_sender_inner(&self) -> io::Result<SocketAddr> {
        ip_addr(self.as_socket().peek_sender()?)
    }
}

/// The IP address in `addr` (a UDP socket only ever sees IP addresses).
fn ip_addr(addr: SockAddr) -> io::Result<SocketAddr> {
    addr.as_socket()
        .ok_or_else(|| io::Error::other("sender not available"))
}

impl TryFrom<net::UdpSocket> for UdpSocket {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`UdpSocket::from_std(stream)`](UdpSocket::from_std).
    fn try_from(stream: net::UdpSocket) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

impl fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRawFd for UdpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for UdpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
