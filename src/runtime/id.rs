//! `runtime::Id`: which runtime a handle belongs to.

/// An opaque id that uniquely identifies a runtime among all runtimes of
/// the process.
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq, Ord, PartialOrd)]
pub struct Id(std::num::NonZeroU64);

impl Id {
    pub(crate) fn next() -> Id {
        // Only uniqueness matters, which any read-modify-write gives.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Id(std::num::NonZeroU64::new(id).expect("runtime id counter overflowed"))
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
