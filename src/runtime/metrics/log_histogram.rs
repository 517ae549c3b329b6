//! [`LogHistogram`]: the log-scaled bucket layout of the poll-time
//! histogram (`tokio_unstable`), with tokio's builder and bucket maths.
//!
//! **Layout (an H2 histogram).** With precision `p`, values below `2^p`
//! each have a bucket of width 1; above that, every power-of-two range
//! `[2^h, 2^(h+1))` is cut into `2^p` equal buckets of width `2^(h-p)`.
//! A bucket is thus never wider than `2^-p` of the values it holds (the
//! relative error bound), and a value's bucket is found with a few shifts
//! from its highest set bit: no table, no loop.
//!
//! Two changes of tokio's to the plain H2 layout, kept here: the buckets
//! below the one holding `min_value` are merged into bucket 0 (`offset`
//! counts the merged ones), and the last bucket reaches to `u64::MAX`
//! (the layout stops at the first bucket that reaches `max_value`).
use std::error::Error;
use std::fmt;
use std::ops::Range;
use std::time::Duration;

const DEFAULT_MIN_VALUE: Duration = Duration::from_nanos(100);
const DEFAULT_MAX_VALUE: Duration = Duration::from_secs(60);
/// 2^-2: at most 25% relative error.
const DEFAULT_PRECISION: u32 = 2;
const MAX_PRECISION: u32 = 10;

/// A log-scaled histogram layout for
/// [`HistogramConfiguration::log`](crate::runtime::HistogramConfiguration::log):
/// the relative error of a bucket is bounded by `2^-p` (an [H2
/// histogram](https://iop.systems/blog/h2-histogram/)); bucket 0 holds every
/// value below the configured minimum and the last bucket every value from
/// the configured maximum up.
///
/// Made with [`LogHistogram::builder`]; see [`LogHistogramBuilder`] for the
/// defaults.
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub struct LogHistogram {
    /// Buckets in the histogram, the merged bucket 0 and the open last
    /// one included.
    pub(crate) num_buckets: usize,
    /// The precision: the relative error is at most `2^-p`.
    p: u32,
    /// Buckets of the plain H2 layout merged into bucket 0.
    offset: usize,
}

impl Default for LogHistogram {
    fn default() -> LogHistogram {
        LogHistogramBuilder::default().build()
    }
}

impl LogHistogram {
    /// A builder with the default settings ([`LogHistogramBuilder`]).
    pub fn builder() -> LogHistogramBuilder {
        LogHistogramBuilder::default()
    }

    /// The largest value, in nanoseconds, the histogram tells apart:
    /// where its last (open-ended) bucket starts.
    pub fn max_value(&self) -> u64 {
        self.bucket_range(self.num_buckets - 2).end
    }

    /// The bucket that holds `value` (nanoseconds).
    pub(crate) fn value_to_bucket(&self, value: u64) -> usize {
        let index = h2_index(value, self.p).saturating_sub(self.offset as u64);
        index.min(self.num_buckets as u64 - 1) as usize
    }

    /// The values (nanoseconds) bucket `bucket` holds.
    pub(crate) fn bucket_range(&self, bucket: usize) -> Range<u64> {
        let index = (bucket + self.offset) as u64;
        let start = if bucket == 0 {
            0
        } else {
            h2_start(index, self.p)
        };
        let end = if bucket == self.num_buckets - 1 {
            u64::MAX
        } else {
            h2_start(index + 1, self.p)
        };
        start..end
    }
}

/// The index of `value`'s bucket in the plain H2 layout of precision `p`
/// (no offset, no last bucket).
fn h2_index(value: u64, p: u32) -> u64 {
    if value < 1 << (p + 1) {
        // The width-1 buckets (also the first group of width 2^0 above 2^p,
        // where both formulas agree).
        return value;
    }
    let high = 63 - value.leading_zeros();
    let shift = high - p;
    // Groups before this one: 2^p buckets each, counting the width-1
    // buckets below 2^p as group 0.
    let group_start = u64::from(shift + 1) << p;
    group_start + ((value - (1 << high)) >> shift)
}

/// The first value of bucket `index` of the plain H2 layout (`index` may be
/// one past the last bucket: the end of the last).
fn h2_start(index: u64, p: u32) -> u64 {
    let group = index >> p;
    if group == 0 {
        return index;
    }
    let shift = group - 1;
    let bits = shift + u64::from(p);
    if bits >= 64 {
        // The end of the last bucket a `u64` can reach.
        return u64::MAX;
    }
    // `within < 2^p`, so the sum stays below `2^(bits + 1) <= 2^64`.
    let within = index - (group << p);
    (1 << bits) + (within << shift)
}

/// Settings of a [`LogHistogram`].
///
/// The first bucket covers `0..min_value`, the last one `max_value` and
/// up; between them the relative error is at most `2^-p`, where `p` is set
/// by [`max_error`](Self::max_error) or
/// [`precision_exact`](Self::precision_exact).
///
/// ## Defaults
///
/// `min_value` 100 ns, `max_value` 60 s, a maximum error of 25% (`p` = 2):
/// 119 buckets.
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Default, Debug, Copy, Clone)]
pub struct LogHistogramBuilder {
    max_value: Option<Duration>,
    min_value: Option<Duration>,
    precision: Option<u32>,
}

impl From<LogHistogramBuilder> for LogHistogram {
    fn from(builder: LogHistogramBuilder) -> LogHistogram {
        builder.build()
    }
}

impl LogHistogramBuilder {
    /// Chooses the smallest `p` (at least 2, at most 10) for which `2^-p`
    /// is no more than `max_error`. To set `p` itself, see
    /// [`precision_exact`](Self::precision_exact).
    ///
    /// # Panics
    ///
    /// When `max_error` is not strictly between 0 and 1.
    pub fn max_error(mut self, max_error: f64) -> Self {
        assert!(max_error > 0.0, "max_error must be greater than 0");
        assert!(max_error < 1.0, "max_error must be less than 1");
        let mut p = DEFAULT_PRECISION;
        while p < MAX_PRECISION && 0.5f64.powi(p as i32) > max_error {
            p += 1;
        }
        self.precision = Some(p);
        self
    }

    /// Sets `p`: each power-of-two range of values is split into `2^p`
    /// buckets. With 0 every bucket is twice as wide as the one before
    /// (the layout of the deprecated [`HistogramScale::Log`]).
    ///
    /// # Panics
    ///
    /// When `p` is above 10.
    ///
    /// [`HistogramScale::Log`]: crate::runtime::HistogramScale::Log
    pub fn precision_exact(mut self, p: u32) -> Self {
        assert!(p <= MAX_PRECISION, "precision must be <= {MAX_PRECISION}");
        self.precision = Some(p);
        self
    }

    /// Sets the smallest value told apart: the first bucket is no wider
    /// than this.
    pub fn min_value(mut self, duration: Duration) -> Self {
        self.min_value = Some(duration);
        self
    }

    /// Sets the largest value told apart; longer ones land in the last
    /// bucket.
    ///
    /// # Panics
    ///
    /// When `duration` is zero.
    pub fn max_value(mut self, duration: Duration) -> Self {
        assert!(!duration.is_zero(), "max value must be greater than 0");
        self.max_value = Some(duration);
        self
    }

    /// Builds the layout, or fails if it needs more than `max_buckets`
    /// buckets.
    pub fn max_buckets(
        &mut self,
        max_buckets: usize,
    ) -> Result<LogHistogram, InvalidHistogramConfiguration> {
        let histogram = self.build();
        if histogram.num_buckets > max_buckets {
            return Err(InvalidHistogramConfiguration::TooManyBuckets {
                required_bucket_count: histogram.num_buckets,
            });
        }
        Ok(histogram)
    }

    /// Builds the layout.
    pub fn build(&self) -> LogHistogram {
        let p = self.precision.unwrap_or(DEFAULT_PRECISION);
        let min = super::histogram::nanos(self.min_value.unwrap_or(DEFAULT_MIN_VALUE));
        let max = super::histogram::nanos(self.max_value.unwrap_or(DEFAULT_MAX_VALUE));
        // Bucket 0 absorbs everything below the bucket before `min`'s, so
        // that `min` itself still starts a bucket of its own or sits in
        // one no wider than the layout's.
        let offset = h2_index(min, p).max(1) - 1;
        // The last told-apart bucket is the one holding `max - 1`; one open
        // bucket follows it.
        let last = h2_index(max.saturating_sub(1), p).saturating_sub(offset);
        LogHistogram {
            num_buckets: last as usize + 2,
            p,
            offset: offset as usize,
        }
    }
}

/// A [`LogHistogramBuilder`] setting that cannot be met.
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Debug)]
#[non_exhaustive]
pub enum InvalidHistogramConfiguration {
    /// The layout needs more buckets than allowed.
    TooManyBuckets {
        /// The buckets it needs.
        required_bucket_count: usize,
    },
}

impl fmt::Display for InvalidHistogramConfiguration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidHistogramConfiguration::TooManyBuckets {
                required_bucket_count,
            } => write!(
                f,
                "The configuration for this histogram would have required {required_bucket_count} buckets"
            ),
        }
    }
}

impl Error for InvalidHistogramConfiguration {}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(min: Duration, max: Duration, p: u32) -> LogHistogram {
        LogHistogram::builder()
            .min_value(min)
            .max_value(max)
            .precision_exact(p)
            .build()
    }

    /// Every bucket starts where the one before ends, and every value of a
    /// bucket's range maps back to it (checked at the edges).
    fn assert_consistent(h: &LogHistogram) {
        let mut expected_start = 0;
        for b in 0..h.num_buckets {
            let r = h.bucket_range(b);
            assert_eq!(r.start, expected_start, "bucket {b} of {h:?}");
            assert!(r.start < r.end, "bucket {b} of {h:?} is empty");
            assert_eq!(h.value_to_bucket(r.start), b, "start of {b} in {h:?}");
            assert_eq!(h.value_to_bucket(r.end - 1), b, "end of {b} in {h:?}");
            expected_start = r.end;
        }
        assert_eq!(expected_start, u64::MAX);
        assert_eq!(h.value_to_bucket(u64::MAX), h.num_buckets - 1);
    }

    #[test]
    fn default_layout_has_119_buckets() {
        let h = LogHistogram::default();
        assert_eq!(h.num_buckets, 119);
        assert_eq!(h.bucket_range(0), 0..96);
        assert_eq!(h.bucket_range(1), 96..112);
        assert!(h.max_value() >= 60_000_000_000);
        assert_consistent(&h);
    }

    #[test]
    fn precision_zero_doubles_each_bucket() {
        let h = layout(Duration::from_micros(20), Duration::from_millis(4), 0);
        assert_eq!(h.num_buckets, 10);
        for b in 1..h.num_buckets - 1 {
            let r = h.bucket_range(b);
            assert_eq!(r.end - r.start, 16384 << (b - 1), "bucket {b}");
        }
        assert_consistent(&h);
    }

    #[test]
    fn relative_error_is_bounded_by_precision() {
        for p in 0..=MAX_PRECISION {
            let h = layout(Duration::from_nanos(1), Duration::from_secs(1), p);
            assert_consistent(&h);
            // Above the width-1 buckets, a bucket is at most 2^-p of its
            // start wide.
            for b in 1..h.num_buckets - 1 {
                let r = h.bucket_range(b);
                if r.start >= 1 << p {
                    assert!((r.end - r.start) << p <= r.start, "p={p} bucket {b} {r:?}");
                }
            }
        }
    }

    #[test]
    fn max_error_picks_the_smallest_sufficient_precision() {
        let p = |e: f64| LogHistogram::builder().max_error(e).build().p;
        assert_eq!(p(0.25), 2);
        assert_eq!(p(0.5), 2);
        assert_eq!(p(0.2), 3);
        assert_eq!(p(0.1), 4);
        assert_eq!(p(0.0001), MAX_PRECISION);
    }

    #[test]
    fn max_buckets_refuses_a_larger_layout() {
        let mut b = LogHistogram::builder()
            .max_value(Duration::from_secs(120))
            .max_error(0.1);
        let needed = b.build().num_buckets;
        assert!(b.max_buckets(needed).is_ok());
        let err = b.max_buckets(needed - 1).unwrap_err();
        assert!(matches!(
            err,
            InvalidHistogramConfiguration::TooManyBuckets { required_bucket_count } if required_bucket_count == needed
        ));
    }

    #[test]
    fn tiny_and_huge_maxima_stay_consistent() {
        for max in [1, 2, 3, 100, 1 << 40, 1 << 62] {
            for p in [0, 2, 10] {
                let h = layout(Duration::from_nanos(1), Duration::from_nanos(max), p);
                assert!(h.num_buckets >= 2);
                assert_consistent(&h);
            }
        }
    }
}
