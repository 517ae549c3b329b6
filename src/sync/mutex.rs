//! `Mutex`: an asynchronous mutual-exclusion lock, a [`FairSemaphore`] of
//! one permit around the data.
//!
//! Tasks get the lock in the order they asked for it. A guard holds the
//! permit and gives it back on drop; the mapped guards keep a pointer into
//! the data and the semaphore (or the `Arc` of the mutex) to release.
//!
//! Every `map`/`try_map` runs the caller's closure while the guard it was
//! given still owns the permit, and only then moves the permit into the
//! new guard: a closure that panics drops the guard during unwinding,
//! which unlocks the mutex (as tokio's).
use super::blocking;
use super::fair_semaphore::FairSemaphore;
use super::TryLockError;
use crate::loom::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// An asynchronous mutex: `lock` waits (yielding to the scheduler) instead
/// of blocking the thread, and the guard may be held across `.await`.
///
/// Fair: waiting tasks get the lock in the order they called `lock`.
pub struct Mutex<T: ?Sized> {
    /// tokio-console's resource (`util/trace.rs`); first, so it closes
    /// before the semaphore's, as tokio's.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
    s: FairSemaphore,
    c: UnsafeCell<T>,
}

/// A handle to a held `Mutex`; unlocks on drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
}

/// An owned handle to a held `Mutex` (keeps it alive through an `Arc`);
/// unlocks on drop.
#[clippy::has_significant_drop]
pub struct OwnedMutexGuard<T: ?Sized> {
    lock: Arc<Mutex<T>>,
}

/// A guard to a part of the data of a held `Mutex` (from
/// [`MutexGuard::map`]); unlocks on drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    s: &'a FairSemaphore,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// An owned guard to a part of the data of a held `Mutex` (from
/// [`OwnedMutexGuard::map`]); unlocks on drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    data: *mut U,
    lock: Arc<Mutex<T>>,
}

// SAFETY: the mutex hands out `&mut T` to one holder at a time, possibly on
// another thread: sharing or sending it requires exactly `T: Send` (as
// `std::sync::Mutex`).
unsafe impl<T> Send for Mutex<T> where T: ?Sized + Send {}
// SAFETY: as above.
unsafe impl<T> Sync for Mutex<T> where T: ?Sized + Send {}
// SAFETY: a shared guard gives `&T` to other threads, hence `T: Sync`.
unsafe impl<T> Sync for MutexGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as for `MutexGuard`.
unsafe impl<T> Sync for OwnedMutexGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: the mapped guard is a `&mut T` plus a reference to a `Sync`
// semaphore: `Sync`/`Send` exactly when `&mut T` is.
unsafe impl<'a, T> Sync for MappedMutexGuard<'a, T> where T: ?Sized + Sync + 'a {}
// SAFETY: as above.
unsafe impl<'a, T> Send for MappedMutexGuard<'a, T> where T: ?Sized + Send + 'a {}
// SAFETY: a `&mut U` into a mutex of `T` kept alive by an `Arc`.
unsafe impl<T, U> Sync for OwnedMappedMutexGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: as above; dropping the guard may drop the mutex (and `T`) on
// another thread, hence `T: Send`.
unsafe impl<T, U> Send for OwnedMappedMutexGuard<T, U>
where
    T: ?Sized + Send,
    U: ?Sized + Send,
{
}

/// The semaphore of a mutex is never closed.
fn never_closed() -> ! {
    unreachable!("a Mutex's semaphore is never closed")
}

impl<T: ?Sized> Mutex<T> {
    /// Creates an unlocked mutex around `t`.
    #[cfg_attr(all(tokio_unstable, feature = "tracing"), track_caller)]
    pub fn new(t: T) -> Self
    where
        T: Sized,
    {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        {
            let resource_span = crate::util::trace::sync_resource_span!(
                "tokio::sync::mutex",
                "Mutex",
                std::panic::Location::caller()
            );
            let s = resource_span.in_scope(|| {
                tracing::trace!(target: "runtime::resource::state_update", locked = false);
                FairSemaphore::new_traced(1)
            });
            Mutex {
                resource_span,
                s,
                c: UnsafeCell::new(t),
            }
        }
        #[cfg(not(all(tokio_unstable, feature = "tracing")))]
        Mutex {
            s: FairSemaphore::new(1),
            c: UnsafeCell::new(t),
        }
    }

    /// Creates an unlocked mutex in a `const` context (a `static`).
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new(t: T) -> Self
    where
        T: Sized,
    {
        Mutex {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
            s: FairSemaphore::new(1),
            c: UnsafeCell::new(t),
        }
    }

    /// Waits for the lock. Cancel safe: a dropped `lock()` future loses its
    /// place in the queue and nothing else.
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        let acquire = self.s.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Mutex::lock",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        MutexGuard { lock: self }
    }

    /// Blocks the thread until the lock is held.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        blocking::block_on(self.lock())
    }

    /// Blocks the thread until the lock is held, returning an owned guard.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        blocking::block_on(self.lock_owned())
    }

    /// Waits for the lock, returning a guard that owns an `Arc` of the
    /// mutex (`'static` when `T` is).
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        let acquire = self.s.acquire(1);
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let acquire = crate::util::trace::async_op(
            acquire,
            &self.resource_span,
            "Mutex::lock_owned",
            "poll",
            false,
        );
        if acquire.await.is_err() {
            never_closed();
        }
        OwnedMutexGuard { lock: self }
    }

    /// Takes the lock if it is free.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => Ok(MutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The data, through exclusive access to the mutex (no locking).
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` excludes every guard (they borrow the mutex or
        // hold an `Arc`, which `&mut` rules out).
        self.c.with_mut(|data| unsafe { &mut *data })
    }

    /// Takes the lock if it is free, returning an owned guard.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => Ok(OwnedMutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Consumes the mutex, returning the data.
    pub fn into_inner(self) -> T
    where
        T: Sized,
    {
        self.c.into_inner()
    }

    fn data(&self) -> *mut T {
        self.c.with_mut(|data| data)
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T> Default for Mutex<T>
where
    T: Default,
{
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized> fmt::Debug for Mutex<T>
where
    T: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Makes a guard for a part of the locked data; the lock stays held.
    #[inline]
    pub fn map<U, F>(this: Self, f: F) -> MappedMutexGuard<'a, U>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> &mut U,
    {
        // SAFETY: the guard holds the lock, so the data is exclusively
        // ours; the `&mut T` ends before the guard is used again. The
        // closure runs while `this` still owns the permit (see the module
        // docs).
        let data = f(unsafe { &mut *this.lock.data() }) as *mut U;
        // The permit moves into the mapped guard: `this` is not dropped.
        let this = ManuallyDrop::new(this);
        MappedMutexGuard {
            s: &this.lock.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<U, F>(this: Self, f: F) -> Result<MappedMutexGuard<'a, U>, Self>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        // SAFETY: the guard holds the lock; the `&mut T` ends before the
        // guard is used again.
        let data = match f(unsafe { &mut *this.lock.data() }) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(MappedMutexGuard {
            s: &this.lock.s,
            data,
            marker: PhantomData,
        })
    }

    /// The mutex this guard locks.
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.lock
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// Makes an owned guard for a part of the locked data.
    #[inline]
    pub fn map<U, F>(this: Self, f: F) -> OwnedMappedMutexGuard<T, U>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> &mut U,
    {
        // SAFETY: the guard holds the lock; the `&mut T` ends before the
        // guard is used again. The closure runs while `this` still owns
        // the permit (see the module docs).
        let data = f(unsafe { &mut *this.lock.data() }) as *mut U;
        // The permit moves into the mapped guard: `this` is not dropped.
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again, so the `Arc` is
        // moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedMappedMutexGuard { data, lock }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<U, F>(this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, U>, Self>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        // SAFETY: the guard holds the lock.
        let data = match f(unsafe { &mut *this.lock.data() }) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        // SAFETY: as in `map`.
        let lock = unsafe { std::ptr::read(&this.lock) };
        Ok(OwnedMappedMutexGuard { data, lock })
    }

    /// The mutex this guard locks.
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data() }
    }
}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// Maps again, to a part of this part.
    #[inline]
    pub fn map<U, F>(this: Self, f: F) -> MappedMutexGuard<'a, U>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> &mut U,
    {
        // SAFETY: the guard holds the lock and `data` points into the data;
        // the `&mut T` ends before the guard is used again. The closure
        // runs while `this` still owns the permit (see the module docs).
        let data = f(unsafe { &mut *this.data }) as *mut U;
        // The permit moves into the new guard: `this` is not dropped.
        let this = ManuallyDrop::new(this);
        MappedMutexGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<U, F>(this: Self, f: F) -> Result<MappedMutexGuard<'a, U>, Self>
    where
        U: ?Sized,
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        // SAFETY: the guard holds the lock.
        let data = match f(unsafe { &mut *this.data }) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(MappedMutexGuard {
            s: this.s,
            data,
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> Drop for MappedMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T: ?Sized> Deref for MappedMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock and `data` points into the data.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// Maps again, to a part of this part.
    #[inline]
    pub fn map<S, F>(this: Self, f: F) -> OwnedMappedMutexGuard<T, S>
    where
        S: ?Sized,
        F: FnOnce(&mut U) -> &mut S,
    {
        // SAFETY: the guard holds the lock and `data` points into the data;
        // the `&mut U` ends before the guard is used again. The closure
        // runs while `this` still owns the permit (see the module docs).
        let data = f(unsafe { &mut *this.data }) as *mut S;
        // The permit moves into the new guard: `this` is not dropped.
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedMappedMutexGuard { data, lock }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<S, F>(this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, S>, Self>
    where
        S: ?Sized,
        F: FnOnce(&mut U) -> Option<&mut S>,
    {
        // SAFETY: the guard holds the lock.
        let data = match f(unsafe { &mut *this.data }) {
            Some(data) => data as *mut S,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        let lock = unsafe { std::ptr::read(&this.lock) };
        Ok(OwnedMappedMutexGuard { data, lock })
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedMappedMutexGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedMappedMutexGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: the guard holds the lock and `data` points into the data.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedMappedMutexGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`.
        unsafe { &mut *self.data }
    }
}

macro_rules! forward_fmt {
    ($(impl[$($g:tt)*] $ty:ty => $target:ident;)*) => {$(
        impl<$($g)*> fmt::Debug for $ty where $target: fmt::Debug {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }
        impl<$($g)*> fmt::Display for $ty where $target: fmt::Display {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

forward_fmt! {
    impl[T: ?Sized] MutexGuard<'_, T> => T;
    impl[T: ?Sized] OwnedMutexGuard<T> => T;
    impl[T: ?Sized] MappedMutexGuard<'_, T> => T;
    impl[T: ?Sized, U: ?Sized] OwnedMappedMutexGuard<T, U> => U;
}
