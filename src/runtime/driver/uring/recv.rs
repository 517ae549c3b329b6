//! Completion receives: a stream's `poll_read` that finds nothing queued
//! arms a multishot receive on the calling worker's ring; each time data
//! arrives the kernel fills a buffer of the ring's provided buffer ring
//! (`buf_ring.rs`) and posts a completion, and the owner copies the bytes
//! into the stream's [`RecvQueue`] when it reaps it, hands the buffer back
//! at once, and wakes the reader, which copies from the queue into its
//! `ReadBuf` (`Builder::uring_completion_io`, io_uring mode only).
//!
//! **Why.** In readiness mode a message costs a readiness completion, a
//! wakeup, then a `read(2)` of its own. Here the receive stays armed
//! across messages, and its completions carry the bytes: no syscall per
//! message (echo at 16 connections: 0.3-0.8 syscalls per round trip, all
//! of them `io_uring_enter`, against 2.2-2.5 in readiness mode).
//!
//! **One receive per stream, armed on demand, bounded.** A receive is
//! armed only by a reader that found the queue empty, and a stream has at
//! most one, so completions never reorder the stream, whatever ring reaps
//! them. It stays armed while its completions carry `F_MORE`. A stream
//! holds none of the ring's buffers (they go back at the reap that copies
//! them out), so one stream cannot starve the others of buffers. Its queue
//! is bounded: a completion that takes it past [`MAX_QUEUED`] cancels the
//! receive, the peer then waits in the kernel's socket buffer (TCP's
//! window), and the read that empties the queue arms a new one. A task
//! that never reads arms nothing and holds nothing.
//!
//! **Large messages** go around the queue. Its copy costs two `memmove`s
//! of every message where `read(2)` costs one syscall, which loses from
//! about 8 KiB (see [`BULK_BYTES`]). A completion that large marks the
//! stream bulk and stops its receive; its reads then go through readiness,
//! straight into the caller's buffer, until a few small reads in a row
//! hand it back to receives.
//!
//! **Which ring.** The calling worker's, which owns it. A task that moved
//! to another worker while its receive was armed keeps being woken from
//! the old ring until that receive ends (moving it needs a cancel, then
//! an arm on the new ring once the cancel completed, to keep the order;
//! not done).
//!
//! **Results.** Data goes to the queue; `0` is end of stream (kept: every
//! later read returns it, as `read(2)` would); an error is returned by the
//! next read, once (then a new receive asks the socket again).
//! `ECANCELED` (the bound, or the ring let go in `quiesce`) and a
//! multishot the kernel ended only wake the reader, which arms again.
//! Every result but those also sets the stream's readiness `READABLE` and
//! wakes the readiness waiters, so `readable()` followed by `try_read`
//! sees the queued bytes.
//!
//! **`ENOBUFS`**: the buffer ring ran dry within one reap (a burst of
//! arms over waiting data, or more messages than buffers between two
//! reaps; counted by `RuntimeMetrics::worker_recv_no_buffers_count`). The
//! stream's next read goes straight to the socket, once, through
//! readiness (marked `READABLE`: the kernel had something to put in a
//! buffer), and the read after the one that got there arms again. Arming again at once
//! would meet the same dry ring while the burst lasts: with N receives
//! armed over waiting data, each reap serves about as many as the ring
//! has buffers and fails the rest, N²/128 failed receives in all (98,216
//! for 5,000 sockets), where one read each costs N syscalls.
//! `tests/completion_recv_no_buffers.rs` exercises it and bounds the
//! count.
//!
//! **Interactions** (documented on the stream types too): `try_read`,
//! `try_read_vectored`, `try_read_buf` and `peek` take queued bytes first;
//! while a receive is armed and nothing is queued they report `WouldBlock`
//! (a `read(2)` of their own could overtake the armed receive), and the
//! receive's completion makes the stream readable again. `into_std`
//! cancels an armed receive on the owner and fails with `WouldBlock`
//! while bytes are queued or the receive is armed on another thread's
//! ring. A raw read of the descriptor (`AsRawFd`, `try_io`) does not see
//! queued bytes.
//!
//! **Drop.** A receive in the kernel holds the socket's file. Dropping the
//! stream on the ring's owner submits its cancel at once, so the socket
//! closes with its descriptor; anywhere else the cancel is a request to
//! the owner, and the socket is shut down first so that it closes now all
//! the same (`close.rs`). The queue (an `Arc`) is held by the ring's table
//! until the completion, and the buffer is the ring's: the kernel never
//! writes into memory the stream owned.
use super::buf_ring::GROUP;
use super::ring::{Cqe, Ring};
use super::send::{lock, store_waker};
use super::wake::UringMetrics;
use super::WorkerRing;
use crate::io::{ReadBuf, Ready};
use crate::runtime::driver::scheduled_io::{shutdown_error, ScheduledIo};
use io_uring::{opcode, squeue, types};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};

/// The tag of a receive's `user_data`: bits 63 and 62 set, bit 61 clear,
/// so no readiness poll (below 2^62), operation (`op::OP_BIT`, bit 62
/// alone), send (`send::SEND_TAG`, bits 63 and 61) nor reserved token
/// (`u64::MAX`, `u64::MAX - 1`, bit 61 set) has it.
pub(crate) const RECV_TAG: u64 = 1 << 63 | 1 << 62;
const TAG_MASK: u64 = 0b111 << 61;

/// Bytes a stream's queue holds before its receive is stopped (the
/// reader is not keeping up; see `complete`).
const MAX_QUEUED: usize = 64 * 1024;

/// A completion at least this large makes the stream a bulk one: it
/// reads through readiness, straight into the caller's buffer, until
/// [`SMALL_READS`] direct reads in a row found less than [`SMALL_BYTES`].
/// A copy through the queue costs two `memmove`s of the message, against
/// one `read(2)`: echo at 16 connections costs the same per round trip
/// both ways at 8 KiB messages, completion 0.8x readiness's at 2-4 KiB and
/// 1.3-1.4x at 16 KiB (`memmove` 13% of the server's samples).
pub(crate) const BULK_BYTES: usize = 8 * 1024;
/// See [`BULK_BYTES`].
const SMALL_BYTES: usize = 2 * 1024;
/// See [`BULK_BYTES`]: a stream of mixed sizes does not flip at every
/// message (each flip costs a cancel and an arm).
const SMALL_READS: u8 = 4;

/// A drained queue keeps its buffer up to this capacity (the next message
/// allocates nothing); a larger one is freed, so idle streams hold little.
const KEEP_CAPACITY: usize = 4 * 1024;

/// One stream's completion receives (see the module docs).
#[derive(Debug)]
pub(crate) struct RecvQueue {
    inner: Mutex<Inner>,
    /// The stream's readiness, set when a completion brings news.
    io: Arc<ScheduledIo>,
}

#[derive(Debug)]
enum Armed {
    No,
    /// On the ring's list, submitted at its next enter.
    Scheduled,
    /// In the kernel as `RECV_TAG | token` on this ring.
    InFlight(Weak<WorkerRing>, u64),
}

#[derive(Debug)]
struct Inner {
    fd: RawFd,
    /// Received bytes, `data[head..]` not yet read.
    data: Vec<u8>,
    head: usize,
    armed: Armed,
    eof: bool,
    /// A receive's error, for the next read.
    error: Option<io::Error>,
    waker: Option<Waker>,
    /// The stream is gone or leaving: nothing more is armed.
    detached: bool,
    /// The ring refused a buffer ring: this stream reads through readiness.
    readiness_only: bool,
    /// The armed receive's cancel is pushed (bound reached, bulk, or
    /// detached).
    stopping: bool,
    /// Large messages arrive: read through readiness (see [`BULK_BYTES`]).
    bulk: bool,
    /// Direct reads in a row that found less than [`SMALL_BYTES`].
    small_reads: u8,
    /// The last receive found the buffer ring empty (`ENOBUFS`): reads go
    /// straight to the socket until one returns, instead of arming again
    /// (a read that did not get to the socket, its task's budget spent or
    /// the socket not ready, leaves it set).
    starved: bool,
}

impl Inner {
    fn queued(&self) -> &[u8] {
        &self.data[self.head..]
    }

    fn consume(&mut self, n: usize) {
        self.head += n;
        if self.head == self.data.len() {
            self.head = 0;
            self.data.clear();
            if self.data.capacity() > KEEP_CAPACITY {
                self.data = Vec::new();
            }
        }
    }
}

/// What a read through the queue found.
pub(crate) enum Queued<T> {
    /// Served from the queue (or its end of stream, or its error).
    Done(T),
    /// Nothing queued, a receive is armed: wait for it.
    Wait,
    /// Nothing queued, nothing armed: read the socket directly.
    Direct,
}

impl RecvQueue {
    pub(crate) fn new(fd: RawFd, io: Arc<ScheduledIo>) -> Arc<RecvQueue> {
        Arc::new(RecvQueue {
            inner: Mutex::new(Inner {
                fd,
                data: Vec::new(),
                head: 0,
                armed: Armed::No,
                eof: false,
                error: None,
                waker: None,
                detached: false,
                readiness_only: false,
                stopping: false,
                bulk: false,
                small_reads: 0,
                starved: false,
            }),
            io,
        })
    }

    /// `poll_read`: queued bytes, else a receive armed on `worker` (the
    /// calling thread's ring) and `Pending`. `None`: read through
    /// readiness (nothing armed, and no ring to arm on).
    pub(crate) fn poll_read(
        self: &Arc<Self>,
        worker: Option<&Arc<WorkerRing>>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Option<Poll<io::Result<()>>> {
        let mut inner = lock(&self.inner);
        match take_queued(&mut inner, |bytes| {
            let n = bytes.len().min(buf.remaining());
            buf.put_slice(&bytes[..n]);
            n
        }) {
            Queued::Done(result) => return Some(Poll::Ready(result.map(|_| ()))),
            Queued::Wait => {}
            Queued::Direct => {
                let worker =
                    worker.filter(|_| !inner.readiness_only && !inner.bulk && !inner.starved)?;
                inner.armed = Armed::Scheduled;
                store_waker(&mut inner.waker, cx);
                drop(inner);
                worker.recvs().schedule(self.clone(), worker);
                return Some(Poll::Pending);
            }
        }
        store_waker(&mut inner.waker, cx);
        Some(Poll::Pending)
    }

    /// A non-waiting read (`try_read`, `peek`): `read` gets the queued
    /// bytes and returns how many it took, and `consume` says whether
    /// they leave the queue.
    pub(crate) fn try_read(
        &self,
        consume: bool,
        read: impl FnOnce(&[u8]) -> usize,
    ) -> Queued<io::Result<usize>> {
        let mut inner = lock(&self.inner);
        if consume {
            return take_queued(&mut inner, read);
        }
        if !inner.queued().is_empty() {
            return Queued::Done(Ok(read(inner.queued())));
        }
        take_queued(&mut inner, read)
    }

    /// A read through readiness (`poll_read` returned `None`) got `n`
    /// bytes: it ends a starved phase, and enough small ones in a row end
    /// a bulk phase.
    pub(crate) fn read_directly(&self, n: usize) {
        let mut inner = lock(&self.inner);
        inner.starved = false;
        if !inner.bulk {
            return;
        }
        if n >= SMALL_BYTES {
            inner.small_reads = 0;
            return;
        }
        inner.small_reads += 1;
        if inner.small_reads >= SMALL_READS {
            inner.bulk = false;
            inner.small_reads = 0;
        }
    }

    /// The stream is dropped. Returns whether an armed receive may still
    /// hold its file once this returns (see the module docs).
    pub(crate) fn on_drop(&self) -> bool {
        let armed = {
            let mut inner = lock(&self.inner);
            inner.detached = true;
            inner.stopping = true;
            inner.waker = None;
            inner.data = Vec::new();
            inner.head = 0;
            std::mem::replace(&mut inner.armed, Armed::No)
        };
        match armed {
            Armed::InFlight(worker, token) => worker
                .upgrade()
                .is_some_and(|worker| worker.cancel_recv(token, false)),
            // A scheduled arm finds the queue detached and is skipped.
            Armed::No | Armed::Scheduled => false,
        }
    }

    /// `into_std`: stops receiving. Fails while bytes are queued (they
    /// would be lost) or while a receive is armed on a ring this thread
    /// cannot cancel on at once.
    pub(crate) fn detach(&self) -> io::Result<()> {
        let armed = {
            let mut inner = lock(&self.inner);
            if !inner.queued().is_empty() {
                return Err(queued_error());
            }
            inner.detached = true;
            std::mem::replace(&mut inner.armed, Armed::No)
        };
        if let Armed::InFlight(worker, token) = armed {
            if worker
                .upgrade()
                .is_some_and(|ring| ring.cancel_recv(token, true))
            {
                // Its cancel waits for another thread: still armed as far
                // as the drop that follows this error knows, which shuts
                // the socket down so that it closes now.
                let mut inner = lock(&self.inner);
                inner.detached = false;
                inner.armed = Armed::InFlight(worker, token);
                return Err(queued_error());
            }
        }
        // A receive that raced the cancel delivered its bytes to the
        // queue (the owner's cancel reaps at once).
        let mut inner = lock(&self.inner);
        if !inner.queued().is_empty() {
            inner.detached = false;
            return Err(queued_error());
        }
        Ok(())
    }
}

/// The read side of a queue: queued bytes, then the end of stream or an
/// error, else whether a receive is armed.
fn take_queued(inner: &mut Inner, read: impl FnOnce(&[u8]) -> usize) -> Queued<io::Result<usize>> {
    if !inner.queued().is_empty() {
        let n = read(inner.queued());
        inner.consume(n);
        return Queued::Done(Ok(n));
    }
    if let Some(e) = inner.error.take() {
        return Queued::Done(Err(e));
    }
    if inner.eof {
        return Queued::Done(Ok(0));
    }
    match inner.armed {
        Armed::No => Queued::Direct,
        Armed::Scheduled | Armed::InFlight(..) => Queued::Wait,
    }
}

fn queued_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::WouldBlock,
        "bytes received are still queued or being received; read the stream first",
    )
}

/// One ring's receives: the queues to arm at its next enter, and those
/// with a receive in the kernel, by token.
#[derive(Debug, Default)]
pub(crate) struct RecvTable {
    to_arm: Mutex<Vec<(Arc<RecvQueue>, Weak<WorkerRing>)>>,
    in_flight: Mutex<slab::Slab<Arc<RecvQueue>>>,
    /// Receives the kernel holds. `Relaxed`: changed under `in_flight`'s
    /// lock; read by the owner, whose own count is never stale to itself.
    count: AtomicUsize,
}

impl RecvTable {
    fn schedule(&self, queue: Arc<RecvQueue>, worker: &Arc<WorkerRing>) {
        lock(&self.to_arm).push((queue, Arc::downgrade(worker)));
    }

    /// Receives the kernel holds.
    pub(crate) fn in_flight(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Pushes the scheduled receives; the caller's enter submits them. On
    /// the ring's owner.
    pub(crate) fn flush(&self, ring: &mut Ring, metrics: &UringMetrics, closed: bool) {
        let queues = {
            let mut to_arm = lock(&self.to_arm);
            if to_arm.is_empty() {
                return;
            }
            std::mem::take(&mut *to_arm)
        };
        let refused = if closed {
            Some(shutdown_error())
        } else {
            ring.buf_ring().err()
        };
        let mut wakers = Vec::new();
        for (queue, worker) in queues {
            let mut inner = lock(&queue.inner);
            if inner.detached || !matches!(inner.armed, Armed::Scheduled) {
                continue;
            }
            if let Some(e) = &refused {
                // No buffer ring on this kernel (or a closed runtime): the
                // stream reads through readiness from now on.
                inner.armed = Armed::No;
                if closed {
                    inner.error = Some(io::Error::new(e.kind(), e.to_string()));
                } else {
                    inner.readiness_only = true;
                }
                wakers.extend(inner.waker.take());
                continue;
            }
            let token = {
                let mut table = lock(&self.in_flight);
                self.count.fetch_add(1, Ordering::Relaxed);
                table.insert(queue.clone()) as u64
            };
            // Each completion: as much as the buffer the kernel picks
            // holds; the receive stays armed while they carry `F_MORE`.
            let entry = opcode::RecvMulti::new(types::Fd(inner.fd), GROUP)
                .build()
                .user_data(RECV_TAG | token);
            inner.armed = Armed::InFlight(worker, token);
            // The receive references no memory of the stream (the buffer
            // is the ring's), and the descriptor stays open until the
            // kernel resolved it: a dropper marks the queue detached under
            // this lock before it closes the descriptor, and this push is
            // submitted before the owner runs any task.
            ring.push(&entry, metrics);
        }
        for waker in wakers {
            waker.wake();
        }
    }

    /// Applies the receive completions in `cqes` (the others stay).
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
        let mut recycled = false;
        cqes.retain(|cqe| {
            if cqe.user_data & TAG_MASK != RECV_TAG {
                return true;
            }
            let index = (cqe.user_data & !TAG_MASK) as usize;
            let queue = {
                let mut table = lock(&self.in_flight);
                if cqe.more {
                    let Some(queue) = table.get(index) else {
                        return false;
                    };
                    queue.clone()
                } else {
                    let Some(queue) = table.try_remove(index) else {
                        return false;
                    };
                    self.count.fetch_sub(1, Ordering::Relaxed);
                    queue
                }
            };
            let buffer = io_uring::cqueue::buffer_select(cqe.flags);
            let mut inner = lock(&queue.inner);
            let ours = matches!(inner.armed, Armed::InFlight(_, token) if token == index as u64);
            if ours && !cqe.more {
                inner.armed = Armed::No;
            }
            let news = match cqe.res {
                n if n > 0 => {
                    if let (Some(id), false) = (buffer, inner.detached) {
                        let bytes = ring
                            .buf_ring()
                            .expect("a receive completed with a buffer: the ring has one")
                            .bytes(id, n as usize);
                        inner.data.extend_from_slice(bytes);
                        if n as usize >= BULK_BYTES {
                            inner.bulk = true;
                            inner.small_reads = 0;
                        }
                    }
                    Ready::READABLE
                }
                0 => {
                    inner.eof = true;
                    Ready::READABLE | Ready::READ_CLOSED
                }
                e if e == -libc::ENOBUFS => {
                    // The kernel had a buffer to fill (data waits, or it
                    // looked at an empty ring first): one read(2) of the
                    // reader's own takes it, where arming again would fail
                    // the same way while the ring stays dry.
                    UringMetrics::add(&metrics.recv_no_buffers, 1);
                    inner.starved = true;
                    Ready::READABLE
                }
                e if e == -libc::ECANCELED || e == -libc::EINTR => Ready::EMPTY,
                e => {
                    inner.error = Some(io::Error::from_raw_os_error(-e));
                    Ready::READABLE
                }
            };
            if let Some(id) = buffer {
                if let Ok(buf_ring) = ring.buf_ring() {
                    buf_ring.recycle(id);
                    recycled = true;
                }
            }
            let stop = inner.detached || inner.bulk || inner.queued().len() >= MAX_QUEUED;
            if cqe.more && stop && !inner.stopping {
                // A reader that does not keep up (or none): the receive
                // stops, the peer waits in the kernel's socket buffer, and
                // the next read that empties the queue arms again. A bulk
                // stream's next reads go through readiness.
                inner.stopping = true;
                ring.push(&cancel_entry(index as u64), metrics);
            }
            if !cqe.more {
                inner.stopping = false;
            }
            if !inner.detached {
                wakers.extend(inner.waker.take());
                if !news.is_empty() {
                    queue.io.set_readiness(news);
                    queue.io.take_wakers(news, wakers);
                }
            }
            false
        });
        if recycled {
            if let Ok(buf_ring) = ring.buf_ring() {
                buf_ring.publish();
            }
        }
    }

    /// The owner is about to let go of the ring: cancels the receives in
    /// flight (their completions wake the readers, who arm again on the
    /// ring their worker owns next).
    pub(crate) fn cancel_all(&self, ring: &mut Ring, metrics: &UringMetrics) {
        let tokens: Vec<u64> = lock(&self.in_flight)
            .iter()
            .map(|(i, _)| i as u64)
            .collect();
        for token in tokens {
            ring.push(&cancel_entry(token), metrics);
        }
    }

    /// The ring is gone (shutdown) or was replaced without settling its
    /// receives: they will never complete. Their readers are woken, with
    /// the shutdown error when `shutdown`. Returns whether any was in
    /// flight (the buffer ring must then be kept forever).
    pub(crate) fn orphan(&self, shutdown: bool) -> bool {
        let scheduled = std::mem::take(&mut *lock(&self.to_arm));
        let in_flight: Vec<Arc<RecvQueue>> = {
            let mut table = lock(&self.in_flight);
            self.count.store(0, Ordering::Relaxed);
            table.drain().collect()
        };
        let mut wakers = Vec::new();
        for queue in scheduled.iter().map(|(q, _)| q).chain(&in_flight) {
            let mut inner = lock(&queue.inner);
            inner.armed = Armed::No;
            if shutdown {
                inner.error = Some(shutdown_error());
            }
            wakers.extend(inner.waker.take());
        }
        for waker in wakers {
            waker.wake();
        }
        !in_flight.is_empty()
    }
}

/// The cancel of receive `token`; its own completion is dropped on success
/// and ignored otherwise (`CANCEL_TOKEN`).
pub(crate) fn cancel_entry(token: u64) -> squeue::Entry {
    opcode::AsyncCancel::new(RECV_TAG | token)
        .build()
        .flags(squeue::Flags::SKIP_SUCCESS)
        .user_data(super::ring::CANCEL_TOKEN)
}
