#![cfg(feature = "full")]
//! An accept that runs out of descriptors (`EMFILE`) returns the error,
//! and the listener accepts the waiting connections once descriptors are
//! free again.
//!
//! The descriptor limit is per process, so this binary holds this one
//! test and nothing else: it lowers `RLIMIT_NOFILE`, fills every free
//! descriptor number below it, and restores both before it finishes.

#[macro_use]
mod support;

use std::io::Write;

use support::fds::Exhausted;
use support::{Flavor, TEST_TIMEOUT};
use tokiwa::io::AsyncReadExt;
use tokiwa::net::TcpListener;

fn accept_survives_emfile(flavor: Flavor) {
    const CLIENTS: u8 = 3;
    let rt = flavor.build();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The kernel completes these handshakes on its own; the
        // connections wait in the listen backlog until accepted.
        let clients: Vec<std::net::TcpStream> = (0..CLIENTS)
            .map(|i| {
                let mut s = std::net::TcpStream::connect(addr).unwrap();
                s.write_all(&[i]).unwrap();
                s
            })
            .collect();

        let fillers = Exhausted::new();
        for _ in 0..2 {
            let err = listener.accept().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err:?}");
        }
        drop(fillers);

        let mut seen = Vec::new();
        for _ in 0..CLIENTS {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut id = [0u8; 1];
            stream.read_exact(&mut id).await.unwrap();
            seen.push(id[0]);
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..CLIENTS).collect::<Vec<_>>());
        drop(clients);
    });
}

#[test]
fn accept_returns_emfile_then_recovers() {
    support::watchdog(TEST_TIMEOUT, || {
        for &driver in support::DRIVERS {
            for flavor in [Flavor::current_thread(), Flavor::multi_thread(2)] {
                accept_survives_emfile(flavor.on(driver));
            }
        }
    });
}
