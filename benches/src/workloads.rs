// The benchmark workloads, written once against the tokio API.
//
// This file is compiled twice by `main.rs`, once per runtime: the parent
// module defines `rt` as either `::tokio` or `::tokiwa`, and everything here
// names the runtime only through `rt::`. The parent also provides
// `configure` (a builder for a column: tokiwa's driver), `check` (the
// runtime built is the one asked for) and `counters` (the metrics the
// `tcp_echo` breakdown reads). Sizes and shapes follow tokio's own
// `benches/rt_multi_threaded.rs` and `benches/rt_current_thread.rs`.
//
// Each workload does its own setup and teardown and returns only the duration
// of its timed region, so runtime construction, spinner start-up and shutdown
// never count.

use super::rt;

use rt::runtime::Runtime;
use rt::sync::{oneshot, Notify};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::columns::Column;
use crate::{busy_spinners, Flavour, Workload, MULTI_THREAD_WORKERS};

/// Builds the runtime `column` names (the parent module's `configure` sets
/// the driver); panics if that is not what runs.
pub fn build(flavour: Flavour, column: Column) -> Runtime {
    try_build(flavour, column).unwrap_or_else(|e| panic!("{}: {e}", column.label()))
}

/// Builds the runtime `column` names; the error says why it cannot run.
pub fn try_build(flavour: Flavour, column: Column) -> Result<Runtime, String> {
    let mut builder = match flavour {
        Flavour::MultiThread => {
            let mut b = rt::runtime::Builder::new_multi_thread();
            b.worker_threads(MULTI_THREAD_WORKERS);
            b
        }
        Flavour::CurrentThread => rt::runtime::Builder::new_current_thread(),
    };
    super::configure(builder.enable_all(), column);
    let runtime = builder.build().map_err(|e| e.to_string())?;
    super::check(&runtime, column)?;
    Ok(runtime)
}

/// Runs one iteration of `w` on `runtime`; returns the timed region's length.
pub fn run(w: Workload, runtime: &Runtime, flavour: Flavour) -> Duration {
    match w {
        Workload::SpawnManyLocal { tasks } => spawn_many_local(runtime, tasks),
        Workload::SpawnManyRemoteIdle { tasks } => spawn_many_remote_idle(runtime, tasks),
        Workload::SpawnManyRemoteBusy { tasks } => {
            spawn_many_remote_busy(runtime, tasks, busy_spinners(flavour), flavour)
        }
        Workload::YieldMany { tasks, yields } => yield_many(runtime, tasks, yields),
        Workload::PingPong { pings } => ping_pong(runtime, pings),
        Workload::ChainedSpawn { depth } => chained_spawn(runtime, depth),
    }
}

/// A countdown whose last `done()` wakes `wait()` (Notify keeps the permit if
/// nobody is waiting yet).
pub(super) struct Countdown {
    remaining: AtomicUsize,
    notify: Notify,
}

impl Countdown {
    pub(super) fn new(n: usize) -> Arc<Self> {
        Arc::new(Countdown {
            remaining: AtomicUsize::new(n),
            notify: Notify::new(),
        })
    }

    pub(super) fn done(&self) {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.notify.notify_one();
        }
    }

    pub(super) async fn wait(&self) {
        if self.remaining.load(Ordering::Acquire) != 0 {
            self.notify.notified().await;
        }
    }
}

/// Runs `body` inside a spawned task (so spawns from it are worker-local on
/// the multi-thread flavour, not injections from the `block_on` thread) and
/// returns what the task measured.
pub(super) fn in_task<F, Fut, T>(runtime: &Runtime, body: F) -> T
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    runtime.block_on(async move {
        rt::spawn(async move { body().await })
            .await
            .expect("driver task")
    })
}

/// From inside a task, spawn `n` tasks that each count down; await the last.
fn spawn_many_local(runtime: &Runtime, n: usize) -> Duration {
    in_task(runtime, move || async move {
        let start = Instant::now();
        let countdown = Countdown::new(n);
        for _ in 0..n {
            let countdown = countdown.clone();
            rt::spawn(async move { countdown.done() });
        }
        countdown.wait().await;
        start.elapsed()
    })
}

/// From outside the runtime, spawn `n` empty tasks through the handle onto an
/// idle runtime, then await every JoinHandle.
fn spawn_many_remote_idle(runtime: &Runtime, n: usize) -> Duration {
    let handle = runtime.handle();
    let start = Instant::now();
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        handles.push(handle.spawn(async {}));
    }
    runtime.block_on(async move {
        for h in handles {
            h.await.expect("task");
        }
    });
    start.elapsed()
}

/// Like `spawn_many_remote_idle`, while `spinners` tasks keep the runtime busy
/// by yielding in a loop.
fn spawn_many_remote_busy(
    runtime: &Runtime,
    n: usize,
    spinners: usize,
    flavour: Flavour,
) -> Duration {
    let stop = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicUsize::new(0));
    let spin_handles: Vec<_> = (0..spinners)
        .map(|_| {
            let stop = stop.clone();
            let started = started.clone();
            runtime.spawn(async move {
                started.fetch_add(1, Ordering::Relaxed);
                while !stop.load(Ordering::Relaxed) {
                    rt::task::yield_now().await;
                }
            })
        })
        .collect();
    // Untimed: on the multi-thread flavour, wait until every spinner runs
    // (current-thread tasks only run inside `block_on`).
    if flavour == Flavour::MultiThread {
        let deadline = Instant::now() + Duration::from_secs(5);
        while started.load(Ordering::Relaxed) < spinners && Instant::now() < deadline {
            std::thread::yield_now();
        }
    }

    let handle = runtime.handle();
    let start = Instant::now();
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        handles.push(handle.spawn(async {}));
    }
    runtime.block_on(async move {
        for h in handles {
            h.await.expect("task");
        }
    });
    let elapsed = start.elapsed();

    stop.store(true, Ordering::Relaxed);
    runtime.block_on(async move {
        for h in spin_handles {
            h.await.expect("spinner");
        }
    });
    elapsed
}

/// `tasks` tasks that each `yield_now` `yields` times.
fn yield_many(runtime: &Runtime, tasks: usize, yields: usize) -> Duration {
    in_task(runtime, move || async move {
        let start = Instant::now();
        let countdown = Countdown::new(tasks);
        for _ in 0..tasks {
            let countdown = countdown.clone();
            rt::spawn(async move {
                for _ in 0..yields {
                    rt::task::yield_now().await;
                }
                countdown.done();
            });
        }
        countdown.wait().await;
        start.elapsed()
    })
}

/// `pings` pairs of tasks: each pinger spawns a ponger, sends it a message on
/// one oneshot and awaits the reply on another.
fn ping_pong(runtime: &Runtime, pings: usize) -> Duration {
    in_task(runtime, move || async move {
        let start = Instant::now();
        let countdown = Countdown::new(pings);
        for _ in 0..pings {
            let countdown = countdown.clone();
            rt::spawn(async move {
                let (ping_tx, ping_rx) = oneshot::channel::<()>();
                let (pong_tx, pong_rx) = oneshot::channel::<()>();
                rt::spawn(async move {
                    ping_rx.await.expect("ping");
                    pong_tx.send(()).expect("pong");
                });
                ping_tx.send(()).expect("ping");
                pong_rx.await.expect("pong");
                countdown.done();
            });
        }
        countdown.wait().await;
        start.elapsed()
    })
}

/// Each task spawns the next, `depth` deep; the last one reports back.
fn chained_spawn(runtime: &Runtime, depth: usize) -> Duration {
    fn step(done: oneshot::Sender<()>, n: usize) {
        if n == 0 {
            let _ = done.send(());
        } else {
            rt::spawn(async move { step(done, n - 1) });
        }
    }
    in_task(runtime, move || async move {
        let start = Instant::now();
        let (done_tx, done_rx) = oneshot::channel();
        rt::spawn(async move { step(done_tx, depth) });
        done_rx.await.expect("chain end");
        start.elapsed()
    })
}
