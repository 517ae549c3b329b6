//! The blocking pool: threads for work that blocks.
//!
//! `spawn_blocking` closures, `block_in_place`'s replacement workers and the
//! workers themselves run on these threads. A blocking closure is wrapped in
//! a task (`task.rs`) so it gets the same `JoinHandle`, `JoinError` and
//! cancellation as any other task; it is simply run by a pool thread instead
//! of a worker, and is never polled twice.
pub(crate) mod pool;
mod schedule;
mod task;

pub(crate) use pool::{BlockingPool, JobKind, PoolConfig, Spawner};

use crate::runtime::task::{JoinHandle, Notified, RawTask, SpawnMeta, Task};
use schedule::BlockingSchedule;
use task::BlockingTask;

/// Wraps a closure in a task that is in no owned-task list; returns the
/// notification to queue on the pool and the handle.
pub(crate) fn new_task<F, R>(func: F) -> (Notified, JoinHandle<R>)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    new_task_with(func, BlockingSchedule::default(), SpawnMeta::new_unnamed())
}

/// A `spawn_blocking` task of runtime `rt` (with `test-util`, it holds off
/// the auto-advance of `rt`'s paused clock while it lives).
pub(crate) fn new_spawned_task<F, R>(
    func: F,
    rt: &crate::runtime::scheduler::Handle,
    meta: SpawnMeta<'_>,
) -> (Notified, JoinHandle<R>)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let _ = rt;
    new_task_with(
        func,
        BlockingSchedule {
            #[cfg(feature = "test-util")]
            inhibit: crate::time::AutoAdvanceInhibit::new(rt),
            #[cfg(tokio_unstable)]
            terminate: rt.config().hooks.terminate.clone(),
        },
        meta,
    )
}

fn new_task_with<F, R>(
    func: F,
    schedule: BlockingSchedule,
    meta: SpawnMeta<'_>,
) -> (Notified, JoinHandle<R>)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    // tokio-console reports it as a blocking task running an `F`.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    let meta = meta.with_kind(crate::runtime::task::trace::Kind::blocking::<F>());
    let raw = RawTask::new(BlockingTask::new(func), schedule, &meta);
    // SAFETY: a new task has three references: the owned list's (there is
    // no list, so it is dropped here), the notification's and the handle's;
    // its output type is `R`.
    unsafe {
        drop(Task::from_raw(raw));
        (Notified::from_raw(raw), JoinHandle::new(raw))
    }
}
