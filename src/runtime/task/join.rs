//! `JoinHandle` and `AbortHandle`.
use super::raw::RawTask;
use super::{Id, JoinError};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// An owned permission to join on a task (await its termination).
///
/// Dropping a `JoinHandle` detaches the task: it keeps running, and its
/// output is dropped when it completes.
pub struct JoinHandle<T> {
    raw: RawTask,
    _output: PhantomData<T>,
}

// SAFETY: the handle only moves the output out (on the thread that polls
// it), so it is `Send` when the output is.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` only allows `abort`, `is_finished` and `id`, which
// touch the state word alone.
unsafe impl<T: Send> Sync for JoinHandle<T> {}
impl<T> UnwindSafe for JoinHandle<T> {}
impl<T> RefUnwindSafe for JoinHandle<T> {}
impl<T> Unpin for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// # Safety
    ///
    /// `raw` is a task whose output type is `T`; the caller transfers the
    /// `JoinHandle`'s reference.
    pub(crate) unsafe fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle {
            raw,
            _output: PhantomData,
        }
    }

    /// Aborts the task. If it is running, it is cancelled the next time it
    /// yields; awaiting the handle then returns a cancelled [`JoinError`]
    /// (unless the task completed first).
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// Whether the task has finished (completed, panicked or cancelled).
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// Returns an [`AbortHandle`] that can abort the task without owning its
    /// output.
    pub fn abort_handle(&self) -> AbortHandle {
        self.raw.header().state.ref_inc();
        AbortHandle { raw: self.raw }
    }

    /// Returns the task's [`Id`].
    pub fn id(&self) -> Id {
        self.raw.id()
    }

    /// The task's name (`task::Builder::name`), for the tests.
    #[cfg(all(test, tokio_unstable, feature = "tracing"))]
    pub(crate) fn name(&self) -> Option<String> {
        self.raw.header().name().map(str::to_owned)
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = std::task::ready!(crate::runtime::coop::poll_proceed(cx));
        let mut ret = Poll::Pending;
        // SAFETY: `ret` has the type the task's vtable writes, and we are the
        // task's `JoinHandle`.
        unsafe {
            self.raw.try_read_output(
                &mut ret as *mut Poll<Result<T, JoinError>> as *mut (),
                cx.waker(),
            )
        };
        if ret.is_ready() {
            coop.made_progress();
        }
        ret
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        if self.raw.header().state.drop_join_handle_fast().is_ok() {
            return;
        }
        // SAFETY: we give up the handle's reference.
        unsafe { self.raw.drop_join_handle_slow() }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id())
            .finish()
    }
}

/// An owned permission to abort a spawned task, without awaiting its
/// completion.
pub struct AbortHandle {
    raw: RawTask,
}

impl UnwindSafe for AbortHandle {}
impl RefUnwindSafe for AbortHandle {}

impl AbortHandle {
    /// Aborts the task (see [`JoinHandle::abort`]).
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// Whether the task has finished.
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// Returns the task's [`Id`].
    pub fn id(&self) -> Id {
        self.raw.id()
    }
}

impl Clone for AbortHandle {
    fn clone(&self) -> AbortHandle {
        self.raw.header().state.ref_inc();
        AbortHandle { raw: self.raw }
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        // SAFETY: the handle owns one reference.
        unsafe { self.raw.drop_reference() }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .finish()
    }
}
