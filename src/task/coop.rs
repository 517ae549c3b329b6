//! Cooperative scheduling: tokio's `task::coop` API.
//!
//! The budget itself (a number of operations per task poll, kept in the
//! thread's runtime context and reset by the schedulers before each poll)
//! is the runtime's, in `crate::runtime::coop`, whose module doc explains
//! it; this module re-exports its public part and adds the combinators
//! built on it.
use crate::runtime::coop::{with_budget, Budget};
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

pub use crate::runtime::coop::{has_budget_remaining, poll_proceed, RestoreOnPending};

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
