//! `TcpListener`: a bound, listening TCP socket.
//!
//! `bind` behaves like mio's (and so tokio's): `SO_REUSEADDR` on, a
//! backlog of 1024. `accept` is `accept4(2)` with `SOCK_NONBLOCK |
//! SOCK_CLOEXEC`; the accepted stream starts out assumed readable and
//! writable (see `net/mod.rs`). An accept error other than `WouldBlock`
//! (`EMFILE`, `ENFILE`, `ECONNABORTED`, ...) is returned as is and leaves
//! the readiness set, so the next call retries the syscall.
use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::addr::{try_each, ToSocketAddrs};
use crate::net::tcp::stream::TcpStream;
use crate::net::util::{check_socket_for_blocking, new_socket};
use socket2::{Domain, SockRef, Type};
use std::fmt;
use std::io;
use std::net::{self, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::task::{ready, Context, Poll};

/// A TCP socket server, listening for connections.
///
/// You can accept a new connection by using the [`accept`](TcpListener::accept)
/// method.
///
/// A `TcpListener` can be turned into a `Stream` with `TcpListenerStream`
/// from `tokio-stream`.
///
/// # Errors
///
/// Note that accepting a connection can lead to various errors and not all
/// of them are necessarily fatal ‒ for example having too many open file
/// descriptors or the other side closing the connection while it waits in an
/// accept queue. These would terminate the stream if not handled in any way.
///
/// # Examples
///
/// ```no_run
/// use tokiwa::net::TcpListener;
///
/// use std::io;
///
/// async fn process_socket<T>(socket: T) {
///     # drop(socket);
///     // do work with socket here
/// }
///
/// #[tokiwa::main]
/// async fn main() -> io::Result<()> {
///     let listener = TcpListener::bind("127.0.0.1:8080").await?;
///
///     loop {
///         let (socket, _) = listener.accept().await?;
///         process_socket(socket).await;
///     }
/// }
/// ```
pub struct TcpListener {
    io: PollEvented<net::TcpListener>,
}

impl TcpListener {
    /// Creates a new `TcpListener`, which will be bound to the specified
    /// address.
    ///
    /// The returned listener is ready for accepting connections.
    ///
    /// Binding with a port number of 0 will request that the OS assigns a
    /// port to this listener. The port allocated can be queried via the
    /// `local_addr` method.
    ///
    /// The address type can be any implementor of the [`ToSocketAddrs`]
    /// trait. If `addr` yields multiple addresses, bind will be attempted
    /// with each of the addresses until one succeeds and returns the
    /// listener. If none of the addresses succeed in creating a listener,
    /// the error returned from the last attempt (the last address) is
    /// returned.
    ///
    /// This function sets the `SO_REUSEADDR` option on the socket.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokiwa::net::TcpListener;
    /// use std::io;
    ///
    /// #[tokiwa::main]
    /// async fn main() -> io::Result<()> {
    ///     let listener = TcpListener::bind("127.0.0.1:2345").await?;
    ///     // use the listener
    ///     # let _ = listener;
    ///     Ok(())
    /// }
    /// ```
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        try_each(addr, |addr| {
            std::future::ready(TcpListener::bind_addr(addr))
        })
        .await
    }

    fn bind_addr(addr: SocketAddr) -> io::Result<TcpListener> {
        let socket = new_socket(Domain::for_address(addr), Type::STREAM)?;
        socket.set_reuse_address(true)?;
        socket.bind(&addr.into())?;
        socket.listen(1024)?;
        TcpListener::new(socket.into())
    }

    /// Registers a listening, non-blocking socket.
    #[track_caller]
    pub(crate) fn new(listener: net::TcpListener) -> io::Result<TcpListener> {
        let io = PollEvented::new_with_interest(listener, Interest::READABLE)?;
        Ok(TcpListener { io })
    }

    /// Accepts a new incoming connection from this listener.
    ///
    /// This function will yield once a new TCP connection is established.
    /// When established, the corresponding [`TcpStream`] and the remote
    /// peer's address will be returned.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If the method is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no new connections were accepted by this method.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokiwa::net::TcpListener;
    ///
    /// #[tokiwa::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let listener = TcpListener::bind("127.0.0.1:8080").await?;
    ///
    ///     match listener.accept().await {
    ///         Ok((_socket, addr)) => println!("new client: {:?}", addr),
    ///         Err(e) => println!("couldn't get client: {:?}", e),
    ///     }
    ///
    ///     Ok(())
    /// }
    /// ```
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, addr) = self
            .io
            .async_io(Interest::READABLE, || self.accept_std())
            .await?;
        Ok((TcpStream::new_accepted(stream)?, addr))
    }

    /// Polls to accept a new incoming connection to this listener.
    ///
    /// If there is no connection to accept, `Poll::Pending` is returned and
    /// the current task will be notified by a waker. Note that on multiple
    /// calls to `poll_accept`, only the `Waker` from the `Context` passed to
    /// the most recent call is scheduled to receive a wakeup.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        let (stream, addr) = ready!(self.io.poll_read_io(cx, || self.accept_std()))?;
        Poll::Ready(Ok((TcpStream::new_accepted(stream)?, addr)))
    }

    /// One `accept4(2)`: the new connection is non-blocking and
    /// close-on-exec from the start.
    fn accept_std(&self) -> io::Result<(net::TcpStream, SocketAddr)> {
        let (socket, addr) =
            SockRef::from(self.io.get_ref()).accept4(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC)?;
        let addr = addr.as_socket().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "accepted a connection without an IP address",
            )
        })?;
        Ok((socket.into(), addr))
    }

    /// Creates new `TcpListener` from a `std::net::TcpListener`.
    ///
    /// This function is intended to be used to wrap a TCP listener from the
    /// standard library in the tokiwa equivalent.
    ///
    /// This API is typically paired with the `socket2` crate and the
    /// `Socket` type to build up and customize a listener before it's
    /// shipped off to the backing event loop. This allows configuration of
    /// options like `SO_REUSEPORT`, binding to multiple addresses, etc.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the listener is in
    /// non-blocking mode. Otherwise all I/O operations on the listener
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`]. Debug builds
    /// panic on a blocking listener, as tokio's do.
    ///
    /// [`set_nonblocking`]: std::net::TcpListener::set_nonblocking
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::error::Error;
    /// use tokiwa::net::TcpListener;
    ///
    /// #[tokiwa::main]
    /// async fn main() -> Result<(), Box<dyn Error>> {
    ///     let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    ///     std_listener.set_nonblocking(true)?;
    ///     let listener = TcpListener::from_std(std_listener)?;
    ///     # let _ = listener;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(listener: net::TcpListener) -> io::Result<TcpListener> {
        check_socket_for_blocking(&listener)?;
        TcpListener::new(listener)
    }

    /// Turns a `tokiwa::net::TcpListener` into a [`std::net::TcpListener`].
    ///
    /// The returned [`std::net::TcpListener`] will have nonblocking mode set
    /// as `true`. Use [`set_nonblocking`] to change the blocking mode if
    /// needed.
    ///
    /// [`set_nonblocking`]: fn@std::net::TcpListener::set_nonblocking
    pub fn into_std(self) -> io::Result<net::TcpListener> {
        self.io.into_inner()
    }

    /// Returns the local address that this listener is bound to.
    ///
    /// This can be useful, for example, when binding to port 0 to figure
    /// out which port was actually bound.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Gets the value of the `IP_TTL` option for this socket.
    ///
    /// For more information about this option, see [`set_ttl`].
    ///
    /// [`set_ttl`]: method@Self::set_ttl
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
}

impl TryFrom<net::TcpListener> for TcpListener {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`TcpListener::from_std(stream)`](TcpListener::from_std).
    fn try_from(stream: net::TcpListener) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRawFd for TcpListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for TcpListener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
