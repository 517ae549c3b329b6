//! Asynchronous filesystem operations (tokio's `tokio::fs` API).
//!
//! Legacy mode runs every operation on the blocking pool, as tokio does.
//! io_uring mode runs reads, writes, opens, metadata (`statx`), `fsync` and
//! closes through the worker's own ring, and uses the blocking pool for the
//! rest and for callers that are not on a worker.
mod file;
#[cfg(feature = "uring")]
pub(crate) mod ring;

pub use file::File;
