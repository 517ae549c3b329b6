//! The time driver: one timing wheel per worker, and what a worker's park
//! slot does with it.
//!
//! **Per-worker wheels.** A timer goes into the wheel of the worker that
//! first polls it (`runtime::worker_index`), or round-robin when it is
//! polled off the workers, and stays in that wheel until it fires or is
//! dropped (a reset moves it within its wheel). Each wheel sits behind its
//! own mutex, so a `Sleep` re-polled, reset or dropped on another thread
//! still works, while the common case (a task's timers on its own worker)
//! never contends with other workers.
//!
//! **Parking.** A worker with nothing to run calls [`TimeHandle::park`]:
//! under the wheel's lock it computes the exact earliest deadline `D`
//! (nanoseconds, from the deadlines the wheel stores, not rounded to its
//! millisecond ticks) and records "worker sleeps until `D`" in
//! `parked_until`, then blocks on its parker for `D - now`. An insert of an
//! earlier timer, from any thread, sees that record under the same lock and
//! unparks the worker (the parker keeps the token, so an unpark that lands
//! before the worker blocks is not lost). After waking, the worker marks
//! itself awake, and the scheduler calls [`TimeHandle::process`].
//!
//! **Busy workers' timers.** A worker stuck in a long poll does not process
//! its wheel, and an insert into its wheel does not unpark it (it is
//! awake). So one parked worker at a time is the *watcher*: it also waits
//! for the earliest deadline of the wheels whose owners are awake, and fires
//! their expired timers when it wakes. It publishes the instant it will
//! wake in `watch_until`; an insert into an awake owner's wheel that is
//! earlier unparks the watcher. The two sides are a store-then-load pair
//! on `next_deadline` and `watch_until` (all `SeqCst`): either the watcher
//! reads the new timer's deadline or the inserter reads the watcher's wake
//! time. Best effort beyond that: while the watcher is awake nobody
//! watches, and the next worker to park takes the role. Processing a wheel
//! from two threads is safe: it is one lock.
//!
//! **Processing** is called by a worker before and after parking and every
//! `event_interval` ticks while busy, so it must be cheap when nothing is
//! due: `next_deadline` is an atomic lower bound of the wheel's earliest
//! deadline (`u64::MAX`: empty), checked before the lock is taken. Expired
//! entries are marked fired under the lock, and their wakers are woken
//! after it is released, in deadline order (a waker may drop other timers,
//! which takes the lock again).
//!
//! **Paused clock** (`test-util`, current-thread only): parking consumes a
//! pending unpark token (`park(Some(ZERO))`), and if there was none and no
//! blocking task inhibits it, advances the clock to the next deadline
//! instead of sleeping. This is tokio's rule: the runtime only jumps ahead
//! when nothing else could happen first.
//!
//! **Shutdown** fires every remaining timer; a `Sleep` polled afterwards
//! panics with tokio's message ("A Tokio 1.x context was found, but it is
//! being shutdown."), one registered afterwards never enters a wheel. With
//! `Builder::enable_alt_timer` (`tokio_unstable`), a `Sleep` that fired
//! stays ready after shutdown instead, as under tokio's alternative timer.
//!
//! Times are nanoseconds since the driver's creation (`origin`), `u64`:
//! 584 years. `u64::MAX` is "never" (a deadline past that range); the clock
//! reading stops one short of it, so such a timer never fires.
use super::clock::Clock;
use super::entry::EntryPtr;
use super::wheel::{Key, Wheel};
use super::Instant;
use crate::loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::runtime::driver::Unparker;
use crossbeam_utils::CachePadded;
use std::fmt;
use std::task::Waker;
use std::time::Duration;

/// `parked_until` of a worker that is not blocked.
const AWAKE: u64 = 0;

/// `watcher` when no worker watches the busy wheels.
const NO_WATCHER: usize = usize::MAX;

/// How many timers `park` scans to refresh a stale minimum before it
/// settles for the lower bound (a possibly early wakeup). A paused clock
/// always scans everything: it jumps to the deadline it is given.
const SCAN_LIMIT: usize = 128;

/// One timing wheel per worker, shared by the runtime.
pub(crate) struct TimeHandle {
    clock: Clock,
    /// The instant time 0 of the wheels stands for.
    origin: std::time::Instant,
    wheels: Box<[CachePadded<WheelCell>]>,
    unparkers: Vec<Unparker>,
    /// Round-robin choice for timers first polled off the workers.
    /// `Relaxed`: it only spreads load.
    next_wheel: AtomicUsize,
    is_shutdown: AtomicBool,
    /// The parked worker that watches the busy workers' wheels, or
    /// [`NO_WATCHER`].
    watcher: AtomicUsize,
    /// When the watcher will wake (`u64::MAX`: not before it is unparked).
    watch_until: AtomicU64,
    /// `Builder::enable_alt_timer`: a fired timer polled after shutdown
    /// is ready instead of panicking.
    #[cfg(all(tokio_unstable, feature = "rt-multi-thread"))]
    fired_ready_after_shutdown: bool,
}

struct WheelCell {
    wheel: Mutex<Wheel<EntryPtr>>,
    /// A lower bound of the earliest deadline in `wheel` (`u64::MAX`:
    /// none), for `process`'s check without the lock. Lowered by inserts
    /// and set by `process`/`park`, always under the lock; only removals
    /// (which leave it low) happen without touching it.
    next_deadline: AtomicU64,
    /// The deadline the worker sleeps until (`u64::MAX`: no timeout),
    /// [`AWAKE`] while it is not blocked. Set under the lock before
    /// blocking, read under the lock by inserts.
    parked_until: AtomicU64,
}

/// A locked wheel. Notes inserted deadlines so that the worker is unparked,
/// after the lock is released, when one of them is earlier than the
/// deadline it sleeps until.
pub(crate) struct LockedWheel<'a> {
    time: &'a TimeHandle,
    index: usize,
    wheel: Option<MutexGuard<'a, Wheel<EntryPtr>>>,
    /// The worker to unpark once unlocked: the wheel's owner, or the
    /// watcher.
    unpark: Option<usize>,
}

impl TimeHandle {
    /// Wheels for `unparkers.len()` workers; `unparkers[i]` wakes worker
    /// `i` when an earlier timer is inserted into its wheel while it sleeps.
    pub(crate) fn new(unparkers: Vec<Unparker>, start_paused: bool) -> TimeHandle {
        let wheels = unparkers
            .iter()
            .map(|_| {
                CachePadded::new(WheelCell {
                    wheel: Mutex::new(Wheel::new()),
                    next_deadline: AtomicU64::new(u64::MAX),
                    parked_until: AtomicU64::new(AWAKE),
                })
            })
            .collect();
        // The origin first: a clock started paused then reads at or after it.
        let origin = std::time::Instant::now();
        TimeHandle {
            clock: Clock::new(start_paused),
            origin,
            wheels,
            unparkers,
            next_wheel: AtomicUsize::new(0),
            is_shutdown: AtomicBool::new(false),
            watcher: AtomicUsize::new(NO_WATCHER),
            watch_until: AtomicU64::new(u64::MAX),
            #[cfg(all(tokio_unstable, feature = "rt-multi-thread"))]
            fired_ready_after_shutdown: false,
        }
    }

    /// tokio's alternative timer's rule (`Builder::enable_alt_timer`): a
    /// timer that fired is ready when polled after shutdown.
    #[cfg(all(tokio_unstable, feature = "rt-multi-thread"))]
    pub(crate) fn keep_fired_timers_ready_after_shutdown(&mut self) {
        self.fired_ready_after_shutdown = true;
    }

    /// Whether a timer in `elapsed` state may be polled after shutdown.
    pub(crate) fn fired_ready_after_shutdown(&self) -> bool {
        #[cfg(all(tokio_unstable, feature = "rt-multi-thread"))]
        return self.fired_ready_after_shutdown;
        #[cfg(not(all(tokio_unstable, feature = "rt-multi-thread")))]
        false
    }

    #[cfg(feature = "test-util")]
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The clock's reading, in nanoseconds since `origin` (below
    /// `u64::MAX`, which means never).
    pub(crate) fn now_ns(&self) -> u64 {
        self.to_ns(Instant::from_std(self.clock.now()))
            .min(u64::MAX - 1)
    }

    /// `instant` in nanoseconds since `origin`: 0 if before it, `u64::MAX`
    /// (never) if beyond the range.
    pub(crate) fn to_ns(&self, instant: Instant) -> u64 {
        let since = instant.into_std().saturating_duration_since(self.origin);
        u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
    }

    /// The wheel a timer first polled here goes to.
    pub(crate) fn pick_wheel(&self) -> usize {
        let n = self.wheels.len();
        match crate::runtime::worker_index() {
            // On a worker of another runtime the index is still a valid
            // (if arbitrary) choice.
            Some(index) => index % n,
            None => self.next_wheel.fetch_add(1, Ordering::Relaxed) % n,
        }
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        self.is_shutdown.load(Ordering::SeqCst)
    }

    /// Locks wheel `index`.
    pub(crate) fn lock(&self, index: usize) -> LockedWheel<'_> {
        LockedWheel {
            time: self,
            index,
            wheel: Some(self.wheels[index].wheel.lock().unwrap()),
            unpark: None,
        }
    }

    /// The blocking step of worker `wheel`: calls `park` with the time
    /// until the wheel's next deadline (`None`: no timer). `park` returns
    /// whether an unpark token woke it.
    pub(crate) fn park(&self, wheel: usize, park: impl FnOnce(Option<Duration>) -> bool) {
        let cell = &self.wheels[wheel];
        #[cfg(feature = "test-util")]
        let paused = self.clock.is_paused();
        #[cfg(not(feature = "test-util"))]
        let paused = false;
        let next = {
            let mut guard = cell.wheel.lock().unwrap();
            let next = guard.next_deadline(if paused { usize::MAX } else { SCAN_LIMIT });
            let next = next.unwrap_or(u64::MAX);
            // Both under the lock: an insert sees either the timer already
            // counted in `next` or this record (see the module docs).
            cell.next_deadline.store(next, Ordering::SeqCst);
            cell.parked_until.store(next.max(1), Ordering::SeqCst);
            (next != u64::MAX).then_some(next)
        };
        #[cfg(feature = "test-util")]
        if paused {
            self.park_paused(next, park);
            cell.parked_until.store(AWAKE, Ordering::SeqCst);
            return;
        }
        let _ = paused;
        // One parked worker watches the wheels of the awake ones.
        let watching = self.wheels.len() > 1
            && self
                .watcher
                .compare_exchange(NO_WATCHER, wheel, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok();
        let mut next = next;
        if watching {
            // Publish first, then read the busy wheels (see the module docs).
            self.watch_until
                .store(next.unwrap_or(u64::MAX), Ordering::SeqCst);
            if let Some(busy) = self.busy_wheels_deadline(wheel) {
                self.watch_until.fetch_min(busy, Ordering::SeqCst);
                next = Some(next.map_or(busy, |own| own.min(busy)));
            }
        }
        // Read after the lock, right before blocking: the timeout is never
        // longer than the time left (the condvar measures from a later
        // instant still).
        let timeout = next.map(|d| Duration::from_nanos(d.saturating_sub(self.now_ns())));
        park(timeout);
        cell.parked_until.store(AWAKE, Ordering::SeqCst);
        if watching {
            self.watcher.store(NO_WATCHER, Ordering::SeqCst);
            self.process_busy_wheels(wheel);
        }
    }

    /// The earliest deadline (a lower bound) of the other workers' wheels
    /// whose owners are awake.
    fn busy_wheels_deadline(&self, me: usize) -> Option<u64> {
        let busy = self
            .wheels
            .iter()
            .enumerate()
            .filter(|&(j, cell)| j != me && cell.parked_until.load(Ordering::SeqCst) == AWAKE)
            .map(|(_, cell)| cell.next_deadline.load(Ordering::SeqCst))
            .min()?;
        (busy != u64::MAX).then_some(busy)
    }

    /// Fires the expired timers of the wheels whose owners are awake.
    /// (Waking from here schedules the tasks remotely: this worker holds no
    /// core in its context while it parks.)
    fn process_busy_wheels(&self, me: usize) {
        for (j, cell) in self.wheels.iter().enumerate() {
            if j != me && cell.parked_until.load(Ordering::SeqCst) == AWAKE {
                self.process(j);
            }
        }
    }

    /// Parking on a paused clock: jump to the next deadline instead of
    /// sleeping, when nothing woke the runtime and nothing inhibits it.
    #[cfg(feature = "test-util")]
    fn park_paused(&self, next: Option<u64>, park: impl FnOnce(Option<Duration>) -> bool) {
        let Some(deadline) = next else {
            // No timer: wait for a wake, as tokio does.
            park(None);
            return;
        };
        let now = self.now_ns();
        if deadline <= now {
            park(Some(Duration::ZERO));
        } else if self.clock.can_auto_advance() {
            if !park(Some(Duration::ZERO)) {
                self.clock
                    .advance_to(self.origin + Duration::from_nanos(deadline));
            }
        } else {
            // A blocking task runs: wait for it (or the deadline) in real
            // time.
            park(Some(Duration::from_nanos(deadline - now)));
        }
    }

    /// Fires the expired timers of `wheel`; returns how many fired.
    pub(crate) fn process(&self, wheel: usize) -> usize {
        let cell = &self.wheels[wheel];
        let hint = cell.next_deadline.load(Ordering::SeqCst);
        if hint == u64::MAX {
            return 0;
        }
        let now = self.now_ns();
        if now < hint {
            return 0;
        }
        self.process_at(cell, now)
    }

    /// Fires the expired timers of every wheel (`time::advance`).
    #[cfg(feature = "test-util")]
    pub(crate) fn process_all(&self) {
        for wheel in 0..self.wheels.len() {
            self.process(wheel);
        }
    }

    fn process_at(&self, cell: &WheelCell, now: u64) -> usize {
        let mut fired: Vec<(u64, Waker)> = Vec::new();
        let mut count = 0;
        {
            let mut wheel = cell.wheel.lock().unwrap();
            wheel.process(now, |entry, deadline| {
                count += 1;
                // SAFETY: the entry was in the wheel until now and the
                // wheel's lock is held (see `EntryPtr`).
                if let Some(waker) = unsafe { entry.fire() } {
                    fired.push((deadline, waker));
                }
            });
            let next = wheel.next_deadline(SCAN_LIMIT).unwrap_or(u64::MAX);
            cell.next_deadline.store(next, Ordering::SeqCst);
        }
        // Wake in deadline order (the wheel hands over a slot's timers in
        // list order): tasks whose timers a jump passed run in order.
        fired.sort_by_key(|&(deadline, _)| deadline);
        for (_, waker) in fired {
            waker.wake();
        }
        count
    }

    /// Runtime shutdown: fires every pending timer. Later polls panic.
    pub(crate) fn shutdown(&self) {
        if self.is_shutdown.swap(true, Ordering::SeqCst) {
            return;
        }
        for cell in self.wheels.iter() {
            let mut wakers = Vec::new();
            {
                let mut wheel = cell.wheel.lock().unwrap();
                wheel.drain(|entry, _| {
                    // SAFETY: as in `process_at`.
                    if let Some(waker) = unsafe { entry.fire() } {
                        wakers.push(waker);
                    }
                });
                cell.next_deadline.store(u64::MAX, Ordering::SeqCst);
            }
            for waker in wakers {
                waker.wake();
            }
        }
    }

    /// Wakes every worker (a paused clock's inhibitor went away).
    #[cfg(feature = "test-util")]
    pub(crate) fn unpark_all(&self) {
        for unparker in &self.unparkers {
            unparker.unpark();
        }
    }
}

impl LockedWheel<'_> {
    fn wheel(&mut self) -> &mut Wheel<EntryPtr> {
        self.wheel.as_mut().expect("locked")
    }

    /// Stores `entry` at `deadline`; `None` (nothing stored) once the
    /// driver is shut down.
    pub(crate) fn insert(&mut self, deadline: u64, entry: EntryPtr) -> Option<Key> {
        // Checked under the lock: `shutdown` sets the flag before it drains,
        // so an insert after the drain sees it.
        if self.time.is_shutdown() {
            return None;
        }
        let key = self.wheel().insert(deadline, entry);
        self.note(deadline);
        Some(key)
    }

    /// Moves a stored timer to `deadline`.
    pub(crate) fn reset(&mut self, key: Key, deadline: u64) {
        self.wheel().reset(key, deadline);
        self.note(deadline);
    }

    /// Removes a stored timer.
    pub(crate) fn remove(&mut self, key: Key) {
        self.wheel().remove(key);
    }

    /// A timer now due at `deadline`: lower the hint, and unpark the
    /// wheel's owner if it sleeps past it, or the watcher if the owner is
    /// awake and the watcher sleeps past it.
    fn note(&mut self, deadline: u64) {
        let time = self.time;
        let cell = &time.wheels[self.index];
        cell.next_deadline.fetch_min(deadline, Ordering::SeqCst);
        let until = cell.parked_until.load(Ordering::SeqCst);
        if until != AWAKE {
            if deadline < until {
                // Later inserts compare with this deadline: one unpark per
                // earlier timer, not per insert. (A failed exchange means
                // the owner woke meanwhile.)
                let _ = cell.parked_until.compare_exchange(
                    until,
                    deadline.max(1),
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                );
                self.unpark = Some(self.index);
            }
            return;
        }
        let watcher = time.watcher.load(Ordering::SeqCst);
        if watcher != NO_WATCHER
            && watcher != self.index
            && time.watch_until.fetch_min(deadline, Ordering::SeqCst) > deadline
        {
            self.unpark = Some(watcher);
        }
    }
}

impl Drop for LockedWheel<'_> {
    fn drop(&mut self) {
        drop(self.wheel.take());
        if let Some(worker) = self.unpark {
            self.time.unparkers[worker].unpark();
        }
    }
}

impl fmt::Debug for TimeHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimeHandle")
            .field("wheels", &self.wheels.len())
            .field("is_shutdown", &self.is_shutdown())
            .finish_non_exhaustive()
    }
}
