//! Traits, helpers and type definitions for asynchronous I/O.
//!
//! The traits ([`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`],
//! [`AsyncSeek`]), [`ReadBuf`] and, with the `io-util` feature, the extension
//! traits and utilities are tokio's own, re-exported: a type implementing them
//! here implements them for every library written against tokio.
pub use tokio::io::*;

mod interest;
#[cfg(tokiwa_io_driver)]
pub(crate) mod poll_evented;
mod ready;

pub use interest::Interest;
pub use ready::Ready;
