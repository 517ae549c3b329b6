//! `Notify`: wakes one task, or every waiting task, without sending data.
//!
//! # Semantics (tokio's, which programs rely on)
//!
//! * `notify_one` wakes the task that has waited longest; `notify_last`
//!   the one that started waiting last. With no task waiting, either
//!   stores one *permit* (at most one, however many calls), which the next
//!   `notified().await` (or [`Notified::enable`]) consumes at once.
//! * `notify_waiters` wakes every waiting task, and every [`Notified`]
//!   future created before the call even if it was never polled; it stores
//!   no permit.
//! * A `Notified` that was picked by `notify_one`/`notify_last` and then
//!   dropped before it returned `Ready` passes the notification on (to the
//!   next waiter, or as the stored permit), so a cancelled waiter cannot
//!   swallow a wakeup.
//!
//! # Design
//!
//! One lock around a [`WaitList`] of waiters (oldest at the front) and the
//! permit flag. A [`Notified`] registers under the lock and re-reads its
//! entry under it on every poll, so a notification and a registration are
//! totally ordered. The number of `notify_waiters` calls is also an atomic,
//! read without the lock when a `Notified` is created and bumped under the
//! lock: a `Notified` whose snapshot is stale when it first looks under the
//! lock was created before a `notify_waiters` and completes. The loom
//! models at the bottom check notify against concurrent polls and drops.
//!
//! No waker code runs under the lock: a waker is cloned before it is taken,
//! a replaced or removed one is dropped after it is released, and the ones
//! to wake are woken after it (dropping a task's last waker drops the task,
//! whose future may notify this `Notify` again: tokio #5429).
//!
//! As tokio's, a `Notified` does not spend the task's cooperative budget:
//! the primitives built on it that do (`watch`, `Barrier`) spend it around
//! their own wait.
use super::wait_list::WaitList;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Mutex, MutexGuard};
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Notifies a single task, or all of them, to wake up.
pub struct Notify {
    /// `notify_waiters` calls so far; written under `inner`'s lock.
    waiters_calls: AtomicUsize,
    inner: Mutex<Inner>,
}

struct Inner {
    waiters: WaitList<Waiter>,
    /// A `notify_one` that found no waiter.
    permit: bool,
}

struct Waiter {
    waker: Option<Waker>,
    /// Set (and the entry unlinked) when the waiter is notified.
    notification: Option<Notification>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Notification {
    /// By `notify_one` (oldest first) or `notify_last` (newest first); a
    /// dropped waiter passes it on the same way.
    One(Strategy),
    /// By `notify_waiters`.
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    Fifo,
    Lifo,
}

/// Where a [`Notified`] stands.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not registered yet.
    Init,
    /// In the wait list under this key.
    Waiting(usize),
    /// Completed.
    Done,
}

impl Notify {
    /// Creates a `Notify` with no stored permit.
    pub fn new() -> Notify {
        Notify {
            waiters_calls: AtomicUsize::new(0),
            inner: Mutex::new(Inner {
                waiters: WaitList::new(),
                permit: false,
            }),
        }
    }

    /// Creates a `Notify` in a `const` context (a `static`).
    #[cfg(not(tokiwa_loom))]
    pub const fn const_new() -> Notify {
        Notify {
            waiters_calls: AtomicUsize::new(0),
            inner: Mutex::new(Inner {
                waiters: WaitList::new(),
                permit: false,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // No user code (not even a waker's) runs under the lock: a poisoned
        // one is consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a notification. The returned future is registered for
    /// `notify_waiters` from the moment it is created, and for
    /// `notify_one` once polled or [enabled](Notified::enable).
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: self,
            state: State::Init,
            // SeqCst: ordered with the increment in `notify_waiters`, so a
            // future created after that call returned never sees it.
            waiters_calls: self.waiters_calls.load(Ordering::SeqCst),
            _pinned: PhantomPinned,
        }
    }

    /// Like [`notified`](Notify::notified), owning an `Arc` of the
    /// `Notify` (the future is `'static`).
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        let waiters_calls = self.waiters_calls.load(Ordering::SeqCst);
        OwnedNotified {
            notify: self,
            state: State::Init,
            waiters_calls,
            _pinned: PhantomPinned,
        }
    }

    /// Wakes the task that has waited longest, or stores a permit if none
    /// waits.
    pub fn notify_one(&self) {
        self.notify_with(Strategy::Fifo);
    }

    /// Wakes the task that started waiting last, or stores a permit if none
    /// waits.
    pub fn notify_last(&self) {
        self.notify_with(Strategy::Lifo);
    }

    fn notify_with(&self, strategy: Strategy) {
        let mut inner = self.lock();
        let waker = notify_locked(&mut inner, strategy);
        drop(inner);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Wakes every waiting task, and completes every `Notified` created
    /// before this call. Stores no permit.
    pub fn notify_waiters(&self) {
        let mut inner = self.lock();
        // SeqCst: see `notified`. Under the lock, so a first poll (which
        // compares under the lock) sees either the old count and no later
        // call, or the new one.
        self.waiters_calls.fetch_add(1, Ordering::SeqCst);
        let mut wakers = Vec::new();
        while let Some(key) = inner.waiters.front() {
            let waiter = inner.waiters.get_mut(key);
            waiter.notification = Some(Notification::All);
            wakers.extend(waiter.waker.take());
            inner.waiters.unlink(key);
        }
        drop(inner);
        for waker in wakers {
            waker.wake();
        }
    }

    /// Polls a `Notified` (`cx` is `None` for `enable`).
    fn poll_notified(
        &self,
        state: &mut State,
        waiters_calls: usize,
        cx: Option<&Context<'_>>,
    ) -> Poll<()> {
        match *state {
            State::Init => {
                // Cloned before the lock (see the module docs); dropped
                // after it if the future completes at once.
                let waker = cx.map(|cx| cx.waker().clone());
                let mut inner = self.lock();
                // Relaxed: the count only changes under the lock we hold.
                let done = if self.waiters_calls.load(Ordering::Relaxed) != waiters_calls {
                    // A `notify_waiters` after this future was created.
                    true
                } else {
                    // Consume the stored permit, if any.
                    std::mem::take(&mut inner.permit)
                };
                if done {
                    drop(inner);
                    drop(waker);
                    *state = State::Done;
                    return Poll::Ready(());
                }
                let key = inner.waiters.push_back(Waiter {
                    waker,
                    notification: None,
                });
                *state = State::Waiting(key);
                Poll::Pending
            }
            State::Waiting(key) => self.poll_waiting(key, state, cx),
            State::Done => Poll::Ready(()),
        }
    }

    /// Polls a registered `Notified`: its notification, or a new waker.
    fn poll_waiting(&self, key: usize, state: &mut State, cx: Option<&Context<'_>>) -> Poll<()> {
        // A waker cloned on an earlier turn of the loop, with the lock
        // released.
        let mut new_waker: Option<Waker> = None;
        loop {
            let mut inner = self.lock();
            let waiter = inner.waiters.get_mut(key);
            if waiter.notification.is_some() {
                // The notifier took the waker; the entry is dropped outside
                // the lock all the same.
                let waiter = inner.waiters.remove(key);
                drop(inner);
                drop((waiter, new_waker));
                *state = State::Done;
                return Poll::Ready(());
            }
            let Some(cx) = cx else {
                return Poll::Pending;
            };
            if waiter
                .waker
                .as_ref()
                .is_some_and(|w| w.will_wake(cx.waker()))
            {
                drop(inner);
                return Poll::Pending;
            }
            match new_waker.take() {
                Some(waker) => {
                    let old = waiter.waker.replace(waker);
                    drop(inner);
                    drop(old);
                    return Poll::Pending;
                }
                None => {
                    // Clone with the lock released, then look again: the
                    // waiter may have been notified meanwhile.
                    drop(inner);
                    new_waker = Some(cx.waker().clone());
                }
            }
        }
    }

    /// A `Notified` dropped while waiting leaves the list, passing on a
    /// `notify_one`/`notify_last` it received but never returned.
    fn drop_notified(&self, state: State) {
        let State::Waiting(key) = state else { return };
        let mut inner = self.lock();
        let waiter = inner.waiters.remove(key);
        let waker = match waiter.notification {
            Some(Notification::One(strategy)) => notify_locked(&mut inner, strategy),
            _ => None,
        };
        drop(inner);
        // The entry's own waker too is dropped with the lock released.
        drop(waiter);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Notifies one waiter (by `strategy`) or stores the permit; returns the
/// waker to call once the lock is released.
fn notify_locked(inner: &mut Inner, strategy: Strategy) -> Option<Waker> {
    let key = match strategy {
        Strategy::Fifo => inner.waiters.front(),
        Strategy::Lifo => inner.waiters.back(),
    };
    let Some(key) = key else {
        inner.permit = true;
        return None;
    };
    inner.waiters.unlink(key);
    let waiter = inner.waiters.get_mut(key);
    waiter.notification = Some(Notification::One(strategy));
    waiter.waker.take()
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl UnwindSafe for Notify {}
impl RefUnwindSafe for Notify {}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.lock();
        f.debug_struct("Notify")
            .field("permit", &inner.permit)
            .field("waiting", &!inner.waiters.is_empty())
            .finish()
    }
}

/// Future returned from [`Notify::notified()`].
///
/// Fused: once it has completed, later polls return `Ready` at once.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Notified<'a> {
    notify: &'a Notify,
    state: State,
    waiters_calls: usize,
    // `!Unpin`, as tokio's (code may rely on its auto traits); nothing is
    // structurally pinned (see `fields`).
    _pinned: PhantomPinned,
}

/// Future returned from [`Notify::notified_owned()`].
///
/// Fused: once it has completed, later polls return `Ready` at once.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct OwnedNotified {
    notify: Arc<Notify>,
    state: State,
    waiters_calls: usize,
    // As in `Notified`.
    _pinned: PhantomPinned,
}

impl Notified<'_> {
    /// The fields, from the pinned future.
    fn fields(self: Pin<&mut Self>) -> &mut Self {
        // SAFETY: no field is structurally pinned: nothing is pinned through
        // the returned reference, and the registration lives in the
        // `Notify`'s wait list under a key (`State::Waiting`), never at the
        // future's address. `PhantomPinned` is there for the auto traits.
        unsafe { self.get_unchecked_mut() }
    }

    /// Registers the future for `notify_one` without polling it, so that a
    /// notification sent from now on is not missed; consumes a stored
    /// permit if there is one. Returns `true` if the future has completed
    /// (then `.await` returns at once).
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let this = self.fields();
        this.notify
            .poll_notified(&mut this.state, this.waiters_calls, None)
            .is_ready()
    }
}

impl OwnedNotified {
    /// The fields, from the pinned future.
    fn fields(self: Pin<&mut Self>) -> &mut Self {
        // SAFETY: as in `Notified::fields`, nothing is structurally pinned.
        unsafe { self.get_unchecked_mut() }
    }

    /// See [`Notified::enable`].
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let this = self.fields();
        this.notify
            .poll_notified(&mut this.state, this.waiters_calls, None)
            .is_ready()
    }
}

// Neither future spends the cooperative budget, as tokio's (see the module
// docs).
impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.fields();
        this.notify
            .poll_notified(&mut this.state, this.waiters_calls, Some(cx))
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.fields();
        this.notify
            .poll_notified(&mut this.state, this.waiters_calls, Some(cx))
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        self.notify.drop_notified(self.state);
    }
}

impl Drop for OwnedNotified {
    fn drop(&mut self) {
        self.notify.drop_notified(self.state);
    }
}

/// Loom models of `Notify`: run with
/// `RUSTFLAGS="--cfg tokiwa_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release
/// ... --features sync,rt --lib loom_`.
#[cfg(all(test, tokiwa_loom))]
mod loom_tests {
    use super::Notify;
    use crate::loom::sync::Arc;
    use loom::future::block_on;
    use loom::thread;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Waker};

    /// A blocked waiter and a concurrent `notify_one`: the waiter always
    /// wakes (through its registration or the stored permit).
    #[test]
    fn loom_notify_one_wakes_a_blocked_waiter() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waiter = {
                let notify = notify.clone();
                thread::spawn(move || block_on(notify.notified()))
            };
            notify.notify_one();
            waiter.join().unwrap();
        });
    }

    /// `notify_one` against one `Notified` that is polled once and dropped
    /// and another that blocks: if the dropped one was picked, it passes
    /// the notification on, so the blocked one always wakes. (If the
    /// dropped one completed, it consumed the notification as a user would
    /// and sends a new one.)
    #[test]
    fn loom_a_dropped_notified_passes_notify_one_on() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let dropped = {
                let notify = notify.clone();
                thread::spawn(move || {
                    let mut notified = pin!(notify.notified());
                    let mut cx = Context::from_waker(Waker::noop());
                    if notified.as_mut().poll(&mut cx).is_ready() {
                        notify.notify_one();
                    }
                })
            };
            let waiter = {
                let notify = notify.clone();
                thread::spawn(move || block_on(notify.notified()))
            };
            notify.notify_one();
            dropped.join().unwrap();
            waiter.join().unwrap();
        });
    }

    /// `notify_waiters` completes a `Notified` created before it, even one
    /// first polled after the call.
    #[test]
    fn loom_notify_waiters_completes_earlier_notified() {
        loom::model(|| {
            // `notified_owned` takes std's `Arc` (the public signature).
            let notify = std::sync::Arc::new(Notify::new());
            let notified = notify.clone().notified_owned();
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_waiters())
            };
            block_on(notified);
            notifier.join().unwrap();
        });
    }
}
