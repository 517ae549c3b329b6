//! The task state word.
//!
//! Every task has one `AtomicUsize` that records its lifecycle and its
//! reference count, so that a single atomic operation can both change the
//! lifecycle and take or drop a reference. The layout:
//!
//! | bits  | name            | meaning                                                       |
//! |-------|-----------------|---------------------------------------------------------------|
//! | 0     | `RUNNING`       | a thread is polling the future, or cancelling it; it alone may touch the stage |
//! | 1     | `COMPLETE`      | the future is gone and the stage holds the output (or it was consumed) |
//! | 2     | `NOTIFIED`      | a `Notified` for the task exists (queued or about to be), or, while `RUNNING`, the task must be polled again |
//! | 3     | `JOIN_INTEREST` | the `JoinHandle` is alive and may read the output            |
//! | 4     | `JOIN_WAKER`    | the trailer's join waker is set and owned by the runtime side |
//! | 5     | `CANCELLED`     | the task must be cancelled the next time it is run           |
//! | 6..   | reference count | one per `Task`/`Notified`/waker/`JoinHandle`/`AbortHandle`   |
//!
//! # Who may touch what
//!
//! * The **stage** (future or output) belongs to whoever set `RUNNING`, until
//!   it sets `COMPLETE`. After `COMPLETE`, it belongs to the `JoinHandle` if
//!   `JOIN_INTEREST` is set, else to the thread that completed the task.
//! * The **join waker** in the trailer belongs to the `JoinHandle` while
//!   `JOIN_WAKER` is clear, and to the runtime side while it is set (the
//!   runtime only reads it, to wake, after `COMPLETE`). `JOIN_WAKER` is
//!   cleared by the `JoinHandle` before it replaces the waker (only possible
//!   before `COMPLETE`), and by the completing thread after waking.
//!
//! # References
//!
//! A new task starts with three references: the owned-task list's, the first
//! `Notified` (the spawn schedules it) and the `JoinHandle`'s. Waker clones
//! and `AbortHandle`s take one each. A `Notified` that is run turns into the
//! running reference: it is dropped when the poll ends without a new
//! notification, or kept for the re-scheduled `Notified` when there was one.
//! The task is deallocated when the count reaches zero, which can only happen
//! after `COMPLETE` or with no `Notified`, `RUNNING` or list entry left.
//!
//! # Orderings
//!
//! Transitions that hand over the stage or the join waker use `AcqRel` (the
//! CAS loops) so the writer's accesses happen-before the reader's. Reference
//! increments are `Relaxed` (the caller already holds a reference, as for
//! `Arc::clone`); decrements are `AcqRel` so the last one sees every access
//! made through other references before it frees the memory.
use crate::loom::sync::atomic::{AtomicUsize, Ordering::*};
use std::fmt;

const RUNNING: usize = 0b0_0001;
const COMPLETE: usize = 0b0_0010;
const NOTIFIED: usize = 0b0_0100;
const JOIN_INTEREST: usize = 0b0_1000;
const JOIN_WAKER: usize = 0b1_0000;
const CANCELLED: usize = 0b10_0000;
const LIFECYCLE_MASK: usize = RUNNING | COMPLETE;
const REF_SHIFT: u32 = 6;
const REF_ONE: usize = 1 << REF_SHIFT;

/// The initial state: three references, scheduled, joinable.
const INITIAL: usize = (REF_ONE * 3) | JOIN_INTEREST | NOTIFIED;

pub(crate) struct State {
    word: AtomicUsize,
}

/// A copy of the state word, with accessors.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot(usize);

/// What the scheduler must do after `transition_to_running`.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToRunning {
    /// Poll the future.
    Success,
    /// The task was cancelled: drop the future and complete it as cancelled.
    Cancelled,
    /// The task is already running or complete; the notification's reference
    /// was dropped.
    Failed,
    /// As `Failed`, and that was the last reference: deallocate.
    Dealloc,
}

/// What the harness must do after a poll returned `Pending`.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToIdle {
    /// Nothing more: the running reference was dropped.
    Ok,
    /// The task was woken during the poll: schedule it again; the running
    /// reference now belongs to that `Notified`.
    OkNotified,
    /// The running reference was the last one: deallocate.
    OkDealloc,
    /// The task was cancelled during the poll: cancel it now (still running).
    Cancelled,
}

/// What a waker must do after `transition_to_notified_*`.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToNotified {
    /// Nothing to schedule.
    DoNothing,
    /// Submit a `Notified` holding a reference already counted.
    Submit,
    /// The reference dropped was the last: deallocate.
    Dealloc,
}

impl State {
    pub(crate) fn new() -> State {
        State {
            word: AtomicUsize::new(INITIAL),
        }
    }

    pub(crate) fn load(&self) -> Snapshot {
        Snapshot(self.word.load(Acquire))
    }

    /// Runs `f` in a CAS loop; `f` returns the new value and a result, or
    /// `None` to stop without writing.
    fn fetch_update<T>(&self, mut f: impl FnMut(Snapshot) -> (T, Option<Snapshot>)) -> T {
        let mut curr = self.load();
        loop {
            let (out, next) = f(curr);
            let next = match next {
                Some(next) => next,
                None => return out,
            };
            match self
                .word
                .compare_exchange_weak(curr.0, next.0, AcqRel, Acquire)
            {
                Ok(_) => return out,
                Err(actual) => curr = Snapshot(actual),
            }
        }
    }

    /// The scheduler runs a `Notified`: take the `RUNNING` bit.
    pub(crate) fn transition_to_running(&self) -> TransitionToRunning {
        self.fetch_update(|mut s| {
            debug_assert!(s.is_notified());
            if !s.is_idle() {
                // Already running (a stale notification) or complete: drop
                // the notification's reference.
                s.ref_dec();
                let action = if s.ref_count() == 0 {
                    TransitionToRunning::Dealloc
                } else {
                    TransitionToRunning::Failed
                };
                return (action, Some(s));
            }
            s.set_running();
            s.unset_notified();
            let action = if s.is_cancelled() {
                TransitionToRunning::Cancelled
            } else {
                TransitionToRunning::Success
            };
            (action, Some(s))
        })
    }

    /// A poll returned `Pending`: release `RUNNING`.
    pub(crate) fn transition_to_idle(&self) -> TransitionToIdle {
        self.fetch_update(|mut s| {
            debug_assert!(s.is_running());
            if s.is_cancelled() {
                return (TransitionToIdle::Cancelled, None);
            }
            s.unset_running();
            let action = if s.is_notified() {
                // Keep the running reference for the new `Notified`.
                TransitionToIdle::OkNotified
            } else {
                s.ref_dec();
                if s.ref_count() == 0 {
                    TransitionToIdle::OkDealloc
                } else {
                    TransitionToIdle::Ok
                }
            };
            (action, Some(s))
        })
    }

    /// The output was stored: `RUNNING` → `COMPLETE`. Returns the new state.
    pub(crate) fn transition_to_complete(&self) -> Snapshot {
        const DELTA: usize = RUNNING | COMPLETE;
        let prev = Snapshot(self.word.fetch_xor(DELTA, AcqRel));
        debug_assert!(prev.is_running() && !prev.is_complete());
        Snapshot(prev.0 ^ DELTA)
    }

    /// After completion, drop `count` references (the running one and,
    /// when the owned list released the task, the list's). Returns `true`
    /// when the task must be deallocated.
    pub(crate) fn transition_to_terminal(&self, count: usize) -> bool {
        let prev = Snapshot(self.word.fetch_sub(count * REF_ONE, AcqRel));
        assert!(
            prev.ref_count() >= count,
            "task reference count underflow: {} < {}",
            prev.ref_count(),
            count
        );
        prev.ref_count() == count
    }

    /// `Waker::wake`: consumes the waker's reference.
    pub(crate) fn transition_to_notified_by_val(&self) -> TransitionToNotified {
        self.fetch_update(|mut s| {
            let action = if s.is_running() {
                // The runner will re-schedule; it holds a reference, so
                // dropping ours cannot reach zero.
                s.set_notified();
                s.ref_dec();
                debug_assert!(s.ref_count() > 0);
                TransitionToNotified::DoNothing
            } else if s.is_complete() || s.is_notified() {
                s.ref_dec();
                if s.ref_count() == 0 {
                    TransitionToNotified::Dealloc
                } else {
                    TransitionToNotified::DoNothing
                }
            } else {
                // Our reference moves into the new `Notified`.
                s.set_notified();
                TransitionToNotified::Submit
            };
            (action, Some(s))
        })
    }

    /// `Waker::wake_by_ref`: takes a new reference when it submits.
    pub(crate) fn transition_to_notified_by_ref(&self) -> TransitionToNotified {
        self.fetch_update(|mut s| {
            if s.is_complete() || s.is_notified() {
                (TransitionToNotified::DoNothing, None)
            } else if s.is_running() {
                s.set_notified();
                (TransitionToNotified::DoNothing, Some(s))
            } else {
                s.set_notified();
                s.ref_inc();
                (TransitionToNotified::Submit, Some(s))
            }
        })
    }

    /// `abort()` from a handle: mark cancelled and make sure the task runs
    /// once more to observe it. Returns `true` when the caller must submit a
    /// `Notified` (whose reference this transition took).
    pub(crate) fn transition_to_notified_and_cancel(&self) -> bool {
        self.fetch_update(|mut s| {
            if s.is_cancelled() || s.is_complete() {
                (false, None)
            } else if s.is_running() {
                // The runner sees `CANCELLED` when the poll returns.
                s.set_notified();
                s.set_cancelled();
                (false, Some(s))
            } else if s.is_notified() {
                // A queued notification will run it and see `CANCELLED`.
                s.set_cancelled();
                (false, Some(s))
            } else {
                s.set_cancelled();
                s.set_notified();
                s.ref_inc();
                (true, Some(s))
            }
        })
    }

    /// Runtime shutdown: mark cancelled and, if the task is idle, take
    /// `RUNNING` so the caller cancels it now. Returns `true` in that case.
    pub(crate) fn transition_to_shutdown(&self) -> bool {
        self.fetch_update(|mut s| {
            let idle = s.is_idle();
            if idle {
                s.set_running();
            }
            s.set_cancelled();
            (idle, Some(s))
        })
    }

    /// Fast path for dropping a `JoinHandle` of a task that never started
    /// and was never waited on.
    pub(crate) fn drop_join_handle_fast(&self) -> Result<(), ()> {
        // Release on success, as for any reference drop: the handle's
        // earlier accesses happen-before whoever frees the task. No Acquire:
        // from `INITIAL` the count goes 3 -> 2, so this never frees. The
        // failure ordering reads nothing we act on (the slow path reloads).
        self.word
            .compare_exchange(
                INITIAL,
                (INITIAL - REF_ONE) & !JOIN_INTEREST,
                Release,
                Relaxed,
            )
            .map(|_| ())
            .map_err(|_| ())
    }

    /// The `JoinHandle` is dropped: clear `JOIN_INTEREST` and, if the task
    /// is not complete, also `JOIN_WAKER` (the handle then owns the waker
    /// again and drops it). Returns the state after the transition.
    pub(crate) fn transition_to_join_handle_dropped(&self) -> Snapshot {
        self.fetch_update(|mut s| {
            debug_assert!(s.is_join_interested());
            s.0 &= !JOIN_INTEREST;
            if !s.is_complete() {
                s.0 &= !JOIN_WAKER;
            }
            (s, Some(s))
        })
    }

    /// Publishes the join waker (already written to the trailer). Fails,
    /// returning the state, when the task completed first.
    pub(crate) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|mut s| {
            debug_assert!(s.is_join_interested() && !s.is_join_waker_set());
            if s.is_complete() {
                return (Err(s), None);
            }
            s.0 |= JOIN_WAKER;
            (Ok(s), Some(s))
        })
    }

    /// Takes the join waker back from the runtime side so the `JoinHandle`
    /// may replace it. Fails when the task completed first.
    pub(crate) fn unset_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|mut s| {
            debug_assert!(s.is_join_interested() && s.is_join_waker_set());
            if s.is_complete() {
                return (Err(s), None);
            }
            s.0 &= !JOIN_WAKER;
            (Ok(s), Some(s))
        })
    }

    /// After waking the join waker on completion: give it back. Returns the
    /// state; if `JOIN_INTEREST` is gone, the caller drops the waker.
    pub(crate) fn unset_join_waker_after_complete(&self) -> Snapshot {
        let prev = Snapshot(self.word.fetch_and(!JOIN_WAKER, AcqRel));
        debug_assert!(prev.is_complete() && prev.is_join_waker_set());
        Snapshot(prev.0 & !JOIN_WAKER)
    }

    pub(crate) fn ref_inc(&self) {
        // Relaxed: the caller holds a reference, so the task cannot be freed
        // concurrently; no other memory is published by this increment.
        let prev = self.word.fetch_add(REF_ONE, Relaxed);
        // Overflow would make the count wrap and free a live task.
        if prev > isize::MAX as usize {
            std::process::abort();
        }
    }

    /// Drops one reference; `true` when it was the last.
    pub(crate) fn ref_dec(&self) -> bool {
        let prev = Snapshot(self.word.fetch_sub(REF_ONE, AcqRel));
        assert!(prev.ref_count() >= 1, "task reference count underflow");
        prev.ref_count() == 1
    }
}

impl Snapshot {
    pub(crate) fn is_idle(self) -> bool {
        self.0 & LIFECYCLE_MASK == 0
    }
    pub(crate) fn is_running(self) -> bool {
        self.0 & RUNNING != 0
    }
    pub(crate) fn is_complete(self) -> bool {
        self.0 & COMPLETE != 0
    }
    pub(crate) fn is_notified(self) -> bool {
        self.0 & NOTIFIED != 0
    }
    pub(crate) fn is_cancelled(self) -> bool {
        self.0 & CANCELLED != 0
    }
    pub(crate) fn is_join_interested(self) -> bool {
        self.0 & JOIN_INTEREST != 0
    }
    pub(crate) fn is_join_waker_set(self) -> bool {
        self.0 & JOIN_WAKER != 0
    }
    pub(crate) fn ref_count(self) -> usize {
        self.0 >> REF_SHIFT
    }
    fn set_running(&mut self) {
        self.0 |= RUNNING
    }
    fn unset_running(&mut self) {
        self.0 &= !RUNNING
    }
    fn set_notified(&mut self) {
        self.0 |= NOTIFIED
    }
    fn unset_notified(&mut self) {
        self.0 &= !NOTIFIED
    }
    fn set_cancelled(&mut self) {
        self.0 |= CANCELLED
    }
    fn ref_inc(&mut self) {
        self.0 += REF_ONE
    }
    fn ref_dec(&mut self) {
        debug_assert!(self.ref_count() > 0);
        self.0 -= REF_ONE
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(f)
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("running", &self.is_running())
            .field("complete", &self.is_complete())
            .field("notified", &self.is_notified())
            .field("cancelled", &self.is_cancelled())
            .field("join_interest", &self.is_join_interested())
            .field("join_waker", &self.is_join_waker_set())
            .field("refs", &self.ref_count())
            .finish()
    }
}
