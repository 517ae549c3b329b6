//! loom models of tokiwa's concurrency cores.
//!
//! Run with `RUSTFLAGS="--cfg tokiwa_loom" cargo test --lib --release loom_`
//! (`.ci/run` does). The bound is two preemptions (three for the legacy
//! driver's handshake, `driver.rs`). Each model is small: two to four
//! threads, queues of capacity 4 (`deque.rs` swaps
//! crossbeam's deques for mutex-protected ones under loom, so the logic
//! built on them is what gets checked).
//!
//! * `task.rs`: the task state machine (wake during poll, abort racing
//!   completion, `JoinHandle` drop racing the output, waker clones).
//! * `queue.rs`: a full local queue overflowing into the injection side
//!   while another worker steals.
//! * `park.rs`: the park/notify protocol: a task pushed while the only
//!   worker goes to sleep always runs; the last worker to find work wakes
//!   every parked worker so it sees the stop; a searcher that finds work
//!   while parking hands the search on (two tasks, two workers that each
//!   block in the first task they run).
//! * `driver.rs`: the legacy driver's handshake: an event that arrives
//!   while a worker goes to sleep (once, or again after it woke) is reaped
//!   by the worker or by its poll thread through the one-shot watch, never
//!   left by both.
//! * `ring_wake.rs`: the io_uring driver's eventfd handshake against a
//!   condvar fake of the ring: a task pushed while the only worker sleeps
//!   in its ring always runs, also when the kernel ends the multishot wake
//!   poll meanwhile; a stop wakes every worker; concurrent notifications
//!   of a sleeping worker write the eventfd at most once per sleep.
mod driver;
mod park;
mod queue;
mod ring_wake;
mod task;

use crate::loom::sync::Mutex;
use crate::runtime::task::{JoinHandle, Notified, OwnedTasks, Schedule, Task};
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

/// Runs a model under loom with the environment's preemption bound.
pub(super) fn model(f: impl Fn() + Sync + Send + 'static) {
    model_with_preemptions(2, f);
}

/// [`model`] with a default bound of `bound` preemptions, for a race that
/// needs more than two to show (`LOOM_MAX_PREEMPTIONS` still overrides).
pub(super) fn model_with_preemptions(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(bound);
    }
    builder.check(f);
}

/// A scheduler that queues woken tasks for the model to run by hand.
pub(super) struct TestScheduler {
    queue: Mutex<VecDeque<Notified>>,
    owned: OwnedTasks,
}

impl TestScheduler {
    pub(super) fn new() -> Arc<TestScheduler> {
        Arc::new(TestScheduler {
            queue: Mutex::new(VecDeque::new()),
            owned: OwnedTasks::new(1),
        })
    }

    pub(super) fn spawn<F>(self: &Arc<Self>, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (raw, notified) = self.owned.bind(
            future,
            self.clone(),
            &crate::runtime::task::SpawnMeta::new_unnamed(),
        );
        self.schedule(notified.expect("scheduler closed"));
        // SAFETY: `bind` returned the handle's reference, output `F::Output`.
        unsafe { JoinHandle::new(raw) }
    }

    /// A task that is bound but not scheduled: its notification.
    pub(super) fn notified(self: &Arc<Self>) -> Notified {
        let (raw, notified) = self.owned.bind(
            async {},
            self.clone(),
            &crate::runtime::task::SpawnMeta::new_unnamed(),
        );
        // SAFETY: as above; the handle is dropped at once.
        drop(unsafe { JoinHandle::<()>::new(raw) });
        notified.expect("scheduler closed")
    }

    /// Runs queued tasks until the queue is empty.
    pub(super) fn run_all(&self) {
        loop {
            let task = self.queue.lock().unwrap().pop_front();
            match task {
                Some(task) => task.run(),
                None => return,
            }
        }
    }

    pub(super) fn shutdown(&self) {
        self.owned.close_and_shutdown_all(0);
        self.queue.lock().unwrap().clear();
    }
}

impl Schedule for Arc<TestScheduler> {
    fn release(&self, task: &Task) -> Option<Task> {
        self.owned.remove(task)
    }

    fn schedule(&self, task: Notified) {
        self.queue.lock().unwrap().push_back(task);
    }
}

/// Polls a join handle once with a no-op waker.
pub(super) fn poll_once<T>(
    handle: &mut JoinHandle<T>,
) -> std::task::Poll<Result<T, crate::runtime::task::JoinError>> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    std::pin::Pin::new(handle).poll(&mut cx)
}
