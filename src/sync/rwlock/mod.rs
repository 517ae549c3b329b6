//! `RwLock`: an asynchronous reader-writer lock over a [`FairSemaphore`]
//! of `max_readers` permits.
//!
//! A reader takes one permit, a writer all of them. Because the
//! semaphore's queue is first-in, first-out and a waiter can be assigned
//! permits a few at a time, a queued writer collects permits as readers
//! leave and no reader that arrives after it can get in first: the lock is
//! fair and write-preferring (no writer starvation), as tokio's.
//!
//! The guards live in `read_guard` (borrowed and owned read guards),
//! `write_guard` (borrowed write and mapped write guards) and
//! `owned_write_guard`.
use super::blocking;
use super::fair_semaphore::FairSemaphore;
use super::TryLockError;
use crate::loom::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

pub(super) mod owned_write_guard;
pub(super) mod read_guard;
pub(super) mod write_guard;

pub use owned_write_guard::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard};
pub use read_guard::{OwnedRwLockReadGuard, RwLockReadGuard};
pub use write_guard::{RwLockMappedWriteGuard, RwLockWriteGuard};

/// The most concurrent readers a lock may allow (tokio's figure).
const MAX_READS: u32 = u32::MAX >> 3;

/// An asynchronous reader-writer lock: many readers or one writer at a
/// time, served in the order they asked.
pub struct RwLock<T: ?Sized> {
    /// tokio-console's resource (`util/trace.rs`); first, so it closes
    /// before the semaphore's, as tokio's.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
    /// Maximum number of concurrent readers: the permits a writer takes.
    mr: u32,
    s: FairSemaphore,
    c: UnsafeCell<T>,
}

// SAFETY: the lock hands out `&mut T` (so `T: Send`) and shares `&T`
// between readers on several threads (so `T: Sync`), as std's `RwLock`.
unsafe impl<T> Send for RwLock<T> where T: ?Sized + Send {}
// SAFETY: as above.
unsafe impl<T> Sync for RwLock<T> where T: ?Sized + Send + Sync {}

/// The resource span of a lock of `max_reads` readers and its semaphore,
/// as tokio-console sees them (`util/trace.rs`).
#[cfg(all(tokio_unstable, feature = "tracing"))]
#[track_caller]
fn traced(max_reads: u32) -> (tracing::Span, FairSemaphore) {
    let resource_span = crate::util::trace::sync_resource_span!(
        "tokio::sync::rwlock",
        "RwLock",
        std::panic::Location::caller()
    );
    resource_span.in_scope(|| {
        tracing::trace!(target: "runtime::resource::state_update", max_readers = max_reads);
        tracing::trace!(target: "runtime::resource::state_update", write_locked = false);
        tracing::trace!(target: "runtime::resource::state_update", current_readers = 0);
    });
    let s = resource_span.in_scope(|| FairSemaphore::new_traced(max_reads as usize));
    (resource_span, s)
}

/// The semaphore of a lock is never closed.
fn never_closed() -> ! {
    unreachable!("an RwLock's semaphore is never closed")
}

impl<T: ?Sized> RwLock<T> {
    /// Creates an unlocked lock around `value`, allowing up to
    /// `u32::MAX >> 3` concurrent readers.
    #[track_caller]
    pub fn new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let (resource_span, s) = traced(MAX_READS);
        #[cfg(not(all(tokio_unstable, feature = "tracing")))]
        let s = FairSemaphore::new(MAX_READS as usize);
        RwLock {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span,
            mr: MAX_READS,
            s,
            c: UnsafeCell::new(value),
        }
    }

    /// Creates an unlocked lock allowing at most `max_reads` concurrent
    /// readers.
    ///
    /// # Panics
    ///
    /// If `max_reads` is 0 or more than `u32::MAX >> 3`.
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert_ne!(max_reads, 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers"
        );
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let (resource_span, s) = traced(max_reads);
        #[cfg(not(all(tokio_unstable, feature = "tracing")))]
        let s = FairSemaphore::new(max_reads as usize);
        RwLock {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span,
            mr: max_reads,
            s,
            c: UnsafeCell::new(value),
        }
    }

    /// Creates an unlocked lock in a `const` context (a `static`).
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        RwLock {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
            mr: MAX_READS,
            s: FairSemaphore::new(MAX_READS as usize),
            c: UnsafeCell::new(value),
        }
    }

    /// Creates an unlocked lock with at most `max_reads` readers in a
    /// `const` context.
    ///
    /// # Panics
    ///
    /// If `max_reads` is 0 or more than `u32::MAX >> 3`.
    #[cfg(not(tokiwa_loom))]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert!(max_reads != 0, "a RwLock may not be created with 0 readers");
        assert!(max_reads <= MAX_READS);
        RwLock {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
            mr: max_reads,
            s: FairSemaphore::new(max_reads as usize),
            c: UnsafeCell::new(value),
        }
    }

    fn data(&self) -> *mut T {
        self.c.with_mut(|data| data)
    }

    fn read_guard(&self) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard {
            s: &self.s,
            data: self.data(),
            marker: PhantomData,
        }
    }

    fn write_guard(&self) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            permits_acquired: self.mr,
            s: &self.s,
            data: self.data(),
            marker: PhantomData,
        }
    }

    /// Waits for shared read access. Cancel safe.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        let acquire = self.s.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "RwLock::read",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        self.read_guard()
    }

    /// Blocks the thread until read access is held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        blocking::block_on(self.read())
    }

    /// Waits for shared read access, returning a guard that owns an `Arc`
    /// of the lock.
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        let acquire = self.s.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "RwLock::read_owned",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        let data = self.data() as *const T;
        OwnedRwLockReadGuard {
            lock: self,
            data,
            _p: PhantomData,
        }
    }

    /// Takes read access if no writer holds or waits for the lock.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => Ok(self.read_guard()),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Like [`try_read`](RwLock::try_read), returning an owned guard.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {
                let data = self.data() as *const T;
                Ok(OwnedRwLockReadGuard {
                    lock: self,
                    data,
                    _p: PhantomData,
                })
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Waits for exclusive write access. Cancel safe.
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        let acquire = self.s.acquire(self.mr as usize);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "RwLock::write",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        self.write_guard()
    }

    /// Blocks the thread until write access is held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        blocking::block_on(self.write())
    }

    /// Waits for exclusive write access, returning a guard that owns an
    /// `Arc` of the lock.
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        let acquire = self.s.acquire(self.mr as usize);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "RwLock::write_owned",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        let data = self.data();
        OwnedRwLockWriteGuard {
            permits_acquired: self.mr,
            lock: self,
            data,
            _p: PhantomData,
        }
    }

    /// Takes write access if the lock is free.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(self.mr as usize) {
            Ok(()) => Ok(self.write_guard()),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Like [`try_write`](RwLock::try_write), returning an owned guard.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        match self.s.try_acquire(self.mr as usize) {
            Ok(()) => {
                let data = self.data();
                Ok(OwnedRwLockWriteGuard {
                    permits_acquired: self.mr,
                    lock: self,
                    data,
                    _p: PhantomData,
                })
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The data, through exclusive access to the lock (no locking).
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` excludes every guard.
        self.c.with_mut(|data| unsafe { &mut *data })
    }

    /// Consumes the lock, returning the data.
    pub fn into_inner(self) -> T
    where
        T: Sized,
    {
        self.c.into_inner()
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T> Default for RwLock<T>
where
    T: Default,
{
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized> fmt::Debug for RwLock<T>
where
    T: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Debug and Display of a guard are its target's.
macro_rules! forward_fmt {
    ($(impl[$($g:tt)*] $ty:ty => $target:ident;)*) => {$(
        impl<$($g)*> std::fmt::Debug for $ty where $target: std::fmt::Debug {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&**self, f)
            }
        }
        impl<$($g)*> std::fmt::Display for $ty where $target: std::fmt::Display {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}
use forward_fmt;
