//! The clock a runtime's timers run on and, with `test-util`, tokio's
//! paused clock (`pause`, `resume`, `advance`, auto-advance).
//!
//! Without `test-util` the clock is `std::time::Instant::now()` and nothing
//! else. With it, each runtime's time driver owns a [`Clock`] that can be
//! frozen: while paused, `now` is a stored instant that only [`advance`] and
//! auto-advance move. Auto-advance is the time driver's business
//! (`driver.rs`, `TimeHandle::park`): a current-thread runtime with nothing
//! to do jumps its clock to the next timer instead of sleeping, unless a
//! `spawn_blocking` task is running ([`AutoAdvanceInhibit`]) or something
//! woke the runtime during that turn.
//!
//! [`Instant::now`](crate::time::Instant::now) consults the current
//! runtime's clock only once some clock of the process was paused
//! (`DID_PAUSE`), so a program that never pauses pays one relaxed load.
//!
//! Behaviour and panic messages follow tokio's `time::clock` (1.x): pausing
//! needs a current-thread runtime, pausing twice or resuming/advancing an
//! unpaused clock panics, and `advance` completes after one yield, by which
//! time every timer it passed has fired.
#[cfg(all(feature = "test-util", feature = "rt-multi-thread"))]
pub(crate) use self::test_util::PAUSE_NEEDS_CURRENT_THREAD;
#[cfg(feature = "test-util")]
pub use self::test_util::{advance, pause, resume};
#[cfg(feature = "test-util")]
pub(crate) use self::test_util::{now_in_context, AutoAdvanceInhibit};

#[cfg(feature = "test-util")]
use crate::loom::sync::Mutex;

/// A runtime's source of time.
#[derive(Debug)]
pub(crate) struct Clock {
    #[cfg(feature = "test-util")]
    paused: Mutex<Paused>,
    /// Whether this clock was ever paused: until then `now` skips the
    /// mutex. Written once under the mutex; `Relaxed` readers that miss
    /// the write only read std's clock, which is what the clock showed
    /// until that moment.
    #[cfg(feature = "test-util")]
    ever_paused: crate::loom::sync::atomic::AtomicBool,
}

#[cfg(feature = "test-util")]
#[derive(Debug)]
struct Paused {
    /// The clock's reading when `unfrozen` was last set (or, while paused,
    /// its frozen reading).
    base: std::time::Instant,
    /// When the clock was last resumed; `None` while paused.
    unfrozen: Option<std::time::Instant>,
    /// Blocking tasks running that forbid auto-advance.
    inhibitors: usize,
}

impl Clock {
    /// A running clock, or a paused one when `start_paused` (which only
    /// `test-util` builds can ask for).
    pub(crate) fn new(start_paused: bool) -> Clock {
        #[cfg(not(feature = "test-util"))]
        {
            debug_assert!(!start_paused, "start_paused without test-util");
            Clock {}
        }
        #[cfg(feature = "test-util")]
        {
            let now = std::time::Instant::now();
            let clock = Clock {
                paused: Mutex::new(Paused {
                    base: now,
                    unfrozen: Some(now),
                    inhibitors: 0,
                }),
                ever_paused: crate::loom::sync::atomic::AtomicBool::new(false),
            };
            if start_paused {
                clock.pause().expect("a new clock runs");
            }
            clock
        }
    }

    /// The paused state. Nothing panics while holding it, but a poisoned
    /// clock must not take the runtime down with it either.
    #[cfg(feature = "test-util")]
    fn lock(&self) -> crate::loom::sync::MutexGuard<'_, Paused> {
        self.paused.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The clock's current reading.
    pub(crate) fn now(&self) -> std::time::Instant {
        #[cfg(feature = "test-util")]
        if self
            .ever_paused
            .load(crate::loom::sync::atomic::Ordering::Relaxed)
        {
            let paused = self.lock();
            return match paused.unfrozen {
                Some(unfrozen) => paused.base + unfrozen.elapsed(),
                None => paused.base,
            };
        }
        std::time::Instant::now()
    }
}

#[cfg(feature = "test-util")]
mod test_util {
    use super::Clock;
    use crate::loom::sync::atomic::{AtomicBool, Ordering};
    use crate::runtime::context;
    use crate::runtime::scheduler;
    use crate::time::driver::TimeHandle;
    use crate::time::{Duration, Instant};

    /// tokio's message, its unbalanced backtick included.
    pub(crate) const PAUSE_NEEDS_CURRENT_THREAD: &str =
        "`time::pause()` requires the `current_thread` Tokio runtime. \
         This is the default Runtime used by `#[tokio::test].";
    const OUTSIDE_RUNTIME: &str = "time cannot be frozen from outside the Tokio runtime";
    const ALREADY_FROZEN: &str = "time is already frozen";
    const NOT_FROZEN: &str = "time is not frozen";
    const TIMERS_DISABLED: &str = "A Tokio 1.x context was found, but timers are disabled. \
         Call `enable_time` on the runtime builder to enable timers.";

    /// Whether any clock of the process was ever paused. A std atomic in a
    /// static (loom's cannot be). `Relaxed`: a reader that misses the flag
    /// reads std's clock, which is what a clock paused concurrently by
    /// another thread showed at that moment anyway.
    static DID_PAUSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    impl Clock {
        pub(crate) fn pause(&self) -> Result<(), &'static str> {
            let mut paused = self.lock();
            let Some(unfrozen) = paused.unfrozen else {
                return Err(ALREADY_FROZEN);
            };
            paused.base += unfrozen.elapsed();
            paused.unfrozen = None;
            // Published under the mutex: see `ever_paused`.
            self.ever_paused.store(true, Ordering::Relaxed);
            DID_PAUSE.store(true, Ordering::Relaxed);
            Ok(())
        }

        fn resume(&self) -> Result<(), &'static str> {
            let mut paused = self.lock();
            if paused.unfrozen.is_some() {
                return Err(NOT_FROZEN);
            }
            paused.unfrozen = Some(std::time::Instant::now());
            Ok(())
        }

        /// Moves a paused clock forward by `duration` (an overflow is an
        /// error with `Instant + Duration`'s panic message).
        fn advance(&self, duration: Duration) -> Result<(), &'static str> {
            let mut paused = self.lock();
            if paused.unfrozen.is_some() {
                return Err(NOT_FROZEN);
            }
            // Checked, so that the panic comes after the lock is released.
            match paused.base.checked_add(duration) {
                Some(base) => paused.base = base,
                None => return Err("overflow when adding duration to instant"),
            }
            Ok(())
        }

        /// Auto-advance: moves a paused clock forward to `target` (never
        /// back).
        pub(crate) fn advance_to(&self, target: std::time::Instant) {
            let mut paused = self.lock();
            if paused.unfrozen.is_none() && paused.base < target {
                paused.base = target;
            }
        }

        pub(crate) fn is_paused(&self) -> bool {
            self.ever_paused.load(Ordering::Relaxed) && self.lock().unfrozen.is_none()
        }

        pub(crate) fn can_auto_advance(&self) -> bool {
            let paused = self.lock();
            paused.unfrozen.is_none() && paused.inhibitors == 0
        }

        fn inhibit_auto_advance(&self) {
            self.lock().inhibitors += 1;
        }

        fn allow_auto_advance(&self) {
            self.lock().inhibitors -= 1;
        }
    }

    /// Runs `f` with the current runtime's time driver, or returns the
    /// message to panic with.
    fn with_time<R>(
        f: impl FnOnce(&scheduler::Handle, &TimeHandle) -> Result<R, &'static str>,
    ) -> Result<R, &'static str> {
        match context::with_current(|handle| match handle.driver().time_opt() {
            Some(time) => f(handle, time),
            None => Err(TIMERS_DISABLED),
        }) {
            Ok(result) => result,
            Err(e) if e.is_missing_context() => Err(OUTSIDE_RUNTIME),
            Err(_) => Err(context::THREAD_LOCAL_DESTROYED_ERROR),
        }
    }

    /// Pauses time.
    ///
    /// The current value of [`Instant::now()`] is saved, and every later
    /// call returns it until [`advance`] moves it or the runtime
    /// auto-advances: when a runtime with a paused clock has no work to do,
    /// its clock jumps to the next pending timer, so `sleep` and the other
    /// timers complete at once, in order, at the instants they asked for.
    /// Only tokiwa's [`Instant`] is affected; `std::time::Instant` keeps
    /// running.
    ///
    /// The clock is not auto-advanced while a [`spawn_blocking`] task is
    /// running, nor in a turn in which something (I/O, a wake from another
    /// thread) woke the runtime.
    ///
    /// Pausing needs the `current_thread` runtime, the default of
    /// `#[tokio::test]`; [`Builder::start_paused`] and
    /// `#[tokio::test(start_paused = true)]` start a runtime paused.
    ///
    /// # Panics
    ///
    /// If time is already paused, or when called outside a current-thread
    /// runtime.
    ///
    /// [`spawn_blocking`]: crate::task::spawn_blocking
    /// [`Builder::start_paused`]: crate::runtime::Builder::start_paused
    #[track_caller]
    pub fn pause() {
        let res = with_time(|handle, time| match handle {
            scheduler::Handle::MultiThread(_) => Err(PAUSE_NEEDS_CURRENT_THREAD),
            scheduler::Handle::CurrentThread(_) => time.clock().pause(),
        });
        if let Err(msg) = res {
            panic!("{msg}");
        }
    }

    /// Resumes time: [`Instant::now()`] follows the system clock again,
    /// from where the paused clock stood.
    ///
    /// # Panics
    ///
    /// If time is not paused, or when called outside a runtime.
    #[track_caller]
    pub fn resume() {
        if let Err(msg) = with_time(|_, time| time.clock().resume()) {
            panic!("{msg}");
        }
    }

    /// Advances a paused clock by `duration`, in one jump.
    ///
    /// Every timer whose deadline the jump passes fires "at the same
    /// time" (their tasks are woken in deadline order). The function then
    /// yields once, so by the time it completes those tasks have been
    /// woken. To let timers fire one after another with the clock at each
    /// deadline in turn, `sleep` instead and let the runtime auto-advance.
    ///
    /// # Panics
    ///
    /// If time is not paused, when called outside a runtime, or if
    /// `duration` is too large to add to the clock (`Duration::MAX`).
    pub async fn advance(duration: Duration) {
        let handle =
            with_time(|handle, time| time.clock().advance(duration).map(|()| handle.clone()));
        let handle = handle.unwrap_or_else(|msg| panic!("{msg}"));
        handle.driver().time().process_all();
        crate::task::yield_now().await;
    }

    /// `Instant::now()` on a paused clock: the current runtime's reading,
    /// or `None` where std's clock applies (no clock was ever paused, no
    /// runtime, no timers).
    pub(crate) fn now_in_context() -> Option<Instant> {
        if !DID_PAUSE.load(Ordering::Relaxed) {
            return None;
        }
        context::with_current(|handle| {
            handle
                .driver()
                .time_opt()
                .map(|time| Instant::from_std(time.clock().now()))
        })
        .ok()
        .flatten()
    }

    /// Forbids auto-advance of a current-thread runtime's clock while a
    /// blocking task lives (tokio's rule: the blocking task may be what the
    /// runtime waits for). Released once, by [`AutoAdvanceInhibit::release`]
    /// when the task completes, or on drop.
    #[derive(Debug)]
    pub(crate) struct AutoAdvanceInhibit {
        handle: scheduler::Handle,
        /// Set by the one release. A read-modify-write, which is all the
        /// exactly-once needs.
        released: AtomicBool,
    }

    impl AutoAdvanceInhibit {
        /// An inhibitor for a blocking task spawned on `handle`, if that
        /// runtime's clock can be paused (current-thread, timers on).
        pub(crate) fn new(handle: &scheduler::Handle) -> Option<AutoAdvanceInhibit> {
            let scheduler::Handle::CurrentThread(_) = handle else {
                return None;
            };
            handle.driver().time_opt()?.clock().inhibit_auto_advance();
            Some(AutoAdvanceInhibit {
                handle: handle.clone(),
                released: AtomicBool::new(false),
            })
        }

        /// Allows auto-advance again (once) and wakes the runtime so that
        /// it reconsiders.
        pub(crate) fn release(&self) {
            if !self.released.swap(true, Ordering::Relaxed) {
                let time = self.handle.driver().time();
                time.clock().allow_auto_advance();
                time.unpark_all();
            }
        }
    }

    impl Drop for AutoAdvanceInhibit {
        fn drop(&mut self) {
            self.release();
        }
    }
}
