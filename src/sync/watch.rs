//! A multi-producer, multi-consumer channel that keeps only the latest
//! value: receivers see the current value and learn that it changed.
//!
//! # Design
//!
//! The value sits behind a reader-writer lock. A `state` word counts
//! versions in steps of two, with bit 0 set once every sender is gone. A
//! sender replaces or modifies the value and bumps the version *while it
//! holds the write lock*, so a receiver that reads the version under the
//! read lock knows exactly which version it is looking at. Each receiver
//! keeps the version it saw last; `changed` waits until the shared one
//! differs (or the channel closed).
//!
//! Waiting uses two [`Notify`]s: `notify_rx` (every receiver waits for a
//! new version: `notify_waiters`) and `notify_tx` (senders in `closed`
//! wait for the last receiver to go). A waiter creates its `Notified`
//! *before* checking the condition; `notify_waiters` completes every
//! `Notified` created before it, so a change between check and wait is
//! never lost.
//!
//! `changed`, `wait_for` and `Sender::closed` spend a unit of the task's
//! cooperative budget per completed wait.
use super::budget::cooperative;
use super::Notify;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, RwLock, RwLockReadGuard};
use std::fmt;
use std::mem;
use std::ops;
use std::panic;
use std::pin::pin;

/// Receives values from the associated [`Sender`].
#[derive(Debug)]
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver saw last.
    version: usize,
}

/// Sends values to the associated [`Receiver`]s.
#[derive(Debug)]
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A reference to the value in the channel, holding its read lock: keep it
/// short-lived (a sender waits for it to drop).
#[derive(Debug)]
pub struct Ref<'a, T> {
    inner: RwLockReadGuard<'a, T>,
    has_changed: bool,
}

impl<T> Ref<'_, T> {
    /// Whether this value had not been seen by the receiver that borrowed
    /// it (always `false` through [`Sender::borrow`] and
    /// [`Receiver::borrow`] after an update).
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> ops::Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

pub mod error {
    //! Watch error types.
    use std::error::Error;
    use std::fmt;

    /// Error from [`Sender::send`](super::Sender::send): no receiver is
    /// left. Holds the value that was not sent.
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Debug for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("SendError").finish_non_exhaustive()
        }
    }

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt.write_str("channel closed")
        }
    }

    impl<T> Error for SendError<T> {}

    /// Error from [`Receiver::changed`](super::Receiver::changed) and
    /// friends: every sender is gone.
    #[derive(Debug, Clone)]
    pub struct RecvError(pub(crate) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt.write_str("channel closed")
        }
    }

    impl Error for RecvError {}
}

use error::{RecvError, SendError};

/// Bit 0 of `state`: every sender was dropped.
const CLOSED: usize = 1;
/// A new version adds this to `state`.
const STEP: usize = 2;

struct Shared<T> {
    value: RwLock<T>,
    /// Version (in steps of [`STEP`]) and the [`CLOSED`] bit.
    state: AtomicUsize,
    ref_count_rx: AtomicUsize,
    ref_count_tx: AtomicUsize,
    /// Receivers waiting for a new version.
    notify_rx: Notify,
    /// Senders waiting in `closed` for the last receiver to go.
    notify_tx: Notify,
}

impl<T> Shared<T> {
    fn read(&self) -> RwLockReadGuard<'_, T> {
        // Panics of user code under the write lock are caught and the lock
        // dropped first (see `send_if_modified`), but a poisoned lock would
        // still hold a consistent value: ignore poisoning.
        self.value
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn state(&self) -> usize {
        // Acquire pairs with the Release bump in `send_if_modified` and in
        // `Sender::drop`, so a receiver that sees a version sees its value.
        self.state.load(Ordering::Acquire)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("Shared")
            .field("value", &self.value)
            .field("version", &(state & !CLOSED))
            .field("is_closed", &(state & CLOSED == CLOSED))
            .field("ref_count_rx", &self.ref_count_rx)
            .finish()
    }
}

/// Creates a watch channel holding `init`; the receiver has seen it.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(init),
        state: AtomicUsize::new(0),
        ref_count_rx: AtomicUsize::new(1),
        ref_count_tx: AtomicUsize::new(1),
        notify_rx: Notify::new(),
        notify_tx: Notify::new(),
    });
    let tx = Sender {
        shared: shared.clone(),
    };
    let rx = Receiver { shared, version: 0 };
    (tx, rx)
}

impl<T> Receiver<T> {
    fn from_shared(version: usize, shared: Arc<Shared<T>>) -> Receiver<T> {
        // Relaxed: a count, not a protocol; it orders no other memory.
        shared.ref_count_rx.fetch_add(1, Ordering::Relaxed);
        Receiver { shared, version }
    }

    /// The current value, without marking it seen.
    pub fn borrow(&self) -> Ref<'_, T> {
        let inner = self.shared.read();
        // Under the read lock no send can happen: the version read now is
        // the version of `inner`.
        let has_changed = self.version != self.shared.state() & !CLOSED;
        Ref { inner, has_changed }
    }

    /// The current value, marking it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let inner = self.shared.read();
        let current = self.shared.state() & !CLOSED;
        let has_changed = self.version != current;
        self.version = current;
        Ref { inner, has_changed }
    }

    /// Whether a value this receiver has not seen is in the channel; an
    /// error once every sender is gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        let state = self.shared.state();
        if state & CLOSED == CLOSED {
            return Err(RecvError(()));
        }
        Ok(self.version != state & !CLOSED)
    }

    /// Whether every sender is gone.
    pub fn is_closed(&self) -> bool {
        self.shared.state() & CLOSED == CLOSED
    }

    /// Marks the current value as not seen: the next `changed` returns at
    /// once.
    pub fn mark_changed(&mut self) {
        self.version = self.version.wrapping_sub(STEP);
    }

    /// Marks the current value as seen.
    pub fn mark_unchanged(&mut self) {
        self.version = self.shared.state() & !CLOSED;
    }

    /// Waits for a value this receiver has not seen, and marks it seen
    /// (read it with [`borrow`](Receiver::borrow)). Fails once every
    /// sender is gone and the last value was seen. Cancel safe.
    pub async fn changed(&mut self) -> Result<(), RecvError> {
        cooperative(changed_impl(&self.shared, &mut self.version)).await
    }

    /// Waits for a value for which `f` returns `true` (checking the current
    /// value first) and returns it, marked seen. Fails once every sender is
    /// gone and no value left satisfies `f`.
    pub async fn wait_for(&mut self, f: impl FnMut(&T) -> bool) -> Result<Ref<'_, T>, RecvError> {
        cooperative(self.wait_for_inner(f)).await
    }

    async fn wait_for_inner(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, RecvError> {
        let mut closed = false;
        loop {
            {
                let inner = self.shared.read();
                let current = self.shared.state() & !CLOSED;
                let has_changed = self.version != current;
                self.version = current;
                if !closed || has_changed {
                    match panic::catch_unwind(panic::AssertUnwindSafe(|| f(&inner))) {
                        Ok(true) => return Ok(Ref { inner, has_changed }),
                        Ok(false) => {}
                        Err(payload) => {
                            // Release the read lock before unwinding on.
                            drop(inner);
                            panic::resume_unwind(payload);
                        }
                    }
                }
            }
            if closed {
                return Err(RecvError(()));
            }
            closed = changed_impl(&self.shared, &mut self.version).await.is_err();
        }
    }

    /// Whether both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

/// `Some` if the receiver at `version` need not wait: a new version
/// (marked seen), or the channel closed.
fn maybe_changed<T>(shared: &Shared<T>, version: &mut usize) -> Option<Result<(), RecvError>> {
    let state = shared.state();
    let current = state & !CLOSED;
    if *version != current {
        *version = current;
        return Some(Ok(()));
    }
    if state & CLOSED == CLOSED {
        return Some(Err(RecvError(())));
    }
    None
}

async fn changed_impl<T>(shared: &Shared<T>, version: &mut usize) -> Result<(), RecvError> {
    loop {
        // Created before the check: a send after the check completes it.
        let notified = pin!(shared.notify_rx.notified());
        if let Some(result) = maybe_changed(shared, version) {
            return result;
        }
        // `Notified` spends no budget; `changed` spends it around this loop.
        notified.await;
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        Receiver::from_shared(self.version, self.shared.clone())
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // AcqRel: the last receiver's exit is what `closed` waits for.
        if self.shared.ref_count_rx.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.shared.notify_tx.notify_waiters();
        }
    }
}

impl<T> Sender<T> {
    /// Creates a channel holding `init` with no receiver yet (make them
    /// with [`subscribe`](Sender::subscribe)).
    pub fn new(init: T) -> Self {
        let (tx, _) = channel(init);
        tx
    }

    /// Replaces the value and notifies the receivers; fails (returning the
    /// value) if there is no receiver.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.receiver_count() == 0 {
            return Err(SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Modifies the value in place and notifies the receivers, whether or
    /// not there are any.
    pub fn send_modify<F>(&self, modify: F)
    where
        F: FnOnce(&mut T),
    {
        self.send_if_modified(|value| {
            modify(value);
            true
        });
    }

    /// Modifies the value in place; notifies the receivers (a new version)
    /// only if `modify` returns `true`. Returns what `modify` returned. If
    /// `modify` panics, no version is made and the panic goes on.
    pub fn send_if_modified<F>(&self, modify: F) -> bool
    where
        F: FnOnce(&mut T) -> bool,
    {
        {
            let mut value = self
                .shared
                .value
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match panic::catch_unwind(panic::AssertUnwindSafe(|| modify(&mut value))) {
                Ok(true) => {}
                Ok(false) => return false,
                Err(payload) => {
                    // Release the lock unpoisoned, then unwind on.
                    drop(value);
                    panic::resume_unwind(payload);
                }
            }
            // Release: a receiver that acquire-loads the new version sees
            // the new value. Bumped under the write lock (see module docs).
            self.shared.state.fetch_add(STEP, Ordering::Release);
        }
        self.shared.notify_rx.notify_waiters();
        true
    }

    /// Replaces the value, notifies the receivers and returns the old
    /// value, whether or not there are receivers.
    pub fn send_replace(&self, mut value: T) -> T {
        self.send_modify(|old| mem::swap(old, &mut value));
        value
    }

    /// The current value.
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            inner: self.shared.read(),
            has_changed: false,
        }
    }

    /// Whether there is no receiver.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until there is no receiver. A `subscribe` after that makes
    /// the channel usable again.
    pub async fn closed(&self) {
        cooperative(async {
            while self.receiver_count() > 0 {
                let notified = pin!(self.shared.notify_tx.notified());
                if self.receiver_count() == 0 {
                    return;
                }
                notified.await;
            }
        })
        .await
    }

    /// A new receiver that has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        let version = self.shared.state() & !CLOSED;
        Receiver::from_shared(version, self.shared.clone())
    }

    /// How many receivers exist.
    pub fn receiver_count(&self) -> usize {
        // Relaxed: a snapshot of a count (as tokio documents it).
        self.shared.ref_count_rx.load(Ordering::Relaxed)
    }

    /// How many senders exist.
    pub fn sender_count(&self) -> usize {
        // Relaxed: as `receiver_count`.
        self.shared.ref_count_tx.load(Ordering::Relaxed)
    }

    /// Whether both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        // Relaxed: a new handle from an existing one, as `Arc::clone`.
        self.shared.ref_count_tx.fetch_add(1, Ordering::Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T: Default> Default for Sender<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: the last sender's decrement orders every sender's sends
        // before the close.
        if self.shared.ref_count_tx.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Release: pairs with the Acquire loads of `state`.
            self.shared.state.fetch_or(CLOSED, Ordering::Release);
            self.shared.notify_rx.notify_waiters();
        }
    }
}
