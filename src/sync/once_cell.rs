//! `OnceCell`: a value set at most once, with asynchronous initialisation.
//!
//! The value slot is written once, by the holder of the only permit of a
//! [`FairSemaphore`]; the writer then sets `value_set` (Release) and
//! closes the semaphore. Initialisers queue on the semaphore in order: if
//! one is cancelled or panics, its permit goes back and the next one runs;
//! once the value is set, every queued initialiser fails to acquire (the
//! semaphore is closed) and reads the value instead.
use super::fair_semaphore::FairSemaphore;
use super::TryAcquireError;
use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::mem::MaybeUninit;
use std::ptr;

/// A thread-safe cell written at most once, possibly by an async
/// initialiser ([`get_or_init`](OnceCell::get_or_init)).
pub struct OnceCell<T> {
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    semaphore: FairSemaphore,
}

// SAFETY: `get` shares `&T` between threads (`T: Sync`) and `set` through
// `&OnceCell` moves a `T` in from another thread (`T: Send`).
unsafe impl<T: Sync + Send> Sync for OnceCell<T> {}
// SAFETY: the cell owns its `T`.
unsafe impl<T: Send> Send for OnceCell<T> {}

/// Releases the initialiser's permit unless the value was set: a panic or
/// cancellation in the initialiser lets the next one try.
struct InitPermit<'a>(&'a FairSemaphore);

impl Drop for InitPermit<'_> {
    fn drop(&mut self) {
        self.0.release(1);
    }
}

impl<T> OnceCell<T> {
    /// Creates an empty cell.
    pub fn new() -> Self {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: FairSemaphore::new(1),
        }
    }

    /// Creates an empty cell in a `const` context (a `static`).
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new() -> Self {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: FairSemaphore::new(1),
        }
    }

    /// Creates a cell holding `value` if it is `Some`, else empty.
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(value) => OnceCell::from(value),
            None => OnceCell::new(),
        }
    }

    /// Creates a cell holding `value`, in a `const` context.
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new_with(value: T) -> Self {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            semaphore: FairSemaphore::new_closed(),
        }
    }

    /// Whether the value is set.
    pub fn initialized(&self) -> bool {
        // Acquire pairs with the Release store in `set_value`: a reader
        // that sees `true` sees the value.
        self.value_set.load(Ordering::Acquire)
    }

    /// # Safety
    ///
    /// The value must be set.
    unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: the caller saw `value_set` (Acquire), so the value is
        // written and is never written again while `&self` lives.
        self.value.with(|ptr| unsafe { (*ptr).assume_init_ref() })
    }

    /// Writes the value with the initialiser's permit, which is never
    /// released: the semaphore closes instead.
    fn set_value(&self, value: T, permit: InitPermit<'_>) -> &T {
        // SAFETY: the only permit is ours, so no one else writes or reads
        // the slot (readers wait for `value_set`).
        self.value.with_mut(|ptr| unsafe { (*ptr).write(value) });
        // Release: pairs with the Acquire in `initialized`.
        self.value_set.store(true, Ordering::Release);
        self.semaphore.close();
        std::mem::forget(permit);
        // SAFETY: just set.
        unsafe { self.get_unchecked() }
    }

    /// The value, if set.
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: checked just above.
            Some(unsafe { self.get_unchecked() })
        } else {
            None
        }
    }

    /// The value, mutably, if set.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        // Relaxed: `&mut self` is exclusive; no other thread takes part.
        if self.value_set.load(Ordering::Relaxed) {
            // SAFETY: set, and `&mut self` excludes every other access.
            Some(
                self.value
                    .with_mut(|ptr| unsafe { (*ptr).assume_init_mut() }),
            )
        } else {
            None
        }
    }

    /// Sets the value if the cell is empty and no initialiser is running.
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        match self.semaphore.try_acquire(1) {
            Ok(()) => {
                self.set_value(value, InitPermit(&self.semaphore));
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
        }
    }

    /// The value, running `f` to make it if the cell is empty. Concurrent
    /// callers wait for the one initialiser; if it is cancelled or panics,
    /// the next caller's `f` runs.
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        if let Some(value) = self.get() {
            return value;
        }
        match self.semaphore.acquire(1).await {
            Ok(()) => {
                let permit = InitPermit(&self.semaphore);
                let value = f().await;
                self.set_value(value, permit)
            }
            // SAFETY: the semaphore closes only once the value is set.
            Err(_) => unsafe { self.get_unchecked() },
        }
    }

    /// Like [`get_or_init`](OnceCell::get_or_init) with a fallible `f`: an
    /// error leaves the cell empty and is returned.
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(value) = self.get() {
            return Ok(value);
        }
        match self.semaphore.acquire(1).await {
            Ok(()) => {
                let permit = InitPermit(&self.semaphore);
                let value = f().await?;
                Ok(self.set_value(value, permit))
            }
            // SAFETY: the semaphore closes only once the value is set.
            Err(_) => Ok(unsafe { self.get_unchecked() }),
        }
    }

    /// Consumes the cell, returning the value if set.
    pub fn into_inner(self) -> Option<T> {
        // Relaxed: we own the cell.
        if self.value_set.load(Ordering::Relaxed) {
            // Cleared so that `Drop` does not drop the value we move out.
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

    /// Takes the value out, leaving the cell empty.
    pub fn take(&mut self) -> Option<T> {
        std::mem::take(self).into_inner()
    }
}

impl<T> Drop for OnceCell<T> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` is exclusive.
        if self.value_set.load(Ordering::Relaxed) {
            // SAFETY: set, and dropped exactly once (here).
            self.value
                .with_mut(|ptr| unsafe { ptr::drop_in_place((*ptr).as_mut_ptr()) });
        }
    }
}

impl<T> Default for OnceCell<T> {
    fn default() -> OnceCell<T> {
        OnceCell::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("OnceCell")
            .field("value", &self.get())
            .finish()
    }
}

impl<T: Clone> Clone for OnceCell<T> {
    fn clone(&self) -> OnceCell<T> {
        OnceCell::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for OnceCell<T> {
    fn eq(&self, other: &OnceCell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceCell<T> {}

impl<T> From<T> for OnceCell<T> {
    fn from(value: T) -> Self {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            semaphore: FairSemaphore::new_closed(),
        }
    }
}

/// Error from [`OnceCell::set`]; holds the value that was not stored.
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell was already set.
    AlreadyInitializedError(T),
    /// An initialiser is running.
    InitializingError(T),
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetError::AlreadyInitializedError(_) => "AlreadyInitializedError",
            SetError::InitializingError(_) => "InitializingError",
        })
    }
}

impl<T: fmt::Debug> Error for SetError<T> {}

impl<T> SetError<T> {
    /// Whether the cell was already set.
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// Whether an initialiser was running.
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }
}
