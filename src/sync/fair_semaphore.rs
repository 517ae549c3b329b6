//! The fair semaphore every lock in `sync` is built on: a count of permits
//! and a first-in, first-out queue of tasks waiting for them.
//!
//! `Semaphore`, `Mutex` (one permit), `RwLock` (a reader takes one permit, a
//! writer all of them) and `OnceCell` (one permit, closed once the value is
//! set) are thin layers over [`FairSemaphore`]; it plays the part of tokio's
//! `batch_semaphore`.
//!
//! # Design
//!
//! * `permits` is one atomic word: the number of *free* permits shifted
//!   left by one, and bit 0 set once the semaphore is closed. Acquiring
//!   permits that are free is a compare-and-swap on it, without the lock.
//! * `waiters` is a lock around a [`WaitList`] of tasks, each with the
//!   number of permits it still lacks. A release hands permits to the
//!   waiters at the front, in order, before any are made free: a waiter
//!   may be assigned part of what it asked for and wait for the rest
//!   (acquiring many permits cannot be starved by acquirers of one).
//!
//! **Invariant** (what makes the queue fair): while any waiter is queued,
//! no permit is free. A waiter is queued only under the lock, after taking
//! every free permit there was; a release made under the lock gives its
//! permits to the queue first and frees only what is left once the queue
//! is empty. So an acquirer arriving later cannot take permits from under
//! a queued one: the compare-and-swap sees no free permit.
//!
//! **Cancellation.** The [`Acquire`] future owns its queue entry. Dropped
//! while queued, it removes the entry and releases whatever was already
//! assigned to it (through the same path as a release, so the next waiters
//! get them); dropped after it was granted but before it saw the grant, it
//! releases all of it. No permit is lost either way.
//!
//! **Close** sets the bit under the lock, takes every waiter out of the
//! queue with a "closed" outcome (their partial assignments return to the
//! free count) and wakes them; every later acquire fails at once. So does
//! an acquire whose permits were granted before the close but which had
//! not returned yet (it was not polled since, or it yielded for the
//! budget): it gives the granted permits back and fails, as tokio's, so
//! that nothing acquires after `close()` returned. Releases still count,
//! so `available_permits` stays right.
//!
//! **Wakeups.** A waiter registers its waker under the same lock under
//! which a release looks for waiters to satisfy, and re-reads its outcome
//! under that lock on every poll, so a release cannot slip between "not
//! granted yet" and "waker stored". The loom models at the bottom check it.
//!
//! **No waker code under the lock.** A waker's `clone`, `wake` and `drop`
//! run the executor's code, and dropping the last clone of a waker drops
//! its task, with whatever that task owns: a permit or a guard of this
//! very semaphore, whose release takes the lock (tokio #5429). So a new
//! waker is cloned before the lock is taken (and before any permit is, so
//! a clone that panics takes nothing), a replaced or removed waker is
//! dropped after the lock is released, and wakers collected under the lock
//! (in a bounded [`WakeList`]) run after it is released.
use super::wait_list::WaitList;
use super::wake_list::WakeList;
use super::{AcquireError, TryAcquireError};
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Mutex, MutexGuard};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Permits a semaphore can hold: three bits stay free (bit 0 is the closed
/// flag, and sums of two counts must not overflow), as in tokio.
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

const CLOSED: usize = 1;
const SHIFT: usize = 1;

/// tokio's message for a count above [`MAX_PERMITS`].
const TOO_MANY: &str = "a semaphore may not have more than MAX_PERMITS permits";

/// A fair, cancellation-safe counting semaphore (see the module docs).
pub(crate) struct FairSemaphore {
    permits: AtomicUsize,
    waiters: Mutex<WaitList<Waiter>>,
    /// tokio-console's `batch_semaphore` resource (`util/trace.rs`); none
    /// for the `const` constructors, as in tokio.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
}

/// A queued acquirer.
#[derive(Debug)]
struct Waiter {
    /// Permits asked for.
    needed: usize,
    /// Permits still missing; 0 once granted.
    missing: usize,
    /// Set when the semaphore closed while the waiter was queued.
    closed: bool,
    waker: Option<Waker>,
}

impl FairSemaphore {
    /// A semaphore with `permits` free permits.
    #[cfg(not(tokiwa_loom))]
    pub(crate) const fn new(permits: usize) -> FairSemaphore {
        assert!(
            permits <= MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits"
        );
        FairSemaphore {
            permits: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
        }
    }

    /// A semaphore with `permits` free permits (loom's types are not
    /// `const`).
    #[cfg(tokiwa_loom)]
    pub(crate) fn new(permits: usize) -> FairSemaphore {
        assert!(
            permits <= MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits"
        );
        FairSemaphore {
            permits: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
        }
    }

    /// A semaphore closed from the start, with no permits (a `OnceCell`
    /// made already initialised).
    #[cfg(not(tokiwa_loom))]
    pub(crate) const fn new_closed() -> FairSemaphore {
        FairSemaphore {
            permits: AtomicUsize::new(CLOSED),
            waiters: Mutex::new(WaitList::new()),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
        }
    }

    /// See the other `new_closed`.
    #[cfg(tokiwa_loom)]
    pub(crate) fn new_closed() -> FairSemaphore {
        FairSemaphore {
            permits: AtomicUsize::new(CLOSED),
            waiters: Mutex::new(WaitList::new()),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: tracing::Span::none(),
        }
    }

    /// A semaphore with `permits` free permits that tokio-console lists
    /// (the non-`const` constructors of the primitives built on it).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    pub(crate) fn new_traced(permits: usize) -> FairSemaphore {
        let mut semaphore = FairSemaphore::new(permits);
        semaphore.resource_span = tracing::trace_span!(
            target: "tokio::sync::batch_semaphore",
            parent: None,
            "runtime.resource",
            concrete_type = "Semaphore",
            kind = "Sync",
            is_internal = true,
        );
        semaphore.trace_permits(permits, "override");
        semaphore
    }

    /// A change of the free count (`op`: `override`, `add`, `sub`).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    fn trace_permits(&self, permits: usize, op: &'static str) {
        self.resource_span.in_scope(|| {
            tracing::trace!(
                target: "runtime::resource::state_update",
                permits = permits,
                permits.op = op,
            )
        });
    }

    fn lock(&self) -> MutexGuard<'_, WaitList<Waiter>> {
        // The list is consistent after every statement that holds the lock
        // (no user code, not even a waker's, runs under it), so a poisoned
        // lock is still sound.
        self.waiters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Permits free right now.
    pub(crate) fn available_permits(&self) -> usize {
        // Acquire: a reader of the count may go on to rely on permits
        // released before it (tests, `OnceCell`); the load is otherwise
        // advisory.
        self.permits.load(Ordering::Acquire) >> SHIFT
    }

    pub(crate) fn is_closed(&self) -> bool {
        // Acquire pairs with the Release `fetch_or` in `close`.
        self.permits.load(Ordering::Acquire) & CLOSED == CLOSED
    }

    /// Takes `n` free permits at once, or none.
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        assert!(n <= MAX_PERMITS, "{}", TOO_MANY);
        let wanted = n << SHIFT;
        // Acquire on every load and on success: the permits may have been
        // released by a task whose writes (the data a lock protects) the
        // new holder must see; that release was a Release operation.
        let mut curr = self.permits.load(Ordering::Acquire);
        loop {
            if curr & CLOSED == CLOSED {
                return Err(TryAcquireError::Closed);
            }
            if curr < wanted {
                return Err(TryAcquireError::NoPermits);
            }
            match self.permits.compare_exchange_weak(
                curr,
                curr - wanted,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(()),
                Err(actual) => curr = actual,
            }
        }
    }

    /// A future that resolves once `n` permits are held (in queue order),
    /// or fails if the semaphore closes first.
    pub(crate) fn acquire(&self, n: usize) -> Acquire<'_> {
        assert!(n <= MAX_PERMITS, "{}", TOO_MANY);
        Acquire {
            semaphore: self,
            needed: n,
            state: AcquireState::Idle,
        }
    }

    /// Gives `n` permits back: to the waiters first, in order, the rest
    /// free. Panics if the free count would exceed [`MAX_PERMITS`].
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        assert!(
            n <= MAX_PERMITS,
            "cannot add more than MAX_PERMITS permits ({MAX_PERMITS})"
        );
        self.release_locked(n, self.lock());
    }

    fn release_locked<'a>(&'a self, mut n: usize, mut waiters: MutexGuard<'a, WaitList<Waiter>>) {
        let mut wakers = WakeList::new();
        // What went to waiters and what to the free count, reported once
        // all is done (a panicking subscriber then leaves no waiter behind).
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let (mut to_waiters, mut to_free) = (0, 0);
        loop {
            while n > 0 && wakers.can_push() {
                let Some(key) = waiters.front() else { break };
                let waiter = waiters.get_mut(key);
                let given = n.min(waiter.missing);
                waiter.missing -= given;
                n -= given;
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                {
                    to_waiters += given;
                }
                if waiter.missing == 0 {
                    if let Some(waker) = waiter.waker.take() {
                        wakers.push(waker);
                    }
                    waiters.unlink(key);
                }
            }
            if n > 0 && waiters.is_empty() {
                // Release: the permits' new holders acquire-load the count.
                let prev = self.permits.fetch_add(n << SHIFT, Ordering::Release) >> SHIFT;
                assert!(
                    prev + n <= MAX_PERMITS,
                    "number of added permits ({n}) would overflow MAX_PERMITS ({MAX_PERMITS})"
                );
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                {
                    to_free += n;
                }
                n = 0;
            }
            drop(waiters);
            wakers.wake_all();
            if n == 0 {
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                self.trace_released(to_waiters, to_free);
                return;
            }
            // The batch of wakers was full: wake them outside the lock,
            // then go on with the rest of the queue.
            waiters = self.lock();
        }
    }

    /// A release's report: permits obtained by waiters, permits added.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    fn trace_released(&self, to_waiters: usize, to_free: usize) {
        if to_waiters > 0 {
            self.resource_span.in_scope(|| {
                tracing::trace!(
                    target: "runtime::resource::async_op::state_update",
                    permits_obtained = to_waiters,
                    permits.op = "add",
                )
            });
        }
        if to_free > 0 {
            self.trace_permits(to_free, "add");
        }
    }

    /// Permits `taken` by an acquire whose `state` gives them back if it
    /// is dropped (so a panicking subscriber loses none), then `done`.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    fn trace_taken(&self, taken: usize, state: &mut AcquireState, done: bool) {
        if done {
            *state = AcquireState::Granted;
        }
        self.trace_permits(taken, "sub");
    }

    /// Removes up to `n` free permits for good; returns how many.
    pub(crate) fn forget_permits(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Acquire/AcqRel as in `try_acquire`: forgetting is acquiring
        // permits that are never released.
        let mut curr = self.permits.load(Ordering::Acquire);
        loop {
            let free = curr >> SHIFT;
            let taken = free.min(n);
            let next = curr - (taken << SHIFT);
            match self.permits.compare_exchange_weak(
                curr,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return taken,
                Err(actual) => curr = actual,
            }
        }
    }

    /// Closes the semaphore: every queued and later acquire fails.
    pub(crate) fn close(&self) {
        let mut waiters = self.lock();
        // Release pairs with the Acquire loads of the flag. Under the lock,
        // so no waiter is queued after the queue below was emptied.
        self.permits.fetch_or(CLOSED, Ordering::Release);
        // Closing is rare: one allocation for the wakers is fine, and it
        // lets the whole queue go in one critical section.
        let mut wakers = Vec::new();
        let mut returned = 0;
        while let Some(key) = waiters.front() {
            let waiter = waiters.get_mut(key);
            waiter.closed = true;
            wakers.extend(waiter.waker.take());
            // What it was assigned so far goes back to the free count.
            returned += waiter.needed - waiter.missing;
            waiters.unlink(key);
        }
        if returned > 0 {
            // Release: as in `release_locked`.
            self.permits.fetch_add(returned << SHIFT, Ordering::Release);
        }
        drop(waiters);
        for waker in wakers {
            waker.wake();
        }
    }

    /// Polls a queue entry or makes one; see [`Acquire`].
    fn poll_acquire(
        &self,
        cx: &mut Context<'_>,
        needed: usize,
        state: &mut AcquireState,
    ) -> Poll<Result<(), AcquireError>> {
        match *state {
            AcquireState::Idle => {
                match self.try_acquire(needed) {
                    Ok(()) => {
                        #[cfg(all(tokio_unstable, feature = "tracing"))]
                        self.trace_taken(needed, state, true);
                        return self.finish(state, Ok(()));
                    }
                    Err(TryAcquireError::Closed) => {
                        return self.finish(state, Err(AcquireError(())))
                    }
                    Err(TryAcquireError::NoPermits) => {}
                }
                // Cloned before the lock and before any permit is taken
                // (see the module docs); dropped after the lock if unused.
                let waker = cx.waker().clone();
                let mut waiters = self.lock();
                // Take every free permit there is (at most `needed`), then
                // queue for the rest; under the lock, so no release can
                // pass between the two.
                let mut curr = self.permits.load(Ordering::Acquire);
                let taken = loop {
                    if curr & CLOSED == CLOSED {
                        drop(waiters);
                        return self.finish(state, Err(AcquireError(())));
                    }
                    let taken = (curr >> SHIFT).min(needed);
                    // AcqRel as in `try_acquire`.
                    match self.permits.compare_exchange_weak(
                        curr,
                        curr - (taken << SHIFT),
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    ) {
                        Ok(_) => break taken,
                        Err(actual) => curr = actual,
                    }
                };
                if taken == needed {
                    drop(waiters);
                    #[cfg(all(tokio_unstable, feature = "tracing"))]
                    self.trace_taken(taken, state, true);
                    return self.finish(state, Ok(()));
                }
                let key = waiters.push_back(Waiter {
                    needed,
                    missing: needed - taken,
                    closed: false,
                    waker: Some(waker),
                });
                *state = AcquireState::Queued(key);
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                if taken > 0 {
                    drop(waiters);
                    self.trace_taken(taken, state, false);
                }
                Poll::Pending
            }
            AcquireState::Queued(key) => self.poll_queued(cx, needed, key, state),
            AcquireState::Granted => self.finish_granted(needed, state),
            AcquireState::Done => panic!("`Acquire` polled after completion"),
        }
    }

    /// Polls a queue entry: its outcome, or a new waker for it.
    fn poll_queued(
        &self,
        cx: &mut Context<'_>,
        needed: usize,
        key: usize,
        state: &mut AcquireState,
    ) -> Poll<Result<(), AcquireError>> {
        // A waker cloned on an earlier turn of the loop, with the lock
        // released (see the module docs).
        let mut new_waker: Option<Waker> = None;
        loop {
            let mut waiters = self.lock();
            if !waiters.is_linked(key) {
                // Granted or closed. Its waker was taken by whoever
                // unlinked it; the entry is dropped outside the lock all
                // the same.
                let waiter = waiters.remove(key);
                drop(waiters);
                drop(new_waker);
                if waiter.closed {
                    return self.finish(state, Err(AcquireError(())));
                }
                return self.finish_granted(needed, state);
            }
            let slot = &mut waiters.get_mut(key).waker;
            if slot.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                drop(waiters);
                return Poll::Pending;
            }
            match new_waker.take() {
                Some(waker) => {
                    let old = slot.replace(waker);
                    drop(waiters);
                    drop(old);
                    return Poll::Pending;
                }
                None => {
                    // Clone with the lock released, then look again: the
                    // entry may have been granted meanwhile.
                    drop(waiters);
                    new_waker = Some(cx.waker().clone());
                }
            }
        }
    }

    /// Completes an acquire that holds its `needed` permits: `Ok`, unless
    /// the semaphore closed since they were granted; then, as tokio, the
    /// permits go back and the acquire fails, so that nothing acquires
    /// after `close()`.
    fn finish_granted(
        &self,
        needed: usize,
        state: &mut AcquireState,
    ) -> Poll<Result<(), AcquireError>> {
        if self.is_closed() {
            *state = AcquireState::Done;
            self.release(needed);
            return Poll::Ready(Err(AcquireError(())));
        }
        self.finish(state, Ok(()))
    }

    fn finish(
        &self,
        state: &mut AcquireState,
        result: Result<(), AcquireError>,
    ) -> Poll<Result<(), AcquireError>> {
        *state = AcquireState::Done;
        Poll::Ready(result)
    }

    /// A dropped [`Acquire`] gives back what it was assigned.
    fn cancel(&self, key: usize) {
        let mut waiters = self.lock();
        let linked = waiters.is_linked(key);
        let waiter = waiters.remove(key);
        let assigned = if waiter.closed {
            // `close` already returned its partial assignment.
            0
        } else if linked {
            waiter.needed - waiter.missing
        } else {
            // Granted, but the future never saw it.
            waiter.needed
        };
        if assigned > 0 {
            self.release_locked(assigned, waiters);
        } else {
            drop(waiters);
        }
        // The entry's waker (still there if it was queued) is dropped only
        // now, with the lock released: it may own a permit of this
        // semaphore.
        drop(waiter);
    }
}

impl fmt::Debug for FairSemaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .finish()
    }
}

#[derive(Debug, Clone, Copy)]
enum AcquireState {
    /// Not polled yet.
    Idle,
    /// In the queue under this key.
    Queued(usize),
    /// Holds the permits, but the task's budget was spent: they are handed
    /// over at the next poll (or given back on drop, or at that poll if the
    /// semaphore closed meanwhile).
    Granted,
    /// Returned `Ready`.
    Done,
}

/// Future of [`FairSemaphore::acquire`]. On success the permits are the
/// caller's to release; dropped before completing, it gives back whatever
/// was assigned to it.
#[must_use = "futures do nothing unless polled"]
#[derive(Debug)]
pub(crate) struct Acquire<'a> {
    semaphore: &'a FairSemaphore,
    needed: usize,
    state: AcquireState,
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let result =
            std::task::ready!(this
                .semaphore
                .poll_acquire(cx, this.needed, &mut this.state));
        // The budget is checked once the permits are taken, as tokio
        // 1.54.1's `batch_semaphore::Acquire::poll` does (its test
        // `mutex_coop_drop_after_take_permit`): a task out of budget still
        // takes its place in the queue (and keeps the lock's FIFO order),
        // and an uncontended one takes the permits; either yields holding
        // them (`Granted`), and gets them at its next poll, fails then if
        // the semaphore closed meanwhile, or gives them back if dropped.
        if result.is_ok() {
            match crate::sync::budget::poll_proceed(cx) {
                Poll::Ready(coop) => coop.made_progress(),
                Poll::Pending => {
                    this.state = AcquireState::Granted;
                    return Poll::Pending;
                }
            }
        }
        Poll::Ready(result)
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        match self.state {
            AcquireState::Queued(key) => self.semaphore.cancel(key),
            AcquireState::Granted => self.semaphore.release(self.needed),
            AcquireState::Idle | AcquireState::Done => {}
        }
    }
}

/// Loom models of the semaphore core: run with
/// `RUSTFLAGS="--cfg tokiwa_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release
/// ... --features sync,rt --lib loom_`.
#[cfg(all(test, tokiwa_loom))]
mod loom_tests {
    use super::FairSemaphore;
    use crate::loom::sync::Arc;
    use loom::future::block_on;
    use loom::thread;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Waker};

    /// A waiter that blocks (parks its loom thread) until a release on
    /// another thread: if the release could slip between the waiter's
    /// "no permit" and its waker being stored, loom reports a deadlock.
    #[test]
    fn loom_no_lost_wakeup_between_release_and_acquire() {
        loom::model(|| {
            let sem = Arc::new(FairSemaphore::new(0));
            let waiter = {
                let sem = sem.clone();
                thread::spawn(move || {
                    block_on(sem.acquire(1)).unwrap();
                    sem.release(1);
                })
            };
            sem.release(1);
            waiter.join().unwrap();
            assert_eq!(sem.available_permits(), 1);
        });
    }

    /// A waiter polled once and dropped (a cancelled `acquire`), racing a
    /// release and a second waiter: whatever was assigned to the dropped
    /// one goes on, so the second completes (no deadlock) and every permit
    /// is accounted for at the end.
    #[test]
    fn loom_dropped_waiter_permits_are_not_lost() {
        loom::model(|| {
            let sem = Arc::new(FairSemaphore::new(0));
            let cancelled = {
                let sem = sem.clone();
                thread::spawn(move || {
                    let mut acquire = pin!(sem.acquire(2));
                    let mut cx = Context::from_waker(Waker::noop());
                    if acquire.as_mut().poll(&mut cx).is_ready() {
                        // It got both permits: as a permit would, give them
                        // back.
                        sem.release(2);
                    }
                })
            };
            let waiter = {
                let sem = sem.clone();
                thread::spawn(move || {
                    block_on(sem.acquire(1)).unwrap();
                    sem.release(1);
                })
            };
            sem.release(2);
            cancelled.join().unwrap();
            waiter.join().unwrap();
            assert_eq!(sem.available_permits(), 2);
        });
    }

    /// `close` racing a blocked waiter: the waiter wakes with an error (or
    /// got the permit first); it never sleeps forever.
    #[test]
    fn loom_close_wakes_a_blocked_waiter() {
        loom::model(|| {
            let sem = Arc::new(FairSemaphore::new(0));
            let waiter = {
                let sem = sem.clone();
                thread::spawn(move || block_on(sem.acquire(1)).is_err())
            };
            sem.close();
            assert!(waiter.join().unwrap());
        });
    }
}
