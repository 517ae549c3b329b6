//! The self-tuned global queue interval of a multi-thread worker.
//!
//! A worker looks at the injection side (remote spawns, wakes from outside
//! the runtime) before its own queue once every *interval* ticks. A fixed
//! interval is wrong one way or the other: with tasks that each take tens
//! of microseconds, 61 ticks keep a remote spawn waiting for milliseconds;
//! with sub-microsecond tasks, a short interval spends the worker's time on
//! the shared queue's lock. So, as tokio does when the builder's
//! `global_queue_interval` is not set, the worker aims at one look per
//! [`TARGET_INTERVAL`] of work: it measures how long its polls take and
//! divides.
//!
//! **Measuring.** The worker's loop runs in *batches*, from a park or a
//! reap of the driver (every `event_interval` ticks) to the next one.
//! [`Tuning::end_batch`] takes the batch's elapsed time over the number of
//! polls in it (LIFO polls included) and folds that mean into an
//! exponentially weighted moving average, in which each poll counts with
//! weight [`ALPHA`]: a batch of `n` polls moves the average by
//! `1 - (1 - ALPHA)^n` of the way to its mean, so a long batch counts for
//! more than a short one, and the average follows a change of workload
//! within a few batches. Idle time is not measured: a batch ends before the
//! worker parks and the next one starts when it wakes.
//!
//! **Cost.** Two clock reads per batch (a vDSO call each), nothing per
//! task; when the builder sets the interval, nothing at all.
use std::time::{Duration, Instant};

/// How much work a worker does between two looks at the injection side.
const TARGET_INTERVAL: Duration = Duration::from_micros(200);

/// The interval's bounds, in ticks. At least 2, or the injection side would
/// always come first; at most twice the fixed interval of earlier versions
/// (61), so remote work is never starved by very fast tasks.
const MIN_INTERVAL: u32 = 2;
const MAX_INTERVAL: u32 = 127;

/// The interval a new worker starts with (the old fixed one).
const INITIAL_INTERVAL: u32 = 61;

/// The weight of one poll's duration in the moving average.
const ALPHA: f64 = 0.1;

/// The largest batch whose size still moves the weight: `0.9^1024` is
/// below `1e-46`, far under an f64's epsilon next to 1.
const POWI_CAP: u64 = 1024;

/// A worker's measure of its polls and the interval it derives.
pub(crate) struct Tuning {
    /// The builder's interval: then nothing is measured.
    configured: Option<u32>,
    /// The interval in use, in ticks.
    interval: u32,
    /// Where the current batch started, and the poll count then.
    batch_start: Instant,
    batch_start_polls: u64,
    /// The moving average of one poll's duration, in nanoseconds.
    mean_poll_ns: f64,
}

impl Tuning {
    pub(crate) fn new(configured: Option<u32>) -> Tuning {
        Tuning {
            configured,
            interval: configured.unwrap_or(INITIAL_INTERVAL),
            batch_start: Instant::now(),
            batch_start_polls: 0,
            // As if the polls so far had led to the initial interval.
            mean_poll_ns: TARGET_INTERVAL.as_nanos() as f64 / f64::from(INITIAL_INTERVAL),
        }
    }

    /// Ticks between two looks at the injection side first.
    pub(super) fn interval(&self) -> u32 {
        self.interval
    }

    /// The moving average of one poll's duration, in nanoseconds.
    #[cfg(tokio_unstable)]
    pub(crate) fn mean_poll_ns(&self) -> u64 {
        // Saturating, NaN to 0.
        self.mean_poll_ns as u64
    }

    /// The worker starts running tasks; `polls` is its poll count so far.
    pub(crate) fn start_batch(&mut self, polls: u64) {
        // With `tokio_unstable` the average is also a metric
        // (`worker_mean_poll_time`): measured even with a set interval.
        if self.configured.is_some() && !cfg!(tokio_unstable) {
            return;
        }
        self.batch_start = Instant::now();
        self.batch_start_polls = polls;
    }

    /// The worker stops running tasks (to park or reap the driver); updates
    /// the average and the interval.
    pub(crate) fn end_batch(&mut self, polls: u64) {
        if self.configured.is_some() && !cfg!(tokio_unstable) {
            return;
        }
        let n = polls.wrapping_sub(self.batch_start_polls);
        if n == 0 {
            return;
        }
        self.observe(n, self.batch_start.elapsed());
    }

    /// Folds a batch of `n` polls that took `elapsed` into the average.
    fn observe(&mut self, n: u64, elapsed: Duration) {
        let batch_mean = elapsed.as_nanos() as f64 / n as f64;
        // `powi` is a few multiplications where `powf` is a libm call
        // (up to 0.6% of a one-connection server's samples, with a batch per
        // round trip). Past `POWI_CAP` polls the weight is 1 to within an
        // f64's precision, so capping the exponent changes nothing.
        let weight = 1.0 - (1.0 - ALPHA).powi(n.min(POWI_CAP) as i32);
        self.mean_poll_ns = weight * batch_mean + (1.0 - weight) * self.mean_poll_ns;
        if self.configured.is_some() {
            return;
        }
        // A float-to-int `as` saturates (and maps NaN to 0): the clamp
        // bounds it either way.
        let ticks = (TARGET_INTERVAL.as_nanos() as f64 / self.mean_poll_ns) as u32;
        self.interval = ticks.clamp(MIN_INTERVAL, MAX_INTERVAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_polls_shorten_the_interval() {
        let mut t = Tuning::new(None);
        assert_eq!(t.interval(), INITIAL_INTERVAL);
        // 60 µs a poll: 200 / 60 = 3 ticks.
        t.observe(200, Duration::from_micros(60 * 200));
        assert_eq!(t.interval(), 3);
    }

    #[test]
    fn fast_polls_lengthen_it_up_to_the_cap() {
        let mut t = Tuning::new(None);
        t.observe(1000, Duration::from_micros(100));
        assert_eq!(t.interval(), MAX_INTERVAL);
        // Back to slow work: the average follows within a batch.
        t.observe(100, Duration::from_millis(100));
        assert_eq!(t.interval(), MIN_INTERVAL);
    }

    #[test]
    fn one_poll_moves_the_average_a_little() {
        let mut t = Tuning::new(None);
        t.observe(1, Duration::from_millis(10));
        // A tenth of the way from 200 µs / 61 to 10 ms.
        let expected = 0.1 * 10_000_000.0 + 0.9 * (200_000.0 / 61.0);
        assert!((t.mean_poll_ns - expected).abs() < 1.0);
    }

    #[test]
    fn a_batch_weighs_as_its_polls_one_by_one() {
        // Five polls in one batch move the average as five batches of one.
        let mut one_by_one = Tuning::new(None);
        for _ in 0..5 {
            one_by_one.observe(1, Duration::from_micros(50));
        }
        let mut batch = Tuning::new(None);
        batch.observe(5, Duration::from_micros(250));
        let diff = (one_by_one.mean_poll_ns - batch.mean_poll_ns).abs();
        assert!(diff < 1e-9 * batch.mean_poll_ns, "{diff}");
    }

    #[test]
    fn a_huge_batch_replaces_the_average() {
        // 2^32 polls of 1 µs each: as an `i32` exponent, uncapped, that
        // count would wrap to 0 and the batch would weigh nothing.
        let mut t = Tuning::new(None);
        t.observe(1 << 32, Duration::from_micros(1 << 32));
        assert!(
            (t.mean_poll_ns - 1_000.0).abs() < 1e-6,
            "{}",
            t.mean_poll_ns
        );
    }

    #[test]
    fn a_configured_interval_is_kept() {
        let mut t = Tuning::new(Some(7));
        t.start_batch(0);
        t.end_batch(1000);
        assert_eq!(t.interval(), 7);
    }
}
