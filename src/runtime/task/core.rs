//! The task's single allocation: header, scheduler hook, stage and trailer.
//!
//! ```text
//! Cell<T, S> (#[repr(C)], one Box per task)
//! ├── Header   state word, vtable, id, owned-list key   (read through RawTask)
//! │            (+ spawn location, name: `tokio_unstable` only)
//! ├── Core     scheduler S, stage: future → output → consumed
//! └── Trailer  the JoinHandle's waker
//! ```
//!
//! The header comes first, so a pointer to the cell is a pointer to the
//! header: type-erased code (`RawTask`, wakers, queues) holds
//! `NonNull<Header>` and reaches the typed parts through the vtable, whose
//! functions are monomorphised for `T` and `S`.
use super::error::JoinError;
use super::raw::Vtable;
use super::spawn_meta::SpawnMeta;
use super::state::State;
use super::{Id, Schedule};
use crate::loom::cell::UnsafeCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

#[repr(C)]
pub(crate) struct Cell<T: Future, S> {
    pub(crate) header: Header,
    pub(crate) core: Core<T, S>,
    pub(crate) trailer: Trailer,
}

pub(crate) struct Header {
    pub(crate) state: State,
    pub(crate) vtable: &'static Vtable,
    pub(crate) id: Id,
    /// The task's slot in its owned-task list. Written by the list under its
    /// shard lock before the task is shared, read under the same lock.
    pub(crate) owner_key: UnsafeCell<usize>,
    /// Where the task was spawned (the task hooks' `TaskMeta`). Written
    /// once at creation, read-only after.
    #[cfg(tokio_unstable)]
    pub(crate) spawned_at: &'static std::panic::Location<'static>,
    /// The name `task::Builder::name` gave it, for the tracing layer. Out
    /// of line behind a thin pointer, so an unnamed task pays one word
    /// (and only in a `tokio_unstable` + `tracing` build). Written once at
    /// creation, read-only after.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    #[allow(clippy::box_collection)]
    pub(crate) name: Option<Box<String>>,
    /// The id of the task's `runtime.spawn` span, which the waker events
    /// name (`trace.rs`); `None` when no subscriber wanted the span.
    /// Written once at creation, read-only after.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    pub(crate) tracing_id: Option<tracing::span::Id>,
    /// When the task was last scheduled, on the runtime's schedule-latency
    /// clock (`metrics/schedule_latency.rs`; 0: never stamped). Written by
    /// the holder of the task's notification before it queues the task,
    /// read by the worker that took it from the queue: the queue's own
    /// synchronisation orders the two, so `Relaxed` suffices.
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    pub(crate) scheduled_at: crate::loom::sync::atomic::AtomicU64,
}

impl Header {
    /// The hooks' view of the task (id and spawn location).
    #[cfg(tokio_unstable)]
    pub(crate) fn task_meta(&self) -> crate::runtime::TaskMeta<'static> {
        crate::runtime::TaskMeta::new(self.id, self.spawned_at)
    }

    /// The task's name, if it was spawned with one (`task::Builder::name`).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    #[allow(dead_code)] // read by the tracing layer and the tests
    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref().map(String::as_str)
    }
}

pub(crate) struct Core<T: Future, S> {
    pub(crate) scheduler: S,
    /// Owned by whoever holds `RUNNING`, or after `COMPLETE` by the reader
    /// that the state word designates (see `state.rs`).
    pub(crate) stage: UnsafeCell<Stage<T>>,
}

pub(crate) enum Stage<T: Future> {
    Running(T),
    Finished(Result<T::Output, JoinError>),
    Consumed,
}

pub(crate) struct Trailer {
    /// Owned as described for `JOIN_WAKER` in `state.rs`.
    pub(crate) waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: a header is shared between threads only
// through the state word's protocol; the owner key is accessed under the
// owned list's lock.
unsafe impl Send for Header {}
// SAFETY: see above.
unsafe impl Sync for Header {}

impl<T: Future, S: Schedule> Cell<T, S> {
    pub(crate) fn new(future: T, scheduler: S, meta: &SpawnMeta<'_>) -> Box<Cell<T, S>> {
        Box::new(Cell {
            header: Header {
                state: State::new(),
                vtable: super::raw::vtable::<T, S>(),
                id: meta.id,
                owner_key: UnsafeCell::new(usize::MAX),
                #[cfg(tokio_unstable)]
                spawned_at: meta.spawned_at,
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                name: meta.name.map(|name| Box::new(name.to_owned())),
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                tracing_id: None,
                #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
                scheduled_at: crate::loom::sync::atomic::AtomicU64::new(0),
            },
            core: Core {
                scheduler,
                stage: UnsafeCell::new(Stage::Running(future)),
            },
            trailer: Trailer {
                waker: UnsafeCell::new(None),
            },
        })
    }
}

impl<T: Future, S> Core<T, S> {
    /// Polls the future.
    ///
    /// # Safety
    ///
    /// The caller holds `RUNNING`, and the stage is `Running`.
    pub(crate) unsafe fn poll(&self, id: Id, cx: &mut Context<'_>) -> Poll<T::Output> {
        self.stage.with_mut(|ptr| {
            // SAFETY: `RUNNING` gives exclusive access to the stage, and the
            // future is never moved out of its place in the cell while it is
            // `Running`, so pinning it there is sound.
            let stage = unsafe { &mut *ptr };
            let future = match stage {
                // SAFETY: the future stays in place in the cell until the
                // stage is replaced, which drops it (see above).
                Stage::Running(future) => unsafe { Pin::new_unchecked(future) },
                _ => unreachable!("polled a task whose future is gone"),
            };
            let _guard = crate::runtime::context::set_current_task_id(Some(id));
            future.poll(cx)
        })
    }

    /// Replaces the stage, dropping the old one with the task's id current.
    ///
    /// # Safety
    ///
    /// The caller owns the stage (see `state.rs`).
    pub(crate) unsafe fn set_stage(&self, id: Id, stage: Stage<T>) {
        let _guard = crate::runtime::context::set_current_task_id(Some(id));
        // SAFETY: exclusive access per the caller's contract.
        self.stage.with_mut(|ptr| unsafe { *ptr = stage });
    }

    /// Takes the output.
    ///
    /// # Safety
    ///
    /// The caller is the `JoinHandle` and has seen `COMPLETE`.
    pub(crate) unsafe fn take_output(&self) -> Result<T::Output, JoinError> {
        // SAFETY: exclusive access per the caller's contract.
        self.stage.with_mut(
            |ptr| match std::mem::replace(unsafe { &mut *ptr }, Stage::Consumed) {
                Stage::Finished(output) => output,
                _ => panic!("JoinHandle polled after completion"),
            },
        )
    }
}

impl Trailer {
    /// # Safety
    ///
    /// The caller owns the waker field (see `JOIN_WAKER` in `state.rs`).
    pub(crate) unsafe fn set_waker(&self, waker: Option<Waker>) {
        // SAFETY: exclusive access per the caller's contract.
        self.waker.with_mut(|ptr| unsafe { *ptr = waker });
    }

    /// # Safety
    ///
    /// `JOIN_WAKER` is set and the caller is allowed to read the field.
    pub(crate) unsafe fn will_wake(&self, waker: &Waker) -> bool {
        // SAFETY: the field is set and not mutated while `JOIN_WAKER` is set.
        self.waker
            .with(|ptr| unsafe { (*ptr).as_ref() }.is_some_and(|w| w.will_wake(waker)))
    }

    /// # Safety
    ///
    /// The task is complete and `JOIN_WAKER` is set.
    pub(crate) unsafe fn wake_join(&self) {
        // SAFETY: after `COMPLETE` with `JOIN_WAKER` set nobody writes the
        // field (the `JoinHandle` may only read it, through `will_wake`),
        // so this shared read cannot race with a write.
        self.waker.with(|ptr| match unsafe { &*ptr } {
            Some(waker) => waker.wake_by_ref(),
            None => panic!("waker missing"),
        });
    }
}
