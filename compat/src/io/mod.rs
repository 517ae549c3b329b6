//! futures-io adapters in both directions, under tokio-util's names.
//!
//! tokiwa's I/O types implement tokio's `AsyncRead`/`AsyncWrite`/
//! `AsyncBufRead`/`AsyncSeek`; the `futures` ecosystem (`futures::io`,
//! async-tls, many protocol crates) is written against `futures-io`'s
//! traits of the same names. [`Compat<T>`] wraps a value of one family and
//! implements the other, exactly as `tokio_util::compat::Compat` does, and
//! the four extension traits keep tokio-util's names and directions, so code
//! that moves from `tokio_util::compat` changes only its import path:
//!
//! | trait | implemented for | method | result implements |
//! |---|---|---|---|
//! | [`TokioAsyncReadCompatExt`] | tokio `AsyncRead` | `.compat()` | futures-io `AsyncRead` (+ `AsyncBufRead`, `AsyncSeek`, and `AsyncWrite` when `T` has them) |
//! | [`TokioAsyncWriteCompatExt`] | tokio `AsyncWrite` | `.compat_write()` | futures-io `AsyncWrite` |
//! | [`FuturesAsyncReadCompatExt`] | futures-io `AsyncRead` | `.compat()` | tokio `AsyncRead` (+ the others) |
//! | [`FuturesAsyncWriteCompatExt`] | futures-io `AsyncWrite` | `.compat_write()` | tokio `AsyncWrite` |
//!
//! The traits map one to one, with three places that need state or care:
//!
//! * **Shutdown.** futures-io's `poll_close` is tokio's `poll_shutdown`.
//!   futures-io has no `is_write_vectored`; a wrapped futures writer says
//!   `false` (tokio's default), so tokio's helpers hand it one buffer at a
//!   time unless they call `poll_write_vectored` themselves, which is
//!   forwarded.
//! * **Seeking.** tokio splits a seek into `start_seek` and `poll_complete`,
//!   futures-io has one `poll_seek(pos)` that is polled again with the same
//!   position until it is ready. `Compat` remembers the position in flight
//!   (`seek_pos`) so that a `poll_seek` repeated after `Pending` waits for
//!   the seek already started instead of starting it again, and so that a
//!   `start_seek` on a futures seeker is carried into `poll_complete` (see
//!   `seek.rs`).
//! * **Reading into a `ReadBuf`.** futures-io's `poll_read` takes `&mut
//!   [u8]`, which must be initialised; tokio's `ReadBuf` may hold
//!   uninitialised memory. tokio-util zeroes the whole unfilled part on
//!   every call (`initialize_unfilled`), which is quadratic when a large
//!   buffer is filled by many small reads (tokio issue 7194). Here only
//!   memory that the `ReadBuf` does not already know to be initialised is
//!   zeroed, and at most a window the size of what the reader has shown it
//!   can return (kept in `Compat` between calls, doubling from 8 KiB when
//!   the reader fills it). The initialised length itself travels with the
//!   caller's `ReadBuf` (`ReadBuf::initialized`, which tokio's `read_to_end`
//!   carries from call to call; `BufReader` and `copy` read into memory
//!   that is initialised already): after one zeroing the memory is never
//!   zeroed again. It is deliberately *not* cached in
//!   `Compat` across calls: the next call's `ReadBuf` may be a different or
//!   re-allocated buffer, and calling its memory initialised would hand
//!   uninitialised bytes to safe code (see `read.rs`).

mod read;
mod seek;
mod write;

use std::io::SeekFrom;

pin_project_lite::pin_project! {
    /// A futures-io value seen as tokio's I/O traits, or a tokio one seen as
    /// futures-io's: built by the four extension traits' `compat` and
    /// `compat_write` (tokio-util's `Compat`, with the same methods).
    #[derive(Debug)]
    pub struct Compat<T> {
        #[pin]
        inner: T,
        // The seek started and not yet completed (both directions).
        seek_pos: Option<SeekFrom>,
        // futures -> tokio reads: how much uninitialised memory one read may
        // zero. Grows while the reader fills what it is given.
        read_window: usize,
    }
}

impl<T> Compat<T> {
    fn new(inner: T) -> Self {
        Compat {
            inner,
            seek_pos: None,
            read_window: read::INITIAL_WINDOW,
        }
    }

    /// The wrapped value.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The wrapped value, mutably. A seek started through `Compat` and not
    /// yet completed is not seen through it.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps the value.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T: std::os::fd::AsRawFd> std::os::fd::AsRawFd for Compat<T> {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.inner.as_raw_fd()
    }
}

impl<T: std::os::fd::AsFd> std::os::fd::AsFd for Compat<T> {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

/// Extension for tokio's `AsyncRead` (tokiwa's sockets, files, pipes):
/// `.compat()` gives a futures-io reader.
pub trait TokioAsyncReadCompatExt: tokiwa::io::AsyncRead {
    /// Wraps `self` so that it implements futures-io's `AsyncRead` (and
    /// `AsyncBufRead`, `AsyncSeek`, `AsyncWrite` where `self` has tokio's).
    fn compat(self) -> Compat<Self>
    where
        Self: Sized,
    {
        Compat::new(self)
    }
}

impl<T: tokiwa::io::AsyncRead + ?Sized> TokioAsyncReadCompatExt for T {}

/// Extension for tokio's `AsyncWrite`: `.compat_write()` gives a
/// futures-io writer.
pub trait TokioAsyncWriteCompatExt: tokiwa::io::AsyncWrite {
    /// Wraps `self` so that it implements futures-io's `AsyncWrite`.
    fn compat_write(self) -> Compat<Self>
    where
        Self: Sized,
    {
        Compat::new(self)
    }
}

impl<T: tokiwa::io::AsyncWrite + ?Sized> TokioAsyncWriteCompatExt for T {}

/// Extension for futures-io's `AsyncRead`: `.compat()` gives a tokio
/// reader (usable with `tokiwa::io::copy`, `AsyncReadExt`, ...).
pub trait FuturesAsyncReadCompatExt: futures_io::AsyncRead {
    /// Wraps `self` so that it implements tokio's `AsyncRead` (and
    /// `AsyncBufRead`, `AsyncSeek`, `AsyncWrite` where `self` has
    /// futures-io's).
    fn compat(self) -> Compat<Self>
    where
        Self: Sized,
    {
        Compat::new(self)
    }
}

impl<T: futures_io::AsyncRead + ?Sized> FuturesAsyncReadCompatExt for T {}

/// Extension for futures-io's `AsyncWrite`: `.compat_write()` gives a
/// tokio writer.
pub trait FuturesAsyncWriteCompatExt: futures_io::AsyncWrite {
    /// Wraps `self` so that it implements tokio's `AsyncWrite`.
    fn compat_write(self) -> Compat<Self>
    where
        Self: Sized,
    {
        Compat::new(self)
    }
}

impl<T: futures_io::AsyncWrite + ?Sized> FuturesAsyncWriteCompatExt for T {}
