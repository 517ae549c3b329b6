//! `Registration`: a descriptor registered with one worker's reactor, and
//! the readiness operations every I/O type is built from.
//!
//! The I/O types (`PollEvented`, `AsyncFd`) own the descriptor; the
//! registration owns its slot in the driver. Their `Drop` calls
//! [`Registration::deregister`] before closing the descriptor; dropping the
//! registration then frees the slot (legacy) or lets the ring's owner
//! cancel its poll (io_uring, see `uring/io.rs`).
use super::scheduled_io::{shutdown_error, Direction, ReadyEvent, ScheduledIo};
use super::{Backend, Place};
use crate::io::Interest;
use crate::runtime::coop;
use crate::runtime::scheduler;
use std::future::Future;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

#[derive(Debug)]
pub(crate) struct Registration {
    backend: Backend,
    shared: Arc<ScheduledIo>,
    /// Where its drop is counted (`io_metrics.rs`).
    #[cfg(tokio_unstable)]
    fd_counts: Arc<super::io_metrics::FdCounts>,
}

impl Registration {
    /// Registers a socket or pipe `fd` with the current runtime: with the
    /// driver of the worker this runs on; off the workers, with that of
    /// the worker whose task first waits on it ([`Place::AtFirstWait`]:
    /// such descriptors can always be polled, so nothing is refused
    /// later).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`, with
    /// tokio's messages.
    #[track_caller]
    pub(crate) fn new(fd: RawFd, interest: Interest) -> io::Result<Registration> {
        let handle = scheduler::Handle::current_for_io();
        Registration::register(fd, interest, &handle, Place::AtFirstWait)
    }

    /// As [`Registration::new`], for a descriptor of any kind (`AsyncFd`):
    /// in io_uring mode it first refuses files a poll cannot wait on, with
    /// epoll's `EPERM` (see `uring/pollable.rs`).
    #[track_caller]
    pub(crate) fn new_for_any_fd(fd: RawFd, interest: Interest) -> io::Result<Registration> {
        let handle = scheduler::Handle::current_for_io();
        // A runtime without I/O panics here, at the caller, as tokio's
        // does, before any check of the descriptor can return an error.
        #[cfg(feature = "uring")]
        if handle.driver().io().kind() == super::Driver::Uring {
            super::uring::refuse_unpollable(fd, interest.to_epoll())?;
        }
        Registration::new_with_handle(fd, interest, &handle)
    }

    /// Registers `fd` with `handle`'s driver now, so that a descriptor the
    /// driver cannot poll is refused here, as tokio refuses it.
    #[track_caller]
    pub(crate) fn new_with_handle(
        fd: RawFd,
        interest: Interest,
        handle: &scheduler::Handle,
    ) -> io::Result<Registration> {
        Registration::register(fd, interest, handle, Place::Now)
    }

    #[track_caller]
    fn register(
        fd: RawFd,
        interest: Interest,
        handle: &scheduler::Handle,
        place: Place,
    ) -> io::Result<Registration> {
        let driver = handle.driver().io();
        let (backend, shared) = driver.register(fd, interest, place)?;
        Ok(Registration {
            backend,
            shared,
            #[cfg(tokio_unstable)]
            fd_counts: driver.count_registration(),
        })
    }

    /// Removes the descriptor from the reactor (the one it was registered
    /// with knows it); call before closing it, or before giving the
    /// descriptor back (`into_inner`).
    pub(crate) fn deregister(&self) -> io::Result<()> {
        match &self.backend {
            Backend::Epoll(placement) => placement.deregister(),
            #[cfg(feature = "uring")]
            Backend::Uring(homed) => {
                let _ = homed.deregister();
                Ok(())
            }
        }
    }

    /// [`Registration::deregister`] for a descriptor about to be closed.
    /// Returns whether a poll may still hold its file once it is closed (io_uring
    /// mode, when the ring that polls it is owned by another thread, which
    /// has yet to cancel it): the caller then closes the socket by other
    /// means first, so that it closes now (see `uring/close.rs`). Never in
    /// legacy mode: an epoll set holds no reference to a file.
    pub(crate) fn deregister_before_close(&self) -> bool {
        match &self.backend {
            // An error: already removed, nothing holds the file.
            Backend::Epoll(placement) => {
                let _ = placement.deregister();
                false
            }
            #[cfg(feature = "uring")]
            Backend::Uring(homed) => homed.deregister(),
        }
    }

    /// The resource's readiness, which completion receives also set
    /// (`uring/recv.rs`).
    #[cfg(feature = "uring")]
    pub(crate) fn scheduled_io(&self) -> &Arc<ScheduledIo> {
        &self.shared
    }

    /// Deregisters, then drops `io`, which closes the descriptor: the
    /// socket closes now, also when the ring that polls it is owned by a
    /// thread that is busy elsewhere (see `uring/close.rs`).
    pub(crate) fn close<E: AsRawFd>(&self, io: E) {
        let still_polled = self.deregister_before_close();
        #[cfg(feature = "uring")]
        if still_polled {
            super::uring::close::shut_down(io.as_raw_fd());
        }
        #[cfg(not(feature = "uring"))]
        let _ = still_polled;
        drop(io);
    }

    /// Deregisters, then drops `inner`, which may or may not close the
    /// descriptor (`AsyncFd`'s object): if it does, the socket closes now,
    /// as with [`Registration::close`].
    pub(crate) fn drop_object<T: AsRawFd>(&self, inner: T) {
        if !self.deregister_before_close() {
            drop(inner);
            return;
        }
        #[cfg(feature = "uring")]
        {
            let fd = inner.as_raw_fd();
            let watch = super::uring::close::CloseWatch::new(fd);
            drop(inner);
            if let Some(watch) = watch {
                watch.finish(fd);
            }
        }
        #[cfg(not(feature = "uring"))]
        drop(inner);
    }

    /// A task is about to wait on the resource: in io_uring mode its
    /// first poll is armed now if it has none, and its poll may move to
    /// this worker's ring (see `uring/home.rs`). An error means no poll
    /// could be armed: the waiter must not sleep.
    fn on_wait(&self) -> io::Result<()> {
        match &self.backend {
            Backend::Epoll(placement) => placement.on_wait(&self.shared),
            #[cfg(feature = "uring")]
            Backend::Uring(homed) => homed.on_wait(&self.shared),
        }
    }

    /// Marks the resource `ready` without waiting for the driver's first
    /// event: a socket that is known to be readable or writable at
    /// registration (an accepted connection, one end of a fresh pair) then
    /// tries its first operation at once. A wrong guess costs one
    /// `WouldBlock`, which clears it as usual.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn assume_ready(&self, ready: crate::io::Ready) {
        self.shared.set_readiness(ready);
    }

    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.shared.clear_readiness(event);
    }

    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready(cx, Direction::Read)
    }

    pub(crate) fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready(cx, Direction::Write)
    }

    /// Ready in `direction`, or the task's waker is stored. Spends one unit
    /// of the task's cooperative budget.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        let coop = ready!(coop::poll_proceed(cx));
        let event = match self.shared.poll_readiness(cx, direction) {
            Poll::Ready(event) => event,
            Poll::Pending => {
                self.on_wait()?;
                return Poll::Pending;
            }
        };
        if event.is_shutdown {
            return Poll::Ready(Err(shutdown_error()));
        }
        coop.made_progress();
        Poll::Ready(Ok(event))
    }

    /// Runs `f` once the resource is ready in `direction`, retrying after
    /// each `WouldBlock` (which clears the readiness it observed).
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let event = ready!(self.poll_ready(cx, direction))?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(event),
                result => return Poll::Ready(result),
            }
        }
    }

    /// Runs `f` if the resource is ready for `interest` now; `WouldBlock`
    /// otherwise (and when `f` returns it, clearing that readiness).
    ///
    /// As in tokio, the shutdown flag is not consulted: readiness seen
    /// before the runtime went away still runs `f` (data already received
    /// can be read), and only the waits report the shutdown.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let event = self.shared.ready_event(interest);
        if event.ready.is_empty() {
            self.place_for_later_wait();
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let result = f();
        if let Err(e) = &result {
            if e.kind() == io::ErrorKind::WouldBlock {
                self.clear_readiness(event);
                self.place_for_later_wait();
            }
        }
        result
    }

    /// `try_io` found the resource not ready: place it now (see
    /// [`Registration::ensure_placed`]). A failure (the runtime is gone,
    /// or the kernel refused) is not the caller's answer, which stays
    /// `WouldBlock` as tokio's is: the next wait places it again and
    /// reports that error.
    fn place_for_later_wait(&self) {
        let _ = self.ensure_placed();
    }

    /// A resource made off the workers gets its first poll at its first
    /// wait; one that is only ever tried (`try_read` in a loop) gets it
    /// when a try finds it not ready, so its readiness is tracked from
    /// then on.
    fn ensure_placed(&self) -> io::Result<()> {
        match &self.backend {
            Backend::Epoll(placement) => placement.on_wait(&self.shared),
            #[cfg(feature = "uring")]
            Backend::Uring(homed) => homed.ensure_placed(&self.shared),
        }
    }

    /// Waits until the resource is ready for `interest`.
    pub(crate) async fn readiness(&self, interest: Interest) -> io::Result<ReadyEvent> {
        let mut readiness = std::pin::pin!(self.shared.readiness(interest));
        let event = std::future::poll_fn(|cx| {
            let poll = readiness.as_mut().poll(cx);
            if poll.is_pending() {
                self.on_wait()?;
            }
            poll.map(Ok::<_, io::Error>)
        })
        .await?;
        if event.is_shutdown {
            return Err(shutdown_error());
        }
        Ok(event)
    }

    /// Waits for `interest` and runs `f`, until `f` returns something other
    /// than `WouldBlock`. Spends one unit of the task's cooperative budget
    /// per completed operation, as `poll_ready` does (tokio's `async_io`
    /// does the same), so a loop over an always-ready socket still yields.
    pub(crate) async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let event = self.readiness(interest).await?;
            let coop = std::future::poll_fn(coop::poll_proceed).await;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(event),
                result => {
                    coop.made_progress();
                    return result;
                }
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Nothing can wait on a dropped resource; drop the stored wakers so
        // their tasks are not kept alive by the reactor, then free the slot.
        self.shared.clear_wakers();
        #[cfg(tokio_unstable)]
        self.fd_counts.deregistered();
        match &self.backend {
            // The placement frees its slot when dropped.
            Backend::Epoll(_) => {}
            // Idempotent: a no-op after `deregister`. (A descriptor its
            // owner closes without deregistering first is not ours to
            // shut down.)
            #[cfg(feature = "uring")]
            Backend::Uring(homed) => {
                let _ = homed.deregister();
            }
        }
    }
}
