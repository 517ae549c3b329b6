//! The multi-thread, work-stealing scheduler.
//!
//! `worker.rs` is the worker loop and its queues, `idle.rs` the protocol
//! that parks and wakes workers, `tuning.rs` the self-tuned interval at
//! which a worker serves the injection side first, `block_in_place.rs` the
//! hand-off of a worker's core to another thread. This file is the runtime-facing side:
//! creating the workers, spawning, `block_on`, shutdown.
mod block_in_place;
pub(crate) mod idle;
pub(crate) mod tuning;
pub(crate) mod worker;

pub(crate) use block_in_place::block_in_place;

use crate::loom::sync::Mutex;
use crate::runtime::blocking::Spawner;
use crate::runtime::config::Config;
use crate::runtime::driver;
#[cfg(tokio_unstable)]
use crate::runtime::metrics::SchedulerMetrics;
use crate::runtime::scheduler;
use crate::runtime::task::{JoinHandle, Notified, Schedule, SpawnMeta, Task};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

pub(crate) use worker::Context;

/// A core on its way to another thread (see `spawn_worker_thread_for`).
pub(crate) type CoreSlot = Arc<Mutex<HandOff>>;

/// What travels in a [`CoreSlot`].
#[derive(Default)]
pub(crate) struct HandOff {
    /// The core, until a thread takes it; put back by a thread that could
    /// not drive it.
    pub(crate) core: Option<Box<worker::Core>>,
    /// Why the thread it was handed to could not drive it (the kernel
    /// refused that thread an io_uring ring).
    pub(crate) refused: Option<std::io::Error>,
}

/// The scheduler's shared handle; tasks hold an `Arc` of it.
pub(crate) struct Handle {
    pub(crate) shared: worker::Shared,
    pub(crate) config: Config,
    pub(crate) blocking_spawner: Spawner,
    /// Worker `i` owns reactor `i` and timer wheel `i`.
    pub(crate) driver: driver::Handle,
}

/// Creates the drivers, starts the workers; returns the handle.
pub(crate) fn launch(
    num_workers: usize,
    shards: usize,
    config: Config,
    blocking_spawner: Spawner,
    driver_config: &driver::Config,
    thread_name: &str,
) -> std::io::Result<Arc<Handle>> {
    let (driver, parkers) = driver::Handle::new(driver_config, num_workers, thread_name)?;
    let (shared, cores) = worker::Shared::new(num_workers, shards, parkers, &config);
    let handle = Arc::new(Handle {
        shared,
        config,
        blocking_spawner,
        driver,
    });
    for core in cores {
        handle.spawn_worker_thread(core);
    }
    Ok(handle)
}

impl Handle {
    /// Runs a worker with `core` on a (mandatory) blocking-pool thread.
    /// Used at launch, when the pool cannot be shut down yet.
    pub(crate) fn spawn_worker_thread(self: &Arc<Self>, core: Box<worker::Core>) {
        let slot = Arc::new(Mutex::new(HandOff {
            core: Some(core),
            refused: None,
        }));
        self.spawn_worker_thread_for(slot);
    }

    /// Starts a pool thread that runs a worker with the core it finds in
    /// `slot`, if it is still there when the thread starts. The caller may
    /// take the core back instead (`block_in_place` does when the thread
    /// never started: pool at its cap, or shutting down). A thread that
    /// cannot drive the core (the kernel refused it a ring) puts it back
    /// with the reason, for the caller to take back and report.
    pub(crate) fn spawn_worker_thread_for(self: &Arc<Self>, slot: CoreSlot) {
        let rt = scheduler::Handle::MultiThread(self.clone());
        let handle = self.clone();
        let (task, _join) = crate::runtime::blocking::new_task(move || {
            let core = slot.lock().unwrap().core.take();
            if let Some(core) = core {
                let _slack = crate::runtime::park::condvar::PreciseTimerSlack::while_driving();
                if let Err((core, e)) = worker::run(handle, core) {
                    let mut hand_off = slot.lock().unwrap();
                    hand_off.core = Some(core);
                    hand_off.refused = Some(e);
                }
            }
        });
        // On a pool that is shutting down the job is cancelled; the core
        // then stays in the slot for its owner to take back.
        let _ = self
            .blocking_spawner
            .spawn(task, crate::runtime::blocking::JobKind::Worker, &rt);
    }

    pub(crate) fn spawn<F>(
        self: &Arc<Self>,
        future: F,
        meta: SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (raw, notified) = self.shared.owned.bind(future, self.clone(), &meta);
        #[cfg(tokio_unstable)]
        {
            SchedulerMetrics::inc(&self.shared.scheduler_metrics.spawned_tasks);
            self.config.hooks.spawned(&meta);
        }
        if let Some(notified) = notified {
            self.schedule_task(notified, false);
        }
        // SAFETY: `bind` returns the join handle's reference for a task of
        // output `F::Output`.
        unsafe { JoinHandle::new(raw) }
    }

    /// Stops the scheduler: closes the injection side and the task list and
    /// wakes every worker so it sees that.
    pub(crate) fn shutdown(&self) {
        if self.shared.inject.close() {
            self.shared.owned.close();
            self.shared.notify_all();
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.shared.remotes.len()
    }
}

impl Schedule for Arc<Handle> {
    fn release(&self, task: &Task) -> Option<Task> {
        self.shared.owned.remove(task)
    }

    fn schedule(&self, task: Notified) {
        self.schedule_task(task, false);
    }

    fn yield_now(&self, task: Notified) {
        self.schedule_task(task, true);
    }

    #[cfg(tokio_unstable)]
    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.config.hooks.terminate.as_ref()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("multi_thread::Handle")
            .field("num_workers", &self.num_workers())
            .finish()
    }
}
