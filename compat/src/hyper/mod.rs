//! hyper 1.x on tokiwa: the runtime pieces hyper asks its user for.
//!
//! hyper is runtime-agnostic: it spawns through [`hyper::rt::Executor`],
//! waits through [`hyper::rt::Timer`] and does I/O through its own
//! [`hyper::rt::Read`]/[`hyper::rt::Write`]. hyper-util implements all three
//! for tokio (`TokioExecutor`, `TokioTimer`, `TokioIo`), but only behind its
//! `tokio` feature, which turns on tokio's `rt` and `time` — a second
//! runtime's code in a tokiwa build. This module is the same three on tokiwa,
//! plus a client connector:
//!
//! * [`TokiwaExecutor`]: spawns hyper's background tasks (HTTP/2 streams, the
//!   pooled client's connection tasks) with [`tokiwa::spawn`];
//! * [`TokiwaTimer`]: hyper's timeouts (`header_read_timeout`, HTTP/2
//!   keep-alive, the client pool's idle reaper) on tokiwa's timer wheel;
//! * [`TokiwaIo`]: adapts a tokio-style `AsyncRead`/`AsyncWrite` (any tokiwa
//!   socket) to hyper's I/O traits, and a hyper I/O back to tokio's;
//! * [`TokiwaConnector`]: a `tower_service::Service<http::Uri>` that opens a
//!   `tokiwa::net::TcpStream` (plain `http` only), with a connect timeout.
//!   With the `hyper-legacy-client` feature its streams also implement
//!   hyper-util's `Connection`, so that hyper-util's pooled client runs on it:
//!
//! ```ignore
//! use hyper_util::client::legacy::Client;
//! use tokiwa_compat::hyper::{TokiwaConnector, TokiwaExecutor, TokiwaTimer};
//!
//! let client = Client::builder(TokiwaExecutor::new())
//!     .timer(TokiwaTimer::new())
//!     .build::<_, http_body_util::Empty<bytes::Bytes>>(TokiwaConnector::new());
//! ```

mod connector;
mod executor;
mod io;
mod timer;

pub use connector::TokiwaConnector;
pub use executor::TokiwaExecutor;
pub use io::TokiwaIo;
pub use timer::TokiwaTimer;
