use super::{boxed, Poller};
use crate::sync::{AcquireError, Semaphore, TryAcquireError};
use std::sync::Arc;

#[test]
fn acquirers_are_served_in_order_and_many_permits_are_not_overtaken() {
    let p = Poller::new();
    let sem = Semaphore::new(0);
    let mut big = boxed(sem.acquire_many(2));
    let mut small = boxed(sem.acquire());
    assert!(p.poll(&mut big).is_pending());
    assert!(p.poll(&mut small).is_pending());

    // One permit: the first waiter (which needs two) gets it, the second
    // does not overtake, and nothing is free for a newcomer either.
    sem.add_permits(1);
    assert_eq!(p.wakes(), 0);
    assert!(p.poll(&mut small).is_pending());
    assert_eq!(sem.try_acquire().unwrap_err(), TryAcquireError::NoPermits);
    assert_eq!(sem.available_permits(), 0);

    sem.add_permits(1);
    assert_eq!(p.wakes(), 1);
    let big_permit = match p.poll(&mut big) {
        std::task::Poll::Ready(Ok(permit)) => permit,
        other => panic!("expected the permits, got {other:?}"),
    };
    assert_eq!(big_permit.num_permits(), 2);
    assert!(p.poll(&mut small).is_pending());

    // Two permits back: one to the waiter, one free.
    drop(big_permit);
    assert_eq!(p.wakes(), 2);
    let std::task::Poll::Ready(Ok(_small_permit)) = p.poll(&mut small) else {
        panic!("the second waiter was not served")
    };
    assert_eq!(sem.available_permits(), 1);
}

#[test]
fn a_dropped_waiter_returns_its_partial_permits_to_the_next() {
    let p = Poller::new();
    let sem = Semaphore::new(0);
    let mut first = boxed(sem.acquire_many(3));
    let mut second = boxed(sem.acquire_many(2));
    assert!(p.poll(&mut first).is_pending());
    assert!(p.poll(&mut second).is_pending());
    sem.add_permits(2);
    // Both went to `first`, which still lacks one.
    assert_eq!(sem.available_permits(), 0);
    assert!(p.poll(&mut second).is_pending());
    drop(first);
    // `first`'s two permits are `second`'s now.
    assert!(matches!(p.poll(&mut second), std::task::Poll::Ready(Ok(_))));
    drop(second);
    assert_eq!(sem.available_permits(), 2);
}

#[test]
fn a_waiter_dropped_after_its_grant_but_before_seeing_it_loses_nothing() {
    let p = Poller::new();
    let sem = Semaphore::new(0);
    let mut waiter = boxed(sem.acquire_many(2));
    assert!(p.poll(&mut waiter).is_pending());
    sem.add_permits(2);
    assert_eq!(p.wakes(), 1);
    assert_eq!(sem.available_permits(), 0);
    drop(waiter);
    assert_eq!(sem.available_permits(), 2);
}

#[test]
fn close_fails_every_waiter_and_later_acquire() {
    let p = Poller::new();
    let sem = Semaphore::new(1);
    let held = sem.try_acquire().unwrap();
    let mut a = boxed(sem.acquire());
    let mut b = boxed(sem.acquire_many(2));
    assert!(p.poll(&mut a).is_pending());
    assert!(p.poll(&mut b).is_pending());
    sem.close();
    assert!(sem.is_closed());
    assert_eq!(p.wakes(), 2);
    let err = match p.poll(&mut a) {
        std::task::Poll::Ready(Err(err)) => err,
        other => panic!("expected AcquireError, got {other:?}"),
    };
    assert_eq!(err.to_string(), "semaphore closed");
    assert!(matches!(
        p.poll(&mut b),
        std::task::Poll::Ready(Err(AcquireError(())))
    ));
    assert_eq!(sem.try_acquire().unwrap_err(), TryAcquireError::Closed);
    assert!(futures::executor::block_on(sem.acquire()).is_err());
    // A permit held across the close still returns.
    drop(held);
    assert_eq!(sem.available_permits(), 1);
    assert_eq!(TryAcquireError::Closed.to_string(), "semaphore closed");
    assert_eq!(
        TryAcquireError::NoPermits.to_string(),
        "no permits available"
    );
}

#[test]
fn permits_forget_merge_and_split() {
    let sem = Arc::new(Semaphore::new(10));
    let mut permit = sem.try_acquire_many(4).unwrap();
    let other = sem.try_acquire().unwrap();
    permit.merge(other);
    assert_eq!(permit.num_permits(), 5);
    let split = permit.split(2).unwrap();
    assert!(permit.split(4).is_none());
    assert_eq!(split.num_permits(), 2);
    assert!(std::ptr::eq(split.semaphore(), &*sem));
    drop(split);
    assert_eq!(sem.available_permits(), 7);
    permit.forget();
    assert_eq!(sem.available_permits(), 7);

    let mut owned = sem.clone().try_acquire_many_owned(3).unwrap();
    let owned_split = owned.split(1).unwrap();
    owned.merge(sem.clone().try_acquire_owned().unwrap());
    assert_eq!(owned.num_permits(), 3);
    assert!(Arc::ptr_eq(owned.semaphore(), &sem));
    drop(owned);
    drop(owned_split);
    assert_eq!(sem.available_permits(), 7);

    assert_eq!(sem.forget_permits(5), 5);
    assert_eq!(sem.forget_permits(5), 2);
    assert_eq!(sem.available_permits(), 0);
}

#[test]
#[should_panic(expected = "merging permits from different semaphore instances")]
fn merging_permits_of_two_semaphores_panics() {
    let (a, b) = (Semaphore::new(1), Semaphore::new(1));
    let mut pa = a.try_acquire().unwrap();
    pa.merge(b.try_acquire().unwrap());
}

#[test]
#[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
fn more_than_max_permits_panics() {
    let _ = Semaphore::new(Semaphore::MAX_PERMITS + 1);
}

#[test]
#[should_panic(expected = "would overflow MAX_PERMITS")]
fn adding_permits_beyond_max_panics() {
    let sem = Semaphore::new(1);
    sem.add_permits(Semaphore::MAX_PERMITS);
}

#[test]
fn max_permits_can_be_added_to_an_empty_semaphore() {
    let sem = Semaphore::new(0);
    sem.add_permits(Semaphore::MAX_PERMITS);
    assert_eq!(sem.available_permits(), Semaphore::MAX_PERMITS);
}

#[test]
fn const_new_makes_a_static_semaphore() {
    static SEM: Semaphore = Semaphore::const_new(2);
    let a = SEM.try_acquire().unwrap();
    assert_eq!(SEM.available_permits(), 1);
    drop(a);
    assert_eq!(SEM.available_permits(), 2);
    assert_eq!(
        format!("{:?}", SEM),
        "Semaphore { ll_sem: Semaphore { permits: 2 } }"
    );
}

#[test]
fn blocking_acquire_outside_a_runtime_waits_for_a_release() {
    let sem = Arc::new(Semaphore::new(0));
    let releaser = {
        let sem = sem.clone();
        std::thread::spawn(move || sem.add_permits(1))
    };
    let permit = sem.clone().blocking_acquire_owned().unwrap();
    assert_eq!(permit.num_permits(), 1);
    releaser.join().unwrap();
}

#[test]
fn api_has_tokios_auto_traits() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn unpin<T: Unpin>() {}
    unpin::<Semaphore>();
    unpin::<crate::sync::SemaphorePermit<'_>>();
    let sem = Semaphore::new(0);
    send_sync(&sem);
    send_sync(&sem.acquire());
    let sem = Arc::new(sem);
    send_sync(&sem.clone().acquire_owned());
}
