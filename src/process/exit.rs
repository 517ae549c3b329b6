//! How the exit of a running child is observed: a pidfd that the I/O
//! driver polls, or, where the kernel has none, SIGCHLD.
//!
//! A pidfd (`pidfd_open(2)`, Linux 5.3) becomes readable once its process
//! has exited and can be reaped; it is registered with the runtime's driver
//! for read readiness like any socket, so both drivers (an epoll interest,
//! an io_uring multishot poll) serve it. Readiness is only the wakeup: the
//! status itself comes from `waitpid(pid, WNOHANG)` through
//! `std::process::Child::try_wait`, which also records it so that a later
//! `try_wait` or `kill` on the same child never touches a reused pid.
//!
//! Without pidfds (`ENOSYS` on kernels before 5.3; `EPERM` where a seccomp
//! filter refuses the syscall), each waiting child listens for SIGCHLD
//! through the process-wide signal registry (`crate::signal_registry`),
//! exactly as a `signal::unix::Signal` does, and calls `try_wait` after each
//! delivery. SIGCHLD coalesces and names no child, so every delivery is a
//! hint for every waiting child; the listener is created before the first
//! `try_wait`, so an exit after that check always produces a delivery it
//! counts.
//!
//! `TOKIWA_PROCESS_NO_PIDFD=1` in the environment (read once) forces the
//! SIGCHLD path, so the tests cover it on kernels that have pidfds.
use crate::io::Interest;
use crate::runtime::driver::registration::Registration;
use crate::runtime::{context, scheduler};
use crate::signal_registry as registry;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child as StdChild, ExitStatus};
// Neither flag takes part in a protocol that loom models (see `loom.rs`).
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::task::{ready, Context, Poll};

/// The wakeup source of one running child.
#[derive(Debug)]
pub(super) enum ExitWatch {
    /// The child's pidfd, registered for read readiness.
    Pidfd {
        // Declared first: dropped (and deregistered in `Drop`) before the
        // descriptor closes.
        registration: Registration,
        pidfd: OwnedFd,
    },
    /// A duplicate of the signal registry's eventfd, registered for read
    /// readiness, and the SIGCHLD count this child last saw.
    Sigchld {
        registration: Registration,
        eventfd: OwnedFd,
        seen: u64,
    },
}

impl ExitWatch {
    /// Watches the child `pid` (not yet reaped) on `handle`'s driver.
    pub(super) fn new(pid: u32, handle: &scheduler::Handle) -> io::Result<ExitWatch> {
        match pidfd_open(pid)? {
            Some(pidfd) => {
                let registration =
                    Registration::new_with_handle(pidfd.as_raw_fd(), Interest::READABLE, handle)?;
                Ok(ExitWatch::Pidfd {
                    registration,
                    pidfd,
                })
            }
            None => {
                let eventfd = registry::enable(libc::SIGCHLD)?;
                // Counted before the first `try_wait`: an exit after it is
                // a delivery this count has not seen.
                let seen = registry::deliveries(libc::SIGCHLD);
                let registration =
                    Registration::new_with_handle(eventfd.as_raw_fd(), Interest::READABLE, handle)?;
                Ok(ExitWatch::Sigchld {
                    registration,
                    eventfd,
                    seen,
                })
            }
        }
    }

    /// Ready with `child`'s status once it has exited (and is reaped).
    ///
    /// A child may outlive the runtime that spawned it and be waited on
    /// from another (tokio's `process_change_of_runtime`): when the
    /// registration reports its runtime shut down, the watch moves to the
    /// current runtime once and waits there.
    pub(super) fn poll_exit(
        &mut self,
        cx: &mut Context<'_>,
        child: &mut StdChild,
    ) -> Poll<io::Result<ExitStatus>> {
        let mut moved = false;
        loop {
            match self.poll_exit_here(cx, child) {
                Poll::Ready(Err(e)) if !moved => {
                    if let Some(status) = child.try_wait()? {
                        return Poll::Ready(Ok(status));
                    }
                    if self.move_to_current_runtime().is_err() {
                        return Poll::Ready(Err(e));
                    }
                    moved = true;
                }
                other => return other,
            }
        }
    }

    /// Registers the watched descriptor with the current runtime's driver
    /// instead of the one it was registered with (which shut down).
    fn move_to_current_runtime(&mut self) -> io::Result<()> {
        let handle = context::with_current(scheduler::Handle::clone)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let (registration, fd) = match self {
            ExitWatch::Pidfd {
                registration,
                pidfd,
            } => (registration, pidfd),
            ExitWatch::Sigchld {
                registration,
                eventfd,
                ..
            } => (registration, eventfd),
        };
        let fresh = Registration::new_with_handle(fd.as_raw_fd(), Interest::READABLE, &handle)?;
        // The old runtime is gone: its deregistration can only fail.
        let _ = registration.deregister();
        *registration = fresh;
        Ok(())
    }

    fn poll_exit_here(
        &mut self,
        cx: &mut Context<'_>,
        child: &mut StdChild,
    ) -> Poll<io::Result<ExitStatus>> {
        match self {
            ExitWatch::Pidfd { registration, .. } => {
                // A pidfd already readable at registration is reported at
                // once by both drivers, so no `try_wait` is needed first.
                let readiness = ready!(registration.poll_read_ready(cx));
                if let Some(status) = child.try_wait()? {
                    return Poll::Ready(Ok(status));
                }
                match readiness {
                    // Readable means the process is a zombie, so `waitpid`
                    // can only miss it for the instant in which the exit is
                    // being published. The readiness is kept (it is not
                    // reported twice) and the task polls again after a
                    // yield.
                    Ok(_) => {
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                    // The runtime is shutting down.
                    Err(e) => Poll::Ready(Err(e)),
                }
            }
            ExitWatch::Sigchld {
                registration, seen, ..
            } => loop {
                if let Some(status) = child.try_wait()? {
                    return Poll::Ready(Ok(status));
                }
                let event = ready!(registration.poll_read_ready(cx))?;
                let now = registry::deliveries(libc::SIGCHLD);
                if now != *seen {
                    *seen = now;
                    continue;
                }
                // Another signal's wakeup (every handler writes the same
                // eventfd) or one already counted: wait for the next.
                // A SIGCHLD that raced this check bumped the count before
                // writing the eventfd, and that write's readiness survives
                // the clear (see `signal/unix.rs`).
                registration.clear_readiness(event);
            },
        }
    }
}

impl Drop for ExitWatch {
    fn drop(&mut self) {
        let (ExitWatch::Pidfd { registration, .. } | ExitWatch::Sigchld { registration, .. }) =
            self;
        // Before the descriptor closes, so a new resource reusing the
        // number starts clean; an error (the runtime is gone) changes
        // nothing.
        let _ = registration.deregister();
    }
}

/// Set once `pidfd_open` turned out not to exist. `Relaxed`: a stale
/// `false` costs one more syscall that fails the same way.
static NO_PIDFD: AtomicBool = AtomicBool::new(false);

/// Whether `TOKIWA_PROCESS_NO_PIDFD` asks for the SIGCHLD path.
fn pidfd_disabled() -> bool {
    static FORCED: OnceLock<bool> = OnceLock::new();
    *FORCED.get_or_init(|| {
        std::env::var_os("TOKIWA_PROCESS_NO_PIDFD").is_some_and(|v| !v.is_empty() && v != "0")
    }) || NO_PIDFD.load(Ordering::Relaxed)
}

/// A pidfd for the child `pid`, or `None` where the kernel has none.
pub(super) fn pidfd_open(pid: u32) -> io::Result<Option<OwnedFd>> {
    if pidfd_disabled() {
        return Ok(None);
    }
    // SAFETY: `pidfd_open(pid, 0)` takes two integers and returns a new
    // descriptor (close-on-exec) or -1; nothing is borrowed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            Some(libc::ENOSYS) | Some(libc::EPERM) => {
                NO_PIDFD.store(true, Ordering::Relaxed);
                Ok(None)
            }
            _ => Err(err),
        };
    }
    // SAFETY: `fd` is a descriptor the kernel just opened for this process,
    // owned by nothing else.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) }))
}
