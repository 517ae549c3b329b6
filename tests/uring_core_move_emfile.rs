#![cfg(all(feature = "full", feature = "uring"))]
//! A worker's core that moves to a thread the kernel refuses a ring
//! (`EMFILE`): the refusal is a panic in the caller, with the kernel's
//! reason, and the runtime stays whole: once descriptors are free it runs
//! tasks and I/O again, and it shuts down.
//!
//! In io_uring mode a ring belongs to one thread (`SINGLE_ISSUER`), so a
//! core that changes threads (a current-thread runtime driven by a new
//! `block_on` thread, `block_in_place` handing a worker to a new thread)
//! needs a new ring, which needs a descriptor.
//!
//! The descriptor limit is per process, so this binary holds one test.

#[macro_use]
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use support::{panic_message, quiet_panics, TEST_TIMEOUT};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::UnixStream;
use tokiwa::runtime::Runtime;

fn uring(workers: Option<usize>) -> Option<Runtime> {
    support::flavor::uring_or_skip(workers)
}

/// A task and a socket round trip: the runtime schedules and its driver
/// delivers readiness.
async fn still_works() {
    assert_eq!(tokiwa::spawn(async { 5 }).await.unwrap(), 5);
    let (mut a, mut b) = UnixStream::pair().unwrap();
    let echo = tokiwa::spawn(async move {
        let mut buf = [0u8; 4];
        b.read_exact(&mut buf).await.unwrap();
        b.write_all(&buf).await.unwrap();
    });
    a.write_all(b"ping").await.unwrap();
    let mut buf = [0u8; 4];
    a.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ping");
    echo.await.unwrap();
}

const REFUSED: &str = "tokiwa: this thread cannot drive the runtime";
const NOT_MOVED: &str = "tokiwa: block_in_place could not move the worker";

/// A current-thread runtime driven first by one thread, then by another
/// at `EMFILE`.
fn block_on_from_a_new_thread_at_emfile() {
    let Some(rt) = uring(None) else { return };
    // A socket registered on the first thread's ring, waiting for data.
    let (mut ours, mut theirs) = rt.block_on(async { UnixStream::pair().unwrap() });
    let rt = std::sync::Arc::new(rt);
    let second = rt.clone();
    std::thread::spawn(move || {
        let fillers = support::fds::Exhausted::new();
        let refused = catch_unwind(AssertUnwindSafe(|| second.block_on(async { 1 })));
        let message = panic_message(&*refused.expect_err("block_on at EMFILE ran"));
        assert!(message.starts_with(REFUSED), "{message}");
        assert!(message.contains("Too many open files"), "{message}");
        drop(fillers);
        // Descriptors are free: this thread drives the runtime now, with a
        // new ring on which the socket's poll was armed again.
        second.block_on(async move {
            still_works().await;
            theirs.write_all(b"late").await.unwrap();
            let mut buf = [0u8; 4];
            ours.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"late");
        });
    })
    .join()
    .unwrap();
    // And the first thread again.
    rt.block_on(still_works());
    let rt = std::sync::Arc::try_unwrap(rt).unwrap();
    support::within(TEST_TIMEOUT, "dropping the runtime", move || drop(rt));
}

/// `block_in_place` on a one-worker runtime at `EMFILE`.
fn block_in_place_at_emfile() {
    let Some(rt) = uring(Some(1)) else { return };
    rt.block_on(async {
        tokiwa::spawn(async {
            let metrics = tokiwa::runtime::Handle::current().metrics();
            assert_eq!(metrics.num_idle_blocking_threads(), 0);
            let fillers = support::fds::Exhausted::new();
            let refused = catch_unwind(AssertUnwindSafe(|| {
                tokiwa::task::block_in_place(|| {
                    // The pool thread the worker was handed to has tried
                    // (and given the core back) once it is idle.
                    support::wait_until(TEST_TIMEOUT, "the hand-off to end", || {
                        metrics.num_idle_blocking_threads() == 1
                    });
                })
            }));
            drop(fillers);
            let message = panic_message(&*refused.expect_err("the worker moved at EMFILE"));
            assert!(message.starts_with(NOT_MOVED), "{message}");
            // This task's thread drives the worker again.
            still_works().await;
            // And with descriptors free, the worker moves.
            assert_eq!(tokiwa::task::block_in_place(|| 4), 4);
            still_works().await;
        })
        .await
        .unwrap();
    });
    support::within(TEST_TIMEOUT, "dropping the runtime", move || drop(rt));
}

#[test]
fn a_ring_refused_while_a_core_changes_threads_leaves_the_runtime_whole() {
    quiet_panics(&[REFUSED, NOT_MOVED]);
    support::watchdog(TEST_TIMEOUT, || {
        block_on_from_a_new_thread_at_emfile();
        block_in_place_at_emfile();
    });
}
