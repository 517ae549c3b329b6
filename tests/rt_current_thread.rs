#![cfg(feature = "full")]
//! The current-thread scheduler keeps tasks spawned on its driving thread
//! in the core's own list and tasks spawned elsewhere in a shared one:
//! both kinds must be counted, completed and cancelled alike.

#[macro_use]
mod support;

use std::future::pending;
use std::thread;
use std::time::Duration;

use support::{within, Counter};
use tokiwa::runtime::Builder;

#[test]
fn local_and_remote_spawns_are_counted_and_cancelled() {
    within(Duration::from_secs(30), "mixed spawns", || {
        let rt = Builder::new_current_thread().build().unwrap();
        let drops = Counter::new();
        // From the driving thread: the core's list.
        rt.block_on(async {
            for _ in 0..1000 {
                let guard = drops.guard();
                tokiwa::spawn(async move {
                    let _guard = guard;
                    pending::<()>().await
                });
            }
        });
        // From another thread: the shared list.
        let handle = rt.handle().clone();
        let remote_drops = drops.clone();
        thread::spawn(move || {
            for _ in 0..1000 {
                let guard = remote_drops.guard();
                handle.spawn(async move {
                    let _guard = guard;
                    pending::<()>().await
                });
            }
        })
        .join()
        .unwrap();
        // Let the remote ones run once too.
        rt.block_on(tokiwa::task::yield_now());
        assert_eq!(rt.metrics().num_alive_tasks(), 2000);
        assert_eq!(drops.get(), 0);
        drop(rt);
        assert_eq!(drops.get(), 2000, "every future dropped exactly once");
    });
}

#[test]
fn completed_tasks_leave_both_lists() {
    let rt = Builder::new_current_thread().build().unwrap();
    let handle = rt.handle().clone();
    let remote = thread::spawn(move || {
        (0..100)
            .map(|i| handle.spawn(async move { i }))
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    let sum = rt.block_on(async move {
        let local: Vec<_> = (0..100).map(|i| tokiwa::spawn(async move { i })).collect();
        let mut sum = 0;
        for h in local.into_iter().chain(remote) {
            sum += h.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, 2 * (0..100).sum::<i32>());
    assert_eq!(rt.metrics().num_alive_tasks(), 0);
}

#[test]
fn local_task_moves_with_the_core_to_another_driving_thread() {
    // A task spawned while thread A drives completes while thread B drives.
    let rt = std::sync::Arc::new(Builder::new_current_thread().build().unwrap());
    let (tx, rx) = tokiwa::sync::oneshot::channel::<u32>();
    // Returned in a tuple: the handle itself is what the test is about,
    // not awaited here.
    let (join,) = rt.block_on(async { (tokiwa::spawn(async move { rx.await.unwrap() + 1 }),) });
    tx.send(41).unwrap();
    let rt2 = rt.clone();
    let out = thread::spawn(move || rt2.block_on(join).unwrap())
        .join()
        .unwrap();
    assert_eq!(out, 42);
    assert_eq!(rt.metrics().num_alive_tasks(), 0);
}
