//! The time driver's runtime-facing side (placeholder: timers land next).
use crate::runtime::park::Unparker;
use std::time::Duration;

/// One timing wheel per worker, shared by the runtime.
#[derive(Debug)]
pub(crate) struct TimeHandle {
    unparkers: Vec<Unparker>,
    start_paused: bool,
}

impl TimeHandle {
    /// Wheels for `unparkers.len()` workers; `unparkers[i]` wakes worker
    /// `i` when an earlier timer is inserted into its wheel while it sleeps.
    pub(crate) fn new(unparkers: Vec<Unparker>, start_paused: bool) -> TimeHandle {
        TimeHandle {
            unparkers,
            start_paused,
        }
    }

    /// The blocking step of worker `wheel`: calls `park` with the time
    /// until the wheel's next deadline (`None`: no timer). `park` returns
    /// whether an unpark token woke it.
    pub(crate) fn park(&self, wheel: usize, park: impl FnOnce(Option<Duration>) -> bool) {
        let _ = (wheel, &self.unparkers, self.start_paused);
        park(None);
    }

    /// Fires the expired timers of `wheel`; returns how many fired.
    pub(crate) fn process(&self, wheel: usize) -> usize {
        let _ = wheel;
        0
    }

    /// Runtime shutdown: fails every pending timer.
    pub(crate) fn shutdown(&self) {}
}
