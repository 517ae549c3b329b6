//! hyper's I/O traits over tokio's, and back.
//!
//! hyper 1.x reads into a `hyper::rt::ReadBufCursor` (a window on possibly
//! uninitialised memory) where tokio reads into a `tokio::io::ReadBuf`; both
//! track "filled ⊆ initialised ⊆ capacity" and both hand out the raw
//! unfilled part only through `unsafe` accessors whose contract is "do not
//! de-initialise". The adapters below pass that window from one type to the
//! other and then report how much was filled. It is the same construction as
//! hyper-util's `TokioIo` (hyper-util `src/rt/tokio.rs`), which we cannot use
//! without hyper-util's `tokio` feature.
//!
//! The report is trusted only as far as the reader cannot lie in safe code:
//!
//! * hyper → tokio: the tokio reader gets `&mut ReadBuf`, which safe code
//!   may overwrite with a `ReadBuf` over memory of its own; its filled
//!   count would then say nothing about hyper's window. The read goes
//!   through `crate::read_buf::poll_read_in_place`, which panics unless the
//!   `ReadBuf` still covers the window.
//! * tokio → hyper: the hyper reader gets a `ReadBufCursor`, which holds
//!   its `hyper::rt::ReadBuf` privately and offers no way to replace it, so
//!   the only memory it can fill is the window lent to it.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokiwa::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::read_buf::poll_read_in_place;

pin_project_lite::pin_project! {
    /// Adapts a tokio-style I/O type (any tokiwa socket) to hyper's
    /// [`hyper::rt::Read`]/[`hyper::rt::Write`], and a hyper I/O type (such
    /// as `hyper::upgrade::Upgraded`) to tokio's
    /// [`AsyncRead`]/[`AsyncWrite`].
    #[derive(Debug)]
    pub struct TokiwaIo<T> {
        #[pin]
        inner: T,
    }
}

impl<T> TokiwaIo<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> TokiwaIo<T> {
        TokiwaIo { inner }
    }

    /// The wrapped I/O.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// The wrapped I/O, mutably.
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps it.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T: AsyncRead> hyper::rt::Read for TokiwaIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        // SAFETY: `as_mut` requires that no byte of the returned slice be
        // de-initialised. The slice goes only into a tokio `ReadBuf`,
        // whose safe API cannot de-initialise memory, and an `AsyncRead`
        // that reached its unsafe API is bound by the same contract.
        let window = unsafe { buf.as_mut() };
        let mut tbuf = ReadBuf::uninit(window);
        let filled = match poll_read_in_place(self.project().inner, cx, &mut tbuf) {
            Poll::Ready(Ok(())) => tbuf.filled().len(),
            other => return other,
        };
        // SAFETY: `poll_read_in_place` returned `Ok`, so `tbuf` still
        // covers the window (a reader that swapped in a `ReadBuf` of its
        // own made it panic), and `ReadBuf` keeps `filled <= initialised`:
        // the first `filled` bytes of the window, which starts at the
        // cursor's unfilled part, have been written.
        unsafe { buf.advance(filled) };
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite> hyper::rt::Write for TokiwaIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }
}

impl<T: hyper::rt::Read> AsyncRead for TokiwaIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        tbuf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let already = tbuf.filled().len();
        // SAFETY: `unfilled_mut` requires that no byte be de-initialised.
        // The slice goes only into a `hyper::rt::ReadBuf`, whose safe API
        // cannot de-initialise memory (its unsafe API has the same contract).
        let window = unsafe { tbuf.unfilled_mut() };
        let mut hbuf = hyper::rt::ReadBuf::uninit(window);
        let filled = match self.project().inner.poll_read(cx, hbuf.unfilled()) {
            Poll::Ready(Ok(())) => hbuf.filled().len(),
            other => return other,
        };
        // SAFETY: hyper's `ReadBuf` keeps `filled <= initialised`, so the
        // `filled` bytes after tokio's filled part (where the window began)
        // are initialised. They are bytes of the window: `hbuf` is a local
        // the reader reaches only through its cursor, which cannot replace
        // it.
        unsafe { tbuf.assume_init(filled) };
        tbuf.set_filled(already + filled);
        Poll::Ready(Ok(()))
    }
}

impl<T: hyper::rt::Write> AsyncWrite for TokiwaIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }
}
