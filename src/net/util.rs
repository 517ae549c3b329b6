//! Small helpers every socket type shares: creating a non-blocking socket,
//! the blocking-mode check of the `from_std` constructors, and receiving
//! into a `ReadBuf` without zeroing it first.
use crate::io::ReadBuf;
use socket2::{Domain, Socket, Type};
use std::io;
use std::mem::MaybeUninit;
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

/// Runs `recv` on the unfilled part of `buf`, then marks what it wrote as
/// initialised and filled. `recv` is a `socket2` receive, which takes
/// possibly uninitialised memory, so the buffer is never zeroed.
pub(crate) fn recv_into<T>(
    buf: &mut ReadBuf<'_>,
    recv: impl FnOnce(&mut [MaybeUninit<u8>]) -> io::Result<(usize, T)>,
) -> io::Result<T> {
    // SAFETY: `unfilled_mut` hands out bytes that may be uninitialised; we
    // never read them, and never de-initialise any: the only writer is the
    // kernel, through `recv`.
    let unfilled = unsafe { buf.unfilled_mut() };
    let (n, value) = recv(unfilled)?;
    // SAFETY: `recv` returned `n`, the number of bytes the kernel wrote at
    // the start of the unfilled region.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Ok(value)
}
