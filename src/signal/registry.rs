//! The process-wide signal state: a delivery counter per signal number and
//! one eventfd that every handler writes.
//!
//! A handler runs on whatever thread the kernel picks, at any point of that
//! thread's execution, so it only increments an atomic and writes the
//! eventfd (both async-signal-safe). Listeners never read the eventfd: its
//! counter only needs to be non-zero, and each write is a wakeup edge for
//! the drivers (epoll reports it, a multishot poll posts a completion).
//!
//! **When a delivery counts as made.** A listener created after a
//! delivery still sees it if no runtime has *published* it yet, as with
//! tokio, whose driver hands a delivery to the listeners that exist at its
//! next turn. The handler raises a flag; a worker's next maintenance or
//! park ([`publish`], one `Relaxed` load when nothing happened) records
//! the counts as published, and a new listener starts from the published
//! count, not the delivered one. So `kill` then `signal()` on one thread,
//! with no runtime turn between them, reaches the new listener (tokio's
//! `drop_then_get_a_signal`), while a delivery made long before the
//! listener, in a runtime that has turned since, is not replayed.
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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Signal numbers are below this (Linux: 64 plus the zero slot).
const SIGNALS: usize = 65;

struct Globals {
    eventfd: OwnedFd,
    /// Deliveries per signal number since the process started.
    deliveries: [AtomicU64; SIGNALS],
    /// Per signal number, the delivery count a runtime turn has seen (see
    /// the module doc); never above `deliveries`, never decreasing.
    published: [AtomicU64; SIGNALS],
    /// Whether the handler of each signal is installed. Set only once
    /// `register` succeeded; the lock makes the check and the
    /// installation one step, so a handler is installed once.
    installed: Mutex<[bool; SIGNALS]>,
}

/// Whether a delivery happened that no runtime turn has published yet.
/// Outside `Globals` so that [`publish`], called on every park, reads one
/// static and nothing else.
static UNPUBLISHED: AtomicBool = AtomicBool::new(false);

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
        published: std::array::from_fn(|_| AtomicU64::new(0)),
        installed: Mutex::new([false; SIGNALS]),
    }))
}

/// The handler's body: async-signal-safe only.
fn on_signal(globals: &'static Globals, signum: usize) {
    // `Release`: a listener that sees the new count (`Acquire`) after the
    // eventfd's edge sees everything before the delivery.
    globals.deliveries[signum].fetch_add(1, Ordering::Release);
    // `Release`, after the count: a publisher that sees the flag
    // (`Acquire`) reads the new count.
    UNPUBLISHED.store(true, Ordering::Release);
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

/// A runtime turn: marks every delivery so far as published (see the
/// module doc). Called by the drivers on each maintenance and park.
#[inline]
pub(crate) fn publish() {
    // `Relaxed`: a hint; the `swap` below is what orders.
    if !UNPUBLISHED.load(Ordering::Relaxed) {
        return;
    }
    publish_slow();
}

#[cold]
fn publish_slow() {
    // `Acquire` pairs with the handler's `Release` store: the counts read
    // below include the delivery that raised the flag. A delivery racing
    // this raises the flag again and is published by the next turn.
    if !UNPUBLISHED.swap(false, Ordering::Acquire) {
        return;
    }
    let Some(globals) = GLOBALS.get() else {
        return;
    };
    for (delivered, published) in globals.deliveries.iter().zip(&globals.published) {
        // `fetch_max`: two publishers may read different counts; the
        // published count must never go back (a listener created then
        // would see an old delivery again). `Relaxed` on the store side:
        // listeners only compare counts, and read them with `Acquire`
        // from `deliveries`.
        published.fetch_max(delivered.load(Ordering::Acquire), Ordering::Relaxed);
    }
}

/// A listener saw `count` deliveries of `signum`: they have been handed
/// to listeners, so they are published (a listener created later does not
/// see them again, as after a runtime turn).
pub(crate) fn seen_by_listener(signum: i32, count: u64) {
    if let Some(globals) = GLOBALS.get() {
        // `Relaxed`: as in `publish_slow`.
        globals.published[signum as usize].fetch_max(count, Ordering::Relaxed);
    }
}

/// Where a listener of `signum` created now starts counting: the last
/// published delivery count (see the module doc).
pub(crate) fn published(signum: i32) -> u64 {
    GLOBALS
        .get()
        .map_or(0, |g| g.published[signum as usize].load(Ordering::Relaxed))
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
