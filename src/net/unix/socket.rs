//! `UnixSocket`: a Unix-domain socket not yet connected or listening, for
//! binding or setting options first.
//!
//! Like `TcpSocket`, a non-blocking `socket2::Socket` that is registered
//! only once `listen`, `connect` or `datagram` turns it into one of the
//! socket types. Calling a stream operation on a datagram socket (or the
//! reverse) is tokio's error, not a panic.
use crate::net::util::{is_connect_in_progress, new_socket};
use crate::net::{UnixDatagram, UnixListener, UnixStream};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, RawFd};
use std::path::Path;

/// A Unix socket that has not yet been converted to a [`UnixStream`],
/// [`UnixDatagram`], or [`UnixListener`].
///
/// `UnixSocket` wraps an operating system socket and enables the caller to
/// configure the socket before establishing a connection or accepting
/// inbound connections. The caller is able to set socket option and
/// explicitly bind the socket with a socket address.
///
/// The underlying socket is closed when the `UnixSocket` value is dropped.
///
/// `UnixSocket` should only be used directly if the default configuration
/// used by `UnixStream::connect`, `UnixDatagram::bind`, and
/// `UnixListener::bind` does not meet the required use case.
#[derive(Debug)]
pub struct UnixSocket {
    inner: Socket,
}

impl UnixSocket {
    fn ty(&self) -> io::Result<Type> {
        self.inner.r#type()
    }

    /// Creates a new Unix datagram socket.
    ///
    /// Calls `socket(2)` with `AF_UNIX` and `SOCK_DGRAM`.
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::DGRAM)
    }

    /// Creates a new Unix stream socket.
    ///
    /// Calls `socket(2)` with `AF_UNIX` and `SOCK_STREAM`.
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM)
    }

    fn new(ty: Type) -> io::Result<UnixSocket> {
        Ok(UnixSocket {
            inner: new_socket(Domain::UNIX, ty)?,
        })
    }

    /// Binds the socket to the given address.
    ///
    /// This calls the `bind(2)` operating-system function.
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.inner.bind(&SockAddr::unix(path)?)
    }

    /// Converts the socket into a `UnixListener`.
    ///
    /// `backlog` defines the maximum number of pending connections are
    /// queued by the operating system at any given time. Connection are
    /// removed from the queue with [`UnixListener::accept`]. When the queue
    /// is full, the operating-system will start rejecting connections.
    ///
    /// Calling this function on a socket created by
    /// [`new_datagram`](UnixSocket::new_datagram) will return an error.
    ///
    /// This calls the `listen(2)` operating-system function, marking the
    /// socket as a passive socket.
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.ty()? == Type::DGRAM {
            return Err(io::Error::other(
                "listen cannot be called on a datagram socket",
            ));
        }
        self.inner
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        UnixListener::new(self.inner.into())
    }

    /// Establishes a Unix connection with a peer at the specified socket
    /// address.
    ///
    /// The `UnixSocket` is consumed. Once the connection is established, a
    /// connected [`UnixStream`] is returned. If the connection fails, the
    /// encountered error is returned.
    ///
    /// Calling this function on a socket created by
    /// [`new_datagram`](UnixSocket::new_datagram) will return an error.
    ///
    /// This calls the `connect(2)` operating-system function.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.ty()? == Type::DGRAM {
            return Err(io::Error::other(
                "connect cannot be called on a datagram socket",
            ));
        }
        if let Err(e) = self.inner.connect(&SockAddr::unix(path)?) {
            if !is_connect_in_progress(&e) {
                return Err(e);
            }
        }
        UnixStream::connect_std(self.inner.into()).await
    }

    /// Converts the socket into a [`UnixDatagram`].
    ///
    /// Calling this function on a socket created by
    /// [`new_stream`](UnixSocket::new_stream) will return an error.
    #[track_caller]
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if self.ty()? == Type::STREAM {
            return Err(io::Error::other(
                "datagram cannot be called on a stream socket",
            ));
        }
        UnixDatagram::new(self.inner.into())
    }
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl FromRawFd for UnixSocket {
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        // SAFETY: the caller guarantees what `FromRawFd::from_raw_fd`
        // requires: `fd` is an open socket that nothing else owns.
        let inner = unsafe { Socket::from_raw_fd(fd) };
        UnixSocket { inner }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
