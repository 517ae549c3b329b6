//! Asynchronous filesystem operations (tokio's `tokio::fs` API).
//!
//! The kernel offers no readiness for regular files (`epoll` refuses them),
//! so every operation here is a blocking system call run somewhere other
//! than the worker. In legacy mode that is the blocking pool, as in tokio:
//! each free function is one closure handed to `asyncify`, and `File`
//! keeps one operation in flight at a time (see `file.rs`). io_uring mode
//! can run `File`'s reads and writes through the worker's ring instead; the
//! place where it plugs in is `file/op.rs` (`InFlight`), and the free
//! functions that gain a ring version do so beside their blocking one, in
//! the same file.
//!
//! One file per group of operations:
//! `open_options.rs`, `file.rs` (+ `file/`), `read.rs`, `write.rs`,
//! `copy.rs`, `rename.rs`, `link.rs`, `remove.rs`, `create_dir.rs`,
//! `dir_builder.rs`, `metadata.rs`, `read_dir.rs`, `file_times.rs`.
//!
//! Calling any of them outside a runtime panics with tokio's message
//! ("there is no reactor running, must be called from the context of a
//! Tokio 1.x runtime") when first polled.
mod copy;
mod create_dir;
mod dir_builder;
mod file;
mod file_times;
mod link;
mod metadata;
mod open_options;
mod read;
mod read_dir;
mod remove;
mod rename;
pub(crate) mod ring;
mod write;

pub use copy::copy;
pub use create_dir::{create_dir, create_dir_all};
pub use dir_builder::DirBuilder;
pub use file::File;
pub use file_times::FileTimes;
pub use link::{hard_link, read_link, symlink};
pub use metadata::{canonicalize, metadata, set_permissions, symlink_metadata, try_exists};
pub use open_options::OpenOptions;
pub use read::{read, read_to_string};
pub use read_dir::{read_dir, DirEntry, ReadDir};
pub use remove::{remove_dir, remove_dir_all, remove_file};
pub use rename::rename;
pub use write::write;

use std::io;

/// Runs the blocking `f` on the current runtime's blocking pool and waits
/// for it.
///
/// If the blocking task does not complete (it panicked, or the runtime shut
/// down before running it) the error is tokio's: `ErrorKind::Other`,
/// "background task failed".
///
/// # Panics
///
/// When polled outside a runtime.
pub(crate) async fn asyncify<F, T>(f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    match crate::runtime::scheduler::Handle::current()
        .spawn_blocking(f)
        .await
    {
        Ok(res) => res,
        Err(_) => Err(io::Error::other("background task failed")),
    }
}
