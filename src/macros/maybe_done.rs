//! A future kept beside its output: the slots `join!` and `try_join!` poll.
//!
//! `join!` must poll each of its futures until it completes, keep the
//! output until every other future has completed too, and then hand all
//! the outputs out at once. A [`MaybeDone`] is that slot: it polls the
//! future it holds until it is ready, stores the output in its place (so
//! the future is dropped as soon as it is finished) and gives the output
//! out exactly once.

use pin_project_lite::pin_project;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project! {
    /// A future, then its output, then nothing once the output is taken.
    #[derive(Debug)]
    #[project = MaybeDoneProj]
    #[project_replace = MaybeDoneTaken]
    // A separate tag: without it, rustc may keep the discriminant in a niche
    // inside the future's own bytes, and every `match` on the slot would
    // then read memory that a self-referential future (an `async` block)
    // borrows mutably from within, which Miri reports as undefined
    // behaviour (rust-lang/miri#3780). It also gives the slot tokio's size,
    // which tokio's tests assert.
    #[repr(C)]
    pub enum MaybeDone<F: Future> {
        /// Not finished yet.
        Polling { #[pin] future: F },
        /// Finished; the output waits to be taken.
        Finished { output: F::Output },
        /// The output was taken.
        Taken,
    }
}

/// Wraps a future (or anything that converts into one) in a [`MaybeDone`].
pub fn maybe_done<F: IntoFuture>(future: F) -> MaybeDone<F::IntoFuture> {
    MaybeDone::Polling {
        future: future.into_future(),
    }
}

impl<F: Future> MaybeDone<F> {
    /// The output, if the future has finished and it was not taken yet.
    pub fn output_mut(self: Pin<&mut Self>) -> Option<&mut F::Output> {
        match self.project() {
            MaybeDoneProj::Finished { output } => Some(output),
            _ => None,
        }
    }

    /// Takes the output out, if the future has finished and it was not
    /// taken yet; the slot is then empty for good.
    #[inline]
    pub fn take_output(self: Pin<&mut Self>) -> Option<F::Output> {
        match *self {
            MaybeDone::Finished { .. } => {}
            _ => return None,
        }
        match self.project_replace(MaybeDone::Taken) {
            MaybeDoneTaken::Finished { output } => Some(output),
            _ => None,
        }
    }
}

impl<F: Future> Future for MaybeDone<F> {
    type Output = ();

    /// Ready once the future has finished (at once on later polls).
    ///
    /// # Panics
    ///
    /// If polled after the output was taken.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let output = match self.as_mut().project() {
            MaybeDoneProj::Polling { future } => std::task::ready!(future.poll(cx)),
            MaybeDoneProj::Finished { .. } => return Poll::Ready(()),
            MaybeDoneProj::Taken => panic!("MaybeDone polled after its output was taken"),
        };
        self.set(MaybeDone::Finished { output });
        Poll::Ready(())
    }
}
