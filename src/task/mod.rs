//! Asynchronous green-threads: tokio's `task` API.
//!
//! This module is the public face of tasks: `spawn`, `spawn_blocking`,
//! `block_in_place`, `yield_now`, `JoinSet`, `LocalSet`, `task_local!`,
//! the cooperative budget (`coop`) and, with `tokio_unstable` and
//! `tracing`, `Builder`. The machinery the schedulers run (the task
//! allocation, its state word, the harness, wakers, join handles and the
//! owned-task list) lives in `crate::runtime::task`; its public types
//! (`JoinHandle`, `AbortHandle`, `JoinError`, `Id`) are re-exported here,
//! so their paths are tokio's. The dependency goes one way: this module
//! uses the runtime, the runtime never uses this module.
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod builder;
pub mod coop;
// Public with `tokio_unstable`, as in tokio (for `join_set::Builder`).
#[cfg(not(tokio_unstable))]
mod join_set;
#[cfg(tokio_unstable)]
pub mod join_set;
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod join_set_builder;
mod local;
mod task_local;

pub use crate::runtime::task::{id, try_id, AbortHandle, Id, JoinError, JoinHandle};
#[cfg(all(tokio_unstable, feature = "tracing"))]
pub use builder::Builder;
pub use coop::{consume_budget, unconstrained, Unconstrained};
pub use join_set::JoinSet;
pub use local::{spawn_local, LocalEnterGuard, LocalSet};
pub use task_local::LocalKey;

/// Task-related futures.
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

use crate::runtime::task::SpawnMeta;
use crate::runtime::{context, scheduler};
use std::future::Future;

/// Spawns a new asynchronous task, returning a [`JoinHandle`] for it.
///
/// The task starts running in the background right away (on a worker of a
/// multi-thread runtime; on a current-thread runtime when the `block_on`
/// thread next gets to it), whether or not the handle is awaited.
///
/// # Panics
///
/// Panics when called outside a runtime, with "there is no reactor running,
/// must be called from the context of a Tokio 1.x runtime".
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let meta = SpawnMeta::new_unnamed();
    match context::with_current(|handle| handle.spawn(future, meta)) {
        Ok(join) => join,
        Err(e) => panic!("{}", e),
    }
}

/// Runs a blocking closure on the runtime's blocking pool, returning a
/// [`JoinHandle`] for its result.
///
/// # Panics
///
/// Panics when called outside a runtime.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    scheduler::Handle::current().spawn_blocking(f)
}

/// Runs a blocking closure on the current worker thread, after handing the
/// worker's queue to a new thread so other tasks keep running.
///
/// Outside a runtime the closure simply runs.
///
/// # Panics
///
/// Panics on a current-thread runtime ("can call blocking only when running
/// on the multi-threaded runtime").
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    crate::runtime::scheduler::multi_thread::block_in_place(f)
}

/// Yields execution back to the runtime: the task is rescheduled behind the
/// other ready tasks.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
}
