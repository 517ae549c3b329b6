//! io-util: the extension traits and the utilities built on the I/O traits
//! (whole-graph mode, feature `io-util`).
//!
//! Each extension trait ([`AsyncReadExt`], [`AsyncWriteExt`],
//! [`AsyncBufReadExt`], [`AsyncSeekExt`]) is implemented for every type
//! implementing its base trait, and each method returns a small future (one
//! file per future, below) that borrows the I/O object and calls its `poll_*`
//! method until done. The futures hold no buffers of their own beyond what
//! the operation needs, so dropping one (as `select!` does to the losers)
//! loses only what its documentation says it loses.
//!
//! Cooperative budgeting: as in tokio, these futures do not consult the
//! budget themselves; the I/O resources they drive (sockets, pipes, files)
//! do. In-memory utilities that never wait would otherwise starve their
//! neighbours, so they call [`poll_proceed_and_make_progress`].
//!
//! This module `pub use`s exactly the public items; `io/mod.rs` re-exports
//! them all with a glob.

mod async_buf_read_ext;
mod async_read_ext;
mod async_seek_ext;
mod async_write_ext;
mod chain;
mod fill_buf;
mod flush_shutdown;
mod lent_buf;
mod lines;
mod read;
mod read_buf;
mod read_exact;
mod read_int;
mod read_line;
mod read_to_end;
mod read_to_string;
mod read_until;
mod seek;
mod split;
mod take;
mod taken_string;
mod vec_fill;
mod write;
mod write_all;
mod write_buf;
mod write_int;
mod write_vectored;

pub use async_buf_read_ext::AsyncBufReadExt;
pub use async_read_ext::AsyncReadExt;
pub use async_seek_ext::AsyncSeekExt;
pub use async_write_ext::AsyncWriteExt;
pub use chain::Chain;
pub use lines::Lines;
pub use split::Split;
pub use take::Take;
// For the readers and copiers (io-types): a read into lent memory whose
// reported count can be trusted.
#[allow(unused_imports)]
pub(crate) use lent_buf::poll_read_into;

// ---- io-util types (worktree io-types) -------------------------------------
// BufReader, BufWriter, BufStream, copy/copy_buf/copy_bidirectional(_with_
// sizes), duplex/simplex, split/join, empty/repeat/sink: declare their
// modules and `pub use` their public items here. Module names already taken
// by the extension traits' files: chain, fill_buf, flush_shutdown,
// lent_buf, lines, read, read_buf, read_exact, read_int, read_line,
// read_to_end, read_to_string, read_until, seek, split (the `Split` of
// `AsyncBufReadExt`), take, taken_string, write, write_all, write_buf,
// write_int, write_vectored.
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod copy;
mod copy_bidirectional;
mod copy_buf;
mod empty;
mod mem;
mod repeat;
mod sink;
#[cfg(test)]
pub(crate) mod test_io;

pub use buf_reader::BufReader;
pub use buf_stream::BufStream;
pub use buf_writer::BufWriter;
pub use copy::copy;
pub use copy_bidirectional::{copy_bidirectional, copy_bidirectional_with_sizes};
pub use copy_buf::copy_buf;
pub use empty::{empty, Empty};
pub use mem::{duplex, simplex, DuplexStream, SimplexStream};
pub use repeat::{repeat, Repeat};
pub use sink::{sink, Sink};
// ---- end of io-util types ---------------------------------------------------

/// The buffer size of the buffered readers and writers and of `copy`, as
/// tokio's (8 KiB).
#[allow(dead_code)]
pub(crate) const DEFAULT_BUF_SIZE: usize = 8 * 1024;

/// Consults the cooperative budget for utilities that never wait on a
/// resource (`empty`, `repeat`, `sink`, the in-memory pipes, `copy`'s
/// loop), where tokio does: `Pending` once the task has used its budget,
/// after arranging for it to be polled again.
#[cfg(feature = "rt")]
#[allow(dead_code)]
pub(crate) fn poll_proceed_and_make_progress(
    cx: &mut std::task::Context<'_>,
) -> std::task::Poll<()> {
    let coop = std::task::ready!(crate::task::coop::poll_proceed(cx));
    coop.made_progress();
    std::task::Poll::Ready(())
}

/// Without a runtime there is no budget: always ready.
#[cfg(not(feature = "rt"))]
#[allow(dead_code)]
pub(crate) fn poll_proceed_and_make_progress(
    _cx: &mut std::task::Context<'_>,
) -> std::task::Poll<()> {
    std::task::Poll::Ready(())
}

#[cfg(test)]
mod tests;
