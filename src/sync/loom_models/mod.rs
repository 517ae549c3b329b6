//! Loom models of the `sync` primitives' races, on the real code: every
//! primitive takes its atomics, locks and cells from `crate::loom`, so
//! under `--cfg tokiwa_loom` loom explores each model's interleavings
//! (a lost wakeup shows as a deadlock loom reports, a race on a cell as a
//! causality violation, a wrong outcome as a failed assertion).
//!
//! Without the cfg the same bodies run once, on std threads with
//! `futures`' `block_on`, as ordinary unit tests. What each model checks
//! is what tokio 1.54.1's `src/sync/tests/loom_*.rs` check, and the
//! races issue 24 names, written against tokiwa's public API:
//!
//! * `oneshot.rs`, `watch.rs`, `barrier.rs`, `once_cell.rs`,
//!   `set_once.rs`: a value or a release racing the task going to sleep,
//!   a waiter moved to a new task, close and drop racing a send;
//! * `rwlock.rs`: downgrade racing waiting readers and writers, a writer
//!   cancelled while it holds part of its permits;
//! * `semaphore.rs`: `close()` racing a grant and a cancel;
//! * `notify.rs`: `notify_waiters` racing a dropped `Notified`;
//! * `broadcast.rs`: lag and receiver drop racing sends;
//! * `mpsc.rs`: receiver drop racing `Permit::send`.
//!
//! Run them (the names start with `loom_`, as `.ci/run` selects):
//!
//! ```text
//! RUSTFLAGS="--cfg tokiwa_loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
//!   cargo test --release --manifest-path whole-graph/tokio/Cargo.toml \
//!   --no-default-features --features sync,rt --lib loom_
//! ```
//!
//! Each model has two or three threads and finishes in seconds with two
//! preemptions.
mod barrier;
mod broadcast;
mod mpsc;
mod notify;
mod once_cell;
mod oneshot;
mod rwlock;
mod semaphore;
mod set_once;
mod waker_change;
mod watch;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

#[cfg(tokiwa_loom)]
pub(super) use loom::{future::block_on, thread};

#[cfg(not(tokiwa_loom))]
pub(super) use {futures::executor::block_on, std::thread};

/// Runs `body` under loom, bounded by two preemptions unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
#[cfg(tokiwa_loom)]
pub(super) fn model(body: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(body);
}

/// Without loom: the body once, on real threads.
#[cfg(not(tokiwa_loom))]
pub(super) fn model(body: impl Fn() + Sync + Send + 'static) {
    body();
}

/// Polls `future` once with a waker that does nothing: a future that is
/// polled and then cancelled (dropped), as by a timeout.
pub(super) fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

/// Counts the drops of the values it hands out (each `Counted` counts one
/// drop), to check that a value is dropped exactly once.
#[derive(Clone, Default)]
pub(super) struct DropCounter(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl DropCounter {
    pub(super) fn value(&self) -> Counted {
        Counted(self.0.clone())
    }

    pub(super) fn drops(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A value whose drop a [`DropCounter`] counts.
#[derive(Debug)]
pub(super) struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}
