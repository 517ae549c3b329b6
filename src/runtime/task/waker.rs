//! The `Waker` of a task: a pointer to its header, one reference per clone.
use super::core::Header;
use super::raw::RawTask;
use super::state::TransitionToNotified;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

/// A waker borrowed from the running task's own reference: it takes no
/// reference of its own, so it must not outlive the poll (cloning it does
/// take one).
pub(crate) struct BorrowedWaker {
    waker: ManuallyDrop<Waker>,
}

impl Deref for BorrowedWaker {
    type Target = Waker;
    fn deref(&self) -> &Waker {
        &self.waker
    }
}

pub(crate) fn borrowed(header: NonNull<Header>) -> BorrowedWaker {
    // SAFETY: the vtable's functions uphold the `RawWaker` contract for a
    // header pointer; `ManuallyDrop` keeps this copy from dropping a
    // reference it does not own.
    let waker = unsafe { Waker::from_raw(raw_waker(header)) };
    BorrowedWaker {
        waker: ManuallyDrop::new(waker),
    }
}

fn raw_waker(header: NonNull<Header>) -> RawWaker {
    RawWaker::new(header.as_ptr() as *const (), &VTABLE)
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

fn task(ptr: *const ()) -> RawTask {
    // SAFETY: every waker built here holds a non-null header pointer.
    RawTask::from_header(unsafe { NonNull::new_unchecked(ptr as *mut Header) })
}

/// tokio-console's waker events (`trace.rs`); nothing without the cfg.
macro_rules! trace_op {
    ($raw:expr, $op:literal) => {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        super::trace::waker_op($raw.header(), $op);
    };
}

unsafe fn clone(ptr: *const ()) -> RawWaker {
    let raw = task(ptr);
    trace_op!(raw, "waker.clone");
    raw.header().state.ref_inc();
    raw_waker(raw.header_ptr())
}

unsafe fn wake(ptr: *const ()) {
    let raw = task(ptr);
    trace_op!(raw, "waker.wake");
    match raw.header().state.transition_to_notified_by_val() {
        // SAFETY: the waker's reference became the notification's.
        TransitionToNotified::Submit => unsafe { raw.schedule() },
        // SAFETY: the waker's reference was the last.
        TransitionToNotified::Dealloc => unsafe { raw.dealloc() },
        TransitionToNotified::DoNothing => {}
    }
}

unsafe fn wake_by_ref(ptr: *const ()) {
    let raw = task(ptr);
    trace_op!(raw, "waker.wake_by_ref");
    match raw.header().state.transition_to_notified_by_ref() {
        // SAFETY: the transition counted a reference for the notification.
        TransitionToNotified::Submit => unsafe { raw.schedule() },
        TransitionToNotified::Dealloc => unreachable!("wake_by_ref drops no reference"),
        TransitionToNotified::DoNothing => {}
    }
}

unsafe fn drop_waker(ptr: *const ()) {
    trace_op!(task(ptr), "waker.drop");
    // SAFETY: a waker owns one reference.
    unsafe { task(ptr).drop_reference() }
}
