//! TCP utility types.
//!
//! `listener.rs`, `stream.rs` and `socket.rs` hold the three socket types
//! (re-exported from [`crate::net`]); this module names the halves a
//! stream splits into: [`ReadHalf`]/[`WriteHalf`] borrow the stream,
//! [`OwnedReadHalf`]/[`OwnedWriteHalf`] share it through an `Arc` and can
//! be reunited (`split.rs`, which instantiates `net/split.rs` for TCP).
pub(crate) mod listener;
pub(crate) mod socket;
mod split;
pub(crate) mod stream;

pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
