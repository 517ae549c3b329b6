//! The one way a worker waits for work: [`Handle::park`].
//!
//! A worker that found nothing to run hands its wait to the driver, which
//! runs the whole sequence in one place, in this order:
//!
//! 1. **Last reap**: the worker's own events and expired timers, reaped
//!    without blocking, and the reactors of workers that are asleep
//!    (readiness the kernel already has runs here, with no thread hop).
//!    Legacy mode skips the reaps that keep finding nothing
//!    (`legacy/reap_backoff.rs`): step 5's arm re-checks the epoll.
//!    The scheduler lends its core for this ([`ParkSite::with_core`]), so
//!    what the reap wakes lands on the worker's own queue.
//! 2. **Re-check** ([`ParkSite::has_local_work`]): work the reap made is
//!    run at once, without sleeping.
//! 3. **Yield once** (while another worker with sockets of its own is
//!    awake): `sched_yield`, then steps 1 and 2 again. Each worker's
//!    sockets wake that worker (its own ring, or its own epoll's poll
//!    thread), so under load from a process on the same CPUs (a client, a
//!    proxy, a database) a worker that ran out of work while its peer
//!    worked slept, and was woken microseconds later by its next request:
//!    a context switch pair, and on a virtual machine an inter-processor
//!    interrupt, per short gap. Letting the other runnable threads go
//!    first, it finds that request without sleeping. Where the CPU is
//!    otherwise idle the yield returns at once: one syscall and one look
//!    per sleep while a peer is awake; one connection, whose other worker
//!    sleeps, does not yield. A yielding worker stays awake, so one kept
//!    off its CPU by a busy neighbour has its sockets served by a peer
//!    after 200 µs (`stall.rs`). Measured on 2 workers with the load on
//!    the same 2 CPUs, 3-5 interleaved rounds, before and after: io_uring
//!    echo at 16 and 256 connections, 64 B and 16 KiB, context switches
//!    per round trip 0.13-0.24 to 0.01-0.05 and CPU per round trip 14-21%
//!    lower; legacy echo 0.11-0.18 to 0.03-0.09 and 13-17% lower; `wrk
//!    -c64` 20% less CPU per request on both, p99 lower. Beside a spinning
//!    process, requests/s stayed level and p99 fell. Legacy mode yields
//!    only since a stalled worker's epoll is reaped by its peers after
//!    200 µs: with only its poll thread's 10 ms stuck-worker check, the
//!    p99 of `redis-benchmark` reached 3-4 ms in 2 rounds of 3.
//!
//!    *Its price.* The Linux scheduler (EEVDF, 6.6+) moves a yielding
//!    thread's virtual deadline one time slice later, and since 6.17 a
//!    yielder that is eligible also gives up the rest of its slice (its
//!    virtual runtime jumps to that deadline), so a worker that yields
//!    often loses to the threads it wakes. Under `wrk -c64` (two
//!    client threads, so four busy threads on two CPUs) the io_uring
//!    workers were preempted on the way back from `writev` (the response
//!    wakes a `wrk` thread) 16,533 times in 3 s with the yield and 4,685
//!    without it (tokio: 4,225). CPU per request was within the noise
//!    either way (7.70 against 7.35 µs, 4 interleaved rounds). 67% of
//!    those yields were followed by work. Echo at 16 × 64 B without the
//!    yield cost 15-37% more CPU per round trip (3 rounds; 0.25-0.30
//!    context switches per round trip against 0.01-0.02), so the yield
//!    stays. Under `wrk` with `Connection: close` at 16 connections the
//!    io_uring server is bimodal: in 2 rounds of 5, p99 was 4.3 ms
//!    against 1.1-1.8 ms, parks per request 0.76-0.86 against 0.15-0.29,
//!    and the main thread's sleeps in its accept loop rose five-fold.
//!    With the yield turned off all 6 rounds sat between the two states
//!    (p99 2.3-3.4 ms), at the same mean CPU per request.
//! 4. **Sleep** ([`ParkSite::sleep`]): the scheduler's idle protocol
//!    (announce to the idle list, re-check the shared queues) calls the
//!    driver's blocking step, unless it finds work first.
//! 5. **Announce and block**: in legacy mode the worker arms its poll
//!    thread's watch, so events from now on are the poll thread's to
//!    deliver (`legacy/poll_gate.rs`); the worker then sleeps on its
//!    parker (a condition variable, or `io_uring_enter` on its ring) until
//!    unparked or until its next timer is due. Announcing only here, and
//!    not when the worker first runs out of work, costs nothing to a
//!    worker that finds work on the way: one syscall that wakes nobody,
//!    paid only by a worker that really sleeps.
//! 6. **Withdraw**: the poll thread leaves the worker's events to it
//!    again. This happens on every way out of the block, a panic included
//!    (a guard's drop).
//! 7. **Timers**: the timers that came due during the sleep fire, with the
//!    core lent again.
//!
//! The schedulers call [`Handle::park`], [`Handle::maintain`] (a busy
//! worker's non-blocking look) and [`Handle::tick`] (the same, periodic,
//! with no yielded task to order), and nothing else of the wait path; the
//! loom models of the park protocol (`loom_tests/park.rs`) call this same
//! function.
use super::Handle;
use super::Parker;

/// What a scheduler lends the driver for one [`Handle::park`].
pub(crate) trait ParkSite {
    /// Runs `f` (a reap, or firing timers) with the worker's core where
    /// the tasks `f` wakes go to the worker's own queue.
    fn with_core(&mut self, f: impl FnOnce());

    /// Whether the worker has work of its own now (step 2). A worker that
    /// has runs it instead of sleeping.
    fn has_local_work(&mut self) -> bool;

    /// Sleeps through the scheduler's idle protocol (step 4). `block` is
    /// the driver's blocking step; the protocol calls it unless it finds
    /// work first.
    fn sleep(&mut self, block: impl FnOnce());
}

/// How far a busy worker's [`Handle::maintain`] reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The worker's own reactor or ring, and its timers.
    Own,
    /// Those, and if they woke nothing, the reactors of workers that are
    /// asleep: readiness the kernel already has is stolen as tasks are.
    /// An awake worker's reactor is left alone: taking its events moved
    /// its tasks over and back, and in a one-connection echo 1-2% of the
    /// round trips then took twice as long (p99 27 µs against 11 µs when
    /// only sleeping workers' reactors are reaped).
    AlsoSleeping,
}

/// Which of a worker's own reaps [`Handle::reap_own`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reap {
    /// A busy worker's: at most the busy limit of events.
    Busy,
    /// A busy worker's periodic one ([`Handle::tick`]): as `Busy`, but
    /// in legacy mode without waiting for the poll thread to hand over
    /// what a direct wait of its took (`legacy/poll_gate.rs`,
    /// `hand_over`).
    Tick,
    /// An idle worker's, outside a park (a spinner's).
    Idle,
    /// The last one before the worker sleeps, which legacy mode may skip
    /// (`legacy/reap_backoff.rs`).
    Parking,
}

/// How long a worker sleeps at most when its poll thread could not be
/// told (its watch failed to arm, which only a kernel bug could cause): it
/// then reaps its own events this often.
const UNWATCHED_SLEEP: std::time::Duration = std::time::Duration::from_millis(1);

/// io_uring mode: how long a worker sleeps at most while another worker
/// with registered sockets is awake (`Handle::has_awake_peer_ring`), so
/// that a peer stuck in a long poll has its sockets served
/// (`uring/rescue.rs`) even when every other worker is idle. In legacy
/// mode the stuck worker's poll thread does this (`STUCK_WORKER`).
const PEER_WATCH: std::time::Duration = std::time::Duration::from_millis(10);

/// Withdraws a worker's announcement (step 6) when dropped.
struct Announced<'a> {
    driver: &'a Handle,
    index: usize,
}

impl Drop for Announced<'_> {
    fn drop(&mut self) {
        // Withdrawing is a flag store: it cannot fail.
        let _ = self.driver.set_parked(self.index, false);
    }
}

impl Handle {
    /// Worker `index` has nothing to run: reaps, re-checks, and sleeps on
    /// `parker` until there may be work (see the module doc for the
    /// sequence). Spurious returns are allowed: the caller looks for work
    /// again after every return.
    pub(crate) fn park(&self, index: usize, parker: &mut Parker, site: &mut impl ParkSite) {
        // Work already waits (a current-thread `block_on` future that woke
        // itself in `yield_now`): only look at the drivers, as a running
        // worker does, since what runs next must see every event ready
        // before now. The last reap before a sleep may skip, or miss what
        // legacy mode's poll thread is handing over (`legacy/poll_gate.rs`,
        // `hand_over`), because the sleep that follows makes up for it.
        if site.has_local_work() {
            site.with_core(|| {
                self.look(index, Reach::AlsoSleeping, Reap::Idle);
            });
            return;
        }
        // On a paused clock the sleep below lasts no time: it jumps to the
        // next timer unless something woke the runtime (`time/driver.rs`,
        // `park_paused`). So this last reap must see every event ready
        // now, as a running worker's does, with none skipped by the
        // back-off or held by the poll thread's direct wait (tokio polls
        // its driver without blocking before it advances); otherwise the
        // clock could jump past a datagram sent before the sleep.
        let last = if self.clock_is_paused() {
            Reap::Idle
        } else {
            Reap::Parking
        };
        site.with_core(|| {
            self.look(index, Reach::AlsoSleeping, last);
        });
        if site.has_local_work() {
            return;
        }
        if self.yield_before_sleep(index) {
            site.with_core(|| {
                self.look(index, Reach::AlsoSleeping, Reap::Idle);
            });
            if site.has_local_work() {
                return;
            }
        }
        site.sleep(|| {
            let parked = self.set_parked(index, true);
            let _announced = Announced {
                driver: self,
                index,
            };
            // Events the poll thread left for this worker to re-check
            // (`legacy/poll_gate.rs`): the next turn's reap takes them.
            if let Ok(false) = parked {
                return;
            }
            self.block(index, parker, parked.is_ok());
        });
        site.with_core(|| {
            self.process_timers(index);
        });
    }

    /// Step 3: while another worker with sockets of its own is awake,
    /// worker `index` gives its CPU away once. Returns whether it did.
    fn yield_before_sleep(&self, index: usize) -> bool {
        if self.has_awake_peer(index) {
            std::thread::yield_now();
            return true;
        }
        false
    }

    /// Whether the runtime's clock is paused (`test-util`), which turns
    /// a sleep into a jump of the clock.
    fn clock_is_paused(&self) -> bool {
        #[cfg(all(feature = "time", feature = "test-util"))]
        if let Some(time) = self.time_opt() {
            return time.clock().is_paused();
        }
        false
    }

    /// The blocking step of worker `index`: sleeps on `parker` until
    /// unparked or until the worker's next timer is due (and, when its
    /// events are not `watched` by a poll thread, `UNWATCHED_SLEEP`).
    fn block(&self, index: usize, parker: &mut Parker, watched: bool) {
        let limit = if !watched {
            Some(UNWATCHED_SLEEP)
        } else if self.has_awake_peer_ring(index) {
            Some(PEER_WATCH)
        } else {
            None
        };
        let cap = |timeout: Option<std::time::Duration>| match (limit, timeout) {
            (None, timeout) => timeout,
            (Some(limit), Some(t)) => Some(t.min(limit)),
            (Some(limit), None) => Some(limit),
        };
        #[cfg(feature = "time")]
        if let Some(time) = self.time_opt() {
            time.park(index, |timeout| parker.park(cap(timeout)));
            return;
        }
        let _ = index;
        parker.park(cap(None));
    }

    /// A busy worker's look at its drivers, without blocking: reaps what
    /// `reach` says and fires worker `index`'s expired timers. Returns
    /// whether anything was woken.
    pub(crate) fn maintain(&self, index: usize, reach: Reach) -> bool {
        let reap = match reach {
            Reach::Own => Reap::Busy,
            Reach::AlsoSleeping => Reap::Idle,
        };
        self.look(index, reach, reap)
    }

    /// A busy worker's periodic look (every `event_interval` tasks) when
    /// no task of its yielded: [`Handle::maintain`] with [`Reach::Own`],
    /// except that in legacy mode events its poll thread's direct wait
    /// took come as mail to a later reap instead of being waited for.
    ///
    /// Waiting for them is what `yield_now` needs (the yielded tasks run
    /// after every event ready before the reap), and costs a kick of the
    /// poll thread out of its wait and a sleep until it answers: an
    /// eventfd write and read, a futex pair, two context switches and an
    /// `epoll_wait`. A periodic look has no yielded task to order: it is
    /// there so that a worker busy with tasks still reaps its epoll, and
    /// the poll thread posts what it takes at once. On one connection,
    /// where the poll thread waits directly almost always, that hand-over
    /// came with one round trip in thirty.
    pub(crate) fn tick(&self, index: usize) -> bool {
        self.look(index, Reach::Own, Reap::Tick)
    }

    /// [`Handle::maintain`], with the worker's own reap of kind `reap`.
    fn look(&self, index: usize, reach: Reach, reap: Reap) -> bool {
        // A runtime turn publishes the signal deliveries so far (listeners
        // created from now on do not replay them; `signal/registry.rs`).
        #[cfg(any(feature = "signal", feature = "process"))]
        crate::signal_registry::publish();
        let mut woke = self.reap_own(index, reap);
        woke |= self.process_timers(index);
        woke |= self.serve_stalled(index, reach);
        if woke || reach == Reach::Own {
            return woke;
        }
        self.reap_sleeping(index)
    }
}
