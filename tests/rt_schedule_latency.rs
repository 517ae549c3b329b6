#![cfg(all(tokio_unstable, feature = "schedule-latency"))]
#![cfg(feature = "full")]
//! Task schedule latency (`tokio_unstable` with the `schedule-latency`
//! feature), as tokio 1.54.1 measures it: from a task's most recent
//! scheduling to the start of its poll, handed to the poll hooks through
//! `TaskMeta::schedule_latency` and counted in a per-worker histogram;
//! every task run is a sample, those of the LIFO slot included, while the
//! poll count takes a LIFO chain as one poll.
//!
//! `RUSTFLAGS="--cfg tokio_unstable" cargo test --features
//! full,uring,tracing,schedule-latency --test rt_schedule_latency`

#[macro_use]
mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::{Flavor, DRIVERS};
use tokiwa::runtime::{Builder, HistogramConfiguration, RuntimeMetrics};
use tokiwa::task::Id;

const WAIT: Duration = Duration::from_millis(20);

/// Busy-waits `WAIT` past `since`: time that must show in a latency (not
/// synchronisation: nothing waits for another thread here).
fn spin_past(since: Instant) {
    while since.elapsed() < WAIT {
        std::hint::spin_loop();
    }
}

fn flavors() -> Vec<Flavor> {
    DRIVERS
        .iter()
        .flat_map(|&d| {
            [
                Flavor::current_thread().on(d),
                Flavor::multi_thread(2).on(d),
            ]
        })
        .collect()
}

/// The latencies the poll hooks saw for the task `target` names.
#[derive(Default)]
struct Latencies {
    target: Mutex<Option<Id>>,
    before: Mutex<Vec<Option<Duration>>>,
    after: Mutex<Vec<Option<Duration>>>,
}

impl Latencies {
    fn hooked(self: &Arc<Self>, builder: &mut Builder) {
        let (before, after) = (self.clone(), self.clone());
        builder
            .on_before_task_poll(move |meta| {
                if Some(meta.id()) == *before.target.lock().unwrap() {
                    before.before.lock().unwrap().push(meta.schedule_latency());
                }
            })
            .on_after_task_poll(move |meta| {
                if Some(meta.id()) == *after.target.lock().unwrap() {
                    after.after.lock().unwrap().push(meta.schedule_latency());
                }
            });
    }
}

/// A runtime of `builder` that counts schedule latencies in 3 linear
/// buckets `width` wide.
fn with_latency_histogram(mut builder: Builder, width: Duration) -> tokiwa::runtime::Runtime {
    builder
        .enable_metrics_schedule_latency_histogram()
        .metrics_schedule_latency_histogram_configuration(HistogramConfiguration::linear(width, 3))
        .build()
        .unwrap()
}

fn histogram_total(m: &RuntimeMetrics) -> u64 {
    (0..m.num_workers())
        .flat_map(|w| (0..m.schedule_latency_histogram_num_buckets()).map(move |b| (w, b)))
        .map(|(w, b)| m.schedule_latency_histogram_bucket_count(w, b))
        .sum()
}

#[test]
fn a_task_that_waited_to_run_reports_at_least_that_wait_to_both_poll_hooks() {
    for flavor in DRIVERS.iter().map(|&d| Flavor::current_thread().on(d)) {
        let seen = Arc::new(Latencies::default());
        let mut builder = flavor.builder();
        builder.track_task_schedule_latency();
        seen.hooked(&mut builder);
        let rt = builder.build().unwrap();
        // Nothing drives a current-thread runtime before `block_on`. The
        // wait is timed from after the spawn returned, so from after the
        // task's stamp, until before its poll.
        let task = rt.spawn(async {});
        let spawned = Instant::now();
        *seen.target.lock().unwrap() = Some(task.id());
        spin_past(spawned);
        let waited = spawned.elapsed();
        rt.block_on(task).unwrap();
        let before = seen.before.lock().unwrap().clone();
        assert_eq!(before.len(), 1, "{flavor:?}: one poll");
        let latency = before[0].expect("tracked: Some in the poll hooks");
        assert!(latency >= waited, "{flavor:?}: {latency:?} < {waited:?}");
        assert_eq!(
            *seen.after.lock().unwrap(),
            before,
            "{flavor:?}: after = before"
        );
    }
}

#[test]
fn a_task_queued_behind_a_busy_worker_reports_the_time_it_queued() {
    for &driver in DRIVERS {
        let flavor = Flavor::multi_thread(1).on(driver);
        let seen = Arc::new(Latencies::default());
        let mut builder = flavor.builder();
        builder.track_task_schedule_latency();
        seen.hooked(&mut builder);
        let rt = builder.build().unwrap();
        let (busy_tx, busy_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let blocker = rt.spawn(async move {
            busy_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        });
        busy_rx.recv().unwrap();
        // The only worker is inside `blocker`: this task waits in the
        // queue (timed from after the spawn, as above).
        let task = rt.spawn(async {});
        let spawned = Instant::now();
        *seen.target.lock().unwrap() = Some(task.id());
        spin_past(spawned);
        let waited = spawned.elapsed();
        release_tx.send(()).unwrap();
        rt.block_on(async {
            blocker.await.unwrap();
            task.await.unwrap();
        });
        let before = seen.before.lock().unwrap().clone();
        assert_eq!(before.len(), 1, "{flavor:?}");
        let latency = before[0].expect("tracked");
        assert!(latency >= waited, "{flavor:?}: {latency:?} < {waited:?}");
    }
}

/// Runs one task on `builder`'s runtime: what the spawn and terminate
/// hooks saw.
fn spawn_and_terminate_latencies(mut builder: Builder) -> Vec<Option<Duration>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (s, t) = (seen.clone(), seen.clone());
    let rt = builder
        .on_task_spawn(move |m| s.lock().unwrap().push(m.schedule_latency()))
        .on_task_terminate(move |m| t.lock().unwrap().push(m.schedule_latency()))
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {})).unwrap();
    drop(rt);
    let seen = seen.lock().unwrap().clone();
    seen
}

#[test]
fn untracked_runtimes_and_the_spawn_and_terminate_hooks_report_none() {
    for flavor in flavors() {
        let polls = Arc::new(Mutex::new(Vec::new()));
        let p = polls.clone();
        let mut untracked = flavor.builder();
        untracked.on_before_task_poll(move |m| p.lock().unwrap().push(m.schedule_latency()));
        let others = spawn_and_terminate_latencies(untracked);
        let polls = polls.lock().unwrap();
        assert!(!polls.is_empty(), "{flavor:?}");
        assert!(polls.iter().all(Option::is_none), "{flavor:?}: not tracked");
        assert_eq!(others.len(), 2, "{flavor:?}: spawn and terminate");
        assert!(others.iter().all(Option::is_none), "{flavor:?}");

        // Tracked: still None in the spawn and terminate hooks.
        let mut tracked = flavor.builder();
        tracked.track_task_schedule_latency();
        let others = spawn_and_terminate_latencies(tracked);
        assert_eq!(others.len(), 2, "{flavor:?}");
        assert!(others.iter().all(Option::is_none), "{flavor:?}");
    }
}

#[test]
fn the_histogram_counts_every_run_of_every_task() {
    const TASKS: u64 = 40;
    const YIELDS: u64 = 3;
    for flavor in flavors() {
        let rt = with_latency_histogram(flavor.builder(), Duration::from_millis(50));
        let m = rt.metrics();
        assert!(m.schedule_latency_histogram_enabled(), "{flavor:?}");
        assert_eq!(m.schedule_latency_histogram_num_buckets(), 3);
        assert_eq!(
            m.schedule_latency_histogram_bucket_range(1),
            Duration::from_millis(50)..Duration::from_millis(100)
        );
        rt.block_on(async {
            for _ in 0..TASKS {
                tokiwa::spawn(async {
                    for _ in 0..YIELDS {
                        tokiwa::task::yield_now().await;
                    }
                })
                .await
                .unwrap();
            }
        });
        drop(rt);
        // A run per yield, and the first.
        assert_eq!(histogram_total(&m), TASKS * (YIELDS + 1), "{flavor:?}");
    }
}

#[test]
fn the_histogram_is_off_unless_enabled() {
    for flavor in flavors() {
        let rt = flavor
            .builder()
            .track_task_schedule_latency()
            .build()
            .unwrap();
        let m = rt.metrics();
        rt.block_on(rt.spawn(async {})).unwrap();
        assert!(!m.schedule_latency_histogram_enabled(), "{flavor:?}");
        assert_eq!(m.schedule_latency_histogram_num_buckets(), 0);
        assert_eq!(histogram_total(&m), 0);
    }
}

#[test]
fn a_lifo_run_is_a_latency_sample_of_its_own_but_not_a_poll_of_its_own() {
    for &driver in DRIVERS {
        let flavor = Flavor::multi_thread(1).on(driver);
        let mut builder = flavor.builder();
        builder.enable_metrics_poll_time_histogram();
        let rt = with_latency_histogram(builder, Duration::from_millis(10));
        let m = rt.metrics();
        rt.block_on(async {
            tokiwa::spawn(async {
                // Into the LIFO slot: it runs after this task, in the same
                // poll of the worker, having waited at least `WAIT`.
                drop(tokiwa::spawn(async {}));
                spin_past(Instant::now());
            })
            .await
            .unwrap();
        });
        drop(rt);
        let counts: Vec<u64> = (0..3)
            .map(|b| m.schedule_latency_histogram_bucket_count(0, b))
            .collect();
        assert_eq!(counts.iter().sum::<u64>(), 2, "{flavor:?}: {counts:?}");
        assert!(
            counts[2] >= 1,
            "{flavor:?}: the LIFO task waited: {counts:?}"
        );
        assert_eq!(m.worker_poll_count(0), 1, "{flavor:?}: one poll");
        let poll_samples: u64 = (0..m.poll_time_histogram_num_buckets())
            .map(|b| m.poll_time_histogram_bucket_count(0, b))
            .sum();
        assert_eq!(poll_samples, 1, "{flavor:?}");
    }
}
