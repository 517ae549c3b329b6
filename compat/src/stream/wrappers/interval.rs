use tokiwa::time::{Instant, Interval};

super::wrapper! {
    /// An [`Interval`] as a `Stream` of its ticks, which never ends, hence
    /// the size hint `(usize::MAX, None)` (tokio-stream's `IntervalStream`).
    IntervalStream(Interval) -> Instant,
    |interval, cx| interval.poll_tick(cx).map(Some),
    size_hint = (usize::MAX, None)
}
