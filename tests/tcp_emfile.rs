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

use std::fs::File;
use std::io::Write;

use support::{Flavor, TEST_TIMEOUT};
use tokiwa::io::AsyncReadExt;
use tokiwa::net::TcpListener;

fn nofile_limit() -> libc::rlimit {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a live, writable `rlimit`.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    limit
}

fn set_nofile_limit(limit: libc::rlimit) {
    // SAFETY: `limit` is a valid `rlimit` no higher than the hard limit.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
}

/// Uses up every descriptor the process may still open: lowers the soft
/// limit to a little above the highest descriptor in use and opens
/// `/dev/null` until `EMFILE`. Dropping the result frees them; the caller
/// restores the limit.
fn exhaust_descriptors() -> Vec<File> {
    let highest = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u64>().ok())
        .max()
        .unwrap();
    let mut limit = nofile_limit();
    limit.rlim_cur = highest + 16;
    set_nofile_limit(limit);
    let mut fillers = Vec::new();
    loop {
        match File::open("/dev/null") {
            Ok(file) => fillers.push(file),
            Err(e) if e.raw_os_error() == Some(libc::EMFILE) => return fillers,
            Err(e) => panic!("unexpected error while filling descriptors: {e}"),
        }
    }
}

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

        let original = nofile_limit();
        let fillers = exhaust_descriptors();
        for _ in 0..2 {
            let err = listener.accept().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err:?}");
        }
        drop(fillers);
        set_nofile_limit(original);

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
