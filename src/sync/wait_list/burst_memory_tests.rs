//! Memory a primitive keeps after a burst: what users of long-lived
//! channels and locks rely on (a server that once queued a million
//! messages, or had 100k tasks waiting on a semaphore, must not keep that
//! memory for the rest of its life; tokio keeps none of it).
//!
//! Each test counts the bytes its own thread has live on the heap (a
//! counting global allocator, below), makes the primitive, takes that as
//! the baseline, runs a burst through it, empties it again, and checks
//! that what is still live is back within [`SLACK`] of the baseline while
//! the primitive is still alive. Each also checks that the burst itself
//! was counted (the peak), so a counter that stopped counting cannot pass.
//!
//! The count is per thread: the libtest threads around a test allocate
//! concurrently, and nothing here hands memory to another thread (the
//! futures are polled by hand with a no-op waker, no runtime).
//!
//! This module owns the lib test binary's `#[global_allocator]` (there can
//! be one per binary); it sits under `wait_list` because the waiter lists
//! are one of the queues it measures, next to the mpsc queue.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// How far above the baseline a drained primitive may stay: a few of the
/// fixed blocks or pages kept for reuse. The bursts below are 5 MiB to
/// 64 MiB, hundreds to thousands of times more.
const SLACK: isize = 16 * 1024;

struct Counting;

thread_local! {
    /// Bytes allocated minus bytes freed by this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: an allocation during the thread's teardown is not
    // counted rather than aborting. (A `const` `Cell` needs no lazy
    // initialisation and no destructor, so this itself never allocates.)
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are this allocator's; the counting
// only touches a thread-local `Cell`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`,
        // with `layout` (the caller's contract).
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and `new_size` meets `realloc`'s contract.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        new
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Tracks the baseline and the peak of this thread's live bytes.
struct Meter {
    base: isize,
    peak: isize,
}

impl Meter {
    fn start() -> Meter {
        let base = live();
        Meter { base, peak: base }
    }

    fn sample(&mut self) {
        self.peak = self.peak.max(live());
    }

    /// Checks that the burst was seen (at least `burst` bytes above the
    /// baseline at its peak) and that the memory went back.
    #[track_caller]
    fn assert_given_back(&mut self, what: &str, burst: isize) {
        self.sample();
        let grew = self.peak - self.base;
        assert!(
            grew >= burst,
            "{what}: the burst was not counted ({grew} bytes at the peak, expected >= {burst})"
        );
        let kept = live() - self.base;
        assert!(
            kept <= SLACK,
            "{what}: {kept} bytes still held after the burst was drained \
             ({grew} at the peak; at most {SLACK} may stay)"
        );
    }
}

fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(Waker::noop()))
}

const MESSAGES: usize = 1 << 20;
type Message = [u8; 64];
const MESSAGE_BYTES: isize = (MESSAGES * std::mem::size_of::<Message>()) as isize;
const WAITERS: usize = 100_000;

#[test]
fn an_unbounded_channel_gives_back_a_drained_burst() {
    let (tx, mut rx) = crate::sync::mpsc::unbounded_channel::<Message>();
    let mut meter = Meter::start();
    for round in 0..2u8 {
        for i in 0..MESSAGES {
            tx.send([i as u8; 64]).unwrap();
        }
        meter.sample();
        for i in 0..MESSAGES {
            assert_eq!(rx.try_recv().unwrap()[0], i as u8, "round {round}");
        }
        meter.assert_given_back("unbounded mpsc", MESSAGE_BYTES);
    }
}

#[test]
fn a_bounded_channel_gives_back_a_drained_burst() {
    let (tx, mut rx) = crate::sync::mpsc::channel::<Message>(MESSAGES);
    let mut meter = Meter::start();
    for i in 0..MESSAGES {
        tx.try_send([i as u8; 64]).unwrap();
    }
    meter.sample();
    // Half one by one, half in batches (`recv_many`).
    for i in 0..MESSAGES / 2 {
        assert_eq!(rx.try_recv().unwrap()[0], i as u8);
    }
    let mut batch = Vec::with_capacity(1000);
    let mut got = MESSAGES / 2;
    while got < MESSAGES {
        let n = futures::executor::block_on(rx.recv_many(&mut batch, 1000));
        got += n;
        batch.clear();
    }
    drop(batch);
    meter.assert_given_back("bounded mpsc", MESSAGE_BYTES);
    assert_eq!(tx.capacity(), MESSAGES);
}

#[test]
fn a_bounded_channel_gives_back_the_entries_of_cancelled_senders() {
    let (tx, _rx) = crate::sync::mpsc::channel::<u32>(1);
    tx.try_send(0).unwrap();
    let mut meter = Meter::start();
    let mut waiting: Vec<Pin<Box<dyn Future<Output = _>>>> = Vec::with_capacity(WAITERS);
    for _ in 0..WAITERS {
        let mut reserve = Box::pin(tx.reserve());
        assert!(poll_once(reserve.as_mut()).is_pending());
        waiting.push(reserve);
    }
    meter.sample();
    // Cancelled in arrival order, as timeouts would.
    drop(waiting);
    meter.assert_given_back("mpsc senders waiting for capacity", 5 << 20);
}

#[test]
fn a_semaphore_gives_back_the_entries_of_cancelled_waiters() {
    let semaphore = crate::sync::Semaphore::new(0);
    let mut meter = Meter::start();
    let mut waiting: Vec<Pin<Box<dyn Future<Output = _>>>> = Vec::with_capacity(WAITERS);
    for _ in 0..WAITERS {
        let mut acquire = Box::pin(semaphore.acquire());
        assert!(poll_once(acquire.as_mut()).is_pending());
        waiting.push(acquire);
    }
    meter.sample();
    drop(waiting);
    meter.assert_given_back("semaphore waiters", 5 << 20);
    // And served ones, granted in a burst of permits.
    let mut waiting: Vec<Pin<Box<dyn Future<Output = _>>>> = Vec::with_capacity(WAITERS);
    for _ in 0..WAITERS {
        let mut acquire = Box::pin(semaphore.acquire());
        assert!(poll_once(acquire.as_mut()).is_pending());
        waiting.push(acquire);
    }
    semaphore.add_permits(WAITERS);
    for acquire in &mut waiting {
        match poll_once(acquire.as_mut()) {
            Poll::Ready(Ok(permit)) => permit.forget(),
            _ => panic!("a waiter was not served"),
        }
    }
    drop(waiting);
    meter.assert_given_back("semaphore waiters served", 5 << 20);
}

#[test]
fn a_notify_gives_back_the_entries_of_dropped_waiters() {
    let notify = crate::sync::Notify::new();
    let mut meter = Meter::start();
    let mut waiting = Vec::with_capacity(WAITERS);
    for _ in 0..WAITERS {
        let mut notified = Box::pin(notify.notified());
        notified.as_mut().enable();
        waiting.push(notified);
    }
    meter.sample();
    drop(waiting);
    meter.assert_given_back("notify waiters", 3 << 20);
}

#[test]
fn a_broadcast_channel_gives_back_the_entries_of_waiting_receivers() {
    let (tx, rx) = crate::sync::broadcast::channel::<u32>(4);
    let mut receivers: Vec<_> = (0..WAITERS).map(|_| rx.resubscribe()).collect();
    let mut meter = Meter::start();
    let mut waiting: Vec<Pin<Box<dyn Future<Output = _>>>> = Vec::with_capacity(WAITERS);
    for rx in &mut receivers {
        let mut recv = Box::pin(rx.recv());
        assert!(poll_once(recv.as_mut()).is_pending());
        waiting.push(recv);
    }
    meter.sample();
    drop(waiting);
    meter.assert_given_back("broadcast receivers waiting", 3 << 20);
    // Still a working channel.
    assert_eq!(tx.send(1).unwrap(), WAITERS + 1);
}
