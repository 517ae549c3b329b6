//! The poll-time histogram (`tokio_unstable`): its public configuration
//! ([`HistogramConfiguration`], [`HistogramScale`]), its bucket layouts, and
//! the per-worker counts the schedulers record into.
//!
//! **Layouts.** Three, as in tokio: linear (fixed-width buckets), the
//! deprecated doubling one (`HistogramScale::Log`: each bucket twice the one
//! before, the first as wide as the resolution rounded up to a power of
//! two), and [`LogHistogram`] (`log_histogram.rs`). In all three the last
//! bucket reaches to `u64::MAX` nanoseconds, so every value has a bucket.
//!
//! **Recording.** Each worker has its own [`Histogram`], written only by
//! the thread holding that worker's core (the same one-writer rule as the
//! other counters of `WorkerMetrics`, see there), so recording a poll is a
//! bucket lookup plus a load and a store: no read-modify-write, no sharing
//! with the other workers. A runtime built without the histogram has none,
//! and its schedulers neither read the clock for it nor look anything up
//! beyond the one `Option`.
use super::LogHistogram;
use crate::loom::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::ops::Range;
use std::time::Duration;

/// The scale of the deprecated poll-count histogram settings
/// (`Builder::metrics_poll_count_histogram_scale`).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Debug, Copy, Clone, Eq, PartialEq)]
#[non_exhaustive]
pub enum HistogramScale {
    /// Every bucket has the same width (the resolution).
    Linear,
    /// Each bucket is twice as wide as the one before; the first is the
    /// resolution rounded up to a power of two (nanoseconds).
    Log,
}

/// The bucket layout of the poll-time histogram
/// (`Builder::metrics_poll_time_histogram_configuration`).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Debug, Clone)]
pub struct HistogramConfiguration {
    pub(crate) layout: Layout,
}

impl HistogramConfiguration {
    /// `num_buckets` buckets, each `bucket_width` wide; the last one also
    /// holds everything above.
    pub fn linear(bucket_width: Duration, num_buckets: usize) -> Self {
        HistogramConfiguration {
            layout: Layout::Linear {
                width: nanos(bucket_width),
                buckets: num_buckets,
            },
        }
    }

    /// A log-scaled layout: see [`LogHistogram`] and its builder.
    pub fn log(configuration: impl Into<LogHistogram>) -> Self {
        HistogramConfiguration {
            layout: Layout::Log(configuration.into()),
        }
    }
}

/// A duration in nanoseconds, saturating at `u64::MAX` (584 years).
pub(crate) fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Where each value (nanoseconds) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Linear {
        width: u64,
        buckets: usize,
    },
    /// The deprecated `HistogramScale::Log`: `first` is a power of two.
    Doubling {
        first: u64,
        buckets: usize,
    },
    Log(LogHistogram),
}

impl Layout {
    pub(crate) fn num_buckets(&self) -> usize {
        match *self {
            Layout::Linear { buckets, .. } | Layout::Doubling { buckets, .. } => buckets,
            Layout::Log(log) => log.num_buckets,
        }
    }

    pub(crate) fn bucket_of(&self, value: u64) -> usize {
        let last = self.num_buckets() - 1;
        match *self {
            Layout::Linear { width, .. } => (value / width).min(last as u64) as usize,
            Layout::Doubling { first, .. } => {
                if value < first {
                    return 0;
                }
                // Bucket `b >= 1` holds `[first << (b - 1), first << b)`:
                // the values with `b` more significant bits than `first - 1`.
                let bits = 64 - value.leading_zeros();
                let first_bits = 64 - (first - 1).leading_zeros();
                ((bits - first_bits) as usize).min(last)
            }
            Layout::Log(log) => log.value_to_bucket(value),
        }
    }

    pub(crate) fn bucket_range(&self, bucket: usize) -> Range<u64> {
        let last = bucket == self.num_buckets() - 1;
        match *self {
            Layout::Linear { width, .. } => {
                let start = width.saturating_mul(bucket as u64);
                let end = if last {
                    u64::MAX
                } else {
                    width.saturating_mul(bucket as u64 + 1)
                };
                start..end
            }
            Layout::Doubling { first, .. } => {
                // `first << shift`, saturating where it leaves a `u64`.
                let at = |shift: usize| {
                    if shift as u32 <= first.leading_zeros() {
                        first << shift
                    } else {
                        u64::MAX
                    }
                };
                let start = if bucket == 0 { 0 } else { at(bucket - 1) };
                let end = if last { u64::MAX } else { at(bucket) };
                start..end
            }
            Layout::Log(log) => log.bucket_range(bucket),
        }
    }
}

/// What the builder collects: the configured layout, and the deprecated
/// scale / resolution / bucket-count settings, which win when any was
/// used (as in tokio).
#[derive(Debug, Clone)]
pub(crate) struct HistogramBuilder {
    layout: Layout,
    legacy: Option<Legacy>,
}

/// The deprecated settings (defaults: linear, 100 µs, 10 buckets).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Legacy {
    pub(crate) scale: HistogramScale,
    pub(crate) resolution: u64,
    pub(crate) buckets: usize,
}

impl Default for HistogramBuilder {
    /// tokio's default: 10 linear buckets of 100 µs.
    fn default() -> HistogramBuilder {
        HistogramBuilder {
            layout: Layout::Linear {
                width: 100_000,
                buckets: 10,
            },
            legacy: None,
        }
    }
}

impl HistogramBuilder {
    pub(crate) fn configure(&mut self, configuration: HistogramConfiguration) {
        self.layout = configuration.layout;
    }

    pub(crate) fn legacy(&mut self, f: impl FnOnce(&mut Legacy)) {
        f(self.legacy.get_or_insert(Legacy {
            scale: HistogramScale::Linear,
            resolution: 100_000,
            buckets: 10,
        }));
    }

    pub(crate) fn layout(&self) -> Layout {
        let Some(legacy) = self.legacy else {
            return self.layout;
        };
        match legacy.scale {
            HistogramScale::Linear => Layout::Linear {
                width: legacy.resolution,
                buckets: legacy.buckets,
            },
            HistogramScale::Log => Layout::Doubling {
                first: legacy.resolution.next_power_of_two(),
                buckets: legacy.buckets,
            },
        }
    }
}

/// One worker's histogram: a count per bucket.
#[derive(Debug)]
pub(crate) struct Histogram {
    layout: Layout,
    /// `Relaxed`: statistics; the one-writer rule (module docs) makes a
    /// load and a store an increment.
    counts: Box<[AtomicU64]>,
}

impl Histogram {
    /// # Panics
    ///
    /// When the layout has no buckets or a zero linear width.
    pub(crate) fn new(layout: Layout) -> Histogram {
        assert!(
            layout.num_buckets() > 0,
            "a histogram needs at least one bucket"
        );
        if let Layout::Linear { width, .. } = layout {
            assert!(width > 0, "a linear histogram's buckets must have a width");
        }
        let counts = (0..layout.num_buckets())
            .map(|_| AtomicU64::new(0))
            .collect();
        Histogram { layout, counts }
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Counts one value of `elapsed`. Only the worker's owner calls this.
    #[inline]
    pub(crate) fn record(&self, elapsed: Duration) {
        let count = &self.counts[self.layout.bucket_of(nanos(elapsed))];
        count.store(count.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// The count of bucket `bucket`.
    ///
    /// # Panics
    ///
    /// When `bucket` is not below the number of buckets.
    pub(crate) fn get(&self, bucket: usize) -> u64 {
        self.counts[bucket].load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000;

    fn assert_consistent(layout: &Layout) {
        let mut start = 0;
        for b in 0..layout.num_buckets() {
            let r = layout.bucket_range(b);
            assert_eq!(r.start, start, "bucket {b} of {layout:?}");
            assert_eq!(layout.bucket_of(r.start), b, "start of {b} in {layout:?}");
            assert_eq!(layout.bucket_of(r.end - 1), b, "end of {b} in {layout:?}");
            start = r.end;
        }
        assert_eq!(start, u64::MAX);
    }

    #[test]
    fn linear_buckets() {
        let layout = HistogramConfiguration::linear(Duration::from_micros(50), 3).layout;
        assert_eq!(layout.bucket_range(0), 0..50 * US);
        assert_eq!(layout.bucket_range(1), 50 * US..100 * US);
        assert_eq!(layout.bucket_range(2), 100 * US..u64::MAX);
        assert_eq!(layout.bucket_of(49_999), 0);
        assert_eq!(layout.bucket_of(50_000), 1);
        assert_eq!(layout.bucket_of(u64::MAX), 2);
        assert_consistent(&layout);
    }

    #[test]
    fn doubling_buckets_round_the_resolution_up() {
        let mut b = HistogramBuilder::default();
        b.legacy(|l| l.scale = HistogramScale::Log);
        b.legacy(|l| l.buckets = 3);
        b.legacy(|l| l.resolution = 50 * US);
        let layout = b.layout();
        let a = 65_536;
        assert_eq!(layout.bucket_range(0), 0..a);
        assert_eq!(layout.bucket_range(1), a..2 * a);
        assert_eq!(layout.bucket_range(2), 2 * a..u64::MAX);
        assert_consistent(&layout);
        // A first bucket of one nanosecond, and one of 2^63 (its next
        // bucket's start does not fit: the layout saturates).
        for first in [1, 1 << 63] {
            let layout = Layout::Doubling { first, buckets: 10 };
            assert_eq!(layout.bucket_of(0), 0);
            assert_eq!(layout.bucket_of(first), 1);
            assert_eq!(layout.bucket_of(u64::MAX), if first == 1 { 9 } else { 1 });
        }
        assert_consistent(&Layout::Doubling {
            first: 1,
            buckets: 10,
        });
    }

    #[test]
    fn the_deprecated_settings_win_over_the_configuration() {
        let mut b = HistogramBuilder::default();
        b.configure(HistogramConfiguration::log(LogHistogram::default()));
        assert_eq!(b.layout().num_buckets(), 119);
        b.legacy(|l| l.buckets = 20);
        assert_eq!(
            b.layout(),
            Layout::Linear {
                width: 100 * US,
                buckets: 20
            }
        );
    }

    #[test]
    fn record_counts_into_the_value_bucket() {
        let h = Histogram::new(HistogramBuilder::default().layout());
        h.record(Duration::from_micros(150));
        h.record(Duration::from_micros(199));
        h.record(Duration::from_secs(5));
        h.record(Duration::MAX);
        assert_eq!(h.get(0), 0);
        assert_eq!(h.get(1), 2);
        assert_eq!(h.get(9), 2);
        assert_eq!((0..10).map(|b| h.get(b)).sum::<u64>(), 4);
    }

    #[test]
    #[should_panic(expected = "at least one bucket")]
    fn zero_buckets_are_refused() {
        Histogram::new(HistogramConfiguration::linear(Duration::from_micros(1), 0).layout);
    }
}
