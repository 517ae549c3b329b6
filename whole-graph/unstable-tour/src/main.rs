//! A tour of tokio's `tokio_unstable` surface, as an application built with
//! `RUSTFLAGS="--cfg tokio_unstable"` uses it: `task::Builder` (every spawn
//! method) and `JoinSet::build_task`, task ids, the four task hooks with
//! `TaskMeta`, `UnhandledPanic::ShutdownRuntime`, `Handle::id`,
//! `LocalOptions` and `LocalRuntime`, and the unstable `RuntimeMetrics`
//! that tokio-metrics reads (poll counts, the poll-time histogram, spawn,
//! remote and local schedule counts, steals, forced yields, the I/O
//! driver's counts), and task schedule latencies (the `schedule-latency`
//! feature).
//!
//! It prints what it observed, one fact per line, and nothing that varies
//! from run to run (no timings, no raw ids): `compare.sh` builds it on
//! crates.io tokio (`on-tokio/`) and on tokiwa (this package, through
//! whole-graph's `[patch]`), runs tokiwa on both drivers, and fails if any
//! line differs from tokio's.
#[cfg(not(tokio_unstable))]
compile_error!("the tour uses tokio's unstable API: build with RUSTFLAGS=\"--cfg tokio_unstable\"");

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::{Builder, HistogramConfiguration, LocalOptions, UnhandledPanic};

fn current_thread() -> Builder {
    let mut builder = Builder::new_current_thread();
    builder.enable_all();
    builder
}

/// Yields `n` times: a task polled `n + 1` times.
async fn yields(n: usize) {
    for _ in 0..n {
        tokio::task::yield_now().await;
    }
}

fn task_builder() {
    let rt = current_thread().build().unwrap();
    rt.block_on(async {
        let handle = tokio::task::Builder::new()
            .name("named")
            .spawn(async { tokio::task::id() })
            .unwrap();
        let outside = handle.id();
        let inside = handle.await.unwrap();
        println!(
            "task::Builder::spawn: JoinHandle::id() == task::id() inside: {}",
            outside == inside
        );
        println!("task::try_id() outside a task: {:?}", tokio::task::try_id());

        let blocking = tokio::task::Builder::new()
            .name("blocking")
            .spawn_blocking(|| 6 * 7)
            .unwrap();
        println!("task::Builder::spawn_blocking: {}", blocking.await.unwrap());

        let here = tokio::runtime::Handle::current();
        let on = tokio::task::Builder::new()
            .name("on")
            .spawn_on(async { "ran" }, &here)
            .unwrap();
        println!("task::Builder::spawn_on: {}", on.await.unwrap());

        let local = tokio::task::LocalSet::new();
        let value = local
            .run_until(async {
                let handle = tokio::task::Builder::new()
                    .name("local")
                    .spawn_local(async { Rc::new(3) })
                    .unwrap();
                *handle.await.unwrap()
            })
            .await;
        println!("task::Builder::spawn_local: {value}");

        let mut set = tokio::task::JoinSet::new();
        let mut ids = HashSet::new();
        for i in 0..4u32 {
            let handle = set
                .build_task()
                .name(&format!("set-{i}"))
                .spawn(async move { (tokio::task::id(), i * i) })
                .unwrap();
            ids.insert(handle.id());
        }
        let mut squares = Vec::new();
        while let Some(joined) = set.join_next_with_id().await {
            let (id, (inside, square)) = joined.unwrap();
            assert_eq!(id, inside);
            assert!(ids.contains(&id));
            squares.push(square);
        }
        squares.sort_unstable();
        println!(
            "JoinSet::build_task: {squares:?}, ids distinct: {}",
            ids.len() == 4
        );
    });
}

fn hooks() {
    let spawned = Arc::new(AtomicUsize::new(0));
    let before = Arc::new(AtomicUsize::new(0));
    let after = Arc::new(AtomicUsize::new(0));
    let terminated = Arc::new(AtomicUsize::new(0));
    let spawned_here = Arc::new(AtomicUsize::new(0));
    let ids = Arc::new(Mutex::new(HashSet::new()));
    let rt = {
        let (spawned, before, after, terminated) = (
            spawned.clone(),
            before.clone(),
            after.clone(),
            terminated.clone(),
        );
        let (spawned_here, ids) = (spawned_here.clone(), ids.clone());
        current_thread()
            .on_task_spawn(move |meta| {
                spawned.fetch_add(1, SeqCst);
                if meta.spawned_at().file().ends_with("main.rs") {
                    spawned_here.fetch_add(1, SeqCst);
                }
                ids.lock().unwrap().insert(meta.id());
            })
            .on_before_task_poll(move |_| {
                before.fetch_add(1, SeqCst);
            })
            .on_after_task_poll(move |_| {
                after.fetch_add(1, SeqCst);
            })
            .on_task_terminate(move |_| {
                terminated.fetch_add(1, SeqCst);
            })
            .build()
            .unwrap()
    };
    rt.block_on(async {
        let tasks: Vec<_> = (0..3).map(|_| tokio::spawn(yields(2))).collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    drop(rt);
    println!(
        "hooks, 3 tasks polled 3 times each: spawn {}, before poll {}, after poll {}, terminate {}",
        spawned.load(SeqCst),
        before.load(SeqCst),
        after.load(SeqCst),
        terminated.load(SeqCst)
    );
    println!(
        "TaskMeta: spawned_at in this file {}, distinct ids {}",
        spawned_here.load(SeqCst),
        ids.lock().unwrap().len()
    );
}

fn unhandled_panic() {
    let rt = current_thread()
        .unhandled_panic(UnhandledPanic::ShutdownRuntime)
        .build()
        .unwrap();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(async {
            tokio::spawn(async { panic!("a task's panic") });
            std::future::pending::<()>().await
        })
    }));
    std::panic::set_hook(quiet);
    let message = result.err().map(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    });
    println!("unhandled_panic(ShutdownRuntime): block_on panicked with {message:?}");

    let rt = current_thread()
        .unhandled_panic(UnhandledPanic::Ignore)
        .build()
        .unwrap();
    let joined = rt.block_on(async {
        std::panic::set_hook(Box::new(|_| {}));
        let joined = tokio::spawn(async { panic!("ignored") }).await;
        let _ = std::panic::take_hook();
        joined.unwrap_err().is_panic()
    });
    println!("unhandled_panic(Ignore): the JoinError is a panic: {joined}");
}

fn handle_ids_and_local_runtime() {
    let a = current_thread().build().unwrap();
    let b = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    println!(
        "Handle::id: stable for one runtime {}, differs between two {}",
        a.handle().id() == a.handle().clone().id(),
        a.handle().id() != b.handle().id()
    );
    let local = current_thread()
        .build_local(LocalOptions::default())
        .unwrap();
    let value = local.block_on(async {
        let shared = Rc::new(40);
        let task = local.spawn_local({
            let shared = shared.clone();
            async move { *shared + 1 }
        });
        task.await.unwrap() + tokio::task::spawn_local(async { 1 }).await.unwrap()
    });
    println!("LocalRuntime (LocalOptions::default()): spawn_local of !Send futures: {value}");
}

fn metrics() {
    let rt = current_thread()
        .enable_metrics_poll_time_histogram()
        .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
            Duration::from_secs(1),
            4,
        ))
        .build()
        .unwrap();
    // Two tasks scheduled from outside the runtime.
    let remote: Vec<_> = (0..2).map(|_| rt.spawn(async {})).collect();
    rt.block_on(async {
        for task in remote {
            task.await.unwrap();
        }
        let tasks: Vec<_> = (0..10).map(|_| tokio::spawn(yields(3))).collect();
        for task in tasks {
            task.await.unwrap();
        }
        // A task that never waits: the budget makes it yield.
        tokio::spawn(async {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            for i in 0..200 {
                tx.send(i).unwrap();
                rx.recv().await.unwrap();
            }
        })
        .await
        .unwrap();
    });
    let m = rt.metrics();
    println!(
        "metrics: workers {}, spawned tasks {}",
        m.num_workers(),
        m.spawned_tasks_count()
    );
    println!("metrics: worker polls {}", m.worker_poll_count(0));
    println!(
        "metrics: remote schedules {}, steals {} ({} operations), overflows {}",
        m.remote_schedule_count(),
        m.worker_steal_count(0),
        m.worker_steal_operations(0),
        m.worker_overflow_count(0)
    );
    println!(
        "metrics: budget forced yields {}",
        m.budget_forced_yield_count()
    );
    println!(
        "metrics: poll-time histogram enabled {}, buckets {}, bucket 1 {:?}, last {:?}",
        m.poll_time_histogram_enabled(),
        m.poll_time_histogram_num_buckets(),
        m.poll_time_histogram_bucket_range(1),
        m.poll_time_histogram_bucket_range(3)
    );
    let counted: u64 = (0..m.poll_time_histogram_num_buckets())
        .map(|b| m.poll_time_histogram_bucket_count(0, b))
        .sum();
    println!(
        "metrics: histogram counts every poll {}, all under a second {}",
        counted == m.worker_poll_count(0),
        m.poll_time_histogram_bucket_count(0, 0) == counted
    );
    println!(
        "metrics: alive tasks {}, local queue depth {}, global queue depth {}",
        m.num_alive_tasks(),
        m.worker_local_queue_depth(0),
        m.global_queue_depth()
    );

    let registered = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, server) =
            tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        let (client, (server, _)) = (client.unwrap(), server.unwrap());
        client.writable().await.unwrap();
        server.writable().await.unwrap();
        let registered = rt.metrics().io_driver_fd_registered_count();
        drop((client, server, listener));
        registered
    });
    println!(
        "metrics: I/O driver registered {registered} (listener, client, server), deregistered {} after their drop",
        rt.metrics().io_driver_fd_deregistered_count()
    );
}

fn schedule_latency() {
    let some = Arc::new(AtomicUsize::new(0));
    let none = Arc::new(AtomicUsize::new(0));
    let rt = {
        let (some, none) = (some.clone(), none.clone());
        current_thread()
            .enable_metrics_schedule_latency_histogram()
            .on_before_task_poll(move |meta| {
                let counter = if meta.schedule_latency().is_some() {
                    &some
                } else {
                    &none
                };
                counter.fetch_add(1, SeqCst);
            })
            .build()
            .unwrap()
    };
    rt.block_on(async {
        for _ in 0..5 {
            tokio::spawn(yields(1)).await.unwrap();
        }
    });
    let m = rt.metrics();
    let samples: u64 = (0..m.schedule_latency_histogram_num_buckets())
        .map(|b| m.schedule_latency_histogram_bucket_count(0, b))
        .sum();
    println!(
        "schedule latency, 5 tasks polled twice each: hooks saw Some {}, None {}; histogram buckets {}, samples {}",
        some.load(SeqCst),
        none.load(SeqCst),
        m.schedule_latency_histogram_num_buckets(),
        samples
    );
}

fn main() {
    task_builder();
    hooks();
    unhandled_panic();
    handle_ids_and_local_runtime();
    metrics();
    schedule_latency();
}
