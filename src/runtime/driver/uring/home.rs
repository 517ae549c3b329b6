//! Where a resource's poll lives, and moving it to the worker whose tasks
//! wait on it.
//!
//! A resource's multishot poll sits on the ring of the worker that
//! registered it, and its completions wake the waiting task into *that*
//! worker's queue. Work stealing moves tasks between workers, though: a
//! connection accepted on worker A and stolen by worker B would keep being
//! woken on A and stolen back, and every readiness of it would cost a
//! thread hop. (With a loopback echo on 2 workers, every server socket
//! sat on the accepting worker's ring and that worker did three quarters
//! of the work.) So a resource follows its waiter: when a task waits on it
//! from another worker, a poll is armed on that worker's ring (by the
//! waiter's own worker: it owns that ring) and the old one is neutralised
//! and cancelled.
//! Both polls share the readiness word; the new poll reports readiness
//! that exists when it is armed, so no edge is lost in the move.
//!
//! **At the first foreign wait.** Moves used to wait for [`REHOME_AFTER`]
//! foreign waits in a row, and a wait at home ended the run. A stolen task's
//! first wait was foreign, its readiness was reaped by the old ring, which
//! woke it back there, and its next wait, at home, reset the count: a
//! socket never followed a steal, every steal cost a readiness reaped by
//! the wrong worker (and often a wake of it), and the accepting worker kept
//! the sockets, which fed the stealing (`wrk -c64` on 2 workers: 0.1-0.19
//! such waits per request, echo at 256 connections 0.13). Now the first
//! foreign wait moves the poll, unless the resource moved less than
//! [`MOVE_COOLDOWN_NS`] ago: then the old rule applies. That bounds the
//! moves of a resource whose two halves wait from two workers (a split
//! stream) to one per cooldown, where moving at every wait would
//! ping-pong. A task that runs here because this worker served a stalled
//! ring's sockets (`rescue.rs`) moves its resource too: its old worker is
//! not running, and a poll left there would need another rescue for the
//! next readiness.
//!
//! **The new poll** is armed at the new worker's next turn (a request to
//! itself, as a registration on a worker is), so the moves a steal causes
//! share that turn's one `io_uring_enter` instead of entering the kernel
//! once each. A submit the kernel refuses then is the request path's
//! (`io.rs`): the poll is cancelled in the same batch and armed again.
//!
//! **The old poll.** Marked cancelling in its ring's registry at once (under
//! that registry's lock), so its completions, if any arrive before its
//! cancel runs, set nothing and wake nobody; its cancel is queued for the
//! old owner *without waking it*: the owner takes it at its next turn and
//! submits it with its next enter (`Ring::push_lazy`), and a poll that
//! fires meanwhile ends an owner's sleep the same as the eventfd would
//! have. Until then the old poll holds the file, which `left` records for
//! the final deregistration (`close.rs`), which asks for the cancel again
//! as an ordinary one and wakes such an owner.
//!
//! **A resource made off the workers starts with no poll at all.** A
//! server's accept loop usually runs in `block_on`, on the main thread,
//! and spawns a task per connection, which some worker then runs. Arming
//! the new socket's poll on a ring chosen at accept time cost a request to
//! that ring's owner (and an eventfd write if it slept) per connection,
//! and then, half the time, a move once the task had waited from another
//! worker twice. Instead such a resource is *unplaced*: the first task
//! that waits on it arms its poll on its own worker's ring, directly (it
//! owns that ring). A poll armed on a socket that is already ready
//! completes at once, so readiness that arrived before is not lost. A
//! resource first waited on outside any worker is placed by its
//! descriptor's number, through a request, as before.
use super::{Rings, WorkerRing};
use crate::runtime::driver::scheduled_io::{shutdown_error, ScheduledIo};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Consecutive waits from one other worker that move a resource's poll
/// that moved less than [`MOVE_COOLDOWN_NS`] ago.
const REHOME_AFTER: u32 = 2;

/// For how long after a move a resource's poll moves again only after
/// [`REHOME_AFTER`] foreign waits in a row.
const MOVE_COOLDOWN_NS: u64 = 1_000_000;

/// `Home::worker` (and `home_index`) of a resource with no poll yet.
const UNPLACED: usize = usize::MAX;

/// A resource registered in io_uring mode.
#[derive(Debug)]
pub(crate) struct Homed {
    rings: Rings,
    fd: RawFd,
    interest: crate::io::Interest,
    /// The worker whose ring holds the poll, for the fast check (`Relaxed`:
    /// a hint; `home` under its lock is the truth).
    home_index: AtomicUsize,
    /// Whether `home.foreign` counts a run of waits from another worker,
    /// so that a wait at home knows, without the lock, to end it.
    /// `Relaxed`: written under `home`'s lock; a stale `false` read at home
    /// only lets one run of foreign waits continue across a home wait.
    foreign_pending: AtomicBool,
    home: Mutex<Home>,
}

#[derive(Debug)]
struct Home {
    worker: usize,
    token: u64,
    /// The other worker that waited last, and how many times in a row.
    foreign: Option<(usize, u32)>,
    /// Deregistered: never moves again.
    gone: bool,
    /// When the poll last moved (or tried to: `stall::now_ns`), `None` if
    /// never (see [`MOVE_COOLDOWN_NS`]).
    moved_at: Option<u64>,
    /// Polls left behind on other rings by moves, whose cancels wait for
    /// those rings' owners: until then each still holds the file, which
    /// the final deregistration must know (see `close.rs`). Pruned at
    /// every move; a move is rare, so this stays short.
    left: Vec<(usize, u64)>,
}

impl Homed {
    pub(crate) fn new(
        rings: Rings,
        worker: usize,
        token: u64,
        fd: RawFd,
        interest: crate::io::Interest,
    ) -> Homed {
        Homed {
            rings,
            fd,
            interest,
            home_index: AtomicUsize::new(worker),
            foreign_pending: AtomicBool::new(false),
            home: Mutex::new(Home {
                worker,
                token,
                foreign: None,
                gone: false,
                moved_at: None,
                left: Vec::new(),
            }),
        }
    }

    /// A resource registered off the workers: no poll until the first
    /// wait places it (see the module doc). Returns it with its readiness
    /// word.
    ///
    /// # Errors
    ///
    /// The runtime's shutdown error once the rings are closed.
    pub(crate) fn unplaced(
        rings: Rings,
        fd: RawFd,
        interest: crate::io::Interest,
    ) -> io::Result<(Homed, Arc<ScheduledIo>)> {
        if rings[0].is_closed() {
            return Err(shutdown_error());
        }
        let homed = Homed::new(rings, UNPLACED, 0, fd, interest);
        Ok((homed, Arc::new(ScheduledIo::new())))
    }

    fn ring(&self, worker: usize) -> &Arc<WorkerRing> {
        &self.rings[worker]
    }

    /// A task is about to wait on the resource (its readiness was not
    /// there): moves the poll to this worker's ring when the waits keep
    /// coming from here.
    ///
    /// # Errors
    ///
    /// When an unplaced resource's poll cannot be armed (the runtime shut
    /// down, the kernel refused the poll): the waiter must not sleep.
    pub(crate) fn on_wait(&self, io: &Arc<ScheduledIo>) -> io::Result<()> {
        let me = crate::runtime::worker_index().filter(|&me| me < self.rings.len());
        let home_index = self.home_index.load(Relaxed);
        if home_index == UNPLACED {
            // A worker index of another runtime says nothing about rings
            // of this one.
            let me = me.filter(|&me| self.ring(me).is_owned_here());
            return self.place(io, me);
        }
        let Some(me) = me else {
            return Ok(());
        };
        self.move_towards(io, me, home_index);
        Ok(())
    }

    /// Makes sure the resource has a poll (a `try_*` operation found it
    /// not ready: from now on its readiness must be tracked), without
    /// counting a wait.
    pub(crate) fn ensure_placed(&self, io: &Arc<ScheduledIo>) -> io::Result<()> {
        if self.home_index.load(Relaxed) != UNPLACED {
            return Ok(());
        }
        let me = crate::runtime::worker_index()
            .filter(|&me| me < self.rings.len() && self.ring(me).is_owned_here());
        self.place(io, me)
    }

    /// Arms the first poll of an unplaced resource on the ring of worker
    /// `me` (the caller owns it), or outside the workers on the ring its
    /// descriptor's number picks. A no-op if a concurrent waiter (the other
    /// half of a split stream) placed it first.
    fn place(&self, io: &Arc<ScheduledIo>, me: Option<usize>) -> io::Result<()> {
        let mut home = self.home.lock().unwrap();
        if home.gone || home.worker != UNPLACED {
            return Ok(());
        }
        let worker = me.unwrap_or(self.fd as usize % self.rings.len());
        let token = self
            .ring(worker)
            .register_existing(self.fd, self.interest, io.clone())?;
        home.worker = worker;
        home.token = token;
        self.home_index.store(worker, Relaxed);
        Ok(())
    }

    /// A wait from worker `me` on a placed resource whose poll sits on
    /// `home_index`'s ring: moves the poll here (see the module doc for
    /// when), and counts the wait as foreign if it stays where it is.
    fn move_towards(&self, io: &Arc<ScheduledIo>, me: usize, home_index: usize) {
        if me == home_index {
            // The common case, a wait at home, takes no lock; it only ends
            // a run of foreign waits, if one was counted (a task stolen
            // once and woken back home must not count towards a move the
            // next time it is stolen: that moved every busy socket back
            // and forth between the rings).
            if self.foreign_pending.load(Relaxed) {
                let mut home = self.home.lock().unwrap();
                home.foreign = None;
                self.foreign_pending.store(false, Relaxed);
            }
            return;
        }
        // A thread that does not own ring `me` is a worker of another
        // runtime: its waits say nothing about where this resource should
        // live.
        if !self.ring(me).is_owned_here() {
            return;
        }
        let mut home = self.home.lock().unwrap();
        if home.gone {
            return;
        }
        if me == home.worker {
            home.foreign = None;
            return;
        }
        let count = match home.foreign {
            Some((worker, n)) if worker == me => n + 1,
            _ => 1,
        };
        let now = crate::runtime::driver::stall::now_ns();
        let settled = home
            .moved_at
            .is_none_or(|at| now.saturating_sub(at) >= MOVE_COOLDOWN_NS);
        if !settled && count < REHOME_AFTER {
            home.foreign = Some((me, count));
            self.foreign_pending.store(true, Relaxed);
            super::UringMetrics::add(&self.ring(me).metrics().foreign_io_waits, 1);
            return;
        }
        home.moved_at = Some(now);
        let token = match self
            .ring(me)
            .register_moved(self.fd, self.interest, io.clone())
        {
            Some(Ok(token)) => token,
            // Not our ring after all, or the runtime shut down: nothing to
            // move to; the resource stays where it is.
            Some(Err(_)) | None => {
                home.foreign = None;
                self.foreign_pending.store(false, Relaxed);
                super::UringMetrics::add(&self.ring(me).metrics().foreign_io_waits, 1);
                return;
            }
        };
        let old = std::mem::replace(&mut home.token, token);
        let old_worker = std::mem::replace(&mut home.worker, me);
        home.foreign = None;
        self.foreign_pending.store(false, Relaxed);
        self.home_index.store(me, Relaxed);
        super::UringMetrics::add(&self.ring(me).metrics().io_rehomes, 1);
        // Under the lock, so that a concurrent final deregistration sees
        // the old poll in `left`. (Another ring's `deregister_moved` never
        // waits for its owner, nor wakes it.)
        let rings = &self.rings;
        home.left
            .retain(|&(worker, token)| rings[worker].still_polls(token));
        if self.ring(old_worker).deregister_moved(old) {
            home.left.push((old_worker, old));
        }
    }

    /// The resource is being dropped (before its descriptor closes):
    /// cancels its poll wherever it lives. Idempotent. Returns whether a
    /// poll of it may still hold the file when this returns (its ring's
    /// owner has yet to run the cancel: see `close.rs`).
    pub(crate) fn deregister(&self) -> bool {
        let mut home = self.home.lock().unwrap();
        if home.gone {
            return false;
        }
        home.gone = true;
        let left = std::mem::take(&mut home.left);
        let placed = (home.worker != UNPLACED).then_some((home.worker, home.token));
        drop(home);
        // A poll left behind by a move waits for its owner's next enter
        // (its cancel was lazy): the file it holds must be let go now, so
        // the cancel is asked for again, urgently.
        let mut still_polled = false;
        for (worker, token) in left {
            if self.ring(worker).still_polls(token) {
                self.ring(worker).cancel_left(token);
                still_polled = true;
            }
        }
        if let Some((worker, token)) = placed {
            still_polled |= self.ring(worker).deregister(token);
        }
        still_polled
    }
}
