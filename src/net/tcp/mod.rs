//! TCP utility types.
//!
//! `listener.rs`, `stream.rs` and `socket.rs` hold the three socket types
//! (re-exported from [`crate::net`]); this module names the halves a
//! stream splits into: [`ReadHalf`]/[`WriteHalf`] borrow the stream
//! (`split.rs`), [`OwnedReadHalf`]/[`OwnedWriteHalf`] share it through an
//! `Arc` and can be reunited (`split_owned.rs`).
pub(crate) mod listener;
pub(crate) mod socket;
mod split;
mod split_owned;
pub(crate) mod stream;

pub use split::{ReadHalf, WriteHalf};
pub use split_owned::{OwnedReadHalf, OwnedWriteHalf, ReuniteError};
