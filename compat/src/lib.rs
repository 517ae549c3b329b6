//! tokiwa for the ecosystem that tokio's traits alone do not reach.
//!
//! * futures-io adapters in both directions, under tokio-util's names
//!   ([`TokioAsyncReadCompatExt`], [`FuturesAsyncReadCompatExt`], ...);
//! * `hyper` (feature): an executor, a timer, an I/O adapter and a client
//!   connector on tokiwa;
//! * `axum` (feature): `serve(listener, router)` on tokiwa;
//! * `stream` (feature): tokio-stream's wrappers of runtime types, taking
//!   tokiwa's types.
#![warn(missing_docs, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod io;
mod read_buf;

pub use io::{
    Compat, FuturesAsyncReadCompatExt, FuturesAsyncWriteCompatExt, TokioAsyncReadCompatExt,
    TokioAsyncWriteCompatExt,
};

#[cfg(feature = "stream")]
pub mod stream;

#[cfg(feature = "hyper")]
pub mod hyper;

#[cfg(feature = "axum")]
pub mod axum;
