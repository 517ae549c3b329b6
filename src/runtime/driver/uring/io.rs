//! Readiness of I/O resources through a worker's ring.
//!
//! Each resource gets a multishot `PollAdd` on the ring of the worker that
//! registered it; its completions set the resource's readiness word
//! (`scheduled_io.rs`) exactly as epoll events do in legacy mode, so the
//! I/O types keep tokio's borrowed-buffer semantics: the kernel never holds
//! a pointer into user memory, and a dropped future leaves nothing behind.
//!
//! **Tokens** are a slot index plus a generation, as in `legacy/reactor.rs`. A slot
//! lives until its poll's *final* completion (the one without `F_MORE`),
//! so the kernel never holds a token whose slot was reused.
//!
//! **Who submits.** Only the ring's owner enters it. A resource registered
//! or dropped on another thread sends a [`Request`] to the owner (a queue
//! plus the owner's eventfd) instead:
//!
//! * *registered elsewhere*: the request carries the descriptor number; the
//!   owner checks under the registry lock that the resource still lives
//!   and submits before it lets go of the lock (see re-arming below), so
//!   the kernel only ever resolves an open descriptor. (An earlier version
//!   sent a `dup` instead, closed by the owner after the submit: the extra
//!   descriptor outlived the call by an unbounded delay, and a program that
//!   counts its descriptors, such as the `EMFILE` test, saw it.)
//! * *dropped elsewhere*: the slot is marked cancelling (under the registry
//!   lock, before the caller closes the descriptor) and the owner submits
//!   an `AsyncCancel` for the token: at once if it sleeps (the request
//!   unparks it), else at its next maintenance tick, or, if it is busy in
//!   a task or nobody drives it, later still. The poll holds its own
//!   reference to the file until then, so [`IoState::deregister`] tells
//!   its caller, which shuts a socket down before closing it so that it
//!   closes now all the same (`close.rs`). On the owner itself the cancel
//!   is submitted, and its reference dropped, at once.
//!
//! **When a poll is armed.** A multishot poll that finds its file ready
//! when armed completes at once with the mask of that moment, and the
//! completion is delivered as it stands, however much later it is reaped.
//! epoll instead evaluates a ready descriptor again when its events are
//! collected. So a poll armed at registration reported what the descriptor
//! had then: an `AsyncFd` registered, then filled by writes the runtime
//! never saw, was reported writable to its first writer, where tokio says
//! it is not. A registration therefore only queues an `Arm` request, on
//! the registering worker's own ring too, and the owner arms it when it
//! next takes its requests: at the start of its next `reap` or `park`,
//! right before it collects completions, which is when epoll would have
//! evaluated it. (Readiness still becomes known at that turn without any
//! wait: `try_io` after a yield sees it, as with epoll.) This costs
//! nothing: the arms a turn finds share one submit, where each
//! registration used to submit its own. A task that waits arms nothing
//! early either (`home.rs` arms at the first wait only resources that
//! have no ring yet, and moves polls): such a poll reports the readiness
//! of the wait. The residual difference from epoll is confined to
//! descriptor operations made behind the runtime's back between a
//! completion and its reaping.
//!
//! **Re-arming.** A multishot poll can end (a final completion without
//! `F_MORE` for a live slot, or a ring that was replaced when the core
//! changed threads). The owner arms it again by descriptor number while it
//! holds the registry lock through the submit, and a dropper marks the slot
//! cancelling under that lock before it closes the descriptor: a re-arm
//! never resolves a closed (or reused) descriptor number. A final
//! completion with an error (`ECANCELED` when the kernel ends it, `ENOMEM`
//! when it fails) is the poll's own end, not news of the socket: nothing
//! is reported, and the poll is armed again, which reports what the socket
//! has by then. One that keeps failing ([`MAX_POLL_FAILURES`] in a row)
//! fails its resource's waits instead of spinning.
//!
//! **Submits that fail.** The kernel may refuse a submit for a moment
//! (`EAGAIN`/`ENOMEM`: no memory for a request; nothing is submitted), and
//! the entries stay queued for the next enter, which the descriptor they
//! name might not outlive. So a poll pushed under the registry lock never
//! outlives the lock both unsubmitted and alone: if the submit fails, its
//! cancel is queued right behind it (`submit_or_neutralize`), and whenever
//! the pair reaches the kernel, the poll is cancelled in the same batch.
//! A live resource's poll comes back from that cancel and is armed again;
//! a registration that failed this way is tombstoned (marked cancelling)
//! and returns the error, leaving nothing for its caller to undo.
use super::ring::{Cqe, Ring};
use super::wake::UringMetrics;
use crate::io::{Interest, Ready};
use crate::runtime::driver::scheduled_io::{shutdown_error, ScheduledIo};
use io_uring::{opcode, types};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
// The driver is not loom-modelled (there is no io_uring under loom): its
// locks and flags are std's.
use std::sync::{Arc, Mutex};
use std::task::Waker;

/// A request for the ring's owner from another thread.
#[derive(Debug)]
pub(crate) enum Request {
    /// Arm the poll of `token` on `fd` (open until the slot is marked
    /// cancelling).
    Arm { token: u64, fd: RawFd, mask: u32 },
    /// Cancel the poll of `token`.
    Cancel { token: u64 },
    /// Cancel the poll of `token`, which moved to another ring: its
    /// completions are ignored already, so the cancel need not cost an
    /// enter of its own (`Ring::push_lazy`).
    CancelMoved { token: u64 },
}

/// The resources of one worker's ring.
#[derive(Debug)]
pub(crate) struct IoState {
    registry: Mutex<Registry>,
    /// Readiness delivered to resources (written under `registry`'s lock).
    #[cfg(tokio_unstable)]
    pub(crate) ready_count: crate::runtime::driver::io_metrics::ReadyCount,
    requests: Mutex<Vec<Request>>,
    /// Whether `requests` may be non-empty. Set after the push (under the
    /// queue lock), swapped off by the owner before it takes the queue:
    /// `SeqCst` so a request pushed after the owner's swap is seen by its
    /// next look (the notifier also unparks the owner).
    has_requests: AtomicBool,
    /// Test hook: the next final completion with `ECANCELED` is taken as
    /// one failed with this errno instead (0: none).
    #[cfg(test)]
    pub(crate) final_error: std::sync::atomic::AtomicI32,
}

#[derive(Debug)]
struct Registry {
    slots: slab::Slab<Slot>,
    next_generation: u32,
    is_shutdown: bool,
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    io: Arc<ScheduledIo>,
    fd: RawFd,
    mask: u32,
    /// A poll for this slot is (or is about to be) in the kernel.
    armed: bool,
    /// Dropped: its final completion frees the slot.
    cancelling: bool,
    /// Final completions with an error in a row, each armed again (see
    /// [`MAX_POLL_FAILURES`]); reset by any completion without one.
    failures: u8,
}

/// How many times in a row a poll that ends with an error is armed again
/// before its resource is failed.
const MAX_POLL_FAILURES: u8 = 8;

/// What [`IoState::deregister`] did.
#[derive(Debug)]
#[must_use]
pub(crate) struct Deregistered {
    /// The cancel to send to the owner (called off the owner).
    pub(crate) request: Option<Request>,
    /// Whether the poll may still hold a reference to the file when the
    /// call returns: closing the descriptor then would not close it (see
    /// `close.rs`).
    pub(crate) still_polled: bool,
}

/// Submits what `ring` holds, `pushed` among it: the polls just queued for
/// those tokens, under the registry lock. If the submit fails, each poll's
/// entry, still queued, is followed by its cancel before the lock is let
/// go: whenever a later enter submits them, the pair arrives together, so a
/// poll never outlives the lock unsubmitted and uncancelled (see "Submits
/// that fail" in the module docs).
fn submit_or_neutralize(ring: &mut Ring, metrics: &UringMetrics, pushed: &[u64]) -> io::Result<()> {
    let result = ring.submit(metrics);
    if result.is_err() {
        for &token in pushed {
            ring.push(&cancel_entry(token), metrics);
        }
    }
    result
}

/// A failed registration's error for the caller: io_uring's `EAGAIN` at
/// submit means the kernel could not allocate the request, which is
/// `ENOMEM` to a caller (a `WouldBlock` from a registration, or from a
/// wait that registers, would be read as "try again later" by code that
/// must never see it from a future).
fn registration_error(e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(libc::EAGAIN) {
        io::Error::from_raw_os_error(libc::ENOMEM)
    } else {
        e
    }
}

fn poll_mask(interest: Interest) -> u32 {
    // The epoll bits are the poll bits; multishot polls are edge-style
    // already (one completion per wakeup), so `EPOLLET` is left out.
    interest.to_epoll() & !(libc::EPOLLET as u32)
}

/// The poll armed for a resource that asked for `mask`. io_uring ignores
/// a wakeup that matches a poll only through `EPOLLPRI` (io_uring/poll.c
/// leaves it out of the wake filter, `IO_ASYNC_POLL_COMMON`), and a socket
/// announces urgent data with its data-ready wakeup (`EPOLLIN | EPOLLPRI
/// | ...`): a poll for `EPOLLPRI` alone would never fire. So `EPOLLIN` is
/// armed with it, and `complete` keeps only the bits the resource asked
/// for.
fn poll_entry(fd: RawFd, mask: u32, token: u64) -> io_uring::squeue::Entry {
    let pri = libc::EPOLLPRI as u32;
    let armed = if mask & pri != 0 {
        mask | libc::EPOLLIN as u32
    } else {
        mask
    };
    opcode::PollAdd::new(types::Fd(fd), armed)
        .multi(true)
        .build()
        .user_data(token)
}

/// The cancel of the poll of `token`. Its own completion says nothing the
/// poll's final one does not, so it is posted only on failure
/// (`IOSQE_CQE_SKIP_SUCCESS`, which every kernel with `SINGLE_ISSUER` has):
/// one completion fewer to reap per dropped or moved resource.
fn cancel_entry(token: u64) -> io_uring::squeue::Entry {
    opcode::AsyncCancel::new(token)
        .build()
        .flags(io_uring::squeue::Flags::SKIP_SUCCESS)
        .user_data(super::ring::CANCEL_TOKEN)
}

impl IoState {
    pub(crate) fn new() -> IoState {
        IoState {
            registry: Mutex::new(Registry {
                slots: slab::Slab::new(),
                next_generation: 0,
                is_shutdown: false,
            }),
            #[cfg(tokio_unstable)]
            ready_count: Default::default(),
            requests: Mutex::new(Vec::new()),
            has_requests: AtomicBool::new(false),
            #[cfg(test)]
            final_error: Default::default(),
        }
    }

    /// Test hook: how many slots the registry holds (live resources, and
    /// dropped ones whose poll has not ended yet).
    #[cfg(all(test, not(tokiwa_loom), feature = "full"))]
    pub(crate) fn slots(&self) -> usize {
        self.registry.lock().unwrap().slots.len()
    }

    /// Test hook: see [`IoState::final_error`].
    #[cfg(test)]
    fn injected(&self, cqe: &Cqe) -> Cqe {
        if !cqe.more && cqe.res == -libc::ECANCELED {
            let errno = self.final_error.swap(0, Ordering::SeqCst);
            if errno != 0 {
                return Cqe {
                    res: -errno,
                    ..*cqe
                };
            }
        }
        *cqe
    }

    /// Registers `fd`. `owner`: the calling thread's own ring (arm now),
    /// or `None` from any other thread (the caller then sends the returned
    /// request and unparks the owner).
    pub(crate) fn register(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
        owner: Option<(&mut Ring, &UringMetrics)>,
    ) -> io::Result<(u64, Option<Request>)> {
        let mask = poll_mask(interest);
        match owner {
            Some((ring, metrics)) => {
                let token = self.insert_and_arm(fd, mask, io, ring, metrics)?;
                Ok((token, None))
            }
            None => {
                let mut registry = self.registry.lock().unwrap();
                let token = self.insert(&mut registry, fd, mask, io, false)?;
                Ok((token, Some(Request::Arm { token, fd, mask })))
            }
        }
    }

    /// Arms a poll for `io` (registered elsewhere before) on the caller's
    /// own ring; returns its token here.
    #[cfg(all(test, not(tokiwa_loom), feature = "full"))]
    pub(crate) fn register_existing(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
        ring: &mut Ring,
        metrics: &UringMetrics,
    ) -> io::Result<u64> {
        self.insert_and_arm(fd, poll_mask(interest), io, ring, metrics)
    }

    /// Inserts a slot and arms its poll on the caller's own ring.
    ///
    /// # Errors
    ///
    /// When the submit fails (`ENOMEM`, or `EAGAIN` reported as `ENOMEM`:
    /// the kernel could not allocate the request). Nothing is left
    /// half-registered: the poll's entry, still queued, is followed by its
    /// cancel, and the slot, marked cancelling, is freed by the final
    /// completion of that pair (see "Submits that fail" in the module
    /// docs); the caller, which gets no token, owes it nothing.
    fn insert_and_arm(
        &self,
        fd: RawFd,
        mask: u32,
        io: Arc<ScheduledIo>,
        ring: &mut Ring,
        metrics: &UringMetrics,
    ) -> io::Result<u64> {
        let mut registry = self.registry.lock().unwrap();
        let token = self.insert(&mut registry, fd, mask, io, true)?;
        ring.push(&poll_entry(fd, mask, token), metrics);
        // Submitted now, under the lock: the kernel resolves `fd` while the
        // caller still owns it.
        if let Err(e) = submit_or_neutralize(ring, metrics, &[token]) {
            let index = (token & 0xffff_ffff) as usize;
            registry.slots[index].cancelling = true;
            return Err(registration_error(e));
        }
        Ok(token)
    }

    /// A new slot for `io`; returns its token.
    fn insert(
        &self,
        registry: &mut Registry,
        fd: RawFd,
        mask: u32,
        io: Arc<ScheduledIo>,
        armed: bool,
    ) -> io::Result<u64> {
        if registry.is_shutdown {
            return Err(shutdown_error());
        }
        let generation = registry.next_generation;
        // Generations stay below 2^30 so no token collides with the
        // driver's reserved ones at the top of the range nor has the
        // operations' bit (`op::OP_BIT`, bit 62).
        registry.next_generation = generation.wrapping_add(1) & 0x3fff_ffff;
        let entry = registry.slots.vacant_entry();
        let token = entry.key() as u64 | (generation as u64) << 32;
        entry.insert(Slot {
            generation,
            io,
            fd,
            mask,
            armed,
            cancelling: false,
            failures: 0,
        });
        Ok(token)
    }

    /// The resource of `token` is being dropped (before its descriptor is
    /// closed). Says whether its poll may still hold the file once this
    /// returns, and the request to send when not on the owner.
    pub(crate) fn deregister(
        &self,
        token: u64,
        owner: Option<(&mut Ring, &UringMetrics)>,
    ) -> Deregistered {
        let released = Deregistered {
            request: None,
            still_polled: false,
        };
        let mut registry = self.registry.lock().unwrap();
        let index = (token & 0xffff_ffff) as usize;
        let Some(slot) = registry
            .slots
            .get_mut(index)
            .filter(|slot| u64::from(slot.generation) == token >> 32)
        else {
            return released;
        };
        if slot.cancelling {
            // Deregistered before: that call answered.
            return released;
        }
        slot.cancelling = true;
        if !slot.armed {
            // Nothing in the kernel (never armed, or its poll ended): free
            // it now; a pending `Arm` request finds the slot gone.
            registry.slots.remove(index);
            return released;
        }
        match owner {
            Some((ring, metrics)) => {
                // Submitted now: the poll holds a reference to the file, so
                // until the cancel runs, closing the descriptor would not
                // close the socket. The submit runs the cancel's deferred
                // work too (`Ring::submit`), so the reference is dropped
                // before it returns; a submit that fails leaves it queued.
                ring.push(&cancel_entry(token), metrics);
                Deregistered {
                    request: None,
                    still_polled: ring.submit(metrics).is_err(),
                }
            }
            None => Deregistered {
                request: Some(Request::Cancel { token }),
                still_polled: true,
            },
        }
    }

    /// Whether the poll of `token` (deregistered) may still be in the
    /// kernel: its slot lives until the poll's final completion.
    pub(crate) fn still_polled(&self, token: u64) -> bool {
        let registry = self.registry.lock().unwrap();
        let index = (token & 0xffff_ffff) as usize;
        registry
            .slots
            .get(index)
            .is_some_and(|slot| u64::from(slot.generation) == token >> 32)
    }

    /// Whether any resource is registered here (never waits: a taken
    /// lock answers yes).
    pub(crate) fn has_resources(&self) -> bool {
        self.registry
            .try_lock()
            .map_or(true, |registry| !registry.slots.is_empty())
    }

    /// Another worker serves this ring's sockets while its owner does not
    /// turn (see `rescue.rs`): asks the kernel, with one non-blocking
    /// `poll(2)`, which of at most `cap` registered resources (from `cursor` on,
    /// round robin) are ready now, records that readiness and collects
    /// their wakers. Returns the next cursor.
    ///
    /// Under the registry lock: a dropper deregisters under it before it
    /// closes its descriptor, so every descriptor polled here is open.
    pub(crate) fn probe_ready(
        &self,
        cursor: usize,
        cap: usize,
        fds: &mut Vec<libc::pollfd>,
        wakers: &mut Vec<Waker>,
    ) -> usize {
        let registry = self.registry.lock().unwrap();
        if registry.is_shutdown || registry.slots.is_empty() {
            return 0;
        }
        fds.clear();
        let mut keys = Vec::with_capacity(cap.min(registry.slots.len()));
        let start = cursor % registry.slots.capacity().max(1);
        let mut next = start;
        for (key, slot) in registry
            .slots
            .iter()
            .filter(|(key, _)| *key >= start)
            .chain(registry.slots.iter().filter(|(key, _)| *key < start))
        {
            if keys.len() == cap {
                // The first slot this rescue leaves: the next one starts
                // there.
                next = key;
                break;
            }
            // A slot whose poll is not armed yet (registered, waiting for
            // the owner's next turn) is polled too: its descriptor is open
            // all the same.
            if slot.cancelling {
                continue;
            }
            fds.push(libc::pollfd {
                fd: slot.fd,
                events: slot.mask as libc::c_short,
                revents: 0,
            });
            keys.push(key);
            // Past the last slot polled, so a scan that ends exactly at the
            // cap, or at the end of the slots, does not start the next
            // rescue in the same place.
            next = key + 1;
        }
        if fds.is_empty() {
            return next;
        }
        // SAFETY: `fds` is a valid array of `fds.len()` entries; a zero
        // timeout never blocks. The descriptors are open (see above).
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        if n <= 0 {
            // Nothing ready, or the poll failed (`ENOMEM`, `EINTR`): a
            // rescue is only a head start, and the owner's ring still
            // delivers this readiness when it runs, so there is nothing
            // to report or retry.
            return next;
        }
        for (pollfd, key) in fds.iter().zip(&keys) {
            if pollfd.revents == 0 {
                continue;
            }
            let ready = Ready::from_epoll(pollfd.revents as u16 as u32);
            let slot = &registry.slots[*key];
            slot.io.set_readiness(ready);
            slot.io.take_wakers(ready, wakers);
            #[cfg(tokio_unstable)]
            self.ready_count.add_locked(1);
        }
        next
    }

    /// Queues a request for the owner (the caller then unparks it).
    pub(crate) fn send(&self, request: Request) {
        self.requests.lock().unwrap().push(request);
        self.has_requests.store(true, Ordering::SeqCst);
    }

    /// The owner takes the requests of other threads into its ring.
    pub(crate) fn take_requests(&self, ring: &mut Ring, metrics: &UringMetrics) {
        // A load first: the common case (no request) costs no locked
        // instruction on this hot path.
        if !self.has_requests.load(Ordering::SeqCst)
            || !self.has_requests.swap(false, Ordering::SeqCst)
        {
            return;
        }
        let requests = std::mem::take(&mut *self.requests.lock().unwrap());
        if requests.is_empty() {
            return;
        }
        let mut registry = self.registry.lock().unwrap();
        let mut armed = Vec::new();
        for request in requests {
            match request {
                Request::Arm { token, fd, mask } => {
                    let index = (token & 0xffff_ffff) as usize;
                    let live = registry
                        .slots
                        .get_mut(index)
                        .filter(|slot| u64::from(slot.generation) == token >> 32);
                    match live {
                        Some(slot) if !slot.cancelling => {
                            slot.armed = true;
                            ring.push(&poll_entry(fd, mask, token), metrics);
                            armed.push(token);
                        }
                        // Dropped before we got here: its descriptor may be
                        // closed already, and nothing is in the kernel.
                        _ => {}
                    }
                }
                Request::Cancel { token } => ring.push(&cancel_entry(token), metrics),
                Request::CancelMoved { token } => ring.push_lazy(&cancel_entry(token), metrics),
            }
        }
        if !armed.is_empty() {
            // Under the registry lock: no dropper can close a descriptor
            // between the liveness check and the kernel resolving it. A
            // failed submit is retried by the next turn; the polls come
            // back from their cancels and are armed again then.
            let _ = submit_or_neutralize(ring, metrics, &armed);
        }
        drop(registry);
    }

    /// Applies a batch of completions; collects the wakers to call and the
    /// tokens whose poll ended while the resource lives.
    pub(crate) fn complete(&self, cqes: &[Cqe], wakers: &mut Vec<Waker>, rearm: &mut Vec<u64>) {
        if cqes.is_empty() {
            return;
        }
        let mut registry = self.registry.lock().unwrap();
        #[cfg(tokio_unstable)]
        let mut delivered = 0;
        for cqe in cqes {
            #[cfg(test)]
            let cqe = &self.injected(cqe);
            let index = (cqe.user_data & 0xffff_ffff) as usize;
            let Some(slot) = registry.slots.get_mut(index) else {
                continue;
            };
            if u64::from(slot.generation) != cqe.user_data >> 32 {
                continue;
            }
            // A negative result is the poll's own end (`ECANCELED`: the
            // kernel or a cancel ended it; `ENOMEM`: it failed), not news
            // of the socket, whose errors and hang-ups come as mask bits:
            // nothing to report. The poll armed again below reports what
            // the socket has then, so no edge is lost. (Reporting every
            // readiness instead marked the socket closed for good, and its
            // waiters spun.)
            if cqe.res >= 0 {
                slot.failures = 0;
                if !slot.cancelling {
                    // Error and hang-up are always reported; `EPOLLIN`
                    // may be armed without being asked for (`poll_entry`).
                    let wanted = slot.mask | (libc::EPOLLERR | libc::EPOLLHUP) as u32;
                    let ready = Ready::from_epoll(cqe.res as u32 & wanted);
                    slot.io.set_readiness(ready);
                    slot.io.take_wakers(ready, wakers);
                    #[cfg(tokio_unstable)]
                    {
                        delivered += 1;
                    }
                }
            }
            if !cqe.more {
                slot.armed = false;
                if slot.cancelling {
                    registry.slots.remove(index);
                } else if cqe.res >= 0 || cqe.res == -libc::ECANCELED {
                    rearm.push(cqe.user_data);
                } else if slot.failures < MAX_POLL_FAILURES {
                    // Failed (`ENOMEM` for a second wait queue entry, say):
                    // armed again, or the registration would be dead and
                    // its next wait would hang.
                    slot.failures += 1;
                    rearm.push(cqe.user_data);
                } else {
                    // It keeps failing: the resource's waits fail from now
                    // on (with the error of a resource whose driver is
                    // gone) rather than hang or spin.
                    slot.io.shut_down_into(wakers);
                }
            }
        }
        #[cfg(tokio_unstable)]
        self.ready_count.add_locked(delivered);
    }

    /// Arms again the polls of `tokens` (those that ended), or of every
    /// live slot (`None`: the ring was replaced). Submits under the
    /// registry lock (see the module docs).
    pub(crate) fn rearm(&self, ring: &mut Ring, metrics: &UringMetrics, tokens: Option<&[u64]>) {
        let mut registry = self.registry.lock().unwrap();
        let mut pushed = Vec::new();
        match tokens {
            Some(tokens) => {
                for &token in tokens {
                    let index = (token & 0xffff_ffff) as usize;
                    if let Some(slot) = registry.slots.get_mut(index) {
                        if u64::from(slot.generation) == token >> 32
                            && !slot.cancelling
                            && !slot.armed
                        {
                            slot.armed = true;
                            ring.push(&poll_entry(slot.fd, slot.mask, token), metrics);
                            pushed.push(token);
                        }
                    }
                }
            }
            None => {
                let mut gone = Vec::new();
                for (index, slot) in registry.slots.iter_mut() {
                    if slot.cancelling || !slot.armed {
                        // Its poll died with the old ring, or it waits for
                        // an `Arm` request that the new ring will get.
                        if slot.cancelling {
                            gone.push(index);
                        }
                        continue;
                    }
                    let token = index as u64 | u64::from(slot.generation) << 32;
                    ring.push(&poll_entry(slot.fd, slot.mask, token), metrics);
                    pushed.push(token);
                }
                for index in gone {
                    registry.slots.remove(index);
                }
            }
        }
        if !pushed.is_empty() {
            // A failed submit is retried by the next turn (see
            // `take_requests`).
            let _ = submit_or_neutralize(ring, metrics, &pushed);
        }
    }

    /// Test hook: cancels every armed readiness poll on the owner's ring,
    /// as the kernel's termination of a multishot would end them (a final
    /// completion without `F_MORE`); `complete` must arm them again.
    /// Returns how many were cancelled.
    pub(crate) fn cancel_polls(&self, ring: &mut Ring, metrics: &UringMetrics) -> usize {
        let registry = self.registry.lock().unwrap();
        let mut n = 0;
        for (index, slot) in registry.slots.iter() {
            if slot.armed && !slot.cancelling {
                let token = index as u64 | u64::from(slot.generation) << 32;
                ring.push(&cancel_entry(token), metrics);
                n += 1;
            }
        }
        drop(registry);
        if n > 0 {
            let _ = ring.submit(metrics);
        }
        n
    }

    /// Runtime shutdown: fails every resource's waiters; later
    /// registrations fail with the shutdown error.
    pub(crate) fn shutdown(&self) {
        let ios: Vec<Arc<ScheduledIo>> = {
            let mut registry = self.registry.lock().unwrap();
            registry.is_shutdown = true;
            registry.slots.iter().map(|(_, s)| s.io.clone()).collect()
        };
        for io in ios {
            io.shutdown();
        }
    }
}
