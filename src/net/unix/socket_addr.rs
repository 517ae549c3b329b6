//! `unix::SocketAddr`: the address of a Unix-domain socket.
//!
//! A wrapper of std's `SocketAddr`, as in tokio, plus the conversion to
//! the `socket2` form that `bind` and `connect` take.
use socket2::SockAddr;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::{fmt, io};

/// An address associated with a Unix socket.
///
/// This type is a thin wrapper around [`std::os::unix::net::SocketAddr`].
/// You can convert to and from the standard library `SocketAddr` type
/// using the [`From`] trait.
#[derive(Clone)]
pub struct SocketAddr(pub(super) std::os::unix::net::SocketAddr);

impl SocketAddr {
    /// Returns `true` if the address is unnamed.
    ///
    /// Documentation reflected in [`SocketAddr`].
    ///
    /// [`SocketAddr`]: std::os::unix::net::SocketAddr
    pub fn is_unnamed(&self) -> bool {
        self.0.is_unnamed()
    }

    /// Returns the contents of this address if it is a `pathname` address.
    ///
    /// Documentation reflected in [`SocketAddr`].
    ///
    /// [`SocketAddr`]: std::os::unix::net::SocketAddr
    pub fn as_pathname(&self) -> Option<&Path> {
        self.0.as_pathname()
    }

    /// Returns the contents of this address if it is in the abstract
    /// namespace.
    ///
    /// Documentation reflected in [`SocketAddrExt`].
    ///
    /// [`SocketAddrExt`]: std::os::linux::net::SocketAddrExt
    pub fn as_abstract_name(&self) -> Option<&[u8]> {
        self.0.as_abstract_name()
    }

    /// The address in the form `bind(2)` and `connect(2)` take. An unnamed
    /// address names nothing to bind or connect to.
    pub(crate) fn to_sock_addr(&self) -> io::Result<SockAddr> {
        if let Some(path) = self.0.as_pathname() {
            return SockAddr::unix(path);
        }
        if let Some(name) = self.0.as_abstract_name() {
            // `socket2` reads a leading NUL as the abstract namespace.
            let mut bytes = Vec::with_capacity(name.len() + 1);
            bytes.push(0);
            bytes.extend_from_slice(name);
            return SockAddr::unix(std::ffi::OsStr::from_bytes(&bytes));
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an unnamed Unix socket address names no socket",
        ))
    }
}

/// The address for `path`: a leading NUL byte selects the abstract
/// namespace, as in tokio.
pub(crate) fn from_path(path: &Path) -> io::Result<SocketAddr> {
    let bytes = path.as_os_str().as_bytes();
    let addr = match bytes.strip_prefix(b"\0") {
        Some(name) => std::os::unix::net::SocketAddr::from_abstract_name(name)?,
        None => std::os::unix::net::SocketAddr::from_pathname(path)?,
    };
    Ok(SocketAddr(addr))
}

impl fmt::Debug for SocketAddr {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(fmt)
    }
}

impl From<std::os::unix::net::SocketAddr> for SocketAddr {
    fn from(value: std::os::unix::net::SocketAddr) -> Self {
        SocketAddr(value)
    }
}

impl From<SocketAddr> for std::os::unix::net::SocketAddr {
    fn from(value: SocketAddr) -> Self {
        value.0
    }
}
