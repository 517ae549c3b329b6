//! The scheduler hook of blocking tasks.
//!
//! A blocking task is queued once, by the pool, and never re-scheduled: its
//! future completes on its first poll and its waker is never handed out. An
//! `abort` only sets `CANCELLED` (the pool's queued notification then
//! cancels it instead of running it). It is not in any owned-task list:
//! runtime shutdown cancels queued blocking tasks through the pool.
//!
//! With `test-util`, a `spawn_blocking` task on a current-thread runtime
//! holds off the paused clock's auto-advance until it completes (tokio's
//! rule; `time/clock.rs`).
use crate::runtime::task::{Notified, Schedule, Task};

#[derive(Default)]
pub(crate) struct BlockingSchedule {
    #[cfg(feature = "test-util")]
    pub(crate) inhibit: Option<crate::time::AutoAdvanceInhibit>,
    /// The runtime's `on_task_terminate` hook (`spawn_blocking` tasks
    /// report to it, as in tokio; the workers' own tasks do not).
    #[cfg(tokio_unstable)]
    pub(crate) terminate: Option<crate::runtime::TaskCallback>,
}

impl Schedule for BlockingSchedule {
    fn release(&self, _task: &Task) -> Option<Task> {
        #[cfg(feature = "test-util")]
        if let Some(inhibit) = &self.inhibit {
            inhibit.release();
        }
        None
    }

    fn schedule(&self, task: Notified) {
        // Unreachable by the protocol above; cancelling is the safe answer.
        task.shutdown();
    }

    #[cfg(tokio_unstable)]
    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.terminate.as_ref()
    }
}
