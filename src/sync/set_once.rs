//! `SetOnce`: a value set at most once, which tasks can wait for.
//!
//! Setters serialise on a small lock; the winner writes the slot, sets
//! `value_set` (Release) and wakes every waiter through a [`Notify`]
//! (`notify_waiters`). A waiter creates its `Notified` before checking
//! `value_set`, so a set between the check and the wait is not missed.
use super::Notify;
use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::loom::sync::Mutex;
use std::error::Error;
use std::fmt;
use std::mem::MaybeUninit;
use std::pin::pin;
use std::ptr;

/// A thread-safe cell written at most once, that tasks can
/// [`wait`](SetOnce::wait) for.
pub struct SetOnce<T> {
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    notify: Notify,
    /// Held by a setter while it writes the slot.
    setting: Mutex<()>,
}

// SAFETY: `get` shares `&T` between threads (`T: Sync`), `set` moves a `T`
// in from another thread (`T: Send`).
unsafe impl<T: Sync + Send> Sync for SetOnce<T> {}
// SAFETY: the cell owns its `T`.
unsafe impl<T: Send> Send for SetOnce<T> {}

impl<T> SetOnce<T> {
    /// Creates an empty cell.
    pub fn new() -> Self {
        SetOnce {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            notify: Notify::new(),
            setting: Mutex::new(()),
        }
    }

    /// Creates an empty cell in a `const` context (a `static`).
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new() -> Self {
        SetOnce {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            notify: Notify::const_new(),
            setting: Mutex::new(()),
        }
    }

    /// Creates a cell holding `value` if it is `Some`, else empty.
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(value) => SetOnce::from(value),
            None => SetOnce::new(),
        }
    }

    /// Creates a cell holding `value`, in a `const` context.
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new_with(value: T) -> Self {
        SetOnce {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            notify: Notify::const_new(),
            setting: Mutex::new(()),
        }
    }

    /// Whether the value is set.
    pub fn initialized(&self) -> bool {
        // Acquire pairs with the Release store in `set`.
        self.value_set.load(Ordering::Acquire)
    }

    /// The value, if set.
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: set (seen with Acquire), and never written again.
            Some(self.value.with(|ptr| unsafe { (*ptr).assume_init_ref() }))
        } else {
            None
        }
    }

    /// Sets the value if the cell is empty, and wakes every waiter;
    /// otherwise returns the value in the error.
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        if self.initialized() {
            return Err(SetOnceError(value));
        }
        let setting = self
            .setting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.initialized() {
            return Err(SetOnceError(value));
        }
        // SAFETY: we hold the setter lock and the slot is empty: no other
        // writer, and readers wait for `value_set`.
        self.value.with_mut(|ptr| unsafe { (*ptr).write(value) });
        // Release: pairs with the Acquire in `initialized`.
        self.value_set.store(true, Ordering::Release);
        // The waiters' wakers run with no lock of ours held (a later setter
        // sees `value_set` and fails without the lock anyway).
        drop(setting);
        self.notify.notify_waiters();
        Ok(())
    }

    /// Consumes the cell, returning the value if set.
    pub fn into_inner(self) -> Option<T> {
        // Relaxed: we own the cell.
        if self.value_set.load(Ordering::Relaxed) {
            // Cleared so that `Drop` does not drop the value moved out.
            self.value_set.store(false, Ordering::Relaxed);
            // SAFETY: set; read once, and `Drop` will not touch it again.
            Some(
                self.value
                    .with(|ptr| unsafe { ptr::read(ptr).assume_init() }),
            )
        } else {
            None
        }
    }

    /// Waits until the value is set, and returns it.
    pub async fn wait(&self) -> &T {
        loop {
            let notified = pin!(self.notify.notified());
            if let Some(value) = self.get() {
                return value;
            }
            notified.await;
        }
    }
}

impl<T> Drop for SetOnce<T> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` is exclusive.
        if self.value_set.load(Ordering::Relaxed) {
            // SAFETY: set, and dropped exactly once (here).
            self.value
                .with_mut(|ptr| unsafe { ptr::drop_in_place((*ptr).as_mut_ptr()) });
        }
    }
}

impl<T> Default for SetOnce<T> {
    fn default() -> SetOnce<T> {
        SetOnce::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("SetOnce")
            .field("value", &self.get())
            .finish()
    }
}

impl<T: Clone> Clone for SetOnce<T> {
    fn clone(&self) -> SetOnce<T> {
        SetOnce::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &SetOnce<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T> From<T> for SetOnce<T> {
    fn from(value: T) -> Self {
        SetOnce {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            notify: Notify::new(),
            setting: Mutex::new(()),
        }
    }
}

/// Error from [`SetOnce::set`]: the cell was already set. Holds the value
/// that was not stored.
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SetOnceError")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}
