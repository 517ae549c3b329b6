//! `Handle`: a cheap, clonable reference to a runtime.
use super::context::{self, TryCurrentError};
use super::{park, scheduler, RuntimeMetrics};
use crate::runtime::task::{JoinHandle, SpawnMeta};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

/// A handle to a runtime: spawn onto it, enter it, block on it, from any
/// thread.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: scheduler::Handle,
}

/// The kind of runtime a [`Handle`] refers to.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// The current-thread runtime.
    CurrentThread,
    /// The multi-thread runtime.
    MultiThread,
}

/// Keeps a runtime current on this thread until dropped
/// ([`Handle::enter`], [`Runtime::enter`](super::Runtime::enter)).
#[must_use = "Creating and dropping a guard does nothing"]
pub struct EnterGuard<'a> {
    _guard: context::SetCurrentGuard,
    _handle_lifetime: PhantomData<&'a Handle>,
}

impl Handle {
    /// Makes this runtime current on this thread until the guard drops.
    ///
    /// Guards must be dropped in the reverse order they were acquired.
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _guard: context::set_current(&self.inner),
            _handle_lifetime: PhantomData,
        }
    }

    /// The handle of the current runtime.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with "there is no reactor running, must be
    /// called from the context of a Tokio 1.x runtime".
    #[track_caller]
    pub fn current() -> Handle {
        Handle {
            inner: scheduler::Handle::current(),
        }
    }

    /// The handle of the current runtime, or an error outside one.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        context::with_current(|inner| Handle {
            inner: inner.clone(),
        })
    }

    /// Spawns a future onto the runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.spawn(future, SpawnMeta::new_unnamed())
    }

    /// Runs a blocking closure on the runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.spawn_blocking(func)
    }

    /// Runs a future to completion on this thread, with the runtime
    /// entered. It does not drive a current-thread runtime (only
    /// [`Runtime::block_on`](super::Runtime::block_on) does): tasks there
    /// make progress only while another thread drives it.
    ///
    /// # Panics
    ///
    /// Panics when called from inside a runtime.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // As in tokio, only `Runtime::block_on` drives a current-thread
        // runtime; a handle just waits for its future. So this thread
        // holds no tasks up by blocking, and `block_in_place` is allowed
        // here (it simply runs), whatever the flavour, as in tokio.
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let future = crate::runtime::task::trace::block_on(future);
        let _enter = context::enter_runtime(&self.inner, true);
        park::thread::block_on(future)
    }

    /// Which kind of runtime this is.
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        match self.inner {
            scheduler::Handle::CurrentThread(_) => RuntimeFlavor::CurrentThread,
            scheduler::Handle::MultiThread(_) => RuntimeFlavor::MultiThread,
        }
    }

    /// The runtime's unique id.
    pub fn id(&self) -> super::Id {
        self.inner.config().id
    }

    /// The runtime's name, if the builder gave it one.
    pub fn name(&self) -> Option<&str> {
        self.inner.config().name.as_deref()
    }

    /// The I/O driver actually running: [`Driver::Legacy`] or
    /// [`Driver::Uring`], never `Auto`.
    ///
    /// [`Driver::Legacy`]: super::Driver::Legacy
    /// [`Driver::Uring`]: super::Driver::Uring
    pub fn driver(&self) -> super::Driver {
        self.inner.driver().kind()
    }

    /// Why a runtime that could have run io_uring mode (`Driver::Auto`)
    /// runs legacy mode: the missing feature or kernel capability, with
    /// the kernel's errno. `None` when no fallback happened.
    pub fn driver_fallback_reason(&self) -> Option<&str> {
        self.inner.driver().fallback_reason()
    }

    /// The runtime's metrics.
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.inner.clone())
    }
}

// As tokio (see `Runtime`'s impls).
impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("flavor", &self.runtime_flavor())
            .finish()
    }
}

impl fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterGuard").finish()
    }
}
