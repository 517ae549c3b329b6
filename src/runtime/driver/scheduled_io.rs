//! The state one registered resource shares with its driver: readiness and
//! the wakers of the tasks waiting for it.
//!
//! **Readiness word.** One atomic holds the readiness bits (low 16 bits),
//! a *tick* (bits 16..32) and a shutdown flag (bit 32). The driver ORs new
//! readiness in and bumps the tick on every event it delivers. An
//! operation that returns `WouldBlock` clears the readiness it acted on,
//! but only if the tick is still the one it observed: readiness that
//! arrived after the observation (a newer tick) is never cleared by a stale
//! `WouldBlock`, so an edge-triggered event cannot be lost. Closed bits are
//! never cleared: a closed side stays closed.
//!
//! **Waiters.** `poll_read_ready`/`poll_write_ready` each keep one waker
//! slot (tokio's contract: only the most recent task polling a direction
//! is woken); the `readiness` future (`readable()`, `writable()`,
//! `ready()`) keeps one entry per future in a slab, so any number of tasks
//! may wait at once. All of it sits behind one mutex that is held only to
//! store or take wakers, never while waking.
//!
//! **No lost wakeups.** The driver updates the readiness word *before* it
//! takes the waiter lock; a poller checks the word *under* the lock before
//! it stores its waker. Whichever takes the lock second sees the other's
//! write.
use crate::io::{Interest, Ready};
use crate::loom::sync::atomic::{AtomicU64, Ordering::AcqRel, Ordering::Acquire};
use crate::loom::sync::Mutex;
use slab::Slab;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

const READY_MASK: u64 = 0xffff;
const TICK_SHIFT: u32 = 16;
const TICK_MASK: u64 = 0xffff << TICK_SHIFT;
const SHUTDOWN: u64 = 1 << 32;

/// A snapshot of a resource's readiness, used to clear exactly what was
/// observed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadyEvent {
    pub(crate) tick: u16,
    pub(crate) ready: Ready,
    pub(crate) is_shutdown: bool,
}

/// The direction a `poll_*_ready` caller waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Read,
    Write,
}

impl Direction {
    pub(crate) fn interest(self) -> Interest {
        match self {
            Direction::Read => Interest::READABLE,
            Direction::Write => Interest::WRITABLE,
        }
    }
}

#[derive(Debug, Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
    list: Slab<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    interest: Interest,
    waker: Option<Waker>,
}

#[derive(Debug)]
pub(crate) struct ScheduledIo {
    /// `Acquire`/`AcqRel` suffice: the word carries no data beyond itself,
    /// and the waiter handshake is ordered by the waiter mutex (see the
    /// module docs); `Acquire` on loads pairs with the driver's `AcqRel`
    /// update so what the kernel reported is seen with it.
    readiness: AtomicU64,
    waiters: Mutex<Waiters>,
}

/// The error every operation on a resource returns once its runtime has
/// shut down (recognised by `runtime::is_rt_shutdown_err`).
pub(crate) use crate::runtime::shutdown_error;

impl ScheduledIo {
    pub(crate) fn new() -> ScheduledIo {
        ScheduledIo {
            readiness: AtomicU64::new(0),
            waiters: Mutex::new(Waiters::default()),
        }
    }

    /// The readiness matching `interest` right now.
    pub(crate) fn ready_event(&self, interest: Interest) -> ReadyEvent {
        let word = self.readiness.load(Acquire);
        ReadyEvent {
            tick: ((word & TICK_MASK) >> TICK_SHIFT) as u16,
            ready: Ready::from_usize((word & READY_MASK) as usize) & interest.mask(),
            is_shutdown: word & SHUTDOWN != 0,
        }
    }

    /// Driver side: ORs `ready` in and advances the tick.
    pub(crate) fn set_readiness(&self, ready: Ready) {
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |word| {
            let tick = ((word & TICK_MASK) >> TICK_SHIFT).wrapping_add(1) & 0xffff;
            let bits = (word & READY_MASK) | ready.as_usize() as u64;
            Some((word & SHUTDOWN) | (tick << TICK_SHIFT) | bits)
        });
    }

    /// Clears what `event` observed, unless newer readiness arrived since
    /// (the tick moved). Closed bits stay.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        let clear = event.ready - Ready::READ_CLOSED - Ready::WRITE_CLOSED;
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |word| {
            let tick = ((word & TICK_MASK) >> TICK_SHIFT) as u16;
            if tick != event.tick {
                return None;
            }
            Some(word & !(clear.as_usize() as u64))
        });
    }

    /// Marks the resource shut down (runtime shutdown or deregistration)
    /// and wakes every waiter, so nobody waits on it forever.
    pub(crate) fn shutdown(&self) {
        self.readiness.fetch_or(SHUTDOWN, AcqRel);
        self.wake(Ready::ALL);
    }

    /// [`ScheduledIo::shutdown`] for a driver holding its locks: the
    /// wakers are moved into `out`, for the caller to wake after.
    #[cfg_attr(not(feature = "uring"), allow(dead_code))]
    pub(crate) fn shut_down_into(&self, out: &mut Vec<Waker>) {
        self.readiness.fetch_or(SHUTDOWN, AcqRel);
        self.take_wakers(Ready::ALL, out);
    }

    /// Wakes the waiters whose interest `ready` satisfies.
    pub(crate) fn wake(&self, ready: Ready) {
        let mut wakers = Vec::new();
        self.take_wakers(ready, &mut wakers);
        for waker in wakers {
            waker.wake();
        }
    }

    /// Moves the wakers that `ready` satisfies into `out` (the driver wakes
    /// them after releasing its locks).
    pub(crate) fn take_wakers(&self, ready: Ready, out: &mut Vec<Waker>) {
        let is_shutdown = self.readiness.load(Acquire) & SHUTDOWN != 0;
        let satisfies = |interest: Interest| is_shutdown || !(interest.mask() & ready).is_empty();
        let mut waiters = self.waiters.lock().unwrap();
        if satisfies(Interest::READABLE) {
            out.extend(waiters.reader.take());
        }
        if satisfies(Interest::WRITABLE) {
            out.extend(waiters.writer.take());
        }
        for (_, waiter) in waiters.list.iter_mut() {
            if satisfies(waiter.interest) {
                out.extend(waiter.waker.take());
            }
        }
    }

    /// Drops every stored waker (the resource is going away).
    pub(crate) fn clear_wakers(&self) {
        let mut waiters = self.waiters.lock().unwrap();
        waiters.reader = None;
        waiters.writer = None;
    }

    /// `poll_read_ready` / `poll_write_ready`: ready, or the waker is
    /// stored in the direction's single slot.
    pub(crate) fn poll_readiness(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<ReadyEvent> {
        let interest = direction.interest();
        let event = self.ready_event(interest);
        if !event.ready.is_empty() || event.is_shutdown {
            return Poll::Ready(event);
        }
        let mut waiters = self.waiters.lock().unwrap();
        let event = self.ready_event(interest);
        if !event.ready.is_empty() || event.is_shutdown {
            return Poll::Ready(event);
        }
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
        };
        match slot {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// A future that resolves once the readiness satisfies `interest`.
    pub(crate) fn readiness(&self, interest: Interest) -> Readiness<'_> {
        Readiness {
            io: self,
            interest,
            key: None,
        }
    }
}

/// See [`ScheduledIo::readiness`]. Dropping it removes its waiter entry.
#[derive(Debug)]
pub(crate) struct Readiness<'a> {
    io: &'a ScheduledIo,
    interest: Interest,
    key: Option<usize>,
}

impl Future for Readiness<'_> {
    type Output = ReadyEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ReadyEvent> {
        let this = &mut *self;
        let event = this.io.ready_event(this.interest);
        if !event.ready.is_empty() || event.is_shutdown {
            this.remove();
            return Poll::Ready(event);
        }
        let mut waiters = this.io.waiters.lock().unwrap();
        let event = this.io.ready_event(this.interest);
        if !event.ready.is_empty() || event.is_shutdown {
            if let Some(key) = this.key.take() {
                waiters.list.remove(key);
            }
            return Poll::Ready(event);
        }
        match this.key {
            Some(key) => {
                let waiter = &mut waiters.list[key];
                match &waiter.waker {
                    Some(waker) if waker.will_wake(cx.waker()) => {}
                    _ => waiter.waker = Some(cx.waker().clone()),
                }
            }
            None => {
                this.key = Some(waiters.list.insert(Waiter {
                    interest: this.interest,
                    waker: Some(cx.waker().clone()),
                }));
            }
        }
        Poll::Pending
    }
}

impl Readiness<'_> {
    fn remove(&mut self) {
        if let Some(key) = self.key.take() {
            self.io.waiters.lock().unwrap().list.remove(key);
        }
    }
}

impl Drop for Readiness<'_> {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::*;

    #[test]
    fn stale_clear_keeps_newer_readiness() {
        let io = ScheduledIo::new();
        io.set_readiness(Ready::READABLE);
        let seen = io.ready_event(Interest::READABLE);
        assert!(seen.ready.is_readable());
        // A new edge arrives before the reader's `WouldBlock` is handled.
        io.set_readiness(Ready::READABLE);
        io.clear_readiness(seen);
        assert!(io.ready_event(Interest::READABLE).ready.is_readable());
        // Clearing with the current tick does clear.
        let now = io.ready_event(Interest::READABLE);
        io.clear_readiness(now);
        assert!(io.ready_event(Interest::READABLE).ready.is_empty());
    }

    #[test]
    fn closed_bits_are_never_cleared() {
        let io = ScheduledIo::new();
        io.set_readiness(Ready::READABLE | Ready::READ_CLOSED);
        let seen = io.ready_event(Interest::READABLE);
        io.clear_readiness(seen);
        let after = io.ready_event(Interest::READABLE);
        assert!(after.ready.is_read_closed() && after.ready.is_readable());
    }
}
