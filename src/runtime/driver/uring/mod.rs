//! The io_uring driver: each worker owns a ring, sleeps in it, and is woken
//! through an eventfd (cargo feature `uring`).
//!
//! * `probe.rs`: what the kernel must support, checked once per process,
//!   and the ring's setup (`SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG`);
//! * `ring.rs`: the ring itself, its owner thread, submission, draining,
//!   the blocking wait;
//! * `wake.rs`: the eventfd and the driver's metrics;
//! * `io.rs`: readiness of I/O resources through multishot polls;
//! * `close.rs`: how a socket dropped away from its ring's owner still
//!   closes at once;
//! * `op.rs`: operations that own their memory until they complete (file
//!   reads and writes, opens, `statx`, `fsync`, closes);
//! * `send.rs`: completion sends for streams (`Builder::uring_completion_io`):
//!   writes copied into ring-owned buffers, sent with the turn's submit;
//! * `recv.rs`: completion receives for streams (same switch): a receive
//!   armed by a waiting reader fills a buffer of the ring's provided buffer
//!   ring (`buf_ring.rs`), copied into the stream's queue when reaped;
//! * `pollable.rs`: the registration check that refuses, as epoll does, a
//!   file that cannot be polled;
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
mod buf_ring;
pub(crate) mod close;
mod home;
mod io;
// Started only by `fs` so far; the table and the quiesce exist regardless.
#[cfg_attr(not(feature = "fs"), allow(dead_code))]
pub(crate) mod op;
mod pollable;
pub(crate) mod probe;
pub(crate) mod recv;
#[cfg(all(test, not(tokiwa_loom), feature = "full"))]
mod recv_tests;
pub(crate) mod rescue;
mod ring;
pub(crate) mod send;
#[cfg(all(test, not(tokiwa_loom), feature = "full"))]
mod send_tests;
#[cfg(all(test, not(tokiwa_loom), feature = "full"))]
mod tests;
mod wake;

pub(crate) use home::Homed;
pub(crate) use pollable::refuse_unpollable;
pub(crate) use probe::RingConfig;

/// The rings of a runtime, worker `i`'s at index `i`.
pub(crate) type Rings = Arc<[Arc<WorkerRing>]>;
pub(crate) use wake::UringMetrics;

use crate::io::Interest;
use crate::runtime::driver::scheduled_io::ScheduledIo;
use ring::{Attach, Ring, Wait};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

/// One worker's ring, eventfd and resources.
pub(crate) struct WorkerRing {
    index: usize,
    /// Locked by the thread holding the worker's core, also while it
    /// sleeps in the ring, so **no other thread may wait for this lock**:
    /// every thread but the owner is turned away by [`WorkerRing::owner`]
    /// before it tries the lock, and tries it without waiting (see
    /// [`WorkerRing::with_owned_ring`]). Shutdown takes it to close the ring
    /// (`None`) once the workers have stopped. The mutex makes the ring
    /// `Sync`; ownership is checked by the ring itself.
    ring: Mutex<Option<Ring>>,
    /// The id (`ring::thread_id`) of the thread that owns the ring, 0 for
    /// none yet: a copy of the ring's own record, readable without the
    /// lock. Written under the lock by `attach`. `Relaxed`: a thread reads
    /// its own id here only if it wrote it itself (program order), and any
    /// other value turns it away; a stale own id (this thread owned the
    /// ring before) only lets it *try* the lock, and the ring's own record
    /// under the lock says no.
    owner: AtomicU64,
    /// Set at shutdown, when the ring is closed.
    closed: AtomicBool,
    setup_flags: u32,
    waker: wake::WakeFd,
    io: io::IoState,
    ops: op::OpTable,
    /// Completion sends (`send.rs`), when `completion_io`.
    sends: send::SendTable,
    /// Completion receives (`recv.rs`), when `completion_io`.
    recvs: recv::RecvTable,
    completion_io: bool,
    /// The owner's progress, for other workers (`rescue.rs`).
    stall: crate::runtime::driver::stall::StallWatch,
    /// Where the next rescue's poll starts (round robin).
    rescue_cursor: std::sync::atomic::AtomicUsize,
}

/// The parker of a worker in io_uring mode.
#[derive(Debug)]
pub(crate) struct Parker {
    worker: Arc<WorkerRing>,
}

/// Wakes a worker in io_uring mode.
#[derive(Clone, Debug)]
pub(crate) struct Unparker {
    worker: Arc<WorkerRing>,
}

impl WorkerRing {
    /// Creates worker `index`'s eventfd and (disabled) ring.
    pub(crate) fn new(index: usize, config: RingConfig) -> std::io::Result<Arc<WorkerRing>> {
        let waker = wake::WakeFd::new()?;
        let ring = Ring::new(index, waker.eventfd(), config)?;
        let setup_flags = ring.setup_flags();
        if config.completion_io {
            send::count_completion_ring();
        }
        Ok(Arc::new(WorkerRing {
            setup_flags,
            index,
            ring: Mutex::new(Some(ring)),
            owner: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            waker,
            io: io::IoState::new(),
            ops: op::OpTable::default(),
            sends: send::SendTable::default(),
            recvs: recv::RecvTable::default(),
            completion_io: config.completion_io,
            stall: Default::default(),
            rescue_cursor: std::sync::atomic::AtomicUsize::new(0),
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

    /// Readiness events delivered to the ring's resources (`io_metrics.rs`).
    #[cfg(tokio_unstable)]
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn ready_count(&self) -> u64 {
        self.io.ready_count.get()
    }

    /// Whether the calling thread owns this ring (a hint read without the
    /// lock; see [`WorkerRing::owner`]). Threads of other runtimes, and other
    /// workers of this one, get `false` at once.
    pub(crate) fn is_owned_here(&self) -> bool {
        self.owner.load(Ordering::Relaxed) == ring::thread_id()
    }

    /// Runs `f` on the ring if the calling thread owns it; `None` when it
    /// does not, or when the runtime shut down (the ring is closed then).
    ///
    /// Never waits for the lock: its owner holds it while it sleeps in the
    /// kernel, and a thread that is not the owner must not wait for that
    /// (another runtime's worker dropping a resource of this one, say).
    /// The owner itself only finds the lock taken for the instant a
    /// non-owner with a stale hint spends checking, and then takes the
    /// slow path (a request, the blocking pool) like any non-owner; what
    /// it must not skip uses [`WorkerRing::with_owned_ring_waiting`].
    fn with_owned_ring<R>(&self, f: impl FnOnce(&mut Ring) -> R) -> Option<R> {
        if !self.is_owned_here() {
            return None;
        }
        let mut slot = match self.ring.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let ring = slot.as_mut()?;
        if !ring.is_owned_by_current() {
            return None;
        }
        Some(f(ring))
    }

    /// [`WorkerRing::with_owned_ring`] for what the owner must not skip
    /// (settling its operations before it lets go of the ring): it waits
    /// for the lock, which only a non-owner's momentary check can hold
    /// while the owner is here.
    fn with_owned_ring_waiting<R>(&self, f: impl FnOnce(&mut Ring) -> R) -> Option<R> {
        if !self.is_owned_here() {
            return None;
        }
        let mut slot = self.lock_ring();
        let ring = slot.as_mut()?;
        if !ring.is_owned_by_current() {
            return None;
        }
        Some(f(ring))
    }

    fn lock_ring(&self) -> MutexGuard<'_, Option<Ring>> {
        self.ring
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The calling thread now drives this worker (see the module docs).
    ///
    /// # Errors
    ///
    /// When the kernel refuses a ring for this thread (say, `EMFILE` while
    /// a core moves to a new thread): the ring and its polls are left as
    /// they were, owned by the previous thread, so the caller can give the
    /// core back and a later attach can try again.
    pub(crate) fn attach(&self) -> std::io::Result<()> {
        let mut slot = self.lock_ring();
        if let Some(ring) = slot.as_mut() {
            let attached = ring.attach()?;
            self.owner.store(ring::thread_id(), Ordering::Relaxed);
            if attached == Attach::Replaced {
                self.io.rearm(ring, &self.waker.metrics, None);
                if let Some(old) = ring.retired_buf_ring.take() {
                    // Receives still in the old ring (its owner let go
                    // without settling them) may yet write into its
                    // buffers: kept forever then (`buf_ring.rs`).
                    if self.recvs.orphan(false) {
                        op::keep_forever(Box::new(old));
                    }
                }
            }
        }
        Ok(())
    }

    /// The ring's setup flags as the kernel recorded them when it was
    /// created (read then: the ring's lock is not for other threads).
    pub(crate) fn setup_flags(&self) -> u32 {
        self.setup_flags
    }

    /// A busy or about-to-park worker's non-blocking look at its ring.
    /// Returns how many completions were reaped.
    pub(crate) fn maintain(&self) -> usize {
        thread_local! {
            // The wakers of this thread's last reap, kept for their
            // allocation: a busy worker reaps every few microseconds, and
            // a fresh vector cost an allocation and a free per turn.
            static WAKERS: std::cell::Cell<Vec<std::task::Waker>> =
                const { std::cell::Cell::new(Vec::new()) };
        }
        // A waker that reaps again (it cannot: waking only schedules)
        // would find the cell empty and use a vector of its own.
        let mut wakers = WAKERS.take();
        let n = self
            .with_owned_ring(|ring| {
                self.sends.flush(ring, &self.waker.metrics);
                self.recvs
                    .flush(ring, &self.waker.metrics, self.is_closed());
                self.reap(ring, &mut wakers)
            })
            .unwrap_or(0);
        // Woken with the ring unlocked: a waker may drop a resource, which
        // deregisters through this ring.
        for waker in wakers.drain(..) {
            waker.wake();
        }
        WAKERS.set(wakers);
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
            self.submit(ring);
        }
        if ring.is_cq_empty() {
            return 0;
        }
        let mut scratch = std::mem::take(&mut ring.scratch);
        let n = ring.drain(metrics, |cqe| scratch.cqes.push(cqe));
        self.sends
            .complete(&mut scratch.cqes, ring, metrics, wakers);
        self.recvs
            .complete(&mut scratch.cqes, ring, metrics, wakers);
        self.ops.complete(&mut scratch.cqes, wakers);
        self.io.complete(&scratch.cqes, wakers, &mut scratch.rearm);
        if !scratch.rearm.is_empty() {
            self.io.rearm(ring, metrics, Some(&scratch.rearm));
        }
        scratch.cqes.clear();
        scratch.rearm.clear();
        ring.scratch = scratch;
        n
    }

    /// Submits what the ring holds. The kernel's momentary refusals leave
    /// the entries queued for the next turn (see `ring::is_transient`);
    /// anything else is a bug.
    fn submit(&self, ring: &mut Ring) {
        if let Err(e) = ring.submit(&self.waker.metrics) {
            if !ring::is_transient(&e) {
                panic!("tokiwa worker {}: io_uring_enter failed: {e}", self.index);
            }
        }
    }

    pub(crate) fn ops(&self) -> &op::OpTable {
        &self.ops
    }

    pub(crate) fn sends(&self) -> &send::SendTable {
        &self.sends
    }

    pub(crate) fn recvs(&self) -> &recv::RecvTable {
        &self.recvs
    }

    /// Cancels receive `token` (`recv.rs`): on the owner, submitted now,
    /// and with `reap` its completion applied too; elsewhere a request.
    /// Returns whether the receive may still hold its socket's file once
    /// this returns.
    pub(crate) fn cancel_recv(&self, token: u64, reap: bool) -> bool {
        let mut wakers = Vec::new();
        let direct = self.with_owned_ring(|ring| {
            let metrics = &self.waker.metrics;
            ring.push(&recv::cancel_entry(token), metrics);
            if reap {
                self.reap(ring, &mut wakers);
                return !ring.has_unsubmitted();
            }
            ring.submit(metrics).is_ok()
        });
        for waker in wakers {
            waker.wake();
        }
        match direct {
            Some(submitted) => !submitted && !self.is_closed(),
            None => {
                self.send(io::Request::Cancel {
                    token: recv::RECV_TAG | token,
                });
                !self.is_closed()
            }
        }
    }

    /// Whether streams send through this ring (`send.rs`).
    pub(crate) fn completion_io(&self) -> bool {
        self.completion_io
    }

    /// Submits an operation from the ring's owner and reaps at once (a
    /// read of a cached file has completed by then). Returns its token, or
    /// `None` when the calling thread does not own the ring.
    ///
    /// # Safety
    ///
    /// The memory and descriptors `entry` references stay valid until the
    /// operation's completion has been reaped (see `op.rs`).
    #[cfg_attr(not(feature = "fs"), allow(dead_code))]
    pub(crate) unsafe fn start_op(&self, entry: io_uring::squeue::Entry) -> Option<u64> {
        let mut wakers = Vec::new();
        let token = self.with_owned_ring(|ring| {
            let metrics = &self.waker.metrics;
            let token = self.ops.insert();
            ring.push(&entry.user_data(token), metrics);
            // `reap` takes the other threads' requests, then submits the
            // operation with them. A refused submit leaves it queued: it
            // is in flight all the same (its memory stays with it), and
            // the next turn submits it.
            self.reap(ring, &mut wakers);
            token
        });
        for waker in wakers {
            waker.wake();
        }
        token
    }

    /// The calling thread is about to let go of this worker's ring (its
    /// core leaves the thread): cancels the operations in flight and waits
    /// for their completions, so the ring holds no memory when another
    /// thread replaces it or shutdown closes it (see `op.rs`).
    pub(crate) fn quiesce(&self) {
        if self.settled() {
            return;
        }
        let mut wakers = Vec::new();
        self.with_owned_ring_waiting(|ring| {
            let metrics = &self.waker.metrics;
            for token in self.ops.in_flight_tokens() {
                let cancel = io_uring::opcode::AsyncCancel::new(token)
                    .build()
                    .user_data(ring::CANCEL_TOKEN);
                ring.push(&cancel, metrics);
            }
            self.sends.cancel_all(ring, metrics);
            self.recvs.cancel_all(ring, metrics);
            loop {
                self.reap(ring, &mut wakers);
                if self.settled() {
                    break;
                }
                ring.wait_for_completion(metrics);
            }
            self.sends.end_quiesce();
        });
        for waker in wakers {
            waker.wake();
        }
    }

    /// Whether the kernel holds no operation, send or receive of this ring.
    fn settled(&self) -> bool {
        self.ops.in_flight() == 0 && self.sends.in_flight() == 0 && self.recvs.in_flight() == 0
    }

    fn park(&self, timeout: Option<Duration>) -> bool {
        let mut slot = self.lock_ring();
        let Some(ring) = slot.as_mut() else {
            // Shut down: nothing to wait for.
            return false;
        };
        // The scheduler attached this thread when it took the core; a
        // parker never sleeps in a ring it could not enter.
        assert!(
            ring.is_owned_by_current(),
            "tokiwa worker {}: parked on a ring owned by another thread",
            self.index
        );
        self.io.take_requests(ring, &self.waker.metrics);
        self.sends.flush(ring, &self.waker.metrics);
        self.recvs.flush(ring, &self.waker.metrics, false);
        let mut wait = Wait {
            ring,
            metrics: &self.waker.metrics,
        };
        self.waker.state.park(&mut wait, timeout)
    }

    /// Registers `fd` with this ring. Its poll is armed at the ring's next
    /// turn (`reap` or `park`), not now, so that it reports the readiness
    /// of that turn, as epoll reports what a descriptor has when the
    /// events are collected (see "When a poll is armed" in `io.rs`). The
    /// owner queues the request for itself: no unpark, it takes its
    /// requests before it sleeps. Any other thread unparks the owner.
    pub(crate) fn register(
        &self,
        fd: RawFd,
        interest: Interest,
    ) -> std::io::Result<(Arc<ScheduledIo>, u64)> {
        let io = Arc::new(ScheduledIo::new());
        let (token, request) = self.io.register(fd, interest, io.clone(), None)?;
        if let Some(request) = request {
            if self.is_owned_here() {
                self.io.send(request);
            } else {
                self.send(request);
            }
        }
        Ok((io, token))
    }

    /// Arms a poll for `io` on this ring: directly on the ring's owner;
    /// every other thread (another worker, another runtime's worker, a
    /// thread outside any runtime) sends a request and wakes the owner,
    /// never waits for its lock. Returns the poll's token.
    pub(crate) fn register_existing(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
    ) -> std::io::Result<u64> {
        let direct = self.with_owned_ring(|ring| {
            self.io
                .register(fd, interest, io.clone(), Some((ring, &self.waker.metrics)))
        });
        let (token, request) = match direct {
            Some(result) => result?,
            None => self.io.register(fd, interest, io, None)?,
        };
        if let Some(request) = request {
            self.send(request);
        }
        Ok(token)
    }

    /// Whether the runtime shut down (the ring is closed).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Registers an already registered resource with this ring, from the
    /// thread that owns it, for a poll that moves here (`home.rs`): its
    /// poll is armed at this worker's next turn, with the other arms and
    /// the completions of that turn in one `io_uring_enter`, not by an
    /// enter of its own now (a burst of moves after a steal cost one each).
    /// The readiness is not late for it: this worker reaps nothing before
    /// that turn, and a poll armed on a ready file completes at once.
    /// `None` when the calling thread does not own the ring.
    ///
    /// # Errors
    ///
    /// The runtime's shutdown error once the ring is closed.
    pub(crate) fn register_moved(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
    ) -> Option<std::io::Result<u64>> {
        if !self.is_owned_here() || self.is_closed() {
            return None;
        }
        Some(
            self.io
                .register(fd, interest, io, None)
                .map(|(token, request)| {
                    if let Some(request) = request {
                        // Taken by this same thread's next turn: no unpark.
                        self.io.send(request);
                    }
                    token
                }),
        )
    }

    /// Test hook: arms a poll for an already registered resource on this
    /// ring at once, from the thread that owns it. `None` when the calling
    /// thread does not own the ring or the runtime is shut down.
    ///
    /// # Errors
    ///
    /// When the kernel refuses the poll (see `IoState::insert_and_arm`:
    /// nothing is left registered).
    #[cfg(all(test, not(tokiwa_loom), feature = "full"))]
    pub(crate) fn register_here(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
    ) -> Option<std::io::Result<u64>> {
        self.with_owned_ring(|ring| {
            self.io
                .register_existing(fd, interest, io, ring, &self.waker.metrics)
        })
    }

    /// The resource of `token` is being dropped; call before closing its
    /// descriptor. Returns whether its poll may still hold the file after
    /// this returns (it did not run on the ring's owner, or the owner's
    /// submit was refused): closing the descriptor then would not close
    /// the file (see `close.rs`).
    pub(crate) fn deregister(&self, token: u64) -> bool {
        let direct = self
            .with_owned_ring(|ring| self.io.deregister(token, Some((ring, &self.waker.metrics))));
        let done = match direct {
            Some(done) => done,
            None => self.io.deregister(token, None),
        };
        if let Some(request) = done.request {
            self.send(request);
        }
        // Once the ring is closed, the kernel cancels every poll of it by
        // itself (see `shutdown`).
        done.still_polled && !self.is_closed()
    }

    /// [`WorkerRing::deregister`] for a poll that moved to another ring
    /// (`home.rs`): the resource lives on, so its cancel waits for the
    /// owner's next turn instead of waking it. The poll is neutralised at
    /// once either way (its completions set nothing). Returns whether the
    /// poll may still hold the file.
    pub(crate) fn deregister_moved(&self, token: u64) -> bool {
        let direct = self
            .with_owned_ring(|ring| self.io.deregister(token, Some((ring, &self.waker.metrics))));
        let done = match direct {
            Some(done) => done,
            None => self.io.deregister(token, None),
        };
        if let Some(io::Request::Cancel { token }) = done.request {
            if self.closed.load(Ordering::Acquire) {
                return false;
            }
            self.io.send(io::Request::CancelMoved { token });
        }
        done.still_polled && !self.is_closed()
    }

    /// The resource whose poll `token` moved away from this ring is being
    /// dropped while that poll may still hold its file: its cancel, lazy
    /// so far, is asked for again as an ordinary one, and the owner woken
    /// (`home.rs`). A second cancel of a poll is harmless (its completion
    /// is ignored, as every cancel's is).
    pub(crate) fn cancel_left(&self, token: u64) {
        self.send(io::Request::Cancel { token });
    }

    /// Whether the poll of `token`, deregistered before, may still hold
    /// its file (its cancel is waiting for the owner).
    pub(crate) fn still_polls(&self, token: u64) -> bool {
        !self.is_closed() && self.io.still_polled(token)
    }

    fn send(&self, request: io::Request) {
        // Once the runtime shut down the ring is closed, and with it every
        // poll: nothing is left to arm or cancel. (A flag, not the ring's
        // lock: the owner holds that lock while it sleeps in the ring.)
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        self.io.send(request);
        self.waker.unpark();
    }

    /// Test hook: ends the wake poll as a kernel termination would.
    /// Returns whether an armed poll was ended (not before the worker's
    /// first sleep, nor from a thread that does not own the ring).
    pub(crate) fn cancel_wake_poll(&self) -> bool {
        self.with_owned_ring(|ring| ring.cancel_wake_poll(&self.waker.metrics))
            .unwrap_or(false)
    }

    /// Test hook: ends every readiness poll on this ring as a kernel
    /// termination would (see `io.rs`). Returns how many were ended (0
    /// from a thread that does not own the ring).
    pub(crate) fn cancel_io_polls(&self) -> usize {
        self.with_owned_ring(|ring| self.io.cancel_polls(ring, &self.waker.metrics))
            .unwrap_or(0)
    }

    /// Test hook: the next `n` submits on this ring fail with `errno`, as
    /// the kernel's would. Returns whether the calling thread owns the
    /// ring (else nothing is injected).
    #[cfg(all(test, not(tokiwa_loom), feature = "full"))]
    pub(crate) fn fail_next_submits(&self, n: u32, errno: i32) -> bool {
        self.with_owned_ring(|ring| ring.failing_submits = (n, errno))
            .is_some()
    }

    /// Test hook: the resources' side of the ring (`io.rs`).
    #[cfg(all(test, not(tokiwa_loom), feature = "full"))]
    pub(crate) fn io_state(&self) -> &io::IoState {
        &self.io
    }

    /// Runtime shutdown, after the tasks are gone: fails the waiters of
    /// the resources still registered and closes the ring. Closing it makes
    /// the kernel cancel every poll and drop the file references they hold
    /// (a socket the program keeps, then drops, closes at once; the ring's
    /// owner thread may be gone, so no cancel could be submitted later).
    /// Polls reference no user memory.
    ///
    /// Operations do: every owner quiesces its ring before letting go of
    /// it, so normally none is in flight here. One can be when shutdown
    /// did not wait for the workers (`shutdown_timeout`,
    /// `shutdown_background`) and a worker still runs a task. The ring's
    /// teardown is asynchronous: closing it does not stop the kernel from
    /// writing into an operation's buffer later. So the table is orphaned
    /// first: the memory the kernel may still read or write of every
    /// operation in flight is leaked, now or when its future is dropped,
    /// and the rest of it (the file it works on, a runtime handle) is
    /// dropped (see `OpData::orphan`). A leak, never a use-after-free.
    /// The ring is closed all the same: kept open, its polls would pin
    /// every socket and listener it watched, and itself and its eventfd
    /// would leak, for as long as the process lives.
    pub(crate) fn shutdown(&self) {
        self.io.shutdown();
        // `Release`: pairs with the `Acquire` in `send`; a request sent
        // concurrently is either dropped here with the queue or never
        // queued.
        self.closed.store(true, Ordering::Release);
        // A caller that still owns the ring settles its operations first.
        self.quiesce();
        let mut ring = self.lock_ring().take();
        // With the ring gone nobody can start or reap an operation, so the
        // count is final.
        if self.ops.in_flight() != 0 {
            self.ops.orphan();
        }
        self.sends.orphan();
        let buf_ring = ring.as_mut().and_then(|ring| ring.take_buf_ring());
        let receiving = self.recvs.orphan(true);
        drop(ring);
        // After the ring's descriptor is closed; kept forever if receives
        // were still in flight (see `buf_ring.rs`).
        if let Some(buf_ring) = buf_ring {
            if receiving {
                op::keep_forever(Box::new(buf_ring));
            }
        }
    }
}

/// Test helper: a test that needs io_uring mode and cannot have it (the
/// kernel refused `error`) says so on stderr and is skipped, unless
/// `TOKIWA_REQUIRE_URING=1` (set by CI on a kernel that has io_uring), in
/// which case it fails.
#[cfg(all(test, not(tokiwa_loom)))]
pub(crate) fn unavailable(test: &str, error: &dyn std::fmt::Display) {
    if std::env::var_os("TOKIWA_REQUIRE_URING").is_some_and(|v| v == "1") {
        panic!("{test}: io_uring mode unavailable ({error}), and TOKIWA_REQUIRE_URING=1");
    }
    eprintln!("{test}: SKIPPED, io_uring mode unavailable ({error})");
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

impl std::fmt::Debug for WorkerRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("uring::WorkerRing")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}
