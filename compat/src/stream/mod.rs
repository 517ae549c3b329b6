//! tokio-stream's wrappers of runtime types, taking tokiwa's types
//! (feature `stream`).
//!
//! tokio-stream's `wrappers` module turns tokio's runtime types into
//! `Stream`s; its runtime-type wrappers name tokio's own `Interval`,
//! `TcpListener`, ... and so cannot take tokiwa's. This module provides the
//! same wrappers for tokiwa's types, at the path `tokio_stream::wrappers`
//! has inside its crate: `tokiwa_compat::stream::wrappers::IntervalStream`
//! mirrors `tokio_stream::wrappers::IntervalStream`, so a port changes the
//! crate name and keeps the rest of the path. (Not at the crate root: the
//! root is tokio-util's namespace, and tokio-stream's `StreamExt` and
//! friends, which work unchanged on any `Stream`, stay in tokio-stream.)
//! Each wrapper has tokio-stream's API: `new`, `into_inner`, `AsRef` and
//! `AsMut` of the wrapped type, and the same `Stream::Item`.
//!
//! The `Stream` trait is `futures-core`'s, the one tokio-stream re-exports,
//! so tokio-stream's and futures' combinators apply to these wrappers.
//!
//! **Channel wrappers need nothing from here.** `tokiwa::sync` is tokio's
//! own `tokio::sync` (re-exported), so tokio-stream's `ReceiverStream`,
//! `UnboundedReceiverStream`, `BroadcastStream` and `WatchStream` take
//! tokiwa's receivers as they are, and run on tokiwa (they only use
//! wakers). Likewise `LinesStream` and `SplitStream` wrap tokio's
//! `io::Lines`/`io::Split`, which tokiwa's `AsyncBufReadExt` returns.
pub mod wrappers;

pub use futures_core::Stream;
