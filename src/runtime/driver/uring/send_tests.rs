//! Completion sends (`send.rs`) against the kernel, where the memory the
//! kernel reads is at stake (these run under AddressSanitizer in CI with
//! the `runtime::driver::uring` filter): a stream dropped, and a runtime
//! shut down, with sends in flight to a peer that does not read; a core
//! moved off its thread (`block_in_place`) with sends in flight.
use crate::io::AsyncWriteExt;
use crate::net::UnixStream;
use crate::runtime::Runtime;
use std::io::Read;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::time::Duration;

fn uring(workers: usize, test: &str) -> Option<Runtime> {
    super::tests::uring_with(workers, test, |b| {
        b.uring_completion_io(true);
    })
}

fn byte(i: usize) -> u8 {
    (i.wrapping_mul(7) ^ (i >> 11)) as u8
}

/// Writes into `ours` until a write waits (its peer does not read), so
/// that sends are queued and one is in the kernel; returns the bytes
/// accepted.
async fn fill(ours: &mut UnixStream) -> usize {
    let data: Vec<u8> = (0..1 << 20).map(byte).collect();
    let mut at = 0;
    loop {
        let write = ours.write(&data[at % data.len()..]);
        match crate::time::timeout(Duration::from_millis(50), write).await {
            Ok(Ok(n)) => at += n,
            Ok(Err(e)) => panic!("write: {e}"),
            Err(_) => return at,
        }
    }
}

/// Reads until EOF or reset, with a deadline; returns the bytes read.
fn drain(peer: &mut StdUnixStream) -> usize {
    peer.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0;
    loop {
        match peer.read(&mut buf) {
            Ok(0) => return total,
            Ok(n) => {
                for (k, b) in buf[..n].iter().enumerate() {
                    assert_eq!(*b, byte((total + k) % (1 << 20)), "byte {}", total + k);
                }
                total += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return total,
            Err(e) => panic!("peer: {e} after {total} bytes (the socket was never closed)"),
        }
    }
}

#[test]
fn runtime_shut_down_with_sends_in_flight() {
    for workers in [0, 2] {
        let Some(rt) = uring(workers, "runtime_shut_down_with_sends_in_flight") else {
            return;
        };
        let (ours, mut peer) = StdUnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let accepted = rt.block_on(async move {
            crate::spawn(async move {
                let mut ours = UnixStream::from_std(ours).unwrap();
                let n = fill(&mut ours).await;
                // Kept by a task that never ends: the runtime's shutdown
                // drops it with its sends queued and one in the kernel.
                crate::spawn(async move {
                    let _keep = ours;
                    std::future::pending::<()>().await
                });
                n
            })
            .await
            .unwrap()
        });
        assert!(accepted > 0);
        drop(rt);
        // The socket is closed (its descriptor's owner let go of it) and
        // what arrived is in order; memory the kernel still read was not
        // freed (AddressSanitizer checks that in CI).
        let got = drain(&mut peer);
        assert!(
            got <= accepted,
            "{got} bytes arrived of {accepted} accepted"
        );
    }
}

#[test]
fn stream_dropped_with_sends_in_flight_then_runtime_shut_down() {
    for workers in [0, 2] {
        let Some(rt) = uring(workers, "stream_dropped_with_sends_in_flight") else {
            return;
        };
        let (ours, mut peer) = StdUnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        rt.block_on(async move {
            crate::spawn(async move {
                let mut ours = UnixStream::from_std(ours).unwrap();
                fill(&mut ours).await;
                drop(ours);
            })
            .await
            .unwrap()
        });
        drop(rt);
        let got = drain(&mut peer);
        assert!(got > 0);
    }
}

#[test]
fn core_moved_with_sends_in_flight_delivers_in_order() {
    let Some(rt) = uring(2, "core_moved_with_sends_in_flight") else {
        return;
    };
    let (ours, mut peer) = StdUnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    let reader = std::thread::spawn(move || {
        // Starts late, so that sends are in flight when the core moves.
        std::thread::sleep(Duration::from_millis(200));
        drain(&mut peer)
    });
    let sent = rt.block_on(async move {
        crate::spawn(async move {
            let mut ours = UnixStream::from_std(ours).unwrap();
            let n = fill(&mut ours).await;
            // The worker's core leaves this thread: its ring cancels the
            // sends in flight and requeues what they did not send.
            crate::task::block_in_place(|| {});
            let data: Vec<u8> = (0..1 << 20).map(byte).collect();
            let mut at = n;
            while at < 3 << 20 {
                let k = ours.write(&data[at % data.len()..]).await.unwrap();
                at += k;
            }
            ours.shutdown().await.unwrap();
            at
        })
        .await
        .unwrap()
    });
    assert_eq!(reader.join().unwrap(), sent);
}
