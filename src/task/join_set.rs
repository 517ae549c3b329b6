//! A collection of spawned tasks whose outputs are taken in completion order.
//!
//! [`JoinSet`] owns the [`JoinHandle`]s of the tasks spawned through it and
//! hands their outputs back as the tasks finish, in whatever order that is.
//! Dropping the set aborts every task still in it.
//!
//! # Design
//!
//! A set may hold tens of thousands of handles, so `join_next` must not poll
//! every handle each time it is woken. Each entry therefore gets a waker of
//! its own, a [`Notifier`], which is what the entry's `JoinHandle` is polled
//! with. When the task finishes, the runtime wakes that notifier; the
//! notifier appends itself to the set's *ready queue* and wakes the waker of
//! whoever last polled the set. `join_next` only ever polls the handles that
//! have been through the ready queue, so the cost of a completion is O(1)
//! however many tasks are still running.
//!
//! The pieces:
//!
//! * The entries live in a [`Slab`] owned by the set (no lock: every method
//!   that touches them takes `&mut self`). Removal is O(1) and keys are
//!   reused.
//! * The ready queue and the set's own waker live behind one mutex, shared
//!   with every notifier. A notifier is pushed at most once until the set
//!   pops it again: its `notified` flag is set by the wake that pushes it and
//!   cleared by the set *before* it polls the handle, so a wake that races
//!   with that poll pushes the entry again rather than being lost.
//! * A notifier can outlive its entry (the runtime may keep the waker after
//!   the set dropped or detached the handle, and a key may be reused by a new
//!   entry). The set ignores a popped notifier unless it is the very one
//!   stored in the slab under its key (`Arc::ptr_eq`). A removed entry's
//!   flag is left set, so its late wakes do not even take the lock.
//! * Notifiers point back at the shared queue, and the queue holds
//!   notifiers, which is a reference cycle. Dropping the set breaks it: the
//!   queue is emptied and marked closed, and a closed queue accepts no
//!   pushes.
//! * A newly spawned entry starts out in the ready queue: its handle has
//!   never been polled, so the runtime does not know the notifier yet. The
//!   first `join_next` polls it, which registers the notifier. Inserting also
//!   wakes a previously registered set waker, so that a caller of
//!   [`JoinSet::poll_join_next`] that got `Pending` hears about tasks spawned
//!   after that call.
//!
//! Cooperative scheduling: polling a handle that turns out not to be ready
//! (a fresh entry, or a handle held back by the runtime's budget) is wasted
//! work, so after [`POLL_BUDGET`] such polls in one call `poll_join_next`
//! wakes its caller and returns `Pending`, letting other tasks run before
//! it continues down the queue. [`JoinSet::try_join_next`] cannot yield; it
//! polls with the budget disabled and looks at each queued entry at most
//! once per call.
//!
//! The design follows tokio's `JoinSet`, which keeps its entries on two
//! intrusive lists ("idle" and "notified") under one mutex; here the
//! notified list is a queue of reference-counted notifiers and the idle
//! entries are simply the rest of the slab, which needs no unsafe code.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::panic;
use std::pin::Pin;
// `std::task::Wake` is implemented for std's `Arc` only, so the per-entry
// waker is a std `Arc` even under loom; everything it synchronises with goes
// through the facade's `Mutex` and atomics.
use std::sync::Arc as WakerArc;
use std::sync::PoisonError;
use std::task::{Context, Poll, Wake, Waker};

use slab::Slab;

use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::runtime::Handle;
use crate::task::{AbortHandle, Id, JoinError, JoinHandle, LocalSet};

#[cfg(all(tokio_unstable, feature = "tracing"))]
pub use super::join_set_builder::Builder;

/// How many handles that turn out not to be ready one call of
/// `poll_join_next` polls before it yields to the scheduler.
const POLL_BUDGET: usize = 32;

/// A collection of tasks spawned on a tokiwa runtime.
///
/// A `JoinSet` can be used to await the completion of some or all of the
/// tasks in the set. The set is not ordered, and the tasks are returned in
/// the order they complete.
///
/// All of the tasks must have the same return type `T`.
///
/// When the `JoinSet` is dropped, all tasks in the `JoinSet` are immediately
/// aborted.
///
/// # Examples
///
/// Spawn multiple tasks and wait for them.
///
/// ```
/// use tokiwa::task::JoinSet;
///
/// # #[tokiwa::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut set = JoinSet::new();
///
/// for i in 0..10 {
///     set.spawn(async move { i });
/// }
///
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     let idx = res.unwrap();
///     seen[idx] = true;
/// }
///
/// for i in 0..10 {
///     assert!(seen[i]);
/// }
/// # }
/// ```
///
/// # Task ID guarantees
///
/// While a task is tracked in a `JoinSet`, that task's ID is unique relative
/// to all other running tasks in the runtime: tracking a task in a `JoinSet`
/// is equivalent to holding a [`JoinHandle`] to it.
pub struct JoinSet<T> {
    /// The tracked tasks. Only `&mut self` methods touch them.
    entries: Slab<Entry<T>>,
    /// The ready queue, shared with every entry's notifier.
    shared: Arc<Mutex<ReadyQueue>>,
}

/// One tracked task.
struct Entry<T> {
    handle: JoinHandle<T>,
    /// Identifies this entry among the notifiers popped from the queue.
    notifier: WakerArc<Notifier>,
    /// `notifier` as a `Waker`, kept so that polling does not build one.
    waker: Waker,
}

/// The state shared between a set and its entries' notifiers.
struct ReadyQueue {
    /// Notifiers of entries that were woken since the set last polled them.
    /// May also hold notifiers of entries that no longer exist.
    queue: VecDeque<WakerArc<Notifier>>,
    /// The waker of the last `poll_join_next` that returned `Pending`.
    waker: Option<Waker>,
    /// Set when the `JoinSet` is dropped; the queue then stays empty.
    closed: bool,
}

/// The waker an entry's `JoinHandle` is polled with.
struct Notifier {
    /// The entry's key in the slab (checked with `Arc::ptr_eq` on use).
    key: usize,
    /// Set while the notifier is in the ready queue (or its entry is gone).
    notified: AtomicBool,
    shared: Arc<Mutex<ReadyQueue>>,
}

/// What polling one popped notifier produced.
enum Polled<T> {
    /// The task finished; its entry has been removed.
    Ready(Id, Result<T, JoinError>),
    /// The handle was polled and is not ready yet.
    Pending,
    /// The notifier belonged to an entry that no longer exists.
    Stale,
}

fn lock(shared: &Mutex<ReadyQueue>) -> MutexGuard<'_, ReadyQueue> {
    // Nothing panics while the lock is held (short of an allocation
    // failure), and the queue is consistent at every step anyway.
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Wake for Notifier {
    fn wake(self: WakerArc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &WakerArc<Self>) {
        // AcqRel: the set's `swap(false)` before its poll reads this write,
        // which orders whatever the waking thread did (finishing the task)
        // before that poll.
        if self.notified.swap(true, Ordering::AcqRel) {
            // Already queued, or the entry is gone.
            return;
        }
        let waker = {
            let mut ready = lock(&self.shared);
            if ready.closed {
                return;
            }
            ready.queue.push_back(WakerArc::clone(self));
            ready.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> JoinSet<T> {
    /// Creates a new `JoinSet`.
    pub fn new() -> Self {
        JoinSet {
            entries: Slab::new(),
            shared: Arc::new(Mutex::new(ReadyQueue {
                queue: VecDeque::new(),
                waker: None,
                closed: false,
            })),
        }
    }

    /// Returns the number of tasks currently in the `JoinSet`.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Returns whether the `JoinSet` is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawns the provided task on the `JoinSet`, returning an
    /// [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// The provided future will start running in the background immediately
    /// when this method is called, even if you don't await anything on this
    /// `JoinSet`.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a tokiwa runtime.
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn(task))
    }

    /// Spawns the provided task on the provided runtime and stores it in this
    /// `JoinSet`, returning an [`AbortHandle`] that can be used to remotely
    /// cancel the task.
    ///
    /// The provided future will start running in the background immediately
    /// when this method is called, even if you don't await anything on this
    /// `JoinSet`.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn(task))
    }

    /// Spawns the provided task on the current [`LocalSet`] and stores it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// The provided future will start running in the background immediately
    /// when this method is called, even if you don't await anything on this
    /// `JoinSet`.
    ///
    /// # Panics
    ///
    /// This method panics if it is called outside of a `LocalSet`.
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(crate::task::spawn_local(task))
    }

    /// Spawns the provided task on the provided [`LocalSet`] and stores it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// Unlike [`spawn_local`], this method may be used to spawn local tasks
    /// on a `LocalSet` that is _not_ currently running. The provided future
    /// will start running whenever the `LocalSet` is next started.
    ///
    /// [`spawn_local`]: Self::spawn_local
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(local_set.spawn_local(task))
    }

    /// Spawns the blocking code on the blocking threadpool and stores it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// Blocking code cannot be interrupted once it has started running: an
    /// abort only prevents a closure that has not started yet from running.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a tokiwa runtime.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn_blocking(f))
    }

    /// Spawns the blocking code on the blocking threadpool of the provided
    /// runtime and stores it in this `JoinSet`, returning an [`AbortHandle`]
    /// that can be used to remotely cancel the task.
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn_blocking(f))
    }

    /// Starts tracking `handle`: it goes into the ready queue so that the
    /// next poll registers its notifier with the runtime.
    pub(super) fn insert(&mut self, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let slot = self.entries.vacant_entry();
        let notifier = WakerArc::new(Notifier {
            key: slot.key(),
            notified: AtomicBool::new(true),
            shared: Arc::clone(&self.shared),
        });
        let waker = Waker::from(WakerArc::clone(&notifier));
        let stale_waker = {
            let mut ready = lock(&self.shared);
            ready.queue.push_back(WakerArc::clone(&notifier));
            ready.waker.take()
        };
        slot.insert(Entry {
            handle,
            notifier,
            waker,
        });
        if let Some(waker) = stale_waker {
            waker.wake();
        }
        abort
    }

    /// Waits until one of the tasks in the set completes and returns its
    /// output.
    ///
    /// Returns `None` if the set is empty.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `join_next` is used as a branch in
    /// `select!` and another branch completes first, it is guaranteed that no
    /// tasks were removed from this `JoinSet`.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// Waits until one of the tasks in the set completes and returns its
    /// output, along with the [task ID] of the completed task.
    ///
    /// Returns `None` if the set is empty.
    ///
    /// When this method returns an error, the id of the task that failed can
    /// be accessed using the [`JoinError::id`] method.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `join_next_with_id` is used as a branch
    /// in `select!` and another branch completes first, it is guaranteed that
    /// no tasks were removed from this `JoinSet`.
    ///
    /// [task ID]: crate::task::Id
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// Tries to join one of the tasks in the set that has completed and
    /// return its output.
    ///
    /// Returns `None` if there are no completed tasks, or if the set is
    /// empty.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_inner().map(|(_, res)| res)
    }

    /// Tries to join one of the tasks in the set that has completed and
    /// return its output, along with the [task ID] of the completed task.
    ///
    /// Returns `None` if there are no completed tasks, or if the set is
    /// empty.
    ///
    /// When this method returns an error, the id of the task that failed can
    /// be accessed using the [`JoinError::id`] method.
    ///
    /// [task ID]: crate::task::Id
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        self.try_join_inner()
            .map(|(id, res)| res.map(|output| (id, output)))
    }

    /// Aborts all tasks and waits for them to finish shutting down.
    ///
    /// Calling this method is equivalent to calling [`abort_all`] and then
    /// calling [`join_next`] in a loop until it returns `None`.
    ///
    /// This method ignores any panics in the tasks shutting down. When this
    /// call returns, the `JoinSet` will be empty.
    ///
    /// [`abort_all`]: fn@Self::abort_all
    /// [`join_next`]: fn@Self::join_next
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// Awaits the completion of all tasks in this `JoinSet`, returning a
    /// vector of their results.
    ///
    /// The results are stored in the order the tasks completed, not the
    /// order they were spawned. This is a convenience method that is
    /// equivalent to calling [`join_next`] in a loop. If any task in the
    /// `JoinSet` fails with a [`JoinError`], this call panics (resuming the
    /// task's panic if it panicked) and all remaining tasks in the `JoinSet`
    /// are cancelled. To handle errors in any other way, call [`join_next`]
    /// in a loop.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokiwa::task::JoinSet;
    ///
    /// # #[tokiwa::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut set = JoinSet::new();
    ///
    /// for i in 0..3 {
    ///     set.spawn(async move { i });
    /// }
    ///
    /// let mut output = set.join_all().await;
    /// output.sort();
    /// assert_eq!(output, vec![0, 1, 2]);
    /// # }
    /// ```
    ///
    /// [`join_next`]: fn@Self::join_next
    pub async fn join_all(mut self) -> Vec<T> {
        let mut output = Vec::with_capacity(self.len());
        while let Some(res) = self.join_next().await {
            match res {
                Ok(value) => output.push(value),
                Err(err) if err.is_panic() => panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("{err}"),
            }
        }
        output
    }

    /// Aborts all tasks on this `JoinSet`.
    ///
    /// This does not remove the tasks from the `JoinSet`. To wait for the
    /// tasks to complete cancellation, call `join_next` in a loop until the
    /// `JoinSet` is empty.
    pub fn abort_all(&mut self) {
        for (_, entry) in self.entries.iter() {
            entry.handle.abort();
        }
    }

    /// Removes all tasks from this `JoinSet` without aborting them.
    ///
    /// The tasks removed by this call will continue to run in the background
    /// even if the `JoinSet` is dropped.
    pub fn detach_all(&mut self) {
        for entry in self.entries.drain() {
            // Retire the notifier: later wakes of a detached task are no-ops.
            // (Release pairs with the waker's AcqRel swap; the flag guards
            // no data of its own, so any ordering would keep this correct.)
            entry.notifier.notified.store(true, Ordering::Release);
            // Dropping the handle detaches the task.
        }
        // Whatever is still queued belongs to entries that are gone. A wake
        // that raced with the loop above may still push one; it is
        // recognised as stale when popped.
        let queue = std::mem::take(&mut lock(&self.shared).queue);
        drop(queue);
    }

    /// Polls for one of the tasks in the set to complete.
    ///
    /// If this returns `Poll::Ready(Some(_))`, then the task that completed
    /// is removed from the set.
    ///
    /// When the method returns `Poll::Pending`, the `Waker` in the provided
    /// `Context` is scheduled to receive a wakeup when a task in the
    /// `JoinSet` completes. Note that on multiple calls to `poll_join_next`,
    /// only the `Waker` from the `Context` passed to the most recent call is
    /// scheduled to receive a wakeup.
    ///
    /// # Returns
    ///
    /// This function returns:
    ///
    ///  * `Poll::Pending` if the `JoinSet` is not empty but there is no task
    ///    whose output is available right now.
    ///  * `Poll::Ready(Some(Ok(value)))` if one of the tasks in this
    ///    `JoinSet` has completed. The `value` is the return value of one of
    ///    the tasks that completed.
    ///  * `Poll::Ready(Some(Err(err)))` if one of the tasks in this `JoinSet`
    ///    has panicked or been aborted. The `err` is the `JoinError` from the
    ///    panicked/aborted task.
    ///  * `Poll::Ready(None)` if the `JoinSet` is empty.
    ///
    /// Note that this method may return `Poll::Pending` even if one of the
    /// tasks has completed, when the task's cooperative budget is used up or
    /// after many handles in a row were found not ready; it then wakes the
    /// `Waker` itself.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_inner(cx).map(|next| next.map(|(_, res)| res))
    }

    /// Polls for one of the tasks in the set to complete.
    ///
    /// If this returns `Poll::Ready(Some(_))`, then the task that completed
    /// is removed from the set.
    ///
    /// When the method returns `Poll::Pending`, the `Waker` in the provided
    /// `Context` is scheduled to receive a wakeup when a task in the
    /// `JoinSet` completes. Note that on multiple calls to
    /// `poll_join_next_with_id`, only the `Waker` from the `Context` passed
    /// to the most recent call is scheduled to receive a wakeup.
    ///
    /// # Returns
    ///
    /// This function returns:
    ///
    ///  * `Poll::Pending` if the `JoinSet` is not empty but there is no task
    ///    whose output is available right now.
    ///  * `Poll::Ready(Some(Ok((id, value))))` if one of the tasks in this
    ///    `JoinSet` has completed. The `value` is the return value of one of
    ///    the tasks that completed, and `id` is the [task ID] of that task.
    ///  * `Poll::Ready(Some(Err(err)))` if one of the tasks in this `JoinSet`
    ///    has panicked or been aborted. The `err` is the `JoinError` from the
    ///    panicked/aborted task.
    ///  * `Poll::Ready(None)` if the `JoinSet` is empty.
    ///
    /// Note that this method may return `Poll::Pending` even if one of the
    /// tasks has completed, when the task's cooperative budget is used up or
    /// after many handles in a row were found not ready; it then wakes the
    /// `Waker` itself.
    ///
    /// [task ID]: crate::task::Id
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        self.poll_inner(cx)
            .map(|next| next.map(|(id, res)| res.map(|output| (id, output))))
    }

    /// Shared body of the `poll_join_next*` methods.
    fn poll_inner(&mut self, cx: &mut Context<'_>) -> Poll<Option<(Id, Result<T, JoinError>)>> {
        let mut not_ready = 0;
        loop {
            let notifier = {
                let mut ready = lock(&self.shared);
                match ready.queue.pop_front() {
                    Some(notifier) => notifier,
                    None if self.entries.is_empty() => return Poll::Ready(None),
                    None => {
                        // Registered under the same lock that a notifier takes
                        // to push, so a completion after the queue was seen
                        // empty finds this waker.
                        let old = match &ready.waker {
                            Some(waker) if waker.will_wake(cx.waker()) => None,
                            _ => ready.waker.replace(cx.waker().clone()),
                        };
                        drop(ready);
                        drop(old);
                        return Poll::Pending;
                    }
                }
            };
            match self.poll_entry(&notifier, false) {
                Polled::Ready(id, res) => return Poll::Ready(Some((id, res))),
                Polled::Stale => {}
                Polled::Pending => {
                    not_ready += 1;
                    if not_ready == POLL_BUDGET {
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                }
            }
        }
    }

    /// Shared body of the `try_join_next*` methods: polls each entry queued
    /// at the start of the call at most once.
    fn try_join_inner(&mut self) -> Option<(Id, Result<T, JoinError>)> {
        let queued = lock(&self.shared).queue.len();
        for _ in 0..queued {
            let notifier = lock(&self.shared).queue.pop_front()?;
            if let Polled::Ready(id, res) = self.poll_entry(&notifier, true) {
                return Some((id, res));
            }
        }
        None
    }

    /// Polls the handle of the entry `notifier` was popped for, removing the
    /// entry if its task has finished.
    fn poll_entry(&mut self, notifier: &WakerArc<Notifier>, unconstrained: bool) -> Polled<T> {
        let key = notifier.key;
        let entry = match self.entries.get_mut(key) {
            Some(entry) if WakerArc::ptr_eq(&entry.notifier, notifier) => entry,
            _ => return Polled::Stale,
        };
        // Cleared before the poll: a completion from here on queues the entry
        // again (see `Notifier::wake_by_ref` for the ordering).
        entry.notifier.notified.swap(false, Ordering::AcqRel);
        let mut cx = Context::from_waker(&entry.waker);
        let poll = if unconstrained {
            // `try_join_next` cannot yield, so the runtime's cooperative
            // budget must not make a finished task look pending.
            Pin::new(&mut crate::task::coop::unconstrained(&mut entry.handle)).poll(&mut cx)
        } else {
            Pin::new(&mut entry.handle).poll(&mut cx)
        };
        match poll {
            Poll::Pending => Polled::Pending,
            Poll::Ready(res) => {
                let entry = self.entries.remove(key);
                // Retire the notifier so a late wake does not queue it
                // (ordering as in `detach_all`).
                entry.notifier.notified.store(true, Ordering::Release);
                Polled::Ready(entry.handle.id(), res)
            }
        }
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        // Close the queue first: from now on notifiers push nothing, which
        // also breaks the notifier -> queue -> notifier reference cycle.
        let (queue, waker) = {
            let mut ready = lock(&self.shared);
            ready.closed = true;
            (std::mem::take(&mut ready.queue), ready.waker.take())
        };
        drop(queue);
        drop(waker);
        for entry in self.entries.drain() {
            entry.handle.abort();
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Collect an iterator of futures into a [`JoinSet`].
///
/// This is equivalent to calling [`JoinSet::spawn`] on each element of the
/// iterator.
///
/// # Examples
///
/// ```
/// use tokiwa::task::JoinSet;
///
/// # #[tokiwa::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut set: JoinSet<_> = (0..10).map(|i| async move { i }).collect();
///
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     let idx = res.unwrap();
///     seen[idx] = true;
/// }
///
/// for i in 0..10 {
///     assert!(seen[i]);
/// }
/// # }
/// ```
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = Self::new();
        set.extend(iter);
        set
    }
}

/// Extend a [`JoinSet`] with futures from an iterator.
///
/// This is equivalent to calling [`JoinSet::spawn`] on each element of the
/// iterator.
///
/// # Examples
///
/// ```
/// use tokiwa::task::JoinSet;
///
/// # #[tokiwa::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut set: JoinSet<_> = (0..5).map(|i| async move { i }).collect();
///
/// set.extend((5..10).map(|i| async move { i }));
///
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     let idx = res.unwrap();
///     seen[idx] = true;
/// }
///
/// for i in 0..10 {
///     assert!(seen[i]);
/// }
/// # }
/// ```
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    fn extend<I>(&mut self, iter: I)
    where
        I: IntoIterator<Item = F>,
    {
        for task in iter {
            self.spawn(task);
        }
    }
}
