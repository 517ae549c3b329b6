#![cfg(feature = "full")]
//! What every runtime flavour must do alike: spawning from inside and
//! outside, `block_on`, fairness, cross-thread wakeups, the current handle,
//! metrics, the blocking pool, `block_in_place`, the builder's hooks and
//! names, and shutdown (timeouts, pending tasks, destructors that spawn).
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::{pending, poll_fn, Future};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc as std_mpsc, Arc, Barrier as StdBarrier, Mutex};
use std::task::{Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use support::{panic_message, wait_until, within, Counter, Flavor, Scheduler, Tracked};
use tokiwa::runtime::{Handle, Runtime, RuntimeFlavor};
use tokiwa::sync::{mpsc, oneshot, Notify, Semaphore};
use tokiwa::task::{self, JoinHandle};

const CONTEXT_MISSING: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";
const NESTED_RUNTIME: &str = "Cannot start a runtime from within a runtime";
const BLOCK_IN_PLACE_CURRENT_THREAD: &str =
    "can call blocking only when running on the multi-threaded runtime";

/// A yield loop that should end long before this many turns on any
/// scheduler that is fair (tokio lets other tasks run at least every 61
/// ticks); reaching it means starvation, reported as a failure rather than a
/// hang.
const STARVATION_LIMIT: u64 = 200_000;

/// Runs `step` until `done` holds, failing with `what` after `limit` turns:
/// how the starvation tests spin without sleeping.
async fn spin_until<F: std::future::Future<Output = ()>>(
    mut done: impl FnMut() -> bool,
    limit: u64,
    what: &str,
    mut step: impl FnMut() -> F,
) {
    let mut turns = 0u64;
    while !done() {
        step().await;
        turns += 1;
        assert!(turns < limit, "{what}");
    }
}

/// Spawns a chain of `depth` tasks, each spawning and awaiting the next.
/// Spawns a task spinning on `step` until a flag is set, and a task that
/// sets it: both must finish (the spinner must not starve the setter).
fn spinner_lets_setter_run<S, F>(rt: &Runtime, limit: u64, what: &'static str, step: S)
where
    S: Fn() -> F + Send + 'static,
    F: Future<Output = ()> + Send,
{
    rt.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let spinner = tokiwa::spawn({
            let flag = flag.clone();
            async move { spin_until(|| flag.load(SeqCst), limit, what, step).await }
        });
        let setter = tokiwa::spawn({
            let flag = flag.clone();
            async move { flag.store(true, SeqCst) }
        });
        spinner.await.unwrap();
        setter.await.unwrap();
    });
}

fn chain(depth: usize) -> Pin<Box<dyn Future<Output = usize> + Send>> {
    Box::pin(async move {
        if depth == 0 {
            0
        } else {
            tokiwa::spawn(chain(depth - 1)).await.unwrap() + 1
        }
    })
}

/// Spawns a binary tree of tasks of the given depth; returns how many.
fn tree(depth: u32) -> Pin<Box<dyn Future<Output = usize> + Send>> {
    Box::pin(async move {
        if depth == 0 {
            return 1;
        }
        let left = tokiwa::spawn(tree(depth - 1));
        let right = tokiwa::spawn(tree(depth - 1));
        1 + left.await.unwrap() + right.await.unwrap()
    })
}

/// Waits on a std channel from a task, blocking its worker thread on
/// purpose.
fn std_recv<T>(rx: &std_mpsc::Receiver<T>) -> T {
    rx.recv_timeout(Duration::from_secs(30))
        .expect("std channel: nothing received within 30 s")
}

/// Runs a closure that must panic and returns the panic's message.
#[track_caller]
fn panic_of<R>(f: impl FnOnce() -> R) -> String {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(payload) => panic_message(&*payload),
    }
}

/// The id, the `Display` text and the message of a panicked task.
fn task_panic(err: task::JoinError) -> String {
    assert!(err.is_panic(), "expected a panic, got {err:?}");
    assert!(!err.is_cancelled());
    panic_message(&*err.into_panic())
}

fn sum_worker_metric(rt: &tokiwa::runtime::RuntimeMetrics, f: impl Fn(usize) -> u64) -> u64 {
    (0..rt.num_workers()).map(f).sum()
}

rt_test! {
    fn block_on_returns_values() {
        let rt = rt();
        assert_eq!(rt.block_on(async { 1 + 2 }), 3);
        // Borrowed and `!Send` data are fine in `block_on`.
        let v = [1, 2, 3];
        let rc = Rc::new(5);
        assert_eq!(rt.block_on(async { *rc + v.len() }), 8);
        for i in 0..100 {
            assert_eq!(rt.block_on(async move { i }), i);
        }
        assert_eq!(rt.handle().block_on(async { 'x' }), 'x');
        // An async fn's future, by name.
        async fn add(a: u32, b: u32) -> u32 {
            a + b
        }
        assert_eq!(rt.block_on(add(20, 22)), 42);
    }

    fn spawn_inside_block_on() {
        let rt = rt();
        let out = rt.block_on(async {
            let a = tokiwa::spawn(async { "hello" });
            let b = task::spawn(async { "world" });
            (a.await.unwrap(), b.await.unwrap())
        });
        assert_eq!(out, ("hello", "world"));
    }

    fn spawn_with_runtime_spawn() {
        let rt = rt();
        let (tx, rx) = std_mpsc::channel();
        let jh = rt.spawn(async move {
            tx.send(1).unwrap();
            2
        });
        assert_eq!(rt.block_on(jh).unwrap(), 2);
        assert_eq!(rx.try_recv(), Ok(1));

        if FLAVOR.is_multi_thread() {
            // The workers run the task with nobody in `block_on`.
            let (tx, rx) = std_mpsc::channel();
            let _detached = rt.spawn(async move { tx.send(()).unwrap() });
            std_recv(&rx);
        }
    }

    fn handle_spawn_from_other_thread() {
        let rt = rt();
        let handle = rt.handle().clone();
        let handles: Vec<JoinHandle<u32>> = thread::spawn(move || {
            (0..10).map(|i| handle.spawn(async move { i * 2 })).collect()
        })
        .join()
        .unwrap();
        let out = rt.block_on(async {
            let mut out = Vec::new();
            for jh in handles {
                out.push(jh.await.unwrap());
            }
            out
        });
        assert_eq!(out, (0..10).map(|i| i * 2).collect::<Vec<_>>());
    }

    fn enter_then_spawn() {
        let rt = rt();
        let jh = {
            let _guard = rt.enter();
            assert_eq!(Handle::current().runtime_flavor(), FLAVOR.runtime_flavor());
            tokiwa::spawn(async { 5 })
        };
        assert!(Handle::try_current().is_err(), "the guard did not restore the context");
        assert_eq!(rt.block_on(jh).unwrap(), 5);

        // Nested guards of the same runtime.
        let _a = rt.enter();
        let _b = rt.handle().enter();
        let jh = tokiwa::spawn(async { 6 });
        drop(_b);
        let jh2 = tokiwa::spawn(async { 7 });
        drop(_a);
        assert_eq!(rt.block_on(async { jh.await.unwrap() + jh2.await.unwrap() }), 13);
    }

    fn nested_spawn_chain() {
        let rt = rt();
        assert_eq!(rt.block_on(chain(200)), 200);
        // A fan-out tree: 2^11 - 1 tasks, each awaiting its two children.
        assert_eq!(rt.block_on(tree(10)), 2047);
        // The chain from outside `block_on`.
        let jh = rt.spawn(chain(50));
        assert_eq!(rt.block_on(jh).unwrap(), 50);
    }

    fn spawn_10k_inside() {
        const N: usize = 10_000;
        let rt = rt();
        let ran = Counter::new();
        let sum = rt.block_on({
            let ran = ran.clone();
            async move {
                let handles: Vec<_> = (0..N)
                    .map(|i| {
                        let ran = ran.clone();
                        tokiwa::spawn(async move {
                            ran.inc();
                            i
                        })
                    })
                    .collect();
                let mut sum = 0;
                for (i, jh) in handles.into_iter().enumerate() {
                    let out = jh.await.unwrap();
                    assert_eq!(out, i);
                    sum += out;
                }
                sum
            }
        });
        assert_eq!(ran.get(), N);
        assert_eq!(sum, N * (N - 1) / 2);
    }

    fn spawn_10k_outside() {
        const N: usize = 10_000;
        let rt = rt();
        let handles: Vec<_> = (0..N).map(|i| rt.spawn(async move { i })).collect();
        let sum = rt.block_on(async move {
            let mut sum = 0;
            for jh in handles {
                sum += jh.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, N * (N - 1) / 2);
    }

    fn spawn_many_from_many_tasks() {
        // 10 tasks each spawn 1,000 detached tasks that report on a channel.
        let rt = rt();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let got = rt.block_on(async move {
            for i in 0..10 {
                let tx = tx.clone();
                tokiwa::spawn(async move {
                    for j in 0..1000 {
                        let tx = tx.clone();
                        tokiwa::spawn(async move { tx.send(i * 1000 + j).unwrap() });
                    }
                });
            }
            drop(tx);
            let mut seen = vec![false; 10_000];
            while let Some(n) = rx.recv().await {
                assert!(!seen[n], "{n} received twice");
                seen[n] = true;
            }
            seen.iter().filter(|s| **s).count()
        });
        assert_eq!(got, 10_000);
    }

    fn yield_now_spinner_does_not_starve_task() {
        // A task spinning on `yield_now` until a flag is set must let the
        // task that sets the flag run.
        let rt = rt();
        spinner_lets_setter_run(&rt, STARVATION_LIMIT, "setter starved by a yield_now loop", || {
            task::yield_now()
        });
    }

    fn yield_now_spinner_does_not_starve_task_it_spawned() {
        // The setter is spawned by the spinner itself (LIFO slot on a
        // worker), then the spinner yields in a loop.
        let rt = rt();
        rt.block_on(async {
            tokiwa::spawn(async {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                let setter = tokiwa::spawn(async move { f.store(true, SeqCst) });
                spin_until(
                    || flag.load(SeqCst),
                    STARVATION_LIMIT,
                    "setter starved by a yield_now loop",
                    || async {
                        task::yield_now().await;
                    },
                )
                .await;
                setter.await.unwrap();
            })
            .await
            .unwrap();
        });
    }

    fn yield_now_spinner_does_not_starve_remote_wakeup() {
        // The flag's setter waits on a channel that a std thread sends on
        // once the spinner runs: its wakeup comes from outside the runtime
        // and must get past a run queue that is never empty.
        let rt = rt();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let (go_tx, go_rx) = oneshot::channel::<()>();
            let (started_tx, started_rx) = std_mpsc::channel::<()>();
            let setter = tokiwa::spawn({
                let flag = flag.clone();
                async move {
                    go_rx.await.unwrap();
                    flag.store(true, SeqCst);
                }
            });
            let spinner = tokiwa::spawn({
                let flag = flag.clone();
                async move {
                    started_tx.send(()).unwrap();
                    spin_until(
                        || flag.load(SeqCst),
                        STARVATION_LIMIT,
                        "remote wakeup starved by a yield_now loop",
                        || async {
                            task::yield_now().await;
                        },
                    )
                    .await;
                }
            });
            let sender = thread::spawn(move || {
                std_recv(&started_rx);
                go_tx.send(()).unwrap();
            });
            spinner.await.unwrap();
            setter.await.unwrap();
            sender.join().unwrap();
        });
    }

    fn yield_now_in_block_on_does_not_starve_tasks() {
        // The `block_on` future itself spins on `yield_now`; spawned tasks
        // must still run (tokio runs up to `event_interval` tasks between
        // two polls of the `block_on` future).
        let rt = rt();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let f = flag.clone();
            let _setter = tokiwa::spawn(async move { f.store(true, SeqCst) });
            spin_until(
                || flag.load(SeqCst),
                STARVATION_LIMIT,
                "spawned task starved by a yield_now loop in block_on",
                || async {
                    task::yield_now().await;
                },
            )
            .await;
        });
    }

    fn consume_budget_spinner_does_not_starve_task() {
        // `consume_budget` in a loop yields once the coop budget is spent.
        let rt = rt();
        spinner_lets_setter_run(&rt, 100 * STARVATION_LIMIT, "setter starved by consume_budget", || {
            task::consume_budget()
        });
    }

    fn cooperative_spinner_does_not_starve_task() {
        // A future wrapped in `coop::cooperative` spends budget per poll.
        let rt = rt();
        spinner_lets_setter_run(&rt, 100 * STARVATION_LIMIT, "setter starved by cooperative", || {
            task::coop::cooperative(std::future::ready(()))
        });
    }

    fn poll_proceed_spends_and_restores_budget() {
        let rt = rt();
        let task = rt.spawn(poll_fn(|cx| {
            // A guard dropped without `made_progress` gives its unit back.
            for _ in 0..1000 {
                let guard = std::task::ready!(task::coop::poll_proceed(cx));
                drop(guard);
            }
            assert!(task::coop::has_budget_remaining());
            let mut spent = 0;
            while let Poll::Ready(guard) = task::coop::poll_proceed(cx) {
                guard.made_progress();
                spent += 1;
            }
            assert_eq!(spent, 128, "tokio's budget per poll");
            assert!(!task::coop::has_budget_remaining());
            Poll::Ready(())
        }));
        rt.block_on(task).unwrap();
    }

    fn cross_thread_oneshot() {
        let rt = rt();
        // A task woken from a std thread.
        let (tx, rx) = oneshot::channel();
        let jh = rt.spawn(async move { rx.await.unwrap() });
        let sender = thread::spawn(move || tx.send(42).unwrap());
        assert_eq!(rt.block_on(jh).unwrap(), 42);
        sender.join().unwrap();
        // The `block_on` future itself woken from a std thread.
        for i in 0..100 {
            let (tx, rx) = oneshot::channel();
            let sender = thread::spawn(move || tx.send(i).unwrap());
            assert_eq!(rt.block_on(async { rx.await.unwrap() }), i);
            sender.join().unwrap();
        }
    }

    fn cross_thread_mpsc() {
        let rt = rt();
        // Unbounded: std threads wake the receiving task.
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let receiver = rt.spawn(async move {
            let mut sum = 0u64;
            while let Some(n) = rx.recv().await {
                sum += u64::from(n);
            }
            sum
        });
        let senders: Vec<_> = (0..2)
            .map(|_| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for n in 0..1000 {
                        tx.send(n).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        for s in senders {
            s.join().unwrap();
        }
        assert_eq!(rt.block_on(receiver).unwrap(), 2 * 999 * 1000 / 2);

        // Bounded: the receiving task also wakes std threads parked in
        // `blocking_send`.
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let receiver = rt.spawn(async move {
            let mut count = 0;
            while rx.recv().await.is_some() {
                count += 1;
            }
            count
        });
        let senders: Vec<_> = (0..2)
            .map(|_| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for n in 0..1000 {
                        tx.blocking_send(n).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        assert_eq!(rt.block_on(receiver).unwrap(), 2000);
        for s in senders {
            s.join().unwrap();
        }
    }

    fn handle_current_inside_and_outside() {
        let err = Handle::try_current().unwrap_err();
        assert!(err.is_missing_context());
        assert!(!err.is_thread_local_destroyed());
        assert_eq!(err.to_string(), CONTEXT_MISSING);
        assert_eq!(panic_of(Handle::current), CONTEXT_MISSING);

        let rt = rt();
        rt.block_on(async {
            let handle = Handle::current();
            assert_eq!(handle.runtime_flavor(), FLAVOR.runtime_flavor());
            assert!(Handle::try_current().is_ok());
            // The current handle spawns onto this runtime.
            let inner = handle
                .spawn(async { Handle::current().runtime_flavor() })
                .await
                .unwrap();
            assert_eq!(inner, FLAVOR.runtime_flavor());
        });
        // Inside a task spawned from outside.
        let jh = rt.spawn(async { Handle::try_current().map(|h| h.runtime_flavor()).ok() });
        assert_eq!(rt.block_on(jh).unwrap(), Some(FLAVOR.runtime_flavor()));
        // Inside a blocking closure.
        let jh = rt.spawn_blocking(|| Handle::try_current().map(|h| h.runtime_flavor()).ok());
        assert_eq!(rt.block_on(jh).unwrap(), Some(FLAVOR.runtime_flavor()));
        // A handle taken inside works from another thread.
        let handle = rt.block_on(async { Handle::current() });
        let jh = thread::spawn(move || handle.spawn(async { 3 })).join().unwrap();
        assert_eq!(rt.block_on(jh).unwrap(), 3);
        // Outside again.
        assert!(Handle::try_current().is_err());
    }

    fn runtime_flavor() {
        let rt = rt();
        assert_eq!(rt.handle().runtime_flavor(), FLAVOR.runtime_flavor());
        assert_eq!(rt.handle().clone().runtime_flavor(), FLAVOR.runtime_flavor());
        let expected = match FLAVOR.scheduler {
            Scheduler::CurrentThread => RuntimeFlavor::CurrentThread,
            Scheduler::MultiThread { .. } => RuntimeFlavor::MultiThread,
        };
        assert_eq!(rt.block_on(async { Handle::current().runtime_flavor() }), expected);
    }

    fn driver_is_the_flavors() {
        // Guards the flavour list: each module runs the driver it names,
        // with no silent fallback.
        let rt = rt();
        let driver = FLAVOR.driver.expect("rt_test! flavours name their driver");
        assert_eq!(rt.handle().driver(), driver);
        assert_eq!(rt.handle().driver_fallback_reason(), None);
        assert_eq!(rt.block_on(async { Handle::current().driver() }), driver);
    }

    fn metrics_num_workers() {
        let rt = rt();
        assert_eq!(rt.metrics().num_workers(), FLAVOR.workers());
        assert_eq!(rt.handle().metrics().num_workers(), FLAVOR.workers());
    }

    fn metrics_alive_tasks() {
        let rt = rt();
        let metrics = rt.metrics();
        assert_eq!(metrics.num_alive_tasks(), 0);
        let gate = Arc::new(Semaphore::new(0));
        let handles: Vec<_> = (0..10)
            .map(|_| {
                let gate = gate.clone();
                rt.spawn(async move { gate.acquire().await.unwrap().forget() })
            })
            .collect();
        assert_eq!(metrics.num_alive_tasks(), 10);
        gate.add_permits(10);
        rt.block_on(async {
            for jh in handles {
                jh.await.unwrap();
            }
        });
        wait_until(Duration::from_secs(10), "num_alive_tasks back to 0", || {
            metrics.num_alive_tasks() == 0
        });
        // Detached tasks are counted until they finish too.
        let (tx, rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<()>();
        drop(rt.spawn(async move {
            rx.await.unwrap();
            done_tx.send(()).unwrap();
        }));
        assert_eq!(metrics.num_alive_tasks(), 1);
        tx.send(()).unwrap();
        rt.block_on(async { done_rx.await.unwrap() });
        if !FLAVOR.is_multi_thread() {
            // The task completed on this thread before `block_on` returned.
            assert_eq!(metrics.num_alive_tasks(), 0);
        }
        wait_until(Duration::from_secs(10), "detached task leaves the count", || {
            metrics.num_alive_tasks() == 0
        });
    }

    fn metrics_poll_count() {
        const N: u64 = 50;
        let rt = rt();
        let metrics = rt.metrics();
        rt.block_on(async {
            for _ in 0..N {
                tokiwa::spawn(async {}).await.unwrap();
            }
        });
        // As in tokio's own test: the counts are final once the runtime is
        // gone.
        drop(rt);
        let polls = sum_worker_metric(&metrics, |i| metrics.worker_poll_count(i));
        assert!(polls >= N, "worker_poll_count summed to {polls}, expected at least {N}");
    }

    fn metrics_park_counts() {
        // A worker parks (the count says so; the park hook would not: it
        // also runs when the worker finds work at the last moment), then a
        // std thread wakes the runtime.
        let rt = rt();
        let metrics = rt.metrics();
        let (tx, rx) = oneshot::channel();
        let m = metrics.clone();
        let sender = thread::spawn(move || {
            let start = Instant::now();
            let parked = loop {
                if sum_worker_metric(&m, |i| m.worker_park_count(i)) >= 1 {
                    break true;
                }
                if start.elapsed() > Duration::from_secs(10) {
                    break false;
                }
                thread::yield_now();
            };
            tx.send(parked).unwrap();
        });
        let parked = rt.block_on(async { rx.await.unwrap() });
        sender.join().unwrap();
        assert!(
            parked,
            "worker_park_count stayed 0 for 10 s of an idle runtime (tokio counts a park \
             before the worker sleeps)"
        );
        // The parked worker is woken at the latest by the shutdown.
        drop(rt);
        let parks = sum_worker_metric(&metrics, |i| metrics.worker_park_count(i));
        let unparks = sum_worker_metric(&metrics, |i| metrics.worker_park_unpark_count(i));
        assert!(parks >= 1, "worker_park_count summed to {parks}");
        assert!(unparks >= 1, "worker_park_unpark_count summed to {unparks}");
    }

    fn metrics_busy_duration() {
        // Every worker is busy for a while (it starts, runs tasks, shuts
        // down), and the total only grows.
        let rt = rt();
        let metrics = rt.metrics();
        rt.block_on(async {
            for _ in 0..5 {
                tokiwa::spawn(async { task::yield_now().await }).await.unwrap();
            }
        });
        let before: Vec<Duration> =
            (0..metrics.num_workers()).map(|i| metrics.worker_total_busy_duration(i)).collect();
        drop(rt);
        for (i, before) in before.into_iter().enumerate() {
            let after = metrics.worker_total_busy_duration(i);
            assert!(after > Duration::ZERO, "worker {i} was never busy");
            assert!(after >= before, "worker {i}'s busy time went back: {before:?} -> {after:?}");
        }
    }

    fn metrics_park_unpark_parity() {
        // The park/unpark count is odd exactly while a worker is parked:
        // wait until every worker is parked (odd), then see it even once
        // the runtime is gone, with one unpark per park.
        let rt = rt();
        let metrics = rt.metrics();
        let all_parked = |m: &tokiwa::runtime::RuntimeMetrics| {
            (0..m.num_workers()).all(|i| m.worker_park_unpark_count(i) % 2 == 1)
        };
        if FLAVOR.is_multi_thread() {
            wait_until(Duration::from_secs(10), "every idle worker parked", || {
                all_parked(&metrics)
            });
        } else {
            // Only `block_on` runs a current-thread runtime: a std thread
            // sees it parked in there, then wakes it.
            let (tx, rx) = oneshot::channel();
            let m = metrics.clone();
            let waker = thread::spawn(move || {
                wait_until(Duration::from_secs(10), "the runtime thread parked", || {
                    all_parked(&m)
                });
                tx.send(()).unwrap();
            });
            rt.block_on(async { rx.await.unwrap() });
            waker.join().unwrap();
        }
        drop(rt);
        for i in 0..metrics.num_workers() {
            let parks = metrics.worker_park_count(i);
            let both = metrics.worker_park_unpark_count(i);
            assert!(parks >= 1, "worker {i} never parked");
            assert_eq!(both, 2 * parks, "worker {i}: {parks} parks, {both} parks and unparks");
        }
    }

    fn metrics_blocking_threads() {
        let rt = rt();
        let metrics = rt.metrics();
        // tokio counts only the threads spawned for blocking work (not the
        // workers).
        assert_eq!(metrics.num_blocking_threads(), 0, "before any spawn_blocking");
        rt.block_on(rt.spawn_blocking(|| {})).unwrap();
        assert_eq!(metrics.num_blocking_threads(), 1, "after one spawn_blocking");
        wait_until(Duration::from_secs(10), "the blocking thread goes idle", || {
            metrics.num_idle_blocking_threads() == 1
        });
        assert_eq!(metrics.blocking_queue_depth(), 0);
    }

    fn metrics_queue_depths() {
        let rt = rt();
        let metrics = rt.metrics();
        assert_eq!(metrics.global_queue_depth(), 0);
        for i in 0..metrics.num_workers() {
            assert_eq!(metrics.worker_local_queue_depth(i), 0);
            let _ = metrics.worker_steal_count(i);
            let _ = metrics.worker_overflow_count(i);
        }
        if !FLAVOR.is_multi_thread() {
            // Nothing drives a current-thread runtime outside `block_on`:
            // remote spawns wait in the injection queue.
            let handles: Vec<_> = (0..5).map(|_| rt.spawn(async {})).collect();
            assert_eq!(metrics.global_queue_depth(), 5);
            rt.block_on(async {
                for jh in handles {
                    jh.await.unwrap();
                }
            });
            assert_eq!(metrics.global_queue_depth(), 0);
            // Spawns from the driving thread wait in its local queue, which
            // the depth follows as it fills and drains (as in tokio).
            let m = metrics.clone();
            rt.block_on(async move {
                let handles: Vec<_> = (0..7).map(|_| tokiwa::spawn(async {})).collect();
                assert_eq!(m.worker_local_queue_depth(0), 7);
                for jh in handles {
                    jh.await.unwrap();
                }
                assert_eq!(m.worker_local_queue_depth(0), 0);
            });
        }
    }

    fn spawn_blocking_runs_on_another_thread() {
        let rt = rt();
        let (caller, task_thread, (blocking_thread, value)) = rt.block_on(async {
            let caller = thread::current().id();
            let task_thread = tokiwa::spawn(async { thread::current().id() }).await.unwrap();
            let blocking = task::spawn_blocking(|| (thread::current().id(), 7)).await.unwrap();
            (caller, task_thread, blocking)
        });
        assert_eq!(value, 7);
        assert_ne!(blocking_thread, caller);
        assert_ne!(blocking_thread, task_thread);
        assert_ne!(blocking_thread, thread::current().id());
        // From outside, through the runtime and its handle.
        assert_eq!(rt.block_on(rt.spawn_blocking(|| "a")).unwrap(), "a");
        assert_eq!(rt.block_on(rt.handle().spawn_blocking(|| "b")).unwrap(), "b");
    }

    fn panicking_task_is_dropped_while_its_panic_unwinds() {
        // tokio drops a task whose poll panics during the unwinding, so a
        // guard in the future sees `thread::panicking()` (as tokio's
        // `panic_in_task` checks).
        struct Boom(std_mpsc::Sender<bool>);
        impl Future for Boom {
            type Output = ();
            fn poll(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<()> {
                panic!("boom in poll");
            }
        }
        impl Drop for Boom {
            fn drop(&mut self) {
                let _ = self.0.send(thread::panicking());
            }
        }
        let rt = rt();
        let (tx, rx) = std_mpsc::channel();
        let err = rt.block_on(rt.spawn(Boom(tx))).unwrap_err();
        assert_eq!(task_panic(err), "boom in poll");
        assert!(std_recv(&rx), "the future was dropped after its panic was caught");
        // The runtime goes on.
        assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
    }

    fn spawn_blocking_panic_is_join_error() {
        let rt = rt();
        let (id, err) = rt.block_on(async {
            let jh = task::spawn_blocking(|| -> u32 { panic!("boom") });
            let id = jh.id();
            (id, jh.await.unwrap_err())
        });
        assert_eq!(err.id(), id);
        assert_eq!(err.to_string(), format!("task {id} panicked with message \"boom\""));
        assert_eq!(task_panic(err), "boom");
        // The pool still works.
        assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
    }

    fn max_blocking_threads_one_completes_100() {
        let rt = builder().max_blocking_threads(1).build().unwrap();
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let sum = rt.block_on(async {
            let handles: Vec<_> = (0..100usize)
                .map(|i| {
                    let in_flight = in_flight.clone();
                    let max_in_flight = max_in_flight.clone();
                    task::spawn_blocking(move || {
                        let now = in_flight.fetch_add(1, SeqCst) + 1;
                        max_in_flight.fetch_max(now, SeqCst);
                        thread::yield_now();
                        in_flight.fetch_sub(1, SeqCst);
                        i
                    })
                })
                .collect();
            let mut sum = 0;
            for jh in handles {
                sum += jh.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 99 * 100 / 2);
        assert_eq!(max_in_flight.load(SeqCst), 1, "more than one blocking thread ran at once");
    }

    fn block_in_place_hands_off_the_worker() {
        let rt = rt();
        if !FLAVOR.is_multi_thread() {
            // Not allowed on the current-thread runtime, in `block_on` ...
            let msg = rt.block_on(async { panic_of(|| task::block_in_place(|| ())) });
            assert_eq!(msg, BLOCK_IN_PLACE_CURRENT_THREAD);
            // ... or in a task.
            let err = rt
                .block_on(async { tokiwa::spawn(async { task::block_in_place(|| ()) }).await })
                .unwrap_err();
            assert_eq!(task_panic(err), BLOCK_IN_PLACE_CURRENT_THREAD);
            // The runtime survives.
            assert_eq!(rt.block_on(async { tokiwa::spawn(async { 1 }).await.unwrap() }), 1);
            return;
        }
        rt.block_on(async {
            let (std_tx, std_rx) = std_mpsc::channel::<u32>();
            let (entered_tx, entered_rx) = oneshot::channel();
            let blocker = tokiwa::spawn(async move {
                task::block_in_place(move || {
                    entered_tx.send(()).unwrap();
                    std_recv(&std_rx)
                })
            });
            entered_rx.await.unwrap();
            // The blocker's thread is stuck in `recv`. With one worker, the
            // sender below can only run if that worker's core moved to
            // another thread.
            let sender = tokiwa::spawn(async move { std_tx.send(99).unwrap() });
            sender.await.unwrap();
            assert_eq!(blocker.await.unwrap(), 99);
            // And the runtime goes on.
            assert_eq!(chain(20).await, 20);
        });
    }

    fn block_in_place_many_at_once() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        // More tasks than workers are inside `block_in_place` at the same
        // time (they all wait on one barrier): only possible if each one
        // handed its worker's core on.
        let rt = rt();
        let k = FLAVOR.workers() * 2 + 1;
        let barrier = Arc::new(StdBarrier::new(k));
        rt.block_on(async {
            let handles: Vec<_> = (0..k)
                .map(|i| {
                    let barrier = barrier.clone();
                    tokiwa::spawn(async move {
                        task::block_in_place(|| {
                            barrier.wait();
                        });
                        task::yield_now().await;
                        i
                    })
                })
                .collect();
            for (i, jh) in handles.into_iter().enumerate() {
                assert_eq!(jh.await.unwrap(), i);
            }
        });
    }

    fn block_on_inside_runtime_panics() {
        let rt = rt();
        // In the `block_on` future.
        let msg = rt.block_on(async {
            let handle = Handle::current();
            panic_of(|| handle.block_on(async {}))
        });
        assert!(msg.starts_with(NESTED_RUNTIME), "unexpected message: {msg}");
        // In a task.
        let err = rt
            .block_on(async { tokiwa::spawn(async { Handle::current().block_on(async {}) }).await })
            .unwrap_err();
        let msg = task_panic(err);
        assert!(msg.starts_with(NESTED_RUNTIME), "unexpected message: {msg}");
        // Another runtime's `block_on` inside this one.
        let other = Arc::new(FLAVOR.as_current_thread().build());
        let msg = rt.block_on({
            let other = other.clone();
            async move { panic_of(|| other.block_on(async {})) }
        });
        assert!(msg.starts_with(NESTED_RUNTIME), "unexpected message: {msg}");
        // Both runtimes still work.
        assert_eq!(rt.block_on(async { tokiwa::spawn(async { 1 }).await.unwrap() }), 1);
        assert_eq!(other.block_on(async { tokiwa::spawn(async { 2 }).await.unwrap() }), 2);
    }

    fn block_on_panic_propagates_and_runtime_survives() {
        let rt = rt();
        let (tx, rx) = oneshot::channel();
        let jh = rt.spawn(async move { rx.await.unwrap() });
        let msg = panic_of(|| rt.block_on(async { panic!("boom") }));
        assert_eq!(msg, "boom");
        tx.send(5).unwrap();
        assert_eq!(rt.block_on(jh).unwrap(), 5);
    }

    fn create_runtime_in_block_on() {
        let rt1 = rt();
        let rt2 = rt1.block_on(async { FLAVOR.build() });
        assert_eq!(rt2.block_on(async { tokiwa::spawn(async { "ok" }).await.unwrap() }), "ok");
        drop(rt2);
        drop(rt1);
    }

    fn block_on_from_many_threads() {
        // Several threads in `block_on` at once; on a current-thread runtime
        // one of them drives the tasks of all.
        let rt = Arc::new(rt());
        let (done_tx, done_rx) = oneshot::channel::<Vec<usize>>();
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let rt = rt.clone();
                thread::spawn(move || {
                    rt.block_on(async move { tokiwa::spawn(async move { i }).await.unwrap() })
                })
            })
            .collect();
        let joiner = thread::spawn(move || {
            let outs = threads.into_iter().map(|t| t.join().unwrap()).collect();
            done_tx.send(outs).unwrap();
        });
        let outs = rt.block_on(async { done_rx.await.unwrap() });
        assert_eq!(outs, vec![0, 1, 2, 3]);
        joiner.join().unwrap();
    }

    fn foreign_waker_with_join_handle() {
        // A `JoinHandle` polled with a waker of another executor (tokio-test's
        // mock task) inside the runtime.
        let rt = rt();
        let jh = rt.spawn(async {
            let (tx, rx) = oneshot::channel();
            let jh = tokiwa::spawn(async move { rx.await.unwrap() });
            let mut mock = tokio_test::task::spawn(jh);
            assert!(mock.poll().is_pending());
            assert!(!mock.is_woken());
            tx.send(3).unwrap();
            spin_until(
                || mock.is_woken(),
                STARVATION_LIMIT,
                "the foreign waker was never woken",
                || async {
                    task::yield_now().await;
                },
            )
            .await;
            match mock.poll() {
                Poll::Ready(Ok(3)) => {}
                other => panic!("unexpected {other:?}"),
            }
        });
        rt.block_on(jh).unwrap();

        // And from outside the runtime.
        let (tx, rx) = oneshot::channel();
        let mut mock = tokio_test::task::spawn(rt.spawn(async move { rx.await.unwrap() }));
        assert!(mock.poll().is_pending());
        tx.send(4).unwrap();
        if FLAVOR.is_multi_thread() {
            wait_until(Duration::from_secs(10), "the foreign waker is woken", || mock.is_woken());
        } else {
            // Drive the runtime until the task has completed.
            rt.block_on(async {
                spin_until(
                    || mock.is_woken(),
                    STARVATION_LIMIT,
                    "the foreign waker was never woken",
                    || async {
                        tokiwa::spawn(async {}).await.unwrap();
                    },
                )
                .await;
            });
        }
        match mock.poll() {
            Poll::Ready(Ok(4)) => {}
            other => panic!("unexpected {other:?}"),
        }
    }

    fn foreign_waker_with_tokiwa_futures() {
        // tokiwa's own leaf futures polled by another executor's waker
        // inside a task: they wake that waker, not the task.
        let rt = rt();
        rt.block_on(rt.spawn(async {
            let mut yielded = tokio_test::task::spawn(task::yield_now());
            assert!(yielded.poll().is_pending());
            assert!(yielded.is_woken(), "yield_now must wake the waker it was polled with");
            assert!(yielded.poll().is_ready());

            let mut budget = tokio_test::task::spawn(async {
                for _ in 0..1000 {
                    task::consume_budget().await;
                }
            });
            let mut polls = 0;
            while budget.poll().is_pending() {
                assert!(budget.is_woken(), "consume_budget returned Pending without a wakeup");
                polls += 1;
                assert!(polls < 1000);
                // Let the task's budget refill.
                task::yield_now().await;
            }
        }))
        .unwrap();
    }

    fn waking_after_runtime_dropped_is_harmless() {
        let rt = rt();
        let slot: Arc<Mutex<Vec<Waker>>> = Arc::default();
        // A pending task and a completed one leave their wakers behind.
        let (stored_tx, stored_rx) = oneshot::channel();
        let mut stored_tx = Some(stored_tx);
        let s = slot.clone();
        let _pending = rt.spawn(poll_fn(move |cx| {
            s.lock().unwrap().push(cx.waker().clone());
            if let Some(tx) = stored_tx.take() {
                tx.send(()).unwrap();
            }
            Poll::<()>::Pending
        }));
        let s = slot.clone();
        let done = rt.spawn(poll_fn(move |cx| {
            s.lock().unwrap().push(cx.waker().clone());
            Poll::Ready(())
        }));
        rt.block_on(async {
            stored_rx.await.unwrap();
            done.await.unwrap();
        });
        // Wake them while the runtime lives (the completed one) ...
        slot.lock().unwrap()[1].wake_by_ref();
        drop(rt);
        // ... and after it is gone.
        let wakers = std::mem::take(&mut *slot.lock().unwrap());
        for waker in &wakers {
            waker.wake_by_ref();
        }
        for waker in wakers {
            waker.wake();
        }
    }

    fn on_thread_start_and_stop_hooks() {
        let starts = Counter::new();
        let stops = Counter::new();
        let names = Arc::new(Mutex::new(Vec::new()));
        let rt = builder()
            .thread_name("hooked-thread")
            .on_thread_start({
                let starts = starts.clone();
                let names = names.clone();
                move || {
                    starts.inc();
                    names
                        .lock()
                        .unwrap()
                        .push(thread::current().name().map(str::to_owned));
                }
            })
            .on_thread_stop({
                let stops = stops.clone();
                move || {
                    stops.inc();
                }
            })
            .build()
            .unwrap();
        rt.block_on(rt.spawn_blocking(|| {})).unwrap();
        assert!(starts.get() >= 1);
        drop(rt);
        let expected_min = if FLAVOR.is_multi_thread() { FLAVOR.workers() + 1 } else { 1 };
        assert!(
            starts.get() >= expected_min,
            "{} threads started, expected at least {expected_min}",
            starts.get()
        );
        assert_eq!(starts.get(), stops.get(), "every started thread must stop");
        for name in names.lock().unwrap().iter() {
            assert_eq!(name.as_deref(), Some("hooked-thread"), "hook ran on a foreign thread");
        }
    }

    fn on_thread_park_and_unpark_hooks() {
        let parks = Counter::new();
        let unparks = Counter::new();
        let (parked_tx, parked_rx) = std_mpsc::channel::<()>();
        let parked_tx = Mutex::new(parked_tx);
        let rt = builder()
            .on_thread_park({
                let parks = parks.clone();
                move || {
                    parks.inc();
                    let _ = parked_tx.lock().unwrap().send(());
                }
            })
            .on_thread_unpark({
                let unparks = unparks.clone();
                move || {
                    unparks.inc();
                }
            })
            .build()
            .unwrap();
        let (tx, rx) = oneshot::channel();
        let sender = thread::spawn(move || {
            std_recv(&parked_rx);
            tx.send(9).unwrap();
        });
        assert_eq!(rt.block_on(async { rx.await.unwrap() }), 9);
        sender.join().unwrap();
        drop(rt);
        assert!(parks.get() >= 1, "park hook never called");
        assert!(unparks.get() >= 1, "unpark hook never called");
    }

    fn thread_name_applies() {
        let rt = builder().thread_name("custom-name").build().unwrap();
        let blocking = rt
            .block_on(rt.spawn_blocking(|| thread::current().name().map(str::to_owned)))
            .unwrap();
        assert_eq!(blocking.as_deref(), Some("custom-name"));
        if FLAVOR.is_multi_thread() {
            let worker = rt
                .block_on(rt.spawn(async { thread::current().name().map(str::to_owned) }))
                .unwrap();
            assert_eq!(worker.as_deref(), Some("custom-name"));
        }
        drop(rt);

        let next = Arc::new(AtomicUsize::new(0));
        let rt = builder()
            .thread_name_fn(move || format!("numbered-{}", next.fetch_add(1, SeqCst)))
            .build()
            .unwrap();
        let name = rt
            .block_on(rt.spawn_blocking(|| thread::current().name().map(str::to_owned)))
            .unwrap()
            .unwrap();
        assert!(name.starts_with("numbered-"), "{name}");

        // The default name is tokio's.
        let rt = builder().build().unwrap();
        let name = rt
            .block_on(rt.spawn_blocking(|| thread::current().name().map(str::to_owned)))
            .unwrap();
        assert_eq!(name.as_deref(), Some("tokio-runtime-worker"));
    }

    fn shutdown_timeout_with_stuck_blocking_task() {
        let rt = rt();
        let (started_tx, started_rx) = std_mpsc::channel();
        // Never sent on until the end: the blocking task is stuck.
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let _jh = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        std_recv(&started_rx);
        let elapsed = Arc::new(Mutex::new(None));
        let e = elapsed.clone();
        within(Duration::from_secs(5), "shutdown_timeout(100ms)", move || {
            let start = Instant::now();
            rt.shutdown_timeout(Duration::from_millis(100));
            *e.lock().unwrap() = Some(start.elapsed());
        });
        let elapsed = elapsed.lock().unwrap().unwrap();
        assert!(elapsed >= Duration::from_millis(100), "returned early: {elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
        drop(release_tx);
    }

    fn shutdown_timeout_zero_with_pending_tasks() {
        let rt = rt();
        let drops = Counter::new();
        for _ in 0..10 {
            let g = drops.guard();
            rt.spawn(async move {
                let _g = g;
                pending::<()>().await
            });
        }
        within(Duration::from_secs(5), "shutdown_timeout(0)", move || {
            rt.shutdown_timeout(Duration::ZERO)
        });
        // The futures are dropped (by the workers, maybe a little later).
        wait_until(Duration::from_secs(10), "pending tasks dropped", || drops.get() == 10);
    }

    fn shutdown_background_returns() {
        let rt = rt();
        let (started_tx, started_rx) = std_mpsc::channel();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let _jh = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        std_recv(&started_rx);
        let (dropped_tx, dropped_rx) = std_mpsc::channel::<()>();
        rt.spawn(async move {
            let _tx = dropped_tx;
            pending::<()>().await
        });
        within(Duration::from_secs(5), "shutdown_background", move || {
            rt.shutdown_background()
        });
        // The pending task's future is dropped: its sender hangs up.
        assert_eq!(
            dropped_rx.recv_timeout(Duration::from_secs(10)),
            Err(std_mpsc::RecvTimeoutError::Disconnected)
        );
        drop(release_tx);
    }

    fn dropping_a_runtime_in_an_async_context_panics() {
        // Its drop would wait for threads, blocking the thread that runs
        // tasks: tokio panics with this message (as a `&'static str`),
        // unless the shutdown does not wait.
        const MESSAGE: &str = "Cannot drop a runtime in a context where blocking is not allowed. \
            This happens when a runtime is dropped from within an asynchronous context.";
        fn panics_with_message(f: impl FnOnce()) {
            let payload = panic::catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
            assert_eq!(payload.downcast_ref::<&'static str>(), Some(&MESSAGE));
        }
        support::quiet_panics(&["Cannot drop a runtime"]);
        let rt = rt();
        let inner = || FLAVOR.as_current_thread().build();
        rt.block_on(async {
            panics_with_message(|| drop(inner()));
            panics_with_message(|| inner().shutdown_timeout(Duration::from_millis(1)));
            inner().shutdown_background();
            inner().shutdown_timeout(Duration::ZERO);
        });
        rt.block_on(rt.spawn(async move { panics_with_message(|| drop(inner())) }))
            .unwrap();
        // Outside (and in a blocking task) the drop may wait.
        rt.block_on(rt.spawn_blocking(move || drop(inner()))).unwrap();
        drop(inner());
    }

    fn drop_runtime_with_100k_pending_tasks() {
        const N: usize = 100_000;
        let rt = rt();
        let polled = Counter::new();
        let dropped = Counter::new();
        let all_polled = Arc::new(Notify::new());
        rt.block_on(async {
            for _ in 0..N {
                let guard = dropped.guard();
                let polled = polled.clone();
                let all_polled = all_polled.clone();
                tokiwa::spawn(async move {
                    let _guard = guard;
                    if polled.inc() == N {
                        all_polled.notify_one();
                    }
                    pending::<()>().await
                });
            }
            all_polled.notified().await;
        });
        // Some more that were never polled (on current-thread for sure).
        for _ in 0..N / 10 {
            let guard = dropped.guard();
            rt.spawn(async move {
                let _guard = guard;
                pending::<()>().await
            });
        }
        assert_eq!(polled.get(), N);
        assert_eq!(dropped.get(), 0);
        assert_eq!(rt.metrics().num_alive_tasks(), N + N / 10);
        within(Duration::from_secs(30), "dropping the runtime", move || drop(rt));
        assert_eq!(dropped.get(), N + N / 10, "every future dropped exactly once");
    }

    fn destructors_spawn_during_shutdown() {
        // Each task's future, when dropped at shutdown, spawns a task whose
        // future does the same, three levels deep. The spawns find the
        // runtime closed: their futures are dropped without a poll.
        struct SpawnOnDrop {
            depth: u32,
            polls: Counter,
            drops: Counter,
            no_context: Counter,
        }
        impl Drop for SpawnOnDrop {
            fn drop(&mut self) {
                self.drops.inc();
                if self.depth == 0 {
                    return;
                }
                let next = SpawnOnDrop {
                    depth: self.depth - 1,
                    polls: self.polls.clone(),
                    drops: self.drops.clone(),
                    no_context: self.no_context.clone(),
                };
                let polls = self.polls.clone();
                match Handle::try_current() {
                    Ok(_) => drop(tokiwa::spawn(async move {
                        let _next = next;
                        polls.inc();
                    })),
                    Err(_) => {
                        self.no_context.inc();
                    }
                }
            }
        }

        const TASKS: usize = 100;
        let rt = rt();
        let polls = Counter::new();
        let drops = Counter::new();
        let no_context = Counter::new();
        let started = Arc::new(Semaphore::new(0));
        for _ in 0..TASKS {
            let guard = SpawnOnDrop {
                depth: 3,
                polls: polls.clone(),
                drops: drops.clone(),
                no_context: no_context.clone(),
            };
            let started = started.clone();
            rt.spawn(async move {
                let _guard = guard;
                started.add_permits(1);
                pending::<()>().await
            });
        }
        rt.block_on(async {
            started.acquire_many(TASKS as u32).await.unwrap().forget();
        });
        within(Duration::from_secs(30), "dropping the runtime", move || drop(rt));
        assert_eq!(no_context.get(), 0, "a task was dropped outside the runtime's context");
        assert_eq!(drops.get(), TASKS * 4, "every level dropped exactly once");
        assert_eq!(polls.get(), 0, "a task spawned during shutdown was polled");
    }

    fn tasks_wake_each_other_while_runtime_drops() {
        // Destructors that wake other tasks during shutdown (tokio's
        // `wake_while_rt_is_dropping`).
        struct OnDrop<F: FnMut()>(F);
        impl<F: FnMut()> Drop for OnDrop<F> {
            fn drop(&mut self) {
                (self.0)()
            }
        }
        let rt = rt();
        let (tx1, rx1) = oneshot::channel::<()>();
        let (tx2, rx2) = oneshot::channel::<()>();
        let ready = Arc::new(Semaphore::new(0));
        let r = ready.clone();
        rt.spawn(async move {
            r.add_permits(1);
            let _ = rx1.await;
        });
        let r = ready.clone();
        rt.spawn(async move {
            let mut tx1 = Some(tx1);
            let _d = OnDrop(move || {
                let _ = tx1.take().map(|tx| tx.send(()));
            });
            r.add_permits(1);
            let _ = rx2.await;
        });
        let r = ready.clone();
        rt.spawn(async move {
            let mut tx2 = Some(tx2);
            let _d = OnDrop(move || {
                let _ = tx2.take().map(|tx| tx.send(()));
            });
            r.add_permits(1);
            pending::<()>().await
        });
        rt.block_on(async { ready.acquire_many(3).await.unwrap().forget() });
        within(Duration::from_secs(30), "dropping the runtime", move || drop(rt));
    }

    fn spawn_after_shutdown_is_cancelled() {
        let rt = rt();
        let handle = rt.handle().clone();
        drop(rt);
        let polls = Counter::new();
        let drops = Counter::new();
        let jh = handle.spawn(Tracked::new(async { 1 }, &polls, &drops));
        assert_eq!(drops.get(), 1, "the future of a spawn on a closed runtime is dropped");
        assert_eq!(polls.get(), 0);
        let err = futures::executor::block_on(jh).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
        let err = futures::executor::block_on(handle.spawn_blocking(|| 1)).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    }

    fn join_handle_awaited_from_another_runtime() {
        let rt = rt();
        let other = FLAVOR.as_current_thread().build();
        let (tx, rx) = oneshot::channel();
        let jh = rt.spawn(async move { rx.await.unwrap() * 2 });
        let sender = thread::spawn(move || tx.send(21).unwrap());
        if FLAVOR.is_multi_thread() {
            assert_eq!(other.block_on(jh).unwrap(), 42);
        } else {
            // Someone must drive `rt` meanwhile.
            let driver = thread::spawn(move || other.block_on(jh).unwrap());
            let (stop_tx, stop_rx) = oneshot::channel::<()>();
            let stopper = thread::spawn(move || {
                let out = driver.join().unwrap();
                stop_tx.send(()).unwrap();
                out
            });
            rt.block_on(async { stop_rx.await.unwrap() });
            assert_eq!(stopper.join().unwrap(), 42);
        }
        sender.join().unwrap();
    }
}

#[test]
fn spawn_outside_runtime_panics() {
    support::watchdog(support::TEST_TIMEOUT, || {
        assert_eq!(panic_of(|| tokiwa::spawn(async {})), CONTEXT_MISSING);
        assert_eq!(panic_of(|| task::spawn(async {})), CONTEXT_MISSING);
        assert_eq!(panic_of(|| task::spawn_blocking(|| {})), CONTEXT_MISSING);
        // Also after a runtime was entered and left.
        let rt = Flavor::current_thread().build();
        drop(rt.enter());
        assert_eq!(panic_of(|| tokiwa::spawn(async {})), CONTEXT_MISSING);
        // And on a thread where a runtime's handle is only held.
        let handle = rt.handle().clone();
        thread::spawn(move || {
            let _handle = handle;
            assert_eq!(panic_of(|| tokiwa::spawn(async {})), CONTEXT_MISSING);
        })
        .join()
        .unwrap();
    });
}

#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Runtime>();
    send_sync::<Handle>();
    send_sync::<tokiwa::runtime::RuntimeMetrics>();
    send_sync::<JoinHandle<u32>>();
    send_sync::<task::AbortHandle>();
    send_sync::<task::JoinError>();
    send_sync::<tokiwa::runtime::Builder>();
}

#[test]
fn flavors_build_what_they_say() {
    // Guards the list itself: the tokiwa extension is accepted and each
    // flavour has the workers it names.
    for &driver in support::DRIVERS {
        for flavor in [
            Flavor::current_thread(),
            Flavor::multi_thread(1),
            Flavor::multi_thread(2),
            Flavor::multi_thread(4).sharded(3),
        ] {
            let flavor = flavor.on(driver);
            let rt = flavor.build();
            assert_eq!(rt.metrics().num_workers(), flavor.workers(), "{flavor}");
            assert_eq!(rt.handle().runtime_flavor(), flavor.runtime_flavor());
            assert_eq!(rt.handle().driver(), driver, "{flavor}");
        }
    }
}
