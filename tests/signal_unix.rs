#![cfg(feature = "full")]
//! `tokiwa::signal`: signals the test process sends itself reach every
//! listener once, coalesce per listener, reach a listener created just
//! after them but are not replayed once a runtime turn has seen them, wake a waiting listener through the I/O driver
//! (both drivers), and `ctrl_c` completes on `SIGINT`. Forbidden signals
//! are refused with tokio's text.
//!
//! The handlers are process-wide, so the tests take one lock: a signal one
//! test raises would otherwise count for another's listener.

#[macro_use]
mod support;

use std::future::Future;
use std::pin::pin;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use tokiwa::signal::unix::{signal, Signal, SignalKind};

fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Delivers `kind` to the calling thread; its handler has run when this
/// returns (`raise` is synchronous for an unblocked signal).
fn raise(kind: SignalKind) {
    // SAFETY: plain syscall; the handler is installed (a listener exists).
    assert_eq!(unsafe { libc::raise(kind.as_raw_value()) }, 0);
}

/// Whether the listener has a delivery ready now, without waiting.
fn has_delivery(listener: &mut Signal) -> bool {
    let mut cx = Context::from_waker(Waker::noop());
    match listener.poll_recv(&mut cx) {
        Poll::Ready(Some(())) => true,
        Poll::Pending => false,
        Poll::Ready(None) => panic!("the runtime is gone"),
    }
}

rt_test! {
    fn a_delivery_reaches_the_listener_and_is_reported_once() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut listener = signal(SignalKind::user_defined1()).unwrap();
            assert!(!has_delivery(&mut listener));
            raise(SignalKind::user_defined1());
            assert_eq!(listener.recv().await, Some(()));
            assert!(!has_delivery(&mut listener));
        });
    }

    fn every_listener_sees_every_delivery() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut a = signal(SignalKind::user_defined2()).unwrap();
            let mut b = signal(SignalKind::user_defined2()).unwrap();
            for _ in 0..3 {
                raise(SignalKind::user_defined2());
                assert_eq!(a.recv().await, Some(()));
                assert_eq!(b.recv().await, Some(()));
                assert!(!has_delivery(&mut a) && !has_delivery(&mut b));
            }
        });
    }

    fn deliveries_between_receives_coalesce() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut listener = signal(SignalKind::window_change()).unwrap();
            raise(SignalKind::window_change());
            raise(SignalKind::window_change());
            raise(SignalKind::window_change());
            assert_eq!(listener.recv().await, Some(()));
            assert!(!has_delivery(&mut listener));
            raise(SignalKind::window_change());
            assert_eq!(listener.recv().await, Some(()));
        });
    }

    fn a_delivery_a_runtime_turn_has_seen_is_not_replayed() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut early = signal(SignalKind::hangup()).unwrap();
            raise(SignalKind::hangup());
            // A yielded task runs again only after its worker polled the
            // driver: that turn has seen the delivery.
            tokiwa::spawn(tokiwa::task::yield_now()).await.unwrap();
            let mut late = signal(SignalKind::hangup()).unwrap();
            assert!(!has_delivery(&mut late));
            assert_eq!(early.recv().await, Some(()));
            raise(SignalKind::hangup());
            assert_eq!(late.recv().await, Some(()));
        });
    }

    fn a_signal_from_another_thread_wakes_a_waiting_listener() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut listener = signal(SignalKind::user_defined1()).unwrap();
            let (waiting_tx, waiting_rx) = tokiwa::sync::oneshot::channel::<()>();
            let waiter = tokiwa::spawn(async move {
                waiting_tx.send(()).unwrap();
                listener.recv().await
            });
            waiting_rx.await.unwrap();
            // Process-directed: any thread may run the handler; the
            // listener learns of it only through its eventfd's readiness.
            std::thread::spawn(|| {
                // SAFETY: plain syscalls; the handler is installed.
                assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGUSR1) }, 0);
            })
            .join()
            .unwrap();
            assert_eq!(waiter.await.unwrap(), Some(()));
        });
    }

    fn ctrl_c_completes_on_sigint() {
        let _one = one_at_a_time();
        rt().block_on(async {
            let mut ctrl_c = pin!(tokiwa::signal::ctrl_c());
            // The first poll installs the handler and the listener.
            let mut cx = Context::from_waker(Waker::noop());
            assert!(ctrl_c.as_mut().poll(&mut cx).is_pending());
            raise(SignalKind::interrupt());
            ctrl_c.await.unwrap();
        });
    }

    fn a_listener_reports_none_once_its_runtime_is_gone() {
        let _one = one_at_a_time();
        let rt = rt();
        let mut listener = rt.block_on(async { signal(SignalKind::alarm()).unwrap() });
        drop(rt);
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(listener.poll_recv(&mut cx), Poll::Ready(None));
    }

    fn forbidden_and_invalid_signals_are_refused() {
        rt().block_on(async {
            for signum in [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, libc::SIGILL, libc::SIGFPE, 0, -1] {
                let err = signal(SignalKind::from_raw(signum)).unwrap_err();
                assert_eq!(err.to_string(), format!("Refusing to register signal {signum}"));
            }
            assert!(signal(SignalKind::from_raw(1000)).is_err());
        });
    }
}

/// tokio's `drop_then_get_a_signal`: with no runtime turn between the
/// delivery and `signal()`, the new listener sees it, as with tokio, whose
/// driver hands deliveries to the listeners that exist at its next turn.
/// On a current-thread runtime nothing turns between the two lines (on a
/// multi-thread one an idle worker's park could, as tokio's driver could).
#[test]
fn a_delivery_just_before_listening_reaches_the_new_listener() {
    let _one = one_at_a_time();
    for &driver in support::DRIVERS {
        support::watchdog(support::TEST_TIMEOUT, move || {
            support::Flavor::current_thread()
                .on(driver)
                .build()
                .block_on(async {
                    drop(signal(SignalKind::user_defined1()).unwrap());
                    raise(SignalKind::user_defined1());
                    let mut late = signal(SignalKind::user_defined1()).unwrap();
                    assert_eq!(late.recv().await, Some(()));
                    assert!(!has_delivery(&mut late));
                });
        });
    }
}

#[test]
fn signal_kinds_round_trip_through_their_numbers() {
    assert_eq!(SignalKind::interrupt().as_raw_value(), libc::SIGINT);
    assert_eq!(SignalKind::terminate().as_raw_value(), libc::SIGTERM);
    assert_eq!(SignalKind::from(libc::SIGHUP), SignalKind::hangup());
    assert_eq!(libc::c_int::from(SignalKind::child()), libc::SIGCHLD);
}
