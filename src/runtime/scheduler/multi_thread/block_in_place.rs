//! `block_in_place`: a worker's thread blocks in a closure while its core
//! (run queue, LIFO slot, driver) carries on on another thread.
//!
//! The core travels in a slot ([`super::CoreSlot`]): `Context::hand_off_core`
//! takes it out of the worker's context and starts a pool thread that runs
//! a worker with it. When the closure returns, `Context::reclaim_core` takes
//! the core back if it is still in the slot: the new thread never started
//! (the pool was at its cap or shutting down) or could not drive it (the
//! kernel refused it an io_uring ring). A core is never lost, also when the
//! closure panics. A refusal is reported to the caller as a panic once the
//! core is back, so the runtime is whole when it unwinds.
//!
//! Where it may be called is tokio's rule: on a multi-thread worker, and
//! on any thread that entered a runtime *allowing* it (a multi-thread
//! runtime's `block_on`, any `Handle::block_on`) or entered none. It panics
//! on a current-thread runtime's `block_on` thread and inside a `LocalSet`
//! driven there (`context::disallow_block_in_place`), whose tasks would
//! all stall.
//!
//! The closure runs outside cooperative scheduling (as in tokio): the
//! budget of the task that called it is put aside, and restored after.
use crate::runtime::coop;
use crate::runtime::{context, scheduler};

/// See `tokiwa::task::block_in_place`.
#[track_caller]
pub(crate) fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    let mut slot = None;
    let allowed = context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) => {
            slot = cx.hand_off_core();
            true
        }
        // Not on a worker: what the thread entered decides, as in tokio.
        // A current-thread runtime's `block_on` and a `LocalSet` enter
        // without it; a `Handle::block_on` (which drives no tasks) and a
        // multi-thread runtime's `block_on` with it; a thread outside any
        // runtime, or in a closure of `block_in_place`, may block.
        _ => !matches!(
            context::current_enter_state(),
            context::EnterRuntime::Entered {
                allow_block_in_place: false
            }
        ),
    });
    if !allowed {
        panic!("can call blocking only when running on the multi-threaded runtime");
    }
    let mut reclaim = Reclaim(slot);
    // The closure is not a task poll: it runs unconstrained, so a resource
    // polled to completion inside it (a channel drained with
    // `futures::executor::block_on`) is never refused by a budget that no
    // scheduler will refill until the closure returns.
    let out = coop::unconstrained_call(|| context::exit_runtime(f));
    if let Some(e) = reclaim.reclaim() {
        // The worker is whole again (this thread drives it); the caller
        // learns that its queue waited for `f` instead of moving on.
        panic!("tokiwa: block_in_place could not move the worker to a new thread: {e}");
    }
    out
}

/// Takes the core back if nobody else did, even if `f` panics.
struct Reclaim(Option<super::CoreSlot>);

impl Reclaim {
    /// Why the thread the core was handed to could not drive it.
    fn reclaim(&mut self) -> Option<std::io::Error> {
        let slot = self.0.take()?;
        context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::MultiThread(cx)) => cx.reclaim_core(&slot),
            _ => None,
        })
    }
}

impl Drop for Reclaim {
    fn drop(&mut self) {
        // Unwinding from `f`: its panic is the one to report.
        let _ = self.reclaim();
    }
}
