//! Asynchronous green-threads: tokio's `task` API.
//!
//! # How a task is built
//!
//! A spawned future lives in one heap allocation (`core.rs`) with a header
//! holding the *state word* (`state.rs`: lifecycle bits and reference count
//! in one atomic), the scheduler hook, the future or its output, and the
//! join waker. `raw.rs` gives type-erased pointers to it (`RawTask`, and the
//! reference-owning `Task` and `Notified`); `harness.rs` performs the
//! transitions (poll, complete, cancel, join); `waker.rs` is the task's
//! `Waker`; `join.rs` the `JoinHandle` and `AbortHandle`; `list.rs` the
//! owned-task list that shutdown drains.
//!
//! Schedulers plug in through the crate-private `Schedule` trait: where a woken task goes, and how
//! a completed task leaves the scheduler's list.
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod builder;
pub mod coop;
mod core;
mod error;
mod harness;
mod id;
mod join;
// Public with `tokio_unstable`, as in tokio (for `join_set::Builder`).
#[cfg(not(tokio_unstable))]
mod join_set;
#[cfg(tokio_unstable)]
pub mod join_set;
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod join_set_builder;
mod list;
mod local;
mod raw;
mod spawn_meta;
mod state;
mod task_local;
mod waker;

#[cfg(all(tokio_unstable, feature = "tracing"))]
pub use builder::Builder;
pub use coop::{consume_budget, unconstrained, Unconstrained};
pub use error::JoinError;
pub use id::{id, try_id, Id};
pub use join::{AbortHandle, JoinHandle};
pub use join_set::JoinSet;
pub use local::{spawn_local, LocalEnterGuard, LocalSet};
pub use task_local::LocalKey;

/// Task-related futures.
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

pub(crate) use list::{LocalOwnedTasks, OwnedTasks};
pub(crate) use raw::{Notified, RawTask, Task};
pub(crate) use spawn_meta::SpawnMeta;

use crate::runtime::{context, scheduler};
use std::future::Future;

/// How a scheduler receives the tasks it owns.
pub(crate) trait Schedule: Send + Sync + Sized + 'static {
    /// Removes a completed task from the scheduler's owned list, returning
    /// the list's reference if it held one.
    fn release(&self, task: &Task) -> Option<Task>;

    /// Queues a woken task.
    fn schedule(&self, task: Notified);

    /// Queues a task that woke itself during its poll (`yield_now`): it
    /// goes behind the others.
    fn yield_now(&self, task: Notified) {
        self.schedule(task);
    }

    /// The runtime's `on_task_terminate` hook, if this scheduler's tasks
    /// report to one (a `LocalSet`'s do not, as in tokio).
    #[cfg(tokio_unstable)]
    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        None
    }

    /// A task's poll (or its future's destructor) panicked: the scheduler
    /// applies its `UnhandledPanic` setting. Called on the thread that ran
    /// the task, before the task completes.
    #[cfg(tokio_unstable)]
    fn unhandled_panic(&self) {}
}

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
