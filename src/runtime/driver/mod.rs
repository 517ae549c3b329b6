//! The drivers a runtime owns, and what a worker's park slot does with
//! them.
//!
//! * `epoll.rs`: the legacy I/O driver, one [`Reactor`] (epoll instance
//!   plus poll thread) per worker;
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
#[cfg(tokiwa_io_driver)]
pub(crate) mod epoll;
#[cfg(tokiwa_io_driver)]
pub(crate) mod poll_gate;
#[cfg(tokiwa_io_driver)]
pub(crate) mod registration;
#[cfg(tokiwa_io_driver)]
pub(crate) mod scheduled_io;

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
}

/// The drivers of one runtime.
#[derive(Debug)]
pub(crate) struct Handle {
    #[cfg(tokiwa_io_driver)]
    io: Option<IoHandle>,
    #[cfg(feature = "time")]
    time: Option<crate::time::driver::TimeHandle>,
}

/// The runtime's reactors, one per worker.
#[cfg(tokiwa_io_driver)]
#[derive(Debug)]
pub(crate) struct IoHandle {
    reactors: Box<[std::sync::Arc<Reactor>]>,
    /// Round-robin choice for registrations made off the workers. `Relaxed`:
    /// only spreads load.
    next: std::sync::atomic::AtomicUsize,
}

#[cfg(tokiwa_io_driver)]
impl IoHandle {
    /// The reactor of the worker this runs on, or the next one
    /// round-robin.
    pub(crate) fn reactor_for_current(&self) -> &std::sync::Arc<Reactor> {
        let index = crate::runtime::worker_index()
            .unwrap_or_else(|| self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        &self.reactors[index % self.reactors.len()]
    }
}

impl Handle {
    /// Creates the drivers for `unparkers.len()` workers (one for a
    /// current-thread runtime). `thread_name` names the poll threads.
    pub(crate) fn new(
        config: &Config,
        unparkers: &[Unparker],
        thread_name: &str,
    ) -> io::Result<Handle> {
        let Config {
            enable_io,
            enable_time,
            start_paused,
        } = *config;
        let _ = (enable_io, enable_time, start_paused, unparkers, thread_name);
        Ok(Handle {
            #[cfg(tokiwa_io_driver)]
            io: if enable_io {
                // "poll-<worker>-" first: Linux keeps 15 bytes of a thread
                // name, and this way `top` still tells the poll threads
                // apart.
                let reactors = (0..unparkers.len())
                    .map(|i| Reactor::new(format!("poll-{i}-{thread_name}")))
                    .collect::<io::Result<Vec<_>>>()?;
                Some(IoHandle {
                    reactors: reactors.into(),
                    next: std::sync::atomic::AtomicUsize::new(0),
                })
            } else {
                None
            },
            #[cfg(feature = "time")]
            time: enable_time
                .then(|| crate::time::driver::TimeHandle::new(unparkers.to_vec(), start_paused)),
        })
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
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            woke |= io.reactors[index % io.reactors.len()].reap() > 0;
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
            io.reactors[index % io.reactors.len()].set_worker_parked(parked);
        }
        let _ = (index, parked);
    }

    /// Whether any I/O resource is registered with the runtime: spinning on
    /// the reactors before parking only pays off then.
    pub(crate) fn has_io_resources(&self) -> bool {
        #[cfg(tokiwa_io_driver)]
        if let Some(io) = &self.io {
            return io.reactors.iter().any(|r| r.has_registrations());
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
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.shutdown();
        }
    }
}
