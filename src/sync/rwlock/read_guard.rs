//! Read guards: each holds one permit of the lock's semaphore and a
//! pointer to (a part of) the data; the permit is released on drop.
use super::{forward_fmt, RwLock};
use crate::sync::fair_semaphore::FairSemaphore;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops;
use std::sync::Arc;

/// Shared read access to an [`RwLock`]; released on drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    pub(super) s: &'a FairSemaphore,
    pub(super) data: *const T,
    pub(super) marker: PhantomData<&'a T>,
}

/// Owned shared read access to an [`RwLock`] (keeps it alive through an
/// `Arc`); released on drop.
#[clippy::has_significant_drop]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *const U,
    pub(super) _p: PhantomData<T>,
}

// SAFETY: a read guard is a `&T`: `Send` when `T: Sync`.
unsafe impl<T> Send for RwLockReadGuard<'_, T> where T: ?Sized + Sync {}
// SAFETY: as above, with the lock's own requirements.
unsafe impl<T> Sync for RwLockReadGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: a `&U` plus an `Arc` of the lock, which may be the last one and
// so drop `T` on another thread (`T: Send`).
unsafe impl<T, U> Send for OwnedRwLockReadGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Sync,
{
}
// SAFETY: as above.
unsafe impl<T, U> Sync for OwnedRwLockReadGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// Makes a guard for a part of the data; the read lock stays held.
    #[inline]
    pub fn map<F, U: ?Sized>(this: Self, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, U: ?Sized>(this: Self, f: F) -> Result<RwLockReadGuard<'a, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> ops::Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds a read permit, so no writer exists, and
        // `data` points into the lock's data, which outlives `'a`.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// Makes a guard for a part of the data; the read lock stays held.
    #[inline]
    pub fn map<F, V: ?Sized>(this: Self, f: F) -> OwnedRwLockReadGuard<T, V>
    where
        F: FnOnce(&U) -> &V,
    {
        let data = f(&*this) as *const V;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again: the `Arc` moves.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedRwLockReadGuard {
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, V: ?Sized>(this: Self, f: F) -> Result<OwnedRwLockReadGuard<T, V>, Self>
    where
        F: FnOnce(&U) -> Option<&V>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again: the `Arc` moves.
        let lock = unsafe { std::ptr::read(&this.lock) };
        Ok(OwnedRwLockReadGuard {
            lock,
            data,
            _p: PhantomData,
        })
    }

    /// The lock this guard reads.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> ops::Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;

    fn deref(&self) -> &U {
        // SAFETY: the guard holds a read permit and the `Arc` keeps the
        // data alive.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

forward_fmt! {
    impl['a, T: ?Sized] RwLockReadGuard<'a, T> => T;
    impl[T: ?Sized, U: ?Sized] OwnedRwLockReadGuard<T, U> => U;
}
