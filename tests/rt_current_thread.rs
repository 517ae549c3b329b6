#![cfg(feature = "full")]
//! The current-thread scheduler keeps tasks spawned on its driving thread
//! in the core's own list and tasks spawned elsewhere in a shared one:
//! both kinds must be counted, completed and cancelled alike. A task that
//! yields waits for the driver to be polled, and for no longer.

#[macro_use]
mod support;

use std::future::pending;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use support::{within, Counter, DRIVERS};
use tokiwa::runtime::{Builder, Driver, Runtime};
use tokiwa::sync::mpsc;
use tokiwa::task::yield_now;

fn runtime_on(driver: Driver) -> Runtime {
    Builder::new_current_thread()
        .driver(driver)
        .enable_all()
        .build()
        .unwrap()
}

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

#[test]
fn a_yielding_task_runs_again_only_after_the_driver_is_polled() {
    // tokio's contract for `yield_now` (and a spent budget): the task runs
    // again after the driver has been polled, so I/O it waits for can
    // arrive. A reader waits for a byte that is already written when the
    // yielder starts: the yielder's first yield must let the driver see it.
    for &driver in DRIVERS {
        within(Duration::from_secs(30), "yield and I/O", move || {
            let rt = runtime_on(driver);
            rt.block_on(async {
                let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
                ours.set_nonblocking(true).unwrap();
                let ours = tokiwa::net::UnixStream::from_std(ours).unwrap();
                let readable = Arc::new(AtomicBool::new(false));
                let reader = tokiwa::spawn({
                    let readable = readable.clone();
                    async move {
                        ours.readable().await.unwrap();
                        readable.store(true, SeqCst);
                    }
                });
                // The reader runs (and waits for readiness) before this
                // future is polled again.
                yield_now().await;
                theirs.write_all(b"x").unwrap();
                let yielder = tokiwa::spawn(async move {
                    let mut yields = 0;
                    while !readable.load(SeqCst) && yields < 10 {
                        yield_now().await;
                        yields += 1;
                    }
                    yields
                });
                assert_eq!(
                    yielder.await.unwrap(),
                    1,
                    "{driver}: the yielded task ran again before the driver reported the byte"
                );
                reader.await.unwrap();
            });
        });
    }
}

#[test]
fn a_yielding_task_is_not_starved_by_tasks_that_keep_waking_each_other() {
    // Pairs of tasks ping-pong over channels, so the run queue is never
    // empty; a task that yields must still run again within a batch or
    // so, not after the ping-pong ends.
    const PAIRS: usize = 20;
    const ROUNDS: usize = 5_000;
    for &driver in DRIVERS {
        within(Duration::from_secs(60), "ping-pong and yield", move || {
            let rt = runtime_on(driver);
            rt.block_on(async {
                let yielder_done = Arc::new(AtomicBool::new(false));
                let mut pingers = Vec::new();
                for _ in 0..PAIRS {
                    let (ping_tx, mut ping_rx) = mpsc::unbounded_channel::<()>();
                    let (pong_tx, mut pong_rx) = mpsc::unbounded_channel::<()>();
                    let yielder_done = yielder_done.clone();
                    pingers.push(tokiwa::spawn(async move {
                        for _ in 0..ROUNDS {
                            ping_tx.send(()).unwrap();
                            pong_rx.recv().await.unwrap();
                        }
                        yielder_done.load(SeqCst)
                    }));
                    tokiwa::spawn(async move {
                        while ping_rx.recv().await.is_some() {
                            let _ = pong_tx.send(());
                        }
                    });
                }
                let yielder = tokiwa::spawn({
                    let yielder_done = yielder_done.clone();
                    async move {
                        for _ in 0..5 {
                            yield_now().await;
                        }
                        yielder_done.store(true, SeqCst);
                    }
                });
                yielder.await.unwrap();
                for pinger in pingers {
                    assert!(
                        pinger.await.unwrap(),
                        "{driver}: the yielding task waited for the ping-pong to end"
                    );
                }
            });
        });
    }
}
