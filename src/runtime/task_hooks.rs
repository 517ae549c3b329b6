//! The task hooks of `tokio_unstable`: callbacks the runtime runs when a
//! task is spawned, before and after each of its polls, and when it
//! terminates ([`Builder::on_task_spawn`], [`Builder::on_before_task_poll`],
//! [`Builder::on_after_task_poll`], [`Builder::on_task_terminate`]).
//!
//! Where each one runs, as in tokio 1.54.1:
//! * spawn: on the spawning thread, once the task is in the runtime's
//!   owned list and before its first notification is queued; for tasks of
//!   the runtime (`spawn`, `Handle::spawn`, `LocalRuntime::spawn_local`),
//!   not for blocking tasks nor for a `LocalSet`'s;
//! * before/after poll: on the thread that runs the task, around each run
//!   the scheduler gives it (also the run that only cancels it), with the
//!   task's cooperative budget already set;
//! * terminate: once the task's output is stored and its joiner woken,
//!   before it leaves the owned list; for the runtime's tasks and its
//!   blocking tasks. A panic in it is caught and ignored.
//!
//! **Cost when unset.** The builder folds the two poll hooks into one
//! `Option<PollHooks>`, so a scheduler that runs a task checks one
//! `Option`; a spawn checks one `Option`, a completion one more (through
//! the task's scheduler). Without `tokio_unstable` none of this is compiled.
//!
//! [`Builder::on_task_spawn`]: super::Builder::on_task_spawn
//! [`Builder::on_before_task_poll`]: super::Builder::on_before_task_poll
//! [`Builder::on_after_task_poll`]: super::Builder::on_after_task_poll
//! [`Builder::on_task_terminate`]: super::Builder::on_task_terminate
use crate::runtime::task::{Id, Notified, SpawnMeta};
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::Arc;

/// A task hook, as the builder stores it.
pub(crate) type TaskCallback = Arc<dyn Fn(&TaskMeta<'_>) + Send + Sync>;

/// The hooks of one runtime (in its scheduler's `Config`).
#[derive(Clone, Default)]
pub(crate) struct TaskHooks {
    pub(crate) spawn: Option<TaskCallback>,
    pub(crate) terminate: Option<TaskCallback>,
    /// `Some` when either poll hook is set.
    pub(crate) poll: Option<PollHooks>,
}

/// The poll hooks; at least one of them is set.
#[derive(Clone)]
pub(crate) struct PollHooks {
    pub(crate) before: Option<TaskCallback>,
    pub(crate) after: Option<TaskCallback>,
}

impl TaskHooks {
    /// Sets a poll hook, keeping the other one.
    pub(crate) fn set_poll(&mut self, before: Option<TaskCallback>, after: Option<TaskCallback>) {
        let (old_before, old_after) = match self.poll.take() {
            Some(p) => (p.before, p.after),
            None => (None, None),
        };
        let before = before.or(old_before);
        let after = after.or(old_after);
        if before.is_some() || after.is_some() {
            self.poll = Some(PollHooks { before, after });
        }
    }

    /// The spawn hook, for a task just bound with `meta`.
    #[inline]
    pub(crate) fn spawned(&self, meta: &SpawnMeta<'_>) {
        if let Some(f) = &self.spawn {
            f(&TaskMeta::new(meta.id, meta.spawned_at));
        }
    }
}

impl PollHooks {
    /// Runs `task` between the two poll hooks, which both see `meta`, read
    /// before the run: the task may be freed by it.
    pub(crate) fn run(&self, task: Notified, meta: TaskMeta<'static>) {
        if let Some(f) = &self.before {
            f(&meta);
        }
        task.run();
        if let Some(f) = &self.after {
            f(&meta);
        }
    }
}

/// Task metadata supplied to the task hooks.
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[allow(missing_debug_implementations)]
pub struct TaskMeta<'a> {
    id: Id,
    spawned_at: &'static Location<'static>,
    #[cfg(feature = "schedule-latency")]
    schedule_latency: Option<std::time::Duration>,
    _phantom: PhantomData<&'a ()>,
}

impl TaskMeta<'_> {
    pub(crate) fn new(id: Id, spawned_at: &'static Location<'static>) -> TaskMeta<'static> {
        TaskMeta {
            id,
            spawned_at,
            #[cfg(feature = "schedule-latency")]
            schedule_latency: None,
            _phantom: PhantomData,
        }
    }

    /// The same, for a poll that began `latency` after the task was
    /// scheduled.
    #[cfg(feature = "schedule-latency")]
    pub(crate) fn with_schedule_latency(
        self,
        latency: Option<std::time::Duration>,
    ) -> TaskMeta<'static> {
        TaskMeta {
            schedule_latency: latency,
            ..TaskMeta::new(self.id, self.spawned_at)
        }
    }

    /// The time between the task's most recent scheduling and the start of
    /// its current poll: `Some` in the poll hooks (both see the same value)
    /// when the runtime tracks it
    /// ([`Builder::track_task_schedule_latency`](super::Builder::track_task_schedule_latency)
    /// or [`Builder::enable_metrics_schedule_latency_histogram`](super::Builder::enable_metrics_schedule_latency_histogram)),
    /// `None` otherwise and in the spawn and terminate hooks. A wake of a
    /// task already scheduled does not restart it.
    ///
    /// **Note**: unstable (`--cfg tokio_unstable`, feature
    /// `schedule-latency`), as in tokio.
    #[cfg(feature = "schedule-latency")]
    pub fn schedule_latency(&self) -> Option<std::time::Duration> {
        self.schedule_latency
    }

    /// The task's opaque id.
    pub fn id(&self) -> Id {
        self.id
    }

    /// The source location where the task was spawned.
    pub fn spawned_at(&self) -> &'static Location<'static> {
        self.spawned_at
    }
}
