//! The thread-local runtime context.
//!
//! One thread-local holds everything a thread knows about the runtime it is
//! in:
//!
//! * the *current handle*, set by `Runtime::enter`/`Handle::enter` and by
//!   every runtime thread, which `spawn` and `Handle::current` use;
//! * whether the thread is *inside* a runtime (driving tasks), which makes a
//!   nested `block_on` panic as in tokio;
//! * the *scheduler context* of a worker while it runs tasks, through which
//!   a wake on the worker's own thread goes to its local queue;
//! * the id of the task being polled and its cooperative budget;
//! * on a legacy poll thread, the reactor it is delivering for
//!   ([`delivering`]).
use super::scheduler;
use crate::runtime::coop::Budget;
use crate::runtime::task::Id;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;
use std::ptr;

pub(crate) const CONTEXT_MISSING_ERROR: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

pub(crate) const THREAD_LOCAL_DESTROYED_ERROR: &str =
    "The Tokio context thread-local variable has been destroyed.";

const NESTED_RUNTIME_ERROR: &str = "Cannot start a runtime from within a runtime. This happens \
     because a function (like `block_on`) attempted to block the current thread while the \
     thread is being used to drive asynchronous tasks. If you are in an async function, use \
     `.await` on the future instead of blocking on it.";

/// The part with a destructor (it holds a handle).
struct Context {
    handle: RefCell<Option<scheduler::Handle>>,
    depth: Cell<usize>,
}

/// The part read on every spawn, wake and poll: plain `Copy` cells and no
/// destructor, so an access is a thread-pointer-relative load with no
/// registration or liveness check.
struct Fast {
    scheduler: Cell<*const scheduler::Context>,
    entered: Cell<EnterRuntime>,
    task_id: Cell<Option<Id>>,
    budget: Cell<Budget>,
    /// The reactor whose poll thread this is, while it wakes the tasks it
    /// reaped for its sleeping worker (null otherwise).
    #[cfg(tokiwa_io_driver)]
    delivering_for: Cell<*const ()>,
}

/// Whether the thread drives a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EnterRuntime {
    Entered { allow_block_in_place: bool },
    NotEntered,
}

thread_local! {
    static CONTEXT: Context = const {
        Context {
            handle: RefCell::new(None),
            depth: Cell::new(0),
        }
    };
    static FAST: Fast = const {
        Fast {
            scheduler: Cell::new(ptr::null()),
            entered: Cell::new(EnterRuntime::NotEntered),
            task_id: Cell::new(None),
            budget: Cell::new(Budget::unconstrained()),
            #[cfg(tokiwa_io_driver)]
            delivering_for: Cell::new(ptr::null()),
        }
    };
}

/// Error returned by [`Handle::try_current`](crate::runtime::Handle::try_current).
pub struct TryCurrentError {
    kind: TryCurrentErrorKind,
}

#[derive(Debug, PartialEq, Eq)]
enum TryCurrentErrorKind {
    NoContext,
    ThreadLocalDestroyed,
}

impl TryCurrentError {
    /// Whether the call failed because there is no runtime in the current
    /// context.
    pub fn is_missing_context(&self) -> bool {
        self.kind == TryCurrentErrorKind::NoContext
    }

    /// Whether the call failed because the thread-local holding the context
    /// was already destroyed (during thread exit).
    pub fn is_thread_local_destroyed(&self) -> bool {
        self.kind == TryCurrentErrorKind::ThreadLocalDestroyed
    }
}

impl fmt::Debug for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryCurrentError")
            .field("kind", &self.kind)
            .finish()
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            TryCurrentErrorKind::NoContext => CONTEXT_MISSING_ERROR,
            TryCurrentErrorKind::ThreadLocalDestroyed => THREAD_LOCAL_DESTROYED_ERROR,
        })
    }
}

impl std::error::Error for TryCurrentError {}

/// Runs `f` with the current handle.
pub(crate) fn with_current<R>(
    f: impl FnOnce(&scheduler::Handle) -> R,
) -> Result<R, TryCurrentError> {
    match CONTEXT.try_with(|ctx| ctx.handle.borrow().as_ref().map(f)) {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err(TryCurrentError {
            kind: TryCurrentErrorKind::NoContext,
        }),
        Err(_) => Err(TryCurrentError {
            kind: TryCurrentErrorKind::ThreadLocalDestroyed,
        }),
    }
}

/// Makes `handle` current until the guard drops.
#[track_caller]
pub(crate) fn set_current(handle: &scheduler::Handle) -> SetCurrentGuard {
    try_set_current(handle).unwrap_or_else(|| panic!("{}", THREAD_LOCAL_DESTROYED_ERROR))
}

/// As `set_current`, but `None` when the thread-local is already destroyed
/// (a runtime dropped by a thread-local destructor shuts down without it).
pub(crate) fn try_set_current(handle: &scheduler::Handle) -> Option<SetCurrentGuard> {
    CONTEXT
        .try_with(|ctx| {
            let prev = ctx.handle.borrow_mut().replace(handle.clone());
            let depth = ctx.depth.get() + 1;
            ctx.depth.set(depth);
            SetCurrentGuard {
                prev,
                depth,
                _not_send: PhantomData,
            }
        })
        .ok()
}

/// Restores the previous current handle on drop.
///
/// It must drop on the thread that made it (it restores that thread's
/// context), so it is not `Send`; sharing a reference is harmless, so it
/// is `Sync`, as tokio's guard (and so `EnterGuard`) is.
pub(crate) struct SetCurrentGuard {
    prev: Option<scheduler::Handle>,
    depth: usize,
    _not_send: PhantomData<SyncNotSend>,
}

/// A marker that is `Sync` but not `Send`.
struct SyncNotSend(PhantomData<*mut ()>);

// SAFETY: the marker holds no data; it only takes `Send` away from the
// types that contain it, through the raw pointer.
unsafe impl Sync for SyncNotSend {}

impl Drop for SetCurrentGuard {
    fn drop(&mut self) {
        let _ = CONTEXT.try_with(|ctx| {
            if ctx.depth.get() != self.depth {
                if !std::thread::panicking() {
                    panic!(
                        "`EnterGuard` values dropped out of order. Guards returned by \
                         `tokio::runtime::Handle::enter()` must be dropped in the reverse \
                         order as they were acquired."
                    );
                }
                return;
            }
            *ctx.handle.borrow_mut() = self.prev.take();
            ctx.depth.set(self.depth - 1);
        });
    }
}

/// Marks the thread as driving a runtime (and makes `handle` current) until
/// the guard drops. Panics with tokio's message if it already does.
#[track_caller]
pub(crate) fn enter_runtime(
    handle: &scheduler::Handle,
    allow_block_in_place: bool,
) -> EnterRuntimeGuard {
    let already = FAST.with(|ctx| {
        if ctx.entered.get() != EnterRuntime::NotEntered {
            return true;
        }
        ctx.entered.set(EnterRuntime::Entered {
            allow_block_in_place,
        });
        false
    });
    if already {
        panic!("{}", NESTED_RUNTIME_ERROR);
    }
    EnterRuntimeGuard {
        _current: set_current(handle),
        budget: replace_budget(Budget::unconstrained()),
        #[cfg(tokio_unstable)]
        _rng: super::rng_seed::enter(handle.config().seed_generator.as_ref()),
    }
}

/// Leaves the runtime on drop.
pub(crate) struct EnterRuntimeGuard {
    _current: SetCurrentGuard,
    budget: Option<Budget>,
    /// A seeded runtime's `select!` generator for this thread
    /// (`rng_seed.rs`), until the thread leaves.
    #[cfg(tokio_unstable)]
    _rng: super::rng_seed::ThreadRngGuard,
}

impl Drop for EnterRuntimeGuard {
    fn drop(&mut self) {
        let _ = FAST.try_with(|ctx| ctx.entered.set(EnterRuntime::NotEntered));
        if let Some(budget) = self.budget {
            set_budget(budget);
        }
    }
}

impl fmt::Debug for EnterRuntimeGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Enter").finish()
    }
}

/// Whether the thread drives a runtime right now.
pub(crate) fn current_enter_state() -> EnterRuntime {
    FAST.try_with(|ctx| ctx.entered.get())
        .unwrap_or(EnterRuntime::NotEntered)
}

/// Forbids `block_in_place` on this thread until the guard drops, if the
/// runtime it entered allowed it (a `LocalSet` driven from a multi-thread
/// runtime's `block_on`: blocking there would stall all the set's tasks).
/// Restores the permission after, even on panic.
pub(crate) fn disallow_block_in_place() -> DisallowBlockInPlaceGuard {
    let allowed = EnterRuntime::Entered {
        allow_block_in_place: true,
    };
    let reset = FAST
        .try_with(|ctx| {
            if ctx.entered.get() != allowed {
                return false;
            }
            ctx.entered.set(EnterRuntime::Entered {
                allow_block_in_place: false,
            });
            true
        })
        .unwrap_or(false);
    DisallowBlockInPlaceGuard { reset }
}

/// See [`disallow_block_in_place`].
pub(crate) struct DisallowBlockInPlaceGuard {
    /// Whether the guard took the permission away (and gives it back).
    reset: bool,
}

impl Drop for DisallowBlockInPlaceGuard {
    fn drop(&mut self) {
        if !self.reset {
            return;
        }
        let _ = FAST.try_with(|ctx| {
            // Still the state the guard set, unless something in between
            // left the runtime (then there is nothing to give back).
            if ctx.entered.get()
                == (EnterRuntime::Entered {
                    allow_block_in_place: false,
                })
            {
                ctx.entered.set(EnterRuntime::Entered {
                    allow_block_in_place: true,
                });
            }
        });
    }
}

/// Runs `f` as if the thread were not driving a runtime (the blocking part
/// of `block_in_place`), restoring the state afterwards even on panic.
pub(crate) fn exit_runtime<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(EnterRuntime);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = FAST.try_with(|ctx| ctx.entered.set(self.0));
        }
    }
    let prev = FAST.with(|ctx| ctx.entered.replace(EnterRuntime::NotEntered));
    let _reset = Reset(prev);
    f()
}

/// Runs `f` with the worker's scheduler context installed.
pub(crate) fn set_scheduler<R>(cx: &scheduler::Context, f: impl FnOnce() -> R) -> R {
    struct Reset(*const scheduler::Context);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = FAST.try_with(|ctx| ctx.scheduler.set(self.0));
        }
    }
    let prev = FAST.with(|ctx| ctx.scheduler.replace(cx as *const _));
    let _reset = Reset(prev);
    f()
}

/// Runs `f` with the scheduler context of the worker running on this thread,
/// if any.
pub(crate) fn with_scheduler<R>(f: impl FnOnce(Option<&scheduler::Context>) -> R) -> R {
    let ptr = FAST
        .try_with(|ctx| ctx.scheduler.get())
        .unwrap_or(ptr::null());
    // SAFETY: the pointer is installed by `set_scheduler` for the duration
    // of a borrow of a live context on this very thread and reset when that
    // borrow ends, so a non-null value points to a live context.
    f(unsafe { ptr.as_ref() })
}

pub(crate) fn current_task_id() -> Option<Id> {
    FAST.try_with(|ctx| ctx.task_id.get()).unwrap_or(None)
}

/// Sets the current task id until the guard drops.
pub(crate) fn set_current_task_id(id: Option<Id>) -> TaskIdGuard {
    let prev = FAST.try_with(|ctx| ctx.task_id.replace(id)).unwrap_or(None);
    TaskIdGuard { prev }
}

pub(crate) struct TaskIdGuard {
    prev: Option<Id>,
}

impl Drop for TaskIdGuard {
    fn drop(&mut self) {
        let _ = FAST.try_with(|ctx| ctx.task_id.set(self.prev));
    }
}

pub(crate) fn budget() -> Option<Budget> {
    FAST.try_with(|ctx| ctx.budget.get()).ok()
}

pub(crate) fn set_budget(budget: Budget) {
    let _ = FAST.try_with(|ctx| ctx.budget.set(budget));
}

pub(crate) fn replace_budget(budget: Budget) -> Option<Budget> {
    FAST.try_with(|ctx| ctx.budget.replace(budget)).ok()
}

#[cfg(tokiwa_io_driver)]
/// Runs `wake` (a legacy poll thread waking the tasks it reaped for its
/// sleeping worker) marked as delivering for `reactor`, so the scheduler
/// queues those tasks for that worker without waking anyone
/// (`driver::Handle::delivering_to`); the poll thread then unparks its
/// worker itself.
pub(crate) fn delivering<R>(reactor: *const (), wake: impl FnOnce() -> R) -> R {
    struct Reset(*const ());
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = FAST.try_with(|fast| fast.delivering_for.set(self.0));
        }
    }
    let previous = FAST.with(|fast| fast.delivering_for.replace(reactor));
    let _reset = Reset(previous);
    wake()
}

/// The reactor this thread is delivering for (null: none).
#[cfg(tokiwa_io_driver)]
pub(crate) fn delivering_for() -> *const () {
    FAST.try_with(|fast| fast.delivering_for.get())
        .unwrap_or(ptr::null())
}
