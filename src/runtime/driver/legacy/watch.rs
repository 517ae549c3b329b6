//! The poll thread's epoll ([`EpollWatch`]): the worker's epoll, watched
//! one-shot, and the stop eventfd (see `poll_gate.rs` for the protocol);
//! and the kick eventfd, which ends the poll thread's wait on the worker's
//! epoll itself (registered there by `reactor.rs`).
use super::poll_gate::{Watch, Woken};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

const WORKER_EPOLL: u64 = 0;
const STOP: u64 = 1;

#[derive(Debug)]
pub(crate) struct EpollWatch {
    epfd: OwnedFd,
    /// The worker's epoll, owned by the reactor, which outlives this.
    watched: RawFd,
    /// In the worker's epoll, level-triggered: written by a kick, drained
    /// by the poll thread ([`EpollWatch::drain_kick`]).
    kick: OwnedFd,
}

impl EpollWatch {
    /// Watches `worker_epoll` (disarmed until [`Watch::arm`]) and `stop`
    /// (level-triggered: once written, every wait returns `Stopped`).
    pub(crate) fn new(
        worker_epoll: &OwnedFd,
        stop: &OwnedFd,
        kick: OwnedFd,
    ) -> io::Result<EpollWatch> {
        let epfd = super::reactor::epoll_create()?;
        let watched = worker_epoll.as_raw_fd();
        // Registered with no events: the same as disarmed.
        ctl(&epfd, libc::EPOLL_CTL_ADD, watched, 0, WORKER_EPOLL)?;
        ctl(
            &epfd,
            libc::EPOLL_CTL_ADD,
            stop.as_raw_fd(),
            libc::EPOLLIN as u32,
            STOP,
        )?;
        Ok(EpollWatch {
            epfd,
            watched,
            kick,
        })
    }

    /// Takes a kick back, once the poll thread's wait on the worker's epoll
    /// returned it: the counter goes to zero, so that wait's next call
    /// blocks again.
    pub(crate) fn drain_kick(&self) {
        let mut count = 0u64;
        // SAFETY: `kick` is an open non-blocking eventfd and `count` is 8
        // writable bytes. `EAGAIN` means another drain took it already.
        let _ = unsafe {
            libc::read(
                self.kick.as_raw_fd(),
                (&mut count as *mut u64).cast(),
                std::mem::size_of::<u64>(),
            )
        };
    }
}

impl Watch for EpollWatch {
    fn arm(&self) -> io::Result<()> {
        let events = (libc::EPOLLIN | libc::EPOLLONESHOT) as u32;
        ctl(
            &self.epfd,
            libc::EPOLL_CTL_MOD,
            self.watched,
            events,
            WORKER_EPOLL,
        )
    }

    fn disarm(&self) -> io::Result<()> {
        // No events: the same as registered disarmed (see `new`).
        ctl(
            &self.epfd,
            libc::EPOLL_CTL_MOD,
            self.watched,
            0,
            WORKER_EPOLL,
        )
    }

    fn wait(&self, timeout: Option<Duration>) -> io::Result<Woken> {
        let timeout_ms = match timeout {
            // Rounded up, so a short timeout is not a busy poll.
            Some(t) => t.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int,
            None => -1,
        };
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 2];
        let n = super::reactor::wait(&self.epfd, &mut events, timeout_ms)?;
        let events = &events[..n];
        Ok(if events.iter().any(|e| e.u64 == STOP) {
            Woken::Stopped
        } else if events.is_empty() {
            Woken::TimedOut
        } else {
            Woken::Fired
        })
    }

    fn kick(&self) -> io::Result<()> {
        super::reactor::signal_eventfd(&self.kick)
    }
}

fn ctl(epfd: &OwnedFd, op: libc::c_int, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
    let mut event = libc::epoll_event { events, u64: token };
    // SAFETY: both descriptors are open (the caller owns `fd` for as long
    // as it is registered); `event` outlives the call.
    let ret = unsafe { libc::epoll_ctl(epfd.as_raw_fd(), op, fd, &mut event) };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
