//! The drivers a runtime owns, and the one way a worker waits.
//!
//! * `choice.rs`: which driver runs ([`Driver`]: builder, environment,
//!   kernel probe);
//! * `legacy/`: the legacy I/O driver, one [`Reactor`] (epoll instance
//!   plus poll thread) per worker, and its poll gate;
//! * `uring/`: the io_uring driver, one ring per worker, no poll thread;
//! * `park.rs`: the park sequence, [`Handle::park`], and the busy
//!   worker's look, [`Handle::maintain`];
//! * `parker.rs`: a worker's parker, the condvar or its ring;
//! * `scheduled_io.rs`: per-resource readiness and wakers;
//! * `registration.rs`: what the I/O types call;
//! * `io_metrics.rs` (`tokio_unstable`): the I/O driver's counts;
//! * timers live in `crate::time::driver` (one wheel per worker).
//!
//! # What every driver provides
//!
//! Both modes give the schedulers the same five things, and the schedulers
//! use nothing else of them:
//!
//! 1. a parker per worker, and its unparker for other threads (the
//!    contract is in `runtime/park/mod.rs`);
//! 2. [`Handle::attach`] / [`Handle::release`] / [`Handle::detach`]: a
//!    thread starts or stops driving worker `i` (in io_uring mode it
//!    becomes or stops being the ring's issuer; in legacy mode the poll
//!    thread delivers the events of a worker nobody drives);
//! 3. [`Handle::maintain`]: a non-blocking reap of the worker's events and
//!    timers;
//! 4. [`Handle::park`]: the whole wait (last reap, re-check, announce and
//!    block, withdraw, timers; see `park.rs`);
//! 5. [`Handle::register`]: where an I/O resource's readiness is delivered.
//!
//! [`Handle`] is shared by the whole runtime: I/O types reach it to
//! register, timers to insert.
//!
//! Which driver runs is stored once, as the private `Mode` enum built by
//! [`Handle::new`]: `Legacy` (condvar parkers, and a reactor per worker
//! when I/O is enabled) or `Uring` (a ring per worker, which is both its
//! parker and its I/O driver). Every method matches on it; nothing else
//! records the mode.
pub(crate) mod choice;
#[cfg(all(tokio_unstable, tokiwa_io_driver))]
pub(crate) mod io_metrics;
#[cfg(tokiwa_io_driver)]
pub(crate) mod legacy;
mod park;
mod parker;
#[cfg(tokiwa_io_driver)]
pub(crate) mod registration;
pub(crate) mod ring_metrics;
#[cfg(tokiwa_io_driver)]
pub(crate) mod scheduled_io;
#[cfg(tokiwa_io_driver)]
pub(crate) mod stall;
#[cfg(feature = "uring")]
pub(crate) mod uring;

pub use choice::Driver;

pub(crate) use park::{ParkSite, Reach};
pub(crate) use parker::{Parker, Unparker};
use std::io;

#[cfg(tokiwa_io_driver)]
pub(crate) use legacy::Reactor;

/// What the builder asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
    /// The builder's choice (`None`: the environment's, else auto).
    pub(crate) driver: Option<Driver>,
    /// io_uring mode without `DEFER_TASKRUN | TASKRUN_FLAG` (the
    /// benchmark's ablation).
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) uring_plain: bool,
    /// io_uring mode: streams send through the ring (`uring/send.rs`).
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) uring_completion_io: bool,
    /// Legacy mode: events per `epoll_wait` when the worker is about to
    /// sleep (and on the poll thread), and when it is busy.
    #[cfg_attr(not(tokiwa_io_driver), allow(dead_code))]
    pub(crate) io_events_per_tick: usize,
    #[cfg_attr(not(tokiwa_io_driver), allow(dead_code))]
    pub(crate) io_events_per_busy_tick: usize,
    /// `Builder::enable_alt_timer`: timers that fired stay ready after
    /// shutdown (`time/driver.rs`).
    #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
    pub(crate) alt_timer: bool,
}

/// The default of `Builder::max_io_events_per_tick`.
pub(crate) const IO_EVENTS_PER_TICK: usize = 1024;

/// The drivers of one runtime.
#[derive(Debug)]
pub(crate) struct Handle {
    /// Which driver runs, and its per-worker parts: the mode is stored
    /// here and nowhere else.
    mode: Mode,
    /// Why `Auto` chose legacy.
    fallback_reason: Option<String>,
    #[cfg(feature = "time")]
    time: Option<crate::time::driver::TimeHandle>,
    /// Registrations and their drops (`io_metrics.rs`).
    #[cfg(all(tokio_unstable, tokiwa_io_driver))]
    fd_counts: std::sync::Arc<io_metrics::FdCounts>,
}

/// The driver that runs, built once by [`Handle::new`].
#[derive(Debug)]
enum Mode {
    /// Legacy: the workers park on condition variables; with I/O enabled,
    /// each worker has a [`Reactor`] (epoll instance and poll thread).
    Legacy {
        #[cfg(tokiwa_io_driver)]
        reactors: Option<std::sync::Arc<[std::sync::Arc<Reactor>]>>,
    },
    /// io_uring: worker `i`'s ring is its parker and, with I/O enabled,
    /// its I/O driver.
    #[cfg(feature = "uring")]
    Uring {
        rings: uring::Rings,
        io_enabled: bool,
    },
}

/// When a resource registered off the workers gets its driver.
#[cfg(tokiwa_io_driver)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Now, so that a descriptor the driver cannot poll is refused at
    /// once (`AsyncFd`, signal and process watchers).
    Now,
    /// At the first wait, on the waiting task's worker (sockets and pipes,
    /// which can always be polled).
    AtFirstWait,
}

/// Where a resource is registered.
#[cfg(tokiwa_io_driver)]
#[derive(Debug)]
pub(crate) enum Backend {
    Epoll(legacy::Placement),
    #[cfg(feature = "uring")]
    Uring(uring::Homed),
}

impl Handle {
    /// Creates the drivers of `workers` workers (one for a current-thread
    /// runtime) and their parkers. `thread_name` names the poll threads.
    pub(crate) fn new(
        config: &Config,
        workers: usize,
        thread_name: &str,
    ) -> io::Result<(Handle, Vec<Parker>)> {
        let choice = choice::choose(config.driver)?;
        #[allow(unused_mut)] // assigned only with the `uring` feature
        let mut fallback_reason = choice.reason;
        let Config {
            enable_io,
            enable_time,
            start_paused,
            ..
        } = *config;
        #[cfg(feature = "uring")]
        let rings: Option<uring::Rings> = if choice.driver == Driver::Uring {
            let ring_config = uring::RingConfig {
                defer_taskrun: !config.uring_plain,
                completion_io: config.uring_completion_io,
                ..uring::RingConfig::default()
            };
            match (0..workers)
                .map(|i| uring::WorkerRing::new(i, ring_config))
                .collect::<io::Result<Vec<_>>>()
            {
                Ok(rings) => Some(rings.into()),
                // The probe passed, yet this thread may not create rings
                // (a seccomp filter, a memlock limit): `Auto` falls back.
                Err(e) if choice.may_fall_back => {
                    fallback_reason = Some(e.to_string());
                    None
                }
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        #[cfg(not(feature = "uring"))]
        let rings: Option<std::convert::Infallible> = None;
        // Legacy mode's parkers come first: each poll thread unparks its
        // worker itself when it delivers (`legacy/poll_gate.rs`).
        let legacy_parkers: Vec<Parker> = if rings.is_none() {
            (0..workers).map(|_| Parker::new()).collect()
        } else {
            Vec::new()
        };
        let mode = match rings {
            #[cfg(feature = "uring")]
            Some(rings) => Mode::Uring {
                rings,
                io_enabled: enable_io,
            },
            #[cfg(not(feature = "uring"))]
            Some(never) => match never {},
            None => Mode::Legacy {
                #[cfg(tokiwa_io_driver)]
                reactors: if enable_io {
                    // "poll-<worker>-" first: Linux keeps 15 bytes of a
                    // thread name, and this way `top` still tells the poll
                    // threads apart.
                    let reactors = (legacy_parkers.iter().enumerate())
                        .map(|(i, parker)| {
                            Reactor::new(
                                format!("poll-{i}-{thread_name}"),
                                parker.unparker(),
                                config.io_events_per_tick,
                                config.io_events_per_busy_tick,
                            )
                        })
                        .collect::<io::Result<Vec<_>>>()?;
                    Some(reactors.into())
                } else {
                    None
                },
            },
        };
        let parkers: Vec<Parker> = match &mode {
            #[cfg(feature = "uring")]
            Mode::Uring { rings, .. } => rings.iter().map(|r| Parker::Uring(r.parker())).collect(),
            Mode::Legacy { .. } => legacy_parkers,
        };
        let unparkers: Vec<Unparker> = parkers.iter().map(Parker::unparker).collect();
        let _ = (
            enable_io,
            enable_time,
            start_paused,
            &unparkers,
            thread_name,
        );
        let handle = Handle {
            mode,
            fallback_reason,
            #[cfg(feature = "time")]
            time: enable_time.then(|| {
                #[allow(unused_mut)] // changed only by the alternative timer
                let mut time =
                    crate::time::driver::TimeHandle::new(unparkers.clone(), start_paused);
                #[cfg(all(tokio_unstable, feature = "rt-multi-thread"))]
                if config.alt_timer {
                    time.keep_fired_timers_ready_after_shutdown();
                }
                time
            }),
            #[cfg(all(tokio_unstable, tokiwa_io_driver))]
            fd_counts: Default::default(),
        };
        Ok((handle, parkers))
    }

    /// io_uring mode: every worker's ring (empty in legacy mode).
    #[cfg(feature = "uring")]
    fn rings(&self) -> &[std::sync::Arc<uring::WorkerRing>] {
        match &self.mode {
            Mode::Uring { rings, .. } => rings,
            Mode::Legacy { .. } => &[],
        }
    }

    /// Legacy mode with I/O enabled: every worker's reactor (empty
    /// otherwise).
    #[cfg(tokiwa_io_driver)]
    fn reactors(&self) -> &[std::sync::Arc<Reactor>] {
        match &self.mode {
            Mode::Legacy {
                reactors: Some(reactors),
            } => reactors,
            _ => &[],
        }
    }

    /// Registers `fd` with the driver of the worker this runs on. Off the
    /// workers (an accept loop in `block_on`, a thread of its own, another
    /// runtime's worker), `place` says whether it is registered now, with
    /// the driver its descriptor's number picks, or left for the first
    /// task that waits on it to register with its own worker's (see
    /// `legacy/placement.rs` and `uring/home.rs`). Reached through
    /// [`Handle::io`], which checks that I/O is enabled.
    #[cfg(tokiwa_io_driver)]
    pub(crate) fn register(
        &self,
        fd: std::os::fd::RawFd,
        interest: crate::io::Interest,
        place: Place,
    ) -> io::Result<(Backend, std::sync::Arc<scheduled_io::ScheduledIo>)> {
        let worker = crate::runtime::worker_index();
        match &self.mode {
            #[cfg(feature = "uring")]
            Mode::Uring { rings, .. } => {
                let n = rings.len();
                let index = match worker {
                    // A worker that owns its ring: registered there (and
                    // armed at its next turn, see `uring/io.rs`).
                    Some(worker) if rings[worker % n].is_owned_here() => worker % n,
                    _ if place == Place::AtFirstWait => {
                        let (homed, io) = uring::Homed::unplaced(rings.clone(), fd, interest)?;
                        return Ok((Backend::Uring(homed), io));
                    }
                    _ => fd as usize % n,
                };
                let (io, token) = rings[index].register(fd, interest)?;
                let homed = uring::Homed::new(rings.clone(), index, token, fd, interest);
                Ok((Backend::Uring(homed), io))
            }
            Mode::Legacy { reactors } => {
                let reactors = reactors.clone().expect("checked by `io()`");
                let n = reactors.len();
                let (placement, io) = match worker {
                    Some(worker) => {
                        legacy::Placement::register(reactors, worker % n, fd, interest)?
                    }
                    None if place == Place::AtFirstWait => {
                        legacy::Placement::unplaced(reactors, fd, interest)?
                    }
                    None => legacy::Placement::register(reactors, fd as usize % n, fd, interest)?,
                };
                Ok((Backend::Epoll(placement), io))
            }
        }
    }

    /// Counts a registration; its holder counts its drop in the counts
    /// returned.
    #[cfg(all(tokio_unstable, tokiwa_io_driver))]
    pub(crate) fn count_registration(&self) -> std::sync::Arc<io_metrics::FdCounts> {
        self.fd_counts.registered();
        self.fd_counts.clone()
    }

    /// Registrations and their drops so far.
    #[cfg(all(tokio_unstable, tokiwa_io_driver))]
    // Read by `RuntimeMetrics` with the `net` feature, as in tokio.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn fd_counts(&self) -> &io_metrics::FdCounts {
        &self.fd_counts
    }

    /// Ready events dispatched to resources so far, summed over the
    /// workers' drivers (0 without I/O).
    #[cfg(all(tokio_unstable, tokiwa_io_driver))]
    // Read by `RuntimeMetrics` with the `net` feature, as in tokio.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn ready_count(&self) -> u64 {
        #[allow(unused_mut)] // added to only with the `uring` feature
        let mut sum: u64 = self.reactors().iter().map(|r| r.ready_count.get()).sum();
        #[cfg(feature = "uring")]
        {
            sum += self.rings().iter().map(|r| r.ready_count()).sum::<u64>();
        }
        sum
    }

    /// The driver actually running (`Legacy` or `Uring`).
    pub(crate) fn kind(&self) -> Driver {
        match self.mode {
            Mode::Legacy { .. } => Driver::Legacy,
            #[cfg(feature = "uring")]
            Mode::Uring { .. } => Driver::Uring,
        }
    }

    /// Why `Auto` runs legacy, if it does.
    pub(crate) fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// io_uring mode: worker `index`'s ring.
    #[cfg(feature = "uring")]
    pub(crate) fn ring(&self, index: usize) -> Option<&std::sync::Arc<uring::WorkerRing>> {
        self.rings().get(index)
    }

    /// The calling thread now drives worker `index` (it took the core):
    /// in io_uring mode it becomes the ring's issuer.
    ///
    /// # Errors
    ///
    /// When the kernel refuses this thread a ring (io_uring mode): the
    /// caller still holds the core and must give it back, whole, before it
    /// reports the error (see `uring::WorkerRing::attach`).
    pub(crate) fn attach(&self, index: usize) -> io::Result<()> {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.ring(index) {
            ring.attach()?;
        }
        // A thread reaps the worker's events now, not its poll thread.
        self.set_parked(index, false).map(drop)
    }

    /// No thread drives worker `index` any more (a current-thread
    /// runtime's core was put back): as in tokio, its events wait until a
    /// thread attaches again, whose first park reaps them. (In io_uring
    /// mode the same holds by construction: only the ring's issuer turns
    /// it.)
    pub(crate) fn detach(&self, index: usize) {
        #[cfg(tokiwa_io_driver)]
        if let Some(reactor) = self.reactors().get(index) {
            // A failed disarm only lets the poll thread deliver events
            // early, which wakes tasks nobody runs until then.
            let _ = reactor.detach_worker();
        }
        let _ = index;
    }

    /// The calling thread is about to let go of worker `index` (its core
    /// leaves the thread): in io_uring mode the ring's operations in flight
    /// are cancelled and waited for first (see `uring/op.rs`).
    pub(crate) fn release(&self, index: usize) {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.ring(index) {
            ring.quiesce();
        }
        let _ = index;
    }

    /// The I/O driver.
    ///
    /// # Panics
    ///
    /// With tokio's message when the runtime was built without it.
    #[cfg(tokiwa_io_driver)]
    #[track_caller]
    pub(crate) fn io(&self) -> &Handle {
        let enabled = match &self.mode {
            Mode::Legacy { reactors } => reactors.is_some(),
            #[cfg(feature = "uring")]
            Mode::Uring { io_enabled, .. } => *io_enabled,
        };
        assert!(
            enabled,
            "A Tokio 1.x context was found, but IO is disabled. \
             Call `enable_io` on the runtime builder to enable IO."
        );
        self
    }

    /// The time driver.
    ///
    /// # Panics
    ///
    /// With tokio's message when the runtime was built without it.
    #[cfg(feature = "time")]
    #[track_caller]
    pub(crate) fn time(&self) -> &crate::time::driver::TimeHandle {
        self.time.as_ref().expect(
            "A Tokio 1.x context was found, but timers are disabled. \
             Call `enable_time` on the runtime builder to enable timers.",
        )
    }

    /// The time driver, if the runtime has one.
    #[cfg(feature = "time")]
    pub(crate) fn time_opt(&self) -> Option<&crate::time::driver::TimeHandle> {
        self.time.as_ref()
    }

    /// Tells worker `index`'s poll thread whether the worker is parked
    /// (it then reaps the worker's events) or awake (it leaves them to the
    /// worker's own reaps). Set to `true` *after* the worker's last
    /// non-blocking reap, right before it blocks (see `legacy/poll_gate.rs`
    /// and `park.rs`). `Ok(false)`: the worker must not block, its poll
    /// thread left it events to re-check. An error: the poll thread was
    /// not told, so the worker must not sleep long.
    fn set_parked(&self, index: usize, parked: bool) -> io::Result<bool> {
        #[cfg(tokiwa_io_driver)]
        if let Some(reactor) = self.reactors().get(index) {
            return reactor.set_worker_parked(parked);
        }
        let _ = (index, parked);
        Ok(true)
    }

    /// The worker whose tasks this thread is delivering, if it is the poll
    /// thread of one of this runtime's reactors and is waking what it
    /// reaped for that sleeping worker. The scheduler then queues the
    /// tasks for that worker without notifying anyone: the poll thread
    /// unparks the worker itself (`legacy/poll_gate.rs`).
    pub(crate) fn delivering_to(&self) -> Option<usize> {
        #[cfg(tokiwa_io_driver)]
        {
            let reactor = crate::runtime::context::delivering_for();
            if !reactor.is_null() {
                return (self.reactors().iter())
                    .position(|r| std::ptr::eq(std::sync::Arc::as_ptr(r).cast(), reactor));
            }
        }
        None
    }

    /// Whether an io_uring operation (a file read, an open, ...) is in
    /// flight on any ring: a wakeup is then due within microseconds, which
    /// a worker may wait for spinning rather than asleep.
    pub(crate) fn has_ops_in_flight(&self) -> bool {
        #[cfg(feature = "uring")]
        if self.rings().iter().any(|r| r.ops().in_flight() != 0) {
            return true;
        }
        false
    }

    /// Reaps worker `index`'s own reactor or ring without blocking
    /// (`Reap::Parking`: the last reap before it sleeps). Returns whether
    /// anything was woken.
    fn reap_own(&self, index: usize, reap: park::Reap) -> bool {
        let busy = matches!(reap, park::Reap::Busy | park::Reap::Tick);
        // The modes are exclusive: a worker has a ring or a reactor.
        #[cfg(feature = "uring")]
        if let Some(ring) = self.ring(index) {
            return ring.maintain() > 0;
        }
        #[cfg(tokiwa_io_driver)]
        if let Some(reactor) = self.reactors().get(index) {
            match reap {
                park::Reap::Parking => return reactor.reap_before_park() > 0,
                park::Reap::Tick => return reactor.reap(true) > 0,
                park::Reap::Busy | park::Reap::Idle => {}
            }
            return reactor.reap_running(busy) > 0;
        }
        let _ = (index, busy);
        false
    }

    /// Reaps the reactors of the other workers that are asleep (legacy
    /// mode; see [`park::Reach::AlsoSleeping`]). Returns whether anything
    /// was woken.
    fn reap_sleeping(&self, index: usize) -> bool {
        #[cfg(tokiwa_io_driver)]
        {
            let reactors = self.reactors();
            let n = reactors.len();
            // Backs off while such reaps find nothing (`reap_backoff.rs`).
            let Some(backoff) = reactors.get(index).map(|r| &r.peer_reaps) else {
                return false;
            };
            if n < 2 || !backoff.due() {
                return false;
            }
            let mut looked = false;
            for offset in 1..n {
                let reactor = &reactors[(index + offset) % n];
                if reactor.worker_is_parked() {
                    looked = true;
                    if reactor.reap(false) > 0 {
                        backoff.record(true);
                        return true;
                    }
                }
            }
            if looked {
                backoff.record(false);
            }
        }
        let _ = index;
        false
    }

    /// Worker `index` ran a task (`tick`: its scheduler's counter), for
    /// the other workers' stall check (`stall.rs`).
    pub(crate) fn note_progress(&self, index: usize, tick: u64) {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.rings().get(index) {
            ring.note_progress(tick);
        }
        #[cfg(tokiwa_io_driver)]
        if let Some(reactor) = self.reactors().get(index) {
            reactor.stall.note_progress(tick);
        }
        let _ = (index, tick);
    }

    /// Serves the sockets of other workers that stall (`stall.rs`): at a
    /// busy maintenance one peer (round robin over time), at a park every
    /// peer. In io_uring mode through a `poll(2)` of the stalled ring's
    /// resources (`uring/rescue.rs`); in legacy mode, where any thread can
    /// reap an epoll, by reaping the stalled worker's epoll as its poll
    /// thread's stuck-worker check does, only sooner (200 µs, not 10 ms).
    /// Returns whether anything was woken.
    fn serve_stalled(&self, index: usize, reach: park::Reach) -> bool {
        #[cfg(tokiwa_io_driver)]
        {
            // One of the two is empty: the rings in io_uring mode, the
            // reactors in legacy mode.
            let reactors = self.reactors();
            #[cfg(feature = "uring")]
            let rings = self.rings();
            #[cfg(feature = "uring")]
            let n = reactors.len().max(rings.len());
            #[cfg(not(feature = "uring"))]
            let n = reactors.len();
            if n < 2 {
                return false;
            }
            let now = stall::now_ns();
            let peers = if reach == park::Reach::Own {
                // One look per maintenance is enough: the rule needs two
                // looks `STALL_AFTER_NS` apart, and maintenances come far
                // more often.
                let offset = 1 + (now as usize >> 10) % (n - 1);
                offset..offset + 1
            } else {
                1..n
            };
            let mut woke = false;
            #[cfg(feature = "uring")]
            let (mut fds, mut wakers) = (Vec::new(), Vec::new());
            for offset in peers {
                let peer = (index + offset) % n;
                #[cfg(feature = "uring")]
                if let Some(ring) = rings.get(peer) {
                    ring.serve_if_stalled(now, &mut fds, &mut wakers);
                }
                if let Some(reactor) = reactors.get(peer) {
                    woke |= reactor.serve_if_stalled(now) > 0;
                }
            }
            #[cfg(feature = "uring")]
            {
                woke |= !wakers.is_empty();
                for waker in wakers {
                    waker.wake();
                }
            }
            return woke;
        }
        #[allow(unreachable_code)]
        {
            let _ = (index, reach);
            false
        }
    }

    /// Whether a worker other than `index` is awake with resources
    /// registered on its ring or epoll: one that another may have to serve
    /// if it stalls (`stall.rs`).
    pub(super) fn has_awake_peer(&self, index: usize) -> bool {
        #[cfg(tokiwa_io_driver)]
        if self.reactors().iter().enumerate().any(|(i, reactor)| {
            i != index && !reactor.worker_is_parked() && reactor.has_resources()
        }) {
            return true;
        }
        self.has_awake_peer_ring(index)
    }

    /// io_uring mode: whether a worker other than `index` is awake with
    /// sockets on its ring (registered resources or armed receives,
    /// `WorkerRing::has_resources`), which may stall (see
    /// `park::PEER_WATCH`). A peer with none has nothing to serve, and an
    /// idle runtime's workers then park once each, as tokio's do.
    fn has_awake_peer_ring(&self, index: usize) -> bool {
        #[cfg(feature = "uring")]
        {
            let rings = self.rings();
            return rings
                .iter()
                .enumerate()
                .any(|(i, ring)| i != index && !ring.is_sleeping() && ring.has_resources());
        }
        #[allow(unreachable_code)]
        {
            let _ = index;
            false
        }
    }

    /// Fires worker `index`'s expired timers. Returns whether any fired.
    fn process_timers(&self, index: usize) -> bool {
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            return time.process(index) > 0;
        }
        let _ = index;
        false
    }

    /// Runtime shutdown, after the tasks are gone: stops the poll threads,
    /// fails the remaining resources' waiters, shuts the timers down.
    pub(crate) fn shutdown(&self) {
        #[cfg(tokiwa_io_driver)]
        for reactor in self.reactors() {
            reactor.shutdown();
        }
        #[cfg(feature = "uring")]
        for ring in self.rings() {
            ring.shutdown();
        }
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.shutdown();
        }
    }
}
