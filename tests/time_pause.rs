#![cfg(all(feature = "full", feature = "test-util"))]
//! The paused clock (`test-util`): `pause`, `resume`, `advance`,
//! `start_paused`, auto-advance (in deadline order, to the exact deadline,
//! hours in an instant, held off by `spawn_blocking`), and tokio's panics.
//! Current-thread only, as in tokio.

mod support;

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use support::{counting_waker, panic_message, quiet_panics};
use tokiwa::runtime::Builder;
use tokiwa::task::JoinSet;
use tokiwa::time::{self, advance, sleep, sleep_until, timeout, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const HOUR: Duration = Duration::from_secs(3600);

/// `builder`'s runtime, with every driver and its clock paused.
fn paused(builder: &mut Builder) -> tokiwa::runtime::Runtime {
    builder.enable_all().start_paused(true).build().unwrap()
}

#[tokiwa::test(start_paused = true)]
async fn start_paused_freezes_instant_now() {
    let now = Instant::now();
    for _ in 0..3 {
        std::thread::sleep(ms(1));
        assert_eq!(Instant::now(), now);
    }
}

#[tokiwa::test(start_paused = true)]
async fn advance_moves_the_clock_by_exactly_the_duration() {
    for d in [
        Duration::from_micros(1),
        Duration::from_micros(51_592),
        ms(1),
        Duration::from_micros(3_141_592),
        HOUR * 5,
    ] {
        let now = Instant::now();
        advance(d).await;
        assert_eq!(now.elapsed(), d);
    }
}

#[tokiwa::test(start_paused = true)]
async fn auto_advance_sleeps_hours_in_an_instant() {
    let wall = std::time::Instant::now();
    let start = Instant::now();
    sleep(HOUR * 24).await;
    assert_eq!(start.elapsed(), HOUR * 24);
    for _ in 0..100 {
        sleep(HOUR).await;
    }
    assert_eq!(start.elapsed(), HOUR * 124);
    // Generous: the point is that no real hours pass.
    assert!(wall.elapsed() < Duration::from_secs(30));
}

#[tokiwa::test(start_paused = true)]
async fn auto_advance_goes_to_each_exact_deadline_in_order() {
    let start = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut set = JoinSet::new();
    // Deadlines out of order, some within one millisecond, some equal.
    let offsets = [
        50_000u64, 10_000, 30_250, 30_100, 20_000, 10_000, 1, 999, 7_000_000,
    ];
    for (i, &us) in offsets.iter().enumerate() {
        let log = log.clone();
        set.spawn(async move {
            let deadline = start + Duration::from_micros(us);
            sleep_until(deadline).await;
            log.lock().unwrap().push((i, Instant::now() - start));
            assert_eq!(Instant::now(), deadline);
        });
    }
    while let Some(res) = set.join_next().await {
        res.unwrap();
    }
    let log = log.lock().unwrap();
    let times: Vec<Duration> = log.iter().map(|&(_, t)| t).collect();
    let mut sorted = times.clone();
    sorted.sort();
    assert_eq!(times, sorted, "fired out of deadline order: {log:?}");
    assert_eq!(times.len(), offsets.len());
}

#[tokiwa::test(start_paused = true)]
async fn advance_fires_the_timers_it_passes_in_deadline_order() {
    let start = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut set = JoinSet::new();
    for (i, d) in [30u64, 10, 20, 500].into_iter().enumerate() {
        let log = log.clone();
        set.spawn(async move {
            sleep_until(start + ms(d)).await;
            log.lock().unwrap().push(i);
        });
    }
    // Let them register.
    tokiwa::task::yield_now().await;
    advance(ms(100)).await;
    // The three it passed ran, in deadline order; the 500 ms one did not.
    for _ in 0..3 {
        tokiwa::task::yield_now().await;
    }
    assert_eq!(*log.lock().unwrap(), vec![1, 2, 0]);
    assert_eq!(start.elapsed(), ms(100));
    while let Some(res) = set.join_next().await {
        res.unwrap();
    }
    assert_eq!(*log.lock().unwrap(), vec![1, 2, 0, 3]);
    assert_eq!(start.elapsed(), ms(500));
}

#[tokiwa::test(start_paused = true)]
async fn advance_below_the_deadline_leaves_the_timer_pending() {
    let (waker, wakes) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut s = Box::pin(sleep(ms(1)));
    assert!(s.as_mut().poll_unpin_compat(&mut cx).is_pending());
    for _ in 0..3 {
        advance(Duration::from_micros(250)).await;
        assert!(s.as_mut().poll_unpin_compat(&mut cx).is_pending());
    }
    assert_eq!(wakes.get(), 0);
    advance(Duration::from_micros(250)).await;
    // Exactly at the deadline: woken by the time `advance` returns.
    assert_eq!(wakes.get(), 1);
    assert!(s.as_mut().poll_unpin_compat(&mut cx).is_ready());
}

#[tokiwa::test(start_paused = true)]
async fn sleep_created_before_an_advance_and_polled_after() {
    let start = Instant::now();
    let mut s = Box::pin(sleep_until(start + ms(300)));
    advance(ms(100)).await;
    assert!(futures::poll!(s.as_mut()).is_pending());
    advance(ms(200)).await;
    assert!(futures::poll!(s.as_mut()).is_ready());
}

#[tokiwa::test(start_paused = true)]
async fn very_long_sleeps_end_at_their_deadline() {
    let ten_years = Duration::from_secs(10 * 365 * 86_400);
    let deadline = Instant::now() + ten_years;
    sleep_until(deadline).await;
    assert_eq!(Instant::now(), deadline);
    // `Duration::MAX` is clamped (about 30 years) and completes too.
    let start = Instant::now();
    sleep(Duration::MAX).await;
    assert!(start.elapsed() >= Duration::from_secs(29 * 365 * 86_400));
    // Timers near and far together.
    let far = tokiwa::spawn(sleep(Duration::from_secs(1 << 40)));
    let start = Instant::now();
    sleep(ms(10)).await;
    assert_eq!(start.elapsed(), ms(10));
    far.abort();
}

#[tokiwa::test(start_paused = true)]
async fn timeout_elapses_on_the_paused_clock() {
    let start = Instant::now();
    let res = timeout(HOUR, std::future::pending::<()>()).await;
    assert!(res.is_err());
    assert_eq!(start.elapsed(), HOUR);
}

#[tokiwa::test(start_paused = true)]
async fn spawn_blocking_holds_off_auto_advance() {
    let start = Instant::now();
    // A pending timer the runtime could jump to.
    let timer = tokiwa::spawn(sleep(HOUR));
    let out = tokiwa::task::spawn_blocking(|| {
        std::thread::sleep(ms(20));
        42
    })
    .await
    .unwrap();
    assert_eq!(out, 42);
    assert_eq!(Instant::now(), start);
    // Once it is done, auto-advance resumes.
    timer.await.unwrap();
    assert_eq!(start.elapsed(), HOUR);
}

#[tokiwa::test(start_paused = true)]
async fn a_wake_from_another_thread_runs_before_auto_advance() {
    let start = Instant::now();
    let _timer = tokiwa::spawn(sleep(HOUR));
    let (tx, rx) = tokiwa::sync::oneshot::channel::<()>();
    let waiter = tokiwa::spawn(async move {
        rx.await.unwrap();
        Instant::now()
    });
    // Let the waiter register, then wake it from a foreign thread.
    tokiwa::task::yield_now().await;
    std::thread::spawn(move || tx.send(()).unwrap())
        .join()
        .unwrap();
    assert_eq!(waiter.await.unwrap(), start);
}

#[test]
fn paused_runs_are_deterministic() {
    fn run() -> Vec<Duration> {
        let rt = paused(&mut Builder::new_current_thread());
        rt.block_on(async {
            let start = Instant::now();
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            let mut times = Vec::new();
            for _ in 0..1_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                sleep(Duration::from_micros(x % 1_000_000)).await;
                times.push(start.elapsed());
            }
            times
        })
    }
    assert_eq!(run(), run());
}

#[tokiwa::test]
async fn pause_then_resume() {
    time::pause();
    let start = Instant::now();
    advance(HOUR).await;
    time::resume();
    let resumed = Instant::now();
    assert!(resumed >= start + HOUR);
    // Running again: it keeps moving, from where it stood.
    sleep(ms(1)).await;
    assert!(Instant::now() >= resumed + ms(1));
}

#[tokiwa::test]
async fn pause_inside_a_spawned_task() {
    tokiwa::spawn(async { time::pause() }).await.unwrap();
    let start = Instant::now();
    sleep(HOUR).await;
    assert_eq!(start.elapsed(), HOUR);
}

const PAUSE_NEEDS_CURRENT_THREAD: &str = "`time::pause()` requires the `current_thread` Tokio runtime. This is the default Runtime used by `#[tokio::test].";

fn panic_of(f: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    panic_message(&*err)
}

#[test]
fn pause_on_a_multi_thread_runtime_panics_with_tokios_message() {
    quiet_panics(&["`time::pause()` requires"]);
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let msg = panic_of(|| rt.block_on(async { time::pause() }));
    assert_eq!(msg, PAUSE_NEEDS_CURRENT_THREAD);
    // In a task: the task fails, the runtime goes on.
    let res = rt.block_on(async { tokiwa::spawn(async { time::pause() }).await });
    assert!(res.unwrap_err().is_panic());
    let msg = panic_of(|| {
        Builder::new_multi_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
    });
    assert_eq!(msg, PAUSE_NEEDS_CURRENT_THREAD);
}

#[test]
fn misuse_panics_with_tokios_messages() {
    quiet_panics(&[
        "time is already frozen",
        "time is not frozen",
        "time cannot be frozen",
        "overflow when adding",
    ]);
    let rt = || Builder::new_current_thread().enable_all().build().unwrap();
    assert_eq!(
        panic_of(|| rt().block_on(async {
            time::pause();
            time::pause();
        })),
        "time is already frozen"
    );
    assert_eq!(
        panic_of(|| rt().block_on(async { time::resume() })),
        "time is not frozen"
    );
    assert_eq!(
        panic_of(|| rt().block_on(async { advance(ms(1)).await })),
        "time is not frozen"
    );
    // An overflowing advance panics and leaves the clock usable.
    let paused = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    assert_eq!(
        panic_of(|| paused.block_on(async { advance(Duration::MAX).await })),
        "overflow when adding duration to instant"
    );
    paused.block_on(async {
        let start = Instant::now();
        time::sleep(HOUR).await;
        assert_eq!(start.elapsed(), HOUR);
    });
    assert_eq!(
        panic_of(time::pause),
        "time cannot be frozen from outside the Tokio runtime"
    );
    assert_eq!(
        panic_of(time::resume),
        "time cannot be frozen from outside the Tokio runtime"
    );
}

#[test]
fn instant_now_outside_the_runtime_is_not_paused() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let inside = rt.block_on(async {
        advance(HOUR).await;
        Instant::now()
    });
    // Outside any runtime: std's clock, an hour behind the paused one.
    assert!(Instant::now() < inside);
    let _guard = rt.enter();
    assert_eq!(Instant::now(), inside);
}

/// `Future::poll` on a pinned box, without importing `FutureExt`.
trait PollCompat {
    fn poll_unpin_compat(self, cx: &mut Context<'_>) -> Poll<()>;
}

impl PollCompat for std::pin::Pin<&mut time::Sleep> {
    fn poll_unpin_compat(self, cx: &mut Context<'_>) -> Poll<()> {
        std::future::Future::poll(self, cx)
    }
}

/// Readiness the kernel already has when the runtime runs out of work is
/// seen before the paused clock jumps (tokio's
/// `paused_time_spawn_unix_datagram_and_sleep`): on every driver, many
/// times over, since a lost race shows only now and then (legacy mode's
/// poll thread may hold the event, taken but not yet delivered, when the
/// worker decides to advance).
#[test]
fn ready_io_runs_before_auto_advance() {
    for &driver in support::DRIVERS {
        for round in 0..2_000 {
            let rt = paused(Builder::new_current_thread().driver(driver));
            rt.block_on(async {
                let start = Instant::now();
                let (a, b) = tokiwa::net::UnixDatagram::pair().unwrap();
                a.send(&[1]).await.unwrap();
                let reader = tokiwa::spawn(async move {
                    let mut buf = [0u8; 1];
                    b.recv(&mut buf).await.unwrap();
                    start.elapsed()
                });
                sleep(ms(100)).await;
                let seen = reader.await.unwrap();
                assert_eq!(seen, Duration::ZERO, "{driver}, round {round}");
                assert_eq!(start.elapsed(), ms(100));
            });
        }
    }
}
