//! `close()` against a grant the task has not seen yet (issue 24, item 4),
//! and which waits spend the cooperative budget (items 5 and 6), each
//! checked against what tokio 1.54.1 does.
use super::{boxed, Poller};
use crate::sync::{AcquireError, Semaphore};
use std::task::Poll;

/// tokio: a waiter whose permits were assigned before `close()` but that
/// has not returned yet fails with `AcquireError`, and the assigned
/// permits go back to the semaphore (its `Acquire` gives them back), so
/// nothing acquires after `close()` and nothing is lost.
#[test]
fn an_acquire_granted_before_close_but_not_yet_seen_fails() {
    let p = Poller::new();
    let sem = Semaphore::new(0);
    let mut acquire = boxed(sem.acquire_many(2));
    assert!(p.poll(&mut acquire).is_pending());
    sem.add_permits(3);
    assert_eq!(p.wakes(), 1);
    // Two were assigned to the waiter, one is free.
    assert_eq!(sem.available_permits(), 1);
    sem.close();
    match p.poll(&mut acquire) {
        Poll::Ready(Err(AcquireError { .. })) => {}
        Poll::Ready(Ok(permit)) => {
            panic!("acquired {} permits after close()", permit.num_permits())
        }
        Poll::Pending => panic!("a closed semaphore left the acquire pending"),
    }
    assert_eq!(sem.available_permits(), 3, "the assigned permits were lost");
}

#[cfg(feature = "rt")]
mod with_runtime {
    use super::super::{boxed, Poller};
    use crate::runtime::Builder;
    use crate::sync::{Barrier, Mutex, Notify, Semaphore, SetOnce};
    use futures::FutureExt;
    use std::sync::Arc;
    use std::task::Poll;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn spend_the_budget() {
        while crate::task::coop::consume_budget().now_or_never().is_some() {}
    }

    /// tokio: an acquire out of budget takes its permits and yields
    /// holding them; closed before its next poll, it fails and gives
    /// them back.
    #[test]
    fn an_acquire_yielding_for_the_budget_fails_after_close() {
        block_on(async {
            let p = Poller::new();
            let sem = Semaphore::new(1);
            spend_the_budget();
            let mut acquire = boxed(sem.acquire());
            assert!(p.poll(&mut acquire).is_pending());
            assert_eq!(sem.available_permits(), 0);
            sem.close();
            crate::task::yield_now().await;
            assert!(
                matches!(p.poll(&mut acquire), Poll::Ready(Err(_))),
                "acquired after close()"
            );
            assert_eq!(sem.available_permits(), 1, "the permit was lost");
        });
    }

    /// tokio's `Notified` does not use the budget: with a permit stored,
    /// it completes even when the task's budget is spent.
    #[test]
    fn notified_does_not_spend_the_budget() {
        block_on(async {
            let notify = Arc::new(Notify::new());
            notify.notify_one();
            spend_the_budget();
            assert!(
                notify.notified().now_or_never().is_some(),
                "Notified yielded for the budget"
            );
            notify.notify_one();
            assert!(
                notify.clone().notified_owned().now_or_never().is_some(),
                "OwnedNotified yielded for the budget"
            );
        });
    }

    /// tokio's `SetOnce::wait` waits on a `Notified`: no budget either. A
    /// waiter woken by `set` completes even when its budget is spent.
    #[test]
    fn set_once_wait_does_not_spend_the_budget() {
        block_on(async {
            let p = Poller::new();
            let cell = SetOnce::new();
            let mut wait = boxed(cell.wait());
            assert!(p.poll(&mut wait).is_pending());
            cell.set(7).unwrap();
            assert_eq!(p.wakes(), 1);
            spend_the_budget();
            assert_eq!(
                p.poll(&mut wait),
                Poll::Ready(&7),
                "SetOnce::wait yielded for the budget"
            );
        });
    }

    /// tokio's `Barrier::wait` waits through a `watch` receiver, which
    /// does spend the budget: a task out of budget that is not the
    /// leader yields even once its generation is complete (the leader
    /// never waits).
    #[test]
    fn a_barrier_waiter_out_of_budget_yields_as_tokios() {
        block_on(async {
            let p = Poller::new();
            let barrier = Barrier::new(2);
            let mut waiter = boxed(barrier.wait());
            assert!(p.poll(&mut waiter).is_pending());
            spend_the_budget();
            let leader = barrier.wait().now_or_never().expect("the leader waited");
            assert!(leader.is_leader());
            assert!(p.poll(&mut waiter).is_pending());
            crate::task::yield_now().await;
            let Poll::Ready(result) = p.poll(&mut waiter) else {
                panic!("the waiter was not released")
            };
            assert!(!result.is_leader());
        });
    }

    /// tokio 1.54.1 checks the budget after the permits are taken
    /// (`batch_semaphore::Acquire::poll`; its test
    /// `mutex_coop_drop_after_take_permit`): an uncontended `lock()` out
    /// of budget takes the lock, yields holding it, and returns it at the
    /// next poll (or gives it back if dropped).
    #[test]
    fn an_uncontended_lock_out_of_budget_yields_holding_the_lock_as_tokios() {
        block_on(async {
            let p = Poller::new();
            let mutex = Mutex::new(0u32);
            spend_the_budget();
            let mut lock = boxed(mutex.lock());
            assert!(p.poll(&mut lock).is_pending());
            assert!(mutex.try_lock().is_err());
            crate::task::yield_now().await;
            assert!(p.poll(&mut lock).is_ready());
            spend_the_budget();
            let mut dropped = boxed(mutex.lock());
            drop(lock);
            assert!(p.poll(&mut dropped).is_pending());
            drop(dropped);
            assert!(mutex.try_lock().is_ok());
        });
    }
}
