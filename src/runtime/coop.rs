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
use crate::runtime::context;
use pin_project_lite::pin_project;
use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

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

fn with_budget<R>(budget: Budget, f: impl FnOnce() -> R) -> R {
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
/// gives the unit back. Outside a task (or inside [`unconstrained`]) it is
/// always ready.
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    let Some(budget) = context::budget() else {
        return Poll::Ready(RestoreOnPending::new(None));
    };
    match budget.0 {
        None => Poll::Ready(RestoreOnPending::new(None)),
        Some(0) => {
            #[cfg(tokio_unstable)]
            let _ = context::with_current(|handle| {
                crate::runtime::metrics::SchedulerMetrics::inc(
                    &handle.scheduler_metrics().budget_forced_yields,
                )
            });
            cx.waker().wake_by_ref();
            Poll::Pending
        }
        Some(n) => {
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

pin_project! {
    /// Future for [`cooperative`].
    #[must_use = "futures do nothing unless polled"]
    #[derive(Debug)]
    pub struct Coop<F: Future> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let coop = ready!(poll_proceed(cx));
        let output = ready!(self.project().inner.poll(cx));
        coop.made_progress();
        Poll::Ready(output)
    }
}

/// Makes a future take part in cooperative scheduling: each poll spends a
/// unit of the task's budget (given back if the poll returns `Pending`),
/// and a poll with the budget exhausted yields to the scheduler.
pub fn cooperative<F: Future>(inner: F) -> Coop<F> {
    Coop { inner }
}

/// Consumes a unit of budget and returns control to the scheduler if the
/// task's budget is exhausted; otherwise returns at once.
///
/// Use it in long computations that never touch a runtime resource, so
/// that they still yield now and then.
pub async fn consume_budget() {
    let mut status = Poll::Pending;
    std::future::poll_fn(move |cx| {
        if status.is_ready() {
            return status;
        }
        status = poll_proceed(cx).map(|restore| restore.made_progress());
        status
    })
    .await
}

pin_project! {
    /// Future for [`unconstrained`].
    #[must_use = "Unconstrained does nothing unless polled"]
    #[derive(Debug)]
    pub struct Unconstrained<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = self.project().inner;
        with_budget(Budget::unconstrained(), || inner.poll(cx))
    }
}

/// Turns off cooperative scheduling for a future: it is never forced to
/// yield by the budget.
pub fn unconstrained<F>(inner: F) -> Unconstrained<F> {
    Unconstrained { inner }
}

/// Runs `f` with no budget limit (blocking closures).
pub(crate) fn unconstrained_call<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::unconstrained(), f)
}
