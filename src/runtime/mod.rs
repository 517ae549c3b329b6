//! The tokiwa runtime: tokio's `runtime` API over tokiwa's schedulers.
//!
//! * `builder.rs`, `runtime.rs`, `handle.rs`, `metrics.rs`: the public API.
//! * `context.rs`: the thread-local context (current handle, entered state,
//!   the worker's scheduler, current task id, coop budget).
//! * `task/`: the task machinery the schedulers run (the task allocation,
//!   its state word, harness, waker, join handles, owned-task list); the
//!   public `task` module builds on it and re-exports its public types.
//! * `coop.rs`: the cooperative budget each task poll runs under; the
//!   public `task::coop` re-exports it and adds its combinators.
//! * `scheduler/`: the multi-thread work-stealing scheduler and the
//!   current-thread scheduler.
//! * `park/`: how an idle worker sleeps and is woken (the driver slot).
//! * `driver/`: the I/O driver (epoll per worker, poll threads) and the
//!   bridge from a worker's park slot to its reactor and timers.
//! * `blocking/`: the blocking pool.
//! * `shutdown_error.rs`: the error of a resource whose runtime is gone,
//!   and `is_rt_shutdown_err`.
//! * `id.rs`: the runtime's id.
//! * `task_hooks.rs` (`tokio_unstable` only): the task spawn, poll and
//!   terminate hooks and their `TaskMeta`.
//! * `rng_seed.rs` (`tokio_unstable` only): `RngSeed`, the seed that makes
//!   a runtime's `select!` branch order repeatable.
pub(crate) mod blocking;
mod builder;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod coop;
pub(crate) mod driver;
mod handle;
mod id;
mod local_runtime;
pub(crate) mod metrics;
#[cfg(any(tokiwa_io_driver, all(tokio_unstable, feature = "schedule-latency")))]
pub(crate) mod monotonic;
pub(crate) mod park;
#[cfg(tokio_unstable)]
mod rng_seed;
#[allow(clippy::module_inception)]
mod runtime;
pub(crate) mod scheduler;
mod shutdown_error;
pub(crate) mod task;
#[cfg(tokio_unstable)]
mod task_hooks;

pub use builder::Builder;
#[cfg(tokio_unstable)]
pub use builder::UnhandledPanic;
pub use context::TryCurrentError;
pub use driver::Driver;
pub use handle::{EnterGuard, Handle, RuntimeFlavor};
pub use id::Id;
pub use local_runtime::{LocalOptions, LocalRuntime};
pub use metrics::RuntimeMetrics;
#[cfg(tokio_unstable)]
pub use metrics::{
    HistogramConfiguration, HistogramScale, InvalidHistogramConfiguration, LogHistogram,
    LogHistogramBuilder,
};
#[cfg(tokio_unstable)]
pub use rng_seed::RngSeed;
pub use runtime::Runtime;
pub use shutdown_error::is_rt_shutdown_err;
#[cfg(tokiwa_io_driver)]
pub(crate) use shutdown_error::shutdown_error;
#[cfg(tokio_unstable)]
pub use task_hooks::TaskMeta;
#[cfg(tokio_unstable)]
pub(crate) use task_hooks::{TaskCallback, TaskHooks};

/// The index of the worker thread this is called on: `Some(i)` on worker
/// `i` of a multi-thread runtime, `Some(0)` on the thread driving a
/// current-thread runtime, `None` elsewhere (blocking threads, the
/// `block_on` thread of a multi-thread runtime, other threads).
pub fn worker_index() -> Option<usize> {
    context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) => cx.worker_index(),
        Some(scheduler::Context::CurrentThread(_)) => Some(0),
        None => None,
    })
}

/// Test hook (io_uring mode): ends every multishot readiness poll of the
/// I/O resources on the ring of the worker this runs on, as the kernel's
/// termination of a multishot would (a final completion without
/// `F_MORE`); the driver must arm each again, losing no readiness. Returns
/// how many polls were ended (0 in legacy mode or off a worker).
#[doc(hidden)]
pub fn __end_io_polls_of_current_worker() -> usize {
    #[cfg(feature = "uring")]
    if let Some(index) = worker_index() {
        let ended = context::with_current(|handle| match handle.driver().ring(index) {
            Some(ring) => ring.cancel_io_polls(),
            None => 0,
        });
        return ended.unwrap_or(0);
    }
    0
}

/// Test hook (io_uring mode): ends the multishot wake poll of the worker
/// this runs on, as the kernel's termination of a multishot would (its
/// final completion comes without `F_MORE`); the driver must arm it again
/// before the worker sleeps. Returns whether an armed wake poll was ended
/// (`false` in legacy mode, off a worker, or before the worker first
/// slept).
#[doc(hidden)]
pub fn __end_wake_poll_of_current_worker() -> bool {
    #[cfg(feature = "uring")]
    if let Some(index) = worker_index() {
        let ended = context::with_current(|handle| match handle.driver().ring(index) {
            Some(ring) => ring.cancel_wake_poll(),
            None => false,
        });
        return ended.unwrap_or(false);
    }
    false
}
