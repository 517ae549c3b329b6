//! The legacy driver: one epoll instance per worker, waited on by a poll
//! thread.
//!
//! **Threads.** Each worker owns a [`Reactor`]: an epoll instance holding
//! the worker's resources, the registry of those resources, and a *poll
//! thread*. Who reaps the epoll depends on the worker (`poll_gate.rs`):
//!
//! * **worker awake**: the worker reaps it itself without blocking, before
//!   it parks and every `event_interval` ticks while busy
//!   (`Reactor::reap`), so the tasks it wakes go to its own queue with no
//!   thread hop; the poll thread hears nothing of these events;
//! * **worker parked**: the poll thread blocks in `epoll_wait` on the
//!   epoll itself (or, after finding the worker awake too often, on a
//!   one-shot watch of it that the worker arms as its last act before
//!   blocking); woken by the next event, it sets the resources' readiness,
//!   queues their tasks for the worker and unparks it through its
//!   condition variable (`runtime/park/condvar.rs`). Only the poll thread
//!   ever *blocks* on the worker's events.
//!
//! Measured with a 64 B ping-pong over a socket pair (2 cores): when only
//! the poll thread reaped, every message crossed two thread wakeups (p50
//! 96 us against tokio's 5.7 us); with the worker's own reaps the p50
//! matches tokio's.
//!
//! **Tokens and stale events.** A registration's epoll token is its slot
//! in the registry plus a generation (`index | generation << 32`). Events
//! are resolved under the registry lock, so an event that was already in
//! flight when its resource deregistered finds an empty slot or a newer
//! generation and is dropped: it can never reach a later resource that
//! reuses the slot, nor freed memory.
//!
//! **Control tokens.** The stop and kick eventfds sit in the worker's
//! epoll too, level-triggered, under tokens no registration can have
//! ([`STOP_TOKEN`], [`KICK_TOKEN`]: a slot index of 2^32 - 1 or - 2): they
//! end the poll thread's wait on that epoll (`poll_gate.rs`), and every
//! reap skips them and does not count them.
//!
//! **Deregistration** (`EPOLL_CTL_DEL`) happens in the resource's `Drop`,
//! before its descriptor is closed, so a later resource that gets the same
//! descriptor number starts from a clean registration.
//!
//! **Edge-triggered.** Every registration uses `EPOLLET`: the kernel
//! reports each transition once, and readiness is cleared only when an
//! operation returns `WouldBlock` (see `scheduled_io.rs`).
use super::poll_gate::{PollGate, Turn, Watching};
use super::reap_backoff::ReapBackoff;
use super::watch::EpollWatch;
use crate::io::{Interest, Ready};
use crate::runtime::driver::scheduled_io::{shutdown_error, ScheduledIo};
use crate::runtime::driver::Unparker;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
// The driver is not loom-modelled (there is no epoll under loom): its
// locks, flags and thread are std's.
use std::sync::{Arc, Mutex};
use std::task::Waker;

/// How long an awake worker may go without reaping before its poll thread
/// reaps for it. The poll thread checks this often while its worker is
/// awake, so it is a trade: at 1 ms the checks alone were ~2,000 context
/// switches a second on a 2-core machine, each one preempting a busy or
/// spinning worker (the one-connection echo's p99 doubled).
const STUCK_WORKER: std::time::Duration = std::time::Duration::from_millis(10);

/// The stop eventfd's token in the worker's epoll (see the module doc).
const STOP_TOKEN: u64 = u64::MAX;
/// The kick eventfd's token in the worker's epoll.
const KICK_TOKEN: u64 = u64::MAX - 1;

fn is_control(token: u64) -> bool {
    token == STOP_TOKEN || token == KICK_TOKEN
}

pub(crate) struct Reactor {
    /// The worker's resources.
    epfd: OwnedFd,
    /// Whether the owning worker or the poll thread reaps `epfd`.
    gate: PollGate<EpollWatch>,
    /// Written at shutdown to stop the poll thread.
    stop_fd: OwnedFd,
    registry: Mutex<Registry>,
    poll_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Wakes the owning worker after the poll thread delivered to it.
    worker: Unparker,
    /// Events a busy worker's reap takes at most
    /// (`Builder::max_io_events_per_busy_tick`); the buffers hold
    /// `max_io_events_per_tick`, what the other reaps take.
    busy_limit: usize,
    /// The buffers of the non-blocking reaps (`try_lock`: a reap that
    /// finds them taken skips; the events stay in the epoll for the next
    /// reap or the poll thread). Kept across reaps so a reap allocates
    /// nothing.
    reap_buffer: Mutex<(Events, Vec<Waker>)>,
    /// The owning worker's back-off on reaping its sleeping peers.
    pub(crate) peer_reaps: ReapBackoff,
    /// Events the poll thread found while the worker was awake, left for
    /// its next reap to re-check (`poll_gate.rs`, *Mail*): their tokens
    /// and what epoll reported.
    mail: Mutex<Vec<libc::epoll_event>>,
    /// Events dispatched to resources (written under `registry`'s lock).
    #[cfg(tokio_unstable)]
    pub(crate) ready_count: crate::runtime::driver::io_metrics::ReadyCount,
    /// Its back-off on its own last reap before it sleeps.
    last_reaps: ReapBackoff,
    /// The owning worker's progress, for the other workers' stall check
    /// (`driver/stall.rs`).
    pub(crate) stall: crate::runtime::driver::stall::StallWatch,
}

struct Registry {
    slots: slab::Slab<Slot>,
    next_generation: u32,
    is_shutdown: bool,
}

impl Registry {
    /// The slot `token` names, unless it was freed (and maybe reused)
    /// since: a stale or control token finds nothing.
    fn live(&self, token: u64) -> Option<&Slot> {
        let slot = self.slots.get((token & 0xffff_ffff) as usize)?;
        (u64::from(slot.generation) == token >> 32).then_some(slot)
    }
}

struct Slot {
    generation: u32,
    /// The registered descriptor, for re-checking mail (`poll(2)`).
    fd: RawFd,
    io: Arc<ScheduledIo>,
}

struct Events(Vec<libc::epoll_event>);

impl Events {
    fn new(capacity: usize) -> Events {
        Events(vec![libc::epoll_event { events: 0, u64: 0 }; capacity])
    }
}

pub(super) fn epoll_create() -> io::Result<OwnedFd> {
    // SAFETY: a plain syscall; the returned descriptor is checked and then
    // owned by exactly one `OwnedFd`.
    Ok(unsafe { OwnedFd::from_raw_fd(cvt(libc::epoll_create1(libc::EPOLL_CLOEXEC))?) })
}

/// `epoll_wait` into `events`; returns how many were filled.
pub(super) fn wait(
    epoll: &OwnedFd,
    events: &mut [libc::epoll_event],
    timeout_ms: libc::c_int,
) -> io::Result<usize> {
    // SAFETY: the buffer holds `len` initialised events and outlives the
    // call; the kernel writes at most `len` of them.
    let n = cvt(unsafe {
        libc::epoll_wait(
            epoll.as_raw_fd(),
            events.as_mut_ptr(),
            events.len() as libc::c_int,
            timeout_ms,
        )
    })?;
    Ok(n as usize)
}

/// `epoll_wait` without blocking, retried when a signal interrupts it.
///
/// # Panics
///
/// On any other error: only a programming error (a closed descriptor, a
/// bad buffer) can cause one, and carrying on as if nothing were ready
/// would strand every waiter of this epoll without a word.
fn reap_now(epoll: &OwnedFd, events: &mut [libc::epoll_event]) -> usize {
    loop {
        match wait(epoll, events, 0) {
            Ok(n) => return n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("tokiwa reactor: epoll_wait failed: {e}"),
        }
    }
}

fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: a plain syscall; the returned descriptor is checked and then
    // owned by exactly one `OwnedFd`.
    Ok(unsafe {
        OwnedFd::from_raw_fd(cvt(libc::eventfd(
            0,
            libc::EFD_CLOEXEC | libc::EFD_NONBLOCK,
        ))?)
    })
}

/// Adds one to an eventfd's counter. `EAGAIN` (counter saturated) means
/// it is readable already, which is all its reader needs.
pub(super) fn signal_eventfd(fd: &OwnedFd) -> io::Result<()> {
    let one: u64 = 1;
    // SAFETY: `fd` is an open eventfd and `one` is 8 readable bytes.
    let ret = unsafe {
        libc::write(
            fd.as_raw_fd(),
            (&one as *const u64).cast(),
            std::mem::size_of::<u64>(),
        )
    };
    if ret < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::WouldBlock {
            return Err(e);
        }
    }
    Ok(())
}

/// Adds `fd` to `epoll`, level-triggered readable, under `token`.
fn add_control(epoll: &OwnedFd, fd: &OwnedFd, token: u64) -> io::Result<()> {
    let mut event = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: token,
    };
    // SAFETY: both descriptors are open and `event` outlives the call.
    cvt(unsafe {
        libc::epoll_ctl(
            epoll.as_raw_fd(),
            libc::EPOLL_CTL_ADD,
            fd.as_raw_fd(),
            &mut event,
        )
    })?;
    Ok(())
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

impl Reactor {
    /// Creates the epoll instance and starts its poll thread, named `name`,
    /// which unparks `worker` when it delivers to it. Each reap takes at
    /// most `per_tick` events, a busy worker's at most `per_busy_tick`.
    pub(crate) fn new(
        name: String,
        worker: Unparker,
        per_tick: usize,
        per_busy_tick: usize,
    ) -> io::Result<Arc<Reactor>> {
        let epfd = epoll_create()?;
        let stop_fd = eventfd()?;
        let kick_fd = eventfd()?;
        add_control(&epfd, &stop_fd, STOP_TOKEN)?;
        add_control(&epfd, &kick_fd, KICK_TOKEN)?;
        let gate = PollGate::new(EpollWatch::new(&epfd, &stop_fd, kick_fd)?)?;
        let reactor = Arc::new(Reactor {
            epfd,
            gate,
            stop_fd,
            registry: Mutex::new(Registry {
                slots: slab::Slab::new(),
                next_generation: 0,
                is_shutdown: false,
            }),
            poll_thread: Mutex::new(None),
            worker,
            busy_limit: per_busy_tick.clamp(1, per_tick),
            reap_buffer: Mutex::new((Events::new(per_tick), Vec::new())),
            peer_reaps: ReapBackoff::default(),
            mail: Mutex::new(Vec::new()),
            #[cfg(tokio_unstable)]
            ready_count: Default::default(),
            last_reaps: ReapBackoff::default(),
            stall: Default::default(),
        });
        let poller = reactor.clone();
        let events = Events::new(per_tick);
        let thread = std::thread::Builder::new()
            .name(name)
            .spawn(move || poller.poll_loop(events))?;
        *reactor.poll_thread.lock().unwrap() = Some(thread);
        Ok(reactor)
    }

    /// Whether the owning worker is parked (a hint, see `PollGate`).
    pub(crate) fn worker_is_parked(&self) -> bool {
        self.gate.is_worker_parked()
    }

    /// The owning worker is about to block (`true`, after its last reap)
    /// or awake again (`false`). An error when parking means the poll
    /// thread was not told: the worker must not sleep long.
    /// `Ok(false)`: the worker must not block, mail waits for its reap.
    pub(crate) fn set_worker_parked(&self, parked: bool) -> io::Result<bool> {
        if parked {
            self.gate.worker_parking()
        } else {
            self.gate.worker_awake();
            Ok(true)
        }
    }

    /// No thread drives the owning worker any more: its events wait for
    /// the next one (see `PollGate::worker_detached`).
    pub(crate) fn detach_worker(&self) -> io::Result<()> {
        self.gate.worker_detached()
    }

    /// Whether any resource is registered here (never waits: a taken
    /// lock answers yes).
    pub(crate) fn has_resources(&self) -> bool {
        self.registry
            .try_lock()
            .map_or(true, |registry| !registry.slots.is_empty())
    }

    /// Called by another worker at `now` (`stall::now_ns`): if the owning
    /// worker is awake and stalled (`driver/stall.rs`), reaps its epoll as
    /// the poll thread's stuck-worker check does, and wakes what is ready
    /// (onto the caller's queue: the caller lends its core). Returns how
    /// many events were seen. The sockets stay in this epoll: their next
    /// events are the owner's again, or the next rescue's.
    pub(crate) fn serve_if_stalled(&self, now: u64) -> usize {
        if self.worker_is_parked() || !self.stall.claim_rescue(now) {
            return 0;
        }
        self.reap(false)
    }

    /// Whether the runtime shut the reactor down.
    pub(crate) fn is_shutdown(&self) -> bool {
        self.registry.lock().unwrap().is_shutdown
    }

    /// Registers `fd` for `interest`, its readiness kept in `io`; returns
    /// its token.
    pub(crate) fn register(
        &self,
        fd: RawFd,
        interest: Interest,
        io: Arc<ScheduledIo>,
    ) -> io::Result<u64> {
        let mut registry = self.registry.lock().unwrap();
        if registry.is_shutdown {
            return Err(shutdown_error());
        }
        let generation = registry.next_generation;
        registry.next_generation = generation.wrapping_add(1);
        let entry = registry.slots.vacant_entry();
        let token = entry.key() as u64 | (generation as u64) << 32;
        let mut event = libc::epoll_event {
            events: interest.to_epoll(),
            u64: token,
        };
        // SAFETY: `fd` is open (the caller owns it) and `event` outlives the
        // call. Done under the lock so the token is in the registry before
        // any event for it can be resolved.
        cvt(unsafe {
            libc::epoll_ctl(self.epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut event)
        })?;
        entry.insert(Slot { generation, fd, io });
        Ok(token)
    }

    /// Removes `fd` from the epoll set. Called before the descriptor is
    /// closed.
    pub(crate) fn deregister(&self, fd: RawFd) -> io::Result<()> {
        // SAFETY: `fd` is still open (the caller closes it afterwards); a
        // null event pointer is allowed for `EPOLL_CTL_DEL`.
        cvt(unsafe {
            libc::epoll_ctl(
                self.epfd.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                fd,
                std::ptr::null_mut(),
            )
        })?;
        Ok(())
    }

    /// Frees the registry slot of `token`; events still in flight for it
    /// are dropped from now on.
    pub(crate) fn release(&self, token: u64) {
        let mut registry = self.registry.lock().unwrap();
        let index = (token & 0xffff_ffff) as usize;
        if registry
            .slots
            .get(index)
            .is_some_and(|slot| u64::from(slot.generation) == token >> 32)
        {
            registry.slots.remove(index);
        }
    }

    /// The poll thread: reaps and dispatches on each turn the gate gives
    /// it (the worker's epoll had events while the worker slept, or the
    /// worker is stuck), or waits on the worker's epoll itself when the
    /// gate says so, until stopped.
    fn poll_loop(&self, mut events: Events) {
        let mut wakers = Vec::new();
        let mut watching = Watching::default();
        loop {
            let turn = self.gate.next_turn(STUCK_WORKER, &mut watching);
            let to_sleeper = match turn {
                Turn::Stop => {
                    self.gate.direct_wait_done(true);
                    return;
                }
                Turn::WaitOnEpoll => {
                    // Blocking; a signal only ends the wait early. Any
                    // other error on our own epoll is a bug: failing
                    // silently would spin, or strand every waiter.
                    let n = match wait(&self.epfd, &mut events.0, -1) {
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
                        Err(e) => panic!("tokiwa poll thread: epoll_wait failed: {e}"),
                    };
                    let got = &events.0[..n];
                    if got.iter().any(|e| e.u64 == STOP_TOKEN) {
                        self.gate.direct_wait_done(true);
                        return;
                    }
                    if got.iter().any(|e| e.u64 == KICK_TOKEN) {
                        self.gate.watch().drain_kick();
                    }
                    let found = got.iter().filter(|e| !is_control(e.u64)).count();
                    if self.gate.waited_on_epoll(found, &mut watching) {
                        self.dispatch(got, &mut wakers);
                        true
                    } else if found > 0 {
                        let mut mail = self.mail.lock().unwrap();
                        mail.extend(got.iter().filter(|e| !is_control(e.u64)).copied());
                        drop(mail);
                        if !self.gate.mail_posted() {
                            self.gate.direct_wait_done(false);
                            continue;
                        }
                        // The worker parked meanwhile: its mail is served
                        // here, as a sleeper's events.
                        self.gate.take_mail();
                        self.read_mail(&mut wakers);
                        true
                    } else {
                        self.gate.direct_wait_done(false);
                        continue;
                    }
                }
                turn => {
                    let n = reap_now(&self.epfd, &mut events.0);
                    self.dispatch(&events.0[..n], &mut wakers);
                    if turn == Turn::ReapForStuck && self.gate.take_mail() {
                        self.read_mail(&mut wakers);
                    }
                    turn == Turn::ReapForSleeper
                }
            };
            // A turn of the driver, as a worker's park is (signal
            // deliveries so far are published: `signal/registry.rs`).
            #[cfg(any(feature = "signal", feature = "process"))]
            crate::signal_registry::publish();
            if !to_sleeper {
                for waker in wakers.drain(..) {
                    waker.wake();
                }
                continue;
            }
            let found = wakers.len();
            let me: *const Reactor = self;
            crate::runtime::context::delivering(me.cast(), || {
                for waker in wakers.drain(..) {
                    waker.wake();
                }
            });
            self.gate.delivered(found, || self.worker.unpark());
            // After the readiness is recorded and the tasks queued: a
            // worker that woke meanwhile and waits in `hand_over` finds
            // them when it goes on.
            if turn == Turn::WaitOnEpoll {
                self.gate.direct_wait_done(false);
            }
        }
    }

    /// Reaps ready events without blocking, on a worker's thread, so its
    /// wakeups are scheduled locally: at most the busy limit when the
    /// worker still has tasks to run (`busy`), else a whole batch. Returns
    /// how many events were seen.
    pub(crate) fn reap(&self, busy: bool) -> usize {
        self.reap_then_hand_over(busy, None)
    }

    /// The owning worker's reap while it goes on running tasks (busy, or
    /// between batches): [`Reactor::reap`], and what a direct wait of the
    /// poll thread took before it ([`PollGate::hand_over`]), so the tasks
    /// see every event that was ready before the reap.
    pub(crate) fn reap_running(&self, busy: bool) -> usize {
        let before = self.gate.handed();
        self.reap_then_hand_over(busy, Some(before))
    }

    /// [`Reactor::reap`]; with `handed_before` (the hand-over count read
    /// before it), then waits for the hand-over, before the mail is read.
    fn reap_then_hand_over(&self, busy: bool, handed_before: Option<u64>) -> usize {
        let Ok(mut buffers) = self.reap_buffer.try_lock() else {
            return 0;
        };
        let (events, wakers) = &mut *buffers;
        let limit = if busy {
            self.busy_limit
        } else {
            events.0.len()
        };
        let n = reap_now(&self.epfd, &mut events.0[..limit]);
        self.gate.worker_reaped();
        let mut n = self.dispatch(&events.0[..n], wakers);
        // The poll thread needs none of the buffers held here to finish
        // its wait. A failed kick (only possible for a bad descriptor, and
        // the eventfd is ours) leaves the mail for the next reap.
        if let Some(before) = handed_before {
            let _ = self.gate.hand_over(before);
        }
        if self.gate.take_mail() {
            n += self.read_mail(wakers);
        }
        // Woken with the buffers held: a reap attempted meanwhile (by a
        // waker, or another worker) skips, which loses nothing.
        for waker in wakers.drain(..) {
            waker.wake();
        }
        n
    }

    /// The owning worker's last reap before it sleeps, unless such reaps
    /// have been finding nothing (`reap_backoff.rs`): arming the watch
    /// re-checks the epoll, so a skipped reap loses no event. Returns how
    /// many events were seen.
    ///
    /// It is made even while the poll thread waits on this epoll itself
    /// (`poll_gate.rs`, *Waiting on the worker's epoll itself*), which
    /// would take the event anyway: a reap that finds the next request
    /// keeps the worker awake, where the poll thread's delivery costs the
    /// worker a sleep and a wake. Skipping it there was measured on one
    /// connection: 0.1 fewer syscalls and 0.2 more context switches per
    /// round trip (2.19 to 2.42, 9 clean rounds each).
    pub(crate) fn reap_before_park(&self) -> usize {
        if !self.last_reaps.due() && !self.gate.has_mail() {
            return 0;
        }
        let n = self.reap(false);
        self.last_reaps.record(n > 0);
        n
    }

    /// Re-checks the mail's descriptors with one `poll(2)` and dispatches
    /// what is still ready (`poll_gate.rs`, *Mail*). Returns how many of
    /// them were. Under the registry lock, so each token still names the
    /// resource it was posted for; a descriptor closed and reused since
    /// belongs to a resource being dropped, whose readiness nobody reads.
    fn read_mail(&self, wakers: &mut Vec<Waker>) -> usize {
        let mail = std::mem::take(&mut *self.mail.lock().unwrap());
        if mail.is_empty() {
            return 0;
        }
        let registry = self.registry.lock().unwrap();
        let mut checks = Vec::with_capacity(mail.len());
        let mut slots = Vec::with_capacity(mail.len());
        for event in &mail {
            let Some(slot) = registry.live(event.u64) else {
                continue;
            };
            // poll(2)'s bits are epoll's for these events.
            let asked = event.events
                & (libc::EPOLLIN | libc::EPOLLPRI | libc::EPOLLOUT | libc::EPOLLRDHUP) as u32;
            checks.push(libc::pollfd {
                fd: slot.fd,
                events: asked as libc::c_short,
                revents: 0,
            });
            slots.push(slot);
        }
        // SAFETY: `checks` holds `len` initialised entries and outlives
        // the call; the kernel writes only their `revents`.
        let ret = unsafe { libc::poll(checks.as_mut_ptr(), checks.len() as libc::nfds_t, 0) };
        if ret < 0 {
            // Only EINTR or ENOMEM can happen here: readiness is then
            // assumed, a spurious wakeup at worst (the task's operation
            // finds `WouldBlock` and waits again).
            for (check, event) in checks.iter_mut().zip(&mail) {
                check.revents = event.events as libc::c_short;
            }
        }
        let mut ready_count = 0;
        for (check, slot) in checks.iter().zip(slots) {
            let ready = Ready::from_epoll(check.revents as u16 as u32);
            if ready.is_empty() {
                continue;
            }
            slot.io.set_readiness(ready);
            slot.io.take_wakers(ready, wakers);
            ready_count += 1;
        }
        // Counted here, not where the poll thread posted them: only what
        // is still ready reaches a resource.
        #[cfg(tokio_unstable)]
        self.ready_count.add_locked(ready_count as u64);
        ready_count
    }

    /// Resolves tokens, sets readiness and collects the wakers to call.
    /// Returns how many events were for a registered resource (not the
    /// control descriptors', nor stale ones).
    fn dispatch(&self, events: &[libc::epoll_event], wakers: &mut Vec<Waker>) -> usize {
        if events.is_empty() {
            return 0;
        }
        let registry = self.registry.lock().unwrap();
        let mut delivered: usize = 0;
        for event in events {
            let Some(slot) = registry.live(event.u64) else {
                continue;
            };
            let ready = Ready::from_epoll(event.events);
            slot.io.set_readiness(ready);
            slot.io.take_wakers(ready, wakers);
            delivered += 1;
        }
        #[cfg(tokio_unstable)]
        self.ready_count.add_locked(delivered as u64);
        delivered
    }

    /// Runtime shutdown: stops the poll thread and fails every registered
    /// resource's waiters with the shutdown error.
    pub(crate) fn shutdown(&self) {
        // The stop eventfd is level-triggered in both of the poll thread's
        // epolls: every wait from now on returns at once. Only a bad
        // descriptor could fail the write, and `stop_fd` is ours.
        let _ = signal_eventfd(&self.stop_fd);
        let thread = self.poll_thread.lock().unwrap().take();
        if let Some(thread) = thread {
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
        let ios: Vec<Arc<ScheduledIo>> = {
            let mut registry = self.registry.lock().unwrap();
            registry.is_shutdown = true;
            registry
                .slots
                .iter()
                .map(|(_, slot)| slot.io.clone())
                .collect()
        };
        for io in ios {
            io.shutdown();
        }
    }
}

impl std::fmt::Debug for Reactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reactor")
            .field("epfd", &self.epfd.as_raw_fd())
            .finish_non_exhaustive()
    }
}
