#![cfg(feature = "full")]
//! Completion receives when the provided buffer ring runs dry
//! (`Builder::uring_completion_io`, `uring/recv.rs`): 5,000 Unix stream
//! pairs (10,000 sockets) each get a message before anything reads them;
//! then one task reads all of the runtime ends at once, as a proxy or a
//! `select!` over many sockets does. Its first poll arms 5,000 receives,
//! which go to the kernel in one submission and find their data there, so
//! they complete at once and take far more buffers than the ring has (128):
//! most fail with `ENOBUFS`. Each such stream reads its socket directly
//! once, then arms again, and every reader still gets its bytes, in order,
//! exactly once, then end of stream. The failures stay linear in the
//! number of streams: arming again at once, while the ring stayed dry,
//! failed about 20 times per stream here (98,216 for 5,000). In legacy
//! mode the switch does nothing and the same test runs through readiness.
//!
//! Needs a descriptor limit above 10,000: the soft limit is raised to the
//! hard one; where the hard limit is lower, the test says so and skips.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::Write;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::pin::Pin;
use std::task::Poll;

use support::completion::runtimes;
use support::{watchdog, TEST_TIMEOUT};
use tokiwa::io::{AsyncRead, ReadBuf};
use tokiwa::net::UnixStream;

const PAIRS: usize = 5_000;

fn nofile_soft_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a live, writable `rlimit`.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    limit.rlim_cur
}

/// The message of pair `i`: its index, then a byte that depends on it.
fn message(i: usize) -> [u8; 9] {
    let mut m = [0u8; 9];
    m[..8].copy_from_slice(&(i as u64).to_le_bytes());
    m[8] = (i % 251) as u8;
    m
}

/// Reads `len` bytes from every stream, polling all of the reads from one
/// task, then one more read from each, which must be end of stream.
async fn read_all_at_once(mut streams: Vec<UnixStream>, len: usize) -> Vec<Vec<u8>> {
    let mut got = vec![Vec::with_capacity(len); streams.len()];
    let mut eof = vec![false; streams.len()];
    poll_fn(|cx| {
        let mut pending = false;
        for (i, stream) in streams.iter_mut().enumerate() {
            while !eof[i] {
                let mut chunk = [0u8; 64];
                let mut buf = ReadBuf::new(&mut chunk);
                match Pin::new(&mut *stream).poll_read(cx, &mut buf) {
                    Poll::Ready(Ok(())) if buf.filled().is_empty() => eof[i] = true,
                    Poll::Ready(Ok(())) => got[i].extend_from_slice(buf.filled()),
                    Poll::Ready(Err(e)) => panic!("stream {i}: {e}"),
                    Poll::Pending => {
                        pending = true;
                        break;
                    }
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    got
}

#[test]
fn receives_that_find_the_buffer_ring_empty_read_directly_and_lose_nothing() {
    support::net::raise_nofile_limit();
    let limit = nofile_soft_limit();
    if limit < (2 * PAIRS + 512) as u64 {
        eprintln!("RLIMIT_NOFILE is {limit}, too low for 10,000 sockets: skipped");
        return;
    }
    watchdog(TEST_TIMEOUT, || {
        for (name, rt) in runtimes("recv_no_buffers") {
            let (ours, peers): (Vec<_>, Vec<_>) = (0..PAIRS)
                .map(|i| {
                    let (ours, mut peer) = StdUnixStream::pair().unwrap();
                    ours.set_nonblocking(true).unwrap();
                    // Waiting in the socket before any receive is armed.
                    peer.write_all(&message(i)).unwrap();
                    (ours, peer)
                })
                .unzip();
            let reader = rt.spawn(async move {
                let streams = ours
                    .into_iter()
                    .map(|std| UnixStream::from_std(std).unwrap())
                    .collect();
                // Unconstrained: every read of the first poll arms its
                // receive (the budget would stop them after 128).
                tokiwa::task::unconstrained(read_all_at_once(streams, 9)).await
            });
            // End of stream for every reader once its message is read.
            drop(peers);
            let got = rt.block_on(reader).unwrap();
            for (i, bytes) in got.iter().enumerate() {
                assert_eq!(&bytes[..], &message(i)[..], "{name}: pair {i}'s bytes");
            }
            let workers = rt.metrics().num_workers();
            let no_buffers: u64 = (0..workers)
                .map(|w| rt.metrics().worker_recv_no_buffers_count(w))
                .sum();
            eprintln!("{name}: {no_buffers} receives found the buffer ring empty");
            if name.starts_with("Uring") {
                // 128 buffers for 5,000 receives completing in one go.
                assert!(
                    no_buffers > 0,
                    "{name}: no receive found the buffer ring empty; the test did not reach ENOBUFS"
                );
                // A pair's reads arm twice (its message, its end of
                // stream); each arm meets ENOBUFS at most once, the next
                // read being direct. A third per pair allows for a
                // multishot the kernel ended early (CQ overflow).
                assert!(
                    no_buffers <= 3 * PAIRS as u64,
                    "{name}: {no_buffers} failed receives for {PAIRS} streams: armed again into the dry ring"
                );
            } else {
                assert_eq!(no_buffers, 0, "{name}: legacy mode has no buffer ring");
            }
            support::within(TEST_TIMEOUT, "shutting the runtime down", move || drop(rt));
        }
    });
}
