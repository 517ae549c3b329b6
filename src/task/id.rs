//! Task identifiers.
use std::fmt;
use std::num::NonZeroU64;

/// An opaque ID that uniquely identifies a task relative to all other
/// currently running tasks.
///
/// IDs are unique among tasks alive at the same time; they come from one
/// process-wide counter.
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq, Ord, PartialOrd)]
pub struct Id(pub(crate) NonZeroU64);

impl Id {
    pub(crate) fn next() -> Id {
        // The counter is process-global state outside every protocol that
        // loom models, so it is a plain std atomic even under loom. Relaxed:
        // only uniqueness matters, which any read-modify-write gives.
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Id(NonZeroU64::new(id).expect("task id counter overflowed"))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Returns the [`Id`] of the currently running task.
///
/// # Panics
///
/// Panics if called from outside a task. Use [`try_id`] to test.
#[track_caller]
pub fn id() -> Id {
    try_id().expect("Can't get a task id when not inside a task")
}

/// Returns the [`Id`] of the currently running task, or `None` when called
/// outside a task.
pub fn try_id() -> Option<Id> {
    crate::runtime::context::current_task_id()
}
