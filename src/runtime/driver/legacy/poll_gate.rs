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
//! thread *clear armed, fence, load parked*, so a worker that skips the arm after a fire it
//! did not see is seen parked by the poll thread, which then reaps and
//! delivers or re-arms, as for any sleeper.
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
//! thread re-arms the watch instead ([`PollGate::delivered`]), so a
//! sleeping worker's watch is armed whenever the poll thread waits. `src/loom_tests/driver.rs` checks this
//! sequence with this file's code, the kernel's one-shot semantics modelled
//! by a fake [`Watch`].
//!
//! **A stuck worker.** If the worker stays awake without reaping (a task
//! that polls for a long time), events would wait for it. After each turn,
//! and whenever the watch fires while the worker is awake, the poll thread
//! waits with a timeout, and when the worker's reap count has not moved
//! over a whole timeout it reaps for it.
use crate::loom::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
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
}

/// Why [`Watch::wait`] returned.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Woken {
    Fired,
    Stopped,
    TimedOut,
}

/// What the poll thread does next ([`PollGate::next_turn`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The watch fired while the worker sleeps: reap the worker's epoll
    /// without blocking, deliver what it wakes to the worker, then call
    /// [`PollGate::delivered`].
    ReapForSleeper,
    /// The worker is awake but has not reaped for a while: reap and
    /// dispatch on its behalf (through the scheduler's usual notify).
    ReapForStuck,
    /// The runtime is shutting down.
    Stop,
}

/// What the poll thread remembers between turns.
#[derive(Debug, Default)]
pub(crate) struct Watching {
    /// Whether its next wait has a timeout, to check the awake worker's
    /// progress.
    checking_progress: bool,
    /// The worker's reap count at the start of that timeout.
    reaps_seen: u64,
}

#[derive(Debug)]
pub(crate) struct PollGate<W> {
    watch: W,
    /// Whether the worker sleeps (or no thread drives it). Read by the
    /// poll thread and by other workers deciding whose epoll to reap; a
    /// hint for both: correctness rests on the watch, not on this flag.
    parked: AtomicBool,
    /// Whether the watch is armed, as far as the worker need know: set by
    /// whoever arms it, cleared by the poll thread when a wait returns
    /// `Fired` (the one-shot watch disarmed itself) and by a detach. See
    /// the module doc for why `SeqCst`. Every write is a swap: a
    /// read-modify-write is ordered after every earlier write to the flag
    /// (its read sees the newest), which loom models exactly, where a
    /// plain `SeqCst` store could be modelled as ordered before a swap
    /// that already ran, a false lost wakeup.
    armed: AtomicBool,
    /// Reaps the worker made. `Relaxed`: a progress count for the
    /// stuck-worker check, ordered by nothing else.
    reaps: AtomicU64,
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
            parked: AtomicBool::new(true),
            armed: AtomicBool::new(true),
            reaps: AtomicU64::new(0),
        })
    }

    /// The worker is about to block, after its last reap: the poll thread
    /// takes over its events. An error means the watch is not armed, so
    /// the worker must not sleep long on its own (see `driver/park.rs`).
    pub(crate) fn worker_parking(&self) -> io::Result<()> {
        self.parked.store(true, Ordering::SeqCst);
        // Orders the store above before the read below, against the poll
        // thread's *clear armed, fence, load parked* (a fence, not only
        // `SeqCst` accesses, which loom models as `AcqRel`).
        fence(Ordering::SeqCst);
        // Still armed since the last arm (no fire since): the kernel
        // reports every event from then on, nothing to do.
        if self.armed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        self.arm()
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
        self.parked.store(false, Ordering::SeqCst);
    }

    /// No thread drives the worker any more (a current-thread runtime
    /// outside `block_on`): its events wait in its epoll for the next
    /// thread that drives it, which reaps first. As in tokio, a runtime
    /// nobody drives collects no readiness: an event reaped now would
    /// record readiness that may be gone when the runtime next runs (a
    /// socket registered, then filled, would read as writable). Marked
    /// parked, so a watch that fires anyway (armed by an earlier sleep, and
    /// firing before the disarm) is served as a sleeper's, and the progress
    /// check stays off. A failed disarm only lets that happen later.
    pub(crate) fn worker_detached(&self) -> io::Result<()> {
        self.parked.store(true, Ordering::SeqCst);
        self.armed.swap(false, Ordering::SeqCst);
        self.watch.disarm()
    }

    /// The worker reaped its epoll (for the stuck-worker check).
    pub(crate) fn worker_reaped(&self) {
        self.reaps.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether the worker sleeps: a hint for other workers deciding whose
    /// epoll to reap (stale either way, it only makes one reap an epoll it
    /// could have left, or leave one its poll thread serves anyway).
    pub(crate) fn is_worker_parked(&self) -> bool {
        self.parked.load(Ordering::SeqCst)
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
            let timeout = watching.checking_progress.then_some(stuck_after);
            let woken = match self.watch.wait(timeout) {
                Ok(woken) => woken,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => panic!("tokiwa poll thread: epoll_wait failed: {e}"),
            };
            if woken == Woken::Fired {
                // The one-shot watch disarmed itself: the worker's next
                // park must arm it again. Cleared before `parked` is read
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

    /// After a [`Turn::ReapForSleeper`] that found `events`: the fire
    /// disarmed the watch, and a sleeping worker must never be left with
    /// it disarmed. With events, the caller delivered their tasks to the
    /// worker and `unpark` wakes it (it re-arms when it sleeps again).
    /// Without (another worker's reap took them first), the watch is
    /// re-armed, or the worker woken if that fails.
    pub(crate) fn delivered(&self, events: usize, unpark: impl FnOnce()) {
        if events > 0 || self.arm().is_err() {
            unpark();
        }
    }

    fn start_checking(&self, watching: &mut Watching) {
        watching.checking_progress = true;
        watching.reaps_seen = self.reaps.load(Ordering::Relaxed);
    }
}
