#![cfg(feature = "full")]
//! `AsyncFd` over a Unix socket pair: readiness, clearing, many waiters,
//! deregistration and descriptor reuse, peer close, runtime shutdown, and
//! tokio's panics outside a runtime. Every body runs on every flavour.

#[macro_use]
mod support;

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use support::panic_message;
use tokiwa::io::unix::AsyncFd;
use tokiwa::io::{Interest, Ready};

/// `AsyncFd::register`: sound here, each `AsyncFd` owns its socket.
fn reg(s: UnixStream) -> io::Result<AsyncFd<UnixStream>> {
    reg_with(s, Interest::READABLE | Interest::WRITABLE)
}

fn reg_with(s: UnixStream, interest: Interest) -> io::Result<AsyncFd<UnixStream>> {
    // SAFETY: the `AsyncFd` takes the socket, which owns its descriptor.
    Ok(unsafe { AsyncFd::register_with_interest(s, interest) }?)
}

fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// Reads everything available; `Ok(0)` at EOF.
fn drain(fd: &AsyncFd<UnixStream>) -> io::Result<usize> {
    let mut total = 0;
    let mut buf = [0u8; 4096];
    loop {
        match fd.get_ref().read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && total > 0 => return Ok(total),
            Err(e) => return Err(e),
        }
    }
}

/// Registers a new socket, yields once, and asserts that the write
/// readiness its registration raised is seen (tokio's `try_io_writable`).
async fn register_yield_and_check_writable(round: usize) {
    let (a, _b) = pair();
    let a = reg(a).unwrap();
    tokiwa::task::yield_now().await;
    let mut called = false;
    let _ = a.try_io(Interest::WRITABLE, |_| {
        called = true;
        Ok(())
    });
    assert!(called, "not writable after a yield (round {round})");
}

rt_test! {
    /// Out-of-band TCP data makes a descriptor registered for `PRIORITY`
    /// ready (`EPOLLPRI`), on both drivers, whether the urgent byte
    /// arrives before or after the registration.
    fn priority_readiness_on_out_of_band_data() {
        rt().block_on(async {
            for send_first in [false, true] {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
                client.set_nonblocking(true).unwrap();
                let (server, _) = listener.accept().unwrap();
                if send_first {
                    send_oob(&server, b"hello");
                }
                // SAFETY: the `AsyncFd` takes the socket, which owns its descriptor.
                let client =
                    unsafe { AsyncFd::register_with_interest(client, Interest::PRIORITY) }.unwrap();
                if !send_first {
                    send_oob(&server, b"hello");
                }
                let guard = client.ready(Interest::PRIORITY).await.unwrap();
                assert!(guard.ready().is_priority(), "{:?}", guard.ready());
            }
        });
    }

    fn readable_after_peer_writes_and_waits_again_after_clear() {
        rt().block_on(async {
            let (a, mut b) = pair();
            let a = reg(a).unwrap();
            // A fresh socket is writable, not readable.
            let mut guard = a.writable().await.unwrap();
            assert!(guard.ready().is_writable());
            guard.retain_ready();
            assert!(matches!(
                a.try_io(Interest::READABLE, |s| (&*s).read(&mut [0u8; 8])),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock
            ));

            b.write_all(b"hello").unwrap();
            let mut guard = a.readable().await.unwrap();
            let mut buf = [0u8; 16];
            let n = guard.try_io(|fd| fd.get_ref().read(&mut buf)).unwrap().unwrap();
            assert_eq!(&buf[..n], b"hello");
            // The socket is now empty: the next try_io clears the readiness.
            assert!(guard.try_io(|fd| fd.get_ref().read(&mut buf)).is_err());

            // A reader waiting now only wakes for new data.
            let reader = async {
                let mut guard = a.readable().await.unwrap();
                let n = guard.try_io(|fd| fd.get_ref().read(&mut buf)).unwrap().unwrap();
                buf[..n].to_vec()
            };
            let writer = async {
                tokiwa::task::yield_now().await;
                b.write_all(b"again").unwrap();
            };
            let (got, ()) = tokiwa::join!(reader, writer);
            assert_eq!(got, b"again");
        });
    }

    /// Readiness is what the descriptor has when a task waits for it, as
    /// epoll reports it, not what it had at registration: a socket filled
    /// behind the runtime's back (raw writes) right after its registration
    /// is not reported writable, however often the driver turns, until the
    /// peer drains it. (On io_uring a poll armed at registration completed
    /// at once with that moment's WRITABLE, reaped only later.) Run in a
    /// task so that it registers on a worker, where the poll used to be
    /// armed at once.
    fn write_readiness_filled_before_the_first_wait_is_not_reported() {
        rt().block_on(async {
            tokiwa::spawn(async {
                let (a, mut b) = pair();
                let a = reg(a).unwrap();
                let mut filled = 0;
                while let Ok(n) = a.get_ref().write(&[0; 512]) {
                    filled += n;
                }
                let mut write_ready =
                    std::future::poll_fn(|cx| a.poll_write_ready(cx).map(|r| r.map(drop)));
                for turn in 0..4 {
                    assert!(
                        futures::poll!(&mut write_ready).is_pending(),
                        "writable reported for a full socket (turn {turn})"
                    );
                    // Each yield lets the driver reap what it has.
                    tokiwa::task::yield_now().await;
                }
                let mut buf = [0u8; 4096];
                while filled > 0 {
                    filled -= b.read(&mut buf).unwrap();
                }
                write_ready.await.unwrap();
            })
            .await
            .unwrap();
        });
    }

    /// A socket registered, then a yield: its write readiness (raised by
    /// the registration itself) is seen after the yield, as in tokio's
    /// `try_io_writable`. Repeated, because a driver thread that takes
    /// the event from the worker's epoll and hands it over later (legacy
    /// mode's speculative direct wait) loses it only in a narrow window.
    fn write_readiness_of_a_new_registration_is_seen_after_a_yield() {
        rt().block_on(async {
            tokiwa::spawn(async {
                for round in 0..300 {
                    register_yield_and_check_writable(round).await;
                }
            })
            .await
            .unwrap();
        });
    }

    /// The same from a current-thread runtime's `block_on` future, as
    /// tokio's test runs (`#[tokio::test]`): there the yield queues no
    /// task, the thread's park finds the future woken and returns without
    /// sleeping, and that park's reap must see the readiness too. (A
    /// multi-thread runtime's `block_on` thread is no worker: nothing
    /// reaps between its yield and its next poll, in tokio as here.)
    fn write_readiness_of_a_new_registration_is_seen_after_a_yield_in_block_on() {
        if FLAVOR.is_multi_thread() {
            return;
        }
        // A runtime per round, as each of tokio's tests has: legacy mode's
        // poll thread guesses differently once its guesses have missed.
        for round in 0..300 {
            rt().block_on(register_yield_and_check_writable(round));
        }
    }

    fn async_io_retries_until_data_arrives() {
        rt().block_on(async {
            let (a, mut b) = pair();
            let a = Arc::new(reg_with(a, Interest::READABLE).unwrap());
            let reader = tokiwa::spawn({
                let a = a.clone();
                async move {
                    let mut buf = vec![0u8; 64];
                    let n = a
                        .async_io(Interest::READABLE, |s| (&*s).read(&mut buf))
                        .await
                        .unwrap();
                    buf.truncate(n);
                    buf
                }
            });
            tokiwa::task::yield_now().await;
            b.write_all(b"ping").unwrap();
            assert_eq!(reader.await.unwrap(), b"ping");
        });
    }

    fn many_tasks_wait_on_one_descriptor() {
        rt().block_on(async {
            let (a, mut b) = pair();
            let a = Arc::new(reg(a).unwrap());
            let waiters: Vec<_> = (0..16)
                .map(|_| {
                    let a = a.clone();
                    tokiwa::spawn(async move {
                        let guard = a.readable().await.unwrap();
                        guard.ready().is_readable()
                    })
                })
                .collect();
            for _ in 0..4 {
                tokiwa::task::yield_now().await;
            }
            b.write_all(b"x").unwrap();
            for waiter in waiters {
                assert!(waiter.await.unwrap());
            }
        });
    }

    fn peer_close_reports_read_closed_and_eof_repeatedly() {
        rt().block_on(async {
            let (a, b) = pair();
            let a = reg(a).unwrap();
            drop(b);
            let guard = a.ready(Interest::READABLE).await.unwrap();
            assert!(guard.ready().is_read_closed());
            for _ in 0..3 {
                assert_eq!(drain(&a).unwrap(), 0);
                let guard = a.readable().await.unwrap();
                assert!(guard.ready().is_readable());
            }
        });
    }

    fn clear_ready_matching_keeps_the_other_direction() {
        rt().block_on(async {
            let (a, mut b) = pair();
            b.write_all(b"data").unwrap();
            let a = reg(a).unwrap();
            let mut guard = a.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
            // Wait until both were reported.
            while !(guard.ready().is_readable() && guard.ready().is_writable()) {
                drop(guard);
                tokiwa::task::yield_now().await;
                guard = a.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
            }
            guard.clear_ready_matching(Ready::READABLE);
            assert!(!guard.ready().is_readable() && guard.ready().is_writable());
            drop(guard);
            // Writable is still set: this returns at once.
            let guard = a.writable().await.unwrap();
            assert!(guard.ready().is_writable());
        });
    }

    fn into_inner_deregisters_and_descriptor_numbers_are_reused_cleanly() {
        rt().block_on(async {
            let (a, mut b) = pair();
            let a = reg(a).unwrap();
            let raw = a.as_raw_fd();
            // Give the descriptor back and register it again.
            let a = reg(a.into_inner()).unwrap();
            assert_eq!(a.as_raw_fd(), raw);
            b.write_all(b"1").unwrap();
            drop(a.readable().await.unwrap());

            // Close it; the next socket likely gets the same number and must
            // start without the old readiness.
            drop(a);
            let (c, _d) = pair();
            let c = reg(c).unwrap();
            assert!(matches!(
                c.try_io(Interest::READABLE, |s| (&*s).read(&mut [0u8; 1])),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock
            ));
        });
    }

    /// A descriptor whose file cannot be polled (`/dev/null`, `/dev/zero`,
    /// a regular file on disk) is refused with epoll's `EPERM`, as tokio
    /// refuses it, on both drivers; a file that can be polled is accepted
    /// on both, even a regular one (`/proc/self/mounts`).
    fn descriptors_without_poll_support_are_refused_with_eperm() {
        rt().block_on(async {
            for path in ["/dev/null", "/dev/zero", "/proc/self/exe"] {
                let file = std::fs::File::open(path).unwrap();
                // SAFETY: the `AsyncFd` would own the file.
                let (_, err) = unsafe { AsyncFd::register(file) }
                    .map(drop)
                    .unwrap_err()
                    .into_parts();
                assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{path}: {err}");
            }
            let mounts = std::fs::File::open("/proc/self/mounts").unwrap();
            // SAFETY: the `AsyncFd` owns the file.
            let mounts = unsafe { AsyncFd::register_with_interest(mounts, Interest::READABLE) }
                .unwrap_or_else(|e| panic!("/proc/self/mounts can be polled: {e}"));
            // It always reads as readable.
            let mut guard = mounts.readable().await.unwrap();
            guard.retain_ready();
        });
    }

    /// Whatever `AsyncFd` accepts costs nothing while it idles: no worker
    /// spins re-arming a poll (a poll on a file without poll support
    /// completes at once, forever). Measured as the parks of the runtime's
    /// workers during a fixed idle wait.
    fn an_idle_registration_does_not_spin_a_worker() {
        let rt = rt();
        let metrics = rt.metrics();
        let parks = || {
            (0..metrics.num_workers())
                .map(|w| metrics.worker_park_count(w))
                .sum::<u64>()
        };
        let (pipe_read, _pipe_write) = std::io::pipe().unwrap();
        let accepted: Vec<AsyncFd<std::os::fd::OwnedFd>> = rt.block_on(async {
            let mut candidates: Vec<std::os::fd::OwnedFd> = Vec::new();
            for path in ["/dev/null", "/dev/zero", "/proc/self/mounts"] {
                candidates.push(std::fs::File::open(path).unwrap().into());
            }
            candidates.push(pipe_read.into());
            candidates
                .into_iter()
                // SAFETY: each `AsyncFd` owns its descriptor.
                .filter_map(|fd| unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok())
                .collect()
        });
        assert!(!accepted.is_empty(), "not even the pipe was accepted");
        // A turn for the registrations, then the idle wait.
        rt.block_on(tokiwa::task::yield_now());
        let before = parks();
        rt.block_on(async {
            tokiwa::time::sleep(std::time::Duration::from_millis(300)).await;
        });
        let during = parks() - before;
        assert!(
            during < 100,
            "{during} parks in 300 ms of idling with {} registrations",
            accepted.len()
        );
        drop(accepted);
    }

    fn resources_fail_once_their_runtime_is_gone() {
        let (a, _b) = pair();
        let first = rt();
        let a = first.block_on(async { reg(a).unwrap() });
        drop(first);
        let other = rt();
        let err = other.block_on(async { a.readable().await.map(|_| ()) }).unwrap_err();
        assert!(err.to_string().contains("being shutdown"), "{err}");
    }
}

#[test]
fn new_outside_a_runtime_panics_with_tokios_message() {
    let (a, _b) = pair();
    support::quiet_panics(&["there is no reactor running"]);
    let err = std::panic::catch_unwind(move || reg(a)).unwrap_err();
    assert_eq!(
        panic_message(&*err),
        "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
    );
}

#[test]
fn new_without_enable_io_panics_with_tokios_message() {
    let rt = tokiwa::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (a, _b) = pair();
    support::quiet_panics(&["IO is disabled"]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        rt.block_on(async move { reg(a) })
    }))
    .unwrap_err();
    assert!(panic_message(&*err).contains("Call `enable_io` on the runtime builder"));
}

/// Without `enable_io`, registering panics with tokio's message on every
/// driver, before anything looks at the descriptor: a descriptor that
/// cannot be polled (`/dev/null`) must not turn the panic into an `EPERM`
/// (tokio's `io_panic.rs` also checks that the panic is at the caller).
#[test]
fn without_enable_io_an_unpollable_descriptor_panics_at_the_caller() {
    support::quiet_panics(&["IO is disabled"]);
    for &driver in support::flavor::DRIVERS {
        let rt = tokiwa::runtime::Builder::new_current_thread()
            .driver(driver)
            .build()
            .unwrap();
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async {
                let null = std::fs::File::open("/dev/null").unwrap();
                // SAFETY: the `AsyncFd` would own the file.
                let _ = unsafe { AsyncFd::register(null) };
            })
        }))
        .expect_err("registering without enable_io must panic");
        assert!(
            panic_message(&*err).contains("Call `enable_io` on the runtime builder"),
            "{driver}: {}",
            panic_message(&*err)
        );
    }
}

#[test]
fn register_gives_the_object_back() {
    let rt = tokiwa::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    rt.block_on(async {
        // A regular file cannot join an epoll set: EPERM, object returned.
        let file = std::fs::File::open("/proc/self/exe").unwrap();
        let raw = file.as_raw_fd();
        let (file, err) = unsafe { AsyncFd::register(file) }.unwrap_err().into_parts();
        assert_eq!(file.as_raw_fd(), raw);
        assert_eq!(err.raw_os_error(), Some(libc::EPERM));
    });
}

/// A worker stuck in a long poll must not hold up readiness of the
/// descriptors registered with its driver: another worker serves them. In
/// legacy mode the stuck worker's poll thread (or a worker that looks at a
/// sleeping or stalled peer's epoll) reaps for it; in io_uring mode, where
/// only the ring's owner can reap it, another worker polls the stalled
/// ring's descriptors (`uring/rescue.rs`).
#[test]
fn readiness_reaches_another_worker_while_the_registering_one_is_stuck() {
    stuck_worker_does_not_hold_up_readiness(|| {
        tokiwa::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .driver(tokiwa::runtime::Driver::Legacy)
            .enable_all()
            .build()
            .ok()
    });
}

#[cfg(feature = "uring")]
#[test]
fn uring_readiness_reaches_another_worker_while_the_registering_one_is_stuck() {
    stuck_worker_does_not_hold_up_readiness(|| support::flavor::uring_or_skip(Some(2)));
}

fn stuck_worker_does_not_hold_up_readiness(runtime: fn() -> Option<tokiwa::runtime::Runtime>) {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::sync::mpsc;
    use std::time::Duration;
    support::watchdog(support::TEST_TIMEOUT, move || {
        let Some(rt) = runtime() else {
            return;
        };
        let stuck_over = Arc::new(AtomicBool::new(false));
        let (a, mut b) = pair();
        let (fd_tx, fd_rx) = mpsc::channel();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (seen_tx, seen_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        // The task that registers the descriptor (with its worker's
        // reactor) hands it over, waits until the reader runs elsewhere,
        // then stays stuck in a synchronous wait until the reader is done
        // (or 10 s, when the reader was not served meanwhile).
        rt.spawn({
            let stuck_over = stuck_over.clone();
            async move {
                fd_tx.send(reg(a).unwrap()).unwrap();
                started_rx.recv().unwrap();
                let _ = done_rx.recv_timeout(Duration::from_secs(10));
                stuck_over.store(true, SeqCst);
            }
        });
        let a = fd_rx.recv().unwrap();
        let metrics = rt.metrics();
        let parks = |m: &tokiwa::runtime::RuntimeMetrics| {
            (0..m.num_workers())
                .map(|i| m.worker_park_count(i))
                .sum::<u64>()
        };
        // Parks counted from here on come after the reader was spawned.
        let before = parks(&metrics);
        let reader = rt.spawn(async move {
            started_tx.send(()).unwrap();
            seen_tx.send(()).unwrap();
            let guard = a.readable().await.unwrap();
            assert!(guard.ready().is_readable());
            !stuck_over.load(SeqCst)
        });
        // Write only once the free worker has parked: then nothing spins on
        // the stuck worker's reactor, and its poll thread must step in.
        seen_rx.recv().unwrap();
        support::wait_until(Duration::from_secs(5), "the free worker parks", || {
            parks(&metrics) > before
        });
        b.write_all(b"x").unwrap();
        let served_while_stuck = rt.block_on(reader).unwrap();
        done_tx.send(()).unwrap();
        assert!(served_while_stuck);
    });
}

/// Sends `data` with `MSG_OOB`: its last byte is TCP urgent data.
fn send_oob(stream: &std::net::TcpStream, data: &[u8]) {
    // SAFETY: the descriptor is open (borrowed from `stream`) and `data`
    // is valid for `data.len()` bytes.
    let sent = unsafe {
        libc::send(
            stream.as_raw_fd(),
            data.as_ptr().cast(),
            data.len(),
            libc::MSG_OOB,
        )
    };
    assert_eq!(sent, data.len() as isize, "{}", io::Error::last_os_error());
}
