#![cfg(all(feature = "full", feature = "uring"))]
//! io_uring mode against the kernel: the ring's setup flags, no poll
//! threads, the driver choice (builder, `TOKIWA_DRIVER`), and injected
//! faults: `EINTR` in `io_uring_enter`, a terminated wake poll, thousands
//! of sockets on one ring (full SQ, CQ overflow), resources dropped away
//! from the ring that polls them, shutdown with operations in flight, and
//! a core moved by `block_in_place`.
//!
//! The tests count the process's threads and descriptors, so they run one
//! at a time ([`run_alone`]). The ring refused by seccomp is in
//! `uring_seccomp.rs`: the kernel probe is cached per process.

#[macro_use]
mod support;

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::sync::{mpsc as std_mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use support::{wait_until, within, TEST_TIMEOUT};
use tokiwa::io::unix::AsyncFd;
use tokiwa::io::AsyncReadExt;
use tokiwa::net::{TcpListener, TcpStream, UnixStream};
use tokiwa::runtime::{Builder, Driver, Handle, Runtime};

/// `io_uring_params.flags` bits (`include/uapi/linux/io_uring.h`).
const IORING_SETUP_TASKRUN_FLAG: u32 = 1 << 9;
const IORING_SETUP_SINGLE_ISSUER: u32 = 1 << 12;
const IORING_SETUP_DEFER_TASKRUN: u32 = 1 << 13;

/// How long a state published by another thread (a metric, a thread that
/// starts or exits, a descriptor closed by a worker) may take to show.
const SETTLE: Duration = Duration::from_secs(20);

/// Runs a test body under a watchdog, one at a time: the tests of this
/// binary count process-wide threads and descriptors, and one of them holds
/// 10,000 descriptors. The lock is taken on the body's thread, so a body
/// that hangs keeps the others out instead of running beside them.
fn run_alone(limit: Duration, body: impl FnOnce() + Send + 'static) {
    static SERIAL: Mutex<()> = Mutex::new(());
    support::watchdog(limit, move || {
        let _serial = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        body()
    });
}

fn uring(workers: usize) -> Runtime {
    runtime(Driver::Uring, workers)
}

/// A runtime on `driver`: current-thread for 0 workers.
fn runtime(driver: Driver, workers: usize) -> Runtime {
    let mut builder = if workers == 0 {
        Builder::new_current_thread()
    } else {
        let mut b = Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    let rt = builder.driver(driver).enable_all().build().unwrap();
    assert_eq!(rt.handle().driver(), driver);
    rt
}

/// The names (`comm`) of the process's threads.
fn thread_names() -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").unwrap() {
        // A thread can exit while the directory is read.
        let Ok(entry) = entry else { continue };
        if let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) {
            names.push(comm.trim_end().to_owned());
        }
    }
    names
}

fn count_threads(name: &str) -> usize {
    thread_names().iter().filter(|n| *n == name).count()
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn gettid() -> i32 {
    // SAFETY: `gettid` takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

/// Whether thread `tid` of this process is blocked in `io_uring_enter`
/// (`/proc/<pid>/task/<tid>/syscall` starts with the number of the system
/// call the thread sleeps in).
fn in_io_uring_enter(tid: i32) -> bool {
    let path = format!("/proc/self/task/{tid}/syscall");
    std::fs::read_to_string(path)
        .is_ok_and(|s| s.split(' ').next() == Some(&libc::SYS_io_uring_enter.to_string()))
}

/// The thread id of worker `worker` (found by running tasks until one
/// lands on it).
fn worker_tid(rt: &Runtime, worker: usize) -> i32 {
    for _ in 0..10_000 {
        let (index, tid) = rt
            .block_on(rt.spawn(async { (tokiwa::runtime::worker_index(), gettid()) }))
            .unwrap();
        if index == Some(worker) {
            return tid;
        }
    }
    panic!("no task ran on worker {worker}");
}

/// A connected pair: a registered tokiwa stream and a blocking std peer
/// whose reads give up after `TEST_TIMEOUT` (a missing EOF fails instead of
/// hanging).
fn pair() -> (UnixStream, StdUnixStream) {
    let (ours, peer) = StdUnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    peer.set_read_timeout(Some(TEST_TIMEOUT)).unwrap();
    (UnixStream::from_std(ours).unwrap(), peer)
}

/// Reads `peer` until EOF; fails if data or a timeout comes instead.
///
/// `EINTR` is retried: a read with a timeout (`SO_RCVTIMEO`) is never
/// restarted by the kernel, and the teardown of an io_uring instance this
/// thread once submitted to (the kernel probe runs on the thread that
/// builds the first runtime) interrupts it with task work.
#[track_caller]
fn assert_eof(peer: &mut StdUnixStream) {
    let mut buf = [0u8; 16];
    loop {
        match peer.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => panic!("expected EOF, read {n} bytes"),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("expected EOF, got {e} (the socket was not closed)"),
        }
    }
}

#[test]
fn rings_run_with_single_issuer_defer_taskrun_and_taskrun_flag() {
    run_alone(TEST_TIMEOUT, || {
        let all =
            IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
        for workers in [0, 3] {
            let rt = uring(workers);
            let metrics = rt.metrics();
            for worker in 0..metrics.num_workers() {
                let flags = metrics.__worker_ring_setup_flags(worker).unwrap();
                assert_eq!(flags & all, all, "worker {worker}: flags {flags:#x}");
            }
        }
        // The benchmark's ablation: the single issuer only.
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .driver(Driver::Uring)
            .uring_defer_taskrun(false)
            .enable_all()
            .build()
            .unwrap();
        for worker in 0..2 {
            let flags = rt.metrics().__worker_ring_setup_flags(worker).unwrap();
            assert_eq!(flags & all, IORING_SETUP_SINGLE_ISSUER, "flags {flags:#x}");
        }
        // And it runs: a timer and a socket.
        rt.block_on(async {
            tokiwa::time::sleep(Duration::from_millis(1)).await;
            let (mut ours, mut peer) = pair();
            peer.write_all(b"x").unwrap();
            let mut buf = [0u8; 1];
            ours.read_exact(&mut buf).await.unwrap();
        });
        // Legacy mode has no ring.
        let rt = Builder::new_current_thread()
            .driver(Driver::Legacy)
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(rt.metrics().__worker_ring_setup_flags(0), None);
    });
}

/// Registers a listener and a few connections on every worker's driver and
/// echoes through them.
fn tcp_traffic(rt: &Runtime) {
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokiwa::spawn(async move {
            for _ in 0..8 {
                let (mut socket, _) = listener.accept().await.unwrap();
                tokiwa::spawn(async move {
                    let (mut r, mut w) = socket.split();
                    tokiwa::io::copy(&mut r, &mut w).await.unwrap();
                });
            }
        });
        let mut clients = Vec::new();
        for i in 0..8u8 {
            clients.push(tokiwa::spawn(async move {
                use tokiwa::io::AsyncWriteExt;
                let mut s = TcpStream::connect(addr).await.unwrap();
                s.write_all(&[i; 3]).await.unwrap();
                let mut back = [0u8; 3];
                s.read_exact(&mut back).await.unwrap();
                assert_eq!(back, [i; 3]);
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        server.await.unwrap();
    });
}

#[test]
fn uring_mode_starts_no_poll_threads() {
    run_alone(TEST_TIMEOUT, || {
        // Names unique in this process, short enough for `comm` (15 bytes)
        // also as the poll threads' `poll-N-<name>`.
        let is_poll_of =
            |name: &str, n: &str| n.starts_with("poll-") && n.ends_with(&format!("-{name}"));
        for (driver, name) in [(Driver::Uring, "ur-np"), (Driver::Legacy, "lg-np")] {
            assert_eq!(count_threads(name), 0);
            let rt = Builder::new_multi_thread()
                .worker_threads(4)
                .thread_name(name)
                .driver(driver)
                .enable_all()
                .build()
                .unwrap();
            assert_eq!(rt.handle().driver(), driver);
            tcp_traffic(&rt);
            wait_until(SETTLE, "the 4 workers to start", || {
                count_threads(name) == 4
            });
            let polls = || {
                thread_names()
                    .into_iter()
                    .filter(|n| is_poll_of(name, n))
                    .count()
            };
            match driver {
                Driver::Uring => {
                    assert_eq!(polls(), 0, "{:?}", thread_names());
                    // Nothing else starts later either: one more round of
                    // I/O, then the same threads.
                    tcp_traffic(&rt);
                    assert_eq!(count_threads(name), 4);
                    assert_eq!(polls(), 0);
                }
                _ => wait_until(SETTLE, "one poll thread per worker (legacy)", || {
                    polls() == 4
                }),
            }
            drop(rt);
            wait_until(SETTLE, "the runtime's threads to exit", || {
                count_threads(name) == 0 && polls() == 0
            });
        }
    });
}

#[test]
fn driver_reports_what_runs() {
    run_alone(TEST_TIMEOUT, || {
        for (asked, runs) in [
            (Driver::Uring, Driver::Uring),
            (Driver::Auto, Driver::Uring),
            (Driver::Legacy, Driver::Legacy),
        ] {
            for multi in [false, true] {
                let mut builder = if multi {
                    Builder::new_multi_thread()
                } else {
                    Builder::new_current_thread()
                };
                let rt = builder.driver(asked).enable_all().build().unwrap();
                assert_eq!(rt.handle().driver(), runs, "asked for {asked}");
                assert_eq!(rt.handle().driver_fallback_reason(), None);
                assert_eq!(rt.block_on(async { Handle::current().driver() }), runs);
            }
        }
    });
}

/// Which case of [`environment_child`] the child process runs.
const CHILD_CASE: &str = "TOKIWA_URING_TEST_CHILD_CASE";

/// The body of the child processes of
/// [`environment_variable_decides_unless_the_builder_does`]; a no-op in a
/// normal run.
#[test]
fn environment_child() {
    let Ok(case) = std::env::var(CHILD_CASE) else {
        return;
    };
    let build = |driver: Option<Driver>| {
        let mut builder = Builder::new_current_thread();
        if let Some(driver) = driver {
            builder.driver(driver);
        }
        builder.enable_all().build()
    };
    match case.as_str() {
        "legacy" => {
            assert_eq!(build(None).unwrap().handle().driver(), Driver::Legacy);
            let rt = Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            assert_eq!(rt.handle().driver(), Driver::Legacy);
            // The builder's choice wins over the variable.
            assert_eq!(
                build(Some(Driver::Uring)).unwrap().handle().driver(),
                Driver::Uring
            );
            assert_eq!(
                build(Some(Driver::Auto)).unwrap().handle().driver(),
                Driver::Uring
            );
        }
        "uring" => {
            assert_eq!(build(None).unwrap().handle().driver(), Driver::Uring);
            assert_eq!(
                build(Some(Driver::Legacy)).unwrap().handle().driver(),
                Driver::Legacy
            );
        }
        "bogus" => {
            let err = build(None).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            let msg = err.to_string();
            assert!(
                msg.contains("TOKIWA_DRIVER") && msg.contains("bogus"),
                "{msg}"
            );
            // An explicit choice never reads the variable.
            assert_eq!(
                build(Some(Driver::Legacy)).unwrap().handle().driver(),
                Driver::Legacy
            );
            assert_eq!(
                build(Some(Driver::Uring)).unwrap().handle().driver(),
                Driver::Uring
            );
        }
        // `support::flavor::uring_unavailable`, as a test that cannot have
        // io_uring calls it before it skips.
        "skip_shown" => support::flavor::uring_unavailable(&"refused by the test"),
        "skip_fails" => {
            support::quiet_panics(&["io_uring mode unavailable"]);
            let skipped = std::panic::catch_unwind(|| {
                support::flavor::uring_unavailable(&"refused by the test")
            });
            let message = support::panic_message(&*skipped.expect_err("the skip passed"));
            assert!(message.contains("TOKIWA_REQUIRE_URING=1"), "{message}");
        }
        other => panic!("unknown case {other}"),
    }
    println!("child case {case}: ok");
}

/// A test that skips for want of io_uring says so, and fails instead when
/// `TOKIWA_REQUIRE_URING=1` (CI, on a kernel that has io_uring).
#[test]
fn a_skip_for_want_of_io_uring_is_shown_or_fails_when_required() {
    run_alone(TEST_TIMEOUT, || {
        for (case, value) in [("skip_shown", None), ("skip_fails", Some("1"))] {
            support::child::run_child_case(
                "environment_child",
                CHILD_CASE,
                case,
                &[(support::flavor::REQUIRE_URING, value)],
            );
        }
    });
}

#[test]
fn environment_variable_decides_unless_the_builder_does() {
    run_alone(TEST_TIMEOUT, || {
        for (value, case) in [("legacy", "legacy"), ("URING", "uring"), ("bogus", "bogus")] {
            support::child::run_child_case(
                "environment_child",
                CHILD_CASE,
                case,
                &[("TOKIWA_DRIVER", Some(value))],
            );
        }
    });
}

extern "C" fn ignore_signal(_: libc::c_int) {}

#[test]
fn eintr_in_the_ring_wait_is_retried() {
    run_alone(TEST_TIMEOUT, || {
        // A handler without `SA_RESTART`: the signal makes a blocked
        // `io_uring_enter` fail with `EINTR`.
        // SAFETY: `action` is fully initialised; the handler does nothing,
        // so it is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = ignore_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = 0;
            libc::sigemptyset(&mut action.sa_mask);
            assert_eq!(
                libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()),
                0
            );
        }
        let rt = uring(1);
        let tid = worker_tid(&rt, 0);
        let metrics = rt.metrics();
        // A timer in flight across the interruptions.
        let start = Instant::now();
        let (timer_tx, timer_rx) = std_mpsc::channel();
        rt.spawn(async move {
            tokiwa::time::sleep(Duration::from_millis(300)).await;
            timer_tx.send(start.elapsed()).unwrap();
        });
        for _ in 0..10 {
            wait_until(SETTLE, "the worker to sleep in io_uring_enter", || {
                in_io_uring_enter(tid)
            });
            let parks = metrics.worker_park_count(0);
            // SAFETY: a plain syscall on a thread of this process, which
            // has a handler for the signal.
            let rc = unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, libc::SIGUSR1) };
            assert_eq!(rc, 0);
            // The interrupted wait ended like a spurious wakeup and the
            // worker parked again.
            wait_until(SETTLE, "the worker to park again after EINTR", || {
                metrics.worker_park_count(0) > parks
            });
        }
        // The timer fired, not early, and the worker is still reachable.
        let fired_after = timer_rx.recv_timeout(TEST_TIMEOUT).unwrap();
        assert!(fired_after >= Duration::from_millis(300), "{fired_after:?}");
        for i in 0..20 {
            assert_eq!(rt.block_on(rt.spawn(async move { i * 2 })).unwrap(), i * 2);
        }
        rt.block_on(async {
            tokiwa::time::sleep(Duration::from_millis(5)).await;
        });
    });
}

#[test]
fn terminated_wake_poll_is_rearmed() {
    run_alone(TEST_TIMEOUT, || {
        let rt = uring(1);
        let tid = worker_tid(&rt, 0);
        let metrics = rt.metrics();
        let rounds = 3;
        for round in 0..rounds {
            // The wake poll is armed before the worker's first sleep: end
            // it only once it is in the kernel.
            wait_until(SETTLE, "the worker to sleep in io_uring_enter", || {
                in_io_uring_enter(tid)
            });
            let ended = rt
                .block_on(rt.spawn(async { tokiwa::runtime::__end_wake_poll_of_current_worker() }))
                .unwrap();
            assert!(ended, "the hook found no ring");
            // Each wake below reaches a worker asleep in its ring, so only
            // the eventfd (through the re-armed poll) can wake it.
            for i in 0..20 {
                wait_until(SETTLE, "the worker to sleep in io_uring_enter", || {
                    in_io_uring_enter(tid)
                });
                let (tx, rx) = std_mpsc::channel();
                rt.spawn(async move { tx.send(i).unwrap() });
                assert_eq!(
                    rx.recv_timeout(TEST_TIMEOUT),
                    Ok(i),
                    "round {round}, wake {i}"
                );
            }
            assert!(
                metrics.worker_wake_poll_rearm_count(0) > round,
                "round {round}: {} re-arms",
                metrics.worker_wake_poll_rearm_count(0)
            );
        }
        assert!(metrics.worker_eventfd_write_count(0) >= rounds * 20);
    });
}

#[test]
fn five_thousand_pairs_on_one_ring_all_seen() {
    run_alone(TEST_TIMEOUT * 2, || {
        const PAIRS: usize = 5_000;
        support::net::raise_nofile_limit();
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a live, writable `rlimit`.
        assert_eq!(
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
            0
        );
        // Both ends, plus the duplicates that registrations made off the
        // worker hold until the worker submits them.
        let needed = open_fds() + 3 * PAIRS + 500;
        if (limit.rlim_cur as usize) < needed {
            println!(
                "skipped: RLIMIT_NOFILE is {}, this test needs {needed} descriptors",
                limit.rlim_cur
            );
            return;
        }
        let rt = uring(1);
        let metrics = rt.metrics();
        let cqes_before = metrics.worker_cqe_count(0);
        // Registered from this thread, off the worker: thousands of poll
        // requests that the worker pushes in one go, through a submission
        // queue of 256.
        let (ours, peers): (Vec<_>, Vec<_>) = {
            let _guard = rt.enter();
            (0..PAIRS).map(|_| pair()).unzip()
        };
        let (ready_tx, ready_rx) = std_mpsc::channel();
        let tasks: Vec<_> = ours
            .into_iter()
            .enumerate()
            .map(|(i, stream)| {
                let ready_tx = ready_tx.clone();
                rt.spawn(async move {
                    ready_tx.send(()).unwrap();
                    stream.readable().await.unwrap();
                    let mut buf = [0u8; 2];
                    let n = stream.try_read(&mut buf).unwrap();
                    assert_eq!(&buf[..n], &[(i % 251) as u8], "pair {i}");
                })
            })
            .collect();
        for _ in 0..PAIRS {
            ready_rx.recv_timeout(TEST_TIMEOUT).unwrap();
        }
        // Every socket becomes readable at once: far more completions than
        // the CQ's 1,024 entries.
        let writer = thread::spawn(move || {
            for (i, mut peer) in peers.iter().enumerate() {
                peer.write_all(&[(i % 251) as u8]).unwrap();
            }
            peers
        });
        let peers = writer.join().unwrap();
        rt.block_on(async {
            for task in tasks {
                task.await.unwrap();
            }
        });
        assert!(metrics.worker_cqe_count(0) - cqes_before >= PAIRS as u64);
        drop(rt);
        drop(peers);
    });
}

/// A descriptor an `AsyncFd` borrows: dropping it closes nothing.
struct Borrowed(std::os::fd::RawFd);

impl std::os::fd::AsRawFd for Borrowed {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.0
    }
}

/// How long a peer waits for an EOF that must come at once (the close is
/// synchronous; the margin is for a loaded CI machine).
const AT_ONCE: Duration = Duration::from_secs(5);

/// [`assert_eof`] within [`AT_ONCE`]: the socket must already be closed.
#[track_caller]
fn assert_eof_now(peer: &mut StdUnixStream) {
    peer.set_read_timeout(Some(AT_ONCE)).unwrap();
    assert_eof(peer);
    peer.set_read_timeout(Some(TEST_TIMEOUT)).unwrap();
}

/// Fails unless a connection to `addr` is refused now (nothing listens).
#[track_caller]
fn assert_refused(addr: std::net::SocketAddr) {
    match std::net::TcpStream::connect_timeout(&addr, AT_ONCE) {
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
        Err(e) => panic!("connecting to {addr}: {e}, expected a refusal"),
        Ok(_) => panic!("{addr} still accepts connections: the dropped listener is open"),
    }
}

/// Resources dropped away from the driver thread that polls them close at
/// once, on both drivers (legacy mode's epoll holds no reference to a
/// file; io_uring mode's polls do, see `uring/close.rs`).
#[test]
fn resources_dropped_away_from_their_ring_close() {
    run_alone(TEST_TIMEOUT, || {
        for &driver in support::DRIVERS {
            dropped_away_from_their_driver(driver);
        }
    });
}

fn dropped_away_from_their_driver(driver: Driver) {
    let baseline = open_fds();
    let rt = runtime(driver, 2);
    // (a) Registered on worker X (a stream and a listener, their polls
    // armed by the yield, which gives X a turn), dropped on worker Y
    // while X is busy in a task: closed at once, not when X gets to
    // the cancel (a peer waiting for the EOF before it lets X go would
    // deadlock).
    // So is an `AsyncFd` whose object closes its descriptor, while one
    // whose object does not (a borrowed descriptor) leaves the socket
    // to its owner.
    let (to_test, from_x) = std_mpsc::channel();
    let (release_x, x_blocked) = std_mpsc::channel::<()>();
    let (kept, kept_peer) = StdUnixStream::pair().unwrap();
    kept.set_nonblocking(true).unwrap();
    kept_peer.set_nonblocking(true).unwrap();
    let kept_fd = kept.as_raw_fd();
    // A port bound explicitly (the kernel then keeps it with the socket
    // until the socket's file is released, not just closed).
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let x_task = rt.spawn(async move {
        let (ours, peer) = pair();
        let listener = TcpListener::bind(addr).await.unwrap();
        let (owned, owned_peer) = StdUnixStream::pair().unwrap();
        owned.set_nonblocking(true).unwrap();
        owned_peer.set_read_timeout(Some(TEST_TIMEOUT)).unwrap();
        // SAFETY: the `AsyncFd` owns the socket.
        let owned = unsafe { AsyncFd::register(owned) }.unwrap();
        // SAFETY: `kept` outlives the `AsyncFd` (dropped below, before
        // `kept`), and nothing else closes it.
        let borrowed = unsafe { AsyncFd::register(Borrowed(kept_fd)) }.unwrap();
        tokiwa::task::yield_now().await;
        let x = tokiwa::runtime::worker_index().unwrap();
        let dropped = (ours, listener, owned, borrowed);
        to_test.send((x, dropped, peer, owned_peer, addr)).unwrap();
        // Holds worker X, so the next task runs on the other one.
        x_blocked.recv().unwrap();
    });
    let (x, dropped, mut peer, mut owned_peer, addr) = from_x.recv_timeout(TEST_TIMEOUT).unwrap();
    let y = rt
        .block_on(rt.spawn(async move {
            drop(dropped);
            tokiwa::runtime::worker_index().unwrap()
        }))
        .unwrap();
    assert_ne!(x, y);
    // X is still busy.
    assert_eof_now(&mut peer);
    assert_refused(addr);
    drop(std::net::TcpListener::bind(addr).expect("the port is still held"));
    assert_eof_now(&mut owned_peer);
    // The borrowed socket is open and untouched.
    (&kept).write_all(b"k").unwrap();
    let mut byte = [0u8; 1];
    (&kept_peer).read_exact(&mut byte).unwrap();
    (&kept_peer).write_all(b"p").unwrap();
    (&kept).read_exact(&mut byte).unwrap();
    assert_eq!(&byte, b"p");
    release_x.send(()).unwrap();
    rt.block_on(x_task).unwrap();
    drop((peer, owned_peer, kept, kept_peer));

    // (b) Registered on a worker, dropped on a thread outside the
    // runtime while the runtime idles.
    for _ in 0..10 {
        let (ours, mut peer) = rt.block_on(rt.spawn(async { pair() })).unwrap();
        thread::spawn(move || drop(ours)).join().unwrap();
        assert_eof_now(&mut peer);
    }

    // (c) Registered outside the runtime (a request to a ring), used
    // and dropped on a worker.
    for _ in 0..10 {
        let (mut ours, mut peer) = {
            let _guard = rt.enter();
            pair()
        };
        peer.write_all(b"hi").unwrap();
        rt.block_on(rt.spawn(async move {
            let mut buf = [0u8; 2];
            ours.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"hi");
        }))
        .unwrap();
        assert_eof_now(&mut peer);
    }

    // (d) Dropped on the worker that polls it, with the peer checked
    // from that same task: the worker cannot take another turn before
    // the check, so the close itself must have released the socket.
    for _ in 0..10 {
        rt.block_on(rt.spawn(async {
            let (ours, mut peer) = pair();
            tokiwa::task::yield_now().await;
            drop(ours);
            assert_eof_now(&mut peer);
        }))
        .unwrap();
    }
    drop(rt);
    wait_until(SETTLE, "the descriptors to return to the baseline", || {
        open_fds() == baseline
    });
}

/// Runs `make()`'s future in a task on worker `worker` of `rt`.
fn run_on<R, F>(rt: &Runtime, worker: usize, make: impl Fn() -> F + Send + Sync + 'static) -> R
where
    R: Send + 'static,
    F: std::future::Future<Output = R> + Send + 'static,
{
    let make = std::sync::Arc::new(make);
    for _ in 0..10_000 {
        let make = make.clone();
        let task = rt.spawn(async move {
            if tokiwa::runtime::worker_index() != Some(worker) {
                return None;
            }
            Some(make().await)
        });
        if let Some(result) = rt.block_on(task).unwrap() {
            return result;
        }
    }
    panic!("no task ran on worker {worker}");
}

/// Keeps worker `worker` of `rt` busy in a task until the returned sender
/// is used or dropped.
fn occupy(rt: &Runtime, worker: usize) -> std_mpsc::Sender<()> {
    for _ in 0..10_000 {
        let (release, released) = std_mpsc::channel::<()>();
        let (landed_tx, landed) = std_mpsc::channel();
        rt.spawn(async move {
            let here = tokiwa::runtime::worker_index() == Some(worker);
            landed_tx.send(here).unwrap();
            if here {
                let _ = released.recv();
            }
        });
        if landed.recv_timeout(TEST_TIMEOUT).unwrap() {
            return release;
        }
    }
    panic!("no task ran on worker {worker}");
}

/// A socket whose poll moved to another worker's ring (its task waits
/// there) leaves its old poll behind until the old ring's owner cancels
/// it. Dropped on the new ring's owner while the old one is busy, it must
/// close at once all the same.
#[test]
fn a_socket_dropped_after_its_poll_moved_closes_while_the_old_ring_is_busy() {
    run_alone(TEST_TIMEOUT, || {
        let rt = uring(2);
        let metrics = rt.metrics();
        // Registered on worker 0's ring and armed by its next turn.
        let (ours, peer) = run_on(&rt, 0, || async {
            let (ours, peer) = pair();
            tokiwa::task::yield_now().await;
            (ours, peer)
        });
        let release_0 = occupy(&rt, 0);
        let moved = metrics.worker_io_rehome_count(1);
        let ours = std::sync::Arc::new(Mutex::new(Some(ours)));
        let mut peer = run_on(&rt, 1, move || {
            let ours = ours.lock().unwrap().take().unwrap();
            let mut peer = peer.try_clone().unwrap();
            async move {
                // Waits from worker 1 in a row: the poll moves here.
                for _ in 0..2 {
                    let mut readable = std::pin::pin!(ours.readable());
                    assert!(futures::poll!(readable.as_mut()).is_pending());
                }
                drop(ours);
                // Worker 0, busy, has not cancelled the old poll.
                assert_eof_now(&mut peer);
                peer
            }
        });
        assert_eq!(metrics.worker_io_rehome_count(1), moved + 1, "no move");
        drop(release_0);
        assert_eof_now(&mut peer);
    });
}

/// A current-thread runtime outside `block_on` has nobody turning its
/// ring: a socket or listener it polls, dropped on another thread (or on
/// the ring's own thread), is closed at once all the same, not at the
/// next `block_on`.
#[test]
fn resources_of_a_current_thread_runtime_outside_block_on_close_when_dropped() {
    run_alone(TEST_TIMEOUT, || {
        for &driver in support::DRIVERS {
            dropped_outside_block_on(driver);
        }
    });
}

fn dropped_outside_block_on(driver: Driver) {
    let baseline = open_fds();
    let rt = runtime(driver, 0);
    for elsewhere in [true, false] {
        let (ours, mut peer, listener, addr) = rt.block_on(async {
            let (ours, peer) = pair();
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            // A turn: both polls are armed.
            tokiwa::task::yield_now().await;
            (ours, peer, listener, addr)
        });
        if elsewhere {
            thread::spawn(move || drop((ours, listener)))
                .join()
                .unwrap();
        } else {
            drop((ours, listener));
        }
        assert_eof_now(&mut peer);
        assert_refused(addr);
    }
    // The runtime still works, and lets go of everything.
    rt.block_on(async {
        let (mut ours, mut peer) = pair();
        peer.write_all(b"x").unwrap();
        let mut buf = [0u8; 1];
        ours.read_exact(&mut buf).await.unwrap();
    });
    drop(rt);
    wait_until(SETTLE, "the descriptors to return to the baseline", || {
        open_fds() == baseline
    });
}

#[test]
fn shutdown_with_thousands_of_reads_in_flight() {
    run_alone(TEST_TIMEOUT, || {
        const READS: usize = 3_000;
        support::net::raise_nofile_limit();
        let baseline = open_fds();
        let rt = uring(2);
        let (ready_tx, ready_rx) = std_mpsc::channel();
        let mut peers = Vec::with_capacity(READS);
        for i in 0..READS {
            let ready_tx = ready_tx.clone();
            // Half registered outside the runtime (requests to the rings),
            // half by the tasks on their worker.
            let outside = if i % 2 == 0 {
                let _guard = rt.enter();
                let (ours, peer) = pair();
                peers.push(peer);
                Some(ours)
            } else {
                None
            };
            let (peer_tx, peer_rx) = std_mpsc::channel();
            rt.spawn(async move {
                let mut ours = match outside {
                    Some(ours) => ours,
                    None => {
                        let (ours, peer) = pair();
                        peer_tx.send(peer).unwrap();
                        ours
                    }
                };
                ready_tx.send(()).unwrap();
                // The peer never writes: pending until the runtime drops
                // this task.
                let mut buf = [0u8; 1];
                let _ = ours.read(&mut buf).await;
            });
            if i % 2 == 1 {
                peers.push(peer_rx.recv_timeout(TEST_TIMEOUT).unwrap());
            }
        }
        for _ in 0..READS {
            ready_rx.recv_timeout(TEST_TIMEOUT).unwrap();
        }
        within(TEST_TIMEOUT, "dropping the runtime", move || drop(rt));
        for peer in &mut peers {
            assert_eof(peer);
        }
        drop(peers);
        wait_until(SETTLE, "the descriptors to return to the baseline", || {
            open_fds() == baseline
        });
    });
}

/// `shutdown_background` while a file read is in flight on a ring whose
/// worker is busy in a task: the ring cannot be settled, and its read's
/// buffer must stay alive (the kernel may still write it), but nothing
/// else may: once the runtime's threads are gone, a socket it polled is
/// closed (the peer sees EOF), its listener refuses connections and its
/// port can be bound again, and the runtime holds no descriptor (its ring,
/// eventfd, and the file the read was on).
#[test]
fn shutdown_background_with_a_file_read_in_flight_lets_go_of_every_descriptor() {
    run_alone(TEST_TIMEOUT, || {
        let dir = support::fs::TempDir::new("sb-read");
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a plain syscall on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let baseline = open_fds();
        // Read-write: the open does not wait for a writer, and a read waits
        // for data that never comes.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("sb-read")
            .driver(Driver::Uring)
            .enable_all()
            .build()
            .unwrap();
        // Sockets and listeners polled by the only ring: one of each kept
        // by a task (dropped by the shutdown), one of each handed to this
        // thread (dropped once the runtime is gone).
        let (to_test, sockets) = std_mpsc::channel();
        rt.spawn(async move {
            let (ours, peer) = pair();
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let (kept, kept_peer) = pair();
            let kept_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addrs = [
                listener.local_addr().unwrap(),
                kept_listener.local_addr().unwrap(),
            ];
            // A turn: the polls are armed.
            tokiwa::task::yield_now().await;
            to_test
                .send(([peer, kept_peer], addrs, (ours, listener)))
                .unwrap();
            let _keep = (kept, kept_listener);
            std::future::pending::<()>().await;
        });
        let (mut peers, addrs, handed) = sockets.recv_timeout(TEST_TIMEOUT).unwrap();
        // The read: submitted by the task's first poll, which ends before
        // the only worker runs the next task.
        let (read_tx, read_started) = std_mpsc::channel();
        rt.spawn(async move {
            use tokiwa::io::AsyncReadExt as _;
            let mut file = tokiwa::fs::File::from_std(file);
            read_tx.send(()).unwrap();
            let mut buf = [0u8; 16];
            let _ = file.read(&mut buf).await;
            unreachable!("nobody writes to the FIFO");
        });
        read_started.recv_timeout(TEST_TIMEOUT).unwrap();
        let (busy_tx, busy) = std_mpsc::channel();
        let (release, released) = std_mpsc::channel::<()>();
        rt.spawn(async move {
            busy_tx.send(()).unwrap();
            let _ = released.recv();
        });
        busy.recv_timeout(TEST_TIMEOUT).unwrap();
        rt.shutdown_background();
        release.send(()).unwrap();
        wait_until(SETTLE, "the worker to exit", || {
            count_threads("sb-read") == 0
        });
        drop(handed);
        for (peer, addr) in peers.iter_mut().zip(addrs) {
            assert_eof_now(peer);
            assert_refused(addr);
            std::net::TcpListener::bind(addr).expect("the port is still held");
        }
        drop(peers);
        wait_until(SETTLE, "the descriptors to return to the baseline", || {
            open_fds() == baseline
        });
    });
}

#[test]
fn io_keeps_working_after_block_in_place_moves_the_core() {
    run_alone(TEST_TIMEOUT, || {
        let all =
            IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
        let rt = uring(2);
        let handle = rt.handle().clone();
        let (peer_tx, peer_rx) = std_mpsc::channel::<(usize, StdUnixStream, StdUnixStream)>();
        let (go_tx, go_rx) = tokiwa::sync::oneshot::channel::<()>();
        let task = rt.spawn(async move {
            // Registered on this worker's ring before the move; one pair
            // gets data before, one during, one after the move.
            let (mut before, peer_before) = pair();
            let (mut during, peer_during) = pair();
            let (mut after, peer_after) = pair();
            let worker = tokiwa::runtime::worker_index().unwrap();
            let mut peer_before = peer_before;
            peer_before.write_all(b"b").unwrap();
            let mut buf = [0u8; 1];
            before.read_exact(&mut buf).await.unwrap();
            for round in 0..3u8 {
                let moved = tokiwa::task::block_in_place(|| {
                    (&peer_during).write_all(&[round]).unwrap();
                    tokiwa::runtime::worker_index()
                });
                // The core went to another thread, which rebuilt the ring.
                assert_eq!(moved, None);
                during.read_exact(&mut buf).await.unwrap();
                assert_eq!(buf, [round]);
            }
            peer_tx
                .send((
                    worker,
                    peer_after.try_clone().unwrap(),
                    peer_before.try_clone().unwrap(),
                ))
                .unwrap();
            // Data that arrives while this read waits.
            go_rx.await.unwrap();
            after.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"a");
            before.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"c");
            drop((before, during, after));
        });
        let (worker, mut peer_after, mut peer_before) = peer_rx.recv_timeout(TEST_TIMEOUT).unwrap();
        // The moved worker's ring keeps its flags.
        let flags = handle.metrics().__worker_ring_setup_flags(worker).unwrap();
        assert_eq!(flags & all, all, "flags {flags:#x}");
        go_tx.send(()).unwrap();
        peer_after.write_all(b"a").unwrap();
        peer_before.write_all(b"c").unwrap();
        rt.block_on(task).unwrap();
        // Dropped on the worker after the moves: closed by the rebuilt ring.
        assert_eof(&mut peer_after);
        assert_eof(&mut peer_before);
        // The runtime still runs I/O on every worker.
        tcp_traffic(&rt);
    });
}

/// A socket's multishot readiness poll ended by the kernel (here through
/// the test hook, which cancels it as a termination would) is armed again
/// and loses no readiness: data written after the end, and data that was
/// already there when the poll was re-armed, both reach the reader. On a
/// current-thread runtime and on a one-worker multi-thread runtime (the
/// hook runs in a task, on the ring's owner).
#[test]
fn a_socket_poll_ended_by_the_kernel_is_rearmed_and_loses_nothing() {
    run_alone(TEST_TIMEOUT, || {
        for workers in [0, 1] {
            let rt = uring(workers);
            rt.block_on(rt.spawn(async {
                let (mut ours, mut peer) = pair();
                // Registration arms the poll at the worker's next turn.
                tokiwa::task::yield_now().await;
                let mut buf = [0u8; 5];
                for round in 0..3u8 {
                    // The reader waits; its poll is ended under it.
                    let reader = async {
                        ours.read_exact(&mut buf).await.unwrap();
                        buf
                    };
                    let mut reader = std::pin::pin!(reader);
                    assert!(futures::poll!(reader.as_mut()).is_pending());
                    let ended = tokiwa::runtime::__end_io_polls_of_current_worker();
                    assert!(ended >= 1, "round {round}: no poll to end");
                    if round == 2 {
                        // Readable before the re-arm: the new poll must
                        // report what is already there.
                        peer.write_all(b"early").unwrap();
                    }
                    // The worker reaps the final completion (and re-arms)
                    // whenever it next looks; the reader must not care when.
                    tokiwa::task::yield_now().await;
                    if round != 2 {
                        peer.write_all(b"later").unwrap();
                    }
                    let got = tokiwa::time::timeout(TEST_TIMEOUT / 4, reader)
                        .await
                        .unwrap_or_else(|_| panic!("round {round}: readiness lost"));
                    let want: &[u8; 5] = if round == 2 { b"early" } else { b"later" };
                    assert_eq!(&got, want, "round {round}");
                }
            }))
            .unwrap();
        }
    });
}

/// A server's accept loop runs in `block_on`, off the workers, and spawns a
/// task per connection. Each connection's readiness poll must be armed on
/// the ring of the worker whose task waits on it, at that task's first
/// wait: no wait crosses workers and no poll has to move. (Armed at accept
/// time instead, on a ring chosen round-robin, half the connections were
/// polled by the other worker: their first waits were foreign, and a
/// request crossed threads for each.)
#[test]
fn connections_accepted_off_the_workers_are_polled_where_their_task_waits() {
    run_alone(TEST_TIMEOUT, || {
        const CONNS: usize = 16;
        let rt = uring(2);
        let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        // Plain threads as clients: no runtime of theirs registers anything.
        let clients: Vec<_> = (0..CONNS)
            .map(|_| {
                thread::spawn(move || {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    let mut byte = [0u8; 1];
                    // The server task is waiting by now (it said so).
                    stream.read_exact(&mut byte).unwrap();
                    stream.write_all(&byte).unwrap();
                    stream.read_exact(&mut byte).unwrap();
                    byte[0]
                })
            })
            .collect();
        let echoed = rt.block_on(async {
            let mut tasks = Vec::new();
            for i in 0..CONNS {
                let (mut stream, _) = listener.accept().await.unwrap();
                tasks.push(tokiwa::spawn(async move {
                    use tokiwa::io::AsyncWriteExt;
                    stream.write_all(&[i as u8]).await.unwrap();
                    let mut byte = [0u8; 1];
                    // The task's one wait (the client answers only now).
                    stream.read_exact(&mut byte).await.unwrap();
                    stream.write_all(&byte).await.unwrap();
                    byte[0]
                }));
            }
            let mut echoed = Vec::new();
            for task in tasks {
                echoed.push(task.await.unwrap());
            }
            echoed
        });
        let mut answered: Vec<u8> = clients.into_iter().map(|c| c.join().unwrap()).collect();
        answered.sort_unstable();
        let mut sent = echoed.clone();
        sent.sort_unstable();
        assert_eq!(sent, (0..CONNS as u8).collect::<Vec<_>>());
        assert_eq!(answered, sent);
        let metrics = rt.metrics();
        let foreign: u64 = (0..2)
            .map(|w| metrics.worker_foreign_io_wait_count(w))
            .sum();
        let moved: u64 = (0..2).map(|w| metrics.worker_io_rehome_count(w)).sum();
        assert_eq!(
            (foreign, moved),
            (0, 0),
            "waits that crossed workers, polls moved"
        );
    });
}
