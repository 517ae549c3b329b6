//! Unix-domain socket utility types.
//!
//! The socket types themselves ([`UnixListener`](crate::net::UnixListener),
//! [`UnixStream`](crate::net::UnixStream),
//! [`UnixDatagram`](crate::net::UnixDatagram),
//! [`UnixSocket`](crate::net::UnixSocket)) are re-exported from
//! [`crate::net`]; this module names what they hand out: the halves of a
//! split stream (`split.rs`, see `net/split.rs`), the socket address
//! (`socket_addr.rs`, a wrapper of std's) and the peer credentials
//! (`ucred.rs`). [`pipe`] holds the pipe and FIFO types, public under
//! this path as in tokio.
//!
//! They follow the TCP types closely: the same `PollEvented` shell around
//! the standard library's non-blocking socket.
// tokio made this module public by accident and keeps it hidden; so do we,
// so that paths written against tokio resolve.
#[doc(hidden)]
pub mod datagram;

pub(crate) mod listener;
pub mod pipe;
pub(crate) mod socket;
mod socket_addr;
mod split;
pub(crate) mod stream;
mod ucred;

pub use socket_addr::SocketAddr;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use ucred::UCred;

/// A type representing user ID.
#[allow(non_camel_case_types)]
pub type uid_t = u32;

/// A type representing group ID.
#[allow(non_camel_case_types)]
pub type gid_t = u32;

/// A type representing process and process group IDs.
#[allow(non_camel_case_types)]
pub type pid_t = i32;
