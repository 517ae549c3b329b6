//! The tokiwa runtime: tokio's `runtime` API over tokiwa's schedulers.
//!
//! * `builder.rs`, `runtime.rs`, `handle.rs`, `metrics.rs`: the public API.
//! * `context.rs`: the thread-local context (current handle, entered state,
//!   the worker's scheduler, current task id, coop budget).
//! * `scheduler/`: the multi-thread work-stealing scheduler and the
//!   current-thread scheduler.
//! * `park/`: how an idle worker sleeps and is woken (the driver slot).
//! * `blocking/`: the blocking pool.
pub(crate) mod blocking;
mod builder;
pub(crate) mod config;
pub(crate) mod context;
mod handle;
mod metrics;
pub(crate) mod park;
#[allow(clippy::module_inception)]
mod runtime;
pub(crate) mod scheduler;

pub use builder::Builder;
pub use context::TryCurrentError;
pub use handle::{EnterGuard, Handle, RuntimeFlavor};
pub use metrics::RuntimeMetrics;
pub use runtime::Runtime;
