//! Unix signals: [`signal`] creates a [`Signal`] listener for a
//! [`SignalKind`].
use super::registry;
use crate::io::Interest;
use crate::runtime::driver::registration::Registration;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::task::{ready, Context, Poll};

/// A kind of signal, by its number (tokio's `SignalKind`).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// Any signal by number. Numbers the kernel does not know make
    /// [`signal`] fail.
    pub const fn from_raw(signum: std::os::raw::c_int) -> Self {
        SignalKind(signum)
    }

    /// The signal's number.
    pub const fn as_raw_value(&self) -> std::os::raw::c_int {
        self.0
    }

    /// `SIGALRM`.
    pub const fn alarm() -> Self {
        SignalKind(libc::SIGALRM)
    }

    /// `SIGCHLD`.
    pub const fn child() -> Self {
        SignalKind(libc::SIGCHLD)
    }

    /// `SIGHUP`.
    pub const fn hangup() -> Self {
        SignalKind(libc::SIGHUP)
    }

    /// `SIGINT`.
    pub const fn interrupt() -> Self {
        SignalKind(libc::SIGINT)
    }

    /// `SIGIO`.
    pub const fn io() -> Self {
        SignalKind(libc::SIGIO)
    }

    /// `SIGPIPE`.
    pub const fn pipe() -> Self {
        SignalKind(libc::SIGPIPE)
    }

    /// `SIGQUIT`.
    pub const fn quit() -> Self {
        SignalKind(libc::SIGQUIT)
    }

    /// `SIGTERM`.
    pub const fn terminate() -> Self {
        SignalKind(libc::SIGTERM)
    }

    /// `SIGUSR1`.
    pub const fn user_defined1() -> Self {
        SignalKind(libc::SIGUSR1)
    }

    /// `SIGUSR2`.
    pub const fn user_defined2() -> Self {
        SignalKind(libc::SIGUSR2)
    }

    /// `SIGWINCH`.
    pub const fn window_change() -> Self {
        SignalKind(libc::SIGWINCH)
    }
}

impl From<std::os::raw::c_int> for SignalKind {
    fn from(signum: std::os::raw::c_int) -> Self {
        SignalKind::from_raw(signum)
    }
}

impl From<SignalKind> for std::os::raw::c_int {
    fn from(kind: SignalKind) -> Self {
        kind.as_raw_value()
    }
}

/// A listener for one kind of signal.
///
/// It sees every delivery made while it exists, and one made just before
/// it was created if no runtime turn came between them (as in tokio);
/// deliveries between two receives coalesce into one, and older ones are
/// not replayed.
#[derive(Debug)]
pub struct Signal {
    signum: libc::c_int,
    /// The delivery count this listener has reported up to.
    seen: u64,
    /// The listener's duplicate of the registry's eventfd, registered with
    /// the runtime's I/O driver: owned here so that it stays open until
    /// the registration is gone (fields drop after `Drop::drop`).
    _eventfd: OwnedFd,
    registration: Registration,
}

/// Listens for `kind` on the current runtime.
///
/// # Errors
///
/// For `SIGKILL`, `SIGSTOP`, `SIGILL`, `SIGFPE`, `SIGSEGV` and numbers
/// that are not signals ("Refusing to register signal N", as in tokio), or
/// when the handler cannot be installed.
///
/// # Panics
///
/// Outside a runtime, or on one built without `enable_io`, with tokio's
/// messages.
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    // The runtime and its I/O driver first: without them this panics at
    // the caller, whatever the signal (as tokio does).
    let handle = crate::runtime::scheduler::Handle::current_for_io();
    handle.driver().io();
    let signum = kind.as_raw_value();
    let eventfd = registry::enable(signum)?;
    // Counted before the registration: a delivery from now on is news, and
    // so is one no runtime turn has published yet (as in tokio; see the
    // registry's module doc).
    let seen = registry::published(signum);
    let registration =
        Registration::new_with_handle(eventfd.as_raw_fd(), Interest::READABLE, &handle)?;
    Ok(Signal {
        signum,
        seen,
        _eventfd: eventfd,
        registration,
    })
}

impl Signal {
    /// The next delivery; `None` once the runtime has shut down.
    pub async fn recv(&mut self) -> Option<()> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next delivery; `None` once the runtime has shut
    /// down.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        loop {
            if self.take_delivery() {
                return Poll::Ready(Some(()));
            }
            let event = match ready!(self.registration.poll_read_ready(cx)) {
                Ok(event) => event,
                Err(_) => return Poll::Ready(None),
            };
            // Re-checked after the readiness was observed: a delivery that
            // raced the check above bumped the count before its eventfd
            // write, and that write's newer readiness survives the clear.
            if self.take_delivery() {
                return Poll::Ready(Some(()));
            }
            // The wakeup was another signal's (every handler writes the
            // same eventfd), or one already reported.
            self.registration.clear_readiness(event);
        }
    }

    fn take_delivery(&mut self) -> bool {
        let now = registry::deliveries(self.signum);
        if now == self.seen {
            return false;
        }
        self.seen = now;
        registry::seen_by_listener(self.signum, now);
        true
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        let _ = self.registration.deregister();
    }
}
