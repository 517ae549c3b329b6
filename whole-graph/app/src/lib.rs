//! A small tokio application whose whole dependency graph runs on tokiwa.
//!
//! Nothing here names tokiwa in its dependencies: `Cargo.toml` asks for
//! crates.io `tokio`, axum, reqwest, hyper-util, tonic, sqlx, tower,
//! tokio-util and tokio-stream, and the workspace's `[patch.crates-io]`
//! builds every one of them against tokiwa under the name `tokio`. Each
//! module is one piece of the application, with tests beside it that run
//! the piece through the library that uses tokio internally (spawning,
//! sockets, timers, channels), on both of tokiwa's I/O drivers and both
//! runtime flavours ([`harness`]).
//!
//! - [`http`]: an axum service (JSON and a streamed body), queried by
//!   reqwest and by hyper-util's pooled client.
//! - [`grpc`]: tonic's generated health service, over HTTP/2.
//! - [`store`]: notes in SQLite through sqlx.
//! - [`lines`]: a line protocol over TCP with tokio-util's `Framed`.
//! - [`lookup`]: a service behind tower's `Buffer` and `Timeout`.
//! - [`reminders`]: tokio-util's `DelayQueue` and `CancellationToken`.
//! - [`pipeline`]: tokio-stream's wrappers and combinators.
//! - [`fairness`]: a task that always finds its channel ready must not
//!   starve a timer (tokiwa's cooperative budget in its own channels).
//! - [`proof`]: the `tokio` every crate sees is tokiwa.

pub mod fairness;
pub mod grpc;
pub mod harness;
pub mod http;
pub mod lines;
pub mod lookup;
pub mod pipeline;
pub mod proof;
pub mod reminders;
pub mod store;
