//! Owned write guards: all of the lock's permits, an `Arc` of the lock and
//! a pointer to (a part of) the data.
use super::read_guard::OwnedRwLockReadGuard;
use super::{forward_fmt, RwLock};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops;
use std::sync::Arc;

/// Owned exclusive write access to an [`RwLock`]; released on drop.
#[clippy::has_significant_drop]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    pub(super) permits_acquired: u32,
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *mut T,
    pub(super) _p: PhantomData<T>,
}

/// Owned exclusive write access to a part of an [`RwLock`]'s data (from
/// [`OwnedRwLockWriteGuard::map`]); released on drop.
#[clippy::has_significant_drop]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    pub(super) permits_acquired: u32,
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *mut U,
    pub(super) _p: PhantomData<T>,
}

// SAFETY: a `&mut T` readable from other threads through shared guards,
// plus an `Arc` that may drop `T` elsewhere: `T: Send + Sync`.
unsafe impl<T> Send for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Sync for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: as above, for the mapped part `U` too.
unsafe impl<T, U> Send for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: as above.
unsafe impl<T, U> Sync for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}

/// Moves the `Arc` out of a guard that will not be dropped.
fn take_lock<T: ?Sized>(lock: &Arc<RwLock<T>>) -> Arc<RwLock<T>> {
    // SAFETY: every caller passes the field of a guard wrapped in
    // `ManuallyDrop` and never touches that guard again, so the `Arc` is
    // moved out exactly once.
    unsafe { std::ptr::read(lock) }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// Makes a guard for a part of the data; the write lock stays held.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        OwnedRwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            lock: take_lock(&this.lock),
            data,
            _p: PhantomData,
        }
    }

    /// Makes a *read* guard for a part of the data, letting other readers
    /// in at once.
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> OwnedRwLockReadGuard<T, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        let lock = take_lock(&this.lock);
        lock.s.release(this.permits_acquired as usize - 1);
        OwnedRwLockReadGuard {
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(OwnedRwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            lock: take_lock(&this.lock),
            data,
            _p: PhantomData,
        })
    }

    /// Like [`downgrade_map`](Self::downgrade_map), but `f` may decline
    /// (returning the write guard, still held).
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(
        this: Self,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        let lock = take_lock(&this.lock);
        lock.s.release(this.permits_acquired as usize - 1);
        Ok(OwnedRwLockReadGuard {
            lock,
            data,
            _p: PhantomData,
        })
    }

    /// Turns the guard into a mapped guard of the whole data.
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        Self::map(this, |me| me)
    }

    /// Turns write access into read access without unlocking.
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        Self::downgrade_map(self, |me| me)
    }

    /// The lock this guard writes.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized> ops::Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit; the `Arc` keeps the data.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(self.permits_acquired as usize);
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// Maps again, to a part of this part.
    #[inline]
    pub fn map<F, V: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, V>
    where
        F: FnOnce(&mut U) -> &mut V,
    {
        let data = f(&mut *this) as *mut V;
        let this = ManuallyDrop::new(this);
        OwnedRwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            lock: take_lock(&this.lock),
            data,
            _p: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, V: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, V>, Self>
    where
        F: FnOnce(&mut U) -> Option<&mut V>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(OwnedRwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            lock: take_lock(&this.lock),
            data,
            _p: PhantomData,
        })
    }

    /// The lock this guard writes.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> ops::Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;

    fn deref(&self) -> &U {
        // SAFETY: the guard holds every permit; the `Arc` keeps the data.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> ops::DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(self.permits_acquired as usize);
    }
}

forward_fmt! {
    impl[T: ?Sized] OwnedRwLockWriteGuard<T> => T;
    impl[T: ?Sized, U: ?Sized] OwnedRwLockMappedWriteGuard<T, U> => U;
}
