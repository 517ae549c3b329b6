use tokiwa::time::{Instant, Interval};

super::wrapper! {
    /// An [`Interval`] as a `Stream` of its ticks, which never ends
    /// (tokio-stream's `IntervalStream`).
    IntervalStream(Interval) -> Instant,
    |interval, cx| interval.poll_tick(cx).map(Some)
}

impl IntervalStream {
    /// Never ends, so `(usize::MAX, None)`, as tokio-stream's.
    pub fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}
