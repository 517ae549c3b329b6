//! `tokiwa_compat::axum::serve` out of descriptors: accept fails with
//! `EMFILE`, the server backs off and keeps going, and serves the waiting
//! connections once descriptors are free.
//!
//! The descriptor limit is per process, so this binary holds this one test
//! (both drivers in turn): it lowers `RLIMIT_NOFILE`, fills every free
//! descriptor number below it, and restores both before it finishes.

mod http_support;
// The descriptor exhaustion of tokiwa's own integration tests.
#[path = "../../tests/support/fds.rs"]
#[allow(dead_code)] // `free_one` is for tokiwa's own tests
mod fds;

use std::io::Write;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use std::future::IntoFuture as _;
use tokiwa::io::AsyncReadExt;
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::runtime::Driver;

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

    let fillers = fds::Exhausted::new();
    let app = Router::new().route("/", get(|| async { "still here" }));
    let server = tokiwa::spawn(tokiwa_compat::axum::serve(listener, app).into_future());
    tokiwa::time::sleep(Duration::from_millis(350)).await;
    let ended = server.is_finished();
    drop(fillers);
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
