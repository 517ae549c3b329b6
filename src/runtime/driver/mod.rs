//! The drivers a runtime owns, and what a worker's park slot does with
//! them.
//!
//! * `choice.rs`: which driver runs ([`Driver`]: builder, environment,
//!   kernel probe);
//! * `epoll.rs`: the legacy I/O driver, one [`Reactor`] (epoll instance
//!   plus poll thread) per worker;
//! * `uring/`: the io_uring driver, one ring per worker, no poll thread;
//! * `poll_gate.rs`: the handshake deciding whether the worker or its poll
//!   thread reaps the worker's epoll;
//! * `scheduled_io.rs`: per-resource readiness and wakers;
//! * `registration.rs`: what the I/O types call;
//! * timers live in `crate::time::driver` (one wheel per worker).
//!
//! [`Handle`] is shared by the whole runtime: I/O types reach it to
//! register, timers to insert, and the worker loop calls
//! [`Handle::park`] inside the idle protocol's blocking step so that a
//! parked worker never sleeps past its next timer.
pub(crate) mod choice;
#[cfg(tokiwa_io_driver)]
pub(crate) mod epoll;
#[cfg(tokiwa_io_driver)]
pub(crate) mod poll_gate;
#[cfg(tokiwa_io_driver)]
pub(crate) mod registration;
pub(crate) mod ring_metrics;
#[cfg(tokiwa_io_driver)]
pub(crate) mod scheduled_io;
#[cfg(feature = "uring")]
pub(crate) mod uring;

pub use choice::Driver;

use crate::runtime::park::{Parker, Unparker};
use std::io;

#[cfg(tokiwa_io_driver)]
pub(crate) use epoll::Reactor;

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
}

/// The drivers of one runtime.
#[derive(Debug)]
pub(crate) struct Handle {
    /// `Legacy` or `Uring`: what actually runs.
    kind: Driver,
    /// Why `Auto` chose legacy.
    fallback_reason: Option<String>,
    /// io_uring mode: worker `i`'s ring (the parker and, with I/O enabled,
    /// the I/O driver).
    #[cfg(feature = "uring")]
    rings: uring::Rings,
    #[cfg(tokiwa_io_driver)]
    io: Option<IoHandle>,
    #[cfg(feature = "time")]
    time: Option<crate::time::driver::TimeHandle>,
}

/// The runtime's I/O drivers, one per worker: epoll reactors (legacy) or
/// rings (io_uring).
#[cfg(tokiwa_io_driver)]
#[derive(Debug)]
pub(crate) struct IoHandle {
    reactors: Box<[std::sync::Arc<Reactor>]>,
    #[cfg(feature = "uring")]
    rings: uring::Rings,
    /// Round-robin choice for registrations made off the workers. `Relaxed`:
    /// only spreads load.
    next: std::sync::atomic::AtomicUsize,
}

/// Where a resource is registered.
#[cfg(tokiwa_io_driver)]
#[derive(Debug)]
pub(crate) enum Backend {
    Epoll(std::sync::Arc<Reactor>),
    #[cfg(feature = "uring")]
    Uring(uring::Homed),
}

#[cfg(tokiwa_io_driver)]
impl IoHandle {
    /// Registers `fd` with the driver of the worker this runs on, or of the
    /// next one round-robin.
    pub(crate) fn register(
        &self,
        fd: std::os::fd::RawFd,
        interest: crate::io::Interest,
    ) -> io::Result<(Backend, std::sync::Arc<scheduled_io::ScheduledIo>, u64)> {
        let index = crate::runtime::worker_index()
            .unwrap_or_else(|| self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        #[cfg(feature = "uring")]
        if !self.rings.is_empty() {
            let worker = index % self.rings.len();
            let (io, token) = self.rings[worker].register(fd, interest)?;
            let homed = uring::Homed::new(self.rings.clone(), worker, token, fd, interest);
            return Ok((Backend::Uring(homed), io, token));
        }
        let reactor = &self.reactors[index % self.reactors.len()];
        let (io, token) = reactor.register(fd, interest)?;
        Ok((Backend::Epoll(reactor.clone()), io, token))
    }
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
        #[cfg(feature = "uring")]
        let rings: uring::Rings = if choice.driver == Driver::Uring {
            let ring_config = uring::RingConfig {
                defer_taskrun: !config.uring_plain,
                ..uring::RingConfig::default()
            };
            match (0..workers)
                .map(|i| uring::Worker::new(i, ring_config))
                .collect::<io::Result<Vec<_>>>()
            {
                Ok(rings) => rings.into(),
                // The probe passed, yet this thread may not create rings
                // (a seccomp filter, a memlock limit): `Auto` falls back.
                Err(e) if choice.may_fall_back => {
                    fallback_reason = Some(e.to_string());
                    std::sync::Arc::new([])
                }
                Err(e) => return Err(e),
            }
        } else {
            std::sync::Arc::new([])
        };
        #[cfg(feature = "uring")]
        let kind = if rings.is_empty() {
            Driver::Legacy
        } else {
            Driver::Uring
        };
        #[cfg(not(feature = "uring"))]
        let kind = Driver::Legacy;
        let parkers: Vec<Parker> = match kind {
            #[cfg(feature = "uring")]
            Driver::Uring => rings.iter().map(|r| Parker::Uring(r.parker())).collect(),
            _ => (0..workers).map(|_| Parker::new()).collect(),
        };
        let unparkers: Vec<Unparker> = parkers.iter().map(Parker::unparker).collect();
        let Config {
            enable_io,
            enable_time,
            start_paused,
            ..
        } = *config;
        let _ = (
            enable_io,
            enable_time,
            start_paused,
            &unparkers,
            thread_name,
        );
        let handle = Handle {
            kind,
            fallback_reason,
            #[cfg(tokiwa_io_driver)]
            io: if !enable_io {
                None
            } else if kind == Driver::Legacy {
                // "poll-<worker>-" first: Linux keeps 15 bytes of a thread
                // name, and this way `top` still tells the poll threads
                // apart.
                let reactors = (0..workers)
                    .map(|i| Reactor::new(format!("poll-{i}-{thread_name}")))
                    .collect::<io::Result<Vec<_>>>()?;
                Some(IoHandle {
                    reactors: reactors.into(),
                    #[cfg(feature = "uring")]
                    rings: std::sync::Arc::new([]),
                    next: std::sync::atomic::AtomicUsize::new(0),
                })
            } else {
                Some(IoHandle {
                    reactors: Box::new([]),
                    #[cfg(feature = "uring")]
                    rings: rings.clone(),
                    next: std::sync::atomic::AtomicUsize::new(0),
                })
            },
            #[cfg(feature = "uring")]
            rings,
            #[cfg(feature = "time")]
            time: enable_time
                .then(|| crate::time::driver::TimeHandle::new(unparkers.clone(), start_paused)),
        };
        Ok((handle, parkers))
    }

    /// The driver actually running (`Legacy` or `Uring`).
    pub(crate) fn kind(&self) -> Driver {
        self.kind
    }

    /// Why `Auto` runs legacy, if it does.
    pub(crate) fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// io_uring mode: worker `index`'s ring.
    #[cfg(feature = "uring")]
    pub(crate) fn ring(&self, index: usize) -> Option<&std::sync::Arc<uring::Worker>> {
        self.rings.get(index)
    }

    /// The calling thread now drives worker `index` (it took the core):
    /// in io_uring mode it becomes the ring's issuer.
    pub(crate) fn attach(&self, index: usize) {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.rings.get(index) {
            ring.attach();
        }
        let _ = index;
    }

    /// The calling thread is about to let go of worker `index` (its core
    /// leaves the thread): in io_uring mode the ring's operations in flight
    /// are cancelled and waited for first (see `uring/op.rs`).
    pub(crate) fn release(&self, index: usize) {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.rings.get(index) {
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
    pub(crate) fn io(&self) -> &IoHandle {
        self.io.as_ref().expect(
            "A Tokio 1.x context was found, but IO is disabled. \
             Call `enable_io` on the runtime builder to enable IO.",
        )
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

    /// The blocking step of worker `index`: sleeps on `parker` until
    /// unparked or until the worker's next timer is due.
    pub(crate) fn park(&self, index: usize, parker: &mut Parker) {
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.park(index, |timeout| parker.park(timeout));
            return;
        }
        let _ = index;
        parker.park(None);
    }

    /// A busy worker's look at its drivers: reaps its reactor without
    /// blocking and fires its expired timers. Returns whether anything was
    /// woken.
    pub(crate) fn maintain(&self, index: usize) -> bool {
        let mut woke = false;
        #[cfg(feature = "uring")]
        if let Some(ring) = self.rings.get(index) {
            woke |= ring.maintain() > 0;
        }
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            if !io.reactors.is_empty() {
                woke |= io.reactors[index % io.reactors.len()].reap() > 0;
            }
        }
        woke |= self.process_timers(index);
        woke
    }

    /// Tells worker `index`'s poll thread whether the worker is parked
    /// (it then reaps the worker's events) or awake (it leaves them to the
    /// worker's own reaps). Set to `true` *before* the worker's last
    /// non-blocking reap (see `epoll.rs`).
    pub(crate) fn set_parked(&self, index: usize, parked: bool) {
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            if !io.reactors.is_empty() {
                io.reactors[index % io.reactors.len()].set_worker_parked(parked);
            }
        }
        let _ = (index, parked);
    }

    /// Whether any I/O resource is registered with the runtime: spinning on
    /// the reactors before parking only pays off then.
    pub(crate) fn has_io_resources(&self) -> bool {
        // A ring operation in flight (a file read waiting for the kernel's
        // worker thread) completes within microseconds too.
        if self.has_ops_in_flight() {
            return true;
        }
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            #[cfg(feature = "uring")]
            if io.rings.iter().any(|r| r.has_registrations()) {
                return true;
            }
            return io.reactors.iter().any(|r| r.has_registrations());
        }
        false
    }

    /// Whether an io_uring operation (a file read, an open, ...) is in
    /// flight on any ring.
    pub(crate) fn has_ops_in_flight(&self) -> bool {
        #[cfg(feature = "uring")]
        if self.rings.iter().any(|r| r.ops().in_flight() != 0) {
            return true;
        }
        false
    }

    /// A worker about to park: reaps its own reactor and timers, and if
    /// that woke nothing, the reactors of parked workers too (stealing I/O
    /// readiness the kernel already has, as it steals tasks), so a worker
    /// sleeps only when no event is waiting for a sleeping worker. It
    /// leaves awake workers' reactors alone: taking their events moved
    /// their tasks over and back, and in a one-connection echo 1-2% of the
    /// round trips then took twice as long (p99 27 us against 11 us when
    /// only parked workers' reactors are reaped). Returns whether anything
    /// was woken.
    pub(crate) fn reap_before_park(&self, index: usize) -> bool {
        if self.maintain(index) {
            return true;
        }
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            let n = io.reactors.len();
            for offset in 1..n {
                let reactor = &io.reactors[(index + offset) % n];
                // An awake worker reaps its own reactor; taking its events
                // would only pull its tasks over here.
                if !reactor.worker_is_parked() {
                    continue;
                }
                if reactor.reap() > 0 {
                    return true;
                }
            }
        }
        false
    }

    /// Fires worker `index`'s expired timers. Returns whether any fired.
    pub(crate) fn process_timers(&self, index: usize) -> bool {
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
        if let Some(io) = &self.io {
            for reactor in io.reactors.iter() {
                reactor.shutdown();
            }
        }
        #[cfg(feature = "uring")]
        for ring in self.rings.iter() {
            ring.shutdown();
        }
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.shutdown();
        }
    }
}
