//! Type-erased task pointers and the references built on them.
//!
//! `RawTask` is a copyable pointer with no ownership. `Task` owns one
//! reference and drops it; `Notified` is a `Task` that also stands for the
//! task's `NOTIFIED` bit, the only thing a run queue holds and the only way
//! to poll a task.
use super::core::{Cell, Header};
use super::harness::Harness;
use super::spawn_meta::SpawnMeta;
use super::{Id, Schedule};
use std::future::Future;
use std::ptr::NonNull;
use std::task::Waker;

/// Functions monomorphised for one `(future, scheduler)` pair.
pub(crate) struct Vtable {
    /// Runs the task; consumes a `Notified` reference.
    pub(crate) poll: unsafe fn(NonNull<Header>),
    /// Hands a `Notified` (its reference already counted) to the scheduler.
    pub(crate) schedule: unsafe fn(NonNull<Header>),
    /// Frees the cell.
    pub(crate) dealloc: unsafe fn(NonNull<Header>),
    /// Reads the output into `*mut Poll<Result<T, JoinError>>` if complete,
    /// else registers the waker.
    pub(crate) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    /// Drops the `JoinHandle`'s interest and reference.
    pub(crate) drop_join_handle_slow: unsafe fn(NonNull<Header>),
    /// Cancels the task if idle; consumes one reference.
    pub(crate) shutdown: unsafe fn(NonNull<Header>),
}

pub(crate) fn vtable<T: Future, S: Schedule>() -> &'static Vtable {
    &Vtable {
        poll: poll::<T, S>,
        schedule: schedule::<T, S>,
        dealloc: dealloc::<T, S>,
        try_read_output: try_read_output::<T, S>,
        drop_join_handle_slow: drop_join_handle_slow::<T, S>,
        shutdown: shutdown::<T, S>,
    }
}

unsafe fn poll<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable is only reachable from a cell of this type.
    unsafe { Harness::<T, S>::from_raw(ptr) }.poll();
}

unsafe fn schedule<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: as above; the caller passes a counted `Notified` reference.
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    // SAFETY: the caller transfers a `Notified` reference.
    let notified = unsafe { Notified::from_raw(RawTask { ptr }) };
    harness.scheduler().schedule(notified);
}

unsafe fn dealloc<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the cell was allocated by `Box` in `RawTask::new` with this
    // type, and the caller saw the last reference go.
    drop(unsafe { Box::from_raw(ptr.as_ptr().cast::<Cell<T, S>>()) });
}

unsafe fn try_read_output<T: Future, S: Schedule>(
    ptr: NonNull<Header>,
    dst: *mut (),
    waker: &Waker,
) {
    // SAFETY: the caller passes a `*mut Poll<Result<T::Output, JoinError>>`.
    unsafe { Harness::<T, S>::from_raw(ptr).try_read_output(dst.cast(), waker) }
}

unsafe fn drop_join_handle_slow<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable is only reachable from a cell of this type.
    unsafe { Harness::<T, S>::from_raw(ptr) }.drop_join_handle_slow();
}

unsafe fn shutdown<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable is only reachable from a cell of this type.
    unsafe { Harness::<T, S>::from_raw(ptr) }.shutdown();
}

/// A pointer to a task; owns nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawTask {
    ptr: NonNull<Header>,
}

// SAFETY: a `RawTask` is only dereferenced under the state word's protocol,
// which serialises access to the non-`Sync` parts of the cell.
unsafe impl Send for RawTask {}
// SAFETY: as above.
unsafe impl Sync for RawTask {}

impl RawTask {
    pub(crate) fn new<T: Future, S: Schedule>(
        future: T,
        scheduler: S,
        meta: &SpawnMeta<'_>,
    ) -> RawTask {
        // With tokio-console's instrumentation, the future is wrapped in
        // its span first (which changes the cell's type).
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        return super::trace::new_task(future, scheduler, meta);
        #[cfg(not(all(tokio_unstable, feature = "tracing")))]
        RawTask::from_cell(Cell::new(future, scheduler, meta))
    }

    /// Shares a newly allocated cell (no reference is taken or given).
    pub(crate) fn from_cell<T: Future, S: Schedule>(cell: Box<Cell<T, S>>) -> RawTask {
        let cell = Box::into_raw(cell);
        // SAFETY: `Box::into_raw` never returns null; `Cell` is `repr(C)`
        // with the header first, so the cell pointer is the header pointer.
        let ptr = unsafe { NonNull::new_unchecked(cell.cast::<Header>()) };
        RawTask { ptr }
    }

    pub(crate) fn from_header(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(crate) fn header_ptr(self) -> NonNull<Header> {
        self.ptr
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: every `RawTask` in use is backed by a reference that keeps
        // the cell alive.
        unsafe { self.ptr.as_ref() }
    }

    pub(crate) fn id(&self) -> Id {
        self.header().id
    }

    fn vtable(&self) -> &'static Vtable {
        self.header().vtable
    }

    /// # Safety
    ///
    /// Consumes a `Notified` reference.
    pub(crate) unsafe fn poll(self) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().poll)(self.ptr) }
    }

    /// # Safety
    ///
    /// Consumes a counted reference that stands for `NOTIFIED`.
    pub(crate) unsafe fn schedule(self) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().schedule)(self.ptr) }
    }

    /// # Safety
    ///
    /// The reference count reached zero.
    pub(crate) unsafe fn dealloc(self) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().dealloc)(self.ptr) }
    }

    /// # Safety
    ///
    /// `dst` is a `*mut Poll<Result<T, JoinError>>` for the task's output
    /// type, and the caller is the task's `JoinHandle`.
    pub(crate) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().try_read_output)(self.ptr, dst, waker) }
    }

    /// # Safety
    ///
    /// Consumes the `JoinHandle`'s reference.
    pub(crate) unsafe fn drop_join_handle_slow(self) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().drop_join_handle_slow)(self.ptr) }
    }

    /// # Safety
    ///
    /// Consumes one reference.
    pub(crate) unsafe fn shutdown(self) {
        // SAFETY: forwarded contract.
        unsafe { (self.vtable().shutdown)(self.ptr) }
    }

    /// Drops one reference, freeing the task if it was the last.
    ///
    /// # Safety
    ///
    /// The caller owns the reference it drops.
    pub(crate) unsafe fn drop_reference(self) {
        if self.header().state.ref_dec() {
            // SAFETY: that was the last reference.
            unsafe { self.dealloc() }
        }
    }

    /// `abort()` from a `JoinHandle` or `AbortHandle`.
    pub(crate) fn remote_abort(self) {
        if self.header().state.transition_to_notified_and_cancel() {
            // SAFETY: the transition counted a reference for the `Notified`.
            unsafe { self.schedule() }
        }
    }
}

/// One owned reference to a task.
pub(crate) struct Task {
    raw: RawTask,
}

impl Task {
    /// # Safety
    ///
    /// The caller transfers one reference.
    pub(crate) unsafe fn from_raw(raw: RawTask) -> Task {
        Task { raw }
    }

    pub(crate) fn raw(&self) -> RawTask {
        self.raw
    }

    pub(crate) fn into_raw(self) -> RawTask {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    pub(crate) fn id(&self) -> Id {
        self.raw.id()
    }

    /// Cancels the task if it is idle; consumes this reference.
    pub(crate) fn shutdown(self) {
        // SAFETY: we own the reference we pass on.
        unsafe { self.into_raw().shutdown() }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        // SAFETY: a `Task` owns one reference.
        unsafe { self.raw.drop_reference() }
    }
}

/// A task that is scheduled: the one reference a run queue holds for it.
pub(crate) struct Notified(Task);

impl Notified {
    /// # Safety
    ///
    /// The caller transfers a reference that stands for `NOTIFIED`.
    pub(crate) unsafe fn from_raw(raw: RawTask) -> Notified {
        // SAFETY: forwarded contract.
        Notified(unsafe { Task::from_raw(raw) })
    }

    pub(crate) fn id(&self) -> Id {
        self.0.id()
    }

    /// The hooks' view of the task (id and spawn location).
    #[cfg(tokio_unstable)]
    pub(crate) fn task_meta(&self) -> crate::runtime::TaskMeta<'static> {
        self.0.raw.header().task_meta()
    }

    /// Stamps the task as scheduled at `now` (the schedule-latency clock);
    /// before it is queued.
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    pub(crate) fn set_scheduled_at(&self, now: u64) {
        // `Relaxed`: see `Header::scheduled_at`.
        self.0
            .raw
            .header()
            .scheduled_at
            .store(now, crate::loom::sync::atomic::Ordering::Relaxed);
    }

    /// When the task was last scheduled (0: never stamped).
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    pub(crate) fn scheduled_at(&self) -> u64 {
        // `Relaxed`: see `Header::scheduled_at`.
        self.0
            .raw
            .header()
            .scheduled_at
            .load(crate::loom::sync::atomic::Ordering::Relaxed)
    }

    /// Polls the task (or cancels it, or drops a stale notification).
    pub(crate) fn run(self) {
        // SAFETY: a `Notified` owns the notification reference `poll` consumes.
        unsafe { self.0.into_raw().poll() }
    }

    /// Cancels the task if it is idle; consumes this reference.
    pub(crate) fn shutdown(self) {
        self.0.shutdown()
    }
}

impl std::fmt::Debug for Notified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Notified").field(&self.id()).finish()
    }
}
