//! `LocalRuntime`: a current-thread runtime that also runs `!Send` tasks.
//!
//! It is a current-thread runtime whose scheduler remembers the thread it
//! was built on. `spawn_local` (from any task on it, or under `enter`)
//! puts `!Send` futures straight into that scheduler's queue, which is
//! sound because a `LocalRuntime` is `!Send`: only its own thread can call
//! `block_on`, the only thing that polls its tasks, and its drop (which
//! cancels them). `Handle::block_on` on another thread never drives it.
use super::{EnterGuard, Handle, Runtime, RuntimeMetrics};
use crate::runtime::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

/// Options for [`Builder::build_local`](super::Builder::build_local).
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    _not_send: PhantomData<*mut u8>,
}

/// A runtime whose tasks all run on the thread that created it, so they
/// need not be `Send`.
pub struct LocalRuntime {
    rt: Runtime,
    _not_send: PhantomData<*mut u8>,
}

impl LocalRuntime {
    pub(crate) fn from_runtime(rt: Runtime) -> LocalRuntime {
        LocalRuntime {
            rt,
            _not_send: PhantomData,
        }
    }

    /// Creates a local runtime with default settings (all drivers enabled).
    pub fn new() -> std::io::Result<LocalRuntime> {
        super::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    /// The runtime's handle (it spawns `Send` tasks from anywhere).
    pub fn handle(&self) -> &Handle {
        self.rt.handle()
    }

    /// Spawns a `!Send` task onto the runtime.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let super::scheduler::Handle::CurrentThread(h) = &self.rt.handle().inner else {
            unreachable!("a LocalRuntime is a current-thread runtime")
        };
        h.spawn(future, crate::runtime::task::SpawnMeta::new_unnamed())
    }

    /// Runs a blocking closure on the runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.rt.spawn_blocking(func)
    }

    /// Runs a future to completion, driving the runtime.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    /// Makes the runtime current on this thread until the guard drops.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.rt.enter()
    }

    /// Shuts the runtime down, waiting at most `duration` for its threads.
    pub fn shutdown_timeout(mut self, duration: Duration) {
        self.rt.shutdown_with(Some(duration));
    }

    /// Shuts the runtime down without waiting for its threads.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::ZERO)
    }

    /// The runtime's metrics.
    pub fn metrics(&self) -> RuntimeMetrics {
        self.rt.metrics()
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime").finish_non_exhaustive()
    }
}
