//! The cooperative budget, as the channels see it.
//!
//! With the runtime (`rt`) every wait on a channel spends a unit of the
//! task's budget ([`crate::task::coop`]), as tokio's receive and reserve
//! paths do, so a task looping on an always-ready channel still yields.
//! Without the runtime there is no budget: [`poll_proceed`] is always
//! ready and its guard does nothing. One signature for both builds keeps
//! the channel code free of `cfg`s.

#[cfg(feature = "rt")]
pub(crate) use crate::task::coop::poll_proceed;

#[cfg(not(feature = "rt"))]
pub(crate) use no_runtime::poll_proceed;

#[cfg(not(feature = "rt"))]
mod no_runtime {
    use std::task::{Context, Poll};

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
