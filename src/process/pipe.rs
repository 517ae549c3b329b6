//! The parent's ends of a child's standard streams: [`ChildStdin`],
//! [`ChildStdout`] and [`ChildStderr`].
//!
//! Each is the pipe descriptor `std::process` created, switched to
//! non-blocking mode and registered with the runtime's I/O driver through a
//! `PollEvented`, for writing (stdin) or reading (stdout, stderr), exactly
//! like a socket. Converting one back (`into_owned_fd`, `TryInto<Stdio>`)
//! deregisters it and restores blocking mode, since the descriptor usually
//! goes on to be another process's standard stream.
use crate::io::poll_evented::PollEvented;
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

/// The standard input of a child process.
///
/// This type implements [`AsyncWrite`]; the stream closes when it is
/// dropped ([`Child::wait`](super::Child::wait) drops it first).
#[derive(Debug)]
pub struct ChildStdin {
    inner: PollEvented<File>,
}

/// The standard output of a child process, an [`AsyncRead`].
#[derive(Debug)]
pub struct ChildStdout {
    inner: PollEvented<File>,
}

/// The standard error of a child process, an [`AsyncRead`].
#[derive(Debug)]
pub struct ChildStderr {
    inner: PollEvented<File>,
}

/// Registers one end of a pipe, in non-blocking mode, for `interest`.
fn register(fd: OwnedFd, interest: Interest) -> io::Result<PollEvented<File>> {
    set_nonblocking(fd.as_raw_fd(), true)?;
    PollEvented::new_with_interest(File::from(fd), interest)
}

/// Deregisters a pipe end and puts it back in blocking mode.
fn into_blocking(io: PollEvented<File>) -> io::Result<OwnedFd> {
    let file = io.into_inner()?;
    set_nonblocking(file.as_raw_fd(), false)?;
    Ok(file.into())
}

fn set_nonblocking(fd: RawFd, nonblocking: bool) -> io::Result<()> {
    // SAFETY: `fcntl` on a descriptor the caller holds open, with integer
    // arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let wanted = if nonblocking {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    if wanted != flags {
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, wanted) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

impl ChildStdin {
    /// Creates an asynchronous `ChildStdin` from a synchronous one.
    ///
    /// # Errors
    ///
    /// When the descriptor cannot be made non-blocking or registered.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    pub fn from_std(inner: std::process::ChildStdin) -> io::Result<Self> {
        Ok(ChildStdin {
            inner: register(inner.into(), Interest::WRITABLE)?,
        })
    }
}

impl AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    /// Writes go straight to the pipe: nothing to flush.
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// As in tokio, this does not close the pipe; dropping it does.
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The reading side, shared by stdout and stderr.
macro_rules! reader {
    ($type:ident, $std:ident) => {
        impl $type {
            /// Creates an asynchronous stream from a synchronous one.
            ///
            /// # Errors
            ///
            /// When the descriptor cannot be made non-blocking or
            /// registered.
            ///
            /// # Panics
            ///
            /// Outside a runtime, or on one built without `enable_io`.
            pub fn from_std(inner: std::process::$std) -> io::Result<Self> {
                Ok($type {
                    inner: register(inner.into(), Interest::READABLE)?,
                })
            }
        }

        impl AsyncRead for $type {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.inner.poll_read(cx, buf)
            }
        }
    };
}

reader!(ChildStdout, ChildStdout);
reader!(ChildStderr, ChildStderr);

/// The descriptor conversions all three have.
macro_rules! conversions {
    ($type:ident) => {
        impl $type {
            /// Converts into an [`OwnedFd`], deregistered and back in
            /// blocking mode.
            ///
            /// # Errors
            ///
            /// When the descriptor cannot be deregistered or made
            /// blocking.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                into_blocking(self.inner)
            }
        }

        /// Converts into a [`Stdio`] for another child (deregistered and
        /// back in blocking mode), as tokio does.
        #[allow(clippy::from_over_into)]
        impl TryInto<Stdio> for $type {
            type Error = io::Error;

            fn try_into(self) -> Result<Stdio, io::Error> {
                into_blocking(self.inner).map(Stdio::from)
            }
        }

        impl AsRawFd for $type {
            fn as_raw_fd(&self) -> RawFd {
                self.inner.as_raw_fd()
            }
        }

        impl AsFd for $type {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.inner.get_ref().as_fd()
            }
        }
    };
}

conversions!(ChildStdin);
conversions!(ChildStdout);
conversions!(ChildStderr);
