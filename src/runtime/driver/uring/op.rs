//! Kernel operations through a worker's ring that own their memory until
//! the kernel completes them (reads and writes of files, opens, `statx`,
//! `fsync`, closes).
//!
//! Unlike the readiness polls of `io.rs`, such an operation gives the kernel
//! a pointer (the buffer of a read, the path of an open), so the memory
//! must outlive the operation, not the future that started it. The rules,
//! after tokio-uring's design notes:
//!
//! * **The operation owns its data** ([`OpData`]): buffers, paths and the
//!   file it works on (an `Arc`, so the descriptor stays open) travel in
//!   the future, in heap allocations that do not move when it moves.
//! * **A dropped future abandons its data to the table** ([`OpTable`]): the
//!   slot keeps it until the completion arrives and frees it then. The
//!   kernel never writes into freed memory and nothing leaks.
//! * **Only the ring's owner starts an operation**, from a task it polls
//!   (`SINGLE_ISSUER`). Any other caller (a thread that is not a worker, a
//!   runtime in legacy mode) gets its data back ([`Op`] resolves to
//!   [`Unrun::NoRing`]) and does the work another way, on the blocking
//!   pool.
//! * **Completion** lands in the owner's CQ and is routed here by the
//!   token's [`OP_BIT`]; the result waits in the slot for the future,
//!   which may by then be polled on another worker (the table is shared).
//!   A read of a cached file completes during the submit itself, so the
//!   first poll usually returns the result with no wait.
//! * **No ring is let go with operations in flight.** The ring belongs to
//!   its thread; when the core leaves the thread (`block_in_place`, the end
//!   of a current-thread `block_on`, a worker stopping at shutdown) the
//!   owner cancels what is in flight and waits for the completions
//!   ([`super::WorkerRing::quiesce`]), so a replaced or closed ring never holds
//!   memory. A cancelled operation whose future lives is simply started
//!   again on its next poll, wherever that is.
//! * **Except at a shutdown that does not wait** (`shutdown_background`)
//!   for a worker busy in a task: its ring is closed with operations in
//!   flight, whose memory the kernel may still write. That memory is
//!   leaked, the rest of each operation's data dropped ([`OpTable::orphan`],
//!   `OpData::orphan`), and a future polled after that resolves to
//!   [`Unrun::Orphaned`] (it would otherwise wait for a completion that
//!   never comes).
use super::ring::Cqe;
use crate::runtime::{context, scheduler};
use io_uring::squeue;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Set in the token of every operation; never in a readiness poll's token
/// (their generations stay below 2^30) nor in the driver's reserved ones.
pub(crate) const OP_BIT: u64 = 1 << 62;

/// The data of one kind of operation, and the submission entry it makes.
///
/// # Safety
///
/// Every pointer that [`OpData::entry`] puts in the entry must point into
/// memory owned by `self` through a heap allocation (a `Vec`, `Box`,
/// `CString`, or an `Arc` it holds), which does not move when `self`
/// moves and stays valid until `self` is dropped. Every descriptor in the
/// entry must be kept open by `self` (it owns it or holds an `Arc` of its
/// owner) for as long as `self` lives.
pub(crate) unsafe trait OpData: Send + Unpin + 'static {
    /// The entry to submit (its `user_data` is set by the driver). Called
    /// again when a cancelled operation is started again.
    fn entry(&mut self) -> squeue::Entry;

    /// The operation completed (result `res`) after its future was
    /// dropped. By default the data is simply freed; an operation that
    /// took ownership of a resource (a close takes a descriptor) releases
    /// it here if the kernel did not (`-ECANCELED`).
    fn complete_abandoned(self, res: i32)
    where
        Self: Sized,
    {
        let _ = res;
    }

    /// The ring was let go with the operation in flight (see
    /// [`OpTable::orphan`]): no completion will come, and the kernel may
    /// still read or write the memory the entry points to. Returns that
    /// memory, which is never freed (see `ORPHANED`); the rest of the data
    /// is dropped, so that
    /// nothing else outlives the runtime: a file the operation works on is
    /// closed (the kernel resolved the descriptor at submission and holds
    /// its own reference to the file), a runtime handle is let go.
    fn orphan(self) -> Box<dyn Send>
    where
        Self: Sized;
}

/// Memory the kernel may still read or write: that of operations whose
/// ring was let go with them in flight (see [`OpTable::orphan`]). Nothing
/// tells when the kernel is done with it, so it is kept as long as the
/// process lives, never freed; kept here rather than forgotten, so that it
/// stays reachable and a leak checker (the AddressSanitizer run in CI)
/// sees it is kept on purpose.
static ORPHANED: Mutex<Vec<Box<dyn Send>>> = Mutex::new(Vec::new());

pub(crate) fn keep_forever(memory: Box<dyn Send>) {
    ORPHANED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(memory);
}

/// An abandoned operation's data, type-erased.
trait Abandoned: Send {
    fn complete(self: Box<Self>, res: i32);
    fn orphan(self: Box<Self>);
}

impl<T: OpData> Abandoned for T {
    fn complete(self: Box<Self>, res: i32) {
        (*self).complete_abandoned(res);
    }

    fn orphan(self: Box<Self>) {
        keep_forever((*self).orphan());
    }
}

enum Slot {
    /// In the kernel; the future waits with this waker.
    Pending(Option<Waker>),
    /// Completed with this result; the future has not taken it yet.
    Done(i32),
    /// The future was dropped: the data is kept until the completion.
    Abandoned(Box<dyn Abandoned>),
}

/// The operations of one ring: a slot per operation from its submission
/// to its completion (or, if the future is still alive then, to the
/// future's taking the result).
#[derive(Default)]
pub(crate) struct OpTable {
    slots: Mutex<slab::Slab<Slot>>,
    /// Operations the kernel holds (submitted, not completed). `Relaxed`:
    /// it is changed under `slots`' lock and publishes nothing. Its
    /// readers outside the lock are the owner's quiesce (only the owner
    /// starts operations and reaps their completions, so its own count is
    /// never stale to itself) and idle workers deciding whether to spin
    /// before they park, for whom a stale value costs a spin or a park,
    /// never a lost wakeup.
    in_flight: AtomicUsize,
    /// Set (under `slots`' lock) when shutdown let go of the ring with
    /// operations still in flight (see [`OpTable::orphan`]).
    orphaned: AtomicBool,
}

impl OpTable {
    /// A slot for an operation about to be submitted; returns its token.
    pub(crate) fn insert(&self) -> u64 {
        let mut slots = self.slots.lock().unwrap();
        let index = slots.insert(Slot::Pending(None));
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        index as u64 | OP_BIT
    }

    /// Operations the kernel holds.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// The tokens of the operations in flight.
    pub(crate) fn in_flight_tokens(&self) -> Vec<u64> {
        let slots = self.slots.lock().unwrap();
        slots
            .iter()
            .filter(|(_, slot)| !matches!(slot, Slot::Done(_)))
            .map(|(index, _)| index as u64 | OP_BIT)
            .collect()
    }

    /// Applies the completions of operations in `cqes` (the others stay);
    /// collects the wakers to call.
    pub(crate) fn complete(&self, cqes: &mut Vec<Cqe>, wakers: &mut Vec<Waker>) {
        if !cqes.iter().any(|cqe| cqe.user_data & OP_BIT != 0) {
            return;
        }
        let mut abandoned = Vec::new();
        let mut slots = self.slots.lock().unwrap();
        cqes.retain(|cqe| {
            if cqe.user_data & OP_BIT == 0 || cqe.user_data >> 63 != 0 {
                return true;
            }
            let index = (cqe.user_data & !OP_BIT) as usize;
            let Some(slot) = slots.get_mut(index) else {
                return false;
            };
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
            match std::mem::replace(slot, Slot::Done(cqe.res)) {
                Slot::Pending(waker) => wakers.extend(waker),
                // Nobody waits: the data (and with it a buffer the kernel
                // wrote into) is released now that the kernel is done with
                // it, after the lock.
                Slot::Abandoned(data) => {
                    slots.remove(index);
                    abandoned.push((data, cqe.res));
                }
                Slot::Done(_) => unreachable!("two completions for one operation"),
            }
            false
        });
        drop(slots);
        for (data, res) in abandoned {
            data.complete(res);
        }
    }

    /// The future of `token` asks for its result: `Ready(None)` when it
    /// will never come (orphaned).
    fn poll(&self, token: u64, cx: &mut Context<'_>) -> Poll<Option<i32>> {
        let index = (token & !OP_BIT) as usize;
        let mut slots = self.slots.lock().unwrap();
        match &mut slots[index] {
            Slot::Done(res) => {
                let res = *res;
                slots.remove(index);
                Poll::Ready(Some(res))
            }
            // Orphaned: no completion will come (and a stored waker would
            // keep the runtime alive, see `orphan`). The slot stays: the
            // kernel may still complete the operation into the old ring.
            Slot::Pending(_) if self.orphaned.load(Ordering::Relaxed) => Poll::Ready(None),
            Slot::Pending(waker) => {
                match waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
            Slot::Abandoned(_) => unreachable!("a live future's operation was abandoned"),
        }
    }

    /// The ring is let go with operations in flight whose completions
    /// will never be reaped (shutdown did not wait for a busy worker): the
    /// kernel may still write into their memory, so it is leaked, never
    /// freed; the rest of their data is dropped (`OpData::orphan`). The
    /// data abandoned so far is orphaned now, the data of live futures at
    /// their next poll (which fails) or when they are dropped
    /// ([`OpTable::abandon`]).
    ///
    /// The wakers waiting in the table are dropped too (after the lock):
    /// a waker holds its task, the task its runtime, and the runtime this
    /// table, a cycle that would keep the whole runtime alive. Idempotent.
    pub(crate) fn orphan(&self) {
        let mut wakers = Vec::new();
        let mut abandoned = Vec::new();
        let mut slots = self.slots.lock().unwrap();
        // `Relaxed`: written and read under `slots`' lock.
        self.orphaned.store(true, Ordering::Relaxed);
        for (_, slot) in slots.iter_mut() {
            match std::mem::replace(slot, Slot::Pending(None)) {
                Slot::Abandoned(data) => abandoned.push(data),
                Slot::Pending(waker) => wakers.extend(waker),
                done @ Slot::Done(_) => *slot = done,
            }
        }
        drop(slots);
        drop(wakers);
        // After the lock: dropping the rest of the data may close files or
        // let go of a runtime handle.
        for data in abandoned {
            data.orphan();
        }
    }

    /// The future of `token` is dropped with its operation unfinished or
    /// its result untaken; `data` is kept until the completion if needed.
    fn abandon(&self, token: u64, data: Box<dyn Abandoned>) {
        let index = (token & !OP_BIT) as usize;
        let mut slots = self.slots.lock().unwrap();
        if matches!(slots[index], Slot::Pending(_)) && self.orphaned.load(Ordering::Relaxed) {
            // No completion will ever come to free it (see `orphan`).
            drop(slots);
            data.orphan();
            return;
        }
        match slots[index] {
            Slot::Done(res) => {
                slots.remove(index);
                drop(slots);
                // The kernel is done with it: release it outside the lock.
                data.complete(res);
            }
            Slot::Pending(_) => slots[index] = Slot::Abandoned(data),
            Slot::Abandoned(_) => unreachable!("an operation abandoned twice"),
        }
    }
}

impl std::fmt::Debug for OpTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpTable")
            .field("in_flight", &self.in_flight())
            .finish_non_exhaustive()
    }
}

/// The ring of the worker the calling thread drives, if the current
/// runtime runs in io_uring mode and this thread holds a worker's core
/// and owns its ring. (The worker index alone is not enough: a worker of
/// one runtime may have entered another, whose worker of the same index
/// is another thread.)
pub(crate) fn current_worker() -> Option<Arc<super::WorkerRing>> {
    let index = crate::runtime::worker_index()?;
    context::with_current(|handle: &scheduler::Handle| {
        handle
            .driver()
            .ring(index)
            .filter(|ring| ring.is_owned_here())
            .cloned()
    })
    .ok()
    .flatten()
}

/// An operation on the calling worker's ring; resolves to the kernel's
/// result (a negated errno when negative) and the data, or to an
/// [`Unrun`] when the kernel will not run it for this future.
pub(crate) struct Op<T: OpData> {
    state: State<T>,
}

/// Why an [`Op`] resolved without a result.
pub(crate) enum Unrun<T> {
    /// No ring can run it here: the data back, for the caller to do the
    /// work another way (on the blocking pool).
    NoRing(T),
    /// Its runtime shut down while the kernel held it (see
    /// [`OpTable::orphan`]): its memory is leaked, there is nothing to give
    /// back, and the caller reports the runtime's shutdown error.
    Orphaned,
}

enum State<T> {
    Start(T),
    InFlight {
        worker: Arc<super::WorkerRing>,
        token: u64,
        data: T,
    },
    Finished,
}

impl<T: OpData> Op<T> {
    pub(crate) fn new(data: T) -> Op<T> {
        Op {
            state: State::Start(data),
        }
    }
}

impl<T: OpData> Future for Op<T> {
    type Output = Result<(i32, T), Unrun<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        loop {
            match std::mem::replace(&mut this.state, State::Finished) {
                State::Start(mut data) => {
                    let Some(worker) = current_worker() else {
                        return Poll::Ready(Err(Unrun::NoRing(data)));
                    };
                    let entry = data.entry();
                    // SAFETY: `OpData`'s contract: the entry's memory and
                    // descriptors live as long as `data`, which stays in
                    // this future until the completion, or is abandoned to
                    // the table (kept until the completion) when dropped.
                    match unsafe { worker.start_op(entry) } {
                        Some(token) => {
                            this.state = State::InFlight {
                                worker,
                                token,
                                data,
                            };
                        }
                        None => return Poll::Ready(Err(Unrun::NoRing(data))),
                    }
                }
                State::InFlight {
                    worker,
                    token,
                    data,
                } => match worker.ops().poll(token, cx) {
                    // Cancelled because its ring was let go (see the
                    // module docs): start it again here.
                    Poll::Ready(Some(res)) if res == -libc::ECANCELED => {
                        this.state = State::Start(data);
                    }
                    Poll::Ready(Some(res)) => return Poll::Ready(Ok((res, data))),
                    Poll::Ready(None) => {
                        keep_forever(data.orphan());
                        return Poll::Ready(Err(Unrun::Orphaned));
                    }
                    Poll::Pending => {
                        this.state = State::InFlight {
                            worker,
                            token,
                            data,
                        };
                        return Poll::Pending;
                    }
                },
                State::Finished => panic!("`Op` polled after completion"),
            }
        }
    }
}

impl<T: OpData> Drop for Op<T> {
    fn drop(&mut self) {
        if let State::InFlight {
            worker,
            token,
            data,
        } = std::mem::replace(&mut self.state, State::Finished)
        {
            worker.ops().abandon(token, Box::new(data));
        }
    }
}
