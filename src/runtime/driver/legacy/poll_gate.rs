//! Who reaps a worker's epoll: the worker itself while it is awake, its
//! poll thread while it is parked.
//!
//! Why a gate at all: a thread blocked in `epoll_wait` is woken by the
//! kernel for every new event (`sock_def_readable` → `ep_poll_callback` →
//! wakeup). If the poll thread sat in `epoll_wait` while its worker is
//! busy, every packet would cost a context switch on a thread whose work
//! the worker is about to do anyway; under 256 echo connections a profile
//! showed a quarter of all cycles in those wakeups. So the poll thread
//! waits on the epoll only while its worker is parked, and sleeps on this
//! gate's condition variable otherwise; the busy worker reaps its epoll
//! itself without blocking (before parking, and every `event_interval`
//! ticks).
//!
//! **Handshake.** The worker calls [`PollGate::worker_parking`] *before*
//! its last non-blocking reap, then blocks on its own parker; the poll
//! thread waits in [`PollGate::wait_for_parked_worker`] and only then
//! enters `epoll_wait`. Events that arrived in between stay in the epoll's
//! ready list, so `epoll_wait` returns them at once: either the worker's
//! last reap took an event or the poll thread, released by the worker's
//! announcement, does. `src/loom_tests/driver.rs` checks this with the
//! condvar parker as the worker's primitive.
//!
//! **A stuck worker.** If the worker stays awake without reaping (a task
//! that polls for a long time), the poll thread's wait times out and, if
//! the worker's reap count has not moved since, it reaps for it.
use crate::loom::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use crate::loom::sync::{Condvar, Mutex};
use std::time::Duration;

#[derive(Debug)]
pub(crate) struct PollGate {
    state: Mutex<State>,
    /// Signalled when the worker parks, and at shutdown.
    condvar: Condvar,
    /// Reaps the worker made. `Relaxed`: a progress heuristic for the
    /// stuck-worker check, ordered by nothing else.
    reaps: AtomicU64,
    /// `state.worker_parked`, readable without the lock. `Relaxed`: a hint
    /// (see `is_worker_parked`).
    parked_hint: AtomicBool,
}

#[derive(Debug)]
struct State {
    worker_parked: bool,
    poll_thread_waiting: bool,
    stopping: bool,
}

/// What [`PollGate::wait_for_parked_worker`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The worker is parked: wait on the epoll until events arrive.
    WaitForEvents,
    /// The worker is awake but has not reaped for a while: reap without
    /// blocking on its behalf.
    ReapForStuckWorker,
    /// The runtime is shutting down.
    Stop,
}

impl PollGate {
    /// Starts parked: until a worker drives the reactor, only the poll
    /// thread reaps.
    pub(crate) fn new() -> PollGate {
        PollGate {
            state: Mutex::new(State {
                worker_parked: true,
                poll_thread_waiting: false,
                stopping: false,
            }),
            condvar: Condvar::new(),
            reaps: AtomicU64::new(0),
            parked_hint: AtomicBool::new(true),
        }
    }

    /// The worker is about to park; call before its last reap.
    pub(crate) fn worker_parking(&self) {
        let mut state = self.state.lock().unwrap();
        state.worker_parked = true;
        self.parked_hint.store(true, Relaxed);
        if state.poll_thread_waiting {
            self.condvar.notify_one();
        }
    }

    /// The worker is awake and reaps its own events.
    pub(crate) fn worker_awake(&self) {
        self.state.lock().unwrap().worker_parked = false;
        self.parked_hint.store(false, Relaxed);
    }

    /// The worker reaped its epoll (for the stuck-worker check).
    pub(crate) fn worker_reaped(&self) {
        self.reaps.fetch_add(1, Relaxed);
    }

    /// Shutdown: releases the poll thread.
    pub(crate) fn stop(&self) {
        let mut state = self.state.lock().unwrap();
        state.stopping = true;
        self.condvar.notify_one();
    }

    /// The poll thread: returns once the worker is parked, or when it has
    /// not reaped for `stuck_after` while awake, or at shutdown.
    pub(crate) fn wait_for_parked_worker(&self, stuck_after: Duration) -> Turn {
        let mut state = self.state.lock().unwrap();
        let mut reaps = self.reaps.load(Relaxed);
        loop {
            if state.stopping {
                return Turn::Stop;
            }
            if state.worker_parked {
                return Turn::WaitForEvents;
            }
            state.poll_thread_waiting = true;
            let (guard, timeout) = self.condvar.wait_timeout(state, stuck_after).unwrap();
            state = guard;
            state.poll_thread_waiting = false;
            if timeout.timed_out() && !state.worker_parked && !state.stopping {
                let now = self.reaps.load(Relaxed);
                if now == reaps {
                    return Turn::ReapForStuckWorker;
                }
                reaps = now;
            }
        }
    }

    /// Whether the worker is parked, for other workers deciding whose
    /// reactors to reap. A hint: stale either way, it only makes a spinning
    /// worker reap a reactor it could have left, or leave one its poll
    /// thread serves anyway.
    pub(crate) fn is_worker_parked(&self) -> bool {
        self.parked_hint.load(Relaxed)
    }
}
