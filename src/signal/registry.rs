//! The process-wide signal state: a delivery counter per signal number and
//! one eventfd that every handler writes.
//!
//! A handler runs on whatever thread the kernel picks, at any point of that
//! thread's execution, so it only increments an atomic and writes the
//! eventfd (both async-signal-safe). Listeners never read the eventfd: its
//! counter only needs to be non-zero, and each write is a wakeup edge for
//! the drivers (epoll reports it, a multishot poll posts a completion).
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Signal numbers are below this (Linux: 64 plus the zero slot).
const SIGNALS: usize = 65;

struct Globals {
    eventfd: OwnedFd,
    /// Deliveries per signal number since the process started.
    deliveries: [AtomicU64; SIGNALS],
    /// Whether (and how) the handler of each signal was installed.
    installed: [OnceLock<Result<(), Option<i32>>>; SIGNALS],
}

fn globals() -> io::Result<&'static Globals> {
    static GLOBALS: OnceLock<io::Result<Globals>> = OnceLock::new();
    let globals = GLOBALS.get_or_init(|| {
        // SAFETY: a plain syscall; the descriptor is checked and then owned
        // by exactly one `OwnedFd`.
        let eventfd = unsafe {
            let fd = libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            OwnedFd::from_raw_fd(fd)
        };
        Ok(Globals {
            eventfd,
            deliveries: std::array::from_fn(|_| AtomicU64::new(0)),
            installed: std::array::from_fn(|_| OnceLock::new()),
        })
    });
    globals
        .as_ref()
        .map_err(|e| io::Error::new(e.kind(), e.to_string()))
}

/// The handler's body: async-signal-safe only.
fn on_signal(globals: &'static Globals, signum: usize) {
    // `Release`: a listener that sees the new count (`Acquire`) after the
    // eventfd's edge sees everything before the delivery.
    globals.deliveries[signum].fetch_add(1, Ordering::Release);
    let one: u64 = 1;
    // SAFETY: `write` is async-signal-safe; `one` is 8 readable bytes. An
    // error (`EAGAIN`: the counter is saturated, so it is readable anyway)
    // is ignored.
    let _ = unsafe { libc::write(globals.eventfd.as_raw_fd(), (&one as *const u64).cast(), 8) };
}

/// Installs the handler of `signum` (once per process) and returns a
/// duplicate of the shared eventfd for a new listener.
pub(crate) fn enable(signum: i32) -> io::Result<OwnedFd> {
    if signum <= 0 || signal_hook_registry::FORBIDDEN.contains(&signum) {
        // tokio's text.
        return Err(io::Error::other(format!(
            "Refusing to register signal {signum}"
        )));
    }
    let index = signum as usize;
    if index >= SIGNALS {
        return Err(io::Error::other("signal too large"));
    }
    let globals = globals()?;
    globals.installed[index]
        .get_or_init(|| {
            // SAFETY: the action only touches atomics and calls `write`,
            // both async-signal-safe, and cannot panic.
            unsafe { signal_hook_registry::register(signum, move || on_signal(globals, index)) }
                .map(|_| ())
                .map_err(|e| e.raw_os_error())
        })
        .map_err(|e| {
            e.map_or_else(
                || io::Error::other("registering signal handler failed"),
                io::Error::from_raw_os_error,
            )
        })?;
    duplicate(globals.eventfd.as_raw_fd())
}

/// Deliveries of `signum` so far.
pub(crate) fn deliveries(signum: i32) -> u64 {
    globals()
        .map(|g| g.deliveries[signum as usize].load(Ordering::Acquire))
        .unwrap_or(0)
}

fn duplicate(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: `fd` is the open eventfd; the duplicate is checked and then
    // owned by exactly one `OwnedFd`.
    unsafe {
        let dup = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0);
        if dup < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(dup))
    }
}
