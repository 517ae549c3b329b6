//! Model of the legacy driver's handshake (`runtime/driver/legacy/poll_gate.rs`):
//! an event that arrives while a worker goes to sleep is reaped either by
//! the worker's last non-blocking reap or by its poll thread, woken by the
//! one-shot watch the worker arms before it blocks, or waiting on the
//! worker's epoll itself (then the worker arms nothing). The poll thread runs
//! `PollGate::next_turn`, `PollGate::waited_on_epoll` and
//! `PollGate::delivered`, the worker `PollGate::worker_parking`, as in
//! production.
//!
//! The kernel is a fake [`Watch`] with the semantics the real one relies
//! on (epoll(7), `EPOLLONESHOT`): the worker's epoll is a count of ready
//! events; the poll thread's wait returns `Fired` when the watch is armed
//! and an event is ready, and disarms it; arming while an event is ready
//! fires at once; the poll thread's wait on the epoll itself returns the
//! ready events, or nothing when kicked; events it finds with the worker
//! awake are mail, which the worker's reaps take (their re-check is
//! modelled as finding them still ready). Timeouts are not modelled (a wait with a timeout waits
//! like one without): they only serve the stuck-worker rescue. A stranded
//! event shows up as the worker blocking forever, which loom reports as a
//! deadlock.
use super::model_with_preemptions;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread;
use crate::runtime::driver::legacy::poll_gate::{PollGate, Turn, Watch, Watching, Woken};
use crate::runtime::driver::Parker;
use std::io;
use std::sync::Arc;
use std::time::Duration;

#[derive(Default)]
struct Kernel {
    ready: usize,
    armed: bool,
    stopped: bool,
    kicked: bool,
    /// The reactor's mail (not the kernel's, but kept here for brevity).
    mail: usize,
}

#[derive(Clone)]
struct FakeWatch(Arc<(Mutex<Kernel>, Condvar)>);

impl FakeWatch {
    fn new() -> FakeWatch {
        FakeWatch(Arc::new((Mutex::new(Kernel::default()), Condvar::new())))
    }

    /// A socket becomes ready: an event in the worker's epoll.
    fn push(&self) {
        self.0 .0.lock().unwrap().ready += 1;
        self.0 .1.notify_all();
    }

    /// `epoll_wait` on the worker's epoll with a zero timeout.
    fn reap(&self) -> usize {
        std::mem::take(&mut self.0 .0.lock().unwrap().ready)
    }

    /// `epoll_wait` on the worker's epoll, blocking until an event, the
    /// stop eventfd or a kick: the events taken (none if stopped or
    /// kicked), or `None` when stopped.
    fn wait_for_events(&self) -> Option<usize> {
        let mut kernel = self.0 .0.lock().unwrap();
        loop {
            if kernel.stopped {
                return None;
            }
            if kernel.ready > 0 || kernel.kicked {
                kernel.kicked = false;
                return Some(std::mem::take(&mut kernel.ready));
            }
            kernel = self.0 .1.wait(kernel).unwrap();
        }
    }

    /// The poll thread leaves `n` events as mail.
    fn post(&self, n: usize) {
        self.0 .0.lock().unwrap().mail += n;
    }

    /// Drains the mail (its re-check finds the events still ready).
    fn take_mail(&self) -> usize {
        std::mem::take(&mut self.0 .0.lock().unwrap().mail)
    }

    /// The stop eventfd.
    fn stop(&self) {
        self.0 .0.lock().unwrap().stopped = true;
        self.0 .1.notify_all();
    }
}

impl Watch for FakeWatch {
    fn arm(&self) -> io::Result<()> {
        self.0 .0.lock().unwrap().armed = true;
        self.0 .1.notify_all();
        Ok(())
    }

    fn disarm(&self) -> io::Result<()> {
        self.0 .0.lock().unwrap().armed = false;
        Ok(())
    }

    fn wait(&self, _timeout: Option<Duration>) -> io::Result<Woken> {
        let mut kernel = self.0 .0.lock().unwrap();
        loop {
            if kernel.stopped {
                return Ok(Woken::Stopped);
            }
            if kernel.armed && kernel.ready > 0 {
                kernel.armed = false;
                return Ok(Woken::Fired);
            }
            kernel = self.0 .1.wait(kernel).unwrap();
        }
    }

    fn kick(&self) -> io::Result<()> {
        self.0 .0.lock().unwrap().kicked = true;
        self.0 .1.notify_all();
        Ok(())
    }
}

/// The poll thread, as `legacy/reactor.rs` runs it: each turn the gate
/// gives it, reaps the worker's epoll (or waits on it), counts what it
/// took in `handled`, and delivers (unparking the worker, or re-arming the
/// watch). Events it finds with the worker awake are posted as mail, or
/// served as a sleeper's if the worker parked meanwhile. `expect_sleep`:
/// whether it may wait on the epoll of an awake worker (`Watching::new`).
fn spawn_poll_thread(
    gate: &Arc<PollGate<FakeWatch>>,
    watch: &FakeWatch,
    handled: &Arc<AtomicUsize>,
    unparker: crate::runtime::driver::Unparker,
    expect_sleep: bool,
) -> thread::JoinHandle<()> {
    let (gate, watch, handled) = (gate.clone(), watch.clone(), handled.clone());
    thread::spawn(move || {
        let mut watching = Watching::new(expect_sleep);
        loop {
            match gate.next_turn(Duration::from_secs(3600), &mut watching) {
                Turn::Stop => {
                    gate.direct_wait_done(true);
                    return;
                }
                Turn::ReapForStuck => unreachable!("timeouts are not modelled"),
                Turn::ReapForSleeper => {
                    let n = watch.reap();
                    handled.fetch_add(n, SeqCst);
                    gate.delivered(n, || unparker.unpark());
                }
                Turn::WaitOnEpoll => {
                    let Some(n) = watch.wait_for_events() else {
                        gate.direct_wait_done(true);
                        return;
                    };
                    if gate.waited_on_epoll(n, &mut watching) {
                        handled.fetch_add(n, SeqCst);
                        gate.delivered(n, || unparker.unpark());
                    } else if n > 0 {
                        watch.post(n);
                        if gate.mail_posted() {
                            gate.take_mail();
                            let n = watch.take_mail();
                            handled.fetch_add(n, SeqCst);
                            gate.delivered(n, || unparker.unpark());
                        }
                    }
                    gate.direct_wait_done(false);
                }
            }
        }
    })
}

/// A worker's reap, as `Reactor::reap` makes it: its epoll, and its mail
/// if the gate says some waits.
fn reap_with_mail(gate: &PollGate<FakeWatch>, watch: &FakeWatch) -> usize {
    let mut n = watch.reap();
    if gate.take_mail() {
        n += watch.take_mail();
    }
    n
}

/// The worker's loop: reaps (unless `skip_last_reap`, which never skips
/// waiting mail, as `Reactor::reap_before_park`), then sleeps until
/// `total` events were handled somewhere, as `driver::Handle::park` does.
fn run_worker(
    gate: &PollGate<FakeWatch>,
    watch: &FakeWatch,
    handled: &AtomicUsize,
    parker: &mut Parker,
    total: usize,
    skip_last_reap: bool,
) {
    while handled.load(SeqCst) < total {
        let n = if skip_last_reap && !gate.has_mail() {
            0
        } else {
            reap_with_mail(gate, watch)
        };
        handled.fetch_add(n, SeqCst);
        if n == 0 && handled.load(SeqCst) < total {
            // `false`: mail waits, the next turn reaps it.
            if gate.worker_parking().unwrap() {
                parker.park(None);
            }
            gate.worker_awake();
        }
    }
}

/// What a [`sleep_through`] model adds to its worker and kernel.
#[derive(Clone, Copy, Default)]
struct Scenario {
    /// Events after the first, once the worker woke and slept again.
    events_after_wake: usize,
    /// Another worker reaps the sleeping worker's epoll once, as
    /// `driver::Handle::maintain` reaps sleeping workers' reactors,
    /// possibly between the watch firing and the poll thread's reap; the
    /// tasks it wakes run on that other worker, which wakes nobody.
    other_worker: bool,
    /// The worker skips its last reap before it arms (what its back-off
    /// does, `legacy/reap_backoff.rs`): only the arm's re-check and the
    /// poll thread see the events then.
    skip_last_reap: bool,
    /// Another thread unparks the worker once (a task pushed by a peer or
    /// a timer): the worker wakes with its watch still armed, and its next
    /// park leaves it armed (`PollGate::armed`).
    nudge: bool,
}

/// A worker going to sleep while events arrive: one, then the scenario's
/// others. Last comes a final event, once the other worker is done: only
/// the worker or its poll thread can take it, so the worker ends only if
/// its epoll is still watched or reaped.
///
/// Run twice: with the poll thread waiting on the epoll of an awake
/// worker too, expecting it to sleep before its next event (production's
/// choice), and without (it then waits on the epoll only while the worker
/// is parked, and on the watch otherwise).
///
/// Three preemptions: the stolen-events race (fire, steal, empty reap,
/// then a new event) needs three to show.
fn sleep_through(scenario: Scenario) {
    sleep_through_with(scenario, false);
    sleep_through_with(scenario, true);
}

fn sleep_through_with(scenario: Scenario, expect_sleep: bool) {
    model_with_preemptions(3, move || {
        let Scenario {
            events_after_wake,
            other_worker,
            skip_last_reap,
            nudge,
        } = scenario;
        let watch = FakeWatch::new();
        let gate = Arc::new(PollGate::new(watch.clone()).unwrap());
        let mut parker = Parker::new();
        let unparker = parker.unparker();
        // Events taken by any reap (the tasks they woke ran somewhere).
        let handled = Arc::new(AtomicUsize::new(0));
        let total = 1 + events_after_wake + 1;
        // The worker starts awake (a thread attached it).
        gate.worker_awake();

        let nudger = nudge.then(|| {
            let unparker = unparker.clone();
            thread::spawn(move || unparker.unpark())
        });
        let poll_thread = spawn_poll_thread(&gate, &watch, &handled, unparker, expect_sleep);
        // The worker sleeps until every event was handled: last reap, arm,
        // block, as `driver::Handle::park` does.
        let worker = {
            let (gate, watch, handled) = (gate.clone(), watch.clone(), handled.clone());
            thread::spawn(move || {
                run_worker(&gate, &watch, &handled, &mut parker, total, skip_last_reap);
            })
        };
        let other = other_worker.then(|| {
            let (gate, watch, handled) = (gate.clone(), watch.clone(), handled.clone());
            thread::spawn(move || {
                if gate.is_worker_parked() {
                    handled.fetch_add(reap_with_mail(&gate, &watch), SeqCst);
                }
            })
        });

        // The kernel.
        for _ in 0..1 + events_after_wake {
            watch.push();
        }
        if let Some(other) = other {
            other.join().unwrap();
        }
        if let Some(nudger) = nudger {
            nudger.join().unwrap();
        }
        watch.push();

        worker.join().unwrap();
        watch.stop();
        poll_thread.join().unwrap();
    });
}

#[test]
fn loom_event_reaches_a_worker_going_to_sleep() {
    sleep_through(Scenario::default());
}

#[test]
fn loom_events_reach_a_worker_that_sleeps_again() {
    sleep_through(Scenario {
        events_after_wake: 1,
        ..Scenario::default()
    });
}

#[test]
fn loom_events_reach_a_sleeper_whose_epoll_another_worker_reaped() {
    sleep_through(Scenario {
        events_after_wake: 1,
        other_worker: true,
        ..Scenario::default()
    });
}

/// The back-off of the last reap is safe: a worker that never reaps
/// before it arms still gets every event (the arm re-checks the epoll).
#[test]
fn loom_events_reach_a_worker_that_skips_its_last_reap() {
    sleep_through(Scenario {
        events_after_wake: 1,
        skip_last_reap: true,
        ..Scenario::default()
    });
}

/// A worker woken by another thread parks again with its watch still
/// armed and does not re-arm it, unless the watch fired meanwhile (the
/// poll thread then cleared `armed`, or saw the worker parked and served
/// it). Without its last reap, only the watch stands between an event and
/// a worker that sleeps forever.
#[test]
fn loom_events_reach_a_worker_woken_by_another_thread() {
    sleep_through(Scenario {
        skip_last_reap: true,
        nudge: true,
        ..Scenario::default()
    });
}

/// A current-thread runtime outside `block_on`: nobody drives the worker,
/// so its watch is disarmed (`PollGate::worker_detached`) and an event
/// that arrives then waits in its epoll. The next thread to drive it
/// attaches, reaps, arms and sleeps; the event reaches it whether it came
/// before the attach, between the reap and the arm, or during the sleep.
#[test]
fn loom_event_while_detached_reaches_the_next_driver() {
    for expect_sleep in [false, true] {
        detached_then_driven(false, expect_sleep);
    }
}

/// The same after a first thread drove the worker and let go of it: the
/// poll thread may then be waiting on the worker's epoll itself, which the
/// detach kicks it out of (`PollGate::worker_detached`).
#[test]
fn loom_event_after_a_detach_reaches_the_next_driver() {
    detached_then_driven(true, true);
}

fn detached_then_driven(driven_before: bool, expect_sleep: bool) {
    model_with_preemptions(3, move || {
        let watch = FakeWatch::new();
        let gate = Arc::new(PollGate::new(watch.clone()).unwrap());
        if !driven_before {
            gate.worker_detached().unwrap();
        }
        let mut parker = Parker::new();
        let unparker = parker.unparker();
        let handled = Arc::new(AtomicUsize::new(0));

        if driven_before {
            gate.worker_awake();
        }
        let poll_thread = spawn_poll_thread(&gate, &watch, &handled, unparker, expect_sleep);
        if driven_before {
            gate.worker_detached().unwrap();
        }
        let driver = {
            let (gate, watch, handled) = (gate.clone(), watch.clone(), handled.clone());
            thread::spawn(move || {
                gate.worker_awake();
                run_worker(&gate, &watch, &handled, &mut parker, 1, false);
            })
        };
        watch.push();
        driver.join().unwrap();
        watch.stop();
        poll_thread.join().unwrap();
    });
}

/// A worker registers a socket, whose first event comes at once, then
/// reaps while it goes on running tasks (a yield), while its poll thread
/// waits on its epoll expecting it to sleep: whichever thread takes the
/// event from the epoll, the worker's reap sees it, through the
/// hand-over (`PollGate::hand_over`, as `Reactor::reap_running` makes
/// it). Without the hand-over the poll thread may hold the event, not yet
/// posted, while the reap looks.
#[test]
fn loom_an_event_before_a_running_reap_is_seen_by_it() {
    model_with_preemptions(3, || {
        let watch = FakeWatch::new();
        let gate = Arc::new(PollGate::new(watch.clone()).unwrap());
        let parker = Parker::new();
        let handled = Arc::new(AtomicUsize::new(0));
        gate.worker_awake();
        let poll_thread = spawn_poll_thread(&gate, &watch, &handled, parker.unparker(), true);
        // The registration: ready at once.
        watch.push();
        let before = gate.handed();
        let mut seen = reap_with_mail(&gate, &watch);
        if gate.hand_over(before).unwrap() && gate.take_mail() {
            seen += watch.take_mail();
        }
        assert_eq!(seen, 1, "an event ready before the reap was not seen by it");
        watch.stop();
        poll_thread.join().unwrap();
    });
}
