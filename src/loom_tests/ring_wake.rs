//! Models of the io_uring driver's wake handshake
//! (`runtime/park/ring_wake.rs`) under the scheduler's idle protocol
//! (`multi_thread/idle.rs`). The real `WakeState`, `WakePoll` and `Idle`
//! run against a condvar fake of the ring and its eventfd, which keeps the
//! kernel's semantics that the protocol depends on:
//!
//! * the eventfd is a counter that nobody reads: a write adds one;
//! * the multishot `PollAdd` posts a wake CQE (with `F_MORE`) for a write
//!   only while it is armed; a write that lands while the poll's previous
//!   CQE is still unreaped merges into it; a write while it is not armed
//!   posts nothing. (The kernel only merges wakeups that come before it
//!   posts the CQE; merging until the reap gives the waiter fewer CQEs,
//!   the harsher case. The models pass with one CQE per write too.)
//! * arming the poll on a non-zero counter posts a CQE at once (a poll
//!   checks readiness when it is armed);
//! * the kernel may end the multishot at any time (a separate thread, so
//!   loom tries every moment): its final CQE has no `F_MORE` and the poll
//!   is disarmed until the worker re-arms it;
//! * `wait` submits the queued arm, then blocks until the CQ is non-empty
//!   (at once if it already is).
//!
//! The worker loop mirrors the real one: look for work, announce and
//! re-check through `Idle::park_worker`, `WakeState::park` with `wait` as
//! above (which re-arms first, as `Wait::wait` does), then drain the CQ
//! through `WakePoll::on_cqe` and re-arm at the end of the drain, as
//! `Ring::drain` does. A lost wakeup shows up as the worker blocking
//! forever, which loom reports as a deadlock.
//!
//! Mutation check (each applied by hand and reverted, never committed;
//! `LOOM_MAX_PREEMPTIONS=2`; the unmutated models take 38 to 3,400
//! iterations, well under a second together in release):
//!
//! * `WakeState::park` leaving the state `EMPTY` instead of `PARKED`
//!   before it waits: all four models deadlock, the notifier's swap seeing
//!   `EMPTY` and skipping the eventfd write.
//! * `WakePoll::on_cqe` ignoring a missing `F_MORE` (so `take_rearm` never
//!   re-arms a terminated poll): `loom_ring_wake_multishot_ends_while_worker_parks`
//!   deadlocks, the worker sleeping on a poll the kernel ended; the others
//!   pass, as they never end the multishot.
//! * `wait` not arming (only the drain does): every model deadlocks, since
//!   the first arm of a fresh `WakePoll` happens there, as in
//!   `Wait::wait`. The drain not re-arming (only `wait` does): all pass;
//!   the arm in `wait` alone keeps a worker from sleeping deaf.
//! * The fake's arm ignoring a counter already non-zero: every model
//!   deadlocks (the notifier writes between the worker's `EMPTY → PARKED`
//!   and its first arm), which is why the protocol relies on the poll's
//!   readiness check at arm time and never reads the eventfd.
//! * `WakeState::unpark` also writing when it finds `NOTIFIED`:
//!   `loom_ring_wake_notifications_coalesce` fails ("1 eventfd writes for
//!   0 sleeps").
use super::{model, TestScheduler};
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread;
use crate::runtime::park::ring_wake::{Notify, WakePoll, WakeRing, WakeSignal, WakeState};
use crate::runtime::scheduler::inject::Inject;
use crate::runtime::scheduler::multi_thread::idle::Idle;
use std::sync::Arc;
use std::time::Duration;

/// A wake poll completion: the poll mask or `-errno`, and `F_MORE`.
#[derive(Clone, Copy)]
struct Cqe {
    res: i32,
    more: bool,
}

/// What the kernel holds for one worker: its eventfd, the multishot poll
/// on it and the ring's CQ (only wake CQEs matter here).
struct FakeKernel {
    state: Mutex<KernelState>,
    condvar: Condvar,
}

#[derive(Default)]
struct KernelState {
    /// The eventfd's counter, never read.
    counter: usize,
    /// Whether the multishot poll is active in the kernel.
    armed: bool,
    cq: Vec<Cqe>,
    /// Eventfd writes, for the coalescing model.
    writes: usize,
}

impl KernelState {
    /// The poll fires: a CQE, merged into one with `F_MORE` that is still
    /// unreaped.
    fn fire(&mut self) {
        if !self.cq.iter().any(|cqe| cqe.more) {
            self.cq.push(Cqe {
                res: libc::POLLIN as i32,
                more: true,
            });
        }
    }
}

impl FakeKernel {
    fn new() -> FakeKernel {
        FakeKernel {
            state: Mutex::new(KernelState::default()),
            condvar: Condvar::new(),
        }
    }

    /// The kernel ends the multishot, if it is active: a final CQE
    /// without `F_MORE`.
    fn terminate(&self) {
        let mut state = self.state.lock().unwrap();
        if state.armed {
            state.armed = false;
            state.cq.push(Cqe {
                res: -libc::ECANCELED,
                more: false,
            });
            self.condvar.notify_all();
        }
    }

    fn writes(&self) -> usize {
        self.state.lock().unwrap().writes
    }
}

/// `write(eventfd, 1)`.
impl WakeSignal for FakeKernel {
    fn signal(&self) {
        let mut state = self.state.lock().unwrap();
        state.counter += 1;
        state.writes += 1;
        if state.armed {
            state.fire();
            self.condvar.notify_all();
        }
    }
}

/// The worker-owned side: its ring's view of the wake poll and its SQ.
struct FakeRing {
    kernel: Arc<FakeKernel>,
    poll: WakePoll,
    /// A `PollAdd` pushed but not yet submitted.
    queued_arm: bool,
    /// How many times the worker blocked (each after `EMPTY → PARKED`).
    sleeps: usize,
}

impl FakeRing {
    fn new(index: usize, kernel: Arc<FakeKernel>) -> FakeRing {
        FakeRing {
            kernel,
            poll: WakePoll::new(index),
            queued_arm: false,
            sleeps: 0,
        }
    }

    /// `Ring::arm_wake_poll`: pushes the `PollAdd` if the poll is not armed.
    fn arm_wake_poll(&mut self) {
        if self.poll.take_rearm() {
            self.queued_arm = true;
        }
    }

    /// `Ring::drain`: every CQE goes through `on_cqe`, then the re-arm.
    fn drain(&mut self) {
        let cqes = std::mem::take(&mut self.kernel.state.lock().unwrap().cq);
        for cqe in cqes {
            self.poll.on_cqe(cqe.res, cqe.more);
        }
        self.arm_wake_poll();
    }
}

/// `Wait::wait`: arm, submit, block until a completion is in the CQ.
impl WakeRing for FakeRing {
    fn wait(&mut self, timeout: Option<Duration>) {
        assert_eq!(timeout, None, "the models sleep without a timer");
        self.arm_wake_poll();
        self.sleeps += 1;
        let mut state = self.kernel.state.lock().unwrap();
        if std::mem::take(&mut self.queued_arm) {
            state.armed = true;
            if state.counter > 0 {
                state.fire();
            }
        }
        while state.cq.is_empty() {
            state = self.kernel.condvar.wait(state).unwrap();
        }
    }
}

struct World {
    idle: Idle,
    inject: Inject,
    wake: Vec<WakeState>,
    kernels: Vec<Arc<FakeKernel>>,
    done: AtomicBool,
    ran: AtomicUsize,
}

impl World {
    fn new(workers: usize) -> (Arc<World>, Vec<FakeRing>) {
        let kernels: Vec<Arc<FakeKernel>> =
            (0..workers).map(|_| Arc::new(FakeKernel::new())).collect();
        let rings = kernels
            .iter()
            .enumerate()
            .map(|(i, kernel)| FakeRing::new(i, kernel.clone()))
            .collect();
        let world = Arc::new(World {
            idle: Idle::new(workers),
            inject: Inject::new(0),
            wake: (0..workers).map(|_| WakeState::new()).collect(),
            kernels,
            done: AtomicBool::new(false),
            ran: AtomicUsize::new(0),
        });
        (world, rings)
    }

    /// `Waker::unpark` of worker `i`.
    fn unpark(&self, i: usize) -> Notify {
        self.wake[i].unpark(&*self.kernels[i])
    }

    /// As `Shared::notify_parked`.
    fn notify_one(&self) {
        if let Some(i) = self.idle.worker_to_notify() {
            self.unpark(i);
        }
    }

    /// Stop: wake every worker, as `Shared::notify_all`.
    fn notify_all(&self) {
        self.idle.take_all_parked();
        for i in 0..self.wake.len() {
            self.unpark(i);
        }
    }

    /// A worker's loop reduced to the protocol: look for work, search,
    /// park in the ring, reap. The worker that runs the task stops
    /// everybody.
    fn worker(&self, index: usize, ring: &mut FakeRing) {
        let mut searching = false;
        loop {
            if self.done.load(SeqCst) {
                return;
            }
            if !searching {
                searching = self.idle.transition_to_searching();
            }
            if let Some(task) = self.inject.pop(None, 0) {
                if searching && self.idle.transition_from_searching() {
                    self.notify_one();
                }
                drop(task);
                self.ran.fetch_add(1, SeqCst);
                self.done.store(true, SeqCst);
                self.notify_all();
                return;
            }
            let outcome = self.idle.park_worker(
                index,
                searching,
                || !self.inject.is_empty() || self.done.load(SeqCst),
                || {
                    self.wake[index].park(ring, None);
                },
            );
            searching = outcome.searching;
            // `Driver::maintain` after the park: reap and re-arm.
            ring.drain();
        }
    }
}

/// A thread that makes a task visible and notifies, as `spawn` does.
fn spawn_pusher(
    world: &Arc<World>,
    task: crate::runtime::task::Notified,
) -> thread::JoinHandle<()> {
    let world = world.clone();
    thread::spawn(move || {
        world.inject.push(task, None);
        world.notify_one();
    })
}

#[test]
fn loom_ring_wake_push_while_only_worker_parks() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut rings) = World::new(1);
        let pusher = spawn_pusher(&world, sched.notified());
        world.worker(0, &mut rings[0]);
        pusher.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 1);
        sched.shutdown();
    });
}

#[test]
fn loom_ring_wake_multishot_ends_while_worker_parks() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut rings) = World::new(1);
        let kernel = world.kernels[0].clone();
        let terminator = thread::spawn(move || kernel.terminate());
        let pusher = spawn_pusher(&world, sched.notified());
        world.worker(0, &mut rings[0]);
        pusher.join().unwrap();
        terminator.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 1);
        sched.shutdown();
    });
}

#[test]
fn loom_ring_wake_stop_wakes_every_worker() {
    model(|| {
        let (world, mut rings) = World::new(2);
        let mut second = rings.pop().unwrap();
        let w1 = world.clone();
        let worker1 = thread::spawn(move || w1.worker(1, &mut second));
        let w2 = world.clone();
        let stopper = thread::spawn(move || {
            w2.done.store(true, SeqCst);
            w2.notify_all();
        });
        world.worker(0, &mut rings[0]);
        stopper.join().unwrap();
        worker1.join().unwrap();
    });
}

#[test]
fn loom_ring_wake_notifications_coalesce() {
    // Two threads hand the worker a request each and wake it directly, as
    // the driver's `Handle::send` does (no `Idle` in between).
    model(|| {
        let kernel = Arc::new(FakeKernel::new());
        let wake = Arc::new(WakeState::new());
        let requests = Arc::new(AtomicUsize::new(0));
        let signalled = Arc::new(AtomicUsize::new(0));
        let notifier = {
            let (wake, kernel) = (wake.clone(), kernel.clone());
            let (requests, signalled) = (requests.clone(), signalled.clone());
            move || {
                requests.fetch_add(1, SeqCst);
                if wake.unpark(&*kernel) == Notify::Signalled {
                    signalled.fetch_add(1, SeqCst);
                }
            }
        };
        let other = thread::spawn(notifier.clone());

        let mut ring = FakeRing::new(0, kernel.clone());
        let worker = thread::spawn(move || {
            while requests.load(SeqCst) < 2 {
                wake.park(&mut ring, None);
                ring.drain();
            }
            ring.sleeps
        });
        notifier();

        other.join().unwrap();
        let sleeps = worker.join().unwrap();
        let writes = kernel.writes();
        assert_eq!(writes, signalled.load(SeqCst));
        assert!(
            writes <= sleeps,
            "{writes} eventfd writes for {sleeps} sleeps"
        );
    });
}
