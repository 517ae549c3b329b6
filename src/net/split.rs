//! The halves a stream splits into, written once for `TcpStream` and
//! `UnixStream`.
//!
//! `split` lends two halves that borrow the stream; `into_split` moves the
//! stream into an `Arc` shared by two owned halves, which can move to
//! different tasks and be put back together with `reunite` (which checks
//! that both point at the same stream). A stream's reads and writes already
//! take `&self` (the readiness of each direction is tracked separately), so
//! a half is just a reference that exposes one direction: no locking, and
//! no allocation for the borrowed pair. As in tokio, dropping the owned
//! write half shuts the write direction down (the peer reads EOF), unless
//! it was reunited or `forget` was called.
//!
//! # Why a macro
//!
//! tokio's API has a set of halves per protocol (`tcp::ReadHalf`,
//! `unix::ReadHalf`, ...): distinct structs, each documented in terms of
//! its own stream, and a tuple struct `ReuniteError` with public fields.
//! Type aliases of one generic struct would change all three: rustdoc
//! would show aliases with generic documentation, and an alias cannot be
//! used as a tuple-struct pattern (`Err(ReuniteError(read, write))`).
//! Newtypes would keep the names but still need every method written out
//! per type. So `stream_halves!` writes the structs, their methods and
//! their trait impls once, for the stream type named at the call
//! (`tcp/split.rs`, `unix/split.rs`), with the documentation tokio gives
//! them.
//!
//! The stream type must provide what the halves forward to: its public
//! `ready`, `readable`, `writable`, `try_read`, `try_read_vectored`,
//! `try_read_buf` (with `io-util`),
//! `try_write`, `try_write_vectored`, `peer_addr` and `local_addr`, and,
//! for reads, writes and shutdown, its `PollEvented` as a field `io`
//! visible to the calling module.

/// Defines `ReadHalf`, `WriteHalf`, `OwnedReadHalf`, `OwnedWriteHalf` and
/// `ReuniteError` for `$stream` in the calling module, with the functions
/// `split` and `split_owned` that create them. `$addr` is the type of the
/// stream's addresses; `$proto` names the protocol in the documentation
/// ("TCP", "Unix"). `$read_extra`, if given, is a macro of the calling
/// module that writes more methods of both read halves (first, as tokio
/// lists them) given the field that reaches the stream, `0` or `inner`.
macro_rules! stream_halves {
    ($stream:ident, $addr:ty, $proto:literal $(, $read_extra:ident)?) => {
        #[doc = concat!(
            "Borrowed read half of a [`", stringify!($stream), "`], created by [`split`]."
        )]
        ///
        /// Reading from a `ReadHalf` is usually done using the convenience methods
        /// found on the [`AsyncReadExt`] trait.
        ///
        #[doc = concat!("[`", stringify!($stream), "`]: ", stringify!($stream))]
        #[doc = concat!("[`split`]: ", stringify!($stream), "::split()")]
        /// [`AsyncReadExt`]: trait@crate::io::AsyncReadExt
        #[derive(Debug)]
        pub struct ReadHalf<'a>(&'a $stream);

        #[doc = concat!(
            "Borrowed write half of a [`", stringify!($stream), "`], created by [`split`]."
        )]
        ///
        /// Note that in the [`AsyncWrite`] implementation of this type,
        #[doc = concat!(
            "[`poll_shutdown`] will shut down the ", $proto, " stream in the write direction."
        )]
        ///
        /// Writing to a `WriteHalf` is usually done using the convenience methods
        /// found on the [`AsyncWriteExt`] trait.
        ///
        #[doc = concat!("[`", stringify!($stream), "`]: ", stringify!($stream))]
        #[doc = concat!("[`split`]: ", stringify!($stream), "::split()")]
        /// [`AsyncWrite`]: trait@crate::io::AsyncWrite
        /// [`poll_shutdown`]: fn@crate::io::AsyncWrite::poll_shutdown
        /// [`AsyncWriteExt`]: trait@crate::io::AsyncWriteExt
        #[derive(Debug)]
        pub struct WriteHalf<'a>(&'a $stream);

        pub(crate) fn split(stream: &mut $stream) -> (ReadHalf<'_>, WriteHalf<'_>) {
            (ReadHalf(&*stream), WriteHalf(&*stream))
        }

        #[doc = concat!(
            "Owned read half of a [`", stringify!($stream), "`], created by [`into_split`]."
        )]
        ///
        /// Reading from an `OwnedReadHalf` is usually done using the convenience
        /// methods found on the [`AsyncReadExt`] trait.
        ///
        #[doc = concat!("[`", stringify!($stream), "`]: ", stringify!($stream))]
        #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
        /// [`AsyncReadExt`]: trait@crate::io::AsyncReadExt
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            inner: std::sync::Arc<$stream>,
        }

        #[doc = concat!(
            "Owned write half of a [`", stringify!($stream), "`], created by [`into_split`]."
        )]
        ///
        /// Note that in the [`AsyncWrite`] implementation of this type,
        #[doc = concat!(
            "[`poll_shutdown`] will shut down the ", $proto, " stream in the write direction."
        )]
        #[doc = concat!(
            "Dropping the write half will also shut down the write half of the ", $proto
        )]
        /// stream.
        ///
        /// Writing to an `OwnedWriteHalf` is usually done using the convenience
        /// methods found on the [`AsyncWriteExt`] trait.
        ///
        #[doc = concat!("[`", stringify!($stream), "`]: ", stringify!($stream))]
        #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
        /// [`AsyncWrite`]: trait@crate::io::AsyncWrite
        /// [`poll_shutdown`]: fn@crate::io::AsyncWrite::poll_shutdown
        /// [`AsyncWriteExt`]: trait@crate::io::AsyncWriteExt
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            // std's `Arc` even under loom: the halves' reference count is
            // not part of any concurrency protocol (see `src/loom.rs`).
            inner: std::sync::Arc<$stream>,
            shutdown_on_drop: bool,
        }

        pub(crate) fn split_owned(stream: $stream) -> (OwnedReadHalf, OwnedWriteHalf) {
            let arc = std::sync::Arc::new(stream);
            let read = OwnedReadHalf {
                inner: std::sync::Arc::clone(&arc),
            };
            let write = OwnedWriteHalf {
                inner: arc,
                shutdown_on_drop: true,
            };
            (read, write)
        }

        fn reunite(
            read: OwnedReadHalf,
            mut write: OwnedWriteHalf,
        ) -> Result<$stream, ReuniteError> {
            if !std::sync::Arc::ptr_eq(&read.inner, &write.inner) {
                return Err(ReuniteError(read, write));
            }
            write.shutdown_on_drop = false;
            drop(write);
            // Only two `Arc`s to a stream ever exist, and the other one is gone.
            Ok(std::sync::Arc::try_unwrap(read.inner)
                .expect(concat!(stringify!($stream), ": try_unwrap failed in reunite")))
        }

        /// Error indicating that two halves were not from the same socket, and thus
        /// could not be reunited.
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "tried to reunite halves that are not from the same socket"
                )
            }
        }

        impl std::error::Error for ReuniteError {}

        impl ReadHalf<'_> {
            $($read_extra!(0);)?
            $crate::net::split::read_half_methods!($stream, $addr, 0);
        }

        impl WriteHalf<'_> {
            $crate::net::split::write_half_methods!($stream, $addr, 0);
        }

        impl OwnedReadHalf {
            #[doc = concat!(
                "Attempts to put the two halves of a `", stringify!($stream), "` back together and"
            )]
            /// recover the original socket. Succeeds only if the two halves
            /// originated from the same call to [`into_split`].
            ///
            #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
            pub fn reunite(
                self,
                other: OwnedWriteHalf,
            ) -> Result<$stream, ReuniteError> {
                reunite(self, other)
            }

            $($read_extra!(inner);)?
            $crate::net::split::read_half_methods!($stream, $addr, inner);
        }

        impl OwnedWriteHalf {
            #[doc = concat!(
                "Attempts to put the two halves of a `", stringify!($stream), "` back together and"
            )]
            /// recover the original socket. Succeeds only if the two halves
            /// originated from the same call to [`into_split`].
            ///
            #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
            pub fn reunite(
                self,
                other: OwnedReadHalf,
            ) -> Result<$stream, ReuniteError> {
                reunite(other, self)
            }

            /// Destroys the write half, but doesn't close the write half of the
            /// stream until the read half is dropped. If the read half has already
            /// been dropped, this closes the stream.
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
                drop(self);
            }

            $crate::net::split::write_half_methods!($stream, $addr, inner);
        }

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                // With completion sends still queued, the half-close waits
                // for them (it would fail them now).
                if self.shutdown_on_drop && !self.inner.io.defer_shutdown_write() {
                    let _ = self.inner.io.shutdown_stream(std::net::Shutdown::Write);
                }
            }
        }

        impl $crate::io::AsyncRead for ReadHalf<'_> {
            $crate::net::evented::poll_read_via!(0.io);
        }

        impl $crate::io::AsyncRead for OwnedReadHalf {
            $crate::net::evented::poll_read_via!(inner.io);
        }

        impl $crate::io::AsyncWrite for WriteHalf<'_> {
            $crate::net::evented::poll_write_via!(0.io);

            fn poll_shutdown(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.0.io.poll_shutdown_write(cx)
            }
        }

        impl $crate::io::AsyncWrite for OwnedWriteHalf {
            $crate::net::evented::poll_write_via!(inner.io);

            fn poll_shutdown(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let res = std::task::ready!(self.inner.io.poll_shutdown_write(cx));
                if res.is_ok() {
                    // Already shut down: nothing left for `Drop` to do.
                    self.shutdown_on_drop = false;
                }
                res.into()
            }
        }

        impl AsRef<$stream> for ReadHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.0
            }
        }

        impl AsRef<$stream> for WriteHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.0
            }
        }

        impl AsRef<$stream> for OwnedReadHalf {
            fn as_ref(&self) -> &$stream {
                &self.inner
            }
        }

        impl AsRef<$stream> for OwnedWriteHalf {
            fn as_ref(&self) -> &$stream {
                &self.inner
            }
        }
    };
}

/// The read-direction methods of `ReadHalf` and `OwnedReadHalf`, which
/// reach the stream through `self.$field`.
macro_rules! read_half_methods {
    ($stream:ident, $addr:ty, $field:tt) => {
        /// Waits for any of the requested ready states.
        ///
        /// This function is usually paired with [`try_read()`]. It can be used
        /// instead of [`readable()`] to check the returned ready set for
        /// [`Ready::READABLE`] and [`Ready::READ_CLOSED`] events.
        ///
        /// [`try_read()`]: Self::try_read
        /// [`readable()`]: Self::readable
        /// [`Ready::READABLE`]: crate::io::Ready::READABLE
        /// [`Ready::READ_CLOSED`]: crate::io::Ready::READ_CLOSED
        pub async fn ready(
            &self,
            interest: $crate::io::Interest,
        ) -> std::io::Result<$crate::io::Ready> {
            self.$field.ready(interest).await
        }

        /// Waits for the socket to become readable.
        ///
        /// This function is equivalent to `ready(Interest::READABLE)` and is
        /// usually paired with `try_read()`.
        pub async fn readable(&self) -> std::io::Result<()> {
            self.$field.readable().await
        }

        /// Tries to read data from the stream into the provided buffer,
        /// returning how many bytes were read.
        ///
        #[doc = concat!("See [`", stringify!($stream), "::try_read`].")]
        pub fn try_read(&self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.$field.try_read(buf)
        }

        /// Tries to read data from the stream into the provided buffers,
        /// returning how many bytes were read.
        ///
        #[doc = concat!("See [`", stringify!($stream), "::try_read_vectored`].")]
        pub fn try_read_vectored(
            &self,
            bufs: &mut [std::io::IoSliceMut<'_>],
        ) -> std::io::Result<usize> {
            self.$field.try_read_vectored(bufs)
        }

        /// Tries to read data from the stream into the spare capacity of
        /// `buf`, advancing it by the number of bytes read.
        ///
        #[doc = concat!("See [`", stringify!($stream), "::try_read_buf`].")]
        #[cfg(feature = "io-util")]
        pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> std::io::Result<usize> {
            self.$field.try_read_buf(buf)
        }

        $crate::net::split::addr_methods!($addr, $field);
    };
}

/// The write-direction methods of `WriteHalf` and `OwnedWriteHalf`, which
/// reach the stream through `self.$field`.
macro_rules! write_half_methods {
    ($stream:ident, $addr:ty, $field:tt) => {
        /// Waits for any of the requested ready states.
        ///
        /// This function is usually paired with [`try_write()`]. It can be used
        /// instead of [`writable()`] to check the returned ready set for
        /// [`Ready::WRITABLE`] and [`Ready::WRITE_CLOSED`] events.
        ///
        /// [`try_write()`]: Self::try_write
        /// [`writable()`]: Self::writable
        /// [`Ready::WRITABLE`]: crate::io::Ready::WRITABLE
        /// [`Ready::WRITE_CLOSED`]: crate::io::Ready::WRITE_CLOSED
        pub async fn ready(
            &self,
            interest: $crate::io::Interest,
        ) -> std::io::Result<$crate::io::Ready> {
            self.$field.ready(interest).await
        }

        /// Waits for the socket to become writable.
        ///
        /// This function is equivalent to `ready(Interest::WRITABLE)` and is
        /// usually paired with `try_write()`.
        pub async fn writable(&self) -> std::io::Result<()> {
            self.$field.writable().await
        }

        /// Tries to write a buffer to the stream, returning how many bytes were
        /// written.
        ///
        #[doc = concat!("See [`", stringify!($stream), "::try_write`].")]
        pub fn try_write(&self, buf: &[u8]) -> std::io::Result<usize> {
            self.$field.try_write(buf)
        }

        /// Tries to write several buffers to the stream, returning how many
        /// bytes were written.
        ///
        #[doc = concat!("See [`", stringify!($stream), "::try_write_vectored`].")]
        pub fn try_write_vectored(&self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            self.$field.try_write_vectored(bufs)
        }

        $crate::net::split::addr_methods!($addr, $field);
    };
}

/// `peer_addr` and `local_addr`, which every half has.
macro_rules! addr_methods {
    ($addr:ty, $field:tt) => {
        /// Returns the remote address that this stream is connected to.
        pub fn peer_addr(&self) -> std::io::Result<$addr> {
            self.$field.peer_addr()
        }

        /// Returns the local address that this stream is bound to.
        pub fn local_addr(&self) -> std::io::Result<$addr> {
            self.$field.local_addr()
        }
    };
}

pub(crate) use {addr_methods, read_half_methods, stream_halves, write_half_methods};
