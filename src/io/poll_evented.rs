//! `PollEvented`: a non-blocking descriptor plus its registration, the
//! building block of every socket type in `net`.
//!
//! It owns the I/O object `E` (a std or socket2 socket in non-blocking
//! mode) and its [`Registration`]. Reads and writes go through `&E`'s
//! `Read`/`Write`, retried after each `WouldBlock` once the driver reports
//! readiness again. On drop the descriptor is deregistered from the epoll
//! set *before* `E` closes it (`Registration::close`).
use crate::io::{Interest, ReadBuf};
use crate::runtime::driver::registration::Registration;
use crate::runtime::driver::scheduled_io::Direction;
use std::io::{self, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{ready, Context, Poll};

pub(crate) struct PollEvented<E: AsRawFd> {
    io: Option<E>,
    registration: Registration,
}

impl<E: AsRawFd> PollEvented<E> {
    /// Registers `io` (already non-blocking) for reading and writing.
    #[track_caller]
    pub(crate) fn new(io: E) -> io::Result<Self> {
        Self::new_with_interest(io, Interest::READABLE | Interest::WRITABLE)
    }

    #[track_caller]
    pub(crate) fn new_with_interest(io: E, interest: Interest) -> io::Result<Self> {
        let registration = Registration::new(io.as_raw_fd(), interest)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
        })
    }

    /// As [`PollEvented::new_with_interest`], for a descriptor of a kind
    /// the caller has not checked: see `Registration::new_for_any_fd`.
    #[track_caller]
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn new_for_any_fd(io: E, interest: Interest) -> io::Result<Self> {
        let registration = Registration::new_for_any_fd(io.as_raw_fd(), interest)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
        })
    }

    pub(crate) fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Deregisters and returns the I/O object (still non-blocking).
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        let io = self.io.take().expect("I/O object present until drop");
        self.registration.deregister()?;
        Ok(io)
    }

    /// Reads into `buf` once readable: one `read(2)` on the descriptor,
    /// straight into the unfilled part of `buf`, which is never zeroed
    /// first (a reader such as hyper lends a fresh `ReadBuf` over
    /// uninitialised memory on every call, so zeroing it cost a `memset`
    /// of the whole window per read). A short read clears readiness
    /// without another syscall: for the stream sockets and pipes this
    /// serves, it means the receive queue was drained.
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let event = ready!(self.registration.poll_read_ready(cx))?;
            // SAFETY: `unfilled_mut` hands out bytes that may be
            // uninitialised; we never read them, and never de-initialise
            // any: the only writer is the kernel, through `read(2)`.
            let unfilled = unsafe { buf.unfilled_mut() };
            let len = unfilled.len();
            match read_uninit(self.get_ref().as_raw_fd(), unfilled) {
                Ok(n) => {
                    if n > 0 && n < len {
                        self.registration.clear_readiness(event);
                    }
                    // SAFETY: `read(2)` returned `n`, the number of bytes
                    // it wrote at the start of the unfilled region.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(event);
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    pub(crate) fn poll_write<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        self.registration
            .poll_io(cx, Direction::Write, || self.get_ref().write(buf))
    }

    pub(crate) fn poll_write_vectored<'a>(
        &'a self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        self.registration
            .poll_io(cx, Direction::Write, || self.get_ref().write_vectored(bufs))
    }

    pub(crate) fn get_ref(&self) -> &E {
        self.io.as_ref().expect("I/O object present until drop")
    }
}

/// One `read(2)` on `fd` into possibly uninitialised memory.
pub(crate) fn read_uninit(fd: RawFd, dst: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    // SAFETY: `dst` is valid for writes of `dst.len()` bytes for the
    // duration of the call, and `read(2)` writes at most that many (and
    // only bytes it received, so nothing is de-initialised).
    let n = unsafe { libc::read(fd, dst.as_mut_ptr().cast(), dst.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

impl<E: AsRawFd> std::ops::Deref for PollEvented<E> {
    type Target = E;
    fn deref(&self) -> &E {
        self.get_ref()
    }
}

impl<E: AsRawFd> Drop for PollEvented<E> {
    fn drop(&mut self) {
        if let Some(io) = self.io.take() {
            // Deregistered before `io` closes the descriptor, so a new
            // resource reusing the number starts clean, and closed at once
            // whatever the driver's thread is doing.
            self.registration.close(io);
        }
    }
}

impl<E: AsRawFd + std::fmt::Debug> std::fmt::Debug for PollEvented<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollEvented").field("io", &self.io).finish()
    }
}
