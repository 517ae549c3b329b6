//! The two schedulers and the handle that names one of them.
//!
//! `Handle` is what the runtime context stores and what `spawn` uses; it is
//! an enum rather than a trait object so spawning monomorphises per
//! scheduler. `Context` is the per-thread state of a thread that drives a
//! scheduler (a worker, or the `block_on` thread of a current-thread
//! runtime), reached through `runtime::context::with_scheduler`.
pub(crate) mod current_thread;
pub(crate) mod deque;
pub(crate) mod inject;
pub(crate) mod multi_thread;

use crate::runtime::blocking::Spawner;
use crate::runtime::context;
use crate::runtime::task::{JoinHandle, SpawnMeta};
use std::future::Future;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub(crate) enum Handle {
    CurrentThread(Arc<current_thread::Handle>),
    MultiThread(Arc<multi_thread::Handle>),
}

pub(crate) enum Context {
    CurrentThread(current_thread::Context),
    MultiThread(multi_thread::Context),
}

/// Runs a task the scheduler took from a queue, on the worker whose
/// counters are `metrics` (its core's holder), between the runtime's poll
/// hooks when it has any (`tokio_unstable`; one `Option` checked), after
/// measuring its schedule latency when the runtime tracks it (feature
/// `schedule-latency`; `metrics/schedule_latency.rs`).
#[inline]
pub(crate) fn run_task(
    config: &crate::runtime::config::Config,
    metrics: &crate::runtime::metrics::WorkerMetrics,
    task: crate::runtime::task::Notified,
) {
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    let latency = metrics.schedule_latency(&config.schedule_latency, &task);
    #[cfg(tokio_unstable)]
    if let Some(hooks) = &config.hooks.poll {
        let meta = task.task_meta();
        #[cfg(feature = "schedule-latency")]
        let meta = meta.with_schedule_latency(latency);
        return hooks.run(task, meta);
    }
    let _ = (config, metrics);
    task.run()
}

impl Handle {
    /// The current handle; panics with tokio's message outside a runtime.
    #[track_caller]
    pub(crate) fn current() -> Handle {
        match context::with_current(Handle::clone) {
            Ok(handle) => handle,
            Err(e) => panic!("{}", e),
        }
    }

    pub(crate) fn spawn<F>(&self, future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match self {
            Handle::CurrentThread(h) => h.spawn(future, meta),
            Handle::MultiThread(h) => h.spawn(future, meta),
        }
    }

    /// The runtime-wide counters of `tokio_unstable`.
    #[cfg(tokio_unstable)]
    pub(crate) fn scheduler_metrics(&self) -> &crate::runtime::metrics::SchedulerMetrics {
        match self {
            Handle::CurrentThread(h) => &h.scheduler_metrics,
            Handle::MultiThread(h) => &h.shared.scheduler_metrics,
        }
    }

    /// The runtime's drivers.
    pub(crate) fn driver(&self) -> &crate::runtime::driver::Handle {
        match self {
            Handle::CurrentThread(h) => &h.driver,
            Handle::MultiThread(h) => &h.driver,
        }
    }

    /// The current handle, for a resource about to register with the I/O
    /// driver; panics with tokio's reactor message outside a runtime.
    #[cfg(tokiwa_io_driver)]
    #[track_caller]
    pub(crate) fn current_for_io() -> Handle {
        match context::with_current(Handle::clone) {
            Ok(handle) => handle,
            Err(_) => panic!(
                "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
            ),
        }
    }

    pub(crate) fn config(&self) -> &crate::runtime::config::Config {
        match self {
            Handle::CurrentThread(h) => &h.config,
            Handle::MultiThread(h) => &h.config,
        }
    }

    pub(crate) fn blocking_spawner(&self) -> &Spawner {
        match self {
            Handle::CurrentThread(h) => &h.blocking_spawner,
            Handle::MultiThread(h) => &h.blocking_spawner,
        }
    }

    /// Spawns a blocking closure on this runtime's pool.
    #[track_caller]
    pub(crate) fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        // On a pool already shut down the task is cancelled: the handle
        // then reports a cancelled `JoinError`, as in tokio.
        self.spawn_blocking_with(func, SpawnMeta::new_unnamed()).0
    }

    /// [`Handle::spawn_blocking`] with the spawn's metadata; also says
    /// whether the pool took the task (`task::Builder` reports a pool
    /// already shut down as an error).
    #[track_caller]
    pub(crate) fn spawn_blocking_with<F, R>(
        &self,
        func: F,
        meta: SpawnMeta<'_>,
    ) -> (JoinHandle<R>, bool)
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (task, join) = crate::runtime::blocking::new_spawned_task(func, self, meta);
        let spawned = self
            .blocking_spawner()
            .spawn(task, crate::runtime::blocking::JobKind::Optional, self)
            .is_ok();
        (join, spawned)
    }

    /// Spawns a blocking closure that runs even if the runtime starts
    /// shutting down before a pool thread picks it up (a file write that
    /// was already reported done); `None` if the pool is already shut down.
    #[cfg(any(feature = "fs", feature = "io-std"))]
    pub(crate) fn spawn_mandatory_blocking<F, R>(&self, func: F) -> Option<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (task, join) =
            crate::runtime::blocking::new_spawned_task(func, self, SpawnMeta::new_unnamed());
        match self.blocking_spawner().spawn(
            task,
            crate::runtime::blocking::JobKind::Mandatory,
            self,
        ) {
            Ok(()) => Some(join),
            Err(_) => None,
        }
    }
}
