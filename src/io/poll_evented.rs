//! `PollEvented`: a non-blocking descriptor plus its registration, the
//! building block of every socket type in `net`.
//!
//! It owns the I/O object `E` (a std or socket2 socket in non-blocking
//! mode) and its [`Registration`]. Reads and writes go through `&E`'s
//! `Read`/`Write`, retried after each `WouldBlock` once the driver reports
//! readiness again. On drop the descriptor is deregistered from the epoll
//! set *before* `E` closes it (`Registration::close`).
use crate::io::{Interest, ReadBuf};
use crate::runtime::driver::registration::Registration;
use crate::runtime::driver::scheduled_io::Direction;
use std::io::{self, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{ready, Context, Poll};

pub(crate) struct PollEvented<E: AsRawFd> {
    io: Option<E>,
    registration: Registration,
    /// A stream's completion sends (io_uring mode with
    /// `Builder::uring_completion_io`, see `uring/send.rs`), made by its
    /// first write on a ring that runs them.
    #[cfg(feature = "uring")]
    sends: std::sync::OnceLock<std::sync::Arc<SendQueue>>,
    /// A stream's completion receives (same mode, `uring/recv.rs`), made
    /// by its first read on a ring that runs them.
    #[cfg(feature = "uring")]
    recvs: std::sync::OnceLock<std::sync::Arc<RecvQueue>>,
}

#[cfg(feature = "uring")]
use crate::runtime::driver::uring::recv::{Queued, RecvQueue};
#[cfg(feature = "uring")]
use crate::runtime::driver::uring::send::{completion_worker, SendQueue};

impl<E: AsRawFd> PollEvented<E> {
    /// Registers `io` (already non-blocking) for reading and writing.
    #[track_caller]
    pub(crate) fn new(io: E) -> io::Result<Self> {
        Self::new_with_interest(io, Interest::READABLE | Interest::WRITABLE)
    }

    #[track_caller]
    pub(crate) fn new_with_interest(io: E, interest: Interest) -> io::Result<Self> {
        let registration = Registration::new(io.as_raw_fd(), interest)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
            #[cfg(feature = "uring")]
            sends: std::sync::OnceLock::new(),
            #[cfg(feature = "uring")]
            recvs: std::sync::OnceLock::new(),
        })
    }

    /// As [`PollEvented::new_with_interest`], for a descriptor of a kind
    /// the caller has not checked: see `Registration::new_for_any_fd`.
    #[track_caller]
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn new_for_any_fd(io: E, interest: Interest) -> io::Result<Self> {
        let registration = Registration::new_for_any_fd(io.as_raw_fd(), interest)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
            #[cfg(feature = "uring")]
            sends: std::sync::OnceLock::new(),
            #[cfg(feature = "uring")]
            recvs: std::sync::OnceLock::new(),
        })
    }

    pub(crate) fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Deregisters and returns the I/O object (still non-blocking).
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        // Bytes still queued would be sent on a descriptor the caller now
        // owns (and may close, and its number be reused): refused until
        // they are flushed.
        #[cfg(feature = "uring")]
        if self.sends.get().is_some_and(|q| !q.is_idle()) {
            return Err(queued_error());
        }
        #[cfg(feature = "uring")]
        if let Some(queue) = self.recvs.get() {
            queue.detach()?;
        }
        let io = self.io.take().expect("I/O object present until drop");
        self.registration.deregister()?;
        Ok(io)
    }

    /// Reads into `buf` once readable: one `read(2)` on the descriptor,
    /// straight into the unfilled part of `buf`, which is never zeroed
    /// first (a reader such as hyper lends a fresh `ReadBuf` over
    /// uninitialised memory on every call, so zeroing it cost a `memset`
    /// of the whole window per read). A short read clears readiness
    /// without another syscall: for the stream sockets and pipes this
    /// serves, it means the receive queue was drained.
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.poll_read_with(cx, buf, read_uninit)
    }

    /// [`PollEvented::poll_read`] with `read` as the one syscall: `read(2)`
    /// for any descriptor, `recv(2)` for a stream socket.
    fn poll_read_with(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        read: fn(RawFd, &mut [MaybeUninit<u8>]) -> io::Result<usize>,
    ) -> Poll<io::Result<()>> {
        loop {
            let event = ready!(self.registration.poll_read_ready(cx))?;
            // SAFETY: `unfilled_mut` hands out bytes that may be
            // uninitialised; we never read them, and never de-initialise
            // any: the only writer is the kernel, through `read`.
            let unfilled = unsafe { buf.unfilled_mut() };
            let len = unfilled.len();
            match read(self.get_ref().as_raw_fd(), unfilled) {
                Ok(n) => {
                    if n > 0 && n < len {
                        self.registration.clear_readiness(event);
                    }
                    // SAFETY: the read returned `n`, the number of bytes
                    // it wrote at the start of the unfilled region.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(event);
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// A stream's `poll_read`: through the ring when the calling worker
    /// runs completion receives (`uring/recv.rs`), after any bytes already
    /// queued there; else [`PollEvented::poll_read`].
    pub(crate) fn poll_read_stream(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        #[cfg(feature = "uring")]
        {
            let worker = completion_worker();
            let queue = match (self.recvs.get(), &worker) {
                (Some(queue), _) => Some(queue),
                (None, Some(_)) => Some(self.recvs.get_or_init(|| {
                    RecvQueue::new(
                        self.get_ref().as_raw_fd(),
                        self.registration.scheduled_io().clone(),
                    )
                })),
                (None, None) => None,
            };
            if let Some(queue) = queue {
                // A unit of the task's budget, as the readiness path
                // spends (tokio's fairness: a task reading a full queue
                // yields once its budget is spent). Given back unless the
                // queue answered; the readiness path spends its own.
                let coop = ready!(crate::task::coop::poll_proceed(cx));
                if let Some(polled) = queue.poll_read(worker.as_ref(), cx, buf) {
                    if polled.is_ready() {
                        coop.made_progress();
                    }
                    return polled;
                }
                drop(coop);
                // Read through readiness (a bulk stream, or no ring): how
                // much came tells the queue when to go back to receives.
                let before = buf.filled().len();
                let polled = self.poll_read_with(cx, buf, recv_uninit);
                if let Poll::Ready(Ok(())) = polled {
                    queue.read_directly(buf.filled().len() - before);
                }
                return polled;
            }
        }
        self.poll_read_with(cx, buf, recv_uninit)
    }

    /// A non-waiting read of a stream (`try_read*`, `peek`) into `dst`:
    /// bytes queued by completion receives first (`copy` moves them and
    /// says how many; `consume`: whether they leave the queue),
    /// `WouldBlock` while a receive is armed with nothing queued (a read of
    /// its own could overtake it), else `direct`, on the socket.
    pub(crate) fn read_queued_or<T: ?Sized>(
        &self,
        consume: bool,
        dst: &mut T,
        copy: impl FnOnce(&[u8], &mut T) -> usize,
        direct: impl FnOnce(&mut T) -> io::Result<usize>,
    ) -> io::Result<usize> {
        #[cfg(feature = "uring")]
        if let Some(queue) = self.recvs.get() {
            return match queue.try_read(consume, |queued| copy(queued, dst)) {
                Queued::Done(result) => result,
                Queued::Wait => Err(io::ErrorKind::WouldBlock.into()),
                Queued::Direct => direct(dst),
            };
        }
        let _ = (consume, copy);
        direct(dst)
    }

    pub(crate) fn poll_write<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        self.registration
            .poll_io(cx, Direction::Write, || self.get_ref().write(buf))
    }

    pub(crate) fn poll_write_vectored<'a>(
        &'a self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        self.registration
            .poll_io(cx, Direction::Write, || self.get_ref().write_vectored(bufs))
    }

    /// A stream's `poll_write`: through the ring when the calling worker
    /// runs completion sends (`uring/send.rs`), else through readiness,
    /// after any bytes still queued from a completion write.
    pub(crate) fn poll_write_stream<'a>(
        &'a self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write,
    {
        #[cfg(feature = "uring")]
        {
            if let Some(worker) = completion_worker() {
                let queue = self
                    .sends
                    .get_or_init(|| SendQueue::new(self.get_ref().as_raw_fd()));
                // A unit of the task's budget, as in `poll_read_stream`.
                let coop = ready!(crate::task::coop::poll_proceed(cx));
                let polled = queue.poll_write(&worker, cx, bufs);
                if polled.is_ready() {
                    coop.made_progress();
                }
                return polled;
            }
            if let Some(queue) = self.sends.get() {
                ready!(queue.poll_drain(None, cx))?;
            }
        }
        if bufs.len() == 1 {
            self.poll_write(cx, &bufs[0])
        } else {
            self.poll_write_vectored(cx, bufs)
        }
    }

    /// A stream's `poll_flush`: waits until the bytes queued by completion
    /// writes are sent, and returns a failed send's error.
    pub(crate) fn poll_flush_stream(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        #[cfg(feature = "uring")]
        if let Some(queue) = self.sends.get() {
            let worker = completion_worker();
            return queue.poll_drain(worker.as_deref(), cx);
        }
        let _ = cx;
        Poll::Ready(Ok(()))
    }

    /// Whether a direct write now would overtake bytes still queued
    /// (`try_write` then returns `WouldBlock`).
    pub(crate) fn has_queued_sends(&self) -> bool {
        #[cfg(feature = "uring")]
        if let Some(queue) = self.sends.get() {
            return !queue.is_idle();
        }
        false
    }

    /// A dropped write half's `shutdown(SHUT_WR)`: deferred until the
    /// queued bytes are sent. Returns whether it was deferred.
    pub(crate) fn defer_shutdown_write(&self) -> bool {
        #[cfg(feature = "uring")]
        if let Some(queue) = self.sends.get() {
            return queue.shutdown_write_when_idle();
        }
        false
    }

    pub(crate) fn get_ref(&self) -> &E {
        self.io.as_ref().expect("I/O object present until drop")
    }
}

/// Copies the head of `src` into `dst`; returns how many bytes.
pub(crate) fn copy_to_uninit(src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
    let n = src.len().min(dst.len());
    // SAFETY: both ranges are `n` bytes long and in bounds, and cannot
    // overlap (`dst` is exclusively borrowed); this writes initialised
    // bytes only.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), n) };
    n
}

/// Copies the head of `src` across `dst` in order; returns how many bytes.
pub(crate) fn copy_to_slices(src: &[u8], dst: &mut [io::IoSliceMut<'_>]) -> usize {
    let mut n = 0;
    for slice in dst {
        let take = (src.len() - n).min(slice.len());
        slice[..take].copy_from_slice(&src[n..n + take]);
        n += take;
        if n == src.len() {
            break;
        }
    }
    n
}

/// Copies the head of `src` into `dst`; returns how many bytes.
pub(crate) fn copy_to(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len());
    dst[..n].copy_from_slice(&src[..n]);
    n
}

/// One `read(2)` on `fd` into possibly uninitialised memory.
pub(crate) fn read_uninit(fd: RawFd, dst: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    // SAFETY: `dst` is valid for writes of `dst.len()` bytes for the
    // duration of the call, and `read(2)` writes at most that many (and
    // only bytes it received, so nothing is de-initialised).
    let n = unsafe { libc::read(fd, dst.as_mut_ptr().cast(), dst.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// One `recv(2)` on the stream socket `fd` into possibly uninitialised
/// memory: what `read(2)` does on a socket, without the file layer's
/// per-call work (`fdget_pos`, `vfs_read`, `sock_read_iter`), as tokio's
/// streams read. Echo at 256 connections, io_uring mode: that layer was
/// 3.7% of the server's samples over the socket's own receive, against
/// tokio's 2.0% for `recvfrom`.
pub(crate) fn recv_uninit(fd: RawFd, dst: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    // SAFETY: `dst` is valid for writes of `dst.len()` bytes for the
    // duration of the call, and `recv(2)` writes at most that many (and
    // only bytes it received, so nothing is de-initialised).
    let n = unsafe { libc::recv(fd, dst.as_mut_ptr().cast(), dst.len(), 0) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `into_std` while completion sends are queued.
#[cfg(feature = "uring")]
fn queued_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::WouldBlock,
        "bytes written are still being sent; flush the stream first",
    )
}

#[cfg(feature = "uring")]
impl<E: AsRawFd> PollEvented<E> {
    /// Dropping a stream with completion sends queued: the queue takes the
    /// descriptor and closes it once they are sent (`SendQueue::hand_off`).
    /// Returns `io` when there is nothing to hand off.
    fn hand_off(&self, io: E) -> Option<E> {
        let queue = match self.sends.get() {
            Some(queue) if !queue.is_idle() => queue,
            _ => return Some(io),
        };
        // The ring's poll goes; the socket stays open for the sends.
        let _ = self.registration.deregister();
        let fd = io.as_raw_fd();
        // Only streams make a queue (`poll_write_stream`), and their `E`
        // is a std socket that owns nothing but its descriptor: forgetting
        // it leaks nothing, and the descriptor's ownership moves to the
        // `OwnedFd` below.
        std::mem::forget(io);
        // SAFETY: `fd` is open and owned by nobody else now (`io`, its
        // owner, was forgotten above without closing it).
        let owned = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        // Drained meanwhile: closed here, now.
        drop(queue.hand_off(owned));
        None
    }
}

impl<E: AsRawFd> std::ops::Deref for PollEvented<E> {
    type Target = E;
    fn deref(&self) -> &E {
        self.get_ref()
    }
}

impl<E: AsRawFd> Drop for PollEvented<E> {
    fn drop(&mut self) {
        if let Some(io) = self.io.take() {
            // An armed receive holds the socket's file (`uring/recv.rs`).
            #[cfg(feature = "uring")]
            let receiving = self.recvs.get().is_some_and(|queue| queue.on_drop());
            #[cfg(feature = "uring")]
            let Some(io) = self.hand_off(io) else {
                return;
            };
            #[cfg(feature = "uring")]
            if receiving {
                // Its cancel waits for another thread: the socket is shut
                // down so that it closes now all the same (`close.rs`).
                crate::runtime::driver::uring::close::shut_down(io.as_raw_fd());
            }
            // Deregistered before `io` closes the descriptor, so a new
            // resource reusing the number starts clean, and closed at once
            // whatever the driver's thread is doing.
            self.registration.close(io);
        }
    }
}

impl<E: AsRawFd + std::fmt::Debug> std::fmt::Debug for PollEvented<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollEvented").field("io", &self.io).finish()
    }
}
