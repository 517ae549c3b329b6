//! The cooperative budget as the primitives see it: tokiwa's own with a
//! runtime (`rt`), nothing without one (then there is no scheduler to
//! yield to). With the runtime the waits that spend a unit of the task's
//! budget in tokio ([`crate::task::coop`]: receive, lock, acquire, reserve,
//! `watch::changed`, a `Barrier` waiter) spend one here, so a task looping
//! on an always-ready channel still yields. Where tokio's does not, neither
//! does tokiwa's: a `Notified` (and so `SetOnce::wait`) never yields for
//! the budget. One signature for both builds keeps the primitives free of
//! `cfg`s.
#[cfg(feature = "rt")]
pub(crate) use crate::task::coop::{cooperative, poll_proceed};

#[cfg(not(feature = "rt"))]
pub(crate) use no_runtime::{cooperative, poll_proceed};

#[cfg(not(feature = "rt"))]
mod no_runtime {
    use std::task::{Context, Poll};

    /// Without a runtime there is no budget: the future as it is.
    pub(crate) fn cooperative<F: std::future::Future>(future: F) -> F {
        future
    }

    /// Without a runtime: nothing to give back.
    #[derive(Debug)]
    #[must_use]
    pub(crate) struct RestoreOnPending(());

    impl RestoreOnPending {
        pub(crate) fn made_progress(&self) {}
    }

    /// Without a runtime the budget is unconstrained: always ready.
    pub(crate) fn poll_proceed(_cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
        Poll::Ready(RestoreOnPending(()))
    }
}
