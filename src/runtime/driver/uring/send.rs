//! Completion sends: a stream's `poll_write` copies into a buffer the ring
//! owns and returns at once; the ring sends it with its next submit
//! (`Builder::uring_completion_io`, io_uring mode only).
//!
//! **Why.** In readiness mode every `poll_write` is one `write(2)`, on top
//! of the `io_uring_enter` the worker makes anyway to wait. Here the
//! bytes of every write a socket makes in one turn of its worker are
//! gathered in the socket's [`SendQueue`] and go out as one `IORING_OP_SEND`
//! in the enter that ends the turn (`WorkerRing::maintain` or `park` call
//! [`SendTable::flush`] just before they submit): no syscall of its own.
//!
//! **The queue.** Per socket, `pending` (accepted, not yet submitted) and
//! at most one send in flight, `in_flight` (its buffer, and how much of it
//! the kernel has taken). One send at a time keeps the bytes in order
//! whatever worker reaps the completion: the completion continues a short
//! send from where it stopped, then submits what was queued meanwhile, on
//! the ring that reaped it (its owner is the thread running `complete`).
//! Bytes accepted and not yet sent are bounded by [`MAX_QUEUED`]: a write
//! past it is `Pending` and woken by the next completion (backpressure).
//!
//! **Large writes** go around the queue. A write of at least
//! [`BULK_BYTES`] that finds nothing queued is one non-blocking
//! `sendmsg(2)` on the spot, straight from the caller's buffer: copying it
//! into the queue costs a `memmove` of the message where the syscall costs
//! a fixed amount, and from about 8 KiB the copy loses (the same threshold
//! as the receives', `recv.rs`; at 16 KiB the copy was 5% of an echo
//! server's samples). Nothing queued means nothing it could overtake. A
//! socket that is full (`EAGAIN`) queues the write as usual. A stream's
//! first [`DIRECT_WRITES`] writes are sent on the spot the same way,
//! whatever their size: batching pays off over a connection's life, and a
//! connection that answers once and closes would otherwise wait for a
//! send completion before its flush and shutdown (`wrk` with
//! `Connection: close` at 16 connections: task polls per request 3.0 to
//! 1.8, completions 4.0 to 2.6, CPU per request 8% lower).
//!
//! **Errors.** A send that fails (`EPIPE`, `ECONNRESET`) drops what is
//! queued behind it and records the error; the next `poll_write`,
//! `poll_flush` or `poll_shutdown` returns it (once, then the socket's own
//! state answers, as a second `write(2)` would). A write that returned
//! `Ok(n)` means the bytes were *accepted*; `poll_flush` returning `Ok`
//! means every accepted byte was handed to the kernel's socket buffer,
//! which is what `Ok` from `write(2)` means in readiness mode.
//!
//! **Memory the kernel reads.** The in-flight buffer belongs to the
//! queue, and the queue (an `Arc`) is held by the ring's table from
//! submission to completion, so dropping the stream never frees it. A
//! stream dropped with bytes queued hands its descriptor to the queue
//! ([`SendQueue::hand_off`]), which closes it once the last byte is sent or
//! has failed: the bytes are delivered, then the FIN, as the kernel does
//! for bytes already in a socket buffer at `close(2)`. A ring that is let
//! go with sends in flight cancels them and waits (`quiesce`); one closed
//! by a shutdown that did not wait leaks their buffers ([`SendTable::orphan`],
//! as `op.rs` does), never frees them.
//!
//! **Interactions** (documented on the stream types too): `try_write`
//! returns `WouldBlock` while bytes are queued (writing past them would
//! reorder the stream); `writable()`/`poll_write_ready` report the socket's
//! readiness as before, which says nothing about the queue; `into_std`
//! fails with `WouldBlock` while bytes are queued (flush first), and the
//! raw descriptor is the socket's, with queued bytes still to come.
//! A write from a thread that owns no ring (outside the runtime's workers)
//! first waits for the queue to drain, then writes through readiness.
use super::recv::BULK_BYTES;
use super::ring::{Cqe, Ring, CANCEL_TOKEN};
use super::wake::UringMetrics;
use super::WorkerRing;
use io_uring::{opcode, types};
use std::io::{self, IoSlice};
use std::os::fd::{OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// The tag of a send's `user_data`: bit 63 set, bit 62 clear, so no
/// operation (`op::OP_BIT`, bit 62 alone), readiness poll (below 2^62)
/// nor reserved token (`u64::MAX`, `u64::MAX - 1`) has it.
const SEND_TAG: u64 = 1 << 63 | 1 << 61;
const TAG_MASK: u64 = 0b111 << 61;

/// Bytes one socket may have accepted and not yet sent.
pub(crate) const MAX_QUEUED: usize = 256 * 1024;

/// A stream's first writes go straight to the socket (one `sendmsg(2)`
/// each, when nothing is queued), as in readiness mode: a connection that
/// answers one request and closes (`Connection: close`, a health check)
/// then waits for no send completion before its flush and shutdown, and
/// its task runs once less. A long-lived stream batches from its third
/// write on.
const DIRECT_WRITES: u8 = 2;

/// A spare buffer above this capacity is freed rather than kept (a burst
/// of large writes does not pin its memory for the socket's lifetime).
const KEEP_SPARE: usize = 64 * 1024;

/// One non-blocking `sendmsg(2)` of `bufs` on `fd` (no `SIGPIPE`: a closed
/// peer is `EPIPE`, as everywhere in the runtime).
fn send_directly(fd: RawFd, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
    // SAFETY: an all-zero msghdr is a valid empty message.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = bufs.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = bufs.len().min(libc::UIO_MAXIOV as usize) as _;
    // SAFETY: `IoSlice` is ABI-compatible with `iovec` on Unix, and the
    // slices outlive the call; the kernel only reads them.
    let n = unsafe { libc::sendmsg(fd, &msg, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Locks `m`; a panic elsewhere while it was held leaves plain data
/// (also used by `recv.rs`).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One socket's completion sends (see the module docs).
#[derive(Debug)]
pub(crate) struct SendQueue {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    fd: RawFd,
    /// Accepted, not submitted.
    pending: Vec<u8>,
    /// The buffer the kernel reads, and how much of it it has taken.
    in_flight: Option<(Vec<u8>, usize)>,
    /// A sent buffer kept for the next submit (no allocation per send).
    spare: Vec<u8>,
    /// On a ring's flush list.
    scheduled: bool,
    /// A send's error, for the next write, flush or shutdown.
    error: Option<io::Error>,
    waker: Option<Waker>,
    /// The descriptor of a dropped stream, closed when the queue drains.
    owned: Option<OwnedFd>,
    /// A dropped write half's `shutdown(SHUT_WR)`, made when it drains.
    shutdown_when_idle: bool,
    /// Writes left that go straight to the socket when nothing is queued
    /// (see [`DIRECT_WRITES`]).
    direct_writes: u8,
}

impl Inner {
    fn queued(&self) -> usize {
        self.pending.len()
            + self
                .in_flight
                .as_ref()
                .map_or(0, |(b, sent)| b.len() - sent)
    }

    fn is_idle(&self) -> bool {
        self.pending.is_empty() && self.in_flight.is_none()
    }

    /// What a drained queue of a dropped stream still owes: the deferred
    /// half-close, then the close (after the lock, by dropping the fd).
    fn settle(&mut self) -> Option<OwnedFd> {
        if !self.is_idle() {
            return None;
        }
        if self.shutdown_when_idle {
            self.shutdown_when_idle = false;
            // SAFETY: `fd` is open: the stream or `owned` holds it while
            // the queue lives with work for it. An error (already
            // disconnected) leaves nothing to do.
            unsafe { libc::shutdown(self.fd, libc::SHUT_WR) };
        }
        self.owned.take()
    }
}

impl SendQueue {
    pub(crate) fn new(fd: RawFd) -> Arc<SendQueue> {
        Arc::new(SendQueue {
            inner: Mutex::new(Inner {
                fd,
                pending: Vec::new(),
                in_flight: None,
                spare: Vec::new(),
                scheduled: false,
                error: None,
                waker: None,
                owned: None,
                shutdown_when_idle: false,
                direct_writes: DIRECT_WRITES,
            }),
        })
    }

    /// Whether nothing is queued or in flight.
    pub(crate) fn is_idle(&self) -> bool {
        lock(&self.inner).is_idle()
    }

    /// Accepts as much of `bufs` as the bound allows, on `worker`, the
    /// calling thread's ring (its next submit sends it).
    pub(crate) fn poll_write(
        self: &Arc<Self>,
        worker: &WorkerRing,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut inner = lock(&self.inner);
        if let Some(e) = inner.error.take() {
            return Poll::Ready(Err(e));
        }
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if total == 0 {
            return Poll::Ready(Ok(0));
        }
        let direct = total >= BULK_BYTES || inner.direct_writes > 0;
        if direct && inner.is_idle() {
            inner.direct_writes = inner.direct_writes.saturating_sub(1);
            // Under the lock: no other write can queue in between.
            match send_directly(inner.fd, bufs) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                result => return Poll::Ready(result),
            }
        }
        let room = MAX_QUEUED.saturating_sub(inner.queued());
        if room == 0 {
            store_waker(&mut inner.waker, cx);
            return Poll::Pending;
        }
        let mut left = room.min(total);
        let n = left;
        for buf in bufs {
            let take = left.min(buf.len());
            inner.pending.extend_from_slice(&buf[..take]);
            left -= take;
            if left == 0 {
                break;
            }
        }
        if !inner.scheduled && inner.in_flight.is_none() {
            inner.scheduled = true;
            drop(inner);
            if let Err(e) = worker.sends().schedule(self.clone(), worker.is_closed()) {
                return Poll::Ready(Err(e));
            }
        }
        Poll::Ready(Ok(n))
    }

    /// Waits until every accepted byte was sent, or returns the error of
    /// the send that failed. `worker`: the calling thread's ring, which
    /// takes the queue if nobody holds it (after a cancelled send).
    pub(crate) fn poll_drain(
        self: &Arc<Self>,
        worker: Option<&WorkerRing>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        let mut inner = lock(&self.inner);
        if let Some(e) = inner.error.take() {
            return Poll::Ready(Err(e));
        }
        if inner.is_idle() {
            return Poll::Ready(Ok(()));
        }
        store_waker(&mut inner.waker, cx);
        if !inner.scheduled && inner.in_flight.is_none() {
            if let Some(worker) = worker {
                inner.scheduled = true;
                drop(inner);
                if let Err(e) = worker.sends().schedule(self.clone(), worker.is_closed()) {
                    return Poll::Ready(Err(e));
                }
            }
        }
        Poll::Pending
    }

    /// The stream is dropped: if bytes are still queued, the queue keeps
    /// `fd` and closes it once they are sent (or failed); otherwise `fd`
    /// comes back to be closed now.
    pub(crate) fn hand_off(&self, fd: OwnedFd) -> Option<OwnedFd> {
        let mut inner = lock(&self.inner);
        inner.waker = None;
        if inner.is_idle() {
            return Some(fd);
        }
        inner.owned = Some(fd);
        None
    }

    /// A write half dropped: `shutdown(SHUT_WR)` now if nothing is
    /// queued, else once the queue drains (a shutdown now would fail the
    /// bytes still to be sent).
    pub(crate) fn shutdown_write_when_idle(&self) -> bool {
        let mut inner = lock(&self.inner);
        if inner.is_idle() {
            return false;
        }
        inner.shutdown_when_idle = true;
        true
    }
}

/// Keeps `cx`'s waker in `slot`, cloning it only if it is a new one (also
/// used by `recv.rs`).
pub(super) fn store_waker(slot: &mut Option<Waker>, cx: &mut Context<'_>) {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => {}
        _ => *slot = Some(cx.waker().clone()),
    }
}

/// One ring's sends: the queues to submit at its next enter, and those
/// with a send in the kernel, by token.
#[derive(Debug, Default)]
pub(crate) struct SendTable {
    dirty: Mutex<Vec<Arc<SendQueue>>>,
    in_flight: Mutex<slab::Slab<Arc<SendQueue>>>,
    /// Sends the kernel holds. `Relaxed`: changed under `in_flight`'s
    /// lock; read by the owner (its own count is never stale to itself).
    count: AtomicUsize,
    /// Set while the owner quiesces: completions requeue instead of
    /// submitting more. Only the owner reads and writes it.
    quiescing: AtomicBool,
    /// Set at shutdown (under `dirty`'s lock): nothing is scheduled after.
    closed: AtomicBool,
}

impl SendTable {
    fn schedule(&self, queue: Arc<SendQueue>, ring_closed: bool) -> io::Result<()> {
        let mut dirty = lock(&self.dirty);
        // `Relaxed`: written under this lock.
        if ring_closed || self.closed.load(Ordering::Relaxed) {
            drop(dirty);
            let mut inner = lock(&queue.inner);
            inner.scheduled = false;
            inner.pending.clear();
            return Err(crate::runtime::driver::scheduled_io::shutdown_error());
        }
        dirty.push(queue);
        Ok(())
    }

    /// Sends the kernel holds.
    pub(crate) fn in_flight(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Pushes one send per scheduled queue; the caller's enter submits
    /// them. On the ring's owner.
    pub(crate) fn flush(&self, ring: &mut Ring, metrics: &UringMetrics) {
        let queues = {
            let mut dirty = lock(&self.dirty);
            if dirty.is_empty() {
                return;
            }
            std::mem::take(&mut *dirty)
        };
        for queue in queues {
            let mut inner = lock(&queue.inner);
            inner.scheduled = false;
            if inner.in_flight.is_none() && !inner.pending.is_empty() {
                let spare = std::mem::take(&mut inner.spare);
                let buf = std::mem::replace(&mut inner.pending, spare);
                inner.in_flight = Some((buf, 0));
                self.submit(&queue, &mut inner, ring, metrics);
            }
        }
    }

    /// Pushes the send of `inner.in_flight`'s unsent part.
    fn submit(
        &self,
        queue: &Arc<SendQueue>,
        inner: &mut Inner,
        ring: &mut Ring,
        metrics: &UringMetrics,
    ) {
        let (buf, sent) = inner.in_flight.as_ref().expect("a buffer to send");
        let rest = &buf[*sent..];
        let token = {
            let mut table = lock(&self.in_flight);
            self.count.fetch_add(1, Ordering::Relaxed);
            table.insert(queue.clone()) as u64
        };
        let entry = opcode::Send::new(types::Fd(inner.fd), rest.as_ptr(), rest.len() as u32)
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .user_data(SEND_TAG | token);
        // The buffer is the queue's, on the heap, untouched while in
        // flight; the queue is held by the table until the completion, and
        // the descriptor is held open by the stream or, once it is
        // dropped, by the queue itself (`hand_off`). See `Ring::push`.
        ring.push(&entry, metrics);
    }

    /// Applies the send completions in `cqes` (the others stay): a short
    /// send continues, a finished one submits what was queued behind it.
    pub(crate) fn complete(
        &self,
        cqes: &mut Vec<Cqe>,
        ring: &mut Ring,
        metrics: &UringMetrics,
        wakers: &mut Vec<Waker>,
    ) {
        if self.in_flight() == 0 {
            return;
        }
        let mut to_close = Vec::new();
        cqes.retain(|cqe| {
            if cqe.user_data & TAG_MASK != SEND_TAG {
                return true;
            }
            let index = (cqe.user_data & !TAG_MASK) as usize;
            let queue = {
                let mut table = lock(&self.in_flight);
                let Some(queue) = table.try_remove(index) else {
                    return false;
                };
                self.count.fetch_sub(1, Ordering::Relaxed);
                queue
            };
            let mut inner = lock(&queue.inner);
            self.on_completion(&queue, &mut inner, cqe.res, ring, metrics);
            wakers.extend(inner.waker.take());
            to_close.extend(inner.settle());
            false
        });
        // Closed after the locks.
        drop(to_close);
    }

    fn on_completion(
        &self,
        queue: &Arc<SendQueue>,
        inner: &mut Inner,
        res: i32,
        ring: &mut Ring,
        metrics: &UringMetrics,
    ) {
        let Some((buf, sent)) = inner.in_flight.take() else {
            return;
        };
        let quiescing = self.quiescing.load(Ordering::Relaxed);
        if res == -libc::ECANCELED {
            // Cancelled by `quiesce` before the kernel took anything: back
            // in front of the queue, for this worker's next owner.
            let mut rest = buf[sent..].to_vec();
            rest.extend_from_slice(&inner.pending);
            inner.pending = rest;
            self.requeue(queue, inner);
            return;
        }
        if res < 0 {
            inner.error = Some(io::Error::from_raw_os_error(-res));
            inner.pending.clear();
            return;
        }
        let sent = sent + res as usize;
        if sent < buf.len() {
            inner.in_flight = Some((buf, sent));
            if quiescing {
                let (buf, sent) = inner.in_flight.take().expect("just set");
                let mut rest = buf[sent..].to_vec();
                rest.extend_from_slice(&inner.pending);
                inner.pending = rest;
                self.requeue(queue, inner);
            } else {
                self.submit(queue, inner, ring, metrics);
            }
            return;
        }
        let mut buf = buf;
        buf.clear();
        if buf.capacity() <= KEEP_SPARE {
            inner.spare = buf;
        }
        if !inner.pending.is_empty() {
            if quiescing {
                self.requeue(queue, inner);
            } else {
                let spare = std::mem::take(&mut inner.spare);
                let next = std::mem::replace(&mut inner.pending, spare);
                inner.in_flight = Some((next, 0));
                self.submit(queue, inner, ring, metrics);
            }
        }
    }

    fn requeue(&self, queue: &Arc<SendQueue>, inner: &mut Inner) {
        if !inner.scheduled && !inner.pending.is_empty() {
            inner.scheduled = true;
            lock(&self.dirty).push(queue.clone());
        }
    }

    /// The owner is about to let go of the ring: cancels the sends in
    /// flight; their completions requeue what was not sent (see
    /// `quiesce`). Returns whether any was cancelled.
    pub(crate) fn cancel_all(&self, ring: &mut Ring, metrics: &UringMetrics) {
        self.quiescing.store(true, Ordering::Relaxed);
        let tokens: Vec<u64> = lock(&self.in_flight)
            .iter()
            .map(|(i, _)| i as u64)
            .collect();
        for token in tokens {
            let cancel = opcode::AsyncCancel::new(SEND_TAG | token)
                .build()
                .user_data(CANCEL_TOKEN);
            ring.push(&cancel, metrics);
        }
    }

    /// The quiesce is over.
    pub(crate) fn end_quiesce(&self) {
        self.quiescing.store(false, Ordering::Relaxed);
    }

    /// Shutdown: the ring is gone or going. Sends still in flight will
    /// never complete here: their buffers are kept forever (the kernel may
    /// still read them, see `op.rs`), their writers failed; queues waiting
    /// for a submit are dropped (a dropped stream's descriptor closes).
    pub(crate) fn orphan(&self) {
        let dirty = {
            let mut dirty = lock(&self.dirty);
            self.closed.store(true, Ordering::Relaxed);
            std::mem::take(&mut *dirty)
        };
        let in_flight: Vec<Arc<SendQueue>> = {
            let mut table = lock(&self.in_flight);
            self.count.store(0, Ordering::Relaxed);
            table.drain().collect()
        };
        let mut wakers = Vec::new();
        let mut fds = Vec::new();
        for queue in dirty.iter().chain(&in_flight) {
            let mut inner = lock(&queue.inner);
            if let Some((buf, _)) = inner.in_flight.take() {
                super::op::keep_forever(Box::new(buf));
            }
            inner.pending.clear();
            inner.scheduled = false;
            inner.error = Some(crate::runtime::driver::scheduled_io::shutdown_error());
            wakers.extend(inner.waker.take());
            fds.extend(inner.owned.take());
        }
        drop(fds);
        drop(wakers);
    }
}

/// Rings made with completion I/O on, in the process so far (never
/// decremented: it only spares every other program the ring lookup).
static COMPLETION_RINGS: AtomicUsize = AtomicUsize::new(0);

/// Notes a ring made with completion I/O on.
pub(crate) fn count_completion_ring() {
    // `Relaxed`: a hint; a ring's own worker made it before it runs tasks,
    // and thread start-up orders that.
    COMPLETION_RINGS.fetch_add(1, Ordering::Relaxed);
}

/// The calling thread's ring if it runs completion I/O (io_uring mode,
/// `Builder::uring_completion_io(true)`). A program that never turned it
/// on pays one load here per read and write.
pub(crate) fn completion_worker() -> Option<Arc<WorkerRing>> {
    if COMPLETION_RINGS.load(Ordering::Relaxed) == 0 {
        return None;
    }
    super::op::current_worker().filter(|w| w.completion_io())
}
