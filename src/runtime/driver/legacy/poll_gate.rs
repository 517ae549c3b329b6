//! Who reaps a worker's epoll: the worker itself while it is awake, its
//! poll thread while it sleeps.
//!
//! **Why a gate.** A thread blocked in `epoll_wait` on the worker's epoll
//! would be woken by the kernel for every new event. If the poll thread
//! sat there while its worker is busy, every packet would cost a context
//! switch on a thread whose work the worker is about to do anyway (under
//! 256 echo connections a quarter of all cycles went to those wakeups). So
//! the busy worker reaps its epoll itself without blocking (before it
//! sleeps, and every `event_interval` ticks), and the poll thread only
//! hears of the worker's epoll while the worker sleeps.
//!
//! **A one-shot watch, armed by the sleeper** ([`Watch`]). The poll thread
//! blocks in `epoll_wait` on an epoll of its own, which holds the stop
//! eventfd and the worker's epoll registered `EPOLLONESHOT`. The worker
//! arms that watch (`EPOLL_CTL_MOD`) as the last thing before it blocks;
//! the next `epoll_wait` of the poll thread that finds the worker's epoll
//! with an event reports it once and disarms the watch. While the worker
//! is awake the watch is disarmed (it fired) or quiet (the worker woke for
//! other work), so events cost the poll thread nothing.
//!
//! An earlier gate was a mutex and condition variable: every time the
//! worker ran out of work it announced itself, which woke the poll thread
//! (a futex wake and a context switch) only to send it into `epoll_wait`,
//! and its return to the gate was another context switch. On the
//! Redis-protocol row at 50 connections the legacy driver then made 0.7
//! futex calls and 1.0 `epoll_wait` per request, against tokio's 0.1 and
//! 0.3. Arming is one syscall that wakes nobody unless an event is there.
//!
//! **Armed once, not at every park** (`PollGate::armed`). A worker woken
//! by something else than its poll thread (a task another worker or the
//! accept loop pushed, a timer) left its watch armed, and re-arming it at
//! the next park was an `epoll_ctl` that changed nothing: on the
//! connection-churn row 2.1 `epoll_ctl` per connection where tokio makes
//! 1.0. So the gate remembers whether the watch is armed: the worker
//! arms only when it is not, and the poll thread clears the flag whenever
//! its wait returns `Fired` (the kernel disarmed the one-shot watch). The
//! two sides order themselves Dekker-style, with a `SeqCst` fence on each
//! side: the worker does *store parked, fence, swap armed*, the poll
//! thread *clear armed, fence, load parked*, so a worker that skips the
//! arm after a fire it did not see is seen parked by the poll thread,
//! which then reaps and delivers, or waits on its epoll, as for any
//! sleeper.
//!
//! **Delivery.** What the poll thread reaps for a sleeping worker goes to
//! that worker: the tasks are queued without the scheduler's notify, and
//! the poll thread unparks the worker itself (`reactor.rs`). Their sockets
//! are in this worker's epoll, so this is where they wait again; a notify
//! would wake whichever worker parked last, and then the owner too.
//!
//! **Nothing is lost.** The worker does *last reap, arm, block*. An event
//! that the last reap did not take is, when the watch is armed, either
//! already in the worker's epoll (the kernel re-checks the watched epoll
//! when it is re-armed, and reports it at once) or arrives later (and
//! fires the armed watch). Either way the poll thread reaps it and unparks
//! the worker; if another worker's reap took the events first, the poll
//! thread finds the worker still parked and waits on its epoll itself
//! (below), so a sleeping worker's epoll is watched whenever the poll
//! thread waits. `src/loom_tests/driver.rs` checks this
//! sequence with this file's code, the kernel's one-shot semantics modelled
//! by a fake [`Watch`].
//!
//! **Waiting on the worker's epoll itself** ([`Turn::WaitOnEpoll`]). The
//! watch costs two syscalls per sleep on top of the hop: the worker's arm
//! (`epoll_ctl`) and the poll thread's reap after the watch fires (a
//! second `epoll_wait`). On one connection, where the worker sleeps
//! between every request and the next, those were two of the seven
//! syscalls of each round trip (tokio makes 2.6). So whenever the worker
//! sleeps, or is expected to sleep before its next event, the poll thread
//! blocks in `epoll_wait` on the worker's epoll directly: its wait returns
//! the events themselves, and a worker that parks while the poll thread
//! waits so (`direct`) leaves the watch alone. Round trip: the poll
//! thread's wait and unpark, the worker's sleep, its read and its write.
//!
//! The cost of being wrong is the one the watch exists to avoid: if the
//! worker is awake when events arrive (woken by a peer's task or a timer,
//! busy under load, or registering a socket, whose first event comes at
//! once), the kernel wakes the poll thread for work the worker would have
//! reaped itself. The poll thread then stops expecting a sleep after each
//! delivery for a while (`Watching`: 2, 4, ... 64 turns of the watch after
//! successive misses). While the worker is known to sleep it always waits
//! directly: then no event can come too early.
//!
//! *Mail.* Those early events must not set readiness: the kernel sampled
//! them while the worker's tasks were still running, and a task may have
//! changed the socket since (a socket registered, then filled, would read
//! as writable). So they are left to the worker as *mail*: the tokens
//! only, which the worker's next reap re-checks with one `poll(2)`, on its
//! own thread and in order with its tasks, before dispatching what is
//! still ready (`reactor.rs`). Handshake: the poll thread does *post, set
//! mail, fence, load state*, and serves the mail itself, as a sleeper's,
//! if it finds the worker parked; the worker does *store parked, fence,
//! load mail*, and does not block if mail waits (its next turn reaps it).
//!
//! *Handshake.* The worker does *store parked, fence, load direct* and
//! arms only if `direct` is clear; the poll thread, leaving the direct
//! wait, does *clear direct, fence, load parked* and waits directly again
//! if it finds the worker parked (it may have skipped the arm). Entering a
//! direct wait while the worker is awake, the poll thread does *set
//! direct, fence, load state*, against a detaching worker's *store
//! detached, fence, load direct*: a worker that detaches while the poll
//! thread waits directly kicks it out of that wait ([`Watch::kick`]), so
//! the epoll of a runtime nobody drives is not reaped (see
//! `worker_detached`).
//!
//! **A stuck worker.** If the worker stays awake without reaping (a task
//! that polls for a long time), events would wait for it. After each turn,
//! and whenever the watch fires while the worker is awake, the poll thread
//! waits with a timeout, and when the worker's reap count has not moved
//! over a whole timeout it reaps for it.
use crate::loom::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicU8, Ordering};
use crate::loom::sync::{Condvar, Mutex};
use std::io;
use std::time::Duration;

/// The poll thread's view of the worker's epoll.
pub(crate) trait Watch {
    /// Arms the one-shot watch: the next [`Watch::wait`] that finds an
    /// event in the worker's epoll (one already there included) returns
    /// [`Woken::Fired`] and disarms it.
    fn arm(&self) -> io::Result<()>;

    /// Disarms the watch: no event fires it until the next [`Watch::arm`].
    fn disarm(&self) -> io::Result<()>;

    /// Blocks until the armed watch fires, the stop signal, or `timeout`
    /// (`None`: no limit).
    fn wait(&self, timeout: Option<Duration>) -> io::Result<Woken>;

    /// Ends a poll thread's wait on the worker's epoll itself
    /// ([`Turn::WaitOnEpoll`]), or its next one if none is under way.
    fn kick(&self) -> io::Result<()>;
}

/// Why [`Watch::wait`] returned.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Woken {
    Fired,
    Stopped,
    TimedOut,
}

/// What the poll thread does next ([`PollGate::next_turn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The watch fired while the worker sleeps: reap the worker's epoll
    /// without blocking, deliver what it wakes to the worker, then call
    /// [`PollGate::delivered`].
    ReapForSleeper,
    /// Block in `epoll_wait` on the worker's epoll itself (until an event,
    /// the stop signal or a kick), then ask
    /// [`PollGate::waited_on_epoll`] where the events go.
    WaitOnEpoll,
    /// The worker is awake but has not reaped for a while: reap and
    /// dispatch on its behalf (through the scheduler's usual notify).
    ReapForStuck,
    /// The runtime is shutting down.
    Stop,
}

/// Whether a thread drives the worker, and whether it sleeps
/// (`PollGate::worker`).
const AWAKE: u8 = 0;
const PARKED: u8 = 1;
/// No thread drives it (a current-thread runtime outside `block_on`).
const DETACHED: u8 = 2;

/// Watch turns after the first miss of a direct wait, doubled by each
/// further miss up to [`MAX_WATCH_TURNS`].
const FIRST_WATCH_TURNS: u32 = 2;
const MAX_WATCH_TURNS: u32 = 64;

/// What the poll thread remembers between turns.
#[derive(Debug)]
pub(crate) struct Watching {
    /// Whether its next wait has a timeout, to check the awake worker's
    /// progress.
    checking_progress: bool,
    /// The worker's reap count at the start of that timeout.
    reaps_seen: u64,
    /// Whether it may wait on the epoll while the worker is awake,
    /// expecting it to sleep before its next event.
    expect_sleep: bool,
    /// Turns still to wait on the watch when the worker is awake, after a
    /// direct wait whose events found the worker awake.
    watch_turns: u32,
    /// How many such turns the next miss costs.
    next_penalty: u32,
    /// Whether the current direct wait began with the worker awake (a
    /// guess that it would sleep first): only such a wait that finds the
    /// worker asleep resets the penalty. A wait begun with the worker
    /// asleep proves nothing about the guess, and under load, where the
    /// worker sleeps now and then but is mostly busy, counting it let every
    /// sleep reset the penalty, so the poll thread kept waking for events
    /// its busy worker reaps itself.
    guessed: bool,
}

impl Default for Watching {
    fn default() -> Watching {
        Watching::new(true)
    }
}

impl Watching {
    /// `expect_sleep`: whether the poll thread may wait on the epoll of an
    /// awake worker (the production choice; the loom models also check the
    /// gate without it, where only a parked worker's epoll is waited on).
    pub(crate) fn new(expect_sleep: bool) -> Watching {
        Watching {
            checking_progress: false,
            reaps_seen: 0,
            expect_sleep,
            watch_turns: 0,
            next_penalty: FIRST_WATCH_TURNS,
            guessed: false,
        }
    }

    /// Whether to expect the awake worker to sleep before its next event.
    fn expects_sleep(&mut self) -> bool {
        if !self.expect_sleep {
            return false;
        }
        if self.watch_turns > 0 {
            self.watch_turns -= 1;
            return false;
        }
        true
    }

    /// A direct wait's events found the worker awake.
    fn missed(&mut self) {
        self.watch_turns = self.next_penalty;
        self.next_penalty = (self.next_penalty * 2).min(MAX_WATCH_TURNS);
    }

    /// A direct wait's events found the worker asleep.
    fn hit(&mut self) {
        if self.guessed {
            self.next_penalty = FIRST_WATCH_TURNS;
        }
    }
}

#[derive(Debug)]
pub(crate) struct PollGate<W> {
    watch: W,
    /// `AWAKE`, `PARKED` or `DETACHED`. Read by the poll thread and by
    /// other workers deciding whose epoll to reap. Every write is a swap
    /// or a compare-exchange, for the reason given at `armed`.
    worker: AtomicU8,
    /// Whether the watch is armed, as far as the worker need know: set by
    /// whoever arms it, cleared by the poll thread when a wait returns
    /// `Fired` (the one-shot watch disarmed itself) and by a detach. See
    /// the module doc for why `SeqCst`. Every write is a swap: a
    /// read-modify-write is ordered after every earlier write to the flag
    /// (its read sees the newest), which loom models exactly, where a
    /// plain `SeqCst` store could be modelled as ordered before a swap
    /// that already ran, a false lost wakeup.
    armed: AtomicBool,
    /// Whether the poll thread waits on the worker's epoll itself, or is
    /// about to: a parking worker then needs no watch. Written by the poll
    /// thread only (swaps, as `armed`).
    direct: AtomicBool,
    /// Whether the poll thread left events for the worker to re-check
    /// (see the module doc). Swaps, as `armed`.
    mail: AtomicBool,
    /// Reaps the worker made. `Relaxed`: a progress count for the
    /// stuck-worker check, ordered by nothing else.
    reaps: AtomicU64,
    /// Direct waits the poll thread has finished: what each took is posted
    /// or delivered before this count moves (see [`PollGate::hand_over`]).
    handed: AtomicU64,
    /// Whether a worker sleeps in [`PollGate::hand_over`] until `handed`
    /// moves or `direct` clears: the poll thread then wakes it through
    /// `hand_over_done`. Swaps, as `armed`.
    hand_over_waits: AtomicBool,
    /// The lock and condition variable of that sleep. A worker waiting for
    /// its poll thread sleeps rather than spins: on two CPUs a spinning
    /// worker (`sched_yield`) kept a kicked poll thread off the CPU for
    /// about fifty yields, 1.8 syscalls per round trip on one connection.
    hand_over_lock: Mutex<()>,
    hand_over_done: Condvar,
}

impl<W: Watch> PollGate<W> {
    /// Starts parked, with the watch armed: until a thread drives the
    /// worker, the poll thread reaps (a worker thread that attaches and
    /// gets stuck before it ever parks is then still watched). A
    /// current-thread runtime, which nobody may ever drive, detaches at
    /// once ([`PollGate::worker_detached`]).
    pub(crate) fn new(watch: W) -> io::Result<PollGate<W>> {
        watch.arm()?;
        Ok(PollGate {
            watch,
            worker: AtomicU8::new(PARKED),
            armed: AtomicBool::new(true),
            direct: AtomicBool::new(false),
            mail: AtomicBool::new(false),
            reaps: AtomicU64::new(0),
            handed: AtomicU64::new(0),
            hand_over_waits: AtomicBool::new(false),
            hand_over_lock: Mutex::new(()),
            hand_over_done: Condvar::new(),
        })
    }

    /// The worker is about to block, after its last reap: the poll thread
    /// takes over its events. `Ok(false)`: it must not block, mail waits
    /// for its next reap. An error means the watch is not armed, so the
    /// worker must not sleep long on its own (see `driver/park.rs`).
    pub(crate) fn worker_parking(&self) -> io::Result<bool> {
        self.worker.swap(PARKED, Ordering::SeqCst);
        // Orders the store above before the reads below, against the poll
        // thread's *clear armed, fence, load state*, *clear direct, fence,
        // load state* and *set mail, fence, load state* (a fence, not only
        // `SeqCst` accesses, which loom models as `AcqRel`).
        fence(Ordering::SeqCst);
        if self.mail.load(Ordering::SeqCst) {
            return Ok(false);
        }
        // The poll thread waits on the epoll itself: it sees every event.
        if self.direct.load(Ordering::SeqCst) {
            return Ok(true);
        }
        // Still armed since the last arm (no fire since): the kernel
        // reports every event from then on, nothing to do.
        if self.armed.swap(true, Ordering::SeqCst) {
            return Ok(true);
        }
        self.arm().map(|()| true)
    }

    /// Arms the watch; on failure the flag says disarmed again.
    fn arm(&self) -> io::Result<()> {
        self.armed.swap(true, Ordering::SeqCst);
        let armed = self.watch.arm();
        if armed.is_err() {
            self.armed.swap(false, Ordering::SeqCst);
        }
        armed
    }

    /// The worker is awake and reaps its own events. The watch may stay
    /// armed: if it fires, the poll thread only starts checking progress.
    pub(crate) fn worker_awake(&self) {
        self.worker.swap(AWAKE, Ordering::SeqCst);
    }

    /// No thread drives the worker any more (a current-thread runtime
    /// outside `block_on`): its events wait in its epoll for the next
    /// thread that drives it, which reaps first. As in tokio, a runtime
    /// nobody drives collects no readiness: an event reaped now would
    /// record readiness that may be gone when the runtime next runs (a
    /// socket registered, then filled, would read as writable). Counted as
    /// parked by other workers' reaps and by a watch that fires anyway
    /// (armed by an earlier sleep, and firing before the disarm: served as
    /// a sleeper's), and the progress check stays off. A poll thread
    /// waiting on the epoll itself is kicked out of that wait. A failed
    /// disarm or kick only lets an early delivery happen later.
    pub(crate) fn worker_detached(&self) -> io::Result<()> {
        self.worker.swap(DETACHED, Ordering::SeqCst);
        // Against the poll thread's *set direct, fence, load state*.
        fence(Ordering::SeqCst);
        self.armed.swap(false, Ordering::SeqCst);
        let disarmed = self.watch.disarm();
        if self.direct.load(Ordering::SeqCst) {
            self.watch.kick()?;
        }
        disarmed
    }

    /// The worker reaped its epoll (for the stuck-worker check).
    pub(crate) fn worker_reaped(&self) {
        self.reaps.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether the worker sleeps (or no thread drives it): a hint for
    /// other workers deciding whose epoll to reap (stale either way, it
    /// only makes one reap an epoll it could have left, or leave one its
    /// poll thread serves anyway).
    pub(crate) fn is_worker_parked(&self) -> bool {
        self.worker.load(Ordering::SeqCst) != AWAKE
    }

    /// The poll thread: waits for its next turn.
    ///
    /// # Panics
    ///
    /// If `epoll_wait` fails with anything but `EINTR`: only a bad
    /// descriptor or buffer can cause that, and a poll thread that left
    /// silently would strand every waiter.
    pub(crate) fn next_turn(&self, stuck_after: Duration, watching: &mut Watching) -> Turn {
        loop {
            if self.wait_on_epoll(watching) {
                watching.checking_progress = false;
                return Turn::WaitOnEpoll;
            }
            let timeout = watching.checking_progress.then_some(stuck_after);
            let woken = match self.watch.wait(timeout) {
                Ok(woken) => woken,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => panic!("tokiwa poll thread: epoll_wait failed: {e}"),
            };
            if woken == Woken::Fired {
                // The one-shot watch disarmed itself: the worker's next
                // park must arm it again. Cleared before the state is read
                // (see the module doc).
                self.armed.swap(false, Ordering::SeqCst);
                fence(Ordering::SeqCst);
            }
            match woken {
                Woken::Stopped => return Turn::Stop,
                Woken::Fired if self.is_worker_parked() => {
                    // After dispatching, watch for a worker that wakes and
                    // then gets stuck before its first reap.
                    self.start_checking(watching);
                    return Turn::ReapForSleeper;
                }
                // The worker woke for other work since it armed the watch:
                // its own reaps take the events, unless it gets stuck.
                Woken::Fired => self.start_checking(watching),
                Woken::TimedOut if self.is_worker_parked() => {
                    // Asleep, so it armed the watch: no timeout needed.
                    watching.checking_progress = false;
                }
                Woken::TimedOut => {
                    let reaps = self.reaps.load(Ordering::Relaxed);
                    if reaps == watching.reaps_seen {
                        return Turn::ReapForStuck;
                    }
                    watching.reaps_seen = reaps;
                }
            }
        }
    }

    /// Whether the poll thread's next wait is on the worker's epoll itself
    /// (see the module doc): always while the worker sleeps, and while it
    /// is awake unless such waits have been finding it awake. Sets or
    /// clears `direct` accordingly.
    fn wait_on_epoll(&self, watching: &mut Watching) -> bool {
        match self.worker.load(Ordering::SeqCst) {
            PARKED => {
                watching.guessed = false;
                self.direct.swap(true, Ordering::SeqCst);
                return true;
            }
            AWAKE if watching.expects_sleep() => {
                watching.guessed = true;
                self.direct.swap(true, Ordering::SeqCst);
                // Against a detaching worker's *store detached, fence,
                // load direct*: one that detached meanwhile is not waited
                // for (if it also saw `direct`, its kick ends a later
                // wait early, which costs one turn).
                fence(Ordering::SeqCst);
                if self.worker.load(Ordering::SeqCst) != DETACHED {
                    return true;
                }
            }
            _ => {}
        }
        // A worker that parks from now on arms the watch; one that parked
        // before it saw this may have skipped the arm, and is then seen
        // parked here.
        self.clear_direct();
        fence(Ordering::SeqCst);
        if self.worker.load(Ordering::SeqCst) == PARKED {
            watching.guessed = false;
            self.direct.swap(true, Ordering::SeqCst);
            return true;
        }
        false
    }

    /// After a [`Turn::WaitOnEpoll`] whose wait returned `events` events
    /// (none: a signal, a kick, or only the control descriptors): whether
    /// they go to the sleeping worker (`true`: deliver them, then call
    /// [`PollGate::delivered`]) or, the worker being awake or detached,
    /// are mail (`false`: post them, then call [`PollGate::mail_posted`]).
    pub(crate) fn waited_on_epoll(&self, events: usize, watching: &mut Watching) -> bool {
        if events == 0 {
            return false;
        }
        if self.worker.load(Ordering::SeqCst) == PARKED {
            watching.hit();
            return true;
        }
        watching.missed();
        // The worker is awake: check that it keeps reaping (its mail
        // included).
        self.start_checking(watching);
        false
    }

    /// The poll thread posted mail for the worker. `true`: the worker
    /// parked meanwhile (it may have missed the mail), so the poll thread
    /// takes the mail back and serves it as a sleeper's.
    pub(crate) fn mail_posted(&self) -> bool {
        self.mail.swap(true, Ordering::SeqCst);
        // Against the worker's *store parked, fence, load mail*.
        fence(Ordering::SeqCst);
        self.worker.load(Ordering::SeqCst) == PARKED
    }

    /// Whether mail may wait, without clearing the flag: a worker about to
    /// sleep reaps then even where its back-off would skip the reap.
    pub(crate) fn has_mail(&self) -> bool {
        self.mail.load(Ordering::SeqCst)
    }

    /// Whether mail may wait, clearing the flag: whoever gets `true`
    /// drains the mail (a drain that finds it empty, taken by the other
    /// side first, is harmless).
    pub(crate) fn take_mail(&self) -> bool {
        // The `Relaxed` look only spares the swap when nothing was posted:
        // mail it misses is seen by the worker's `SeqCst` check when it
        // parks, or the poll thread sees the worker parked and serves it.
        self.mail.load(Ordering::Relaxed) && self.mail.swap(false, Ordering::SeqCst)
    }

    /// After a [`Turn::ReapForSleeper`] or a [`Turn::WaitOnEpoll`] for the
    /// sleeper that woke `tasks`: the caller delivered them to the worker,
    /// which is marked awake (so the next turn does not take it for a
    /// sleeper) and woken by `unpark`. None (another worker's reap took
    /// the events first, or they woke nobody): the worker sleeps on, and
    /// the next turn, finding it parked, waits on its epoll.
    pub(crate) fn delivered(&self, tasks: usize, unpark: impl FnOnce()) {
        if tasks == 0 {
            return;
        }
        // Before the unpark: a worker that woke for something else and
        // parked again meanwhile stays parked, and the unpark wakes it.
        let _ = self
            .worker
            .compare_exchange(PARKED, AWAKE, Ordering::SeqCst, Ordering::SeqCst);
        unpark();
    }

    /// The poll thread finished a [`Turn::WaitOnEpoll`]: what it took is
    /// delivered or posted as mail. Also called when it stops (after which
    /// `direct` is never set again), so no worker waits for it.
    pub(crate) fn direct_wait_done(&self, stopping: bool) {
        if stopping {
            self.direct.swap(false, Ordering::SeqCst);
        }
        self.handed.fetch_add(1, Ordering::SeqCst);
        self.end_hand_over();
    }

    /// The poll thread no longer waits on the epoll itself.
    fn clear_direct(&self) {
        if self.direct.swap(false, Ordering::SeqCst) {
            self.end_hand_over();
        }
    }

    /// Wakes a worker sleeping in [`PollGate::hand_over`] after `handed`
    /// moved or `direct` cleared. Against the worker's *set waits, fence,
    /// load handed and direct*: either it sees the change, or this sees it
    /// waiting, and notifies under the lock it holds until it sleeps.
    fn end_hand_over(&self) {
        fence(Ordering::SeqCst);
        if self.hand_over_waits.load(Ordering::SeqCst) {
            let _guard = self.hand_over_lock.lock().unwrap();
            self.hand_over_done.notify_all();
        }
    }

    /// The hand-over count, read by the worker before a reap that is not
    /// its last before parking ([`PollGate::hand_over`]).
    pub(crate) fn handed(&self) -> u64 {
        self.handed.load(Ordering::SeqCst)
    }

    /// The worker reaped (count `before` read ahead of it) and goes on
    /// running tasks, which must see every event that was ready before the
    /// reap (tokio's guarantee after `yield_now`). A direct wait may have
    /// taken such events from the epoll and not posted them yet: then the
    /// worker kicks the poll thread out of its wait and waits until that
    /// wait is finished. Returns whether mail may wait (the caller drains
    /// it). A reap before parking needs none of this: the poll thread then
    /// finds the worker parked and serves what it took itself.
    ///
    /// The poll thread keeps `direct` set from before its wait until after
    /// its `direct_wait_done`, so a worker that finds `direct` clear, and
    /// *then* the count unmoved, knows no direct wait took anything since
    /// `before` (read the other way round, a whole wait could finish and
    /// clear `direct` between the two reads: loom found that order); one
    /// that finds the count moved drains the mail, which was posted before
    /// the count moved.
    pub(crate) fn hand_over(&self, before: u64) -> io::Result<bool> {
        let direct = self.direct.load(Ordering::SeqCst);
        if self.handed() != before {
            return Ok(true);
        }
        if !direct {
            return Ok(false);
        }
        self.watch.kick()?;
        // Bounded by the poll thread's response to the kick: it blocks on
        // nothing but the epoll the kick ends, and counts its stop as a
        // finished wait.
        let mut guard = self.hand_over_lock.lock().unwrap();
        loop {
            self.hand_over_waits.swap(true, Ordering::SeqCst);
            // Against the poll thread's *move handed or clear direct,
            // fence, load waits* (`end_hand_over`).
            fence(Ordering::SeqCst);
            if self.handed() != before || !self.direct.load(Ordering::SeqCst) {
                break;
            }
            guard = self.hand_over_done.wait(guard).unwrap();
        }
        self.hand_over_waits.swap(false, Ordering::SeqCst);
        drop(guard);
        Ok(true)
    }

    /// The watch (the reactor drains its kicks).
    pub(crate) fn watch(&self) -> &W {
        &self.watch
    }

    fn start_checking(&self, watching: &mut Watching) {
        watching.checking_progress = true;
        watching.reaps_seen = self.reaps.load(Ordering::Relaxed);
    }
}
