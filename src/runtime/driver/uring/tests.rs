//! The driver's error paths, provoked with its test hooks: submits the
//! kernel refuses (`Ring::failing_submits`) and polls that end with an
//! error (`IoState::final_error`).
use super::op::{current_worker, Op, OpData, Unrun};
use super::WorkerRing;
use crate::io::Interest;
use crate::runtime::driver::scheduled_io::ScheduledIo;
use crate::runtime::{Builder, Driver, Runtime};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a peer waits for what must already have happened.
const AT_ONCE: Duration = Duration::from_secs(5);

fn uring(workers: usize, test: &str) -> Option<Runtime> {
    uring_with(workers, test, |_| {})
}

/// An io_uring runtime with `workers` workers (0: current-thread), set up
/// further by `configure`, or `None` (said, as a skip) where the kernel
/// refuses io_uring.
pub(super) fn uring_with(
    workers: usize,
    test: &str,
    configure: impl FnOnce(&mut Builder),
) -> Option<Runtime> {
    let mut builder = if workers == 0 {
        Builder::new_current_thread()
    } else {
        let mut b = Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    configure(builder.driver(Driver::Uring));
    match builder.enable_all().build() {
        Ok(rt) => Some(rt),
        Err(e) => {
            super::unavailable(test, &e);
            None
        }
    }
}

/// The ring of the worker this runs on.
fn ring() -> Arc<WorkerRing> {
    current_worker().expect("runs on a worker that owns its ring")
}

/// A connected pair: ours non-blocking, the peer's reads time out.
fn std_pair() -> (StdUnixStream, StdUnixStream) {
    let (ours, peer) = StdUnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    peer.set_read_timeout(Some(AT_ONCE)).unwrap();
    (ours, peer)
}

#[track_caller]
fn assert_eof(peer: &mut StdUnixStream, what: &str) {
    loop {
        match peer.read(&mut [0u8; 8]) {
            Ok(0) => return,
            Ok(n) => panic!("{what}: read {n} bytes, expected EOF"),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("{what}: {e}, expected EOF (a poll still holds the socket)"),
        }
    }
}

/// Runs `make()`'s future in a task on worker `worker`.
fn run_on<R, F>(rt: &Runtime, worker: usize, make: impl Fn() -> F + Send + Sync + 'static) -> R
where
    R: Send + 'static,
    F: std::future::Future<Output = R> + Send + 'static,
{
    let make = Arc::new(make);
    for _ in 0..10_000 {
        let make = make.clone();
        let task = rt.spawn(async move {
            if crate::runtime::worker_index() != Some(worker) {
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

/// A registration whose submit the kernel refuses fails (with `ENOMEM`,
/// never `WouldBlock`) and leaves nothing behind: the poll entry left in
/// the queue is cancelled with it, so it never holds the socket, which
/// closes with its descriptor, and its slot is freed.
#[test]
fn a_registration_whose_submit_fails_leaves_no_poll_behind() {
    let Some(rt) = uring(0, "a_registration_whose_submit_fails_leaves_no_poll_behind") else {
        return;
    };
    rt.block_on(async {
        let ring = ring();
        let (ours, mut peer) = std_pair();
        let before = ring.io_state().slots();
        assert!(ring.fail_next_submits(1, libc::EAGAIN));
        let err = ring
            .register_here(
                ours.as_raw_fd(),
                Interest::READABLE,
                Arc::new(ScheduledIo::new()),
            )
            .expect("on the owner")
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOMEM), "{err}");
        // Turns: whatever was queued reaches the kernel. The socket is
        // still open meanwhile (the caller kept it).
        for _ in 0..3 {
            crate::task::yield_now().await;
        }
        drop(ours);
        assert_eof(&mut peer, "after the failed registration");
        assert_eq!(ring.io_state().slots(), before, "a slot was left behind");
    });
}

/// A poll move (`home.rs`) whose arm the kernel refuses at the new ring's
/// next turn loses nothing: the refused poll is cancelled in the same
/// batch and armed again (the request path of `io.rs`), the readiness
/// reaches the waiter, and no slot is left behind on either ring.
#[test]
fn a_move_the_kernel_refuses_at_first_loses_no_readiness() {
    let Some(rt) = uring(2, "a_move_the_kernel_refuses_at_first_loses_no_readiness") else {
        return;
    };
    // Registered on worker 0's ring, armed by its next turn.
    let (stream, peer) = run_on(&rt, 0, || async {
        let (ours, peer) = std_pair();
        let ours = crate::net::UnixStream::from_std(ours).unwrap();
        crate::task::yield_now().await;
        (ours, peer)
    });
    let stream = Arc::new(Mutex::new(Some(stream)));
    let peer = Arc::new(Mutex::new(Some(peer)));
    run_on(&rt, 1, move || {
        let stream = stream.lock().unwrap().take().unwrap();
        let mut peer = peer.lock().unwrap().take().unwrap();
        async move {
            let ring = ring();
            let before = ring.io_state().slots();
            let moved = ring
                .metrics()
                .io_rehomes
                .load(std::sync::atomic::Ordering::Relaxed);
            assert!(ring.fail_next_submits(1, libc::EAGAIN));
            // A wait from this worker: the move, armed at the next turn,
            // whose submit fails.
            {
                let mut readable = std::pin::pin!(stream.readable());
                assert!(futures::poll!(readable.as_mut()).is_pending());
                assert_eq!(
                    ring.metrics()
                        .io_rehomes
                        .load(std::sync::atomic::Ordering::Relaxed),
                    moved + 1
                );
                for _ in 0..3 {
                    crate::task::yield_now().await;
                }
                peer.write_all(b"x").unwrap();
                crate::time::timeout(AT_ONCE, readable)
                    .await
                    .expect("readiness lost after the refused arm")
                    .unwrap();
            }
            assert_eq!(stream.try_read(&mut [0u8; 2]).unwrap(), 1);
            drop(stream);
            assert_eof(&mut peer, "the dropped stream");
            let deadline = std::time::Instant::now() + AT_ONCE;
            while ring.io_state().slots() != before {
                assert!(
                    std::time::Instant::now() < deadline,
                    "a slot was left behind"
                );
                crate::task::yield_now().await;
            }
        }
    });
}

/// A resource polled by worker 0's ring that a task on worker 1 waits on
/// moves to worker 1's ring at that first wait (so its readiness is reaped
/// by the worker that runs the task: no wait counts as foreign), and gets
/// every readiness there. Its old poll, neutralised, is cancelled lazily
/// (with worker 0's next enter), and its slot is freed all the same; the
/// resource dropped after the move closes at once.
#[test]
fn a_resource_waited_on_from_another_worker_moves_there_at_once() {
    let Some(rt) = uring(
        2,
        "a_resource_waited_on_from_another_worker_moves_there_at_once",
    ) else {
        return;
    };
    // Registered on worker 0's ring, armed by its next turn.
    let (stream, peer, ring_0, slots_0) = run_on(&rt, 0, || async {
        let ring_0 = ring();
        let before = ring_0.io_state().slots();
        let (ours, peer) = std_pair();
        let ours = crate::net::UnixStream::from_std(ours).unwrap();
        crate::task::yield_now().await;
        (ours, peer, ring_0, before)
    });
    let stream = Arc::new(Mutex::new(Some(stream)));
    let peer = Arc::new(Mutex::new(Some(peer)));
    let ring_1 = run_on(&rt, 1, move || {
        let stream = stream.lock().unwrap().take().unwrap();
        let mut peer = peer.lock().unwrap().take().unwrap();
        let ring_0 = ring_0.clone();
        async move {
            let ring_1 = ring();
            let load =
                |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
            let moved = load(&ring_1.metrics().io_rehomes);
            let foreign = load(&ring_1.metrics().foreign_io_waits);
            for round in 0..100u8 {
                let mut readable = std::pin::pin!(stream.readable());
                assert!(futures::poll!(readable.as_mut()).is_pending());
                if round == 0 {
                    assert_eq!(load(&ring_1.metrics().io_rehomes), moved + 1, "no move");
                }
                peer.write_all(&[round]).unwrap();
                crate::time::timeout(AT_ONCE, readable)
                    .await
                    .unwrap_or_else(|_| panic!("readiness {round} lost after the move"))
                    .unwrap();
                let mut byte = [0u8; 2];
                assert_eq!(stream.try_read(&mut byte).unwrap(), 1);
                assert_eq!(byte[0], round);
                // Drained: clears the readiness, so the next wait waits.
                let e = stream.try_read(&mut byte).unwrap_err();
                assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
            }
            assert_eq!(load(&ring_1.metrics().io_rehomes), moved + 1, "moved again");
            assert_eq!(
                load(&ring_1.metrics().foreign_io_waits),
                foreign,
                "a wait counted as foreign"
            );
            drop(stream);
            assert_eof(&mut peer, "the dropped stream");
            let deadline = std::time::Instant::now() + AT_ONCE;
            while ring_0.io_state().slots() != slots_0 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the old poll's slot on worker 0 outlived the resource"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            ring_1
        }
    });
    let _ = ring_1;
}

/// A readiness poll that ends with an error (`ECANCELED`: the kernel
/// ended it; `ENOMEM`: it failed) is armed again, and the end says nothing
/// about the socket: its waiter sleeps until data comes (it used to be
/// marked ready and closed for good, so it spun through its budget), and
/// the data wakes it (a poll that failed used to be left unarmed).
#[test]
fn a_poll_that_ends_with_an_error_is_armed_again() {
    let Some(rt) = uring(0, "a_poll_that_ends_with_an_error_is_armed_again") else {
        return;
    };
    let metrics = rt.metrics();
    for errno in [0, libc::ENOMEM] {
        rt.block_on(async {
            let (ours, peer) = std_pair();
            let (waiting_tx, waiting) = crate::sync::oneshot::channel();
            // A task, polled only when woken (unlike `block_on`'s future).
            let reader = crate::spawn(async move {
                use crate::io::AsyncReadExt;
                let mut ours = crate::net::UnixStream::from_std(ours).unwrap();
                crate::task::yield_now().await;
                let ring = ring();
                let mut buf = [0u8; 1];
                let mut reader = std::pin::pin!(ours.read_exact(&mut buf));
                assert!(futures::poll!(reader.as_mut()).is_pending());
                // 0: the end is reported as it comes, `ECANCELED`.
                ring.io_state()
                    .final_error
                    .store(errno, std::sync::atomic::Ordering::SeqCst);
                assert!(ring.cancel_io_polls() >= 1);
                // The worker reaps the final completion.
                crate::task::yield_now().await;
                waiting_tx.send(()).unwrap();
                crate::time::timeout(AT_ONCE, reader)
                    .await
                    .expect("the poll was not armed again: the wait hangs")
                    .unwrap();
            });
            waiting.await.unwrap();
            let polls = metrics.worker_poll_count(0);
            crate::time::sleep(Duration::from_millis(100)).await;
            let spun = metrics.worker_poll_count(0) - polls;
            assert!(
                spun < 20,
                "errno {errno}: the waiting reader was polled {spun} times in 100 ms"
            );
            // Written while the reader waits: only the driver can wake it.
            (&peer).write_all(b"x").unwrap();
            reader.await.unwrap();
        });
    }
}

/// An operation that completes at once (`IORING_OP_NOP`).
struct Nop;

// SAFETY: the entry references no memory and no descriptor.
unsafe impl OpData for Nop {
    fn entry(&mut self) -> io_uring::squeue::Entry {
        io_uring::opcode::Nop::new().build()
    }

    fn orphan(self) -> Box<dyn Send> {
        Box::new(())
    }
}

/// Submits the kernel refuses for lack of memory (`EAGAIN`, `ENOMEM`)
/// neither panic the worker nor lose anything: an operation started then
/// completes, a park whose submit is refused still ends, and the ring
/// keeps serving sockets.
#[test]
fn refused_submits_neither_panic_nor_lose_work() {
    let Some(rt) = uring(0, "refused_submits_neither_panic_nor_lose_work") else {
        return;
    };
    rt.block_on(async {
        let ring = ring();
        for errno in [libc::EAGAIN, libc::ENOMEM] {
            assert!(ring.fail_next_submits(3, errno));
            match Op::new(Nop).await {
                Ok((res, _)) => assert_eq!(res, 0),
                Err(Unrun::NoRing(_) | Unrun::Orphaned) => panic!("the nop did not run"),
            }
            // Parks whose submits are refused.
            assert!(ring.fail_next_submits(3, errno));
            crate::time::sleep(Duration::from_millis(5)).await;
        }
        let (ours, mut peer) = std_pair();
        let ours = crate::net::UnixStream::from_std(ours).unwrap();
        peer.write_all(b"x").unwrap();
        crate::time::timeout(AT_ONCE, ours.readable())
            .await
            .unwrap()
            .unwrap();
    });
}
