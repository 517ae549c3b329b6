#![cfg(feature = "full")]
//! Out of descriptors (`EMFILE`) wherever tokiwa creates one: building a
//! runtime (eventfds, epoll instances, rings), and inside a running one
//! opening a file, a pipe, a socket pair, a listener, a child process.
//! Each returns the kernel's error as an `io::Error` (`raw_os_error` intact;
//! no panic, nothing cached), and each works once descriptors are free,
//! on the same runtime, on every driver and scheduler.
//!
//! The descriptor limit is per process, so this binary holds this one
//! test. (The signal registry, the SIGCHLD fallback, the io_uring probe, a
//! core's ring and `accept` have binaries of their own: `signal_emfile`,
//! `process_emfile`, `uring_emfile`, `uring_core_move_emfile`,
//! `tcp_emfile`.)

#[macro_use]
mod support;

use support::fds::Exhausted;
use support::fs::TempDir;
use support::{Flavor, TEST_TIMEOUT};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::unix::pipe;
use tokiwa::net::{TcpListener, UnixStream};

#[track_caller]
fn assert_emfile<T: std::fmt::Debug>(what: &str, result: std::io::Result<T>) {
    match result {
        Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EMFILE), "{what}: {e:?}"),
        Ok(v) => panic!("{what} succeeded with no descriptor free: {v:?}"),
    }
}

fn build_fails_then_works(flavor: Flavor) {
    let fillers = Exhausted::new();
    for _ in 0..2 {
        assert_emfile("building the runtime", flavor.builder().build());
    }
    drop(fillers);
    let rt = flavor.build();
    assert_eq!(rt.block_on(rt.spawn(async { 3 })).unwrap(), 3);
}

/// Every way to create a descriptor fails with `EMFILE` while none is
/// free, then works on the same runtime.
async fn resources_fail_then_work(dir: &TempDir) {
    let path = dir.join("data");
    std::fs::write(&path, b"contents").unwrap();

    let fillers = Exhausted::new();
    assert_emfile("File::open", tokiwa::fs::File::open(&path).await);
    assert_emfile("pipe()", pipe::pipe());
    assert_emfile("UnixStream::pair", UnixStream::pair());
    assert_emfile("TcpListener::bind", TcpListener::bind("127.0.0.1:0").await);
    assert_emfile(
        "Command::spawn",
        tokiwa::process::Command::new("true").spawn(),
    );
    drop(fillers);

    let mut file = tokiwa::fs::File::open(&path).await.unwrap();
    let mut contents = String::new();
    file.read_to_string(&mut contents).await.unwrap();
    assert_eq!(contents, "contents");

    let (mut tx, mut rx) = pipe::pipe().unwrap();
    tx.write_all(b"pipe").await.unwrap();
    let mut buf = [0u8; 4];
    rx.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"pipe");

    let (mut a, mut b) = UnixStream::pair().unwrap();
    a.write_all(b"pair").await.unwrap();
    b.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"pair");

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (accepted, connected) =
        tokiwa::join!(listener.accept(), tokiwa::net::TcpStream::connect(addr));
    accepted.unwrap();
    connected.unwrap();

    let status = tokiwa::process::Command::new("true")
        .status()
        .await
        .unwrap();
    assert!(status.success());
}

#[test]
fn out_of_descriptors_everywhere_returns_emfile_then_recovers() {
    support::watchdog(TEST_TIMEOUT, || {
        for &driver in support::DRIVERS {
            for flavor in [Flavor::current_thread(), Flavor::multi_thread(2)] {
                let flavor = flavor.on(driver);
                build_fails_then_works(flavor);
                let rt = flavor.build();
                let dir = TempDir::new("rt-emfile");
                // In a task: on a multi-thread runtime it runs on a worker
                // (in io_uring mode, files go through its ring).
                rt.block_on(async move {
                    tokiwa::spawn(async move { resources_fail_then_work(&dir).await })
                        .await
                        .unwrap()
                });
            }
        }
    });
}
