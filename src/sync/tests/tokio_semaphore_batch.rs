//! tokio 1.54.1's `src/sync/tests/semaphore_batch.rs`, run against
//! tokiwa's [`FairSemaphore`] (tokio's `batch_semaphore`: permits are
//! released by hand, partial grants are visible in `available_permits`)
//! and, for the waker test, the public [`Semaphore`](crate::sync::Semaphore).
use super::tokio_task::{spawn, within};
use crate::sync::fair_semaphore::FairSemaphore as Semaphore;
use std::task::Poll;
use std::time::Duration;

const MAX_PERMITS: usize = crate::sync::Semaphore::MAX_PERMITS;

#[track_caller]
fn assert_ready_ok<E: std::fmt::Debug>(poll: Poll<Result<(), E>>) {
    assert!(matches!(poll, Poll::Ready(Ok(()))), "{poll:?}");
}

#[track_caller]
fn assert_ready_err<E: std::fmt::Debug>(poll: Poll<Result<(), E>>) {
    assert!(matches!(poll, Poll::Ready(Err(_))), "{poll:?}");
}

#[test]
fn poll_acquire_one_available() {
    let s = Semaphore::new(100);
    assert_eq!(s.available_permits(), 100);
    assert_ready_ok(spawn(s.acquire(1)).poll());
    assert_eq!(s.available_permits(), 99);
}

#[test]
fn poll_acquire_many_available() {
    let s = Semaphore::new(100);
    assert_ready_ok(spawn(s.acquire(5)).poll());
    assert_eq!(s.available_permits(), 95);
    assert_ready_ok(spawn(s.acquire(5)).poll());
    assert_eq!(s.available_permits(), 90);
}

#[test]
fn try_acquire_one_available() {
    let s = Semaphore::new(100);
    s.try_acquire(1).unwrap();
    assert_eq!(s.available_permits(), 99);
    s.try_acquire(1).unwrap();
    assert_eq!(s.available_permits(), 98);
}

#[test]
fn try_acquire_many_available() {
    let s = Semaphore::new(100);
    s.try_acquire(5).unwrap();
    assert_eq!(s.available_permits(), 95);
    s.try_acquire(5).unwrap();
    assert_eq!(s.available_permits(), 90);
}

#[test]
fn poll_acquire_one_unavailable() {
    let s = Semaphore::new(1);
    assert_ready_ok(spawn(s.acquire(1)).poll());
    assert_eq!(s.available_permits(), 0);

    let mut acquire_2 = spawn(s.acquire(1));
    assert!(acquire_2.poll().is_pending());
    assert_eq!(s.available_permits(), 0);

    s.release(1);
    assert_eq!(s.available_permits(), 0);
    assert!(acquire_2.is_woken());
    assert_ready_ok(acquire_2.poll());
    assert_eq!(s.available_permits(), 0);

    s.release(1);
    assert_eq!(s.available_permits(), 1);
}

#[test]
fn poll_acquire_many_unavailable() {
    let s = Semaphore::new(5);
    assert_ready_ok(spawn(s.acquire(1)).poll());
    assert_eq!(s.available_permits(), 4);

    // Takes the 4 free permits and waits for a fifth.
    let mut acquire_2 = spawn(s.acquire(5));
    assert!(acquire_2.poll().is_pending());
    assert_eq!(s.available_permits(), 0);

    let mut acquire_3 = spawn(s.acquire(3));
    assert!(acquire_3.poll().is_pending());
    assert_eq!(s.available_permits(), 0);

    s.release(1);
    assert_eq!(s.available_permits(), 0);
    assert!(acquire_2.is_woken());
    assert_ready_ok(acquire_2.poll());

    assert!(!acquire_3.is_woken());
    assert_eq!(s.available_permits(), 0);

    s.release(1);
    assert!(!acquire_3.is_woken());
    assert_eq!(s.available_permits(), 0);

    s.release(2);
    assert!(acquire_3.is_woken());
    assert_ready_ok(acquire_3.poll());
}

#[test]
fn try_acquire_one_unavailable() {
    let s = Semaphore::new(1);
    s.try_acquire(1).unwrap();
    assert_eq!(s.available_permits(), 0);
    assert!(s.try_acquire(1).is_err());

    s.release(1);
    assert_eq!(s.available_permits(), 1);
    s.try_acquire(1).unwrap();

    s.release(1);
    assert_eq!(s.available_permits(), 1);
}

#[test]
fn try_acquire_many_unavailable() {
    let s = Semaphore::new(5);
    s.try_acquire(1).unwrap();
    assert_eq!(s.available_permits(), 4);
    assert!(s.try_acquire(5).is_err());

    s.release(1);
    assert_eq!(s.available_permits(), 5);
    s.try_acquire(5).unwrap();

    s.release(1);
    assert_eq!(s.available_permits(), 1);
    s.release(1);
    assert_eq!(s.available_permits(), 2);
}

#[test]
fn poll_acquire_one_zero_permits() {
    let s = Semaphore::new(0);
    assert_eq!(s.available_permits(), 0);

    let mut acquire = spawn(s.acquire(1));
    assert!(acquire.poll().is_pending());

    s.release(1);
    assert!(acquire.is_woken());
    assert_ready_ok(acquire.poll());
}

#[test]
fn max_permits_doesnt_panic() {
    Semaphore::new(MAX_PERMITS);
}

#[test]
#[should_panic]
fn validates_max_permits() {
    Semaphore::new(MAX_PERMITS + 1);
}

#[test]
#[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
fn try_acquire_validates_max_permits() {
    let s = Semaphore::new(0);
    let _ = s.try_acquire(MAX_PERMITS + 1);
}

#[test]
#[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
fn acquire_validates_max_permits() {
    let s = Semaphore::new(0);
    let _ = spawn(s.acquire(MAX_PERMITS + 1)).poll();
}

#[test]
#[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
fn acquire_validates_top_bit_permits() {
    let s = Semaphore::new(0);
    let _ = spawn(s.acquire(1usize << (usize::BITS - 1))).poll();
}

#[test]
fn close_semaphore_prevents_acquire() {
    let s = Semaphore::new(5);
    s.close();
    assert_eq!(5, s.available_permits());

    assert_ready_err(spawn(s.acquire(1)).poll());
    assert_eq!(5, s.available_permits());

    assert_ready_err(spawn(s.acquire(1)).poll());
    assert_eq!(5, s.available_permits());
}

#[test]
fn close_semaphore_notifies_permit1() {
    let s = Semaphore::new(0);
    let mut acquire = spawn(s.acquire(1));
    assert!(acquire.poll().is_pending());

    s.close();
    assert!(acquire.is_woken());
    assert_ready_err(acquire.poll());
}

#[test]
fn close_semaphore_notifies_permit2() {
    let s = Semaphore::new(2);
    assert_ready_ok(spawn(s.acquire(1)).poll());
    assert_ready_ok(spawn(s.acquire(1)).poll());

    let mut acquire3 = spawn(s.acquire(1));
    let mut acquire4 = spawn(s.acquire(1));
    assert!(acquire3.poll().is_pending());
    assert!(acquire4.poll().is_pending());

    s.close();
    assert!(acquire3.is_woken());
    assert!(acquire4.is_woken());
    assert_ready_err(acquire3.poll());
    assert_ready_err(acquire4.poll());
    assert_eq!(0, s.available_permits());

    s.release(1);
    assert_eq!(1, s.available_permits());
    assert_ready_err(spawn(s.acquire(1)).poll());

    s.release(1);
    assert_eq!(2, s.available_permits());
}

#[test]
fn cancel_acquire_releases_permits() {
    let s = Semaphore::new(10);
    s.try_acquire(4).expect("uncontended try_acquire succeeds");
    assert_eq!(6, s.available_permits());

    let mut acquire = spawn(s.acquire(8));
    assert!(acquire.poll().is_pending());
    assert_eq!(0, s.available_permits());
    drop(acquire);

    assert_eq!(6, s.available_permits());
    s.try_acquire(6).unwrap();
}

/// A waker whose drop releases a permit of the same semaphore, replaced
/// by a re-poll: the old waker must be dropped outside the semaphore's
/// lock (tokio #5429).
#[test]
fn release_permits_at_drop() {
    use crate::sync::{OwnedSemaphorePermit, Semaphore};
    use futures::task::ArcWake;
    use std::future::Future;
    use std::sync::Arc;

    struct ReleaseOnDrop(#[allow(dead_code)] Option<OwnedSemaphorePermit>);

    impl ArcWake for ReleaseOnDrop {
        fn wake_by_ref(_arc_self: &Arc<Self>) {}
    }

    within(Duration::from_secs(10), "re-poll with a new waker", || {
        let sem = Arc::new(Semaphore::new(1));
        let mut fut = Box::pin(async {
            let _permit = sem.acquire().await.unwrap();
        });
        // The second iteration replaces (drops) the first waker, which
        // releases the permit it holds.
        for _ in 0..=1 {
            let waker = futures::task::waker(Arc::new(ReleaseOnDrop(
                sem.clone().try_acquire_owned().ok(),
            )));
            let mut cx = std::task::Context::from_waker(&waker);
            assert!(fut.as_mut().poll(&mut cx).is_pending());
        }
    });
}

#[test]
fn forget_permits_basic() {
    let s = Semaphore::new(10);
    assert_eq!(s.forget_permits(4), 4);
    assert_eq!(s.available_permits(), 6);
    assert_eq!(s.forget_permits(10), 6);
    assert_eq!(s.available_permits(), 0);
}

#[test]
fn update_permits_many_times() {
    let s = Semaphore::new(5);
    let mut acquire = spawn(s.acquire(7));
    assert!(acquire.poll().is_pending());
    s.release(5);
    assert_ready_ok(acquire.poll());
    assert_eq!(s.available_permits(), 3);
    assert_eq!(s.forget_permits(3), 3);
    assert_eq!(s.available_permits(), 0);
}
