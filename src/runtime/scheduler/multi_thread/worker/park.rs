//! What a multi-thread worker lends the driver's park sequence
//! (`runtime/driver/park.rs`): its core, its re-check, and the idle
//! protocol (`multi_thread/idle.rs`) around the driver's blocking step.
use super::{Context, Core};
use crate::runtime::driver::ParkSite;

/// One park of one worker.
pub(super) struct WorkerPark<'a> {
    pub(super) cx: &'a Context,
    /// The worker's core, lent to the driver between its steps.
    pub(super) core: Option<Box<Core>>,
    /// Whether the worker went through the idle protocol (and ran the
    /// `before_park` hook), rather than finding work after the last reap.
    pub(super) slept: bool,
}

impl WorkerPark<'_> {
    fn core(&mut self) -> &mut Core {
        self.core.as_mut().expect("core missing")
    }
}

impl ParkSite for WorkerPark<'_> {
    fn with_core(&mut self, f: impl FnOnce()) {
        let core = self.core.take().expect("core missing");
        self.core = Some(self.cx.with_core_in_context(core, f));
    }

    fn has_local_work(&mut self) -> bool {
        let handle = self.cx.handle.clone();
        let core = self.core();
        if core.lifo_slot.is_none() && core.run_queue.is_empty() {
            return false;
        }
        if core.is_searching {
            // Readiness of its own, as in `spin_for_completions`: hand the
            // search on only for work others made visible. Left a
            // searcher, it woke a parked worker each time it ran its own
            // readiness (running the task ends the search), and that
            // worker found nothing and parked again: two eventfd writes
            // and two parks per round trip of a one-connection echo
            // between two workers' rings.
            core.stop_searching_for_own_work(&handle);
        }
        true
    }

    fn sleep(&mut self, block: impl FnOnce()) {
        self.slept = true;
        let handle = &*self.cx.handle;
        let shared = &handle.shared;
        if let Some(f) = &handle.config.before_park {
            f();
        }
        let core = self.core.as_mut().expect("core missing");
        let index = core.index;
        let searching = core.is_searching;
        let has_work = || {
            core.lifo_slot.is_some()
                || !core.run_queue.is_empty()
                || shared.has_remote_work(index)
                || shared.inject.is_closed()
        };
        // A park in the metrics, as in tokio, from here until the worker
        // comes back, even when the idle protocol's re-check finds work
        // (or the shutdown) before it blocks. Published before sleeping,
        // so an idle worker's counts are visible while it sleeps.
        let metrics = &shared.worker_metrics[index];
        metrics.about_to_park(core.busy_since);
        let outcome = shared.idle.park_worker(index, searching, has_work, block);
        let core = self.core();
        core.is_searching = outcome.searching;
        core.busy_since = metrics.unparked();
    }
}
