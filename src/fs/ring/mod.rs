//! File operations on the calling worker's io_uring ring, and the way the
//! rest of `fs` falls back when there is none.
//!
//! One contract, two implementations, chosen here by the `uring` feature:
//!
//! * `uring.rs`: the operations run on the ring of the worker the caller
//!   drives (io_uring mode), each owning its memory until the kernel
//!   completes it;
//! * `none.rs`: the stand-in compiled without the feature; no ring is ever
//!   available.
//!
//! **The contract.** [`available`] says whether an operation started now
//! would run on a ring. Every operation returns `Err` with its inputs
//! (`Err(())` when they are only borrowed) when no ring can run it here:
//! the feature is off, the runtime runs in legacy mode, or the caller is
//! not a worker (a thread inside `block_on` of a multi-thread runtime, a
//! blocking-pool thread). The caller then does the same work on the
//! blocking pool, so the callers (`file/op.rs`, `read.rs`, `write.rs`,
//! `metadata.rs`, `open_options.rs`, `file.rs`) hold no `cfg` of their own.
//!
//! * `read(file, buf, len)`: up to `len` bytes at the file's position into
//!   `buf`; the count and the buffer, or `Err((file, buf))`;
//! * `write_all(file, buf)`: all of `buf` at the file's position; once its
//!   first poll submitted it, it is finished even if the future is dropped;
//!   `Err((file, buf, written_so_far))`;
//! * `open(path, flags, mode)`, `statx(path, follow)`: `Err(())`;
//! * `fsync(file, datasync)`: `Err(file)`;
//! * `close(fd)`: submitted without waiting; `Err(fd)`.
#[cfg(feature = "uring")]
mod uring;
#[cfg(feature = "uring")]
pub(crate) use uring::*;

#[cfg(not(feature = "uring"))]
mod none;
#[cfg(not(feature = "uring"))]
pub(crate) use none::*;
