//! A closure presented as a future that completes on its first poll.
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub(crate) struct BlockingTask<F> {
    func: Option<F>,
}

impl<F> BlockingTask<F> {
    pub(crate) fn new(func: F) -> BlockingTask<F> {
        BlockingTask { func: Some(func) }
    }
}

// The closure is never pinned: it is moved out and called.
impl<F> Unpin for BlockingTask<F> {}

impl<F: FnOnce() -> R, R> Future for BlockingTask<F> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let func = self
            .func
            .take()
            .expect("[internal exception] blocking task ran twice.");
        // Blocking code is not cooperative: no budget applies to it.
        Poll::Ready(crate::runtime::coop::unconstrained_call(func))
    }
}
