//! `RuntimeMetrics`: counts a program can read about its runtime.
//!
//! With `--cfg tokio_unstable`, also the poll-time histogram
//! (`metrics/histogram.rs`, its log-scaled layout in
//! `metrics/log_histogram.rs`), the I/O driver's counts
//! (`runtime/driver/io_metrics.rs`), and with the `schedule-latency`
//! feature the task schedule latencies (`metrics/schedule_latency.rs`).
#[cfg(tokio_unstable)]
mod histogram;
#[cfg(tokio_unstable)]
mod log_histogram;
#[cfg(all(tokio_unstable, feature = "schedule-latency"))]
mod schedule_latency;
#[cfg(all(tokio_unstable, feature = "schedule-latency"))]
pub(crate) use schedule_latency::{ScheduleLatencyBuilder, ScheduleLatencyConfig};

#[cfg(tokio_unstable)]
pub(crate) use histogram::{Histogram, HistogramBuilder, Layout};
#[cfg(tokio_unstable)]
pub use histogram::{HistogramConfiguration, HistogramScale};
#[cfg(tokio_unstable)]
pub use log_histogram::{InvalidHistogramConfiguration, LogHistogram, LogHistogramBuilder};

use super::scheduler;
use crate::loom::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::fmt;
use std::time::{Duration, Instant};

/// Per-worker counters, written by the worker (either scheduler's; `Relaxed`: statistics, read
/// without any ordering requirement).
///
/// **One writer.** Each counter is written only by the thread that holds
/// the worker's core (the multi-thread worker, or the current-thread
/// runtime's `block_on` thread), so an increment is a load and a store, not
/// a read-modify-write: these sit on the park path, and a plain store
/// avoids a locked instruction. `Relaxed` suffices for the writer, because
/// it reads back its own last store (per-location coherence), and when the
/// core moves to another thread (`block_in_place`, another `block_on`) it
/// moves through a mutex, whose release/acquire orders the old writer's
/// stores before the new writer's loads. Readers (any thread) only want a
/// recent value; they need no order with anything else.
#[derive(Default)]
pub(crate) struct WorkerMetrics {
    pub(crate) park_count: AtomicU64,
    /// Parks plus unparks: odd while the worker is parked.
    pub(crate) park_unpark_count: AtomicU64,
    /// Nanoseconds the worker spent not parked, up to its last
    /// [`WorkerMetrics::add_busy`].
    busy_duration_total: AtomicU64,
    pub(crate) steal_count: AtomicU64,
    pub(crate) poll_count: AtomicU64,
    pub(crate) local_queue_depth: AtomicU64,
    pub(crate) overflow_count: AtomicU64,
    /// Steal operations that took something (`steal_count` counts tasks).
    #[cfg(tokio_unstable)]
    pub(crate) steal_operations: AtomicU64,
    /// Unparks after which the worker parked again without polling a task.
    #[cfg(tokio_unstable)]
    pub(crate) noop_count: AtomicU64,
    /// Tasks scheduled from this worker onto its own queue or LIFO slot.
    #[cfg(tokio_unstable)]
    pub(crate) local_schedule_count: AtomicU64,
    /// The moving average of the worker's poll durations, in nanoseconds.
    #[cfg(tokio_unstable)]
    pub(crate) mean_poll_time_ns: AtomicU64,
    /// The thread that last took the worker's core.
    #[cfg(tokio_unstable)]
    pub(crate) thread_id: crate::loom::sync::Mutex<Option<std::thread::ThreadId>>,
    /// The worker's poll times, when the builder enabled the histogram.
    #[cfg(tokio_unstable)]
    pub(crate) poll_time_histogram: Option<Histogram>,
    /// The schedule latencies of the tasks the worker ran, when the
    /// builder enabled the histogram (`metrics/schedule_latency.rs`).
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    pub(crate) schedule_latency_histogram: Option<Histogram>,
}

/// Runtime-wide counters of `tokio_unstable` (`RuntimeMetrics::
/// spawned_tasks_count` and the like). Written by any thread, so each is a
/// `fetch_add`; `Relaxed`: statistics, ordered with nothing.
#[cfg(tokio_unstable)]
#[derive(Default)]
pub(crate) struct SchedulerMetrics {
    pub(crate) spawned_tasks: AtomicU64,
    pub(crate) remote_schedules: AtomicU64,
    pub(crate) budget_forced_yields: AtomicU64,
}

#[cfg(tokio_unstable)]
impl SchedulerMetrics {
    pub(crate) fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }
}

impl WorkerMetrics {
    /// A worker's counters, all zero, with the histograms `config` asks for.
    pub(crate) fn new(config: &super::config::Config) -> WorkerMetrics {
        let _ = config;
        WorkerMetrics {
            #[cfg(tokio_unstable)]
            poll_time_histogram: config.poll_time_histogram.map(Histogram::new),
            #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
            schedule_latency_histogram: WorkerMetrics::new_schedule_latency_histogram(
                &config.schedule_latency,
            ),
            ..WorkerMetrics::default()
        }
    }

    /// When a poll to be timed starts: `Some` only with the poll-time
    /// histogram on, so that a runtime without it reads no clock.
    #[cfg(tokio_unstable)]
    #[inline]
    pub(crate) fn poll_started(&self) -> Option<Instant> {
        self.poll_time_histogram.as_ref().map(|_| Instant::now())
    }

    /// The poll begun at `started` ([`WorkerMetrics::poll_started`]) has
    /// ended: counts its duration. Only the core's holder calls this.
    #[cfg(tokio_unstable)]
    #[inline]
    pub(crate) fn poll_ended(&self, started: Option<Instant>) {
        if let (Some(histogram), Some(started)) = (&self.poll_time_histogram, started) {
            histogram.record(started.elapsed());
        }
    }

    /// Records the thread that took the worker's core.
    #[cfg(tokio_unstable)]
    pub(crate) fn set_thread_id(&self) {
        *self.thread_id.lock().unwrap() = Some(std::thread::current().id());
    }

    /// Adds one to a counter of this worker (only its owner calls this:
    /// see the type's docs for why a load and a store suffice).
    pub(crate) fn increment(counter: &AtomicU64) {
        counter.store(counter.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// The worker is about to block: ends its busy period, which began at
    /// `busy_since`, and counts a park (the park/unpark count turns odd).
    pub(crate) fn about_to_park(&self, busy_since: Instant) {
        self.add_busy(busy_since);
        Self::increment(&self.park_count);
        Self::increment(&self.park_unpark_count);
    }

    /// The worker woke from the park counted by
    /// [`WorkerMetrics::about_to_park`] (the count turns even again).
    /// Returns the start of its new busy period.
    pub(crate) fn unparked(&self) -> Instant {
        Self::increment(&self.park_unpark_count);
        Instant::now()
    }

    /// Publishes the time busy since `since`; returns now, where the next
    /// busy period to publish begins.
    pub(crate) fn add_busy(&self, since: Instant) -> Instant {
        let now = Instant::now();
        let nanos =
            u64::try_from(now.saturating_duration_since(since).as_nanos()).unwrap_or(u64::MAX);
        let total = &self.busy_duration_total;
        total.store(total.load(Relaxed).saturating_add(nanos), Relaxed);
        now
    }
}

/// A view of a runtime's counters (see [`Runtime::metrics`](super::Runtime::metrics)).
///
/// Per-worker counts are published by each worker when it parks and every
/// `event_interval` ticks, so they can lag slightly behind a busy worker.
#[derive(Clone)]
pub struct RuntimeMetrics {
    handle: scheduler::Handle,
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: scheduler::Handle) -> RuntimeMetrics {
        RuntimeMetrics { handle }
    }

    /// The number of worker threads (1 for the current-thread runtime).
    pub fn num_workers(&self) -> usize {
        match &self.handle {
            scheduler::Handle::CurrentThread(_) => 1,
            scheduler::Handle::MultiThread(h) => h.num_workers(),
        }
    }

    /// The number of tasks alive (spawned and not yet completed).
    pub fn num_alive_tasks(&self) -> usize {
        match &self.handle {
            scheduler::Handle::CurrentThread(h) => h.num_alive_tasks(),
            scheduler::Handle::MultiThread(h) => h.shared.owned.len(),
        }
    }

    /// Tasks waiting in the injection queue(s).
    pub fn global_queue_depth(&self) -> usize {
        match &self.handle {
            scheduler::Handle::CurrentThread(h) => h.injection_queue_depth(),
            scheduler::Handle::MultiThread(h) => h.shared.inject.len(),
        }
    }

    /// Threads of the blocking pool spawned for blocking work. (The
    /// multi-thread runtime's workers also run on pool threads; as in tokio
    /// they are not counted.)
    pub fn num_blocking_threads(&self) -> usize {
        let workers = match &self.handle {
            scheduler::Handle::CurrentThread(_) => 0,
            scheduler::Handle::MultiThread(h) => h.num_workers(),
        };
        self.handle
            .blocking_spawner()
            .num_threads()
            .saturating_sub(workers)
    }

    /// Idle threads in the blocking pool.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.blocking_spawner().num_idle_threads()
    }

    /// Blocking tasks waiting for a thread.
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.blocking_spawner().queue_depth()
    }

    fn worker<R>(&self, worker: usize, f: impl FnOnce(&WorkerMetrics) -> R) -> R {
        match &self.handle {
            scheduler::Handle::CurrentThread(h) => {
                assert_eq!(worker, 0, "worker index out of bounds");
                f(&h.metrics)
            }
            scheduler::Handle::MultiThread(h) => f(&h.shared.worker_metrics[worker]),
        }
    }

    /// How long worker `worker` has been busy: running tasks and polling
    /// its drivers, that is every moment it was not parked waiting for
    /// work. Starts at zero and only grows.
    ///
    /// A busy worker publishes it when it parks and every
    /// `event_interval` ticks, so it can lag that far behind.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`RuntimeMetrics::num_workers`].
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        Duration::from_nanos(self.worker(worker, |m| m.busy_duration_total.load(Relaxed)))
    }

    /// How many times worker `worker` parked: ran out of work and blocked
    /// waiting for more. Starts at zero and only grows.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`RuntimeMetrics::num_workers`].
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.park_count.load(Relaxed))
    }

    /// How many times worker `worker` parked plus how many times it woke
    /// from a park: odd while it is parked, even while it is active.
    /// Starts at zero and only grows.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`RuntimeMetrics::num_workers`].
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.park_unpark_count.load(Relaxed))
    }

    /// How many tasks the worker stole from other workers.
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.steal_count.load(Relaxed))
    }

    /// How many tasks the worker polled.
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.poll_count.load(Relaxed))
    }

    /// How many times the worker's local queue overflowed into the
    /// injection side.
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.overflow_count.load(Relaxed))
    }

    /// Tasks in the worker's local queue.
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        match &self.handle {
            scheduler::Handle::CurrentThread(_) => {
                self.worker(worker, |m| m.local_queue_depth.load(Relaxed) as usize)
            }
            scheduler::Handle::MultiThread(h) => h.shared.worker_local_queue_depth(worker),
        }
    }
}

/// The unstable metrics of tokio (`--cfg tokio_unstable`), those
/// tokio-metrics reads.
#[cfg(tokio_unstable)]
impl RuntimeMetrics {
    fn scheduler_metrics(&self) -> &SchedulerMetrics {
        self.handle.scheduler_metrics()
    }

    /// Tasks spawned on the runtime since it was created (blocking tasks
    /// are not counted, as in tokio).
    pub fn spawned_tasks_count(&self) -> u64 {
        self.scheduler_metrics().spawned_tasks.load(Relaxed)
    }

    /// Tasks scheduled from outside the runtime's workers (through the
    /// injection queue).
    pub fn remote_schedule_count(&self) -> u64 {
        self.scheduler_metrics().remote_schedules.load(Relaxed)
    }

    /// Times a task was made to yield because its cooperative budget ran
    /// out.
    pub fn budget_forced_yield_count(&self) -> u64 {
        self.scheduler_metrics().budget_forced_yields.load(Relaxed)
    }

    /// Tasks waiting in the injection queue (the older name of
    /// [`global_queue_depth`](Self::global_queue_depth)).
    pub fn injection_queue_depth(&self) -> usize {
        self.global_queue_depth()
    }

    /// The thread that runs worker `worker`, or `None` before it started.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`RuntimeMetrics::num_workers`].
    pub fn worker_thread_id(&self, worker: usize) -> Option<std::thread::ThreadId> {
        self.worker(worker, |m| *m.thread_id.lock().unwrap())
    }

    /// Times the worker woke from a park and parked again without having
    /// polled a task.
    pub fn worker_noop_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.noop_count.load(Relaxed))
    }

    /// Steal operations of the worker that took at least one task
    /// ([`worker_steal_count`](Self::worker_steal_count) counts the tasks).
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.steal_operations.load(Relaxed))
    }

    /// Tasks the worker scheduled onto its own queue (woken or spawned on
    /// it).
    pub fn worker_local_schedule_count(&self, worker: usize) -> u64 {
        self.worker(worker, |m| m.local_schedule_count.load(Relaxed))
    }

    /// The moving average of the worker's poll durations (an exponentially
    /// weighted mean, each poll weighing 0.1); zero before its first batch
    /// of polls is measured, and always zero on a current-thread runtime
    /// (as in tokio).
    pub fn worker_mean_poll_time(&self, worker: usize) -> Duration {
        Duration::from_nanos(self.worker(worker, |m| m.mean_poll_time_ns.load(Relaxed)))
    }

    /// The histogram of worker 0 (all workers have the same layout).
    fn poll_time_layout(&self) -> Option<Layout> {
        self.worker(0, |m| m.poll_time_histogram.as_ref().map(|h| *h.layout()))
    }

    /// Whether the runtime records poll times
    /// (`Builder::enable_metrics_poll_time_histogram`).
    pub fn poll_time_histogram_enabled(&self) -> bool {
        self.poll_time_layout().is_some()
    }

    /// Deprecated name of
    /// [`poll_time_histogram_enabled`](Self::poll_time_histogram_enabled).
    #[deprecated(note = "Renamed to `poll_time_histogram_enabled`")]
    #[doc(hidden)]
    pub fn poll_count_histogram_enabled(&self) -> bool {
        self.poll_time_histogram_enabled()
    }

    /// The buckets of the poll-time histogram (0 when it is off).
    pub fn poll_time_histogram_num_buckets(&self) -> usize {
        self.poll_time_layout().map_or(0, |l| l.num_buckets())
    }

    /// Deprecated name of
    /// [`poll_time_histogram_num_buckets`](Self::poll_time_histogram_num_buckets).
    #[deprecated(note = "renamed to `poll_time_histogram_num_buckets`.")]
    #[doc(hidden)]
    pub fn poll_count_histogram_num_buckets(&self) -> usize {
        self.poll_time_histogram_num_buckets()
    }

    /// The poll durations bucket `bucket` counts; the last bucket reaches
    /// to `Duration::from_nanos(u64::MAX)`. An empty range when the
    /// histogram is off.
    ///
    /// # Panics
    ///
    /// May panic when `bucket` is not below
    /// [`poll_time_histogram_num_buckets`](Self::poll_time_histogram_num_buckets).
    #[track_caller]
    pub fn poll_time_histogram_bucket_range(&self, bucket: usize) -> std::ops::Range<Duration> {
        self.poll_time_layout().map_or_else(Default::default, |l| {
            let range = l.bucket_range(bucket);
            Duration::from_nanos(range.start)..Duration::from_nanos(range.end)
        })
    }

    /// Deprecated name of
    /// [`poll_time_histogram_bucket_range`](Self::poll_time_histogram_bucket_range).
    #[deprecated(note = "renamed to `poll_time_histogram_bucket_range`")]
    #[doc(hidden)]
    #[track_caller]
    pub fn poll_count_histogram_bucket_range(&self, bucket: usize) -> std::ops::Range<Duration> {
        self.poll_time_histogram_bucket_range(bucket)
    }

    /// How many of worker `worker`'s task polls took a time in bucket
    /// `bucket`'s range (0 when the histogram is off). Current as of the
    /// last poll the worker finished.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`num_workers`](Self::num_workers), or,
    /// with the histogram on, `bucket` not below
    /// [`poll_time_histogram_num_buckets`](Self::poll_time_histogram_num_buckets).
    #[track_caller]
    pub fn poll_time_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.worker(worker, |m| {
            m.poll_time_histogram.as_ref().map_or(0, |h| h.get(bucket))
        })
    }

    /// Deprecated name of
    /// [`poll_time_histogram_bucket_count`](Self::poll_time_histogram_bucket_count).
    #[deprecated(note = "use `poll_time_histogram_bucket_count` instead")]
    #[doc(hidden)]
    pub fn poll_count_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.poll_time_histogram_bucket_count(worker, bucket)
    }
}

/// The I/O driver's counts (`tokio_unstable`, feature `net`, as in
/// tokio): the same in both driver modes (`runtime/driver/io_metrics.rs`);
/// all zero on a runtime without I/O.
#[cfg(all(tokio_unstable, feature = "net"))]
impl RuntimeMetrics {
    /// I/O resources (sockets, pipes, `AsyncFd`s and the like) registered
    /// with the runtime's I/O driver so far. Minus
    /// [`io_driver_fd_deregistered_count`](Self::io_driver_fd_deregistered_count),
    /// those registered now.
    pub fn io_driver_fd_registered_count(&self) -> u64 {
        self.handle.driver().fd_counts().registered_count()
    }

    /// I/O resources deregistered from the runtime's I/O driver so far
    /// (each when it is dropped, or gives its descriptor back).
    pub fn io_driver_fd_deregistered_count(&self) -> u64 {
        self.handle.driver().fd_counts().deregistered_count()
    }

    /// Readiness events the runtime's I/O driver delivered to its
    /// resources so far (summed over the workers' drivers).
    pub fn io_driver_ready_count(&self) -> u64 {
        self.handle.driver().ready_count()
    }
}

/// io_uring mode's per-worker counters (all zero in legacy mode).
impl RuntimeMetrics {
    fn uring(&self, worker: usize, f: impl FnOnce(&UringCounters) -> u64) -> u64 {
        assert!(worker < self.num_workers(), "worker index out of bounds");
        #[cfg(feature = "uring")]
        if let Some(ring) = self.handle.driver().ring(worker) {
            return f(ring.metrics());
        }
        let _ = f;
        0
    }

    /// `io_uring_enter` calls the worker made (submits, waits, flushes).
    pub fn worker_ring_enter_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.enters.load(Relaxed))
    }

    /// Completions the worker reaped from its ring.
    pub fn worker_cqe_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.cqes.load(Relaxed))
    }

    /// Eventfd writes that woke the worker from its ring (at most one per
    /// sleep).
    pub fn worker_eventfd_write_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.eventfd_writes.load(Relaxed))
    }

    /// Notifications of the worker that needed no eventfd write (it was
    /// awake, or already notified).
    pub fn worker_coalesced_notify_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.coalesced.load(Relaxed))
    }

    /// Times the worker's multishot wake poll ended and was armed again.
    pub fn worker_wake_poll_rearm_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.wake_rearms.load(Relaxed))
    }

    /// Kernel entries a busy worker made because the kernel flagged
    /// deferred completions (`IORING_SQ_TASKRUN`).
    pub fn worker_taskrun_enter_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.taskrun_enters.load(Relaxed))
    }

    /// Waits of the worker's tasks on I/O resources whose readiness is
    /// reaped by another worker's ring (readiness that will cross threads
    /// to reach its task).
    pub fn worker_foreign_io_wait_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.foreign_io_waits.load(Relaxed))
    }

    /// I/O resources whose readiness poll moved to this worker's ring
    /// because its tasks kept waiting on them here.
    pub fn worker_io_rehome_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.io_rehomes.load(Relaxed))
    }

    /// Completion receives of the worker (`Builder::uring_completion_io`)
    /// that found its provided buffer ring empty (`ENOBUFS`: one reap
    /// found more arriving messages than the ring has buffers) and were
    /// armed again. Nothing is lost; each costs one more completion.
    pub fn worker_recv_no_buffers_count(&self, worker: usize) -> u64 {
        self.uring(worker, |m| m.recv_no_buffers.load(Relaxed))
    }

    /// Test hook: the setup flags the kernel recorded for the worker's
    /// ring (`io_uring_params.flags`); `None` in legacy mode.
    #[doc(hidden)]
    pub fn __worker_ring_setup_flags(&self, worker: usize) -> Option<u32> {
        #[cfg(feature = "uring")]
        if let Some(ring) = self.handle.driver().ring(worker) {
            return Some(ring.setup_flags());
        }
        let _ = worker;
        None
    }
}

use super::driver::ring_metrics::UringMetrics as UringCounters;

impl fmt::Debug for RuntimeMetrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeMetrics")
            .field("num_workers", &self.num_workers())
            .field("num_alive_tasks", &self.num_alive_tasks())
            .finish()
    }
}
