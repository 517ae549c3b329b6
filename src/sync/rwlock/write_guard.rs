//! Borrowed write guards: each holds all of the lock's permits
//! (`permits_acquired`) and a pointer to (a part of) the data.
use super::forward_fmt;
use super::read_guard::RwLockReadGuard;
use crate::sync::fair_semaphore::FairSemaphore;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops;

/// Exclusive write access to an [`RwLock`](super::RwLock); released on
/// drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    pub(super) permits_acquired: u32,
    pub(super) s: &'a FairSemaphore,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

/// Exclusive write access to a part of an [`RwLock`](super::RwLock)'s
/// data (from [`RwLockWriteGuard::map`]); released on drop.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    pub(super) permits_acquired: u32,
    pub(super) s: &'a FairSemaphore,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

// SAFETY: a write guard is a `&mut T` that other threads may also read
// through a shared guard: both `Send` and `Sync` need `T: Send + Sync`.
unsafe impl<T> Send for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Sync for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Send for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Sync for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// Makes a guard for a part of the data; the write lock stays held.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        RwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Makes a *read* guard for a part of the data, letting other readers
    /// in at once (the writer's other permits are released).
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        let guard = RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        };
        this.s.release(this.permits_acquired as usize - 1);
        guard
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(RwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            s: this.s,
            data,
            marker: PhantomData,
        })
    }

    /// Like [`downgrade_map`](Self::downgrade_map), but `f` may decline
    /// (returning the write guard, still held).
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(this: Self, f: F) -> Result<RwLockReadGuard<'a, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        let guard = RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        };
        this.s.release(this.permits_acquired as usize - 1);
        Ok(guard)
    }

    /// Turns the guard into a mapped guard of the whole data.
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |me| me)
    }

    /// Turns write access into read access without unlocking, letting
    /// other readers in.
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        RwLockWriteGuard::downgrade_map(self, |me| me)
    }
}

impl<T: ?Sized> ops::Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit of the lock.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds every permit of the lock.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits_acquired as usize);
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// Maps again, to a part of this part.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        RwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](Self::map), but `f` may decline (returning the guard).
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(RwLockMappedWriteGuard {
            permits_acquired: this.permits_acquired,
            s: this.s,
            data,
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> ops::Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit of the lock.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds every permit of the lock.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for RwLockMappedWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits_acquired as usize);
    }
}

forward_fmt! {
    impl['a, T: ?Sized] RwLockWriteGuard<'a, T> => T;
    impl['a, T: ?Sized] RwLockMappedWriteGuard<'a, T> => T;
}
