//! Models of the park/notify protocol (`multi_thread/idle.rs`), with the
//! condvar parker as the primitive. A lost wakeup shows up as a deadlock,
//! which loom reports.
use super::{model, TestScheduler};
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::thread;
use crate::runtime::park::{Parker, Unparker};
use crate::runtime::scheduler::inject::Inject;
use crate::runtime::scheduler::multi_thread::idle::Idle;
use std::sync::Arc;

struct World {
    idle: Idle,
    inject: Inject,
    unparkers: Vec<Unparker>,
    done: AtomicBool,
    ran: AtomicUsize,
}

impl World {
    fn new(workers: usize) -> (Arc<World>, Vec<Parker>) {
        let parkers: Vec<Parker> = (0..workers).map(|_| Parker::new()).collect();
        let world = Arc::new(World {
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
            let outcome = self.idle.park_worker(
                index,
                searching,
                || !self.inject.is_empty() || self.done.load(SeqCst),
                || {
                    parker.park(None);
                },
            );
            searching = outcome.searching;
        }
    }
}

/// A thread that makes a task visible and notifies, as `spawn` does.
fn spawn_pusher(world: &Arc<World>, task: crate::task::Notified) -> thread::JoinHandle<()> {
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
