#![cfg(feature = "full")]
//! `spawn_blocking` and `block_in_place` beyond `rt_common.rs`: where
//! `block_in_place` is allowed, the `Handle::block_on` idiom inside it,
//! panics, repeated and nested use; blocking tasks that are aborted,
//! detached, nested or many at once; idle blocking threads that time out.

#[macro_use]
mod support;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc as std_mpsc, Arc, Barrier as StdBarrier};
use std::thread;
use std::time::Duration;

use support::{panic_message, quiet_panics, wait_until, Counter, Flavor};
use tokiwa::runtime::Handle;
use tokiwa::sync::oneshot;
use tokiwa::task;

const BLOCK_IN_PLACE_REFUSED: &str =
    "can call blocking only when running on the multi-threaded runtime";

fn std_recv<T>(rx: &std_mpsc::Receiver<T>) -> T {
    rx.recv_timeout(Duration::from_secs(30))
        .expect("std channel: nothing received within 30 s")
}

/// Tries `n` units of cooperative budget, each in one poll; returns how
/// many were granted.
fn spend_budget(n: usize) -> usize {
    (0..n)
        .filter(|_| futures::FutureExt::now_or_never(task::consume_budget()).is_some())
        .count()
}

rt_test! {
    fn block_in_place_inside_spawn_blocking() {
        // A blocking-pool thread is not driving the runtime: allowed on
        // every flavour, the closure simply runs.
        let rt = rt();
        let out = rt
            .block_on(rt.spawn_blocking(|| task::block_in_place(|| thread::current().id())))
            .unwrap();
        assert_ne!(out, thread::current().id());
    }

    fn block_in_place_in_multi_thread_block_on() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        // tokio allows it in a multi-thread runtime's `block_on` (that
        // thread is not a worker: nothing to hand off).
        let rt = rt();
        let out = rt.block_on(async { task::block_in_place(|| 5) });
        assert_eq!(out, 5);
    }

    fn block_in_place_in_handle_block_on() {
        // `Handle::block_on` drives no tasks (on a current-thread runtime
        // only `Runtime::block_on` does), so blocking there stalls nobody:
        // allowed on every flavour, as in tokio, also after shutdown.
        let rt = rt();
        let _enter = rt.enter();
        let run = || {
            Handle::current().block_on(async {
                task::block_in_place(|| {
                    Handle::current().block_on(async {
                        task::yield_now().await;
                        7
                    })
                })
            })
        };
        assert_eq!(run(), 7);
        rt.shutdown_timeout(Duration::from_secs(10));
        assert_eq!(run(), 7);
    }

    fn block_in_place_refused_in_local_set() {
        // A `LocalSet`'s tasks run only on its thread: blocking it would
        // stall them all, so tokio refuses, also where the thread itself
        // (a multi-thread runtime's `block_on`) would allow it.
        quiet_panics(&[BLOCK_IN_PLACE_REFUSED]);
        let rt = rt();
        let refused = |f: Box<dyn FnOnce() + '_>| {
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .expect_err("block_in_place inside a LocalSet returned");
            assert_eq!(panic_message(&*err), BLOCK_IN_PLACE_REFUSED);
        };
        refused(Box::new(|| {
            rt.block_on(task::LocalSet::new().run_until(async { task::block_in_place(|| ()) }))
        }));
        refused(Box::new(|| {
            rt.block_on(async {
                let set = task::LocalSet::new();
                let jh = set.spawn_local(async { task::block_in_place(|| ()) });
                set.await;
                if let Err(e) = jh.await {
                    std::panic::resume_unwind(e.into_panic());
                }
            })
        }));
        if FLAVOR.is_multi_thread() {
            // Out of the set, the thread may block again.
            let out = rt.block_on(async {
                task::LocalSet::new().run_until(async {}).await;
                task::block_in_place(|| 5)
            });
            assert_eq!(out, 5);
        }
    }

    fn handle_block_on_inside_block_in_place() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        // The usual idiom: leave the async world in a task, then block on a
        // future from there.
        let rt = rt();
        let out = rt
            .block_on(rt.spawn(async {
                task::block_in_place(|| {
                    Handle::current().block_on(async {
                        tokiwa::spawn(async { 20 }).await.unwrap() + 1
                    })
                })
            }))
            .unwrap();
        assert_eq!(out, 21);
    }

    fn block_in_place_panic_propagates_to_task() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        quiet_panics(&["blocking boom"]);
        let rt = rt();
        let err = rt
            .block_on(rt.spawn(async {
                task::block_in_place(|| panic!("blocking boom"));
            }))
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(panic_message(&*err.into_panic()), "blocking boom");
        // A caught panic leaves the task able to block in place again, and
        // the runtime whole.
        let out = rt
            .block_on(rt.spawn(async {
                let caught = std::panic::catch_unwind(|| {
                    task::block_in_place(|| panic!("blocking boom"))
                });
                assert!(caught.is_err());
                task::yield_now().await;
                task::block_in_place(|| 2) + tokiwa::spawn(async { 1 }).await.unwrap()
            }))
            .unwrap();
        assert_eq!(out, 3);
        for _ in 0..FLAVOR.workers() * 4 {
            assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
        }
    }

    fn block_in_place_repeatedly_and_nested() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        let rt = rt();
        let out = rt
            .block_on(rt.spawn(async {
                let mut sum = 0;
                for i in 0..100 {
                    sum += task::block_in_place(|| task::block_in_place(|| i));
                    task::yield_now().await;
                }
                sum
            }))
            .unwrap();
        assert_eq!(out, 4950);
        // Many tasks do the same at once, and the runtime still shuts down.
        let handles: Vec<_> = (0..8)
            .map(|_| {
                rt.spawn(async {
                    for _ in 0..20 {
                        task::block_in_place(thread::yield_now);
                        task::yield_now().await;
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for jh in handles {
                jh.await.unwrap();
            }
        });
        drop(rt);
    }

    fn other_tasks_run_during_block_in_place() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        // While one task blocks in place (until the others are done), 100
        // other tasks run to completion.
        let rt = rt();
        let (all_done_tx, all_done_rx) = std_mpsc::channel::<()>();
        let (entered_tx, entered_rx) = oneshot::channel::<()>();
        let blocker = rt.spawn(async move {
            task::block_in_place(move || {
                entered_tx.send(()).unwrap();
                std_recv(&all_done_rx);
            })
        });
        rt.block_on(async move {
            entered_rx.await.unwrap();
            let handles: Vec<_> = (0..100).map(|i| tokiwa::spawn(async move { i })).collect();
            let mut sum = 0;
            for jh in handles {
                sum += jh.await.unwrap();
            }
            assert_eq!(sum, 4950);
            all_done_tx.send(()).unwrap();
        });
        rt.block_on(blocker).unwrap();
    }

    fn block_in_place_closure_runs_unconstrained() {
        if !FLAVOR.is_multi_thread() {
            return;
        }
        // tokio runs the closure outside cooperative scheduling: a future
        // driven to completion inside it (`futures::executor::block_on` on
        // a channel, say) is never refused by the calling task's budget,
        // which nothing would refill before the closure returns. The task's
        // budget is back afterwards.
        let rt = rt();
        let in_task = rt
            .block_on(rt.spawn(async {
                let inside = task::block_in_place(|| spend_budget(200));
                (inside, spend_budget(200))
            }))
            .unwrap();
        assert_eq!(in_task, (200, 128), "(inside block_in_place, after it) in a task");
        // The same in a multi-thread runtime's `block_on`.
        let in_block_on = rt.block_on(async {
            let inside = task::block_in_place(|| spend_budget(200));
            (inside, spend_budget(200))
        });
        assert_eq!(in_block_on, (200, 128), "(inside block_in_place, after it) in block_on");
    }

    fn spawn_blocking_abort_before_it_runs() {
        // One blocking thread, occupied: the second closure waits in the
        // queue, is aborted there, and never runs.
        let rt = builder().max_blocking_threads(1).build().unwrap();
        let (started_tx, started_rx) = std_mpsc::channel::<()>();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let first = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            std_recv(&release_rx);
            1
        });
        std_recv(&started_rx);
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        let drops = Counter::new();
        let guard = drops.guard();
        let second = rt.spawn_blocking(move || {
            let _guard = guard;
            r.store(true, SeqCst);
            2
        });
        let id = second.id();
        second.abort();
        release_tx.send(()).unwrap();
        assert_eq!(rt.block_on(first).unwrap(), 1);
        let err = rt.block_on(second).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
        assert_eq!(err.id(), id);
        assert!(!ran.load(SeqCst), "an aborted queued closure ran");
        assert_eq!(drops.get(), 1, "the closure is dropped");
    }

    fn spawn_blocking_abort_while_running_has_no_effect() {
        let rt = rt();
        let (started_tx, started_rx) = std_mpsc::channel::<()>();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let jh = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            std_recv(&release_rx);
            7
        });
        std_recv(&started_rx);
        jh.abort();
        assert!(!jh.is_finished());
        release_tx.send(()).unwrap();
        assert_eq!(rt.block_on(jh).unwrap(), 7);
    }

    fn spawn_blocking_detached_still_runs() {
        let rt = rt();
        let (tx, rx) = std_mpsc::channel();
        drop(rt.spawn_blocking(move || tx.send(3).unwrap()));
        assert_eq!(std_recv(&rx), 3);
    }

    fn spawn_blocking_nested_and_from_other_threads() {
        let rt = rt();
        let out = rt
            .block_on(rt.spawn_blocking(|| {
                let inner = task::spawn_blocking(|| 4);
                Handle::current().block_on(inner).unwrap() + 1
            }))
            .unwrap();
        assert_eq!(out, 5);
        let handle = rt.handle().clone();
        let jh = thread::spawn(move || handle.spawn_blocking(|| 6)).join().unwrap();
        assert_eq!(rt.block_on(jh).unwrap(), 6);
    }

    fn spawn_blocking_many_at_once() {
        // 16 closures that all wait for each other: each needs its own
        // thread.
        const N: usize = 16;
        let rt = rt();
        let barrier = Arc::new(StdBarrier::new(N));
        let handles: Vec<_> = (0..N)
            .map(|i| {
                let barrier = barrier.clone();
                rt.spawn_blocking(move || {
                    barrier.wait();
                    i
                })
            })
            .collect();
        let sum: usize = rt.block_on(async {
            let mut sum = 0;
            for jh in handles {
                sum += jh.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, N * (N - 1) / 2);
    }

    fn idle_blocking_threads_exit_after_keep_alive() {
        let stops = Counter::new();
        let s = stops.clone();
        let rt = builder()
            .thread_keep_alive(Duration::from_millis(10))
            .on_thread_stop(move || {
                s.inc();
            })
            .build()
            .unwrap();
        let metrics = rt.metrics();
        let baseline = metrics.num_blocking_threads();
        rt.block_on(rt.spawn_blocking(|| {})).unwrap();
        assert_eq!(metrics.num_blocking_threads(), baseline + 1);
        // Polled, not slept on: the thread's exit is reported by no channel.
        wait_until(Duration::from_secs(10), "the idle blocking thread exits", || {
            metrics.num_blocking_threads() == baseline
        });
        wait_until(Duration::from_secs(10), "its stop hook runs", || stops.get() >= 1);
        // A new closure gets a new thread.
        assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
    }
}

#[test]
fn block_in_place_outside_runtime_just_runs() {
    assert_eq!(task::block_in_place(|| 3), 3);
    // Also on a thread that holds an entered runtime (not driving it).
    let rt = Flavor::multi_thread(1).build();
    let _guard = rt.enter();
    assert_eq!(task::block_in_place(|| 4), 4);
}

/// `block_in_place` called after the runtime began shutting down: the core
/// cannot go to a new pool thread (the pool refuses jobs), so the calling
/// thread keeps it and the shutdown still cancels every task and frees the
/// runtime. (Before the fix the core was dropped with the refused job: no
/// future was cancelled with one worker, and the runtime leaked.)
#[test]
fn block_in_place_after_shutdown_began_loses_no_core() {
    for workers in [1, 2] {
        support::within(
            Duration::from_secs(30),
            "shutdown with block_in_place",
            move || {
                let sentinel = Arc::new(());
                let hook = sentinel.clone();
                let rt = tokiwa::runtime::Builder::new_multi_thread()
                    .worker_threads(workers)
                    .on_thread_park(move || {
                        let _ = &hook;
                    })
                    .build()
                    .unwrap();
                let drops = Counter::new();
                let (started_tx, started_rx) = std_mpsc::channel();
                for _ in 0..10 {
                    let guard = drops.guard();
                    let started = started_tx.clone();
                    rt.spawn(async move {
                        let _guard = guard;
                        started.send(()).unwrap();
                        std::future::pending::<()>().await
                    });
                }
                let (go_tx, go_rx) = std_mpsc::channel::<()>();
                let guard = drops.guard();
                rt.spawn(async move {
                    let _guard = guard;
                    started_tx.send(()).unwrap();
                    go_rx.recv().unwrap();
                    task::block_in_place(|| {});
                    std::future::pending::<()>().await
                });
                for _ in 0..11 {
                    std_recv(&started_rx);
                }
                // Returns at once: the pool is now refusing jobs.
                rt.shutdown_background();
                go_tx.send(()).unwrap();
                wait_until(Duration::from_secs(20), "every task cancelled", || {
                    drops.get() == 11
                });
                wait_until(Duration::from_secs(20), "the runtime freed", || {
                    Arc::strong_count(&sentinel) == 1
                });
            },
        );
    }
}

/// `shutdown_timeout(Duration::MAX)` means "wait as long as it takes": it
/// returns once the blocking job has finished, neither at once (a deadline
/// that overflowed to "now") nor with an overflow panic that poisons the
/// pool.
#[test]
fn shutdown_timeout_duration_max_waits() {
    /// Tells the releaser that shutdown has begun: the runtime drops its
    /// tasks first.
    struct SignalOnDrop(std_mpsc::Sender<()>);
    impl Drop for SignalOnDrop {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }

    support::within(Duration::from_secs(30), "shutdown_timeout(MAX)", || {
        let rt = tokiwa::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (started_tx, started_rx) = std_mpsc::channel();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let finished = Arc::new(AtomicBool::new(false));
        let job_finished = finished.clone();
        rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
            job_finished.store(true, SeqCst);
        });
        let (dropped_tx, dropped_rx) = std_mpsc::channel();
        let signal = SignalOnDrop(dropped_tx);
        rt.spawn(async move {
            let _signal = signal;
            std::future::pending::<()>().await
        });
        std_recv(&started_rx);

        let returned = Arc::new(AtomicBool::new(false));
        let releaser = {
            let returned = returned.clone();
            thread::spawn(move || {
                std_recv(&dropped_rx);
                // Shutdown is under way and the job is still blocked: a
                // shutdown that does not wait returns within this window
                // (it is a window for a failure to show, not a wait for an
                // event; the pass path does not depend on its length).
                let returned_early = (0..100).any(|_| {
                    thread::sleep(Duration::from_millis(1));
                    returned.load(SeqCst)
                });
                release_tx.send(()).unwrap();
                returned_early
            })
        };
        rt.shutdown_timeout(Duration::MAX);
        returned.store(true, SeqCst);
        let returned_early = releaser.join().unwrap();
        assert!(
            !returned_early,
            "shutdown_timeout(MAX) returned while a blocking job still ran"
        );
        assert!(
            finished.load(SeqCst),
            "shutdown_timeout(MAX) returned before the blocking job finished"
        );
    });
}
