//! `Barrier`, `OnceCell` and `SetOnce`.
use super::{boxed, Poller};
use crate::sync::{Barrier, OnceCell, SetError, SetOnce};
use std::task::Poll;

#[test]
fn barrier_releases_n_at_a_time_with_one_leader() {
    let p = Poller::new();
    let barrier = Barrier::new(3);
    for _generation in 0..2 {
        let mut a = boxed(barrier.wait());
        let mut b = boxed(barrier.wait());
        assert!(p.poll(&mut a).is_pending());
        assert!(p.poll(&mut b).is_pending());
        let Poll::Ready(c) = p.poll(&mut boxed(barrier.wait())) else {
            panic!("the last arrival must not wait")
        };
        assert!(c.is_leader());
        let (Poll::Ready(a), Poll::Ready(b)) = (p.poll(&mut a), p.poll(&mut b)) else {
            panic!("waiters not released")
        };
        assert!(!a.is_leader() && !b.is_leader());
    }
    // n = 0 behaves as 1.
    let one = Barrier::new(0);
    assert!(futures::executor::block_on(one.wait()).is_leader());
}

#[test]
fn once_cell_set_get_and_errors() {
    let cell = OnceCell::new();
    assert!(cell.get().is_none());
    cell.set(1).unwrap();
    assert_eq!(cell.get(), Some(&1));
    let err = cell.set(2).unwrap_err();
    assert!(err.is_already_init_err());
    assert_eq!(err, SetError::AlreadyInitializedError(2));
    assert_eq!(err.to_string(), "AlreadyInitializedError");
    assert_eq!(format!("{cell:?}"), "OnceCell { value: Some(1) }");
    assert_eq!(cell.clone(), cell);
    let mut cell = cell;
    *cell.get_mut().unwrap() = 3;
    assert_eq!(cell.take(), Some(3));
    assert!(!cell.initialized());
    assert_eq!(OnceCell::new_with(Some(4)).into_inner(), Some(4));
}

#[test]
fn once_cell_set_during_initialisation_is_refused() {
    let p = Poller::new();
    let cell = OnceCell::new();
    let mut init = boxed(cell.get_or_init(std::future::pending::<u8>));
    assert!(p.poll(&mut init).is_pending());
    let err = cell.set(1).unwrap_err();
    assert!(err.is_initializing_err());
    assert_eq!(err.to_string(), "InitializingError");
}

#[test]
fn once_cell_runs_one_initialiser_and_a_cancelled_one_lets_the_next_run() {
    let p = Poller::new();
    let cell = OnceCell::new();
    let (tx, rx) = crate::sync::oneshot::channel::<u32>();
    let mut first = boxed(cell.get_or_init(|| async { rx.await.unwrap() }));
    let mut second = boxed(cell.get_or_init(|| async { 2 }));
    assert!(p.poll(&mut first).is_pending());
    assert!(p.poll(&mut second).is_pending());
    // The first initialiser is cancelled: the second one runs.
    drop(first);
    drop(tx);
    assert_eq!(p.poll(&mut second), Poll::Ready(&2));
    // Later callers read the value; their initialiser never runs.
    let value = futures::executor::block_on(cell.get_or_init(|| async { unreachable!() }));
    assert_eq!(*value, 2);

    let cell = OnceCell::<u8>::new();
    let failed = futures::executor::block_on(cell.get_or_try_init(|| async { Err::<u8, _>("no") }));
    assert_eq!(failed, Err("no"));
    assert!(!cell.initialized());
    let ok = futures::executor::block_on(cell.get_or_try_init(|| async { Ok::<_, ()>(5) }));
    assert_eq!(ok, Ok(&5));
}

#[test]
fn once_cell_const_constructors() {
    static EMPTY: OnceCell<u8> = OnceCell::const_new();
    static FULL: OnceCell<u8> = OnceCell::const_new_with(7);
    assert_eq!(FULL.get(), Some(&7));
    assert!(FULL.set(1).unwrap_err().is_already_init_err());
    assert_eq!(
        *futures::executor::block_on(EMPTY.get_or_init(|| async { 8 })),
        8
    );
}

#[test]
fn set_once_wakes_waiters_once_set() {
    let p = Poller::new();
    let cell = SetOnce::new();
    let mut waiting = boxed(cell.wait());
    assert!(p.poll(&mut waiting).is_pending());
    cell.set(3).unwrap();
    assert_eq!(p.wakes(), 1);
    assert_eq!(p.poll(&mut waiting), Poll::Ready(&3));
    drop(waiting);
    let err = cell.set(4).unwrap_err();
    assert_eq!(err.0, 4);
    assert_eq!(err.to_string(), "SetOnceError");
    assert_eq!(cell.get(), Some(&3));
    assert_eq!(format!("{cell:?}"), "SetOnce { value: Some(3) }");
    assert_eq!(cell.into_inner(), Some(3));
    static S: SetOnce<u8> = SetOnce::const_new_with(1);
    assert!(S.initialized());
}
