//! The scheduler hook of blocking tasks.
//!
//! A blocking task is queued once, by the pool, and never re-scheduled: its
//! future completes on its first poll and its waker is never handed out. An
//! `abort` only sets `CANCELLED` (the pool's queued notification then
//! cancels it instead of running it). It is not in any owned-task list:
//! runtime shutdown cancels queued blocking tasks through the pool.
use crate::task::{Notified, Schedule, Task};

#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockingSchedule;

impl Schedule for BlockingSchedule {
    fn release(&self, _task: &Task) -> Option<Task> {
        None
    }

    fn schedule(&self, task: Notified) {
        // Unreachable by the protocol above; cancelling is the safe answer.
        task.shutdown();
    }
}
