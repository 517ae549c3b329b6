//! Children dropped before they were reaped ("orphans"), and the thread
//! that reaps them.
//!
//! A process that has exited stays a zombie until its parent waits for it.
//! tokio promises to reap, on a best-effort basis, every child whose
//! `Child` was dropped un-awaited (or killed by `kill_on_drop`); tokiwa does
//! the same, without depending on the runtime that spawned the child being
//! alive, or on the thread the `Child` is dropped on being inside one:
//!
//! * [`adopt`] first tries `waitpid(WNOHANG)`: a child that has already
//!   exited is reaped on the spot.
//! * Otherwise it joins a process-wide list, and a wakeup source is added to
//!   the epoll set of one lazily started thread, `tokiwa-reaper`: a fresh
//!   pidfd for the child (level-triggered: readable from exit on), or, where
//!   the kernel has no pidfd, a duplicate of the signal registry's eventfd
//!   (edge-triggered: every SIGCHLD handler's write is an edge).
//! * On every wakeup the thread calls `try_wait` on each orphan and drops
//!   those that are reaped (closing a pidfd removes it from the epoll set).
//!   Each [`Command::spawn`](super::Command::spawn) drains the list too, so
//!   orphans are still reaped if the thread could not be started.
//!
//! The thread costs nothing until the first orphan and then sleeps in
//! `epoll_wait` with no timeout. A thread, rather than a task on the
//! runtime, because a `Child` may be dropped while its runtime shuts down
//! (spawning from a task's destructor there is not allowed) or after it is
//! gone.
//!
//! Starting the thread, and adding the SIGCHLD wakeup, can fail for a
//! reason that passes (`EMFILE` for the epoll instance or the eventfd,
//! `EAGAIN` for the thread). Only success is remembered: the next orphan
//! tries again, and until then orphans are reaped at each spawn.
//!
//! Races: the list's lock orders every step. A pidfd is added to the epoll
//! set while the lock is held, before the orphan is pushed, so the thread
//! never sees a descriptor it might close before `epoll_ctl` ran. In the
//! SIGCHLD case, an exit between `adopt`'s first `try_wait` and the push
//! may be delivered, and drained by the thread, before the orphan is in the
//! list; `adopt` therefore drains the list itself after pushing, under the
//! same lock.
use super::exit::pidfd_open;
use crate::signal_registry as registry;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Child as StdChild;
// Not part of a protocol that loom models (see `loom.rs`): a plain list
// behind a lock, and a thread of its own.
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

struct Orphan {
    child: StdChild,
    /// The pidfd in the reaper's epoll set, if the child has one; closed
    /// with the orphan.
    _pidfd: Option<OwnedFd>,
}

static ORPHANS: Mutex<Vec<Orphan>> = Mutex::new(Vec::new());

fn orphans() -> MutexGuard<'static, Vec<Orphan>> {
    // `try_wait` does not panic; a poisoned list is still a valid list.
    ORPHANS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes over `child`, which its `Child` no longer waits for, and reaps it
/// as soon as it exits.
pub(super) fn adopt(mut child: StdChild) {
    if reaped(&mut child) {
        return;
    }
    let mut orphans = orphans();
    let pidfd = Reaper::get().and_then(|reaper| reaper.watch(child.id()));
    orphans.push(Orphan {
        child,
        _pidfd: pidfd,
    });
    drain(&mut orphans);
}

/// Reaps every orphan that has exited (called at each spawn).
pub(super) fn reap_orphans() {
    let mut orphans = orphans();
    if !orphans.is_empty() {
        drain(&mut orphans);
    }
}

fn drain(orphans: &mut Vec<Orphan>) {
    orphans.retain_mut(|orphan| !reaped(&mut orphan.child));
}

/// Whether `child` is reaped now. An error (`ECHILD`: something else in the
/// process waited for it) also ends our interest in it.
fn reaped(child: &mut StdChild) -> bool {
    !matches!(child.try_wait(), Ok(None))
}

/// The reaper thread's epoll instance.
struct Reaper {
    epoll: OwnedFd,
    /// Whether the SIGCHLD eventfd is in the epoll set (added the first
    /// time an orphan has no pidfd and the adding succeeds).
    sigchld: Mutex<bool>,
}

/// The running reaper; set only once its thread started.
static REAPER: OnceLock<Reaper> = OnceLock::new();

impl Reaper {
    /// The reaper, started on first use; `None` if it cannot be now
    /// (orphans are then reaped at the next spawn, and the next orphan
    /// tries again).
    fn get() -> Option<&'static Reaper> {
        if let Some(reaper) = REAPER.get() {
            return Some(reaper);
        }
        // One starter at a time: a thread started by a starter that then
        // lost a race would wait on an epoll instance nobody adds to.
        static STARTING: Mutex<()> = Mutex::new(());
        let _starting = STARTING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(reaper) = REAPER.get() {
            return Some(reaper);
        }
        // SAFETY: a plain syscall; the result is checked and then owned by
        // exactly one `OwnedFd`.
        let epoll = unsafe {
            let fd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
            if fd < 0 {
                return None;
            }
            OwnedFd::from_raw_fd(fd)
        };
        let raw = epoll.as_raw_fd();
        // The thread borrows the descriptor, which moves into a static that
        // is never dropped (set below, under the lock, so it cannot fail).
        std::thread::Builder::new()
            .name("tokiwa-reaper".into())
            .spawn(move || run(raw))
            .ok()?;
        Some(REAPER.get_or_init(|| Reaper {
            epoll,
            sigchld: Mutex::new(false),
        }))
    }

    /// Adds a wakeup for the exit of `pid` to the epoll set: its pidfd
    /// (returned, to be kept open while the child is an orphan) or the
    /// SIGCHLD eventfd.
    fn watch(&self, pid: u32) -> Option<OwnedFd> {
        if let Ok(Some(pidfd)) = pidfd_open(pid) {
            if self.add(pidfd.as_raw_fd(), libc::EPOLLIN as u32).is_ok() {
                return Some(pidfd);
            }
        }
        let mut sigchld = self.sigchld.lock().unwrap_or_else(PoisonError::into_inner);
        if !*sigchld {
            // On failure the orphan is reaped at the next spawn, and the
            // next orphan tries again.
            *sigchld = registry::enable(libc::SIGCHLD)
                .and_then(|eventfd| {
                    self.add(eventfd.as_raw_fd(), (libc::EPOLLIN | libc::EPOLLET) as u32)?;
                    // The epoll set holds the open file, not the number:
                    // the duplicate stays open for the life of the process.
                    std::mem::forget(eventfd);
                    Ok(())
                })
                .is_ok();
        }
        None
    }

    fn add(&self, fd: RawFd, events: u32) -> io::Result<()> {
        let mut event = libc::epoll_event { events, u64: 0 };
        // SAFETY: both descriptors are open; `event` is a valid
        // `epoll_event` for the duration of the call.
        let rc =
            unsafe { libc::epoll_ctl(self.epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut event) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// The reaper thread: wait for any exit (or SIGCHLD), reap what has exited.
fn run(epoll: RawFd) {
    let mut events = [libc::epoll_event { events: 0, u64: 0 }; 8];
    loop {
        // SAFETY: `epoll` stays open (see `Reaper::get`); `events` is a
        // writable array of the length passed.
        let n = unsafe { libc::epoll_wait(epoll, events.as_mut_ptr(), events.len() as i32, -1) };
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // Cannot happen with a valid descriptor; orphans are still
            // reaped at each spawn.
            return;
        }
        reap_orphans();
    }
}
