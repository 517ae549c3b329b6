//! `Runtime`: owns the scheduler's threads and shuts them down on drop.
use super::blocking::BlockingPool;
use super::{context, scheduler, EnterGuard, Handle, RuntimeMetrics};
use crate::runtime::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::time::Duration;

/// The tokiwa runtime: a scheduler, its worker threads and its blocking
/// pool.
///
/// Dropping it shuts it down: every task's future is dropped (on a thread
/// of the runtime), and the drop waits for the blocking pool's threads.
/// That wait would block an asynchronous context, so dropping a runtime
/// (or `shutdown_timeout` with a non-zero timeout) inside one panics, as in
/// tokio; `shutdown_background` does not wait and may be used there.
pub struct Runtime {
    handle: Handle,
    pool: BlockingPool,
    shut_down: bool,
}

impl Runtime {
    pub(crate) fn from_parts(handle: Handle, pool: BlockingPool) -> Runtime {
        Runtime {
            handle,
            pool,
            shut_down: false,
        }
    }

    /// Creates a multi-thread runtime with default settings (all drivers
    /// enabled).
    #[cfg(feature = "rt-multi-thread")]
    pub fn new() -> std::io::Result<Runtime> {
        super::Builder::new_multi_thread().enable_all().build()
    }

    /// Spawns a future onto the runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs a blocking closure on the runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(func)
    }

    /// Runs a future to completion on this thread, driving the runtime.
    ///
    /// # Panics
    ///
    /// Panics when called from inside a runtime (use `.await` there).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        match &self.handle.inner {
            scheduler::Handle::CurrentThread(h) => {
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                let future = crate::runtime::task::trace::block_on(future);
                h.block_on(future)
            }
            // (`Handle::block_on` instruments the future.)
            scheduler::Handle::MultiThread(_) => self.handle.block_on(future),
        }
    }

    /// The runtime's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Makes this runtime current on this thread until the guard drops, so
    /// that `tokiwa::spawn` works outside `block_on`.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the runtime down, waiting at most `duration` for blocking
    /// tasks and workers to finish.
    pub fn shutdown_timeout(mut self, duration: Duration) {
        self.shutdown(Some(duration));
    }

    /// Shuts the runtime down without waiting for its threads.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::ZERO)
    }

    /// The runtime's metrics.
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    pub(crate) fn shutdown_with(&mut self, timeout: Option<Duration>) {
        self.shutdown(timeout)
    }

    fn shutdown(&mut self, timeout: Option<Duration>) {
        if self.shut_down {
            return;
        }
        self.shut_down = true;
        match &self.handle.inner {
            scheduler::Handle::CurrentThread(h) => h.shutdown(),
            scheduler::Handle::MultiThread(h) => h.shutdown(),
        }
        // Waiting for the pool's threads would block a thread that runs
        // tasks (a worker, or one inside `block_on`): refused as in tokio,
        // with its message, once the threads are told to exit. Not while
        // unwinding (no panic in a panic), and not with no wait at all.
        let may_block = matches!(
            context::current_enter_state(),
            context::EnterRuntime::NotEntered
        );
        let refuse = !may_block && timeout != Some(Duration::ZERO);
        self.pool.shutdown(if refuse {
            Some(Duration::ZERO)
        } else {
            timeout
        });
        // Normally done by the scheduler once its tasks are dropped; this
        // covers a shutdown that timed out with workers still busy.
        self.handle.inner.driver().shutdown();
        if refuse && !std::thread::panicking() {
            panic!(
                "Cannot drop a runtime in a context where blocking is not allowed. \
                 This happens when a runtime is dropped from within an asynchronous context."
            );
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

// As tokio: a panic unwinding out of `block_on` (the future's, or a
// runtime misuse panic) leaves no runtime state half-updated, so using the
// runtime after catching it is sound. Tasks' panics never unwind this far.
impl std::panic::UnwindSafe for Runtime {}
impl std::panic::RefUnwindSafe for Runtime {}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("flavor", &self.handle.runtime_flavor())
            .finish_non_exhaustive()
    }
}
