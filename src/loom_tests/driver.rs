//! Model of the legacy driver's handshake (`runtime/driver/legacy/poll_gate.rs`):
//! an event that arrives while a worker goes to sleep is reaped either by
//! the worker's last non-blocking reap or by its poll thread, which the
//! worker's announcement releases into `epoll_wait`. The kernel's ready
//! list is a mutex-protected count with a condvar for blocking waits (the
//! kernel serialises it with a lock too); a stranded event shows up as the
//! worker blocking forever, which loom reports as a deadlock.
use super::model;
use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread;
use crate::runtime::driver::legacy::poll_gate::{PollGate, Turn};
use crate::runtime::driver::Parker;
use std::sync::Arc;
use std::time::Duration;

struct FakeEpoll {
    state: Mutex<(usize, bool)>,
    condvar: Condvar,
}

impl FakeEpoll {
    fn new() -> FakeEpoll {
        FakeEpoll {
            state: Mutex::new((0, false)),
            condvar: Condvar::new(),
        }
    }

    /// The kernel queues an event and wakes blocked waiters.
    fn push(&self) {
        self.state.lock().unwrap().0 += 1;
        self.condvar.notify_all();
    }

    /// `epoll_wait` with a zero timeout: takes every ready event.
    fn reap(&self) -> usize {
        std::mem::take(&mut self.state.lock().unwrap().0)
    }

    /// `epoll_wait` with no timeout; the stop flag stands for the stop
    /// eventfd.
    fn wait(&self) -> usize {
        let mut state = self.state.lock().unwrap();
        while state.0 == 0 && !state.1 {
            state = self.condvar.wait(state).unwrap();
        }
        std::mem::take(&mut state.0)
    }

    fn stop(&self) {
        self.state.lock().unwrap().1 = true;
        self.condvar.notify_all();
    }
}

#[test]
fn loom_event_reaches_a_worker_going_to_sleep() {
    model(|| {
        let gate = Arc::new(PollGate::new());
        let epoll = Arc::new(FakeEpoll::new());
        let mut parker = Parker::new();
        let unparker = parker.unparker();
        // The worker starts awake, so the poll thread sleeps on the gate.
        gate.worker_awake();

        let poll_thread = {
            let (gate, epoll) = (gate.clone(), epoll.clone());
            thread::spawn(move || loop {
                let events = match gate.wait_for_parked_worker(Duration::from_secs(3600)) {
                    Turn::Stop => return,
                    Turn::WaitForEvents => epoll.wait(),
                    Turn::ReapForStuckWorker => epoll.reap(),
                };
                if events > 0 {
                    // Dispatch: the woken task reaches the worker.
                    unparker.unpark();
                }
            })
        };
        let kernel = {
            let epoll = epoll.clone();
            thread::spawn(move || epoll.push())
        };

        // The worker runs out of work and goes to sleep.
        gate.worker_parking();
        if epoll.reap() == 0 {
            parker.park(None);
        }
        gate.worker_awake();

        kernel.join().unwrap();
        gate.stop();
        epoll.stop();
        poll_thread.join().unwrap();
    });
}
