//! `AsyncFd`: readiness-based access to any non-blocking file descriptor.
//!
//! The descriptor is registered with the reactor of the worker that
//! creates the `AsyncFd` (see `runtime/driver/legacy/reactor.rs`). Readiness is
//! edge-triggered and *sticky*: once the driver reports it, it stays set
//! until the user says the descriptor is no longer ready, by calling
//! [`AsyncFdReadyGuard::clear_ready`] or by returning `WouldBlock` from
//! `try_io`. Clearing uses the readiness tick the guard observed, so an
//! event that arrived after it is never lost.
use crate::io::{Interest, Ready};
use crate::runtime::driver::registration::Registration;
use crate::runtime::driver::scheduled_io::ReadyEvent;
use std::error::Error;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::task::{Context, Poll};

/// Associates an I/O object backed by a Unix file descriptor with the
/// tokiwa reactor, so that readiness can be awaited.
///
/// The object must be in non-blocking mode. Dropping the `AsyncFd`
/// deregisters the descriptor and then drops the object (which usually
/// closes it); [`into_inner`](AsyncFd::into_inner) deregisters and gives
/// the object back.
pub struct AsyncFd<T: AsRawFd> {
    registration: Registration,
    // `None` only after `into_inner` took it.
    inner: Option<T>,
}

/// The guard of a readiness event on a shared `AsyncFd` (see
/// [`AsyncFd::readable`]).
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
    event: Observed,
}

/// The guard of a readiness event on an exclusively borrowed `AsyncFd`
/// (see [`AsyncFd::readable_mut`]).
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
    event: Observed,
}

/// Returned by a guard's `try_io` when the operation would have blocked
/// (the readiness was then cleared).
#[derive(Debug)]
pub struct TryIoError(());

/// The error of [`AsyncFd::register`]: the cause and the object given
/// back.
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner` for readable and writable readiness, taking
    /// ownership of it; on failure the object comes back in the error.
    ///
    /// # Safety
    ///
    /// `inner.as_raw_fd()` must be an open descriptor that stays open, and
    /// refers to the same open file description, until the `AsyncFd` is
    /// dropped or `into_inner` is called; every call of `as_raw_fd` must
    /// return that same number. (tokio made this unsafe in 1.54 for I/O
    /// safety; tokiwa keeps the same contract so code moves unchanged.)
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on a runtime without the I/O driver.
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: the caller upholds `register_with_interest`'s contract,
        // which is this function's.
        unsafe { Self::register_with_interest(inner, Interest::READABLE | Interest::WRITABLE) }
    }

    /// Like [`register`](AsyncFd::register), for the given interest.
    ///
    /// # Safety
    ///
    /// As for [`register`](AsyncFd::register).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on a runtime without the I/O driver.
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        match Registration::new_for_any_fd(inner.as_raw_fd(), interest) {
            Ok(registration) => Ok(AsyncFd {
                registration,
                inner: Some(inner),
            }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// Deprecated as in tokio: use [`register`](AsyncFd::register).
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn new(inner: T) -> io::Result<Self> {
        // SAFETY: the deprecated safe API trusts the caller as tokio's does.
        unsafe { Ok(Self::register(inner)?) }
    }

    /// Deprecated as in tokio: use
    /// [`register_with_interest`](AsyncFd::register_with_interest).
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register_with_interest` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<Self> {
        // SAFETY: the deprecated safe API trusts the caller as tokio's does.
        unsafe { Ok(Self::register_with_interest(inner, interest)?) }
    }

    /// Deprecated as in tokio: use [`register`](AsyncFd::register).
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn try_new(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: the deprecated safe API trusts the caller as tokio's does.
        unsafe { Self::register(inner) }
    }

    /// Deprecated as in tokio: use
    /// [`register_with_interest`](AsyncFd::register_with_interest).
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register_with_interest` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: the deprecated safe API trusts the caller as tokio's does.
        unsafe { Self::register_with_interest(inner, interest) }
    }

    /// The wrapped object.
    pub fn get_ref(&self) -> &T {
        self.inner
            .as_ref()
            .expect("AsyncFd holds its object until dropped")
    }

    /// The wrapped object, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        self.inner
            .as_mut()
            .expect("AsyncFd holds its object until dropped")
    }

    /// Deregisters the descriptor and returns the object.
    pub fn into_inner(mut self) -> T {
        self.take_inner()
            .expect("AsyncFd holds its object until dropped")
    }

    fn take_inner(&mut self) -> Option<T> {
        let inner = self.inner.take()?;
        // An error means the descriptor is no longer in the epoll set
        // (closed behind our back): nothing left to undo.
        let _ = self.registration.deregister();
        Some(inner)
    }

    fn guard(&self, event: ReadyEvent) -> AsyncFdReadyGuard<'_, T> {
        AsyncFdReadyGuard {
            async_fd: self,
            event: Observed(Some(event)),
        }
    }

    fn guard_mut(&mut self, event: ReadyEvent) -> AsyncFdReadyMutGuard<'_, T> {
        AsyncFdReadyMutGuard {
            async_fd: self,
            event: Observed(Some(event)),
        }
    }

    /// Polls for read readiness. Only the last task to call this (or
    /// `poll_read_ready_mut`) is woken.
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        self.registration
            .poll_read_ready(cx)
            .map_ok(|event| self.guard(event))
    }

    /// Polls for read readiness, with an exclusive guard.
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        self.registration
            .poll_read_ready(cx)
            .map_ok(move |event| self.guard_mut(event))
    }

    /// Polls for write readiness. Only the last task to call this (or
    /// `poll_write_ready_mut`) is woken.
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        self.registration
            .poll_write_ready(cx)
            .map_ok(|event| self.guard(event))
    }

    /// Polls for write readiness, with an exclusive guard.
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        self.registration
            .poll_write_ready(cx)
            .map_ok(move |event| self.guard_mut(event))
    }

    /// Waits for any readiness in `interest`. Any number of tasks may wait
    /// at once.
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.registration.readiness(interest).await?;
        Ok(self.guard(event))
    }

    /// Waits for any readiness in `interest`, with an exclusive guard.
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.registration.readiness(interest).await?;
        Ok(self.guard_mut(event))
    }

    /// Waits until the descriptor is readable.
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::READABLE).await
    }

    /// Waits until the descriptor is readable, with an exclusive guard.
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::READABLE).await
    }

    /// Waits until the descriptor is writable.
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::WRITABLE).await
    }

    /// Waits until the descriptor is writable, with an exclusive guard.
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::WRITABLE).await
    }

    /// Waits for `interest` and runs `f` until it returns something other
    /// than `WouldBlock` (each `WouldBlock` clears the readiness it saw).
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration
            .async_io(interest, || f(self.get_ref()))
            .await
    }

    /// [`async_io`](AsyncFd::async_io) with mutable access to the object.
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self
            .inner
            .as_mut()
            .expect("AsyncFd holds its object until dropped");
        self.registration.async_io(interest, || f(inner)).await
    }

    /// Runs `f` if the descriptor is ready for `interest` now; returns
    /// `WouldBlock` otherwise (and clears the readiness when `f` does).
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.try_io(interest, || f(self.get_ref()))
    }

    /// [`try_io`](AsyncFd::try_io) with mutable access to the object.
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self
            .inner
            .as_mut()
            .expect("AsyncFd holds its object until dropped");
        self.registration.try_io(interest, || f(inner))
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.get_ref().as_raw_fd()
    }
}

impl<T: AsRawFd> AsFd for AsyncFd<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the descriptor stays open while `self` (which owns the
        // object holding it) is borrowed.
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        // Deregistered, then the object dropped; if that closes the
        // descriptor, the socket closes at once, whatever the driver's
        // thread is doing (`Registration::drop_object`).
        if let Some(inner) = self.inner.take() {
            self.registration.drop_object(inner);
        }
    }
}

/// The readiness event a guard observed (`None` once cleared), and what
/// both guard types do with it.
struct Observed(Option<ReadyEvent>);

impl Observed {
    /// Clears the whole event in `registration`.
    fn clear(&mut self, registration: &Registration) {
        if let Some(event) = self.0.take() {
            registration.clear_readiness(event);
        }
    }

    /// Clears `ready` out of the event, in `registration` and here.
    fn clear_matching(&mut self, registration: &Registration, ready: Ready) {
        if let Some(ev) = &mut self.0 {
            let matched = ev.ready & ready;
            registration.clear_readiness(ReadyEvent {
                ready: matched,
                ..*ev
            });
            ev.ready = ev.ready - matched;
            if ev.ready.is_empty() {
                self.0 = None;
            }
        }
    }

    fn ready(&self) -> Ready {
        self.0.map_or(Ready::EMPTY, |e| e.ready)
    }

    /// The outcome of a guard's `try_io`: a `WouldBlock` clears the event
    /// and becomes `Err(TryIoError)`.
    fn try_io_result<R>(
        &mut self,
        registration: &Registration,
        result: io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear(registration);
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
    }
}

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    /// Says the descriptor is no longer ready: the next readiness wait
    /// waits for a new event from the driver.
    pub fn clear_ready(&mut self) {
        self.event.clear(&self.async_fd.registration);
    }

    /// Clears only the `ready` part of the observed readiness (for
    /// example just `Ready::READABLE` of a guard from `ready(READABLE |
    /// WRITABLE)`).
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        self.event
            .clear_matching(&self.async_fd.registration, ready);
    }

    /// Keeps the readiness set (the default when the guard is dropped).
    pub fn retain_ready(&mut self) {}

    /// The readiness this guard observed.
    pub fn ready(&self) -> Ready {
        self.event.ready()
    }

    /// Runs `f`; on `WouldBlock` clears the readiness and returns
    /// `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        self.event
            .try_io_result(&self.async_fd.registration, result)
    }

    /// The `AsyncFd` this guard belongs to.
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.async_fd
    }

    /// The object inside the `AsyncFd`.
    pub fn get_inner(&self) -> &'a T {
        self.async_fd.get_ref()
    }
}

impl<T: AsRawFd> AsyncFdReadyMutGuard<'_, T> {
    /// Says the descriptor is no longer ready.
    pub fn clear_ready(&mut self) {
        self.event.clear(&self.async_fd.registration);
    }

    /// Clears only the `ready` part of the observed readiness.
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        self.event
            .clear_matching(&self.async_fd.registration, ready);
    }

    /// Keeps the readiness set (the default when the guard is dropped).
    pub fn retain_ready(&mut self) {}

    /// The readiness this guard observed.
    pub fn ready(&self) -> Ready {
        self.event.ready()
    }

    /// Runs `f`; on `WouldBlock` clears the readiness and returns
    /// `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        self.event
            .try_io_result(&self.async_fd.registration, result)
    }

    /// The `AsyncFd` this guard belongs to.
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.async_fd
    }

    /// The `AsyncFd` this guard belongs to, mutably.
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.async_fd
    }

    /// The object inside the `AsyncFd`.
    pub fn get_inner(&self) -> &T {
        self.async_fd.get_ref()
    }

    /// The object inside the `AsyncFd`, mutably.
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.async_fd.get_mut()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyGuard")
            .field("async_fd", self.async_fd)
            .finish()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutReadyGuard")
            .field("async_fd", &self.async_fd)
            .finish()
    }
}

/// Deprecated as in tokio: the old name of [`AsyncFdRegisterError`].
#[doc(hidden)]
#[deprecated(note = "use `AsyncFdRegisterError` instead")]
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    /// The object and the error.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(value: AsyncFdRegisterError<T>) -> io::Error {
        value.cause
    }
}
