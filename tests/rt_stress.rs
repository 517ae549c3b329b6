#![cfg(feature = "full")]
//! Many cross-thread wakeups: tasks woken from std threads, std threads
//! woken from tasks, tasks waking tasks on other workers. Each test must
//! finish (a lost wakeup hangs it, and the watchdog turns that into a
//! failure) with every message accounted for.
//!
//! The counts add up to 1,000,000 wakeups (most of them from another
//! thread: the task-to-task ones may land on the same worker), in debug and
//! release builds alike: a debug build runs the file in about
//! five seconds on a two-core machine, so nothing is scaled down. Should
//! that change, divide in [`scaled`] under `cfg(debug_assertions)` only,
//! and keep the full count in release.

#[macro_use]
mod support;

use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use support::{watchdog, Flavor};
use tokiwa::sync::{mpsc, oneshot, Notify};

/// Total wakeups across this file.
const TOTAL: usize = 1_000_000;

/// The generous limit for each test: a debug build on a loaded two-core
/// machine is slow, but a hang is still a hang.
const STRESS_TIMEOUT: Duration = Duration::from_secs(120);

/// A test's share of [`TOTAL`] (the same in every build; see the module
/// docs).
fn scaled(share: usize) -> usize {
    share
}

fn two_workers() -> tokiwa::runtime::Runtime {
    Flavor::multi_thread(2).build()
}

/// `rounds` round trips between a std thread and a task: every round the
/// std thread wakes the task (through a tokio channel) and the task wakes
/// the std thread (through a std channel).
fn std_thread_ping_pong(rt: &tokiwa::runtime::Runtime, pairs: usize, rounds: usize) {
    let mut tasks = Vec::new();
    let mut threads = Vec::new();
    for _ in 0..pairs {
        let (to_task, mut task_rx) = mpsc::channel::<usize>(1);
        let (to_thread, thread_rx) = std_mpsc::sync_channel::<usize>(1);
        tasks.push(rt.spawn(async move {
            let mut seen = 0;
            while let Some(n) = task_rx.recv().await {
                assert_eq!(n, seen, "out of order");
                seen += 1;
                to_thread.send(n).unwrap();
            }
            seen
        }));
        threads.push(thread::spawn(move || {
            for n in 0..rounds {
                to_task.blocking_send(n).unwrap();
                assert_eq!(thread_rx.recv().unwrap(), n);
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    rt.block_on(async {
        for jh in tasks {
            assert_eq!(jh.await.unwrap(), rounds);
        }
    });
}

#[test]
fn std_threads_ping_pong_with_tasks_multi_thread() {
    // 400,000 round trips, two pairs on two workers.
    watchdog(STRESS_TIMEOUT, || {
        let rt = two_workers();
        std_thread_ping_pong(&rt, 2, scaled(200_000));
    });
}

#[test]
fn std_thread_ping_pong_with_task_current_thread() {
    // 100,000 round trips; the runtime is driven by `block_on` on
    // another thread, woken by the std thread every round.
    watchdog(STRESS_TIMEOUT, || {
        let rt = Arc::new(Flavor::current_thread().build());
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let driver = {
            let rt = rt.clone();
            thread::spawn(move || rt.block_on(async { stop_rx.await.unwrap() }))
        };
        std_thread_ping_pong_driven(&rt, scaled(100_000));
        stop_tx.send(()).unwrap();
        driver.join().unwrap();
    });
}

/// Like [`std_thread_ping_pong`] on a runtime someone else drives: the
/// result is collected without `block_on`.
fn std_thread_ping_pong_driven(rt: &tokiwa::runtime::Runtime, rounds: usize) {
    let (to_task, mut task_rx) = mpsc::channel::<usize>(1);
    let (to_thread, thread_rx) = std_mpsc::sync_channel::<usize>(1);
    let (done_tx, done_rx) = std_mpsc::channel::<usize>();
    drop(rt.spawn(async move {
        let mut seen = 0;
        while let Some(n) = task_rx.recv().await {
            assert_eq!(n, seen, "out of order");
            seen += 1;
            to_thread.send(n).unwrap();
        }
        done_tx.send(seen).unwrap();
    }));
    for n in 0..rounds {
        to_task.blocking_send(n).unwrap();
        assert_eq!(thread_rx.recv().unwrap(), n);
    }
    drop(to_task);
    assert_eq!(done_rx.recv().unwrap(), rounds);
}

#[test]
fn tasks_ping_pong_across_workers() {
    // 200,000 messages between two tasks over bounded channels, with
    // the LIFO slot off so the woken task is left for the other worker to
    // steal. That option is unstable, as in tokio: `.ci/run` runs this
    // file again with `tokio_unstable`; without it the woken task may sit
    // in the LIFO slot, and the test still checks every message.
    watchdog(STRESS_TIMEOUT, || {
        let mut builder = support::Flavor::multi_thread(2).builder();
        #[cfg(tokio_unstable)]
        builder.disable_lifo_slot();
        let rt = builder.build().unwrap();
        let rounds = scaled(100_000);
        let (a_tx, mut a_rx) = mpsc::channel::<usize>(1);
        let (b_tx, mut b_rx) = mpsc::channel::<usize>(1);
        let ponger = rt.spawn(async move {
            let mut n = 0;
            while let Some(m) = a_rx.recv().await {
                assert_eq!(m, n);
                n += 1;
                b_tx.send(m).await.unwrap();
            }
            n
        });
        let pinger = rt.spawn(async move {
            for n in 0..rounds {
                a_tx.send(n).await.unwrap();
                assert_eq!(b_rx.recv().await.unwrap(), n);
            }
        });
        rt.block_on(async {
            pinger.await.unwrap();
            assert_eq!(ponger.await.unwrap(), rounds);
        });
    });
}

#[test]
fn tasks_ping_pong_with_notify() {
    // 200,000 notifications between two tasks through two
    // `Notify`s, on two workers.
    watchdog(STRESS_TIMEOUT, || {
        let rt = two_workers();
        let rounds = scaled(100_000);
        let ping = Arc::new(Notify::new());
        let pong = Arc::new(Notify::new());
        let (p1, q1) = (ping.clone(), pong.clone());
        let ponger = rt.spawn(async move {
            for _ in 0..rounds {
                p1.notified().await;
                q1.notify_one();
            }
        });
        let pinger = rt.spawn(async move {
            for _ in 0..rounds {
                ping.notify_one();
                pong.notified().await;
            }
        });
        rt.block_on(async {
            pinger.await.unwrap();
            ponger.await.unwrap();
        });
    });
}

#[test]
fn std_threads_wake_many_tasks_sharded() {
    // 100,000 wakeups: 100 rounds of 1,000 tasks each waiting on a
    // oneshot that one of two std threads completes. Four workers over
    // three injection shards.
    watchdog(STRESS_TIMEOUT, || {
        let rt = Flavor::multi_thread(4).sharded(3).build();
        let per_round = 1000;
        let rounds = scaled(100_000) / per_round;
        for round in 0..rounds {
            let mut senders = Vec::with_capacity(per_round);
            let mut handles = Vec::with_capacity(per_round);
            for i in 0..per_round {
                let (tx, rx) = oneshot::channel::<usize>();
                senders.push(tx);
                handles.push(rt.spawn(async move { rx.await.unwrap() == i }));
            }
            let second = senders.split_off(per_round / 2);
            let offset = per_round / 2;
            let threads = [(senders, 0), (second, offset)].map(|(txs, base)| {
                thread::spawn(move || {
                    for (k, tx) in txs.into_iter().enumerate() {
                        tx.send(base + k).unwrap();
                    }
                })
            });
            for t in threads {
                t.join().unwrap();
            }
            rt.block_on(async {
                for jh in handles {
                    assert!(jh.await.unwrap(), "round {round}: wrong value");
                }
            });
        }
    });
}

#[test]
fn counts_add_up() {
    // Keeps the module docs honest: the shares above sum to the total.
    assert_eq!(
        2 * 200_000 + 100_000 + 2 * 100_000 + 2 * 100_000 + 100_000,
        TOTAL
    );
}
