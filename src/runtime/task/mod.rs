//! The task machinery the schedulers run: one allocation per spawned
//! future, the state word that governs it, and the handles onto it.
//!
//! This is the runtime's side of a task. The public task API (`spawn`,
//! `JoinSet`, `LocalSet`, `task_local!`, `yield_now`, `coop`) lives in the
//! top-level `task` module, which builds on this one and re-exports the
//! public types defined here (`JoinHandle`, `AbortHandle`, `JoinError`,
//! `Id`, `id`, `try_id`), so users see them as `tokio::task::JoinHandle`
//! and so on. Nothing under `runtime` imports that module: the dependency
//! goes one way, `task` → `runtime`, as in tokio's `runtime/task/`.
//!
//! # How a task is built
//!
//! A spawned future lives in one heap allocation (`core.rs`): a header
//! holding the *state word*, the vtable, the id and the owned-list key;
//! then the scheduler hook and the stage (future, then output, then
//! consumed); then a trailer holding the join waker. The header comes
//! first, so type-erased code holds `NonNull<Header>` and reaches the typed
//! parts through the vtable.
//!
//! * `state.rs`: the state word, lifecycle bits and reference count in one
//!   atomic, documented bit by bit before the code, with `#[must_use]`
//!   transitions that say what to do next.
//! * `raw.rs`: type-erased pointers: `RawTask` (no ownership), `Task` (owns
//!   one reference) and `Notified` (a `Task` that also stands for the
//!   `NOTIFIED` bit: the only thing a run queue holds, the only way to poll
//!   a task).
//! * `harness.rs`: poll, complete, cancel, join. Each function performs a
//!   transition of the state word and then only does what the returned
//!   enum says, so the protocol lives in `state.rs`.
//! * `waker.rs`: the task's `Waker`, one reference per clone.
//! * `join.rs`: `JoinHandle` and `AbortHandle`; `error.rs`: `JoinError`;
//!   `id.rs`: task ids; `spawn_meta.rs`: what a spawn records besides the
//!   future (the id, and with `tokio_unstable` the location and name);
//!   `trace.rs` (`tokio_unstable` + `tracing` only): the `runtime.spawn`
//!   span and waker events tokio-console reads.
//! * `list.rs`: the owned-task list, every live task of a scheduler, so
//!   shutdown can cancel them all.
//!
//! # Who owns what
//!
//! The state word counts references: a new task starts with three, the
//! owned-task list's, the first `Notified` (the spawn schedules it) and the
//! `JoinHandle`'s; waker clones and `AbortHandle`s take one each. The task
//! is freed when the count reaches zero. The stage belongs to whoever set
//! `RUNNING` until `COMPLETE`, then to the `JoinHandle` (if it is still
//! interested) or to the completing thread; the join waker belongs to the
//! `JoinHandle` while `JOIN_WAKER` is clear and to the runtime side while
//! it is set. `state.rs` gives the full rules and the orderings.
//!
//! Schedulers plug in through the `Schedule` trait: where a woken task
//! goes, and how a completed task leaves the scheduler's list.
mod core;
mod error;
mod harness;
mod id;
mod join;
mod list;
mod raw;
mod spawn_meta;
mod state;
#[cfg(all(tokio_unstable, feature = "tracing"))]
pub(crate) mod trace;
mod waker;

pub use error::JoinError;
pub use id::{id, try_id, Id};
pub use join::{AbortHandle, JoinHandle};

pub(crate) use list::{LocalOwnedTasks, OwnedTasks};
pub(crate) use raw::{Notified, RawTask, Task};
pub(crate) use spawn_meta::SpawnMeta;

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
