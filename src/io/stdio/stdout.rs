//! `stdout()`: the process's standard output stream.
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::blocking::Blocking;
use crate::io::AsyncWrite;

/// A handle to the process's standard output stream, from [`stdout`].
///
/// Writes go through `std::io::stdout()` on the blocking pool; a write is
/// done when buffered, so call `flush` to be sure the bytes were written
/// and to see an error such as `BrokenPipe`.
#[derive(Debug)]
pub struct Stdout {
    std: Blocking<io::Stdout>,
}

/// A handle to the process's standard output stream (see [`Stdout`]).
///
/// # Panics
///
/// Writing through the handle outside a runtime panics.
pub fn stdout() -> Stdout {
    Stdout {
        std: Blocking::new_mandatory(io::stdout()),
    }
}

impl AsRawFd for Stdout {
    fn as_raw_fd(&self) -> RawFd {
        io::stdout().as_raw_fd()
    }
}

impl AsFd for Stdout {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the standard stream's descriptor is open for the life of
        // the process (std never closes it), so it outlives `self`.
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.std).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.std).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.std).poll_shutdown(cx)
    }
}
