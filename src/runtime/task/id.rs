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
        // Each thread takes blocks of ids from one process-wide counter, so
        // a spawn costs no shared atomic operation. The counter is outside
        // every protocol that loom models, hence a plain std atomic even
        // under loom; `Relaxed` because only uniqueness matters, which any
        // read-modify-write gives.
        const BLOCK: u64 = 1024;
        static NEXT_BLOCK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        thread_local! {
            static RANGE: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
        }
        let take_block = || {
            let start = NEXT_BLOCK.fetch_add(BLOCK, std::sync::atomic::Ordering::Relaxed);
            (start, start + BLOCK)
        };
        let id = RANGE
            .try_with(|range| {
                let (mut next, mut end) = range.get();
                if next == end {
                    (next, end) = take_block();
                }
                range.set((next + 1, end));
                next
            })
            // During thread exit: one id straight from a fresh block.
            .unwrap_or_else(|_| take_block().0);
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
