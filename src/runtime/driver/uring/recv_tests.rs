//! Completion receives (`recv.rs`) against the kernel, where the ring's
//! provided buffers are at stake (these run under AddressSanitizer in CI
//! with the `runtime::driver::uring` filter): a runtime shut down, and a
//! stream dropped, with multishot receives in the kernel.
use crate::io::AsyncReadExt;
use crate::net::UnixStream;
use crate::runtime::Runtime;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream as StdUnixStream;
use std::time::Duration;

fn uring(workers: usize, test: &str) -> Option<Runtime> {
    super::tests::uring_with(workers, test, |b| {
        b.uring_completion_io(true);
    })
}

/// `n` socket pairs: the runtime's ends, non-blocking, and their peers.
fn pairs(n: usize) -> (Vec<StdUnixStream>, Vec<StdUnixStream>) {
    (0..n)
        .map(|_| {
            let (ours, peer) = StdUnixStream::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            (ours, peer)
        })
        .unzip()
}

/// Spawns a reader per stream that reads one byte (after which its
/// multishot receive stays armed in the kernel), reports it, then reads
/// `then` more bytes and returns them all. Returns once every reader has
/// its first byte.
fn armed_readers(
    rt: &Runtime,
    ours: Vec<StdUnixStream>,
    peers: &mut [StdUnixStream],
    then: usize,
) -> Vec<crate::task::JoinHandle<Vec<u8>>> {
    let (first_tx, first_rx) = std::sync::mpsc::channel();
    let handles: Vec<_> = ours
        .into_iter()
        .map(|std| {
            let first_tx = first_tx.clone();
            rt.spawn(async move {
                let mut stream = UnixStream::from_std(std).unwrap();
                let mut got = vec![0u8; 1 + then];
                stream.read_exact(&mut got[..1]).await.unwrap();
                first_tx.send(()).unwrap();
                stream.read_exact(&mut got[1..]).await.unwrap();
                got
            })
        })
        .collect();
    for (i, peer) in peers.iter_mut().enumerate() {
        peer.write_all(&[i as u8]).unwrap();
    }
    // Driven by `block_on` on a current-thread runtime.
    rt.block_on(async {
        for _ in 0..handles.len() {
            loop {
                match first_rx.try_recv() {
                    Ok(()) => break,
                    Err(_) => crate::task::yield_now().await,
                }
            }
        }
    });
    handles
}

#[test]
fn runtime_shut_down_with_receives_in_the_kernel() {
    for workers in [0, 2] {
        let Some(rt) = uring(workers, "runtime_shut_down_with_receives") else {
            return;
        };
        let (ours, mut peers) = pairs(64);
        let handles = armed_readers(&rt, ours, &mut peers, 1 << 20);
        drop(handles);
        // The tasks, and their streams, go with the runtime; the ring is
        // closed with their receives armed, and its buffers are not freed
        // while the kernel may still write into them.
        drop(rt);
        for peer in &mut peers {
            // Written after the shutdown: no receive may take them.
            peer.set_nonblocking(true).unwrap();
            match peer.write(&[1; 4096]) {
                Ok(_) => {}
                Err(e) => assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                    ),
                    "write after shutdown: {e}"
                ),
            }
            peer.set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            peer.set_nonblocking(false).unwrap();
            let mut buf = [0u8; 8];
            // The runtime's end is closed.
            assert_eq!(peer.read(&mut buf).unwrap(), 0);
        }
    }
}

#[test]
fn stream_dropped_with_its_receive_in_the_kernel_then_data_arrives() {
    for workers in [0, 2] {
        let Some(rt) = uring(workers, "stream_dropped_with_its_receive") else {
            return;
        };
        let (ours, mut peers) = pairs(16);
        let handles = armed_readers(&rt, ours, &mut peers, 1 << 20);
        rt.block_on(async {
            for handle in handles {
                // Dropped with its stream, on its worker.
                handle.abort();
                assert!(handle.await.unwrap_err().is_cancelled());
            }
        });
        for peer in &mut peers {
            let _ = peer.write(&[2; 512]);
            let mut buf = [0u8; 8];
            peer.set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            assert_eq!(peer.read(&mut buf).unwrap(), 0, "closed at once");
        }
        // Other streams still receive through the same ring afterwards.
        let (ours, mut peers) = pairs(4);
        let handles = armed_readers(&rt, ours, &mut peers, 3);
        for peer in &mut peers {
            peer.write_all(b"abc").unwrap();
        }
        rt.block_on(async {
            for handle in handles {
                assert_eq!(&handle.await.unwrap()[1..], b"abc");
            }
        });
    }
}

/// A worker whose sockets are served by armed receives has "sockets of
/// its own" for the park policy (the yield before a sleep while such a
/// peer is awake, `park.rs`), though its streams never armed a readiness
/// poll: made off the workers, they are registered with no ring at all.
#[test]
fn armed_receives_count_as_the_rings_resources() {
    let Some(rt) = uring(2, "armed_receives_count_as_resources") else {
        return;
    };
    let (ours, mut peers) = pairs(4);
    let streams: Vec<UnixStream> = {
        let _guard = rt.enter();
        ours.into_iter()
            .map(|std| UnixStream::from_std(std).unwrap())
            .collect()
    };
    let rings = rt.handle().inner.driver().rings();
    assert!(
        !rings.iter().any(|ring| ring.has_resources()),
        "streams made off the workers start on no ring"
    );
    let (first_tx, first_rx) = std::sync::mpsc::channel();
    let handles: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            let first_tx = first_tx.clone();
            rt.spawn(async move {
                let mut byte = [0u8; 1];
                stream.read_exact(&mut byte).await.unwrap();
                first_tx.send(()).unwrap();
                // Armed again, and held until the peer closes.
                let mut rest = Vec::new();
                stream.read_to_end(&mut rest).await.unwrap();
            })
        })
        .collect();
    for peer in &mut peers {
        peer.write_all(&[7]).unwrap();
    }
    for _ in 0..handles.len() {
        first_rx.recv_timeout(Duration::from_secs(20)).unwrap();
    }
    assert!(
        rings.iter().any(|ring| ring.recvs().in_flight() > 0),
        "the readers' receives stay armed across messages"
    );
    assert!(rings
        .iter()
        .filter(|ring| ring.recvs().in_flight() > 0)
        .all(|ring| ring.has_resources()));
    drop(peers);
    rt.block_on(async {
        for handle in handles {
            handle.await.unwrap();
        }
    });
}
