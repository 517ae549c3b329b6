//! hyper's executor: where hyper's background tasks run.

use std::future::Future;

/// A [`hyper::rt::Executor`] that spawns on the current tokiwa runtime
/// ([`tokiwa::spawn`]), or on the runtime of a given handle.
///
/// hyper calls it from inside its futures (HTTP/2 connection tasks, the
/// pooled client's connection tasks), which run on tokiwa, so the
/// current-runtime form is what servers and clients normally use. A client
/// built outside any runtime and used from another thread wants
/// [`TokiwaExecutor::with_handle`].
#[derive(Clone, Debug, Default)]
pub struct TokiwaExecutor {
    handle: Option<tokiwa::runtime::Handle>,
}

impl TokiwaExecutor {
    /// Spawns on the runtime of the task that calls `execute`.
    pub fn new() -> TokiwaExecutor {
        TokiwaExecutor { handle: None }
    }

    /// Always spawns on `handle`'s runtime.
    pub fn with_handle(handle: tokiwa::runtime::Handle) -> TokiwaExecutor {
        TokiwaExecutor {
            handle: Some(handle),
        }
    }
}

impl<F> hyper::rt::Executor<F> for TokiwaExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, fut: F) {
        // hyper never joins its tasks: each reports through channels it
        // owns, so the JoinHandle is dropped (the task keeps running).
        match &self.handle {
            Some(handle) => drop(handle.spawn(fut)),
            None => drop(tokiwa::spawn(fut)),
        }
    }
}
