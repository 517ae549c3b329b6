#![cfg(all(feature = "full", feature = "test-util"))]
//! `time::interval` on the paused clock: the first tick, each
//! `MissedTickBehavior`, the resets, a disarmed interval waking nobody,
//! huge periods, and (in real time, on every flavour) ticks never early.

#[macro_use]
mod support;

use std::task::{Context, Poll, Waker};
use std::time::Duration;

use support::{panic_message, quiet_panics, Counter};
use tokiwa::time::{self, advance, interval, interval_at, Instant, Interval, MissedTickBehavior};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Polls the interval once with a waker that counts.
struct Poller {
    waker: Waker,
    wakes: Counter,
}

impl Poller {
    fn new() -> Poller {
        let (waker, wakes) = support::counting_waker();
        Poller { waker, wakes }
    }

    fn poll(&self, i: &mut Interval) -> Poll<Instant> {
        i.poll_tick(&mut Context::from_waker(&self.waker))
    }

    /// Asserts the ready ticks, at these offsets from `start`, then
    /// `Pending`.
    #[track_caller]
    fn expect(&self, i: &mut Interval, start: Instant, offsets: &[u64]) {
        for &off in offsets {
            assert_eq!(
                self.poll(i),
                Poll::Ready(start + ms(off)),
                "tick at +{off} ms"
            );
        }
        assert!(self.poll(i).is_pending(), "a tick more than {offsets:?}");
    }
}

/// A 300 ms interval started at `start` (1 ms ago), its first tick taken.
async fn three_hundred_ms(behavior: MissedTickBehavior) -> (Interval, Instant, Poller) {
    let start = Instant::now();
    advance(ms(1)).await;
    let mut i = interval_at(start, ms(300));
    assert_eq!(i.missed_tick_behavior(), MissedTickBehavior::Burst);
    i.set_missed_tick_behavior(behavior);
    assert_eq!(i.missed_tick_behavior(), behavior);
    assert_eq!(i.period(), ms(300));
    let p = Poller::new();
    p.expect(&mut i, start, &[0]);
    advance(ms(100)).await;
    p.expect(&mut i, start, &[]);
    advance(ms(200)).await;
    p.expect(&mut i, start, &[300]);
    (i, start, p)
}

#[tokiwa::test(start_paused = true)]
async fn burst_catches_up_then_keeps_the_schedule() {
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Burst).await;
    advance(ms(650)).await; // now +951
    p.expect(&mut i, start, &[600, 900]);
    advance(ms(200)).await; // +1151
    p.expect(&mut i, start, &[]);
    advance(ms(100)).await; // +1251
    p.expect(&mut i, start, &[1200]);
    advance(ms(250)).await; // +1501
    p.expect(&mut i, start, &[1500]);
    advance(ms(300)).await; // +1801
    p.expect(&mut i, start, &[1800]);
}

#[tokiwa::test(start_paused = true)]
async fn delay_restarts_from_the_late_tick() {
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Delay).await;
    advance(ms(650)).await; // +951: the 600 tick, late; next at 951 + 300
    p.expect(&mut i, start, &[600]);
    advance(ms(100)).await;
    p.expect(&mut i, start, &[]);
    advance(ms(201)).await; // +1252
    p.expect(&mut i, start, &[1251]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1551]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1851]);
}

#[tokiwa::test(start_paused = true)]
async fn skip_drops_the_missed_ticks() {
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Skip).await;
    advance(ms(650)).await; // +951: the 600 tick; 900 is skipped
    p.expect(&mut i, start, &[600]);
    advance(ms(250)).await; // +1201
    p.expect(&mut i, start, &[1200]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1500]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1800]);
}

#[tokiwa::test(start_paused = true)]
async fn resets_restart_the_schedule() {
    // reset: one period from now (+401 -> +701).
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Burst).await;
    advance(ms(100)).await;
    i.reset();
    advance(ms(250)).await;
    p.expect(&mut i, start, &[]);
    advance(ms(50)).await;
    p.expect(&mut i, start, &[701]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1001]);

    // reset_immediately: a tick now.
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Burst).await;
    advance(ms(100)).await;
    i.reset_immediately();
    p.expect(&mut i, start, &[401]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[701]);

    // reset_after and reset_at.
    let (mut i, start, p) = three_hundred_ms(MissedTickBehavior::Burst).await;
    advance(ms(100)).await;
    i.reset_after(ms(20));
    advance(ms(20)).await;
    p.expect(&mut i, start, &[421]);
    i.reset_at(Instant::now() + ms(1000));
    advance(ms(999)).await;
    p.expect(&mut i, start, &[]);
    advance(ms(1)).await;
    p.expect(&mut i, start, &[1421]);
    advance(ms(300)).await;
    p.expect(&mut i, start, &[1721]);
}

#[tokiwa::test(start_paused = true)]
async fn tick_waits_on_auto_advance() {
    let start = Instant::now();
    let mut i = interval(ms(10));
    for n in 0..5 {
        assert_eq!(i.tick().await, start + ms(10 * n));
        assert_eq!(Instant::now(), start + ms(10 * n));
    }
}

#[tokiwa::test(start_paused = true)]
async fn a_disarmed_interval_wakes_nobody() {
    // After a tick the timer is armed again only by the next poll.
    let start = Instant::now();
    let mut i = interval(ms(10));
    let p = Poller::new();
    assert_eq!(p.poll(&mut i), Poll::Ready(start));
    advance(ms(50)).await;
    assert_eq!(p.wakes.get(), 0);
    // Polled again: the missed tick is ready at once.
    assert_eq!(p.poll(&mut i), Poll::Ready(start + ms(10)));
}

#[tokiwa::test(start_paused = true)]
async fn huge_periods_do_not_overflow() {
    let mut i = interval(Duration::MAX);
    let start = Instant::now();
    assert_eq!(i.tick().await, start);
    i.reset();
    i.reset_after(Duration::MAX);
    let p = Poller::new();
    assert!(p.poll(&mut i).is_pending());
    assert!(i.period() >= Duration::from_secs(29 * 365 * 86_400));
}

#[test]
fn zero_period_panics() {
    quiet_panics(&["`period` must be non-zero."]);
    let rt = tokiwa::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    for f in [(|| drop(interval(Duration::ZERO))) as fn(), || {
        drop(interval_at(Instant::now(), Duration::ZERO))
    }] {
        let err = std::panic::catch_unwind(f).unwrap_err();
        assert_eq!(panic_message(&*err), "`period` must be non-zero.");
    }
}

rt_test! {
    fn real_time_ticks_are_never_early() {
        let rt = rt();
        rt.block_on(async {
            let mut i = time::interval(ms(2));
            let start = i.tick().await;
            for n in 1..5u32 {
                let due = i.tick().await;
                assert_eq!(due, start + ms(2) * n);
                assert!(Instant::now() >= due);
            }
        });
    }
}
