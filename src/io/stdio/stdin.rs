//! `stdin()`: the process's standard input stream.
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::blocking::Blocking;
use crate::io::{AsyncRead, ReadBuf};

/// A handle to the process's standard input stream, from [`stdin`].
///
/// Reads go through `std::io::stdin()` on the blocking pool. A read that
/// waits for input keeps a pool thread busy until input arrives, even if
/// its future is dropped; a runtime whose tasks wait on stdin may need
/// `shutdown_timeout` to exit promptly (as with tokio).
#[derive(Debug)]
pub struct Stdin {
    std: Blocking<io::Stdin>,
}

/// A handle to the process's standard input stream (see [`Stdin`]).
///
/// # Panics
///
/// Reading through the handle outside a runtime panics.
pub fn stdin() -> Stdin {
    Stdin {
        std: Blocking::new(io::stdin()),
    }
}

impl AsRawFd for Stdin {
    fn as_raw_fd(&self) -> RawFd {
        io::stdin().as_raw_fd()
    }
}

impl AsFd for Stdin {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the standard stream's descriptor is open for the life of
        // the process (std never closes it), so it outlives `self`.
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.std).poll_read(cx, buf)
    }
}
