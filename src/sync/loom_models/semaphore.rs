//! `Semaphore`: `close()` racing a grant and a cancel (issue 24), and
//! tokio's `loom_semaphore_batch.rs` races of partial grants and
//! cancelled acquires.
use super::{block_on, model, poll_once, thread};
use crate::sync::Semaphore;
use std::future::{poll_fn, Future};
use std::sync::Arc;
use std::task::Poll;

/// A waiter is granted the permit just before `close()`, but its task has
/// not seen the grant yet. A poll that starts after the close returns the
/// closed error, as tokio's does (shutdown gates rely on "nothing acquires
/// after `close()`"), and the permit is not lost either way.
#[test]
fn loom_semaphore_close_racing_a_grant() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let closer = {
            let sem = sem.clone();
            thread::spawn(move || {
                sem.add_permits(1);
                sem.close();
            })
        };
        let mut acquire = Box::pin(sem.acquire());
        block_on(poll_fn(|cx| {
            let closed_before_poll = sem.is_closed();
            let result = std::task::ready!(acquire.as_mut().poll(cx));
            assert!(
                !(closed_before_poll && result.is_ok()),
                "acquire succeeded in a poll that started after close()"
            );
            Poll::Ready(())
        }));
        closer.join().unwrap();
        drop(acquire);
        assert_eq!(sem.available_permits(), 1);
    });
}

/// A waiter for two permits that holds one of them is cancelled while the
/// semaphore closes and a permit is added: its partial permit returns
/// exactly once (not lost, not returned by both close and cancel).
#[test]
fn loom_semaphore_close_racing_a_cancel() {
    model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let cancelled = {
            let sem = sem.clone();
            thread::spawn(move || {
                let mut acquire = Box::pin(sem.acquire_many(2));
                let _ = poll_once(acquire.as_mut());
            })
        };
        let closer = {
            let sem = sem.clone();
            thread::spawn(move || sem.close())
        };
        sem.add_permits(1);
        cancelled.join().unwrap();
        closer.join().unwrap();
        assert_eq!(sem.available_permits(), 2);
        assert!(sem.try_acquire().is_err());
    });
}

/// `close()` racing two tasks that each acquire and release twice: every
/// acquire either succeeds or fails; none sleeps forever (tokio's
/// `basic_closing`).
#[test]
fn loom_semaphore_close_racing_acquirers() {
    model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let spawn_acquirer = || {
            let sem = sem.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    if block_on(sem.acquire()).is_err() {
                        return;
                    }
                }
            })
        };
        let first = spawn_acquirer();
        let second = spawn_acquirer();
        sem.close();
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(sem.available_permits(), 1);
    });
}

/// A waiter for 4 of 10 permits, 8 of which are held, is served by a
/// concurrent release of the 8 (tokio's `release_during_acquire`).
#[test]
fn loom_semaphore_release_during_acquire() {
    model(|| {
        let sem = Arc::new(Semaphore::new(10));
        sem.try_acquire_many(8).unwrap().forget();
        let waiter = {
            let sem = sem.clone();
            thread::spawn(move || block_on(sem.acquire_many(4)).unwrap().forget())
        };
        sem.add_permits(8);
        waiter.join().unwrap();
        sem.add_permits(4);
        assert_eq!(sem.available_permits(), 10);
    });
}

/// Acquires polled once and dropped on two threads, racing a release:
/// every permit is accounted for (tokio's `concurrent_cancel`).
#[test]
fn loom_semaphore_concurrent_cancels() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let spawn_canceller = || {
            let sem = sem.clone();
            thread::spawn(move || {
                let mut first = Box::pin(sem.acquire());
                let mut second = Box::pin(sem.acquire_many(2));
                let _ = poll_once(first.as_mut());
                let _ = poll_once(second.as_mut());
            })
        };
        let first = spawn_canceller();
        let second = spawn_canceller();
        sem.add_permits(3);
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(sem.available_permits(), 3);
    });
}
