//! Synchronisation primitives for use in asynchronous contexts: tokiwa's
//! own, at tokio's paths, built when this source is the package named
//! `tokio` (whole-graph mode; in rename mode `sync` re-exports tokio's).
//!
//! The public API is tokio's (names, signatures, errors, auto traits);
//! the code is tokiwa's, and it takes part in tokiwa's runtime:
//!
//! * every wait (`lock`, `acquire`, `recv`, `changed`) spends a unit of
//!   the task's cooperative budget ([`crate::task::coop`]) where tokio's
//!   does, so a task that always finds its lock free or its channel full
//!   still yields to the others on its worker (a `Notified` and
//!   `SetOnce::wait` spend none, as in tokio);
//! * the `blocking_*` methods park the thread, and panic with tokio's
//!   message when called on a thread that drives a runtime.
//!
//! # Layout
//!
//! * `wait_list`: the slab-backed FIFO of waiters the queues are made of;
//!   `wake_list`: wakers collected under a lock, woken after it.
//! * `fair_semaphore`: the concurrency core of the locks — permits, a fair
//!   queue, cancellation-safe acquisition, close (loom-modelled).
//! * `semaphore`, `mutex`, `rwlock`, `once_cell`: thin layers over it.
//! * `notify`: `Notify`, the other concurrency core (loom-modelled); the
//!   basis of `watch`, `barrier` and `set_once`.
//! * `oneshot`, `watch`: channels; `errors`: the shared error types;
//!   `blocking`: the thread-parking `block_on` of the `blocking_*` methods.

mod blocking;
mod budget;
mod errors;
pub(crate) mod fair_semaphore;
mod wait_list;
mod wake_list;

mod barrier;
mod mutex;
mod notify;
mod once_cell;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod set_once;
pub mod watch;

/// Named future types.
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}

pub use barrier::{Barrier, BarrierWaitResult};
pub use errors::{AcquireError, TryAcquireError, TryLockError};
pub use mutex::{MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard};
pub use notify::Notify;
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};
pub use set_once::{SetOnce, SetOnceError};

#[cfg(all(test, not(tokiwa_loom)))]
mod tests;

pub mod broadcast;
pub mod mpsc;

#[cfg(test)]
mod loom_models;
