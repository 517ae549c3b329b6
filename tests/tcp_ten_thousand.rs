#![cfg(feature = "full")]
//! 10,000 sockets open at once on a 2-worker runtime, on every driver:
//! 5,000 TCP connections over loopback, both ends registered, each doing
//! one echo while all are open, all closed at the end, and the runtime
//! shut down.
//!
//! Needs a descriptor limit above 10,000: the soft limit is raised to the
//! hard one; where the hard limit is lower, the test says so and skips.

#[macro_use]
mod support;

use support::{Flavor, TEST_TIMEOUT};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::task::JoinSet;

const CONNECTIONS: usize = 5_000;

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

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

async fn echo_over_ten_thousand_sockets() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The server accepts all of them, then echoes 8 bytes on each, and
    // gives the streams back (still open).
    let server = tokiwa::spawn(async move {
        let mut accepted = Vec::with_capacity(CONNECTIONS);
        for _ in 0..CONNECTIONS {
            accepted.push(listener.accept().await.unwrap().0);
        }
        let mut echoes = JoinSet::new();
        for mut stream in accepted {
            echoes.spawn(async move {
                let mut id = [0u8; 8];
                stream.read_exact(&mut id).await.unwrap();
                stream.write_all(&id).await.unwrap();
                stream
            });
        }
        echoes.join_all().await
    });
    let mut clients = Vec::with_capacity(CONNECTIONS);
    for _ in 0..CONNECTIONS {
        clients.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut trips = JoinSet::new();
    for (i, mut client) in clients.into_iter().enumerate() {
        trips.spawn(async move {
            let id = (i as u64).to_le_bytes();
            client.write_all(&id).await.unwrap();
            let mut back = [0u8; 8];
            client.read_exact(&mut back).await.unwrap();
            assert_eq!(back, id, "connection {i}");
            client
        });
    }
    let clients = trips.join_all().await;
    let served = server.await.unwrap();
    assert_eq!(clients.len(), CONNECTIONS);
    assert_eq!(served.len(), CONNECTIONS);
    let open = open_fds();
    assert!(
        open >= 2 * CONNECTIONS,
        "only {open} descriptors open at the peak"
    );
    drop(clients);
    drop(served);
}

#[test]
fn ten_thousand_sockets_on_two_workers() {
    support::net::raise_nofile_limit();
    let limit = nofile_soft_limit();
    if limit < (2 * CONNECTIONS + 512) as u64 {
        eprintln!("RLIMIT_NOFILE is {limit}, too low for 10,000 sockets: skipped");
        return;
    }
    support::watchdog(TEST_TIMEOUT, || {
        for &driver in support::DRIVERS {
            let rt = Flavor::multi_thread(2).on(driver).build();
            rt.block_on(echo_over_ten_thousand_sockets());
            support::within(TEST_TIMEOUT, "shutting the runtime down", move || drop(rt));
        }
    });
}
