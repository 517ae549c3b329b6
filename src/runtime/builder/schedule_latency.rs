//! The builder's schedule-latency settings (`tokio_unstable` with the
//! `schedule-latency` feature, as in tokio; what they measure:
//! `runtime/metrics/schedule_latency.rs`).
use super::Builder;
use crate::runtime::HistogramConfiguration;

impl Builder {
    /// Measures each task's schedule latency (from its most recent
    /// scheduling to the start of its poll) and hands it to the poll hooks
    /// as [`TaskMeta::schedule_latency`](crate::runtime::TaskMeta::schedule_latency).
    /// Off by default: it reads the clock at every scheduling and every
    /// poll.
    ///
    /// **Note**: unstable (`--cfg tokio_unstable`, feature
    /// `schedule-latency`), as in tokio.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use std::sync::Arc;
    ///
    /// let measured = Arc::new(AtomicBool::new(false));
    /// let seen = measured.clone();
    /// let rt = tokiwa::runtime::Builder::new_current_thread()
    ///     .track_task_schedule_latency()
    ///     .on_before_task_poll(move |meta| {
    ///         if meta.schedule_latency().is_some() {
    ///             seen.store(true, Ordering::SeqCst);
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async { tokiwa::spawn(async {}).await.unwrap() });
    /// assert!(measured.load(Ordering::SeqCst));
    /// ```
    pub fn track_task_schedule_latency(&mut self) -> &mut Self {
        self.schedule_latency.track = true;
        self
    }

    /// Measures schedule latencies (as
    /// [`track_task_schedule_latency`](Builder::track_task_schedule_latency))
    /// and counts them in a histogram per worker, which
    /// `RuntimeMetrics::schedule_latency_histogram_bucket_count` reads. By
    /// default 10 linear buckets of 100 µs; see
    /// [`metrics_schedule_latency_histogram_configuration`](Builder::metrics_schedule_latency_histogram_configuration).
    ///
    /// **Note**: unstable (`--cfg tokio_unstable`, feature
    /// `schedule-latency`), as in tokio.
    ///
    /// ```
    /// let rt = tokiwa::runtime::Builder::new_current_thread()
    ///     .enable_metrics_schedule_latency_histogram()
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async { tokiwa::spawn(async {}).await.unwrap() });
    /// let m = rt.metrics();
    /// assert_eq!(m.schedule_latency_histogram_num_buckets(), 10);
    /// let runs: u64 = (0..10)
    ///     .map(|b| m.schedule_latency_histogram_bucket_count(0, b))
    ///     .sum();
    /// assert_eq!(runs, 1);
    /// ```
    pub fn enable_metrics_schedule_latency_histogram(&mut self) -> &mut Self {
        self.schedule_latency.track = true;
        self.schedule_latency.histogram_enabled = true;
        self
    }

    /// The bucket layout of the schedule-latency histogram: linear or
    /// log-scaled (see [`HistogramConfiguration`]). Only takes effect with
    /// [`enable_metrics_schedule_latency_histogram`](Builder::enable_metrics_schedule_latency_histogram).
    ///
    /// **Note**: unstable (`--cfg tokio_unstable`, feature
    /// `schedule-latency`), as in tokio.
    pub fn metrics_schedule_latency_histogram_configuration(
        &mut self,
        configuration: HistogramConfiguration,
    ) -> &mut Self {
        self.schedule_latency.configure(configuration);
        self
    }
}
