//! The io_uring driver: each worker owns a ring, sleeps in it, and is woken
//! through an eventfd (cargo feature `uring`).
//!
//! * `probe.rs`: what the kernel must support, checked once per process,
//!   and the ring's setup (`SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG`);
//! * `ring.rs`: the ring itself, its owner thread, submission, draining,
//!   the blocking wait;
//! * `wake.rs`: the eventfd and the driver's metrics;
//! * `io.rs`: readiness of I/O resources through multishot polls;
//! * the wake protocol itself is `runtime/park/ring_wake.rs`, apart from
//!   the ring so that loom can check it.
//!
//! **There is no poll thread.** A worker is the only thread that enters its
//! ring. While busy, every `event_interval` ticks it looks at its SQ flags
//! and CQ from user space and enters the kernel only when the kernel has
//! something for it (`TASKRUN` set, an overflow to flush) or it has entries
//! to submit; the completions it reaps wake their tasks into its own queue.
//! When idle, after the scheduler's announce-and-recheck, it blocks in
//! `io_uring_enter(GETEVENTS)` with its next timer as the timeout: an I/O
//! completion and a wakeup from another thread (an eventfd write, seen by
//! the multishot poll) end the same wait, one thread hop where legacy mode
//! needs two (poll thread, then condvar).
//!
//! **Ownership.** Because of `SINGLE_ISSUER` the ring belongs to a thread,
//! while the worker's *core* may move (`block_in_place`, or a
//! current-thread runtime driven from another thread): `attach` runs
//! whenever a thread takes a core and makes it the ring's owner (see
//! `ring.rs`).
mod io;
pub(crate) mod probe;
mod ring;
mod wake;

pub(crate) use probe::RingConfig;
pub(crate) use wake::UringMetrics;

use crate::io::Interest;
use crate::runtime::driver::scheduled_io::ScheduledIo;
use ring::{Attach, Cqe, Ring, Wait};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One worker's ring, eventfd and resources.
pub(crate) struct Worker {
    index: usize,
    /// Locked only by the thread holding the worker's core (never
    /// contended): the mutex makes the ring `Sync`, ownership is checked by
    /// the ring itself. Held through the blocking wait, so no other thread
    /// may take it.
    ring: Mutex<Ring>,
    /// The ring's setup flags, copied out when it is created or replaced:
    /// the ring's lock is held while the worker sleeps.
    setup_flags: AtomicU32,
    waker: wake::Waker,
    io: io::IoState,
}

/// The parker of a worker in io_uring mode.
#[derive(Debug)]
pub(crate) struct Parker {
    worker: Arc<Worker>,
}

/// Wakes a worker in io_uring mode.
#[derive(Clone, Debug)]
pub(crate) struct Unparker {
    worker: Arc<Worker>,
}

impl Worker {
    /// Creates worker `index`'s eventfd and (disabled) ring.
    pub(crate) fn new(index: usize, config: RingConfig) -> std::io::Result<Arc<Worker>> {
        let waker = wake::Waker::new()?;
        let ring = Ring::new(index, waker.eventfd(), config)?;
        Ok(Arc::new(Worker {
            index,
            setup_flags: AtomicU32::new(ring.setup_flags()),
            ring: Mutex::new(ring),
            waker,
            io: io::IoState::new(),
        }))
    }

    pub(crate) fn parker(self: &Arc<Self>) -> Parker {
        Parker {
            worker: self.clone(),
        }
    }

    pub(crate) fn unparker(self: &Arc<Self>) -> Unparker {
        Unparker {
            worker: self.clone(),
        }
    }

    pub(crate) fn metrics(&self) -> &UringMetrics {
        &self.waker.metrics
    }

    /// The calling thread now drives this worker (see the module docs).
    pub(crate) fn attach(&self) {
        let mut ring = self.ring.lock().unwrap();
        if ring.attach() == Attach::Replaced {
            // `Relaxed`: a value for tests, read by no synchronisation.
            self.setup_flags
                .store(ring.setup_flags(), Ordering::Relaxed);
            self.io.rearm(&mut ring, &self.waker.metrics, None);
        }
    }

    /// The ring's setup flags as the kernel recorded them. Does not wait
    /// for the ring's lock, which a parked worker holds.
    pub(crate) fn setup_flags(&self) -> u32 {
        self.setup_flags.load(Ordering::Relaxed)
    }

    /// A busy or about-to-park worker's non-blocking look at its ring.
    /// Returns how many completions were reaped.
    pub(crate) fn maintain(&self) -> usize {
        let mut wakers = Vec::new();
        let n = {
            let mut ring = self.ring.lock().unwrap();
            if !ring.is_owned_by_current() {
                return 0;
            }
            self.reap(&mut ring, &mut wakers)
        };
        for waker in wakers {
            waker.wake();
        }
        n
    }

    fn reap(&self, ring: &mut Ring, wakers: &mut Vec<std::task::Waker>) -> usize {
        let metrics = &self.waker.metrics;
        self.io.take_requests(ring, metrics);
        let (enter, taskrun) = ring.needs_enter();
        if enter {
            if taskrun {
                UringMetrics::add(&metrics.taskrun_enters, 1);
            }
            if let Err(e) = ring.submit(metrics) {
                if e.raw_os_error() != Some(libc::EBUSY) {
                    panic!("tokiwa worker {}: io_uring_enter failed: {e}", self.index);
                }
            }
        }
        if ring.is_cq_empty() {
            return 0;
        }
        let mut cqes: Vec<Cqe> = Vec::new();
        let n = ring.drain(metrics, |cqe| cqes.push(cqe));
        let mut rearm = Vec::new();
        self.io.complete(&cqes, wakers, &mut rearm);
        if !rearm.is_empty() {
            self.io.rearm(ring, metrics, Some(&rearm));
        }
        n
    }

    fn park(&self, timeout: Option<Duration>) -> bool {
        let mut ring = self.ring.lock().unwrap();
        if !ring.is_owned_by_current() {
            drop(ring);
            self.attach();
            ring = self.ring.lock().unwrap();
        }
        self.io.take_requests(&mut ring, &self.waker.metrics);
        let mut wait = Wait {
            ring: &mut ring,
            metrics: &self.waker.metrics,
        };
        self.waker.state.park(&mut wait, timeout)
    }

    /// Registers `fd`: on this worker's ring directly when the caller
    /// drives the worker, else through a request to it.
    pub(crate) fn register(
        &self,
        fd: RawFd,
        interest: Interest,
    ) -> std::io::Result<(Arc<ScheduledIo>, u64)> {
        refuse_unpollable(fd)?;
        let on_owner = crate::runtime::worker_index() == Some(self.index);
        let (io, token, request) = if on_owner {
            let mut ring = self.ring.lock().unwrap();
            if ring.is_owned_by_current() {
                self.io
                    .register(fd, interest, Some((&mut ring, &self.waker.metrics)))?
            } else {
                drop(ring);
                self.io.register(fd, interest, None)?
            }
        } else {
            self.io.register(fd, interest, None)?
        };
        if let Some(request) = request {
            self.send(request);
        }
        Ok((io, token))
    }

    /// The resource of `token` is being dropped; call before closing its
    /// descriptor.
    pub(crate) fn deregister(&self, token: u64) {
        let request = if crate::runtime::worker_index() == Some(self.index) {
            let mut ring = self.ring.lock().unwrap();
            if ring.is_owned_by_current() {
                self.io
                    .deregister(token, Some((&mut ring, &self.waker.metrics)))
            } else {
                drop(ring);
                self.io.deregister(token, None)
            }
        } else {
            self.io.deregister(token, None)
        };
        if let Some(request) = request {
            self.send(request);
        }
    }

    fn send(&self, request: io::Request) {
        self.io.send(request);
        self.waker.unpark();
    }

    pub(crate) fn has_registrations(&self) -> bool {
        self.io.has_registrations()
    }

    /// Test hook: ends the wake poll as a kernel termination would.
    pub(crate) fn cancel_wake_poll(&self) {
        let mut ring = self.ring.lock().unwrap();
        if ring.is_owned_by_current() {
            ring.cancel_wake_poll(&self.waker.metrics);
        }
    }

    pub(crate) fn shutdown(&self) {
        self.io.shutdown();
    }
}

/// A poll on a regular file or a directory always reports ready; epoll
/// refuses them with `EPERM`, and so does this driver, so `AsyncFd::new`
/// on a file fails the same way in both modes.
fn refuse_unpollable(fd: RawFd) -> std::io::Result<()> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is writable memory of the right size; `fd` is open
    // (the caller owns it).
    if unsafe { libc::fstat(fd, stat.as_mut_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fstat` succeeded, so it initialised `stat`.
    let mode = unsafe { stat.assume_init() }.st_mode & libc::S_IFMT;
    if mode == libc::S_IFREG || mode == libc::S_IFDIR {
        return Err(std::io::Error::from_raw_os_error(libc::EPERM));
    }
    Ok(())
}

impl Parker {
    /// Blocks in the ring until unparked, a completion arrives or
    /// `timeout` passes. Returns whether an unpark was consumed. The
    /// completions are reaped afterwards by `maintain`, with the core in
    /// the context.
    pub(crate) fn park(&mut self, timeout: Option<Duration>) -> bool {
        self.worker.park(timeout)
    }

    pub(crate) fn unparker(&self) -> Unparker {
        self.worker.unparker()
    }
}

impl Unparker {
    pub(crate) fn unpark(&self) {
        self.worker.waker.unpark();
    }
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("uring::Worker")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}
