//! What the expansions of `select!`, `join!`, `try_join!` and `pin!` name.
//!
//! The macros are expanded in the user's crate, so every item they use must
//! be reachable through `$crate` at a stable path: this hidden module,
//! tokio's `tokio::macros::support`. Code outside tokio names a few of these
//! items directly (tokio's own tests use `poll_fn` and `thread_rng_n`), so
//! the names tokio offers here are offered too.

pub use std::future::{poll_fn, Future, IntoFuture};
pub use std::pin::Pin;
pub use std::result::Result;
pub use std::task::{ready, Context, Poll};

#[cfg(feature = "macros")]
pub use crate::macros::maybe_done::{maybe_done, MaybeDone};

#[cfg(feature = "macros")]
pub use tokiwa_macros::select_pattern_probe;

#[cfg(feature = "macros")]
pub use self::branches::*;

#[cfg(feature = "macros")]
pub use super::thread_rng::thread_rng_n;

#[cfg(feature = "macros")]
mod branches {
    use std::task::{Context, Poll};

    /// The output of the branch `select!` chose, typed without naming any
    /// branch's type: branch `k` of `n` is `k` layers of [`Chosen::Later`]
    /// around a [`Chosen::This`], and "every branch disabled" is `n` layers
    /// around [`NoBranch`]. The expansion builds a value with
    /// [`Deeper::deeper`] (one call per layer, so no macro has to nest) and
    /// reads it back with [`Chosen::later`] and [`Chosen::this`].
    #[derive(Debug)]
    pub enum Chosen<T, Rest> {
        /// This layer's branch was chosen; its output.
        This(T),
        /// A later branch was chosen (or none).
        Later(Rest),
    }

    impl<T, Rest> Chosen<T, Rest> {
        /// The chosen branch's output, when it is this layer's.
        ///
        /// # Panics
        ///
        /// If a later branch was chosen: the expansion only asks the layer
        /// it built.
        #[inline]
        pub fn this(self) -> T {
            match self {
                Chosen::This(output) => output,
                Chosen::Later(_) => unreachable!("select! read the wrong branch's output"),
            }
        }

        /// The layers of the later branches.
        ///
        /// # Panics
        ///
        /// If this layer's branch was chosen.
        #[inline]
        pub fn later(self) -> Rest {
            match self {
                Chosen::Later(rest) => rest,
                Chosen::This(_) => unreachable!("select! read the wrong branch's output"),
            }
        }
    }

    /// The innermost layer of a [`Chosen`]: no branch was chosen, all were
    /// disabled.
    #[derive(Debug)]
    pub struct NoBranch;

    /// Wraps any value in one more [`Chosen::Later`] layer.
    pub trait Deeper: Sized {
        /// `Chosen::Later(self)`, for an earlier branch of output `T`.
        #[inline]
        fn deeper<T>(self) -> Chosen<T, Self> {
            Chosen::Later(self)
        }
    }

    impl<X> Deeper for X {}

    /// Which branch `join!` and `try_join!` poll first on each poll.
    pub trait StartOrder: Default {
        /// The index (below `branches`) to start this poll at.
        fn first(&mut self, branches: u32) -> u32;
    }

    /// The default: each poll starts one branch further than the last, so a
    /// branch that uses up the task's budget cannot keep the ones after it
    /// from being polled.
    #[derive(Debug, Default)]
    pub struct Rotating {
        next: u32,
    }

    impl StartOrder for Rotating {
        #[inline]
        fn first(&mut self, branches: u32) -> u32 {
            let first = self.next;
            self.next = if first + 1 >= branches { 0 } else { first + 1 };
            first
        }
    }

    /// `biased;`: every poll starts at the first branch.
    #[derive(Debug, Default)]
    pub struct InOrder;

    impl StartOrder for InOrder {
        #[inline]
        fn first(&mut self, _branches: u32) -> u32 {
            0
        }
    }

    /// `Pending` (with the task woken to be polled again) when the current
    /// task has used up its cooperative budget, else `Ready`. It spends
    /// nothing: `select!` calls it first so that, once the budget is gone,
    /// it yields instead of completing through a branch that ignores the
    /// budget (an always-ready future) while the budget-aware ones would
    /// all yield.
    #[cfg(feature = "rt")]
    #[inline]
    pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
        if crate::task::coop::has_budget_remaining() {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// Without a runtime there is no budget.
    #[cfg(not(feature = "rt"))]
    #[inline]
    pub fn poll_budget_available(_cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}
