//! `Semaphore`: the public counting semaphore, with borrowed and owned
//! permits that release on drop. The queueing is
//! [`FairSemaphore`](super::fair_semaphore::FairSemaphore)'s.
use super::blocking;
use super::fair_semaphore::{self, FairSemaphore};
use super::{AcquireError, TryAcquireError};
use std::sync::Arc;

/// A counting semaphore performing asynchronous permit acquisition.
///
/// Acquirers are served in the order they asked (the queue is fair), and
/// one asking for many permits is never overtaken by later ones asking for
/// fewer. Dropping an acquire future gives back any permits already
/// assigned to it.
pub struct Semaphore {
    /// tokio-console's resource (`util/trace.rs`); first, so it closes
    /// before the inner semaphore's, as tokio's.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
    ll_sem: FairSemaphore,
}

// By hand: the same output with or without tokio-console's span.
impl std::fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semaphore")
            .field("ll_sem", &self.ll_sem)
            .finish()
    }
}

/// A permit from the semaphore, released when dropped.
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
}

/// An owned permit from the semaphore, released when dropped.
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
}

impl Semaphore {
    /// The most permits a semaphore can hold (`usize::MAX >> 3`).
    pub const MAX_PERMITS: usize = fair_semaphore::MAX_PERMITS;

    /// Creates a semaphore with `permits` permits.
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`].
    #[track_caller]
    pub fn new(permits: usize) -> Semaphore {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        {
            let resource_span = crate::util::trace::sync_resource_span!(
                "tokio::sync::semaphore",
                "Semaphore",
                std::panic::Location::caller()
            );
            let ll_sem = resource_span.in_scope(|| FairSemaphore::new_traced(permits));
            Semaphore {
                resource_span,
                ll_sem,
            }
        }
        #[cfg(not(all(tokio_unstable, feature = "tracing")))]
        Semaphore {
            ll_sem: FairSemaphore::new(permits),
        }
    }

    /// Creates a semaphore with `permits` permits, in a `const` context
    /// (a `static`).
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`].
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new(permits: usize) -> Semaphore {
        Semaphore {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
            ll_sem: FairSemaphore::new(permits),
        }
    }

    /// Permits free right now.
    pub fn available_permits(&self) -> usize {
        self.ll_sem.available_permits()
    }

    /// Adds `n` permits, serving waiters first.
    ///
    /// # Panics
    ///
    /// If the total would exceed [`Semaphore::MAX_PERMITS`].
    pub fn add_permits(&self, n: usize) {
        self.ll_sem.release(n);
    }

    /// Removes up to `n` free permits for good and returns how many were
    /// removed (permits held by others are not touched).
    pub fn forget_permits(&self, n: usize) -> usize {
        self.ll_sem.forget_permits(n)
    }

    /// Waits for one permit. Fails only if the semaphore is closed.
    ///
    /// Cancel safe: dropping the future loses the place in the queue, and
    /// nothing else.
    pub async fn acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        let acquire = self.ll_sem.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Semaphore::acquire",
            "poll",
            true,
        );
        acquire.await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Waits for `n` permits, all at once. Fails only if the semaphore is
    /// closed.
    pub async fn acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        let acquire = self.ll_sem.acquire(n as usize);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Semaphore::acquire_many",
            "poll",
            true,
        );
        acquire.await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Takes one permit if one is free.
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if that many are free.
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.ll_sem.try_acquire(n as usize)?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Blocks the thread until one permit is held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        blocking::block_on(self.acquire())
    }

    /// Blocks the thread until `n` permits are held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        blocking::block_on(self.acquire_many(n))
    }

    /// Waits for one permit, owned (`'static`).
    pub async fn acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        let acquire = self.ll_sem.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Semaphore::acquire_owned",
            "poll",
            true,
        );
        acquire.await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Waits for `n` permits, owned.
    pub async fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        let acquire = self.ll_sem.acquire(n as usize);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Semaphore::acquire_many_owned",
            "poll",
            true,
        );
        acquire.await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Takes one owned permit if one is free.
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// Takes `n` owned permits if that many are free.
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.ll_sem.try_acquire(n as usize)?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Blocks the thread until one owned permit is held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        blocking::block_on(self.acquire_owned())
    }

    /// Blocks the thread until `n` owned permits are held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        blocking::block_on(self.acquire_many_owned(n))
    }

    /// Closes the semaphore: waiting and later acquires fail; permits
    /// already held stay valid and still return on drop.
    pub fn close(&self) {
        self.ll_sem.close();
    }

    /// Whether [`close`](Semaphore::close) was called.
    pub fn is_closed(&self) -> bool {
        self.ll_sem.is_closed()
    }
}

impl<'a> SemaphorePermit<'a> {
    /// Forgets the permit without releasing it: the semaphore has that many
    /// fewer permits from now on.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Takes over `other`'s permits; both are released when `self` drops.
    ///
    /// # Panics
    ///
    /// If the permits come from different semaphores, or the count
    /// overflows.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            std::ptr::eq(self.sem, other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits = self
            .permits
            .checked_add(other.permits)
            .expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` permits off into a new permit; `None` if fewer are held.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(SemaphorePermit {
            sem: self.sem,
            permits: n,
        })
    }

    /// The semaphore the permit came from.
    pub fn semaphore(&self) -> &Semaphore {
        self.sem
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl OwnedSemaphorePermit {
    /// Forgets the permit without releasing it.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Takes over `other`'s permits; both are released when `self` drops.
    ///
    /// # Panics
    ///
    /// If the permits come from different semaphores, or the count
    /// overflows.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            Arc::ptr_eq(&self.sem, &other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits = self
            .permits
            .checked_add(other.permits)
            .expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` permits off into a new permit; `None` if fewer are held.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(OwnedSemaphorePermit {
            sem: self.sem.clone(),
            permits: n,
        })
    }

    /// The semaphore the permit came from.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.add_permits(self.permits);
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        self.sem.add_permits(self.permits);
    }
}
