#![cfg(tokio_unstable)]
#![cfg(feature = "full")]
//! The `tokio_unstable` API surface, on every flavour and driver, with the
//! results tokio 1.54.1 gives: the task hooks and their `TaskMeta`
//! (`on_task_spawn`, `on_before_task_poll`, `on_after_task_poll`,
//! `on_task_terminate`), `UnhandledPanic` (the runtime's, a `LocalSet`'s,
//! and the test attribute's), `runtime::Id`, and with the `tracing`
//! feature `task::Builder` and `JoinSet::build_task`.
//!
//! `RUSTFLAGS="--cfg tokio_unstable" cargo test --features full,uring,tracing
//! --test rt_unstable`

#[macro_use]
mod support;

use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use support::{panic_message, quiet_panics, Flavor, DRIVERS};
use tokiwa::runtime::{Builder, TaskMeta, UnhandledPanic};
use tokiwa::task::{self, Id, LocalSet};

const SHUTDOWN_MSG: &str =
    "a spawned task panicked and the runtime is configured to shut down on unhandled panic";

/// What the hooks saw: ids per hook, and every spawn location.
#[derive(Default)]
struct Seen {
    spawned: Mutex<Vec<Id>>,
    before: Mutex<Vec<Id>>,
    after: Mutex<Vec<Id>>,
    terminated: Mutex<Vec<Id>>,
    locations: Mutex<Vec<(Id, &'static Location<'static>)>>,
}

impl Seen {
    fn hooked(self: &Arc<Self>, builder: &mut Builder) {
        let seen = self.clone();
        builder.on_task_spawn(move |meta: &TaskMeta<'_>| {
            seen.spawned.lock().unwrap().push(meta.id());
            seen.locations
                .lock()
                .unwrap()
                .push((meta.id(), meta.spawned_at()));
        });
        let seen = self.clone();
        builder.on_before_task_poll(move |meta| seen.before.lock().unwrap().push(meta.id()));
        let seen = self.clone();
        builder.on_after_task_poll(move |meta| seen.after.lock().unwrap().push(meta.id()));
        let seen = self.clone();
        builder.on_task_terminate(move |meta| seen.terminated.lock().unwrap().push(meta.id()));
    }

    fn count(list: &Mutex<Vec<Id>>, id: Id) -> usize {
        list.lock().unwrap().iter().filter(|&&i| i == id).count()
    }

    fn location(&self, id: Id) -> &'static Location<'static> {
        let locations = self.locations.lock().unwrap();
        locations
            .iter()
            .find(|(i, _)| *i == id)
            .expect("no spawn hook for the task")
            .1
    }
}

rt_test! {
    fn hooks_see_each_task_spawn_polls_and_termination() {
        let seen = Arc::new(Seen::default());
        let mut b = builder();
        seen.hooked(&mut b);
        let rt = b.build().unwrap();

        // Spawned from outside the runtime: the hook runs on this thread.
        let outer = rt.spawn(async { task::yield_now().await; 7 });
        let line = line!() - 1;
        let outer_id = outer.id();
        assert_eq!(seen.spawned.lock().unwrap().as_slice(), &[outer_id]);
        let at = seen.location(outer_id);
        assert_eq!((at.file(), at.line()), (file!(), line));

        let (inner_id, inner_line) = rt.block_on(async move {
            assert_eq!(outer.await.unwrap(), 7);
            let inner = tokiwa::spawn(async { task::id() });
            let line = line!() - 1;
            let id = inner.id();
            assert_eq!(inner.await.unwrap(), id);
            (id, line)
        });
        let at = seen.location(inner_id);
        assert_eq!((at.file(), at.line()), (file!(), inner_line));

        // The after-poll and terminate hooks run after the joiner is woken:
        // let the runtime's threads finish first.
        drop(rt);
        // The outer task yielded once: two polls, each between both hooks.
        assert_eq!(Seen::count(&seen.before, outer_id), 2);
        assert_eq!(Seen::count(&seen.after, outer_id), 2);
        assert_eq!(Seen::count(&seen.before, inner_id), 1);
        assert_eq!(Seen::count(&seen.after, inner_id), 1);
        assert_eq!(Seen::count(&seen.terminated, outer_id), 1);
        assert_eq!(Seen::count(&seen.terminated, inner_id), 1);
        // No hook for the `block_on` future itself.
        assert_eq!(seen.spawned.lock().unwrap().len(), 2);
    }

    fn terminate_hook_sees_panicked_aborted_blocking_and_shutdown_tasks() {
        quiet_panics(&["rt_unstable: boom"]);
        let seen = Arc::new(Seen::default());
        let mut b = builder();
        seen.hooked(&mut b);
        let rt = b.build().unwrap();
        let (panicked, aborted, blocking, pending) = rt.block_on(async {
            let panicked = tokiwa::spawn(async { panic!("rt_unstable: boom") });
            let panicked_id = panicked.id();
            assert!(panicked.await.unwrap_err().is_panic());
            let aborted = tokiwa::spawn(std::future::pending::<()>());
            let aborted_id = aborted.id();
            aborted.abort();
            assert!(aborted.await.unwrap_err().is_cancelled());
            let blocking = task::spawn_blocking(|| 3);
            let blocking_id = blocking.id();
            assert_eq!(blocking.await.unwrap(), 3);
            let pending = tokiwa::spawn(std::future::pending::<()>()).id();
            (panicked_id, aborted_id, blocking_id, pending)
        });
        // Blocking tasks: terminate only, never spawn nor poll (as tokio).
        assert_eq!(Seen::count(&seen.spawned, blocking), 0);
        assert_eq!(Seen::count(&seen.before, blocking), 0);
        assert_eq!(Seen::count(&seen.terminated, pending), 0);
        // The hook runs after the joiner is woken (as in tokio), so on
        // another thread it may still be running: the shutdown waits for
        // the runtime's threads, and cancels the pending task.
        drop(rt);
        for id in [panicked, aborted, blocking, pending] {
            assert_eq!(Seen::count(&seen.terminated, id), 1, "task {id}");
        }
    }

    fn hooks_skip_local_set_tasks() {
        let seen = Arc::new(Seen::default());
        let mut b = builder();
        seen.hooked(&mut b);
        let rt = b.build().unwrap();
        let local = LocalSet::new();
        let id = local.block_on(&rt, async {
            let h = task::spawn_local(async { task::id() });
            h.await.unwrap()
        });
        for list in [&seen.spawned, &seen.before, &seen.after, &seen.terminated] {
            assert_eq!(Seen::count(list, id), 0);
        }
    }

    fn a_panicking_hook_does_not_break_termination() {
        quiet_panics(&["rt_unstable: hook"]);
        let rt = builder()
            .on_task_terminate(|_| panic!("rt_unstable: hook"))
            .build()
            .unwrap();
        assert_eq!(rt.block_on(async { tokiwa::spawn(async { 5 }).await.unwrap() }), 5);
    }

    fn default_unhandled_panic_ignores() {
        quiet_panics(&["rt_unstable: ignored"]);
        let mut b = builder();
        b.unhandled_panic(UnhandledPanic::Ignore);
        let rt = b.build().unwrap();
        rt.block_on(async {
            let bad = tokiwa::spawn(async { panic!("rt_unstable: ignored") });
            let good = tokiwa::spawn(async { "done" });
            assert!(bad.await.unwrap_err().is_panic());
            assert_eq!(good.await.unwrap(), "done");
        });
    }

    fn runtime_ids_are_per_runtime() {
        let rt1 = rt();
        let rt2 = rt();
        assert_eq!(rt1.handle().id(), rt1.handle().clone().id());
        assert_ne!(rt1.handle().id(), rt2.handle().id());
        let inside = rt1.block_on(async { tokiwa::runtime::Handle::current().id() });
        assert_eq!(inside, rt1.handle().id());
        assert_eq!(rt1.handle().id().to_string(), format!("{}", rt1.handle().id()));
    }
}

#[test]
fn shutdown_runtime_on_unhandled_panic_is_current_thread_only() {
    let res = panic::catch_unwind(|| {
        Builder::new_multi_thread().unhandled_panic(UnhandledPanic::ShutdownRuntime);
    });
    assert_eq!(
        panic_message(&*res.unwrap_err()),
        "UnhandledPanic::ShutdownRuntime is only supported in current thread runtime"
    );
}

fn shutdown_on_panic_builder(flavor: Flavor) -> Builder {
    let mut b = flavor.builder();
    b.unhandled_panic(UnhandledPanic::ShutdownRuntime);
    b
}

/// `block_on` panics once a spawned task panics, though the task's
/// handle is held; the other tasks are cancelled, later spawns too, and
/// every later `block_on` panics (tokio's `rt_basic` unstable tests).
#[test]
fn shutdown_runtime_on_unhandled_panic() {
    quiet_panics(&["rt_unstable: shutdown", SHUTDOWN_MSG]);
    for &driver in DRIVERS {
        support::watchdog(support::TEST_TIMEOUT, move || {
            let flavor = Flavor::current_thread().on(driver);
            let rt = Arc::new(shutdown_on_panic_builder(flavor).build().unwrap());
            let cancelled = Arc::new(AtomicUsize::new(0));
            let res = panic::catch_unwind(AssertUnwindSafe(|| {
                rt.block_on(async {
                    struct OnDrop(Arc<AtomicUsize>);
                    impl Drop for OnDrop {
                        fn drop(&mut self) {
                            self.0.fetch_add(1, SeqCst);
                        }
                    }
                    let guard = OnDrop(cancelled.clone());
                    // Spawned from another thread: the shared list.
                    let rt2 = rt.clone();
                    std::thread::spawn(move || {
                        let guard = guard;
                        rt2.spawn(async move {
                            let _guard = guard;
                            std::future::pending::<()>().await
                        })
                    })
                    .join()
                    .unwrap();
                    // Spawned on the driving thread: the core's list.
                    let guard = OnDrop(cancelled.clone());
                    let _pending = tokiwa::spawn(async move {
                        let _guard = guard;
                        std::future::pending::<()>().await
                    });
                    let _held = tokiwa::spawn(async { panic!("rt_unstable: shutdown") });
                    std::future::pending::<()>().await
                })
            }));
            assert_eq!(panic_message(&*res.unwrap_err()), SHUTDOWN_MSG, "{driver}");
            assert_eq!(cancelled.load(SeqCst), 2, "{driver}: other tasks cancelled");
            // Spawns now do nothing.
            let late = rt.spawn(async {});
            assert!(futures::executor::block_on(late)
                .unwrap_err()
                .is_cancelled());
            // Every later `block_on` panics too, on any thread.
            let rt2 = rt.clone();
            let other = std::thread::spawn(move || {
                rt2.block_on(std::future::pending::<()>());
            });
            assert_eq!(panic_message(&*other.join().unwrap_err()), SHUTDOWN_MSG);
        });
    }
}

/// The same on a `LocalRuntime`, for a `!Send` task's panic.
#[test]
fn shutdown_local_runtime_on_unhandled_panic() {
    quiet_panics(&["rt_unstable: local", SHUTDOWN_MSG]);
    for &driver in DRIVERS {
        support::watchdog(support::TEST_TIMEOUT, move || {
            let mut b = shutdown_on_panic_builder(Flavor::current_thread().on(driver));
            let rt = b.build_local(Default::default()).unwrap();
            let res = panic::catch_unwind(AssertUnwindSafe(|| {
                rt.block_on(async {
                    let rc = std::rc::Rc::new(());
                    task::spawn_local(async move {
                        let _rc = rc;
                        panic!("rt_unstable: local")
                    });
                    std::future::pending::<()>().await
                })
            }));
            assert_eq!(panic_message(&*res.unwrap_err()), SHUTDOWN_MSG, "{driver}");
        });
    }
}

/// Without a panic, `ShutdownRuntime` changes nothing.
#[test]
fn shutdown_runtime_setting_without_a_panic() {
    for &driver in DRIVERS {
        let rt = shutdown_on_panic_builder(Flavor::current_thread().on(driver))
            .build()
            .unwrap();
        let v = rt.block_on(async { tokiwa::spawn(async { 1 }).await.unwrap() + 1 });
        assert_eq!(v, 2);
    }
}

const LOCAL_SET_SHUTDOWN_MSG: &str =
    "a spawned task panicked and the LocalSet is configured to shutdown on unhandled panic";

/// `LocalSet::unhandled_panic` on every flavour (the `rt_test!` of this
/// file is the hooks' one, at the top).
mod local_set {
    use super::*;

    rt_test! {
        // A `LocalSet` told to shut down on a panic: the driving `run_until`
        // panics though the panicking task's handle is held, the set's other
        // tasks are cancelled (their destructors run), a later spawn onto it
        // is cancelled at once, and driving it again panics too (tokio's
        // `task_local_set` unstable test, and its documentation).
        fn local_set_shutdown_on_unhandled_panic() {
            quiet_panics(&["rt_unstable: local set", LOCAL_SET_SHUTDOWN_MSG]);
            let rt = rt();
            let mut local = LocalSet::new();
            local.unhandled_panic(UnhandledPanic::ShutdownRuntime);
            let dropped = std::rc::Rc::new(std::cell::Cell::new(0));
            let res = panic::catch_unwind(AssertUnwindSafe(|| {
                local.block_on(&rt, async {
                    struct OnDrop(std::rc::Rc<std::cell::Cell<u32>>);
                    impl Drop for OnDrop {
                        fn drop(&mut self) {
                            self.0.set(self.0.get() + 1);
                        }
                    }
                    let guard = OnDrop(dropped.clone());
                    let _pending = task::spawn_local(async move {
                        let _guard = guard;
                        std::future::pending::<()>().await
                    });
                    let _held = task::spawn_local(async { panic!("rt_unstable: local set") });
                    std::future::pending::<()>().await
                })
            }));
            assert_eq!(panic_message(&*res.unwrap_err()), LOCAL_SET_SHUTDOWN_MSG);
            assert_eq!(dropped.get(), 1, "the pending task is cancelled");
            let late = local.spawn_local(async {});
            let again = panic::catch_unwind(AssertUnwindSafe(|| {
                local.block_on(&rt, async { late.await.unwrap_err().is_cancelled() })
            }));
            // `run_until` polls its own future first: the cancelled join
            // handle is ready at once, before the set would run a task.
            assert!(again.unwrap());
            let driven = panic::catch_unwind(AssertUnwindSafe(|| {
                local.block_on(&rt, async {
                    task::yield_now().await;
                    std::future::pending::<()>().await
                })
            }));
            assert_eq!(panic_message(&*driven.unwrap_err()), LOCAL_SET_SHUTDOWN_MSG);
        }

        fn local_set_ignores_panics_by_default() {
            quiet_panics(&["rt_unstable: ignored"]);
            let rt = rt();
            let mut local = LocalSet::new();
            local.unhandled_panic(UnhandledPanic::Ignore);
            let (err, after) = local.block_on(&rt, async {
                let err = task::spawn_local(async { panic!("rt_unstable: ignored") })
                    .await
                    .unwrap_err();
                (err, task::spawn_local(async { 7 }).await.unwrap())
            });
            assert!(err.is_panic());
            assert_eq!(after, 7);
        }
    }
}

/// The setting is fixed once the set has a task, as in tokio.
#[test]
fn local_set_unhandled_panic_after_a_spawn_panics() {
    let mut local = LocalSet::new();
    let _task = local.spawn_local(async {});
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        local.unhandled_panic(UnhandledPanic::ShutdownRuntime);
    }));
    assert_eq!(
        panic_message(&*res.unwrap_err()),
        "Unhandled Panic behavior modified after starting LocalSet"
    );
}

/// `#[tokio::test(unhandled_panic = "...")]`: tokio's `macros_test`
/// unstable tests.
#[tokiwa::test(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
#[should_panic(
    expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
)]
async fn test_attribute_unhandled_panic_shutdown_runtime() {
    let _ = tokiwa::spawn(async { panic!("rt_unstable: attribute") }).await;
}

#[tokiwa::test(flavor = "current_thread", unhandled_panic = "ignore")]
async fn test_attribute_unhandled_panic_ignore() {
    quiet_panics(&["rt_unstable: attribute ignored"]);
    let res = tokiwa::spawn(async { panic!("rt_unstable: attribute ignored") }).await;
    assert!(res.unwrap_err().is_panic());
}

#[test]
fn spawn_hook_runs_for_local_runtime_tasks() {
    let spawned = Arc::new(Mutex::new(HashSet::new()));
    let s = spawned.clone();
    let rt = Builder::new_current_thread()
        .on_task_spawn(move |meta| {
            s.lock().unwrap().insert(meta.id());
        })
        .build_local(Default::default())
        .unwrap();
    let id = rt.block_on(async { task::spawn_local(async {}).id() });
    assert!(spawned.lock().unwrap().contains(&id));
}

#[cfg(feature = "tracing")]
mod named {
    use super::*;
    use tokiwa::task::JoinSet;

    rt_test! {
        fn task_builder_spawns_like_spawn() {
            let seen = Arc::new(Seen::default());
            let mut b = builder();
            seen.hooked(&mut b);
            let rt = b.build().unwrap();
            let handle = rt.handle().clone();
            let on = task::Builder::new().name("on").spawn_on(async { 1 }, &handle);
            let (line, on) = (line!() - 1, on.unwrap());
            let at = seen.location(on.id());
            assert_eq!((at.file(), at.line()), (file!(), line));
            let sum = rt.block_on(async move {
                let a = task::Builder::new().name("a").spawn(async { 2 }).unwrap();
                let b = task::Builder::new()
                    .name("b")
                    .spawn_blocking(|| 3)
                    .unwrap();
                let c = task::Builder::new()
                    .spawn_blocking_on(|| 4, &tokiwa::runtime::Handle::current())
                    .unwrap();
                on.await.unwrap() + a.await.unwrap() + b.await.unwrap() + c.await.unwrap()
            });
            assert_eq!(sum, 10);
        }

        fn task_builder_spawns_local() {
            let rt = rt();
            let local = LocalSet::new();
            let rc = std::rc::Rc::new(5);
            let v = local.block_on(&rt, async move {
                let rc2 = rc.clone();
                let h = task::Builder::new()
                    .name("local")
                    .spawn_local(async move { *rc2 })
                    .unwrap();
                h.await.unwrap()
            });
            assert_eq!(v, 5);
            let h = task::Builder::new()
                .name("local-on")
                .spawn_local_on(async { 6 }, &local)
                .unwrap();
            assert_eq!(local.block_on(&rt, h).unwrap(), 6);
        }

        fn join_set_build_task() {
            let rt = rt();
            let handle = rt.handle().clone();
            let mut set = rt.block_on(async move {
                let mut set = JoinSet::new();
                set.build_task().name("one").spawn(async { 1 }).unwrap();
                set.build_task().name("two").spawn_on(async { 2 }, &handle).unwrap();
                set.build_task().name("three").spawn_blocking(|| 3).unwrap();
                set.build_task()
                    .spawn_blocking_on(|| 4, &tokiwa::runtime::Handle::current())
                    .unwrap();
                set
            });
            let mut total = 0;
            rt.block_on(async {
                while let Some(r) = set.join_next().await {
                    total += r.unwrap();
                }
            });
            assert_eq!(total, 10);
            let local = LocalSet::new();
            let mut set = JoinSet::new();
            set.build_task().name("l").spawn_local_on(async { 7 }, &local).unwrap();
            let v = local.block_on(&rt, async move {
                set.build_task().spawn_local(async { 8 }).unwrap();
                let mut v = 0;
                while let Some(r) = set.join_next().await {
                    v += r.unwrap();
                }
                v
            });
            assert_eq!(v, 15);
        }

        fn task_builder_blocking_on_a_shut_down_runtime_is_an_error() {
            let rt = rt();
            let handle = rt.handle().clone();
            drop(rt);
            let err = task::Builder::new()
                .name("late")
                .spawn_blocking_on(|| (), &handle)
                .unwrap_err();
            assert_eq!(err.to_string(), "blocking pool shutting down");
        }
    }
}

/// Sums a per-worker metric over the workers.
fn sum_workers(m: &tokiwa::runtime::RuntimeMetrics, f: impl Fn(usize) -> u64) -> u64 {
    (0..m.num_workers()).map(f).sum()
}

mod metrics {
    use super::*;
    use std::time::Duration;
    use tokiwa::runtime::{HistogramConfiguration, LogHistogram};

    rt_test! {
        fn spawned_remote_and_local_schedule_counts() {
            let rt = rt();
            let m = rt.metrics();
            assert_eq!(m.spawned_tasks_count(), 0);
            // Three spawns from outside the runtime: remote schedules.
            let outside: Vec<_> = (0..3).map(|i| rt.spawn(async move { i })).collect();
            assert!(m.remote_schedule_count() >= 3, "{}", m.remote_schedule_count());
            rt.block_on(async move {
                for h in outside {
                    h.await.unwrap();
                }
                // From a task, on the worker that runs it: local schedules.
                tokiwa::spawn(async {
                    let hs: Vec<_> = (0..5).map(|i| tokiwa::spawn(async move { i })).collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                })
                .await
                .unwrap();
                // Blocking tasks are not counted (as in tokio).
                task::spawn_blocking(|| ()).await.unwrap();
            });
            assert_eq!(m.spawned_tasks_count(), 3 + 1 + 5);
            drop(rt);
            // Published by the workers as they stop.
            let local = sum_workers(&m, |w| m.worker_local_schedule_count(w));
            assert!(local >= 5, "worker_local_schedule_count summed to {local}");
            for w in 0..m.num_workers() {
                assert!(m.worker_steal_operations(w) <= m.worker_steal_count(w));
            }
            assert_eq!(m.injection_queue_depth(), m.global_queue_depth());
        }

        fn budget_forced_yields_are_counted() {
            let rt = rt();
            let m = rt.metrics();
            assert_eq!(m.budget_forced_yield_count(), 0);
            rt.block_on(async {
                tokiwa::spawn(async {
                    // Far more than one budget (128 units) in one task.
                    for _ in 0..1000 {
                        task::consume_budget().await;
                    }
                })
                .await
                .unwrap();
            });
            assert!(m.budget_forced_yield_count() >= 1000 / 128);
        }

        fn worker_thread_ids_and_mean_poll_time() {
            let rt = rt();
            let m = rt.metrics();
            let threads = rt.block_on(async {
                let mut threads = Vec::new();
                for _ in 0..4 {
                    // Each poll takes at least 2 ms.
                    let h = tokiwa::spawn(async {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        std::thread::current().id()
                    });
                    threads.push(h.await.unwrap());
                }
                threads
            });
            drop(rt);
            let ids: Vec<_> = (0..m.num_workers()).map(|w| m.worker_thread_id(w)).collect();
            for t in threads {
                assert!(ids.contains(&Some(t)), "{t:?} not among the workers' {ids:?}");
            }
            let mean = (0..m.num_workers())
                .map(|w| m.worker_mean_poll_time(w))
                .max()
                .unwrap();
            if FLAVOR.is_multi_thread() {
                assert!(mean >= std::time::Duration::from_micros(100), "mean poll time {mean:?}");
            } else {
                // As in tokio: not measured on a current-thread runtime.
                assert_eq!(mean, std::time::Duration::ZERO);
            }
            let _ = sum_workers(&m, |w| m.worker_noop_count(w));
        }

        fn poll_time_histogram_counts_every_poll_in_its_bucket() {
            let rt = builder()
                .enable_metrics_poll_time_histogram()
                .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
                    Duration::from_millis(1),
                    4,
                ))
                .build()
                .unwrap();
            let m = rt.metrics();
            assert!(m.poll_time_histogram_enabled());
            assert_eq!(m.poll_time_histogram_num_buckets(), 4);
            assert_eq!(
                m.poll_time_histogram_bucket_range(3),
                Duration::from_millis(3)..Duration::from_nanos(u64::MAX)
            );
            rt.block_on(async {
                for _ in 0..3 {
                    tokiwa::spawn(async {}).await.unwrap();
                }
                // One poll that takes at least 5 ms: the last bucket.
                tokiwa::spawn(async { std::thread::sleep(Duration::from_millis(5)) })
                    .await
                    .unwrap();
            });
            drop(rt);
            let bucket = |b| sum_workers(&m, |w| m.poll_time_histogram_bucket_count(w, b));
            let total: u64 = (0..4).map(bucket).sum();
            // Every task poll, and only those (not `block_on`'s future).
            assert_eq!(total, sum_workers(&m, |w| m.worker_poll_count(w)));
            assert_eq!(total, 4);
            assert!(bucket(3) >= 1, "the 5 ms poll is not in the last bucket");
        }

        fn io_driver_counts_registrations_and_ready_events() {
            use tokiwa::net::{TcpListener, TcpStream};
            let rt = rt();
            let m = rt.metrics();
            assert_eq!(m.io_driver_fd_registered_count(), 0);
            assert_eq!(m.io_driver_ready_count(), 0);
            let (client, server) = rt.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let connect = tokiwa::spawn(TcpStream::connect(addr));
                let (server, _) = listener.accept().await.unwrap();
                (connect.await.unwrap().unwrap(), server)
            });
            // The listener, the client and the accepted stream; the
            // listener is gone.
            assert_eq!(m.io_driver_fd_registered_count(), 3);
            assert_eq!(m.io_driver_fd_deregistered_count(), 1);
            // At least the connect's completion came as an event (a
            // non-blocking connect is in progress until then).
            let ready = m.io_driver_ready_count();
            assert!(ready >= 1, "io_driver_ready_count {ready}");
            drop(client);
            drop(server);
            assert_eq!(m.io_driver_fd_deregistered_count(), 3);
            assert_eq!(m.io_driver_fd_registered_count(), 3);
        }

        fn wakes_for_nothing_are_counted_as_noops() {
            let rt = rt();
            let m = rt.metrics();
            // The runtime sleeps until the timer fires and polls no task,
            // as tokio counts it: a no-op (the first sleep included).
            rt.block_on(async { tokiwa::time::sleep(Duration::from_millis(1)).await });
            drop(rt);
            let noops = sum_workers(&m, |w| m.worker_noop_count(w));
            assert!(noops >= 1, "worker_noop_count summed to {noops}");
        }

        fn poll_time_histogram_is_off_unless_enabled() {
            let rt = builder()
                .metrics_poll_time_histogram_configuration(HistogramConfiguration::log(
                    LogHistogram::default(),
                ))
                .build()
                .unwrap();
            let m = rt.metrics();
            rt.block_on(async { tokiwa::spawn(async {}).await.unwrap() });
            assert!(!m.poll_time_histogram_enabled());
            assert_eq!(m.poll_time_histogram_num_buckets(), 0);
            assert_eq!(m.poll_time_histogram_bucket_range(0), Duration::ZERO..Duration::ZERO);
            assert_eq!(m.poll_time_histogram_bucket_count(0, 0), 0);
        }
    }
}
