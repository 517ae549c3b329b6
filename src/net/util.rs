//! Small helpers every socket type shares: creating a non-blocking socket,
//! recognising `connect`'s "in progress", and the blocking-mode check of the
//! `from_std` constructors. (The operations on a registered socket are in
//! `evented.rs`.)
use socket2::{Domain, Socket, Type};
use std::io;
use std::os::fd::AsFd;

/// A new socket, non-blocking and close-on-exec from the start (one
/// `socket(2)` call: `socket2` adds `SOCK_CLOEXEC`, `nonblocking()` adds
/// `SOCK_NONBLOCK`).
pub(crate) fn new_socket(domain: Domain, ty: Type) -> io::Result<Socket> {
    Socket::new(domain, ty.nonblocking(), None)
}

/// Whether `err` is `connect(2)`'s "in progress" answer on a non-blocking
/// socket, which means: wait until writable, then read `SO_ERROR`.
pub(crate) fn is_connect_in_progress(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::EINPROGRESS)
}

/// The `from_std` constructors require a non-blocking socket, as tokio
/// documents; like tokio, debug builds check it (a blocking socket would
/// stall a worker on its first read).
#[track_caller]
pub(crate) fn check_socket_for_blocking<S: AsFd>(s: &S) -> io::Result<()> {
    // tokio's escape hatch, honoured so migrated builds behave the same.
    #[cfg(not(tokio_allow_from_blocking_fd))]
    debug_assert!(
        socket2::SockRef::from(s).nonblocking()?,
        "Registering a blocking socket with the tokio runtime is unsupported. \
         If you wish to do anyways, please add `--cfg tokio_allow_from_blocking_fd` to your \
         RUSTFLAGS. See github.com/tokio-rs/tokio/issues/7172 for details."
    );
    let _ = s;
    Ok(())
}
