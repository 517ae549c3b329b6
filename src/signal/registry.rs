//! The process-wide signal state: a delivery counter per signal number and
//! one eventfd that every handler writes.
//!
//! A handler runs on whatever thread the kernel picks, at any point of that
//! thread's execution, so it only increments an atomic and writes the
//! eventfd (both async-signal-safe). Listeners never read the eventfd: its
//! counter only needs to be non-zero, and each write is a wakeup edge for
//! the drivers (epoll reports it, a multishot poll posts a completion).
//!
//! Only success is remembered. The eventfd, and each signal's handler, are
//! set up by the first call that manages to; a call that fails (`EMFILE`
//! for the eventfd, say) returns the kernel's error as it came, with its
//! `raw_os_error`, and leaves nothing behind, so a later call tries again
//! once the cause is gone. A failure is never an answer for the life of
//! the process.
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
// Not part of a protocol that loom models (see `loom.rs`): a handler only
// touches the counters, and the lock only orders installations.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Signal numbers are below this (Linux: 64 plus the zero slot).
const SIGNALS: usize = 65;

struct Globals {
    eventfd: OwnedFd,
    /// Deliveries per signal number since the process started.
    deliveries: [AtomicU64; SIGNALS],
    /// Whether the handler of each signal is installed. Set only once
    /// `register` succeeded; the lock makes the check and the
    /// installation one step, so a handler is installed once.
    installed: Mutex<[bool; SIGNALS]>,
}

/// Set once, by the first call that created the eventfd.
static GLOBALS: OnceLock<Globals> = OnceLock::new();

fn globals() -> io::Result<&'static Globals> {
    if let Some(globals) = GLOBALS.get() {
        return Ok(globals);
    }
    // SAFETY: a plain syscall; the descriptor is checked and then owned
    // by exactly one `OwnedFd`.
    let eventfd = unsafe {
        let fd = libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        OwnedFd::from_raw_fd(fd)
    };
    // Two first calls may race here: the loser's eventfd is dropped unseen
    // (handlers only ever see the `Globals` that was stored).
    Ok(GLOBALS.get_or_init(move || Globals {
        eventfd,
        deliveries: std::array::from_fn(|_| AtomicU64::new(0)),
        installed: Mutex::new([false; SIGNALS]),
    }))
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
/// duplicate of the shared eventfd for a new listener. An error is the
/// kernel's, and is not remembered.
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
    install(globals, index)?;
    duplicate(globals.eventfd.as_raw_fd())
}

/// Installs the handler of signal `index` unless it is installed already.
fn install(globals: &'static Globals, index: usize) -> io::Result<()> {
    // `register` does not panic for the signals `enable` lets through; a
    // poisoned array is still accurate (an entry is set after success).
    let mut installed = globals
        .installed
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if !installed[index] {
        // SAFETY: the action only touches atomics and calls `write`, both
        // async-signal-safe, and cannot panic.
        unsafe {
            signal_hook_registry::register(index as libc::c_int, move || on_signal(globals, index))
        }?;
        installed[index] = true;
    }
    Ok(())
}

/// Deliveries of `signum` so far (none before the first `enable`).
pub(crate) fn deliveries(signum: i32) -> u64 {
    GLOBALS
        .get()
        .map_or(0, |g| g.deliveries[signum as usize].load(Ordering::Acquire))
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
