#![cfg(feature = "full")]
//! Resources used across runtimes and threads while their runtime sleeps:
//! registered, dropped and closed from a task of another runtime or from a
//! thread outside any runtime. None of these may wait for the sleeping
//! runtime to wake up (in io_uring mode its worker sleeps in its ring and
//! holds the ring's lock meanwhile); the owner learns of them through a
//! message and a wakeup, and nothing is lost.
//!
//! The sleeping runtime ("B") is a current-thread runtime on the flavour's
//! driver, driven by a thread of its own; the other runtime ("A") is the
//! flavour's own. Every test in `rt_test!` runs once per flavour.

#[macro_use]
mod support;

use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use support::{wait_until, TEST_TIMEOUT};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::UnixStream;
use tokiwa::runtime::{Handle, Runtime};
use tokiwa::sync::oneshot;
use tokiwa::time::{error::Elapsed, timeout};

/// How long B waits for what the test does: long enough never to expire
/// when nothing blocks, well inside the watchdog's limit, so a B that was
/// kept waiting fails by assertion, not by the watchdog.
fn patience() -> std::time::Duration {
    TEST_TIMEOUT / 3
}

/// Runtime B, driven by its own thread, running `body`.
struct Sleeper<T> {
    rt: Arc<Runtime>,
    thread: Option<JoinHandle<T>>,
}

impl<T: Send + 'static> Sleeper<T> {
    fn start<F>(rt: Runtime, body: impl FnOnce() -> F + Send + 'static) -> Sleeper<T>
    where
        F: std::future::Future<Output = T>,
    {
        let rt = Arc::new(rt);
        let driver = rt.clone();
        let thread = std::thread::spawn(move || driver.block_on(body()));
        Sleeper {
            rt,
            thread: Some(thread),
        }
    }

    /// Waits until B's driver has parked more than `parks` times: it is
    /// (or was just) asleep, waiting for the test.
    fn wait_asleep(&self, parks: u64) {
        wait_until(TEST_TIMEOUT, "the other runtime to park", || {
            self.rt.metrics().worker_park_count(0) > parks
        });
    }

    fn join(mut self) -> T {
        self.thread.take().unwrap().join().unwrap()
    }
}

/// B's park count, read on B.
fn parks_here() -> u64 {
    Handle::current().metrics().worker_park_count(0)
}

rt_test! {
    fn a_task_of_another_runtime_drops_and_registers_without_waiting() {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (msg_tx, msg_rx) = oneshot::channel::<(u32, UnixStream)>();
        // B: a pair of its own; one end goes to A, then B sleeps until A's
        // message, which A sends only after dropping that end and
        // registering a new socket with B.
        let b = Sleeper::start(FLAVOR.as_current_thread().build(), || async move {
            let (mut mine, theirs) = UnixStream::pair().unwrap();
            ready_tx.send((theirs, parks_here())).unwrap();
            let (n, mut registered) = match timeout(patience(), msg_rx).await {
                Ok(msg) => msg.unwrap(),
                Err(Elapsed { .. }) => panic!("A's message never came: A waited for B to wake"),
            };
            // The dropped end's peer sees EOF; the socket A registered
            // with B works on B.
            let mut buf = [0u8; 8];
            assert_eq!(timeout(patience(), mine.read(&mut buf)).await.unwrap().unwrap(), 0);
            registered.write_all(b"ping").await.unwrap();
            n
        });
        let (theirs, parks) = ready_rx.recv().unwrap();
        b.wait_asleep(parks);
        let rt_a = rt();
        let b_handle = b.rt.handle().clone();
        let (std_mine, std_theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        rt_a.block_on(async move {
            // In a task: on a multi-thread runtime it runs on a worker, and
            // worker 0 of A is not worker 0 of B.
            tokiwa::spawn(async move {
                drop(theirs);
                std_theirs.set_nonblocking(true).unwrap();
                let registered = {
                    let _b = b_handle.enter();
                    UnixStream::from_std(std_theirs).unwrap()
                };
                msg_tx.send((7, registered)).map_err(|_| ()).unwrap();
            })
            .await
            .unwrap();
        });
        assert_eq!(b.join(), 7);
        let mut ping = [0u8; 4];
        std::io::Read::read_exact(&mut &std_mine, &mut ping).unwrap();
        assert_eq!(&ping, b"ping");
    }

    fn a_thread_outside_any_runtime_closes_a_resource_of_a_sleeping_one() {
        let (ready_tx, ready_rx) = mpsc::channel();
        // B waits in a read on its end; the other end is dropped by the
        // test's own thread, in no runtime, while B sleeps.
        let b = Sleeper::start(FLAVOR.as_current_thread().build(), || async move {
            let (mut mine, theirs) = UnixStream::pair().unwrap();
            ready_tx.send((theirs, parks_here())).unwrap();
            let mut buf = [0u8; 8];
            timeout(patience(), mine.read(&mut buf)).await
        });
        let (theirs, parks) = ready_rx.recv().unwrap();
        b.wait_asleep(parks);
        drop(theirs);
        match b.join() {
            Ok(read) => assert_eq!(read.unwrap(), 0, "EOF expected"),
            Err(Elapsed { .. }) => panic!("the peer never saw EOF: the close waited for B"),
        }
    }

    fn a_thread_outside_any_runtime_registers_with_a_sleeping_one() {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (sock_tx, sock_rx) = oneshot::channel::<UnixStream>();
        let b = Sleeper::start(FLAVOR.as_current_thread().build(), || async move {
            ready_tx.send(parks_here()).unwrap();
            let mut sock = timeout(patience(), sock_rx).await.unwrap().unwrap();
            let mut buf = [0u8; 5];
            timeout(patience(), sock.read_exact(&mut buf)).await.map(|r| {
                r.unwrap();
                buf
            })
        });
        let parks = ready_rx.recv().unwrap();
        b.wait_asleep(parks);
        let (std_mine, std_theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        std_theirs.set_nonblocking(true).unwrap();
        let registered = {
            let _b = b.rt.enter();
            UnixStream::from_std(std_theirs).unwrap()
        };
        sock_tx.send(registered).map_err(|_| ()).unwrap();
        std::io::Write::write_all(&mut &std_mine, b"hello").unwrap();
        match b.join() {
            Ok(buf) => assert_eq!(&buf, b"hello"),
            Err(Elapsed { .. }) => panic!("readiness of a socket registered from outside was lost"),
        }
    }
}
