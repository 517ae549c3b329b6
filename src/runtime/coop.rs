//! Cooperative scheduling: a budget of operations per task poll.
//!
//! A task that always finds its resources ready (a channel never empty, a
//! socket always readable) would never return `Pending` and would starve
//! every other task on its worker. So each poll gets a budget of
//! 128 operations (tokio's figure) on tokiwa's own resources (join handles,
//! and the drivers' resources as they arrive); when it is spent, those
//! resources answer `Pending` and wake the task at once, which sends it to
//! the back of the queue. tokio's own budget does not apply here: tokio's
//! sync primitives only consult it inside tokio's runtime.
//!
//! The budget lives in the thread's runtime context. Outside a task it is
//! unconstrained.
//!
//! This file is the budget itself, which the schedulers set around each
//! poll and the runtime's resources spend. The public `task::coop` module
//! re-exports its public part (`has_budget_remaining`, `poll_proceed`,
//! `RestoreOnPending`) and adds the combinators built on it
//! (`cooperative`, `consume_budget`, `unconstrained`), as tokio's
//! `task::coop` does.
use crate::runtime::context;
use std::cell::Cell;
use std::marker::PhantomData;
use std::task::{Context, Poll};

/// Operations a task may perform per poll (tokio's figure).
pub(crate) const INITIAL_BUDGET: u8 = 128;

/// The remaining budget; `None` is unconstrained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget(Option<u8>);

impl Budget {
    pub(crate) const fn initial() -> Budget {
        Budget(Some(INITIAL_BUDGET))
    }

    pub(crate) const fn unconstrained() -> Budget {
        Budget(None)
    }
}

/// Runs `f` (one task poll) with a fresh budget, restoring the previous one.
pub(crate) fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::initial(), f)
}

/// Runs `f` with `budget`, restoring the previous one.
pub(crate) fn with_budget<R>(budget: Budget, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Budget>);
    impl Drop for Reset {
        fn drop(&mut self) {
            if let Some(prev) = self.0 {
                context::set_budget(prev);
            }
        }
    }
    let _reset = Reset(context::replace_budget(budget));
    f()
}

/// Whether the current task still has budget left.
pub fn has_budget_remaining() -> bool {
    context::budget().is_none_or(|b| b.0 != Some(0))
}

/// Spends one unit of the current task's budget, or wakes the task and
/// returns `Pending` when it is exhausted.
///
/// This is the building block of a resource that takes part in
/// cooperative scheduling: call it at the start of a poll, and call
/// [`RestoreOnPending::made_progress`] on the guard once the operation
/// completes; if the poll returns `Pending` instead, dropping the guard
/// gives the unit back. Outside a task (or inside `task::unconstrained`)
/// it is always ready.
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    let Some(budget) = context::budget() else {
        return Poll::Ready(RestoreOnPending::new(None));
    };
    match budget.0 {
        None => Poll::Ready(RestoreOnPending::new(None)),
        Some(0) => {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
        Some(n) => {
            // The unit that empties the budget counts the forced yield
            // (`budget_forced_yield_count`), as in tokio: once per
            // exhaustion, however many operations are then refused.
            #[cfg(tokio_unstable)]
            if n == 1 {
                let _ = context::with_current(|handle| {
                    crate::runtime::metrics::SchedulerMetrics::inc(
                        &handle.scheduler_metrics().budget_forced_yields,
                    )
                });
            }
            context::set_budget(Budget(Some(n - 1)));
            Poll::Ready(RestoreOnPending::new(Some(budget)))
        }
    }
}

/// The guard [`poll_proceed`] returns: gives the unit of budget back on
/// drop unless [`made_progress`](RestoreOnPending::made_progress) was
/// called.
///
/// It restores the budget of the thread it was made on, so it is neither
/// `Send` nor `Sync`, as in tokio.
#[derive(Debug)]
#[must_use]
pub struct RestoreOnPending(Cell<Option<Budget>>, PhantomData<*mut ()>);

impl RestoreOnPending {
    fn new(budget: Option<Budget>) -> RestoreOnPending {
        RestoreOnPending(Cell::new(budget), PhantomData)
    }

    /// Marks the operation as complete: the unit of budget stays spent.
    pub fn made_progress(&self) {
        self.0.set(None);
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        if let Some(budget) = self.0.get() {
            context::set_budget(budget);
        }
    }
}

/// Runs `f` with no budget limit (blocking closures).
pub(crate) fn unconstrained_call<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::unconstrained(), f)
}
