//! The process's standard streams: [`stdin`], [`stdout`] and [`stderr`].
//!
//! The descriptors may be anything (a terminal, a pipe, a regular file) and
//! belong to the whole process, so they are never made nonblocking or
//! registered with a driver: each handle keeps one blocking read or write
//! in flight on the blocking pool (`blocking.rs`, the same buffer handoff
//! as `fs::File`). Any task may create and use handles; several handles to
//! one stream write in their own chunks, each chunk whole (std's handles
//! lock the stream for each `write_all`), but with no order between
//! handles.
//!
//! As in tokio, a write is reported done once copied into the handle's
//! buffer; `flush` waits for it and reports its error (e.g. `BrokenPipe`
//! once the reader of a pipe has gone: Rust programs ignore `SIGPIPE`).
//! Writes of stdout and stderr still run if the runtime shuts down right
//! after they were reported done.
mod blocking;
mod stderr;
mod stdin;
mod stdout;

pub use stderr::{stderr, Stderr};
pub use stdin::{stdin, Stdin};
pub use stdout::{stdout, Stdout};
