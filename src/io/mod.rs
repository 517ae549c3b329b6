//! Traits, helpers and type definitions for asynchronous I/O.
//!
//! The traits ([`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`],
//! [`AsyncSeek`]), [`ReadBuf`] and, with the `io-util` feature, the extension
//! traits and utilities are tokio's own, re-exported: a type implementing them
//! here implements them for every library written against tokio.
//!
//! Built as the package named `tokio` (whole-graph mode, see `build.rs`),
//! the same items are tokiwa's own, at the same paths.
#[cfg(not(tokiwa_own_vocabulary))]
pub use tokio::io::*;

// Whole-graph mode: tokiwa's own traits, `ReadBuf` and io-util, at tokio's
// paths.
#[cfg(tokiwa_own_vocabulary)]
mod async_buf_read;
#[cfg(tokiwa_own_vocabulary)]
mod async_read;
#[cfg(tokiwa_own_vocabulary)]
mod async_seek;
#[cfg(tokiwa_own_vocabulary)]
mod async_write;
#[cfg(tokiwa_own_vocabulary)]
mod read_buf;
#[cfg(all(tokiwa_own_vocabulary, feature = "io-util"))]
mod util;

#[cfg(tokiwa_own_vocabulary)]
pub use self::{
    async_buf_read::AsyncBufRead, async_read::AsyncRead, async_seek::AsyncSeek,
    async_write::AsyncWrite, read_buf::ReadBuf,
};
#[cfg(tokiwa_own_vocabulary)]
#[doc(no_inline)]
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
// `util/mod.rs` lists exactly the public io-util items (the extension
// traits, the types their methods return, the readers, writers and copy
// functions); everything else in it is private or `pub(crate)`.
#[cfg(all(tokiwa_own_vocabulary, feature = "io-util"))]
pub use self::util::*;
#[cfg(all(tokiwa_own_vocabulary, feature = "io-util"))]
mod join;
#[cfg(all(tokiwa_own_vocabulary, feature = "io-util"))]
mod split;
#[cfg(all(tokiwa_own_vocabulary, feature = "io-util"))]
pub use self::{
    join::{join, Join},
    split::{split, ReadHalf, WriteHalf},
};

#[cfg(tokiwa_io_driver)]
mod async_fd;
#[cfg(any(feature = "fs", feature = "io-std"))]
pub(crate) mod blocking;
mod interest;
#[cfg(tokiwa_io_driver)]
// The sockets' building block; with the I/O driver but without `net`
// (`uring` alone) nothing uses it yet.
#[cfg_attr(not(feature = "net"), allow(dead_code))]
pub(crate) mod poll_evented;
mod ready;
#[cfg(feature = "io-std")]
mod stdio;

/// Unix-specific I/O: readiness-based access to any file descriptor.
#[cfg(tokiwa_io_driver)]
pub mod unix {
    #[allow(deprecated)]
    pub use super::async_fd::AsyncFdTryNewError;
    pub use super::async_fd::{
        AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, TryIoError,
    };
}

pub use interest::Interest;
pub use ready::Ready;
#[cfg(feature = "io-std")]
pub use stdio::{stderr, stdin, stdout, Stderr, Stdin, Stdout};
