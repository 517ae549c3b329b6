#![cfg(feature = "full")]
//! `time::sleep` and `Sleep` on every flavour, in real time: never early,
//! reset, `is_elapsed`, dropping frees the timer, far-future deadlines,
//! timers inserted from other threads wake a sleeping worker, 100,000 at
//! once, polls after shutdown, and tokio's panic messages.
//!
//! Only "never early" is asserted about real time; what happens when is
//! checked with the paused clock in `time_pause.rs`.

#[macro_use]
mod support;

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

use support::{counting_waker, panic_message, quiet_panics, Counter};
use tokiwa::runtime::Builder;
use tokiwa::task::JoinSet;
use tokiwa::time::{self, sleep, sleep_until, Instant, Sleep};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn poll_once(sleep: Pin<&mut Sleep>, waker: &Waker) -> Poll<()> {
    sleep.poll(&mut Context::from_waker(waker))
}

rt_test! {
    fn sleep_is_never_early() {
        let rt = rt();
        rt.block_on(async {
            for d in [0, 1, 3, 10] {
                let std_start = std::time::Instant::now();
                let start = Instant::now();
                sleep(ms(d)).await;
                assert!(std_start.elapsed() >= ms(d));
                assert!(start.elapsed() >= ms(d));
            }
            let deadline = Instant::now() + ms(5);
            sleep_until(deadline).await;
            assert!(Instant::now() >= deadline);
        });
    }

    fn sleeps_in_spawned_tasks_are_never_early() {
        let rt = rt();
        rt.block_on(async {
            let mut set = JoinSet::new();
            for i in 0..50u64 {
                set.spawn(async move {
                    let deadline = Instant::now() + Duration::from_micros(200 * i);
                    sleep_until(deadline).await;
                    assert!(Instant::now() >= deadline);
                });
            }
            while let Some(res) = set.join_next().await {
                res.unwrap();
            }
        });
    }

    fn deadline_and_is_elapsed() {
        let rt = rt();
        rt.block_on(async {
            let deadline = Instant::now() + ms(2);
            let mut s = pin!(sleep_until(deadline));
            assert_eq!(s.deadline(), deadline);
            // Not elapsed until it has been polled past the deadline.
            assert!(!s.is_elapsed());
            s.as_mut().await;
            assert!(s.is_elapsed());
            // Completed futures stay complete.
            assert!(futures::poll!(s.as_mut()).is_ready());
        });
    }

    fn past_deadline_completes_on_first_poll() {
        let rt = rt();
        rt.block_on(async {
            let s = sleep_until(Instant::now() - ms(10));
            assert!(futures::poll!(pin!(s)).is_ready());
            let s = sleep(Duration::ZERO);
            assert!(futures::poll!(pin!(s)).is_ready());
        });
    }

    fn reset_moves_the_deadline_both_ways() {
        let rt = rt();
        rt.block_on(async {
            // Registered far away, then pulled in.
            let start = Instant::now();
            let mut s = pin!(sleep(Duration::from_secs(3600)));
            assert!(futures::poll!(s.as_mut()).is_pending());
            s.as_mut().reset(start + ms(5));
            assert_eq!(s.deadline(), start + ms(5));
            s.as_mut().await;
            assert!(Instant::now() >= start + ms(5));

            // Reset after completion: pending again until the new deadline.
            // (Far away first, so that no descheduling of this thread can
            // let the deadline pass before the checks; then near.)
            s.as_mut().reset(Instant::now() + Duration::from_secs(3600));
            assert!(!s.is_elapsed());
            assert!(futures::poll!(s.as_mut()).is_pending());
            let again = Instant::now() + ms(5);
            s.as_mut().reset(again);
            s.as_mut().await;
            assert!(Instant::now() >= again);

            // Pushed out, then back: still never early.
            let near = Instant::now() + ms(5);
            s.as_mut().reset(near + Duration::from_secs(3600));
            assert!(futures::poll!(s.as_mut()).is_pending());
            s.as_mut().reset(near);
            s.as_mut().await;
            assert!(Instant::now() >= near);

            // A reset that was never polled arms the timer by itself.
            let mut fresh = pin!(sleep(Duration::from_secs(3600)));
            fresh.as_mut().reset(Instant::now() + ms(1));
            fresh.as_mut().await;
        });
    }

    fn reset_to_the_past_wakes_the_waiter() {
        let rt = rt();
        rt.block_on(async {
            let (waker, wakes) = counting_waker();
            let mut s = Box::pin(sleep(Duration::from_secs(3600)));
            assert!(poll_once(s.as_mut(), &waker).is_pending());
            assert_eq!(wakes.get(), 0);
            s.as_mut().reset(Instant::now() - ms(1));
            assert_eq!(wakes.get(), 1);
            assert!(s.is_elapsed());
            assert!(poll_once(s.as_mut(), &waker).is_ready());
        });
    }

    fn dropping_a_registered_sleep_frees_its_timer() {
        let rt = rt();
        rt.block_on(async {
            let (waker, wakes) = counting_waker();
            for _ in 0..100 {
                let mut s = Box::pin(sleep(ms(1)));
                assert!(poll_once(s.as_mut(), &waker).is_pending());
                drop(s);
            }
            // Long past all their deadlines: none fired, none woke.
            sleep(ms(20)).await;
            assert_eq!(wakes.get(), 0);
        });
    }

    fn dropping_sleeps_from_a_waker_does_not_deadlock() {
        // A waker that drops other timers when woken (the timer's lock must
        // not be held while waking).
        struct DropOnWake(std::sync::Mutex<Vec<Pin<Box<Sleep>>>>, Counter);
        impl Wake for DropOnWake {
            fn wake(self: Arc<Self>) {
                self.0.lock().unwrap().clear();
                self.1.inc();
            }
        }
        let rt = rt();
        rt.block_on(async {
            let wakes = Counter::new();
            let state = Arc::new(DropOnWake(std::sync::Mutex::new(Vec::new()), wakes.clone()));
            let waker = Waker::from(state.clone());
            for _ in 0..100 {
                let mut s = Box::pin(sleep(ms(2)));
                assert!(poll_once(s.as_mut(), &waker).is_pending());
                state.0.lock().unwrap().push(s);
            }
            sleep(ms(10)).await;
            assert!(wakes.get() >= 1);
            assert!(state.0.lock().unwrap().is_empty());
        });
    }

    fn far_future_deadlines_do_not_overflow() {
        let rt = rt();
        rt.block_on(async {
            let (waker, wakes) = counting_waker();
            let mut max = Box::pin(sleep(Duration::MAX));
            assert!(poll_once(max.as_mut(), &waker).is_pending());
            assert!(max.deadline() > Instant::now() + Duration::from_secs(20 * 365 * 86_400));
            let century = Instant::now() + Duration::from_secs(100 * 365 * 86_400);
            let mut far = Box::pin(sleep_until(century));
            // Its own waker: once reset to 1 ms below it may fire before the
            // `await` re-registers, which wakes whichever waker it holds.
            let (far_waker, _) = counting_waker();
            assert!(poll_once(far.as_mut(), &far_waker).is_pending());
            let mut years = Box::pin(sleep(Duration::from_secs(3 * 365 * 86_400)));
            assert!(poll_once(years.as_mut(), &waker).is_pending());
            // Near timers still fire around them.
            sleep(ms(2)).await;
            far.as_mut().reset(Instant::now() + ms(1));
            far.as_mut().await;
            assert!(!max.is_elapsed());
            assert!(!years.is_elapsed());
            assert_eq!(wakes.get(), 0);
        });
    }

    fn sleep_polled_on_another_thread_after_registration() {
        // Registered on a worker, then awaited by a plain thread: the wheel
        // it went into still fires it.
        let rt = rt();
        let mut s = {
            let _guard = rt.enter();
            Box::pin(sleep(ms(5)))
        };
        rt.block_on(async { assert!(futures::poll!(s.as_mut()).is_pending()) });
        let deadline = s.deadline();
        let waiter = thread::spawn(move || futures::executor::block_on(s));
        // Keep the runtime driven (a current-thread runtime only runs
        // inside `block_on`) until the waiter is done.
        rt.block_on(async move {
            tokiwa::task::spawn_blocking(move || waiter.join().unwrap())
                .await
                .unwrap();
        });
        assert!(std::time::Instant::now() >= deadline.into_std());
    }

    fn timer_from_outside_wakes_a_worker_sleeping_on_a_later_one() {
        // Every worker parks with a one-hour timeout; a short timer inserted
        // from a thread outside the runtime must wake one of them.
        let rt = rt();
        let handle = rt.handle().clone();
        rt.block_on(async move {
            for _ in 0..8 {
                tokiwa::spawn(sleep(Duration::from_secs(3600)));
            }
            let std_start = std::time::Instant::now();
            let waiter = thread::spawn(move || {
                let _guard = handle.enter();
                futures::executor::block_on(sleep(ms(10)));
            });
            // The runtime must be driven meanwhile (current-thread) without
            // any timer of its own near.
            tokiwa::task::spawn_blocking(move || waiter.join().unwrap()).await.unwrap();
            assert!(std_start.elapsed() >= ms(10));
        });
    }

    fn hundred_thousand_sleeps_complete() {
        let rt = rt();
        let fired = Counter::new();
        let f = fired.clone();
        rt.block_on(async move {
            let mut set = JoinSet::new();
            for i in 0..100_000u64 {
                let f = f.clone();
                set.spawn(async move {
                    let deadline = Instant::now() + Duration::from_micros(1_000 + (i * 7_919) % 20_000);
                    sleep_until(deadline).await;
                    assert!(Instant::now() >= deadline);
                    f.inc();
                });
            }
            while let Some(res) = set.join_next().await {
                res.unwrap();
            }
        });
        assert_eq!(fired.get(), 100_000);
    }

    fn polling_after_shutdown_panics_with_tokios_message() {
        quiet_panics(&["A Tokio 1.x context was found, but it is being shutdown."]);
        let rt = rt();
        let (waker, _) = counting_waker();
        let (mut pending, mut unpolled) = rt.block_on(async {
            let mut s = Box::pin(sleep(Duration::from_secs(3600)));
            assert!(futures::poll!(s.as_mut()).is_pending());
            (s, Box::pin(sleep(ms(1))))
        });
        drop(rt);
        for s in [&mut pending, &mut unpolled] {
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _ = poll_once(s.as_mut(), &waker);
            }))
            .unwrap_err();
            assert_eq!(
                panic_message(&*err),
                "A Tokio 1.x context was found, but it is being shutdown."
            );
        }
        // Resetting and dropping after shutdown are fine.
        pending.as_mut().reset(Instant::now() + ms(1));
        drop(pending);
        drop(unpolled);
    }

    fn concurrent_polls_resets_and_drops() {
        // Timers raced against each other, reset, handed between tasks
        // (and so between workers) and dropped while their wheels fire.
        let rt = rt();
        rt.block_on(async {
            let mut set = JoinSet::new();
            for t in 0..64u64 {
                set.spawn(async move {
                    let mut x = t.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    let mut rand = move |n: u64| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x % n
                    };
                    for _ in 0..20 {
                        let a = sleep(Duration::from_micros(rand(2_000)));
                        let b = sleep(Duration::from_micros(rand(2_000)));
                        tokiwa::select! {
                            _ = a => {}
                            _ = b => {}
                        }
                        let mut s = Box::pin(sleep(Duration::from_secs(60)));
                        let _ = futures::poll!(s.as_mut());
                        let deadline = Instant::now() + Duration::from_micros(rand(1_000));
                        // Another task resets and awaits it.
                        tokiwa::spawn(async move {
                            s.as_mut().reset(deadline);
                            s.as_mut().await;
                            assert!(Instant::now() >= deadline);
                        })
                        .await
                        .unwrap();
                        if rand(2) == 0 {
                            tokiwa::task::yield_now().await;
                        }
                    }
                });
            }
            while let Some(res) = set.join_next().await {
                res.unwrap();
            }
        });
    }

    fn sleep_is_send_sync_and_not_unpin() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        let rt = rt();
        rt.block_on(async {
            let s = sleep(ms(1));
            send_sync(&s);
            s.await;
        });
    }
}

#[test]
fn sleep_outside_a_runtime_panics_with_tokios_message() {
    quiet_panics(&["there is no reactor running"]);
    let err = std::panic::catch_unwind(|| {
        drop(sleep(ms(1)));
    })
    .unwrap_err();
    assert_eq!(
        panic_message(&*err),
        "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
    );
}

#[test]
fn sleep_without_timers_panics_with_tokios_message() {
    quiet_panics(&["A Tokio 1.x context was found, but timers are disabled"]);
    let rt = Builder::new_current_thread().build().unwrap();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            drop(sleep(ms(1)));
        })
    }))
    .unwrap_err();
    assert_eq!(
        panic_message(&*err),
        "A Tokio 1.x context was found, but timers are disabled. \
         Call `enable_time` on the runtime builder to enable timers."
    );
}

#[test]
fn sleep_created_in_one_runtime_awaited_in_another() {
    // The timer belongs to the runtime it was created in, whichever runtime
    // polls it.
    let a = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let b = Builder::new_current_thread().enable_all().build().unwrap();
    let s = {
        let _guard = a.enter();
        time::sleep(ms(5))
    };
    let deadline = s.deadline();
    b.block_on(s);
    assert!(Instant::now() >= deadline);
}

#[test]
fn timers_of_a_worker_stuck_in_a_long_poll_still_fire() {
    // A task registers a timer on its worker, then blocks that worker
    // until the timer's waker has run: only another (idle) worker can fire
    // it.
    for workers in [2, 4] {
        support::watchdog(support::TEST_TIMEOUT, move || {
            let rt = Builder::new_multi_thread()
                .worker_threads(workers)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                tokiwa::spawn(async {
                    let (tx, rx) = std::sync::mpsc::channel();
                    struct Send(std::sync::Mutex<std::sync::mpsc::Sender<()>>);
                    impl Wake for Send {
                        fn wake(self: Arc<Self>) {
                            let _ = self.0.lock().unwrap().send(());
                        }
                    }
                    let waker = Waker::from(Arc::new(Send(std::sync::Mutex::new(tx))));
                    let mut s = Box::pin(sleep(ms(5)));
                    assert!(poll_once(s.as_mut(), &waker).is_pending());
                    // Blocks this worker (a long poll), until the timer fires.
                    rx.recv_timeout(Duration::from_secs(30))
                        .expect("the timer of a blocked worker never fired");
                    assert!(std::time::Instant::now() >= s.deadline().into_std());
                    assert!(poll_once(s.as_mut(), &waker).is_ready());
                })
                .await
                .unwrap();
            });
        });
    }
}
