//! One worker's ring, touched only by the thread that holds the worker's
//! core.
//!
//! `SINGLE_ISSUER` binds a ring to one thread: any other thread's
//! `io_uring_enter` fails with `EEXIST`. A worker's core can change threads
//! (`block_in_place` hands it to a new thread; a current-thread runtime is
//! driven by whichever thread calls `block_on`), so the ring records its
//! owner and [`Ring::attach`] makes the calling thread the owner: it enables
//! a ring built `R_DISABLED` (the usual case, once per worker), or builds a
//! fresh ring for a new thread and lets the caller re-arm its polls on it.
//!
//! Submission is lazy: entries wait in the SQ until the worker enters the
//! kernel anyway (its next wait, or a busy worker's maintenance when the SQ
//! holds entries or the kernel flagged `TASKRUN`), so a burst of
//! registrations costs one syscall. A full SQ is flushed before the push,
//! never dropped.
use super::buf_ring::BufRing;
use super::probe::{self, RingConfig};
use super::wake::UringMetrics;
use crate::runtime::park::ring_wake::{WakePoll, WakeRing};
use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::cell::Cell;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// `io_uring_enter`'s flag to run deferred work and reap (`<linux/io_uring.h>`).
const IORING_ENTER_GETEVENTS: u32 = 1;

/// `user_data` of the wake poll's completions.
pub(crate) const WAKE_TOKEN: u64 = u64::MAX;
/// `user_data` of cancel requests (their own completions are ignored: the
/// cancelled poll's final CQE is what frees its slot).
pub(crate) const CANCEL_TOKEN: u64 = u64::MAX - 1;

/// Whether an `io_uring_enter` error is the kernel's momentary refusal,
/// after which nothing was submitted and a later enter succeeds: `EAGAIN`
/// or `ENOMEM` (it could not allocate a request), `EBUSY` (its overflow
/// list is full; the CQ must be emptied first), `EINTR`. Any other error
/// is a bug (a ring used by the wrong thread, a bad entry) and panics.
pub(crate) fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EAGAIN | libc::ENOMEM | libc::EBUSY | libc::EINTR)
    )
}

/// How long a worker backs off when the kernel cannot take its entries
/// for lack of memory, before it tries again (never while it could miss a
/// wakeup: see [`Wait`]).
const ENOMEM_BACKOFF: Duration = Duration::from_millis(1);

/// A completion, copied out of the CQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cqe {
    pub(crate) user_data: u64,
    pub(crate) res: i32,
    pub(crate) more: bool,
    /// The kernel's flags (a receive's buffer id, `recv.rs`).
    pub(crate) flags: u32,
}

impl From<&cqueue::Entry> for Cqe {
    fn from(entry: &cqueue::Entry) -> Cqe {
        Cqe {
            user_data: entry.user_data(),
            res: entry.result(),
            more: cqueue::more(entry.flags()),
            flags: entry.flags(),
        }
    }
}

/// Hands a completion to the wake poll's state or to `f`; cancel requests'
/// own completions are dropped.
fn route(wake_poll: &mut WakePoll, cqe: Cqe, f: &mut impl FnMut(Cqe)) {
    match cqe.user_data {
        WAKE_TOKEN => wake_poll.on_cqe(cqe.res, cqe.more),
        CANCEL_TOKEN => {}
        _ => f(cqe),
    }
}

/// A process-unique id of the calling thread (thread-local addresses can be
/// reused by later threads; these ids are not).
pub(crate) fn thread_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: Cell<u64> = const { Cell::new(0) };
    }
    ID.with(|id| {
        if id.get() == 0 {
            // `Relaxed`: only uniqueness matters.
            id.set(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        }
        id.get()
    })
}

pub(crate) struct Ring {
    uring: IoUring,
    /// The thread allowed to enter this ring (`None`: built `R_DISABLED`,
    /// not enabled yet).
    owner: Option<u64>,
    wake_poll: WakePoll,
    eventfd: RawFd,
    config: RingConfig,
    /// Completions taken out of the CQ to make room while a push could not
    /// dispatch them (see [`Ring::push`]); delivered by the next drain.
    backlog: Vec<Cqe>,
    /// How many times the wake poll was armed (the first is not a re-arm).
    arms: u64,
    index: usize,
    /// Buffers of the owner's reaps, kept so that a reap allocates nothing.
    pub(crate) scratch: Scratch,
    /// Whether the SQ holds an entry that a busy worker must submit at its
    /// next look ([`Ring::needs_enter`]); entries pushed with
    /// [`Ring::push_lazy`] alone wait for an enter made for another reason.
    urgent: bool,
    /// Test hook: the next this many submits fail with this error, as the
    /// kernel's would (nothing is submitted).
    #[cfg(test)]
    pub(crate) failing_submits: (u32, i32),
    /// The provided buffers of completion receives, registered at the
    /// first receive (`buf_ring.rs`). Declared after `uring`: dropped
    /// after the ring's descriptor is closed.
    buf_ring: Option<BufRing>,
    /// The buffer ring of a ring that `attach` replaced, for the worker to
    /// drop or, if receives were still in flight there, keep forever.
    pub(crate) retired_buf_ring: Option<BufRing>,
}

/// See [`Ring::scratch`].
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) cqes: Vec<Cqe>,
    pub(crate) rearm: Vec<u64>,
}

/// What attaching the calling thread did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Attach {
    /// Already this thread's ring, or a disabled ring now enabled.
    Same,
    /// A fresh ring replaced one owned by another thread: every poll of the
    /// old ring is gone and must be re-armed.
    Replaced,
}

impl Ring {
    /// A ring for worker `index`, built `R_DISABLED` (its worker enables
    /// it). `eventfd` is the worker's wake eventfd.
    pub(crate) fn new(index: usize, eventfd: RawFd, config: RingConfig) -> io::Result<Ring> {
        Ok(Ring {
            uring: probe::setup_ring(&config, true)?,
            owner: None,
            wake_poll: WakePoll::new(index),
            eventfd,
            config,
            backlog: Vec::new(),
            arms: 0,
            index,
            scratch: Scratch::default(),
            urgent: false,
            #[cfg(test)]
            failing_submits: (0, 0),
            buf_ring: None,
            retired_buf_ring: None,
        })
    }

    /// The ring's provided buffer ring, registered now if it has none.
    pub(crate) fn buf_ring(&mut self) -> io::Result<&mut BufRing> {
        if self.buf_ring.is_none() {
            self.buf_ring = Some(BufRing::register(&self.uring.submitter())?);
        }
        Ok(self.buf_ring.as_mut().expect("registered above"))
    }

    /// Takes the buffer ring out, for a shutdown to drop or keep forever.
    pub(crate) fn take_buf_ring(&mut self) -> Option<BufRing> {
        self.buf_ring.take()
    }

    /// Test hook: whether this submit is one made to fail; consumes it.
    #[cfg(test)]
    fn injected_failure(&mut self) -> Option<io::Error> {
        let (left, errno) = &mut self.failing_submits;
        if *left == 0 {
            return None;
        }
        *left -= 1;
        Some(io::Error::from_raw_os_error(*errno))
    }

    #[cfg(not(test))]
    fn injected_failure(&mut self) -> Option<io::Error> {
        None
    }

    /// Makes the calling thread this ring's issuer (see the module docs).
    ///
    /// # Errors
    ///
    /// When the kernel refuses to enable the ring or to create one for
    /// this thread (`EMFILE`, `ENOMEM`, a seccomp filter): the ring is left
    /// exactly as it was, still its previous owner's, with its polls and
    /// completions, so the caller can hand the core back and a later
    /// attach can try again.
    pub(crate) fn attach(&mut self) -> io::Result<Attach> {
        let me = thread_id();
        match self.owner {
            Some(owner) if owner == me => Ok(Attach::Same),
            None => {
                self.uring.submitter().register_enable_rings()?;
                self.owner = Some(me);
                Ok(Attach::Same)
            }
            Some(_) => {
                let fresh = probe::setup_ring(&self.config, false)?;
                // The old ring's completions, posted or deferred, are
                // dropped with it: the caller re-arms every poll, and a
                // poll armed on a ready file completes at once. (Delivering
                // them instead would let an old final completion mark a
                // re-armed slot unarmed, and the slot would be armed twice.)
                self.backlog.clear();
                let retired = self.buf_ring.take();
                self.uring = fresh;
                // After the old ring's descriptor is closed (above).
                self.retired_buf_ring = retired;
                self.owner = Some(me);
                self.wake_poll = WakePoll::new(self.index);
                Ok(Attach::Replaced)
            }
        }
    }

    /// Whether the calling thread may enter this ring.
    pub(crate) fn is_owned_by_current(&self) -> bool {
        self.owner == Some(thread_id())
    }

    /// The setup flags the kernel recorded.
    pub(crate) fn setup_flags(&self) -> u32 {
        probe::setup_flags(&self.uring)
    }

    /// Queues `entry`. A full SQ is submitted first; if the kernel takes
    /// none of it (`EBUSY`: its overflow list is full), the CQ is emptied
    /// into the backlog and the submit retried, so nothing is dropped.
    /// Short of memory (`EAGAIN`, `ENOMEM`), the worker backs off and
    /// retries: the entry has nowhere else to go.
    pub(crate) fn push(&mut self, entry: &squeue::Entry, metrics: &UringMetrics) {
        self.push_lazy(entry, metrics);
        self.urgent = true;
    }

    /// [`Ring::push`] for an entry that may wait until the worker enters
    /// the kernel for another reason (its next wait, a completion to reap,
    /// an urgent entry): the cancel of a poll that moved to another ring,
    /// whose completions are ignored already (`home.rs`). A busy worker
    /// enters at most when the kernel has completions for it anyway, so
    /// such entries ride along instead of costing an `io_uring_enter` each.
    pub(crate) fn push_lazy(&mut self, entry: &squeue::Entry, metrics: &UringMetrics) {
        loop {
            // SAFETY: polls and cancels reference no memory, and a poll's
            // descriptor stays open until the kernel has resolved it (see
            // `io.rs`); an operation's memory and descriptor live until its
            // completion (`WorkerRing::start_op`'s contract, see `op.rs`).
            if unsafe { self.uring.submission().push(entry) }.is_ok() {
                return;
            }
            match self.submit(metrics) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => self.drain_to_backlog(),
                Err(e) if is_transient(&e) => std::thread::sleep(ENOMEM_BACKOFF),
                Err(e) => panic!("tokiwa: io_uring submission failed: {e}"),
            }
        }
    }

    /// Submits the queued entries and runs the kernel's deferred work
    /// (`GETEVENTS` without waiting: completions queued by the submission
    /// itself or pending from before, and an overflow to flush, land in the
    /// CQ). Retries `EINTR`.
    ///
    /// Always with `GETEVENTS`: with `DEFER_TASKRUN` a cancelled poll keeps
    /// its reference to the file until its completion has run as deferred
    /// work, so a submit without it left a dropped socket open (its peer
    /// waiting for EOF) until this worker next entered the kernel to wait,
    /// which a thread blocked on that peer never did.
    pub(crate) fn submit(&mut self, metrics: &UringMetrics) -> io::Result<()> {
        if let Some(e) = self.injected_failure() {
            return Err(e);
        }
        loop {
            UringMetrics::add(&metrics.enters, 1);
            let pending = self.uring.submission().len() as u32;
            // SAFETY: no argument pointer is passed (`None`); the flags are
            // the plain `GETEVENTS`, and every queued entry is valid (see
            // `push`).
            let result = unsafe {
                self.uring.submitter().enter::<libc::sigset_t>(
                    pending,
                    0,
                    IORING_ENTER_GETEVENTS,
                    None,
                )
            };
            match result {
                Ok(_) => {
                    self.urgent = false;
                    return Ok(());
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether a non-blocking look at the ring needs the kernel: entries
    /// to submit (lazy ones alone do not count: see [`Ring::push_lazy`]),
    /// deferred completions (`TASKRUN`) or an overflow to flush. Returns
    /// `(needed, because_of_taskrun)`.
    pub(crate) fn needs_enter(&mut self) -> (bool, bool) {
        let mut sq = self.uring.submission();
        sq.sync();
        let taskrun = sq.taskrun();
        let pending = !sq.is_empty();
        let overflow = sq.cq_overflow();
        drop(sq);
        // Submitted by a wait since the last push: nothing urgent is left.
        self.urgent &= pending;
        ((pending && self.urgent) || taskrun || overflow, taskrun)
    }

    /// Whether the SQ holds entries the kernel has not taken (a refused
    /// submit).
    pub(crate) fn has_unsubmitted(&mut self) -> bool {
        !self.uring.submission().is_empty()
    }

    /// Takes every completion (the backlog first), handing the wake poll's
    /// to its state and the others to `f`. Flushes an overflow the kernel
    /// holds and takes those too. Re-arms a wake poll that ended.
    pub(crate) fn drain(&mut self, metrics: &UringMetrics, mut f: impl FnMut(Cqe)) -> usize {
        let mut n = 0;
        for cqe in std::mem::take(&mut self.backlog) {
            n += 1;
            route(&mut self.wake_poll, cqe, &mut f);
        }
        loop {
            let mut batch = 0;
            for entry in self.uring.completion() {
                batch += 1;
                route(&mut self.wake_poll, Cqe::from(&entry), &mut f);
            }
            n += batch;
            // Completions the kernel kept back while the CQ was full.
            if self.uring.submission().cq_overflow() {
                match self.submit(metrics) {
                    Ok(()) => continue,
                    // `EBUSY`: more to take first. Short of memory: the
                    // rest waits for the next turn's flush.
                    Err(e) if e.raw_os_error() == Some(libc::EBUSY) => continue,
                    Err(e) if is_transient(&e) => {}
                    Err(e) => panic!("tokiwa: io_uring overflow flush failed: {e}"),
                }
            }
            if batch == 0 {
                break;
            }
        }
        UringMetrics::add(&metrics.cqes, n as u64);
        self.arm_wake_poll(metrics);
        n
    }

    /// Empties the CQ into the backlog without dispatching (for a push
    /// that cannot reach the registry).
    fn drain_to_backlog(&mut self) {
        self.backlog
            .extend(self.uring.completion().map(|entry| Cqe::from(&entry)));
    }

    /// Pushes the wake poll if it is not armed (first use, or its
    /// multishot ended). It is submitted by the next enter, which is at
    /// the latest the next wait: the worker never sleeps deaf.
    pub(crate) fn arm_wake_poll(&mut self, metrics: &UringMetrics) {
        if !self.wake_poll.take_rearm() {
            return;
        }
        self.arms += 1;
        if self.arms > 1 {
            UringMetrics::add(&metrics.wake_rearms, 1);
        }
        let poll = opcode::PollAdd::new(types::Fd(self.eventfd), libc::POLLIN as u32)
            .multi(true)
            .build()
            .user_data(WAKE_TOKEN);
        self.push(&poll, metrics);
    }

    /// Test hook: cancels the wake poll, as the kernel's termination of a
    /// multishot would end it (its final CQE comes without `F_MORE`).
    /// Returns whether there was an armed poll to end.
    pub(crate) fn cancel_wake_poll(&mut self, metrics: &UringMetrics) -> bool {
        if !self.wake_poll.is_armed() {
            return false;
        }
        let cancel = opcode::AsyncCancel::new(WAKE_TOKEN)
            .build()
            .user_data(CANCEL_TOKEN);
        self.push(&cancel, metrics);
        self.submit(metrics).is_ok()
    }

    /// Blocks until at least one completion is in the CQ (submitting what
    /// is queued). For [`super::WorkerRing::quiesce`]; a wakeup of the worker
    /// (the wake poll's completion) also ends it.
    pub(crate) fn wait_for_completion(&mut self, metrics: &UringMetrics) {
        self.arm_wake_poll(metrics);
        UringMetrics::add(&metrics.enters, 1);
        let result = match self.injected_failure() {
            Some(e) => Err(e),
            None => self.uring.submitter().submit_and_wait(1),
        };
        match result {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY)) => {}
            // Nothing was submitted: back off, the caller loops.
            Err(e) if is_transient(&e) => std::thread::sleep(ENOMEM_BACKOFF),
            Err(e) => panic!("tokiwa: io_uring wait failed: {e}"),
        }
    }

    pub(crate) fn is_cq_empty(&mut self) -> bool {
        self.backlog.is_empty() && self.uring.completion().is_empty()
    }
}

/// The blocking step, for the wake protocol.
pub(crate) struct Wait<'a> {
    pub(crate) ring: &'a mut Ring,
    pub(crate) metrics: &'a UringMetrics,
}

impl WakeRing for Wait<'_> {
    fn wait(&mut self, timeout: Option<Duration>) {
        let ring = &mut *self.ring;
        ring.arm_wake_poll(self.metrics);
        if !ring.backlog.is_empty() {
            // Completions are waiting already: just submit.
            let _ = ring.submit(self.metrics);
            return;
        }
        UringMetrics::add(&self.metrics.enters, 1);
        let result = match (ring.injected_failure(), timeout) {
            (Some(e), _) => Err(e),
            (None, None) => ring.uring.submitter().submit_and_wait(1),
            (None, Some(timeout)) => {
                // The wait's deadline is the worker's next timer: end it on
                // time, not up to the default 50 us of timer slack later.
                let _slack = crate::runtime::park::condvar::PreciseTimerSlack::new();
                let ts = types::Timespec::from(timeout);
                let args = types::SubmitArgs::new().timespec(&ts);
                ring.uring.submitter().submit_with_args(1, &args)
            }
        };
        match result {
            Ok(_) => {}
            // Timed out, interrupted by a signal, or the kernel wants the
            // CQ emptied first: all end the wait like a wakeup; the caller
            // drains and re-checks its queues.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                ) => {}
            // The kernel could not take the queued entries (nothing was
            // submitted, the wake poll's may be among them): not a sleep
            // that could miss a wakeup, but a short back-off, after which
            // the caller re-checks its queues and parks again.
            Err(e) if is_transient(&e) => {
                let backoff = timeout.map_or(ENOMEM_BACKOFF, |t| t.min(ENOMEM_BACKOFF));
                std::thread::sleep(backoff);
            }
            Err(e) => panic!("tokiwa: io_uring wait failed: {e}"),
        }
    }
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}
