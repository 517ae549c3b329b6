#![cfg(feature = "full")]
//! What only the multi-thread scheduler does: a worker tunes the interval
//! at which it serves the injection queue before its own to how long its
//! tasks take, unless the builder sets it (as tokio's `test_tuning` checks);
//! a task that yields runs again only after its worker polled the driver.

#[macro_use]
mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc as std_mpsc, Arc};
use std::time::{Duration, Instant};

use support::{within, DRIVERS};
use tokiwa::runtime::{Builder, Driver, Runtime};

/// Remote tasks kept queued at once, so the injection queue is never empty.
const BACKLOG: usize = 64;

/// Busy for `time` (a sleep would let the worker's thread go; this must
/// be a poll that takes that long).
fn busy(time: Duration) {
    let start = Instant::now();
    while start.elapsed() < time {
        std::hint::spin_loop();
    }
}

/// A task that takes `stall`, counts itself and spawns the next one, for
/// as long as `running` holds: the worker's local work is never done.
fn chain(running: Arc<AtomicBool>, count: Arc<AtomicUsize>, stall: Duration) {
    if running.load(Relaxed) {
        busy(stall);
        count.fetch_add(1, Relaxed);
        tokiwa::spawn(async move { chain(running, count, stall) });
    }
}

/// Runs a chain of tasks of `stall` each on a one-worker runtime and
/// spawns tasks from outside that report how many chain tasks ran since
/// the previous one; returns once three reports in a row satisfy `good`,
/// or the last report if that does not happen within `limit`.
fn chain_runs_between_remote_tasks(
    rt: &Runtime,
    stall: Duration,
    limit: Duration,
    good: impl Fn(usize) -> bool,
) -> Result<(), usize> {
    let running = Arc::new(AtomicBool::new(true));
    let count = Arc::new(AtomicUsize::new(0));
    {
        let (running, count) = (running.clone(), count.clone());
        rt.spawn(async move { chain(running, count, stall) });
    }
    // Let the chain get going first: reports spawned on an idle worker
    // would be taken from the injection queue in a batch and run back to
    // back, saying nothing about the interval.
    let warm_up = Instant::now() + limit;
    while count.load(Relaxed) < 100 {
        assert!(Instant::now() < warm_up, "the chain did not start");
        std::thread::yield_now();
    }
    let (tx, rx) = std_mpsc::channel();
    let spawn_report = || {
        let (count, tx) = (count.clone(), tx.clone());
        rt.spawn(async move {
            let _ = tx.send(count.swap(0, Relaxed));
        });
    };
    for _ in 0..BACKLOG {
        spawn_report();
    }
    let deadline = Instant::now() + limit;
    let mut good_in_a_row = 0;
    let mut last = None;
    let result = loop {
        let Ok(gap) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            break Err(last.expect("no remote task ran before the deadline"));
        };
        last = Some(gap);
        good_in_a_row = if good(gap) { good_in_a_row + 1 } else { 0 };
        if good_in_a_row == 3 {
            break Ok(());
        }
        if Instant::now() >= deadline {
            break Err(gap);
        }
        spawn_report();
    };
    running.store(false, Relaxed);
    result
}

fn one_worker(driver: Driver) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .driver(driver)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn slow_tasks_make_the_worker_serve_remote_tasks_more_often() {
    // Each chain task takes 100 µs: a worker aiming at one look at the
    // injection queue per 200 µs of work looks every 2 ticks, so at most
    // a tick's worth of chain tasks (the task and its LIFO successors,
    // 4) run between two remote tasks. A fixed interval of 61 ticks runs
    // about 240.
    for &driver in DRIVERS {
        within(Duration::from_secs(60), "slow chain", move || {
            let rt = one_worker(driver);
            let got = chain_runs_between_remote_tasks(
                &rt,
                Duration::from_micros(100),
                Duration::from_secs(20),
                |gap| (1..=8).contains(&gap),
            );
            assert_eq!(
                got,
                Ok(()),
                "{driver}: chain tasks run between two remote tasks"
            );
        });
    }
}

#[test]
fn fast_tasks_do_not_make_the_worker_serve_remote_tasks_at_every_turn() {
    // Tasks of a microsecond or so: the interval grows (to at most 127
    // ticks), and the worker's own queue is not starved by remote tasks.
    for &driver in DRIVERS {
        within(Duration::from_secs(60), "fast chain", move || {
            let rt = one_worker(driver);
            let got = chain_runs_between_remote_tasks(
                &rt,
                Duration::ZERO,
                Duration::from_secs(20),
                |gap| gap > 32 && gap <= 1000,
            );
            assert_eq!(
                got,
                Ok(()),
                "{driver}: chain tasks run between two remote tasks"
            );
        });
    }
}

#[test]
fn a_configured_interval_is_not_tuned() {
    // With `global_queue_interval(61)` slow tasks do not shorten it: about
    // 60 ticks of chain tasks run between two remote tasks.
    for &driver in DRIVERS {
        within(Duration::from_secs(60), "configured interval", move || {
            let rt = Builder::new_multi_thread()
                .worker_threads(1)
                .global_queue_interval(61)
                .driver(driver)
                .enable_all()
                .build()
                .unwrap();
            let got = chain_runs_between_remote_tasks(
                &rt,
                Duration::from_micros(20),
                Duration::from_secs(20),
                |gap| gap > 60,
            );
            assert_eq!(
                got,
                Ok(()),
                "{driver}: chain tasks run between two remote tasks"
            );
        });
    }
}

/// As on the current-thread runtime (see `rt_current_thread.rs`), with one
/// worker: a reader waits for a byte that is already written when the
/// yielder starts; the yielder's first yield (if the reader has not run
/// yet) lets the worker's driver report it, so the reader runs before the
/// yielder runs again.
///
/// On the io_uring driver only: there the worker reaps its ring itself.
/// The legacy driver's poll thread may reap the readiness first, while the
/// worker is busy, and wake the reader through the injection queue, which
/// the worker serves after its own queue: the yielder may then run once
/// more, depending on that thread's timing.
#[cfg(feature = "uring")]
#[test]
fn a_yielding_task_runs_again_only_after_the_driver_is_polled() {
    use std::io::Write;
    use std::sync::atomic::Ordering::SeqCst;
    {
        let driver = Driver::Uring;
        within(Duration::from_secs(30), "yield and I/O", move || {
            let rt = one_worker(driver);
            rt.block_on(async {
                let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
                ours.set_nonblocking(true).unwrap();
                let readable = Arc::new(AtomicBool::new(false));
                let (registered_tx, registered_rx) = tokiwa::sync::oneshot::channel();
                let reader = tokiwa::spawn({
                    let readable = readable.clone();
                    async move {
                        let ours = tokiwa::net::UnixStream::from_std(ours).unwrap();
                        let ready = ours.readable();
                        let mut ready = std::pin::pin!(ready);
                        // First poll: nothing to read, interest registered.
                        assert!(futures::poll!(ready.as_mut()).is_pending());
                        registered_tx.send(()).unwrap();
                        ready.await.unwrap();
                        readable.store(true, SeqCst);
                    }
                });
                registered_rx.await.unwrap();
                theirs.write_all(b"x").unwrap();
                let yielder = tokiwa::spawn(async move {
                    let mut yields = 0;
                    while !readable.load(SeqCst) && yields < 10 {
                        tokiwa::task::yield_now().await;
                        yields += 1;
                    }
                    yields
                });
                // 0 if the worker, idle meanwhile, ran the reader first.
                let yields = yielder.await.unwrap();
                assert!(
                    yields <= 1,
                    "{driver}: the yielded task ran {yields} times before the driver reported the byte"
                );
                reader.await.unwrap();
            });
        });
    }
}
