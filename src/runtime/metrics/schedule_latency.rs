//! Task schedule latency (`tokio_unstable` with the `schedule-latency`
//! feature, as in tokio): the time from a task's most recent transition to
//! scheduled until the worker starts polling it.
//!
//! **Where it is measured.**
//! * *Stamp*: the scheduler's `schedule_task` (a wake, a yield, a spawn
//!   from anywhere) and the current-thread runtime's local spawn write the
//!   time into the task's header (`Header::scheduled_at`) before they
//!   queue it. A wake that finds the task already scheduled queues nothing
//!   and stamps nothing, so the first scheduling counts. Moves between
//!   queues (the LIFO slot overflowing, a core handed on, stealing) are
//!   not schedulings: the stamp stays.
//! * *Read*: `scheduler::run_task`, once per task run, before the poll
//!   hooks: each task run from the LIFO slot is a sample of its own, while
//!   the poll count and the poll-time histogram take the whole LIFO chain
//!   as one poll (tokio's accounting).
//!
//! **The clock** is nanoseconds since a process-wide origin, plus one, so
//! that 0 means "never stamped". One `u64` per task, present only in a
//! build with this feature; a runtime that does not track latencies reads
//! no clock.
//!
//! **One writer per histogram**: a worker's histogram is recorded only by
//! the thread holding its core (see `WorkerMetrics`), when it takes a
//! task to run.
use super::WorkerMetrics;
use super::{Histogram, HistogramBuilder, HistogramConfiguration, Layout, RuntimeMetrics};
use crate::runtime::task::Notified;
use std::time::Duration;

/// The builder's settings, and the runtime's (in `Config`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ScheduleLatencyConfig {
    /// Tasks are stamped and their latency handed to the poll hooks.
    pub(crate) track: bool,
    /// The histogram's layout, when the builder enabled it.
    pub(crate) histogram: Option<Layout>,
}

/// What the builder collects before `build`.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScheduleLatencyBuilder {
    pub(crate) track: bool,
    pub(crate) histogram_enabled: bool,
    /// tokio's default layout: 10 linear buckets of 100 µs.
    pub(crate) histogram: HistogramBuilder,
}

impl ScheduleLatencyBuilder {
    pub(crate) fn configure(&mut self, configuration: HistogramConfiguration) {
        self.histogram.configure(configuration);
    }

    pub(crate) fn build(&self) -> ScheduleLatencyConfig {
        ScheduleLatencyConfig {
            track: self.track,
            histogram: self.histogram_enabled.then(|| self.histogram.layout()),
        }
    }
}

/// Now, on the schedule-latency clock (never 0).
pub(crate) use crate::runtime::monotonic::now_ns as now;

impl ScheduleLatencyConfig {
    /// A task is being scheduled: stamps it when latencies are tracked.
    #[inline]
    pub(crate) fn stamp(&self, task: &Notified) {
        if self.track {
            task.set_scheduled_at(now());
        }
    }
}

impl WorkerMetrics {
    /// The worker is about to run `task`: its schedule latency, recorded
    /// in the worker's histogram when there is one. `None` when latencies
    /// are not tracked (or the task was never stamped). Only the core's
    /// holder calls this.
    #[inline]
    pub(crate) fn schedule_latency(
        &self,
        config: &ScheduleLatencyConfig,
        task: &Notified,
    ) -> Option<Duration> {
        if !config.track {
            return None;
        }
        let at = task.scheduled_at();
        if at == 0 {
            return None;
        }
        let latency = Duration::from_nanos(now().saturating_sub(at));
        if let Some(histogram) = &self.schedule_latency_histogram {
            histogram.record(latency);
        }
        Some(latency)
    }

    pub(crate) fn new_schedule_latency_histogram(
        config: &ScheduleLatencyConfig,
    ) -> Option<Histogram> {
        config.histogram.map(Histogram::new)
    }
}

impl RuntimeMetrics {
    /// The histogram of worker 0 (all workers have the same layout).
    fn schedule_latency_layout(&self) -> Option<Layout> {
        self.worker(0, |m| {
            m.schedule_latency_histogram.as_ref().map(|h| *h.layout())
        })
    }

    /// Whether the runtime records schedule latencies in a histogram
    /// (`Builder::enable_metrics_schedule_latency_histogram`).
    ///
    /// **Note**: unstable (`--cfg tokio_unstable`, feature
    /// `schedule-latency`), as in tokio.
    pub fn schedule_latency_histogram_enabled(&self) -> bool {
        self.schedule_latency_layout().is_some()
    }

    /// The buckets of the schedule-latency histogram (0 when it is off).
    pub fn schedule_latency_histogram_num_buckets(&self) -> usize {
        self.schedule_latency_layout()
            .map_or(0, |l| l.num_buckets())
    }

    /// The latencies bucket `bucket` counts; the last bucket reaches to
    /// `Duration::from_nanos(u64::MAX)`. An empty range when the histogram
    /// is off.
    ///
    /// # Panics
    ///
    /// May panic when `bucket` is not below
    /// [`schedule_latency_histogram_num_buckets`](Self::schedule_latency_histogram_num_buckets).
    #[track_caller]
    pub fn schedule_latency_histogram_bucket_range(
        &self,
        bucket: usize,
    ) -> std::ops::Range<Duration> {
        self.schedule_latency_layout()
            .map_or_else(Default::default, |l| {
                let range = l.bucket_range(bucket);
                Duration::from_nanos(range.start)..Duration::from_nanos(range.end)
            })
    }

    /// How many of the tasks worker `worker` took to run had waited, since
    /// they were scheduled, a time in bucket `bucket`'s range (0 when the
    /// histogram is off).
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`num_workers`](Self::num_workers), or,
    /// with the histogram on, `bucket` not below
    /// [`schedule_latency_histogram_num_buckets`](Self::schedule_latency_histogram_num_buckets).
    #[track_caller]
    pub fn schedule_latency_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        self.worker(worker, |m| {
            m.schedule_latency_histogram
                .as_ref()
                .map_or(0, |h| h.get(bucket))
        })
    }
}
