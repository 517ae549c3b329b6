//! Counting polls and drops.
use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A shared counter.
#[derive(Clone, Debug, Default)]
pub struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub fn new() -> Counter {
        Counter::default()
    }

    pub fn get(&self) -> usize {
        self.0.load(SeqCst)
    }

    /// Adds one; returns the new value.
    pub fn inc(&self) -> usize {
        self.0.fetch_add(1, SeqCst) + 1
    }

    /// A guard that adds one to this counter when dropped.
    pub fn guard(&self) -> DropGuard {
        DropGuard(self.clone())
    }
}

/// Adds one to its counter when dropped.
#[derive(Debug)]
pub struct DropGuard(Counter);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.inc();
    }
}

/// Wraps a future, counting its polls and its drop.
pub struct Tracked<F> {
    inner: Pin<Box<F>>,
    polls: Counter,
    _drop: DropGuard,
}

impl<F: Future> Tracked<F> {
    pub fn new(inner: F, polls: &Counter, drops: &Counter) -> Tracked<F> {
        Tracked {
            inner: Box::pin(inner),
            polls: polls.clone(),
            _drop: drops.guard(),
        }
    }
}

impl<F: Future> Future for Tracked<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.inc();
        self.inner.as_mut().poll(cx)
    }
}

/// The message of a panic payload (`&str` or `String`), or a placeholder.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

/// Waits, by spinning with `thread::yield_now`, until `cond` holds; panics
/// after `limit` with `what`.
///
/// Only for state that the runtime publishes asynchronously and that no
/// channel can report (metrics, `is_finished` after the task signalled, a
/// thread exiting): never as a substitute for a channel.
#[track_caller]
pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < limit,
            "timed out after {limit:?} waiting for: {what}"
        );
        std::thread::yield_now();
    }
}

/// A waker that counts its wakes, and the counter.
pub fn counting_waker() -> (std::task::Waker, Counter) {
    struct CountWaker(Counter);
    impl std::task::Wake for CountWaker {
        fn wake(self: Arc<Self>) {
            self.0.inc();
        }
    }
    let counter = Counter::new();
    (
        std::task::Waker::from(Arc::new(CountWaker(counter.clone()))),
        counter,
    )
}
