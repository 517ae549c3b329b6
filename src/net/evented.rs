//! The readiness operations every socket type performs, written once as
//! methods of its `PollEvented`.
//!
//! `TcpStream`, `UnixStream`, `UdpSocket`, `UnixDatagram` and the listeners
//! all offer tokio's readiness API (`ready`, `poll_read_ready`, `try_read`,
//! `try_io`, ...) with one meaning: wait for, or test, the readiness the
//! reactor last reported for the socket's registration, then make one
//! non-blocking syscall (see the design notes in `net/mod.rs`). The public
//! methods keep their own documentation, which names their type, and are
//! one call into this file.
//!
//! This is an `impl` block of `PollEvented` outside `io/poll_evented.rs`
//! because what it adds is socket-specific: receives through `socket2`,
//! `connect`'s `SO_ERROR` and `shutdown(2)`.
//!
//! The two macros at the end write the `AsyncRead`/`AsyncWrite` methods of
//! the streams and of their halves (`split.rs`), which all read and write
//! through the stream's `PollEvented`.
use crate::io::poll_evented::{copy_to, copy_to_slices, PollEvented};
use crate::io::{Interest, ReadBuf, Ready};
use crate::runtime::driver::scheduled_io::Direction;
use socket2::SockRef;
use std::future::poll_fn;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd};
use std::task::{Context, Poll};

impl<E: AsRawFd> PollEvented<E> {
    /// Waits until the socket is ready for some of `interest` and returns
    /// the readiness (tokio's `ready`).
    pub(crate) async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        let event = self.registration().readiness(interest).await?;
        Ok(event.ready)
    }

    /// Ready to read (or receive), or the task's waker is stored.
    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registration().poll_read_ready(cx).map_ok(|_| ())
    }

    /// Ready to write (or send), or the task's waker is stored.
    pub(crate) fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registration().poll_write_ready(cx).map_ok(|_| ())
    }

    /// Runs `f` if the socket is ready for `interest` now; see
    /// `Registration::try_io`.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration().try_io(interest, f)
    }

    /// Waits for `interest` and runs `f` until it does not block; see
    /// `Registration::async_io`.
    pub(crate) async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration().async_io(interest, f).await
    }

    /// Runs `f` once readable, retrying after each `WouldBlock`.
    pub(crate) fn poll_read_io<R>(
        &self,
        cx: &mut Context<'_>,
        f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.registration().poll_io(cx, Direction::Read, f)
    }

    /// Runs `f` once writable, retrying after each `WouldBlock`.
    pub(crate) fn poll_write_io<R>(
        &self,
        cx: &mut Context<'_>,
        f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.registration().poll_io(cx, Direction::Write, f)
    }

    /// One `read(2)` if the socket is readable now.
    pub(crate) fn try_read<'a>(&'a self, buf: &mut [u8]) -> io::Result<usize>
    where
        &'a E: Read,
    {
        self.try_io(Interest::READABLE, || {
            self.read_queued_or(true, &mut *buf, copy_to, |buf| self.get_ref().read(buf))
        })
    }

    /// One `readv(2)` if the socket is readable now.
    pub(crate) fn try_read_vectored<'a>(&'a self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize>
    where
        &'a E: Read,
    {
        self.try_io(Interest::READABLE, || {
            self.read_queued_or(true, &mut *bufs, copy_to_slices, |bufs| {
                self.get_ref().read_vectored(bufs)
            })
        })
    }

    /// One `write(2)` if the socket is writable now.
    pub(crate) fn try_write<'a>(&'a self, buf: &[u8]) -> io::Result<usize>
    where
        &'a E: Write,
    {
        if self.has_queued_sends() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        self.try_io(Interest::WRITABLE, || self.get_ref().write(buf))
    }

    /// One `writev(2)` if the socket is writable now.
    pub(crate) fn try_write_vectored<'a>(&'a self, bufs: &[IoSlice<'_>]) -> io::Result<usize>
    where
        &'a E: Write,
    {
        if self.has_queued_sends() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        self.try_io(Interest::WRITABLE, || self.get_ref().write_vectored(bufs))
    }
}

impl<E: AsRawFd + AsFd> PollEvented<E> {
    /// A `poll_*` receive: once readable, runs `recv` (a `socket2`
    /// receive, which takes possibly uninitialised memory) on the unfilled
    /// part of `buf`, then marks what it wrote as initialised and filled.
    /// The buffer is never zeroed.
    pub(crate) fn poll_recv<T>(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        mut recv: impl FnMut(SockRef<'_>, &mut [MaybeUninit<u8>]) -> io::Result<(usize, T)>,
    ) -> Poll<io::Result<T>> {
        self.poll_read_io(cx, || {
            // SAFETY: `unfilled_mut` hands out bytes that may be
            // uninitialised; we never read them, and never de-initialise
            // any: the only writer is the kernel, through `recv`.
            let unfilled = unsafe { buf.unfilled_mut() };
            let (n, value) = recv(SockRef::from(self.get_ref()), unfilled)?;
            // SAFETY: `recv` returned `n`, the number of bytes the kernel
            // wrote at the start of the unfilled region.
            unsafe { buf.assume_init(n) };
            buf.advance(n);
            Ok(value)
        })
    }

    /// Waits for a non-blocking `connect(2)` to finish: writable means the
    /// handshake is over, successfully or not, and `SO_ERROR` says which.
    pub(crate) async fn connected(&self) -> io::Result<()> {
        poll_fn(|cx| self.registration().poll_write_ready(cx)).await?;
        match SockRef::from(self.get_ref()).take_error()? {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Shuts down one or both directions of a stream; a socket that is
    /// already disconnected counts as shut down.
    pub(crate) fn shutdown_stream(&self, how: Shutdown) -> io::Result<()> {
        self.shutdown_now(how)
    }

    /// `poll_shutdown` of a stream or write half: waits until the bytes
    /// queued by completion writes are sent (`uring/send.rs`), then shuts
    /// the write side down; a failed send's error comes first.
    pub(crate) fn poll_shutdown_write(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_flush_stream(cx))?;
        Poll::Ready(self.shutdown_now(Shutdown::Write))
    }

    fn shutdown_now(&self, how: Shutdown) -> io::Result<()> {
        match SockRef::from(self.get_ref()).shutdown(how) {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            result => result,
        }
    }
}

/// `AsyncRead::poll_read` of a stream or a read half: a read through the
/// stream's `PollEvented`, at `self.$path` (`io`, `0.io`, `inner.io`).
macro_rules! poll_read_via {
    ($($path:tt).+) => {
        fn poll_read(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut $crate::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            self.$($path).+.poll_read_stream(cx, buf)
        }
    };
}

/// `AsyncWrite` of a stream or a write half, but for `poll_shutdown`:
/// writes through the stream's `PollEvented` at `self.$path`, straight to
/// the socket, or, with completion sends (`uring/send.rs`), into a queue
/// the ring sends, which `poll_flush` waits for.
macro_rules! poll_write_via {
    ($($path:tt).+) => {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            self.$($path).+.poll_write_stream(cx, &[std::io::IoSlice::new(buf)])
        }

        fn poll_write_vectored(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            bufs: &[std::io::IoSlice<'_>],
        ) -> std::task::Poll<std::io::Result<usize>> {
            self.$($path).+.poll_write_stream(cx, bufs)
        }

        fn is_write_vectored(&self) -> bool {
            true
        }

        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            self.$($path).+.poll_flush_stream(cx)
        }
    };
}

pub(crate) use {poll_read_via, poll_write_via};
