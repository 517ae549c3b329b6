//! What a current-thread runtime lends the driver's park sequence
//! (`runtime/driver/park.rs`). The core stays in the thread's context the
//! whole time, so lending it is a no-op; the re-check covers the local
//! queues and the `block_on` future; the sleep runs the `before_park` hook
//! and may spin briefly for a blocking task or ring operation in flight.
use super::{Context, Handle};
use crate::loom::sync::atomic::Ordering::{Relaxed, SeqCst};
use crate::runtime::driver::ParkSite;

/// One park of the runtime's thread.
pub(super) struct ThreadPark<'a> {
    pub(super) handle: &'a Handle,
    pub(super) cx: &'a Context,
    /// Whether the thread went through the sleep step (and ran the
    /// `before_park` hook), rather than finding work after the last reap.
    pub(super) slept: bool,
}

impl ThreadPark<'_> {
    /// Whether a task or the `block_on` future is ready to run.
    fn has_work(&self, include_remote: bool) -> bool {
        let slot = self.cx.core.borrow();
        let core = slot.as_ref().expect("core missing");
        !core.tasks.is_empty()
            || !core.yielded.is_empty()
            || (include_remote && self.handle.inject_len.load(Relaxed) != 0)
            || self.handle.block_on_waker.woken.load(SeqCst)
    }

    /// The part of [`ParkSite::sleep`] between the park's two counts.
    fn idle(&mut self, block: impl FnOnce()) {
        let handle = self.handle;
        if let Some(f) = &handle.config.before_park {
            f();
            // The hook may have spawned or woken a task: then there is
            // work, and the thread does not sleep (as in tokio).
            if self.has_work(true) {
                return;
            }
        }
        // A blocking task in flight (a file operation on the pool) or a
        // ring operation is likely to wake a task within microseconds:
        // wait for it spinning rather than asleep, as multi-thread workers
        // do.
        if (handle.blocking_spawner.has_tasks_in_flight() || handle.driver.has_ops_in_flight())
            && handle.spin_for_work(self.cx)
        {
            return;
        }
        block();
    }
}

impl ParkSite for ThreadPark<'_> {
    fn with_core(&mut self, f: impl FnOnce()) {
        f();
    }

    fn has_local_work(&mut self) -> bool {
        self.has_work(false)
    }

    fn sleep(&mut self, block: impl FnOnce()) {
        self.slept = true;
        let handle = self.handle;
        // A park in the metrics, as in tokio, from here until the thread
        // comes back, even when the hook or the spin below finds work
        // before it blocks.
        {
            let slot = self.cx.core.borrow();
            let core = slot.as_ref().expect("core missing");
            handle.metrics.poll_count.store(core.polls, Relaxed);
            handle.metrics.about_to_park(core.busy_since);
        }
        self.idle(block);
        let busy_since = handle.metrics.unparked();
        let mut slot = self.cx.core.borrow_mut();
        slot.as_mut().expect("core missing").busy_since = busy_since;
    }
}
