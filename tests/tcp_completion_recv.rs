#![cfg(feature = "full")]
//! Stream reads with `Builder::uring_completion_io(true)`: in io_uring
//! mode a reader that finds nothing queued arms a multishot receive into
//! the ring's provided buffers, and reads take the queued bytes
//! (`uring/recv.rs`); in legacy mode the switch does nothing, and the same
//! tests check that the behaviour is the same. Order across reads of every
//! size and across large and small message phases, EOF, a peer reset while a receive is armed, a stream dropped with
//! a receive armed (on its worker and elsewhere: the peer sees EOF at
//! once), `readable()`/`try_read`/`peek` after a receive was armed,
//! `into_std` after one, and a reader that stops reading (what is received
//! for it stays bounded, and the worker's other sockets are served), and
//! the cooperative budget each read of queued bytes spends.

#[macro_use]
mod support;

use std::future::{poll_fn, Future};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::pin::pin;
use std::task::Poll;

use support::completion::{byte, pair, reset, runtimes, set_buf};
use support::{watchdog, TEST_TIMEOUT};
use tokiwa::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokiwa::net::TcpStream;

/// Polls a read of `stream` once, which must be `Pending` (nothing was
/// sent), and drops it: with completion I/O a receive is left armed.
async fn arm_a_receive(stream: &mut TcpStream) {
    let mut buf = [0u8; 16];
    let mut read = pin!(stream.read(&mut buf));
    poll_fn(|cx| {
        assert!(read.as_mut().poll(cx).is_pending(), "nothing was sent yet");
        Poll::Ready(())
    })
    .await;
}

#[test]
fn order_across_reads_of_every_size_then_eof() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 1 << 20;
        for (name, rt) in runtimes("order_across_reads_of_every_size") {
            let (mut stream, mut peer) = pair(&rt);
            let writer = std::thread::spawn(move || {
                let mut at = 0;
                let mut size = 1;
                while at < LEN {
                    let n = size.min(LEN - at);
                    let chunk: Vec<u8> = (at..at + n).map(byte).collect();
                    peer.write_all(&chunk).unwrap();
                    at += n;
                    size = size * 7 % 40_000 + 1;
                }
            });
            let got = rt.block_on(async {
                tokiwa::spawn(async move {
                    let mut buf = vec![0u8; 70_000];
                    let mut at = 0;
                    let mut size = 1;
                    loop {
                        let n = stream.read(&mut buf[..size]).await.unwrap();
                        if n == 0 {
                            break;
                        }
                        for (k, b) in buf[..n].iter().enumerate() {
                            assert_eq!(*b, byte(at + k), "byte {} out of order", at + k);
                        }
                        at += n;
                        size = size * 13 % 70_000 + 1;
                    }
                    // The end of the stream stays the end.
                    assert_eq!(stream.read(&mut buf).await.unwrap(), 0);
                    at
                })
                .await
                .unwrap()
            });
            writer.join().unwrap();
            assert_eq!(got, LEN, "{name}: bytes read before EOF");
        }
    });
}

/// Large messages turn a stream to reads through readiness and small ones
/// turn it back (`recv.rs`, `BULK_BYTES`): phases of 32 KiB messages and of
/// 100-byte ones sent one at a time (the peer waits for a one-byte ack of
/// each), so every switch happens with the stream in use. Every byte
/// arrives once and in order.
#[test]
fn order_across_large_and_small_message_phases() {
    watchdog(TEST_TIMEOUT, || {
        // (message size, count) per phase.
        const PHASES: [(usize, usize); 5] = [
            (32 << 10, 8),
            (100, 40),
            (32 << 10, 8),
            (100, 40),
            (32 << 10, 2),
        ];
        let total: usize = PHASES.iter().map(|(size, n)| size * n).sum();
        for (name, rt) in runtimes("order_across_large_and_small_message_phases") {
            let (mut stream, mut peer) = pair(&rt);
            let writer = std::thread::spawn(move || {
                let mut at = 0;
                for (size, count) in PHASES {
                    for _ in 0..count {
                        let message: Vec<u8> = (at..at + size).map(byte).collect();
                        peer.write_all(&message).unwrap();
                        at += size;
                        let mut ack = [0u8; 1];
                        peer.read_exact(&mut ack).unwrap();
                    }
                }
            });
            let got = rt.block_on(async {
                tokiwa::spawn(async move {
                    let mut buf = vec![0u8; 64 << 10];
                    let mut at = 0;
                    for (size, count) in PHASES {
                        for _ in 0..count {
                            let mut have = 0;
                            while have < size {
                                let n = stream.read(&mut buf[have..size]).await.unwrap();
                                assert!(n > 0, "EOF before byte {}", at + have);
                                have += n;
                            }
                            for (k, b) in buf[..size].iter().enumerate() {
                                assert_eq!(*b, byte(at + k), "byte {} out of order", at + k);
                            }
                            at += size;
                            stream.write_all(&[1]).await.unwrap();
                        }
                    }
                    at
                })
                .await
                .unwrap()
            });
            writer.join().unwrap();
            assert_eq!(got, total, "{name}: bytes read");
        }
    });
}

#[test]
fn peer_reset_while_a_receive_is_armed_is_an_error() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("peer_reset_while_a_receive_is_armed") {
            let (mut stream, peer) = pair(&rt);
            let (armed_tx, armed_rx) = std::sync::mpsc::channel();
            let resetter = std::thread::spawn(move || {
                armed_rx.recv().unwrap();
                reset(peer);
            });
            let err = rt.block_on(async {
                tokiwa::spawn(async move {
                    arm_a_receive(&mut stream).await;
                    armed_tx.send(()).unwrap();
                    let mut buf = [0u8; 64];
                    stream.read(&mut buf).await.unwrap_err()
                })
                .await
                .unwrap()
            });
            resetter.join().unwrap();
            assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset, "{name}");
        }
    });
}

/// A stream dropped with a receive in the kernel, by the task on its worker or
/// by another thread, while the worker that owns the ring is kept busy
/// (its task blocks until the peer has seen EOF): the socket must close
/// at once all the same.
fn dropped_with_a_receive_armed(test: &str, on_its_worker: bool) {
    for (name, rt) in runtimes(test) {
        let (mut stream, mut peer) = pair(&rt);
        let (eof_tx, eof_rx) = std::sync::mpsc::channel();
        let watcher = std::thread::spawn(move || {
            peer.write_all(b"x").unwrap();
            let mut buf = [0u8; 8];
            let n = peer.read(&mut buf).unwrap();
            eof_tx.send(()).unwrap();
            n
        });
        let (out_tx, out_rx) = std::sync::mpsc::channel::<TcpStream>();
        let dropper = std::thread::spawn(move || drop(out_rx.recv()));
        rt.block_on(async {
            tokiwa::spawn(async move {
                // A multishot receive delivered this byte and stays armed
                // in the kernel.
                let mut x = [0u8; 1];
                stream.read_exact(&mut x).await.unwrap();
                if on_its_worker {
                    drop(stream);
                } else {
                    out_tx.send(stream).unwrap();
                }
                // Busy until the peer saw EOF: this worker turns its ring
                // no more until then.
                eof_rx.recv().unwrap();
            })
            .await
            .unwrap()
        });
        dropper.join().unwrap();
        assert_eq!(watcher.join().unwrap(), 0, "{name}: EOF after the drop");
    }
}

#[test]
fn stream_dropped_on_its_worker_with_a_receive_armed_closes_at_once() {
    watchdog(TEST_TIMEOUT, || {
        dropped_with_a_receive_armed("dropped_on_its_worker", true)
    });
}

#[test]
fn stream_dropped_elsewhere_with_a_receive_armed_closes_at_once() {
    watchdog(TEST_TIMEOUT, || {
        dropped_with_a_receive_armed("dropped_elsewhere", false)
    });
}

#[test]
fn readable_try_read_and_peek_see_bytes_received_for_an_armed_receive() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("readable_try_read_and_peek") {
            let (mut stream, mut peer) = pair(&rt);
            let (armed_tx, armed_rx) = std::sync::mpsc::channel();
            let writer = std::thread::spawn(move || {
                armed_rx.recv().unwrap();
                peer.write_all(b"hello").unwrap();
                armed_rx.recv().unwrap();
                peer.write_all(b"world").unwrap();
                peer
            });
            rt.block_on(async {
                tokiwa::spawn(async move {
                    arm_a_receive(&mut stream).await;
                    armed_tx.send(()).unwrap();
                    let mut buf = [0u8; 16];
                    // tokio's readiness loop: readable, then try_read until
                    // it stops saying WouldBlock.
                    let n = loop {
                        stream.readable().await.unwrap();
                        match stream.try_read(&mut buf) {
                            Ok(n) => break n,
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                            Err(e) => panic!("try_read: {e}"),
                        }
                    };
                    assert_eq!(&buf[..n], b"hello");
                    arm_a_receive(&mut stream).await;
                    armed_tx.send(()).unwrap();
                    // A peek leaves the bytes for the read.
                    let n = stream.peek(&mut buf).await.unwrap();
                    assert_eq!(&buf[..n], &b"world"[..n]);
                    let mut all = Vec::new();
                    while all.len() < 5 {
                        let n = stream.read(&mut buf).await.unwrap();
                        assert_ne!(n, 0, "EOF before the bytes");
                        all.extend_from_slice(&buf[..n]);
                    }
                    assert_eq!(all, b"world");
                })
                .await
                .unwrap()
            });
            drop(writer.join().unwrap());
            let _ = name;
        }
    });
}

#[test]
fn into_std_after_a_receive_was_armed_loses_no_byte() {
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("into_std_after_a_receive") {
            let (mut stream, mut peer) = pair(&rt);
            let std_stream = rt.block_on(async {
                tokiwa::spawn(async move {
                    arm_a_receive(&mut stream).await;
                    // On the worker that armed it: cancelled at once.
                    stream.into_std().unwrap()
                })
                .await
                .unwrap()
            });
            peer.write_all(b"abc").unwrap();
            std_stream.set_nonblocking(false).unwrap();
            let mut got = [0u8; 3];
            (&std_stream).read_exact(&mut got).unwrap();
            assert_eq!(&got, b"abc", "{name}: the std stream gets every byte");
        }
    });
}

#[test]
fn a_reader_that_stops_reading_bounds_what_is_received_and_others_are_served() {
    watchdog(TEST_TIMEOUT, || {
        // Far more than the socket buffers and the receive queue hold.
        const LIMIT: usize = 100 << 20;
        for (name, rt) in runtimes("a_reader_that_stops_reading") {
            let (mut stream, peer) = pair(&rt);
            set_buf(stream.as_raw_fd(), libc::SO_RCVBUF, 64 << 10);
            set_buf(peer.as_raw_fd(), libc::SO_SNDBUF, 64 << 10);
            let (mut other, mut other_peer) = pair(&rt);
            let (first_tx, first_rx) = std::sync::mpsc::channel();
            let (done_tx, done_rx) = tokiwa::sync::oneshot::channel::<usize>();
            // The sending side, on a thread of its own: fills what the
            // receiving side holds, until its writes block for good.
            let sender = std::thread::spawn(move || {
                let mut peer = peer;
                peer.write_all(&[7]).unwrap();
                first_rx.recv().unwrap();
                peer.set_nonblocking(true).unwrap();
                let chunk = vec![7u8; 1 << 16];
                let mut sent = 1;
                let mut blocked = 0;
                while sent < LIMIT && blocked < 50 {
                    match peer.write(&chunk) {
                        Ok(n) => {
                            sent += n;
                            blocked = 0;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            // The same answer many times in a row, with
                            // the other socket served in between: the
                            // receiving side takes no more.
                            blocked += 1;
                            other_peer.write_all(b"ping").unwrap();
                            let mut pong = [0u8; 4];
                            other_peer.read_exact(&mut pong).unwrap();
                            assert_eq!(&pong, b"ping", "the other socket is served");
                        }
                        Err(e) => panic!("write: {e}"),
                    }
                }
                done_tx.send(sent).unwrap();
                // EOF for both once the reader resumed.
                drop(peer);
                drop(other_peer);
            });
            let (sent, total) = rt.block_on(async move {
                let reader = tokiwa::spawn(async move {
                    let mut one = [0u8; 1];
                    stream.read_exact(&mut one).await.unwrap();
                    first_tx.send(()).unwrap();
                    // Holds the stream, reading nothing, until the sender
                    // is done.
                    let sent = done_rx.await.unwrap();
                    let mut total = 1;
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        let n = stream.read(&mut buf).await.unwrap();
                        if n == 0 {
                            return (sent, total);
                        }
                        total += n;
                    }
                });
                let echo = tokiwa::spawn(async move {
                    let mut buf = [0u8; 64];
                    loop {
                        let n = other.read(&mut buf).await.unwrap();
                        if n == 0 {
                            return;
                        }
                        other.write_all(&buf[..n]).await.unwrap();
                    }
                });
                let result = reader.await.unwrap();
                echo.await.unwrap();
                result
            });
            sender
                .join()
                .unwrap_or_else(|_| panic!("{name}: sender failed"));
            assert!(
                sent < LIMIT,
                "{name}: {sent} bytes were taken from a peer whose reader stopped reading"
            );
            assert_eq!(total, sent, "{name}: every byte sent is read once resumed");
        }
    });
}

/// Reads of bytes already queued spend the task's cooperative budget, as
/// every poll of a tokio resource does: a task reading a full queue one
/// byte at a time gets `Pending` once its budget is spent (tokio's is 128
/// per poll), and the bytes stay for its next poll.
#[test]
fn reads_of_queued_bytes_spend_the_task_budget() {
    watchdog(TEST_TIMEOUT, || {
        const LEN: usize = 1000;
        for (name, rt) in runtimes("reads_of_queued_bytes_spend_the_task_budget") {
            let (mut stream, mut peer) = pair(&rt);
            peer.write_all(&[7u8; LEN]).unwrap();
            let (readies, rest) = rt.block_on(async {
                tokiwa::spawn(async move {
                    // The first byte: with completion I/O, this arms the
                    // receive, which queues what the peer sent.
                    let mut first = [0u8; 1];
                    stream.read_exact(&mut first).await.unwrap();
                    // A new poll, with a whole budget.
                    tokiwa::task::yield_now().await;
                    let mut readies = 0;
                    poll_fn(|cx| loop {
                        let mut byte = [0u8; 1];
                        let mut buf = tokiwa::io::ReadBuf::new(&mut byte);
                        match std::pin::Pin::new(&mut stream).poll_read(cx, &mut buf) {
                            Poll::Ready(Ok(())) => {
                                assert_eq!(buf.filled(), [7]);
                                readies += 1;
                                if readies == LEN - 1 {
                                    return Poll::Ready(());
                                }
                            }
                            Poll::Ready(Err(e)) => panic!("read: {e}"),
                            Poll::Pending => return Poll::Ready(()),
                        }
                    })
                    .await;
                    let mut rest = vec![0u8; LEN - 1 - readies];
                    stream.read_exact(&mut rest).await.unwrap();
                    (readies, rest.len())
                })
                .await
                .unwrap()
            });
            assert!(
                readies > 0 && readies <= 128,
                "{name}: {readies} reads in one poll of the task; its budget is 128"
            );
            assert_eq!(readies + rest, LEN - 1, "{name}: every byte read once");
        }
    });
}
