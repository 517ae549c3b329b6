#![cfg(feature = "full")]
//! `time::timeout` and `timeout_at` on every flavour: success, elapsed,
//! `Duration::MAX`, deadlines already past, the accessors, the error's
//! texts, and a future that exhausts its budget still timing out.

#[macro_use]
mod support;

use std::time::Duration;

use support::{panic_message, quiet_panics};
use tokiwa::runtime::Builder;
use tokiwa::sync::oneshot;
use tokiwa::time::{self, error::Elapsed, sleep, timeout, timeout_at, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

rt_test! {
    fn completes_before_the_deadline() {
        let rt = rt();
        rt.block_on(async {
            assert_eq!(timeout(Duration::from_secs(3600), async { 7 }).await, Ok(7));
            let (tx, rx) = oneshot::channel();
            tokiwa::spawn(async move {
                sleep(ms(1)).await;
                tx.send(3).unwrap();
            });
            assert_eq!(timeout(Duration::from_secs(3600), rx).await.unwrap(), Ok(3));
        });
    }

    fn elapses_and_never_early() {
        let rt = rt();
        rt.block_on(async {
            let (_tx, rx) = oneshot::channel::<()>();
            let start = Instant::now();
            let res = timeout(ms(10), rx).await;
            assert!(res.is_err());
            assert!(start.elapsed() >= ms(10));

            let deadline = Instant::now() + ms(5);
            let res = timeout_at(deadline, std::future::pending::<()>()).await;
            assert!(res.is_err());
            assert!(Instant::now() >= deadline);
        });
    }

    fn ready_future_wins_over_a_past_deadline() {
        let rt = rt();
        rt.block_on(async {
            // The future is polled first: a ready one is never timed out.
            assert_eq!(timeout(Duration::ZERO, async { 1 }).await, Ok(1));
            assert_eq!(timeout_at(Instant::now() - ms(100), async { 2 }).await, Ok(2));
            assert!(timeout(Duration::ZERO, std::future::pending::<()>()).await.is_err());
        });
    }

    fn duration_max_never_times_out() {
        let rt = rt();
        rt.block_on(async {
            let res = timeout(Duration::MAX, async {
                sleep(ms(2)).await;
                5
            })
            .await;
            assert_eq!(res, Ok(5));
            let almost = Duration::from_secs(u64::MAX) + Duration::from_nanos(999_999_999);
            let (tx, rx) = oneshot::channel();
            let waiter = tokiwa::spawn(timeout(almost, rx));
            sleep(ms(2)).await;
            tx.send(()).unwrap();
            assert_eq!(waiter.await.unwrap(), Ok(Ok(())));
        });
    }

    fn budget_exhausting_future_still_times_out() {
        let rt = rt();
        rt.block_on(async {
            // Always ready but for the budget: it yields only when the
            // budget is spent, and the deadline must still be seen.
            let spin = async {
                loop {
                    tokiwa::task::consume_budget().await;
                }
            };
            assert!(timeout(ms(2), spin).await.is_err());
        });
    }

    fn accessors_reach_the_inner_future() {
        let rt = rt();
        rt.block_on(async {
            let mut t = timeout(ms(1), std::future::ready(4));
            assert_eq!(t.get_ref().clone().await, 4);
            assert_eq!(t.get_mut().clone().await, 4);
            assert_eq!(t.into_inner().await, 4);
        });
    }
}

/// `Elapsed` has no public constructor: make one by timing out.
trait ElapsedForTest {
    fn new_for_test() -> Elapsed;
}

impl ElapsedForTest for Elapsed {
    fn new_for_test() -> Elapsed {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async { timeout(Duration::ZERO, std::future::pending::<()>()).await })
            .unwrap_err()
    }
}

#[test]
fn elapsed_error_texts_and_io_conversion() {
    let err = Elapsed::new_for_test();
    assert_eq!(err.to_string(), "deadline has elapsed");
    let io: std::io::Error = err.into();
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(Elapsed::new_for_test());
    assert_eq!(boxed.to_string(), "deadline has elapsed");

    let e = time::error::Error::shutdown();
    assert!(e.is_shutdown() && !e.is_at_capacity() && !e.is_invalid());
    assert_eq!(
        e.to_string(),
        "the timer is shutdown, must be called from the context of Tokio runtime"
    );
    assert!(time::error::Error::at_capacity().is_at_capacity());
    assert!(time::error::Error::invalid().is_invalid());
}

#[test]
fn timeout_outside_a_runtime_panics_unless_it_needs_no_timer() {
    quiet_panics(&["there is no reactor running"]);
    // No deadline representable: no timer, no runtime needed.
    drop(timeout(Duration::MAX, async {}));
    let err = std::panic::catch_unwind(|| drop(timeout(ms(1), async {}))).unwrap_err();
    assert_eq!(
        panic_message(&*err),
        "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
    );
}

#[test]
fn timeout_without_timers_panics_with_tokios_message() {
    quiet_panics(&["A Tokio 1.x context was found, but timers are disabled"]);
    let rt = Builder::new_current_thread().build().unwrap();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            drop(timeout(ms(5), std::future::pending::<()>()));
        })
    }))
    .unwrap_err();
    assert!(
        panic_message(&*err).starts_with("A Tokio 1.x context was found, but timers are disabled.")
    );
}
