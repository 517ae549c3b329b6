#![cfg(feature = "full")]
//! `signal::unix::signal` out of descriptors: it fails with the kernel's
//! `EMFILE` (`raw_os_error` intact), and once descriptors are free again it
//! succeeds and the listener is woken by a delivery. Nothing of the failure
//! is remembered.
//!
//! The signal registry's process-wide state (its eventfd) is created by
//! the first `signal` call of the process, and that first call is the one
//! that must fail and then recover. So each driver's case runs in a child
//! process of this binary (`support::child`), in which nothing registered a
//! signal before; the descriptor limit being per process too, the binary
//! holds this one test.

#[macro_use]
mod support;

use support::child::run_child_case;
use support::fds::Exhausted;
use support::flavor::driver_named;
use support::{Flavor, DRIVERS, TEST_TIMEOUT};
use tokiwa::runtime::Driver;
use tokiwa::signal::unix::{signal, SignalKind};

/// The driver whose case [`signal_at_emfile_fails_then_recovers`] runs in
/// a child process.
const CHILD_CASE: &str = "TOKIWA_SIGNAL_EMFILE_CHILD_CASE";
const TEST_NAME: &str = "signal_at_emfile_fails_then_recovers";

/// The child's body: the process's first `signal` call fails, a later one
/// works, on each scheduler in turn (the second scheduler's calls find the
/// registry's state in place and fail duplicating its eventfd).
fn child_case(driver: Driver) {
    for flavor in [Flavor::current_thread(), Flavor::multi_thread(2)] {
        let rt = flavor.on(driver).build();
        rt.block_on(async {
            let fillers = Exhausted::new();
            for _ in 0..2 {
                let err = signal(SignalKind::user_defined1()).unwrap_err();
                assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err:?}");
            }
            drop(fillers);

            let mut listener =
                signal(SignalKind::user_defined1()).expect("descriptors are free again");
            let (waiting_tx, waiting_rx) = tokiwa::sync::oneshot::channel::<()>();
            let waiter = tokiwa::spawn(async move {
                waiting_tx.send(()).unwrap();
                listener.recv().await
            });
            waiting_rx.await.unwrap();
            // Process-directed, from a thread outside the runtime: the
            // listener learns of it through its eventfd's readiness.
            std::thread::spawn(|| {
                // SAFETY: plain syscalls; the handler is installed.
                assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGUSR1) }, 0);
            })
            .join()
            .unwrap();
            let received = tokiwa::time::timeout(TEST_TIMEOUT, waiter)
                .await
                .expect("the delivery wakes the listener");
            assert_eq!(received.unwrap(), Some(()), "{flavor}");
        });
    }
}

#[test]
fn signal_at_emfile_fails_then_recovers() {
    match std::env::var(CHILD_CASE) {
        Ok(case) => support::watchdog(TEST_TIMEOUT, move || {
            child_case(driver_named(&case));
            println!("child case {case}: ok");
        }),
        Err(_) => support::watchdog(TEST_TIMEOUT * 2, || {
            for driver in DRIVERS {
                run_child_case(TEST_NAME, CHILD_CASE, &driver.to_string(), &[]);
            }
        }),
    }
}
