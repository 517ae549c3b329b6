//! Which worker's reactor polls a resource.
//!
//! A resource registered on a worker goes to that worker's reactor: the
//! worker reaps its own epoll while awake, so the readiness of its
//! sockets wakes their tasks into its own queue with no thread hop.
//!
//! **A resource made off the workers is placed by its first waiter.** A
//! server's accept loop usually runs in `block_on`, on the main thread,
//! and spawns a task per connection, which some worker then runs. Placed
//! at accept time on a reactor chosen round-robin, half the connections
//! were polled by the other worker: their readiness woke the task there,
//! so it crossed workers. Instead such a resource starts *unplaced*, with
//! no epoll registration; the first task that waits on it adds it to its
//! own worker's epoll. epoll reports readiness that already exists when a
//! descriptor is added (level-triggered check on `EPOLL_CTL_ADD`, then
//! edges), so data that arrived before is not lost. A resource first
//! waited on outside any worker is placed by its descriptor's number.
use super::Reactor;
use crate::io::Interest;
use crate::runtime::driver::scheduled_io::{shutdown_error, ScheduledIo};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Where a resource is registered in legacy mode.
#[derive(Debug)]
pub(crate) struct Placement {
    reactors: Arc<[Arc<Reactor>]>,
    fd: RawFd,
    interest: Interest,
    /// Whether `state` left `Unplaced`, for the wait's fast check.
    /// `Relaxed`: a hint (`state` under its lock is the truth); a stale
    /// `false` only takes the lock.
    placed: AtomicBool,
    state: Mutex<State>,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Unplaced,
    Placed {
        reactor: usize,
        token: u64,
    },
    /// Deregistered before anything placed it.
    Gone,
}

impl Placement {
    /// Registers `fd` with reactor `index` now.
    pub(crate) fn register(
        reactors: Arc<[Arc<Reactor>]>,
        index: usize,
        fd: RawFd,
        interest: Interest,
    ) -> io::Result<(Placement, Arc<ScheduledIo>)> {
        let io = Arc::new(ScheduledIo::new());
        let token = reactors[index].register(fd, interest, io.clone())?;
        let placement = Placement {
            reactors,
            fd,
            interest,
            placed: AtomicBool::new(true),
            state: Mutex::new(State::Placed {
                reactor: index,
                token,
            }),
        };
        Ok((placement, io))
    }

    /// A resource made off the workers: registered by its first wait (see
    /// the module doc).
    ///
    /// # Errors
    ///
    /// The runtime's shutdown error once the reactors are shut down.
    pub(crate) fn unplaced(
        reactors: Arc<[Arc<Reactor>]>,
        fd: RawFd,
        interest: Interest,
    ) -> io::Result<(Placement, Arc<ScheduledIo>)> {
        if reactors[0].is_shutdown() {
            return Err(shutdown_error());
        }
        let placement = Placement {
            reactors,
            fd,
            interest,
            placed: AtomicBool::new(false),
            state: Mutex::new(State::Unplaced),
        };
        Ok((placement, Arc::new(ScheduledIo::new())))
    }

    /// A task is about to wait on the resource: places an unplaced one on
    /// this worker's reactor.
    ///
    /// # Errors
    ///
    /// When epoll refuses the descriptor: the waiter must not sleep.
    pub(crate) fn on_wait(&self, io: &Arc<ScheduledIo>) -> io::Result<()> {
        if self.placed.load(Relaxed) {
            return Ok(());
        }
        let mut state = self.state.lock().unwrap();
        if !matches!(*state, State::Unplaced) {
            return Ok(());
        }
        let n = self.reactors.len();
        let index = crate::runtime::worker_index()
            .filter(|&worker| worker < n)
            .unwrap_or(self.fd as usize % n);
        let token = self.reactors[index].register(self.fd, self.interest, io.clone())?;
        *state = State::Placed {
            reactor: index,
            token,
        };
        self.placed.store(true, Relaxed);
        Ok(())
    }

    /// Removes the descriptor from its epoll set, if it is in one; call
    /// before closing it.
    pub(crate) fn deregister(&self) -> io::Result<()> {
        let mut state = self.state.lock().unwrap();
        match *state {
            State::Placed { reactor, .. } => self.reactors[reactor].deregister(self.fd),
            State::Unplaced => {
                *state = State::Gone;
                Ok(())
            }
            State::Gone => Ok(()),
        }
    }
}

impl Drop for Placement {
    fn drop(&mut self) {
        let state = *self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if let State::Placed { reactor, token } = state {
            self.reactors[reactor].release(token);
        }
    }
}
