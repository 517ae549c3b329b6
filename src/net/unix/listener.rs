//! `UnixListener`: a listening Unix-domain stream socket.
//!
//! Accepting uses std's `accept` (so the peer address arrives as std's
//! `SocketAddr`, which has no public constructor for an unnamed address)
//! and then sets the new socket non-blocking. As for TCP, an accept error
//! other than `WouldBlock` leaves the readiness set.
use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::unix::socket_addr::{self, SocketAddr};
use crate::net::unix::stream::UnixStream;
use crate::net::util::{check_socket_for_blocking, new_socket};
use socket2::{Domain, Type};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::os::unix::net;
use std::path::Path;
use std::task::{ready, Context, Poll};

/// A Unix socket which can accept connections from other Unix sockets.
///
/// You can accept a new connection by using the
/// [`accept`](`UnixListener::accept`) method.
///
/// # Errors
///
/// Note that accepting a connection can lead to various errors and not all
/// of them are necessarily fatal ‒ for example having too many open file
/// descriptors or the other side closing the connection while it waits in
/// an accept queue. These would terminate the stream if not handled in any
/// way.
///
/// # Examples
///
/// ```no_run
/// use tokiwa::net::UnixListener;
///
/// #[tokiwa::main]
/// async fn main() {
///     let listener = UnixListener::bind("/path/to/the/socket").unwrap();
///     loop {
///         match listener.accept().await {
///             Ok((_stream, _addr)) => {
///                 println!("new client!");
///             }
///             Err(_e) => { /* connection failed */ }
///         }
///     }
/// }
/// ```
pub struct UnixListener {
    io: PollEvented<net::UnixListener>,
}

impl UnixListener {
    /// Creates a new `UnixListener` bound to the specified path.
    ///
    /// A path starting with a NUL byte names a socket in the abstract
    /// namespace.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixListener>
    where
        P: AsRef<Path>,
    {
        UnixListener::bind_addr(&socket_addr::from_path(path.as_ref())?)
    }

    /// Creates a new `UnixListener` bound to the specified socket `addr`.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        let socket = new_socket(Domain::UNIX, Type::STREAM)?;
        socket.bind(&addr.to_sock_addr()?)?;
        socket.listen(1024)?;
        UnixListener::new(socket.into())
    }

    #[track_caller]
    pub(crate) fn new(listener: net::UnixListener) -> io::Result<UnixListener> {
        let io = PollEvented::new_with_interest(listener, Interest::READABLE)?;
        Ok(UnixListener { io })
    }

    /// Creates new `UnixListener` from a `std::os::unix::net::UnixListener`.
    ///
    /// This function is intended to be used to wrap a `UnixListener` from
    /// the standard library in the tokiwa equivalent.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the listener is in
    /// non-blocking mode. Otherwise all I/O operations on the listener
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`]. Debug builds
    /// panic on a blocking listener, as tokio's do.
    ///
    /// [`set_nonblocking`]: std::os::unix::net::UnixListener::set_nonblocking
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(listener: net::UnixListener) -> io::Result<UnixListener> {
        check_socket_for_blocking(&listener)?;
        UnixListener::new(listener)
    }

    /// Turns a `tokiwa::net::UnixListener` into a
    /// [`std::os::unix::net::UnixListener`].
    ///
    /// The returned listener will have nonblocking mode set as `true`. Use
    /// [`set_nonblocking`] to change the blocking mode if needed.
    ///
    /// [`set_nonblocking`]: fn@std::os::unix::net::UnixListener::set_nonblocking
    pub fn into_std(self) -> io::Result<net::UnixListener> {
        self.io.into_inner()
    }

    /// Returns the local socket address of this listener.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Accepts a new incoming connection to this listener.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If the method is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no new connections were accepted by this method.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        let (stream, addr) = self
            .io
            .async_io(Interest::READABLE, || self.accept_std())
            .await?;
        Ok((UnixStream::new_accepted(stream)?, addr))
    }

    /// Polls to accept a new incoming connection to this listener.
    ///
    /// If there is no connection to accept, `Poll::Pending` is returned and
    /// the current task will be notified by a waker. Note that on multiple
    /// calls to `poll_accept`, only the `Waker` from the `Context` passed to
    /// the most recent call is scheduled to receive a wakeup.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        let (stream, addr) = ready!(self.io.poll_read_io(cx, || self.accept_std()))?;
        Poll::Ready(Ok((UnixStream::new_accepted(stream)?, addr)))
    }

    fn accept_std(&self) -> io::Result<(net::UnixStream, SocketAddr)> {
        let (stream, addr) = self.io.accept()?;
        stream.set_nonblocking(true)?;
        Ok((stream, SocketAddr(addr)))
    }
}

impl TryFrom<net::UnixListener> for UnixListener {
    type Error = io::Error;

    /// Consumes stream, returning the tokiwa I/O object.
    ///
    /// This is equivalent to
    /// [`UnixListener::from_std(stream)`](UnixListener::from_std).
    fn try_from(stream: net::UnixListener) -> io::Result<Self> {
        Self::from_std(stream)
    }
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}

impl AsRawFd for UnixListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for UnixListener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}
