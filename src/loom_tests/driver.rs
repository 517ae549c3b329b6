//! Model of the legacy driver's handshake (`runtime/driver/poll_gate.rs`):
//! a worker going to sleep and its poll thread never both leave an event
//! to the other. The kernel's ready list is a mutex-protected count (the
//! kernel serialises it with a lock too); a stranded event shows up as the
//! worker blocking forever, which loom reports as a deadlock.
use super::model;
use crate::loom::sync::Mutex;
use crate::loom::thread;
use crate::runtime::driver::poll_gate::PollGate;
use crate::runtime::park::Parker;
use std::sync::Arc;

struct FakeEpoll {
    ready: Mutex<usize>,
}

impl FakeEpoll {
    fn push(&self) {
        *self.ready.lock().unwrap() += 1;
    }

    /// `epoll_wait` with a zero timeout: takes every ready event.
    fn reap(&self) -> usize {
        std::mem::take(&mut *self.ready.lock().unwrap())
    }
}

#[test]
fn loom_event_reaches_a_worker_going_to_sleep() {
    model(|| {
        let gate = Arc::new(PollGate::new());
        let epoll = Arc::new(FakeEpoll {
            ready: Mutex::new(0),
        });
        let mut parker = Parker::new();
        let unparker = parker.unparker();
        // The worker starts awake, so the poll thread may defer to it.
        gate.worker_awake();

        let poll_thread = {
            let (gate, epoll) = (gate.clone(), epoll.clone());
            thread::spawn(move || {
                // An event arrives; the outer epoll wakes the poll thread.
                epoll.push();
                if gate.poll_thread_may_reap() && epoll.reap() > 0 {
                    // Dispatch: the woken task reaches the worker.
                    unparker.unpark();
                }
                // Otherwise it defers (the 1 ms fallback is left out: the
                // handshake alone must not strand the event).
            })
        };

        // The worker runs out of work and goes to sleep.
        gate.worker_parking();
        if epoll.reap() == 0 {
            parker.park(None);
        }
        gate.worker_awake();
        poll_thread.join().unwrap();
    });
}
