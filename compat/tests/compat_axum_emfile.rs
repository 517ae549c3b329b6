//! `tokiwa_compat::axum::serve` out of descriptors: accept fails with
//! `EMFILE`, the server backs off and keeps going, and serves the waiting
//! connections once descriptors are free.
//!
//! The descriptor limit is per process, so this binary holds this one test
//! (both drivers in turn): it lowers `RLIMIT_NOFILE`, fills every free
//! descriptor number below it, and restores both before it finishes.

mod http_support;

use std::fs::File;
use std::io::Write;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use std::future::IntoFuture as _;
use tokiwa::io::AsyncReadExt;
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::runtime::Driver;

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

/// Lowers the soft limit to a little above the highest descriptor in use
/// and opens `/dev/null` until `EMFILE`. Dropping the result frees them;
/// the caller restores the limit.
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

async fn serve_survives_emfile() {
    const CLIENTS: usize = 3;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The kernel completes these handshakes on its own; the connections
    // and their requests wait in the backlog until accepted.
    let clients: Vec<std::net::TcpStream> = (0..CLIENTS)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
                .unwrap();
            s
        })
        .collect();

    let original = nofile_limit();
    let fillers = exhaust_descriptors();
    let app = Router::new().route("/", get(|| async { "still here" }));
    let server = tokiwa::spawn(tokiwa_compat::axum::serve(listener, app).into_future());
    tokiwa::time::sleep(Duration::from_millis(350)).await;
    let ended = server.is_finished();
    drop(fillers);
    set_nofile_limit(original);
    assert!(!ended, "the server ended on EMFILE");

    for client in clients {
        client.set_nonblocking(true).unwrap();
        let mut client = TcpStream::from_std(client).unwrap();
        let mut response = String::new();
        client.read_to_string(&mut response).await.unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response:?}");
        assert!(response.ends_with("still here"), "{response:?}");
    }
    server.abort();
}

#[test]
fn serve_backs_off_on_emfile_then_serves() {
    // One driver after the other: the limit is the whole process's.
    for driver in [Driver::Legacy, Driver::Uring] {
        http_support::run(driver, serve_survives_emfile);
    }
}
