#![cfg(feature = "full")]
//! Stream writes with `Builder::uring_completion_io(true)`: in io_uring
//! mode they are copied into a queue the ring sends (`uring/send.rs`); in
//! legacy mode the switch does nothing, and the same tests check that the
//! behaviour is the same. Order across many small writes, across small
//! and large ones (large ones may be sent on the spot) and across short
//! sends, a peer reset with sends queued, a stream dropped with sends
//! queued (its bytes are delivered, then EOF), backpressure against a peer
//! that never reads (bounded, and the worker's other sockets still
//! served), the `try_write`/`into_std`/`shutdown` interactions, and the
//! cooperative budget each write spends.

#[macro_use]
mod support;

use std::future::Future;
use std::io::{Read, Write};
use std::net::TcpStream as StdStream;
use std::os::fd::AsRawFd;
use std::task::Poll;
use std::time::Duration;

use support::completion::{byte, pair, reset, runtimes, set_buf};
use support::{watchdog, TEST_TIMEOUT};
use tokiwa::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokiwa::net::UnixStream;

/// Reads everything until EOF and checks it is `byte(0..len)`.
fn read_and_check(mut peer: StdStream, len: usize, chunk: usize) {
    let mut buf = vec![0u8; chunk];
    let mut at = 0;
    loop {
        let n = peer.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        for (k, b) in buf[..n].iter().enumerate() {
            assert_eq!(*b, byte(at + k), "byte {} out of order", at + k);
        }
        at += n;
    }
    assert_eq!(at, len, "bytes received before EOF");
}

#[test]
fn order_across_many_small_writes() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("order_across_many_small_writes") {
            let (mut stream, peer) = pair(&rt);
            let reader = std::thread::spawn(move || read_and_check(peer, 200_000, 4096));
            rt.block_on(async {
                tokiwa::spawn(async move {
                    let mut at = 0;
                    let mut size = 1;
                    while at < 200_000 {
                        let n = size.min(200_000 - at);
                        let chunk: Vec<u8> = (at..at + n).map(byte).collect();
                        stream.write_all(&chunk).await.unwrap();
                        at += n;
                        size = size % 97 + 1;
                    }
                    stream.shutdown().await.unwrap();
                })
                .await
                .unwrap();
            });
            reader
                .join()
                .unwrap_or_else(|_| panic!("{name}: reader failed"));
        }
    });
}

/// Writes of 8 KiB or more that find nothing queued are sent on the spot
/// (`send.rs`, large writes), the others are queued: small and large
/// writes interleaved, to a reader slow enough that the queue is sometimes
/// busy when a large one comes, keep their order.
#[test]
fn order_across_small_and_large_writes() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 2 << 20;
        for (name, rt) in runtimes("order_across_small_and_large_writes") {
            let (mut stream, peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_SNDBUF, 32768);
            set_buf(peer.as_raw_fd(), libc::SO_RCVBUF, 32768);
            let reader = std::thread::spawn(move || read_and_check(peer, LEN, 3000));
            rt.block_on(async {
                tokiwa::spawn(async move {
                    let data: Vec<u8> = (0..LEN).map(byte).collect();
                    let mut at = 0;
                    let mut i = 0;
                    while at < LEN {
                        let size = if i % 3 == 0 {
                            8192 + i * 7919 % 40_000
                        } else {
                            1 + i * 31 % 500
                        };
                        let end = (at + size).min(LEN);
                        stream.write_all(&data[at..end]).await.unwrap();
                        at = end;
                        i += 1;
                    }
                    stream.shutdown().await.unwrap();
                })
                .await
                .unwrap();
            });
            reader
                .join()
                .unwrap_or_else(|_| panic!("{name}: reader failed"));
        }
    });
}

#[test]
fn order_across_partial_sends_to_a_slow_reader() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 2 << 20;
        for (name, rt) in runtimes("order_across_partial_sends") {
            let (mut stream, peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_SNDBUF, 16384);
            set_buf(peer.as_raw_fd(), libc::SO_RCVBUF, 16384);
            // A slow reader: small reads, so the writer's socket buffer
            // fills and the ring's sends come back short.
            let reader = std::thread::spawn(move || read_and_check(peer, LEN, 1000));
            rt.block_on(async {
                tokiwa::spawn(async move {
                    let data: Vec<u8> = (0..LEN).map(byte).collect();
                    for chunk in data.chunks(100_000) {
                        stream.write_all(chunk).await.unwrap();
                    }
                    stream.flush().await.unwrap();
                    stream.shutdown().await.unwrap();
                })
                .await
                .unwrap();
            });
            reader
                .join()
                .unwrap_or_else(|_| panic!("{name}: reader failed"));
        }
    });
}

#[test]
fn peer_reset_with_sends_queued_is_an_error() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("peer_reset_with_sends_queued") {
            let (mut stream, mut peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_SNDBUF, 4096);
            let (read_tx, read_rx) = std::sync::mpsc::channel();
            let resetter = std::thread::spawn(move || {
                let mut buf = [0u8; 1000];
                peer.read_exact(&mut buf).unwrap();
                for (k, b) in buf.iter().enumerate() {
                    assert_eq!(*b, byte(k));
                }
                reset(peer);
                read_tx.send(()).unwrap();
            });
            let err = rt.block_on(async {
                tokiwa::spawn(async move {
                    let data: Vec<u8> = (0..64 << 20).map(byte).collect();
                    // Bytes reported as accepted; the writes and flushes
                    // must fail once the peer is gone, never report the
                    // whole stream as written.
                    let mut at = 0;
                    loop {
                        match stream.write(&data[at..(at + 65536).min(data.len())]).await {
                            Ok(n) => at += n,
                            Err(e) => return (e, at),
                        }
                        if at == data.len() {
                            match stream.flush().await {
                                Ok(()) => panic!(
                                    "the whole 64 MiB flushed to a peer that read 1000 bytes"
                                ),
                                Err(e) => return (e, at),
                            }
                        }
                    }
                })
                .await
                .unwrap()
            });
            read_rx.recv().unwrap();
            resetter.join().unwrap();
            let (err, _) = err;
            assert!(
                matches!(
                    err.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ),
                "{name}: {err:?}"
            );
        }
    });
}

#[test]
fn stream_dropped_with_sends_queued_delivers_them_then_eof() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 1 << 20;
        for (name, rt) in runtimes("stream_dropped_with_sends_queued") {
            let (mut stream, peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_SNDBUF, 4096);
            rt.block_on(async {
                tokiwa::spawn(async move {
                    let data: Vec<u8> = (0..LEN).map(byte).collect();
                    let mut at = 0;
                    // Accepted without a reader: at most the queue's bound
                    // plus the socket buffers, so stop at the first wait.
                    while at < LEN {
                        let write = stream.write(&data[at..]);
                        match tokiwa::time::timeout(Duration::from_millis(100), write).await {
                            Ok(Ok(n)) => at += n,
                            Ok(Err(e)) => panic!("write: {e}"),
                            Err(_) => break,
                        }
                    }
                    // Dropped with bytes queued.
                    drop(stream);
                    at
                })
                .await
                .unwrap()
            });
            // Everything accepted arrives, then EOF (the queue closed the
            // descriptor once it had sent it), while the runtime runs.
            let got = rt.block_on(async {
                tokiwa::task::spawn_blocking(move || {
                    let mut got = Vec::new();
                    let mut peer = peer;
                    peer.read_to_end(&mut got).unwrap();
                    got
                })
                .await
            });
            let got = got.unwrap();
            for (k, b) in got.iter().enumerate() {
                assert_eq!(*b, byte(k), "{name}: byte {k}");
            }
            assert!(!got.is_empty(), "{name}");
            drop(rt);
        }
    });
}

#[test]
fn peer_that_never_reads_bounds_memory_and_others_are_served() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("peer_that_never_reads") {
            let (mut stuck, stuck_peer) = pair(&rt);
            set_buf(stuck.as_raw_fd(), libc::SO_SNDBUF, 4096);
            set_buf(stuck_peer.as_raw_fd(), libc::SO_RCVBUF, 4096);
            let (mut other, mut other_peer) = pair(&rt);
            let echo = std::thread::spawn(move || {
                let mut buf = [0u8; 64];
                while other_peer.read_exact(&mut buf).is_ok() {
                    other_peer.write_all(&buf).unwrap();
                }
            });
            let accepted = rt.block_on(async move {
                let writer = tokiwa::spawn(async move {
                    let data = vec![7u8; 1 << 20];
                    let mut accepted = 0usize;
                    // 100 MiB offered; the writer must stall far short.
                    while accepted < 100 << 20 {
                        let write = stuck.write(&data);
                        match tokiwa::time::timeout(Duration::from_millis(200), write).await {
                            Ok(Ok(n)) => accepted += n,
                            Ok(Err(e)) => panic!("write: {e}"),
                            Err(_) => break,
                        }
                    }
                    (accepted, stuck)
                });
                // The same runtime (on a current-thread runtime, the same
                // worker) still serves another socket meanwhile.
                for round in 0..100u8 {
                    other.write_all(&[round; 64]).await.unwrap();
                    let mut back = [0u8; 64];
                    other.read_exact(&mut back).await.unwrap();
                    assert_eq!(back, [round; 64]);
                }
                drop(other);
                writer.await.unwrap()
            });
            echo.join().unwrap();
            let (accepted, stuck) = accepted;
            // Bounded by the queue (256 KiB) plus the kernel's buffers
            // (small here, doubled by the kernel, and the loopback's).
            assert!(
                accepted < 4 << 20,
                "{name}: {accepted} bytes accepted from a writer whose peer never reads"
            );
            drop(stuck);
            drop(stuck_peer);
            drop(rt);
        }
    });
}

#[test]
fn try_write_and_into_std_wait_for_queued_bytes() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("try_write_and_into_std") {
            let (mut stream, peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_SNDBUF, 4096);
            set_buf(peer.as_raw_fd(), libc::SO_RCVBUF, 4096);
            let uring = name.starts_with("Uring");
            let stream = rt.block_on(async {
                tokiwa::spawn(async move {
                    // Fill the socket and queue more.
                    let data = vec![1u8; 64 << 10];
                    let mut queued = false;
                    for _ in 0..64 {
                        let write = stream.write(&data);
                        match tokiwa::time::timeout(Duration::from_millis(100), write).await {
                            Ok(r) => {
                                r.unwrap();
                            }
                            Err(_) => {
                                queued = true;
                                break;
                            }
                        }
                    }
                    assert!(queued, "the writes never waited");
                    // Never overtakes queued bytes.
                    let e = stream.try_write(b"x").unwrap_err();
                    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
                    stream
                })
                .await
                .unwrap()
            });
            if uring {
                // Refused while bytes are queued (a std socket cannot send
                // them); the stream is gone, its bytes still delivered.
                let e = stream.into_std().unwrap_err();
                assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{name}");
            } else {
                stream.into_std().unwrap();
            }
            drop(peer);
        }
    });
}

#[test]
fn unix_stream_order_and_drop() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("unix_stream_order_and_drop") {
            let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
            a.set_nonblocking(true).unwrap();
            let got = rt.block_on(async {
                let reader = tokiwa::task::spawn_blocking(move || {
                    let mut got = Vec::new();
                    let mut b = b;
                    b.read_to_end(&mut got).unwrap();
                    got
                });
                tokiwa::spawn(async move {
                    let mut a = UnixStream::from_std(a).unwrap();
                    let mut at = 0;
                    while at < 300_000 {
                        let n = (at % 113 + 1).min(300_000 - at);
                        let chunk: Vec<u8> = (at..at + n).map(byte).collect();
                        a.write_all(&chunk).await.unwrap();
                        at += n;
                    }
                    // Dropped unflushed: delivered all the same, then EOF.
                })
                .await
                .unwrap();
                reader.await.unwrap()
            });
            assert_eq!(got.len(), 300_000, "{name}");
            for (k, b) in got.iter().enumerate() {
                assert_eq!(*b, byte(k), "{name}: byte {k}");
            }
        }
    });
}

#[test]
fn write_half_dropped_shuts_down_after_its_queued_bytes() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("write_half_dropped") {
            let (stream, peer) = pair(&rt);
            rt.block_on(async {
                let reader =
                    tokiwa::task::spawn_blocking(move || read_and_check(peer, 500_000, 8192));
                tokiwa::spawn(async move {
                    let (_r, mut w) = stream.into_split();
                    let data: Vec<u8> = (0..500_000).map(byte).collect();
                    for chunk in data.chunks(1000) {
                        w.write_all(chunk).await.unwrap();
                    }
                    // The half-close on drop comes after the bytes.
                    drop(w);
                    std::future::pending::<()>().await
                });
                reader
                    .await
                    .unwrap_or_else(|_| panic!("{name}: reader failed"));
            });
        }
    });
}

/// Writes spend the task's cooperative budget, as every poll of a tokio
/// resource does: a task making one-byte writes to a socket with room gets
/// `Pending` once its budget is spent (tokio's is 128 per poll), and every
/// byte it wrote arrives once, in order.
#[test]
fn writes_spend_the_task_budget() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 1000;
        for (name, rt) in runtimes("writes_spend_the_task_budget") {
            let (mut stream, peer) = pair(&rt);
            let reader = std::thread::spawn(move || read_and_check(peer, LEN, 4096));
            let readies = rt.block_on(async {
                tokiwa::spawn(async move {
                    let mut at = 0;
                    std::future::poll_fn(|cx| loop {
                        let byte = [byte(at)];
                        match std::pin::Pin::new(&mut stream).poll_write(cx, &byte) {
                            Poll::Ready(Ok(n)) => {
                                assert_eq!(n, 1);
                                at += 1;
                                if at == LEN {
                                    return Poll::Ready(());
                                }
                            }
                            Poll::Ready(Err(e)) => panic!("write: {e}"),
                            Poll::Pending => return Poll::Ready(()),
                        }
                    })
                    .await;
                    let readies = at;
                    while at < LEN {
                        stream.write_all(&[byte(at)]).await.unwrap();
                        at += 1;
                    }
                    stream.shutdown().await.unwrap();
                    readies
                })
                .await
                .unwrap()
            });
            reader.join().unwrap();
            assert!(
                readies > 0 && readies <= 128,
                "{name}: {readies} writes in one poll of the task; its budget is 128"
            );
        }
    });
}

/// A stream's first writes go straight to the socket, as in readiness
/// mode (`send.rs`, `DIRECT_WRITES`): a server that answers one request
/// and closes does not wait for a send completion before its flush. Its
/// later writes are queued and go out with the worker's next submit, so a
/// flush right after one of them waits for that submit. Either way the
/// peer gets every byte, in order.
#[test]
fn first_writes_are_sent_at_once_later_ones_with_the_turn() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("first_writes_are_sent_at_once") {
            let (mut stream, peer) = pair(&rt);
            let uring = name.starts_with("Uring");
            let label = name.to_string();
            let reader = std::thread::spawn(move || read_and_check(peer, 4 * 100, 4096));
            rt.block_on(async {
                tokiwa::spawn(async move {
                    let mut flushed_at_once = Vec::new();
                    for k in 0..4 {
                        let chunk: Vec<u8> = (k * 100..(k + 1) * 100).map(byte).collect();
                        stream.write_all(&chunk).await.unwrap();
                        let mut flush = std::pin::pin!(stream.flush());
                        let first =
                            std::future::poll_fn(|cx| Poll::Ready(flush.as_mut().poll(cx))).await;
                        flushed_at_once.push(first.is_ready());
                        flush.await.unwrap();
                    }
                    if uring {
                        assert_eq!(flushed_at_once, [true, true, false, false], "{label}");
                    } else {
                        assert_eq!(flushed_at_once, [true; 4], "{label}");
                    }
                    stream.shutdown().await.unwrap();
                })
                .await
                .unwrap();
            });
            reader
                .join()
                .unwrap_or_else(|_| panic!("{name}: reader failed"));
        }
    });
}
