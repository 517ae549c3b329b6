//! Models of the park/notify protocol (`multi_thread/idle.rs`), with the
//! condvar parker as the primitive. The workers park through the driver's
//! own park sequence (`runtime/driver/park.rs`, a legacy-mode driver
//! without I/O or timers), the function the real workers call. A lost
//! wakeup shows up as a deadlock, which loom reports.
use super::{model, TestScheduler};
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::thread;
use crate::runtime::driver::{self, ParkSite, Parker, Unparker};
use crate::runtime::scheduler::inject::Inject;
use crate::runtime::scheduler::multi_thread::idle::Idle;
use std::sync::Arc;

struct World {
    driver: driver::Handle,
    idle: Idle,
    inject: Inject,
    unparkers: Vec<Unparker>,
    done: AtomicBool,
    ran: AtomicUsize,
}

impl World {
    fn new(workers: usize) -> (Arc<World>, Vec<Parker>) {
        let config = driver::Config {
            enable_io: false,
            enable_time: false,
            start_paused: false,
            driver: Some(driver::Driver::Legacy),
            uring_plain: false,
            uring_completion_io: false,
            io_events_per_tick: driver::IO_EVENTS_PER_TICK,
            io_events_per_busy_tick: driver::IO_EVENTS_PER_TICK,
            #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
            alt_timer: false,
        };
        let (driver, parkers) = driver::Handle::new(&config, workers, "loom").unwrap();
        let world = Arc::new(World {
            driver,
            idle: Idle::new(workers),
            inject: Inject::new(0),
            unparkers: parkers.iter().map(Parker::unparker).collect(),
            done: AtomicBool::new(false),
            ran: AtomicUsize::new(0),
        });
        (world, parkers)
    }

    /// The notifier's side, as `Shared::notify_parked`.
    fn notify_one(&self) {
        if let Some(i) = self.idle.worker_to_notify() {
            self.unparkers[i].unpark();
        }
    }

    /// Parks worker `index` through the driver's park sequence, with the
    /// idle protocol as the sleep step (as `multi_thread/worker/park.rs`).
    fn park(
        &self,
        index: usize,
        parker: &mut Parker,
        searching: &mut bool,
        has_work: impl Fn() -> bool,
    ) {
        let mut site = ModelPark {
            world: self,
            index,
            searching,
            has_work,
        };
        self.driver.park(index, parker, &mut site);
    }

    /// Stop: wake every parked worker, as `Shared::notify_all`.
    fn notify_all(&self) {
        self.idle.take_all_parked();
        for u in &self.unparkers {
            u.unpark();
        }
    }

    /// A worker's loop reduced to the protocol: look for work, search,
    /// park. The worker that runs the task stops everybody.
    fn worker(&self, index: usize, mut parker: Parker) {
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
            self.park(index, &mut parker, &mut searching, || {
                !self.inject.is_empty() || self.done.load(SeqCst)
            });
        }
    }
}

/// What a model worker lends the driver's park: no core and no local
/// queue (its tasks come from the injection queue), and the idle protocol.
struct ModelPark<'a, F> {
    world: &'a World,
    index: usize,
    searching: &'a mut bool,
    has_work: F,
}

impl<F: Fn() -> bool> ParkSite for ModelPark<'_, F> {
    fn with_core(&mut self, f: impl FnOnce()) {
        f();
    }

    fn has_local_work(&mut self) -> bool {
        false
    }

    fn sleep(&mut self, block: impl FnOnce()) {
        let outcome =
            self.world
                .idle
                .park_worker(self.index, *self.searching, &self.has_work, block);
        *self.searching = outcome.searching;
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
fn loom_park_push_while_only_worker_parks() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut parkers) = World::new(1);
        let task = sched.notified();
        let pusher = spawn_pusher(&world, task);
        world.worker(0, parkers.pop().unwrap());
        pusher.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 1);
        sched.shutdown();
    });
}

#[test]
fn loom_park_two_workers_and_stop() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut parkers) = World::new(2);
        let task = sched.notified();
        let second = parkers.pop().unwrap();
        let w1 = world.clone();
        let worker1 = thread::spawn(move || w1.worker(1, second));
        let pusher = spawn_pusher(&world, task);
        world.worker(0, parkers.pop().unwrap());
        pusher.join().unwrap();
        worker1.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 1);
        sched.shutdown();
    });
}

impl World {
    /// A worker that runs one task and then blocks for good (a task stuck
    /// at a barrier), as in `task_abort`'s barrier test: before it blocks,
    /// it hands the search on exactly as `run_task` does. The other
    /// worker must still be woken for the second task.
    ///
    /// The order is the worker loop's: first the queues it may take from
    /// without searching (`next_task`: the injection queue here), then a
    /// search (`steal_work`), then the park.
    fn worker_blocks_after_one_task(&self, index: usize, mut parker: Parker) {
        let mut searching = false;
        loop {
            let mut task = self.inject.pop(None, 0);
            if task.is_none() {
                if !searching {
                    searching = self.idle.transition_to_searching();
                }
                if searching {
                    task = self.inject.pop(None, 0);
                }
            }
            if let Some(task) = task {
                if searching && self.idle.transition_from_searching() {
                    self.notify_one();
                }
                drop(task);
                self.ran.fetch_add(1, SeqCst);
                return;
            }
            self.park(index, &mut parker, &mut searching, || {
                !self.inject.is_empty()
            });
        }
    }
}

/// Two tasks pushed (and notified) one after the other while two workers
/// go idle; each worker blocks in the first task it runs. Found by a
/// hang: a searcher whose re-check found the first task came back as a
/// non-searcher, ran it without handing the search on, and the pushes that
/// had skipped waking anyone (it still counted as searching) left the
/// second task to nobody. With the hand-off removed from `park_worker`
/// (the `found && searching` branch), loom reports the deadlock.
#[test]
fn loom_park_a_worker_that_blocks_hands_the_search_on() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut parkers) = World::new(2);
        let (first, second) = (sched.notified(), sched.notified());
        let second_parker = parkers.pop().unwrap();
        let w1 = world.clone();
        let worker1 = thread::spawn(move || w1.worker_blocks_after_one_task(1, second_parker));
        let pusher = {
            let world = world.clone();
            thread::spawn(move || {
                world.inject.push(first, None);
                world.notify_one();
                world.inject.push(second, None);
                world.notify_one();
            })
        };
        world.worker_blocks_after_one_task(0, parkers.pop().unwrap());
        pusher.join().unwrap();
        worker1.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 2);
        sched.shutdown();
    });
}

/// A worker spinning before it parks (it counts as searching) stops to run
/// readiness it reaped into its own queue, and then blocks in that work,
/// while a push notifies: the push's notifier may have seen the spinner
/// searching and woken nobody, so the spinner must hand the search on
/// (`Idle::stop_searching_for_own_work`) or the parked worker never runs
/// the pushed task. With the re-check removed from that function (only
/// the decrement left, as the spin did before), loom reports the deadlock.
#[test]
fn loom_park_a_spinner_that_returns_to_its_own_work_hands_the_search_on() {
    model(|| {
        let sched = TestScheduler::new();
        let (world, mut parkers) = World::new(2);
        let task = sched.notified();
        // Worker 0 is spinning: searching, past the cap.
        world.idle.transition_to_searching_uncapped();
        let second_parker = parkers.pop().unwrap();
        let w1 = world.clone();
        let worker1 = thread::spawn(move || w1.worker_blocks_after_one_task(1, second_parker));
        let pusher = spawn_pusher(&world, task);
        // Worker 0 found its own readiness and goes to run it for good.
        if world
            .idle
            .stop_searching_for_own_work(|| !world.inject.is_empty())
        {
            world.notify_one();
        }
        pusher.join().unwrap();
        worker1.join().unwrap();
        assert_eq!(world.ran.load(SeqCst), 1);
        sched.shutdown();
    });
}
