//! The eventfd that wakes a worker asleep in its ring, and its metrics.
pub(crate) use crate::runtime::driver::ring_metrics::UringMetrics;
use crate::runtime::park::ring_wake::{Notify, WakeSignal, WakeState};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A worker's wake state and eventfd, shared with every thread.
#[derive(Debug)]
pub(crate) struct WakeFd {
    pub(crate) state: WakeState,
    eventfd: OwnedFd,
    pub(crate) metrics: UringMetrics,
}

struct EventFd(RawFd);

impl WakeSignal for EventFd {
    fn signal(&self) {
        // `EAGAIN` (counter saturated) means the eventfd is readable
        // already, which is all the wake poll needs; any other error would
        // be a closed descriptor, impossible while the worker lives.
        let _ = write_eventfd(self.0);
    }
}

impl WakeFd {
    pub(crate) fn new() -> io::Result<WakeFd> {
        // SAFETY: a plain syscall; the descriptor is checked and then owned
        // by exactly one `OwnedFd`.
        let eventfd = unsafe {
            let fd = libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            OwnedFd::from_raw_fd(fd)
        };
        Ok(WakeFd {
            state: WakeState::new(),
            eventfd,
            metrics: UringMetrics::default(),
        })
    }

    pub(crate) fn eventfd(&self) -> RawFd {
        self.eventfd.as_raw_fd()
    }

    /// Wakes the worker if it sleeps in its ring, else leaves a token.
    pub(crate) fn unpark(&self) {
        match self.state.unpark(&EventFd(self.eventfd.as_raw_fd())) {
            Notify::Signalled => UringMetrics::add(&self.metrics.eventfd_writes, 1),
            Notify::Coalesced => UringMetrics::add(&self.metrics.coalesced, 1),
        }
    }
}

/// Adds one to an eventfd's counter. `EAGAIN` counts as success: the
/// counter is saturated, so the eventfd is readable already.
pub(crate) fn write_eventfd(fd: RawFd) -> io::Result<()> {
    let one: u64 = 1;
    // SAFETY: `one` is 8 readable bytes that outlive the call.
    let n = unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::WouldBlock {
            return Err(e);
        }
    }
    Ok(())
}
