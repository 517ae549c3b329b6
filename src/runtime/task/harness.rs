//! What happens to a task: poll, complete, cancel, join.
//!
//! Every function here first performs a transition of the state word and
//! then only does what the returned enum says, so the protocol lives in
//! `state.rs` and this file stays a dispatcher.
use super::core::{Cell, Core, Header, Stage, Trailer};
use super::error::JoinError;
use super::raw::{Notified, RawTask, Task};
use super::state::{Snapshot, TransitionToIdle, TransitionToRunning};
use super::{waker, Id, Schedule};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

pub(crate) struct Harness<T: Future, S: 'static> {
    cell: NonNull<Cell<T, S>>,
}

impl<T: Future, S: Schedule> Harness<T, S> {
    /// # Safety
    ///
    /// `ptr` points to the header of a live `Cell<T, S>`.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> Harness<T, S> {
        Harness { cell: ptr.cast() }
    }

    fn header_ptr(&self) -> NonNull<Header> {
        self.cell.cast()
    }

    fn header(&self) -> &Header {
        // SAFETY: the cell is alive while a harness exists for it.
        unsafe { &self.cell.as_ref().header }
    }

    fn core(&self) -> &Core<T, S> {
        // SAFETY: as above.
        unsafe { &self.cell.as_ref().core }
    }

    fn trailer(&self) -> &Trailer {
        // SAFETY: as above.
        unsafe { &self.cell.as_ref().trailer }
    }

    fn id(&self) -> Id {
        self.header().id
    }

    fn raw(&self) -> RawTask {
        RawTask::from_header(self.header_ptr())
    }

    pub(crate) fn scheduler(&self) -> &S {
        &self.core().scheduler
    }

    fn dealloc(self) {
        // SAFETY: called when the reference count reached zero.
        unsafe { self.raw().dealloc() }
    }

    fn drop_reference(self) {
        // SAFETY: the caller hands over the reference it owns.
        unsafe { self.raw().drop_reference() }
    }

    /// Runs the task for a `Notified`, consuming its reference.
    pub(crate) fn poll(self) {
        match self.header().state.transition_to_running() {
            TransitionToRunning::Success => {
                let waker = waker::borrowed(self.header_ptr());
                let mut cx = Context::from_waker(&waker);
                if poll_future(self.core(), self.id(), &mut cx).is_ready() {
                    return self.complete();
                }
                match self.header().state.transition_to_idle() {
                    TransitionToIdle::Ok => {}
                    TransitionToIdle::OkNotified => {
                        // SAFETY: the running reference became the new
                        // notification's.
                        let notified = unsafe { Notified::from_raw(self.raw()) };
                        self.scheduler().yield_now(notified);
                    }
                    TransitionToIdle::OkDealloc => self.dealloc(),
                    TransitionToIdle::Cancelled => {
                        cancel_task(self.core(), self.id());
                        self.complete();
                    }
                }
            }
            TransitionToRunning::Cancelled => {
                cancel_task(self.core(), self.id());
                self.complete();
            }
            TransitionToRunning::Failed => {}
            TransitionToRunning::Dealloc => self.dealloc(),
        }
    }

    /// Cancels the task if it is idle (runtime shutdown, or a spawn on a
    /// closed runtime); consumes one reference.
    pub(crate) fn shutdown(self) {
        if !self.header().state.transition_to_shutdown() {
            // Running elsewhere (that thread will see `CANCELLED`) or done.
            return self.drop_reference();
        }
        cancel_task(self.core(), self.id());
        self.complete();
    }

    /// The stage holds the output: publish it, wake the joiner, and drop the
    /// running reference (plus the owned list's, when it released the task).
    fn complete(self) {
        let snapshot = self.header().state.transition_to_complete();
        // A panicking output destructor or join waker must not unwind into
        // the worker.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            if !snapshot.is_join_interested() {
                // Nobody will read the output: drop it here.
                // SAFETY: after `COMPLETE` without `JOIN_INTEREST` the stage
                // is the completing thread's.
                unsafe { self.core().set_stage(self.id(), Stage::Consumed) };
            } else if snapshot.is_join_waker_set() {
                // SAFETY: complete with `JOIN_WAKER` set: ours to read.
                unsafe { self.trailer().wake_join() };
                let after = self.header().state.unset_join_waker_after_complete();
                if !after.is_join_interested() {
                    // The handle was dropped meanwhile and left the waker to us.
                    // SAFETY: `JOIN_WAKER` cleared by us with no interest left.
                    unsafe { self.trailer().set_waker(None) };
                }
            }
        }));

        // After the task looks complete, even if a destructor above
        // panicked; a panicking hook is ignored (as in tokio).
        #[cfg(tokio_unstable)]
        if let Some(f) = self.scheduler().terminate_hook() {
            let meta = self.header().task_meta();
            let _ = panic::catch_unwind(AssertUnwindSafe(|| f(&meta)));
        }

        // SAFETY: borrowed view for `release`; `forget` below keeps the count.
        let me = unsafe { Task::from_raw(self.raw()) };
        let released = self.scheduler().release(&me);
        std::mem::forget(me);
        let count = if let Some(task) = released {
            std::mem::forget(task);
            2
        } else {
            1
        };
        if self.header().state.transition_to_terminal(count) {
            self.dealloc();
        }
    }

    /// # Safety
    ///
    /// `dst` points to a `Poll<Result<T::Output, JoinError>>`; the caller is
    /// the `JoinHandle`.
    pub(crate) unsafe fn try_read_output(
        self,
        dst: *mut Poll<Result<T::Output, JoinError>>,
        waker: &Waker,
    ) {
        if can_read_output(self.header(), self.trailer(), waker) {
            // SAFETY: `COMPLETE` observed with `JOIN_INTEREST`: the output is
            // the handle's; `dst` is valid per the contract.
            unsafe { *dst = Poll::Ready(self.core().take_output()) };
        }
    }

    pub(crate) fn drop_join_handle_slow(self) {
        let after = self.header().state.transition_to_join_handle_dropped();
        if after.is_complete() {
            // The output is ours and nobody will read it.
            let _ = panic::catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: complete and we held `JOIN_INTEREST`.
                unsafe { self.core().set_stage(self.id(), Stage::Consumed) };
            }));
        }
        if !after.is_join_waker_set() {
            // SAFETY: with `JOIN_WAKER` clear the field is the handle's.
            unsafe { self.trailer().set_waker(None) };
        }
        self.drop_reference();
    }
}

/// Decides whether the `JoinHandle` can take the output, registering
/// `waker` for the completion otherwise.
fn can_read_output(header: &Header, trailer: &Trailer, waker: &Waker) -> bool {
    let snapshot = header.state.load();
    debug_assert!(snapshot.is_join_interested());
    if snapshot.is_complete() {
        return true;
    }
    let res = if !snapshot.is_join_waker_set() {
        set_join_waker(header, trailer, waker.clone())
    } else {
        // SAFETY: `JOIN_WAKER` set: the field is stable and readable.
        if unsafe { trailer.will_wake(waker) } {
            return false;
        }
        header
            .state
            .unset_join_waker()
            .and_then(|_| set_join_waker(header, trailer, waker.clone()))
    };
    match res {
        Ok(_) => false,
        Err(snapshot) => {
            assert!(snapshot.is_complete());
            true
        }
    }
}

fn set_join_waker(header: &Header, trailer: &Trailer, waker: Waker) -> Result<Snapshot, Snapshot> {
    // SAFETY: `JOIN_WAKER` is clear, so the handle owns the field.
    unsafe { trailer.set_waker(Some(waker)) };
    let res = header.state.set_join_waker();
    if res.is_err() {
        // SAFETY: still clear (the transition failed): still ours.
        unsafe { trailer.set_waker(None) };
    }
    res
}

/// Drops the future and stores the cancellation as the output.
fn cancel_task<T: Future, S: Schedule>(core: &Core<T, S>, id: Id) {
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller holds `RUNNING`.
        unsafe { core.set_stage(id, Stage::Consumed) };
    }));
    let err = match res {
        Ok(()) => JoinError::cancelled(id),
        Err(payload) => panic_error(&core.scheduler, id, payload),
    };
    // SAFETY: the caller holds `RUNNING`.
    unsafe { core.set_stage(id, Stage::Finished(Err(err))) };
}

/// Polls the future, catching a panic; on completion stores the output.
///
/// A future that panics is dropped during the unwinding, before the panic
/// is caught (as in tokio): its destructor sees `std::thread::panicking()`,
/// which is how a guard inside it tells a panic from a normal drop.
fn poll_future<T: Future, S: Schedule>(
    core: &Core<T, S>,
    id: Id,
    cx: &mut Context<'_>,
) -> Poll<()> {
    /// Drops the future if the poll unwinds.
    struct DropOnUnwind<'a, T: Future, S> {
        core: &'a Core<T, S>,
        id: Id,
    }
    impl<T: Future, S> Drop for DropOnUnwind<'_, T, S> {
        fn drop(&mut self) {
            // SAFETY: only reached while the poll below unwinds, and the
            // caller of `poll_future` holds `RUNNING`, so the stage is ours.
            unsafe { self.core.set_stage(self.id, Stage::Consumed) };
        }
    }
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        let guard = DropOnUnwind { core, id };
        // SAFETY: the caller holds `RUNNING`, and the stage is `Running`
        // (it is only replaced on completion or cancellation, after which
        // the task is never polled again).
        let res = unsafe { core.poll(id, cx) };
        std::mem::forget(guard);
        res
    }));
    let output = match res {
        Ok(Poll::Pending) => return Poll::Pending,
        Ok(Poll::Ready(output)) => {
            // Drop the future before publishing the output; its destructor
            // may panic.
            let dropped = panic::catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: the caller holds `RUNNING`.
                unsafe { core.set_stage(id, Stage::Consumed) };
            }));
            match dropped {
                Ok(()) => Ok(output),
                Err(payload) => Err(panic_error(&core.scheduler, id, payload)),
            }
        }
        // The guard dropped the future while unwinding.
        Err(payload) => Err(panic_error(&core.scheduler, id, payload)),
    };
    // The output's own destructor cannot run here: the stage was `Consumed`.
    let _ = panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller holds `RUNNING`.
        unsafe { core.set_stage(id, Stage::Finished(output)) };
    }));
    Poll::Ready(())
}

/// The error of a task whose future panicked (in a poll or in its
/// destructor); with `tokio_unstable` the scheduler first applies its
/// `UnhandledPanic` setting (as tokio does for the same panics).
#[cold]
fn panic_error<S: Schedule>(
    scheduler: &S,
    id: Id,
    payload: Box<dyn std::any::Any + Send + 'static>,
) -> JoinError {
    #[cfg(tokio_unstable)]
    scheduler.unhandled_panic();
    let _ = scheduler;
    JoinError::panic(id, payload)
}
