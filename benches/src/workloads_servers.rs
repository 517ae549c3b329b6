// The servers the external-load rows measure, written once against the
// tokio API (and hyper for HTTP).
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`. Each runs in a server process of its own
// (`external::serve`), started by the bench and loaded by another process
// (the bench's own load generator, `wrk` or `redis-benchmark`), so the
// server process's CPU time is the server's alone.

use super::rt;
use super::{HyperIo, HyperTimer};

use std::convert::Infallible;
use std::io::Write as _;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};

use crate::columns::Column;
use crate::external::redis::{Parsed, Store};
use crate::external::ServerKind;
use crate::http_rows::BODY;
use crate::Flavour;

/// Builds the server runtime of `column`, binds a loopback port, prints
/// `PORT <n>` on stdout, and serves `kind` until stdin closes (the bench
/// dropped its end): a thread waits for that and ends the process. The
/// accept loop runs in `block_on`, so a current-thread runtime is driven
/// too.
pub fn serve(kind: ServerKind, column: Column, flavour: Flavour) {
    let runtime = super::w::build(flavour, column);
    let listener = runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let port = listener.local_addr().expect("local_addr").port();
    let mut stdout = std::io::stdout();
    writeln!(stdout, "PORT {port}").expect("stdout");
    stdout.flush().expect("stdout");
    // The bench asks for the runtime's counters with a `COUNTERS` line on
    // stdin (`DUMP`: all of them, on one line); end of stdin ends the
    // process.
    let handle = runtime.handle().clone();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::stdin().lock()) {
            let Ok(line) = line else { break };
            if line.trim() == "COUNTERS" {
                // Counted by the io_uring driver only.
                let cross = super::counters(&handle)
                    .filter(|_| matches!(column, Column::Uring | Column::UringCompletion))
                    .map(|c| c.foreign_io_waits);
                let mut stdout = std::io::stdout().lock();
                let _ = match cross {
                    Some(n) => writeln!(stdout, "COUNTERS cross={n}"),
                    None => writeln!(stdout, "COUNTERS none"),
                };
                let _ = stdout.flush();
            } else if line.trim() == "DUMP" {
                // Every counter, for a person diagnosing a row by hand
                // (`--serve` then `DUMP` before and after a load).
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "DUMP {:?}", super::counters(&handle));
                let _ = stdout.flush();
            }
        }
        std::process::exit(0);
    });
    let store = Arc::new(Store::default());
    runtime.block_on(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let store = store.clone();
            rt::spawn(async move {
                match kind {
                    ServerKind::Echo => echo(stream).await,
                    ServerKind::Redis => redis(stream, store).await,
                    ServerKind::Http => http(stream).await,
                }
            });
        }
    });
}

/// Echoes whatever arrives until the peer closes.
async fn echo(mut stream: TcpStream) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if stream.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A Redis-protocol server for what `redis-benchmark -t get,set` sends:
/// every complete command in the buffer is answered, and the replies of a
/// pipelined batch go out in one write.
async fn redis(mut stream: TcpStream, store: Arc<Store>) {
    let mut input = Vec::with_capacity(16 * 1024);
    let mut output = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        input.extend_from_slice(&chunk[..n]);
        let mut used = 0;
        loop {
            match crate::external::redis::parse(&input[used..]) {
                Parsed::Command(args, len) => {
                    store.execute(&args, &mut output);
                    used += len;
                }
                Parsed::Incomplete => break,
                Parsed::Invalid => return,
            }
        }
        input.drain(..used);
        if !output.is_empty() {
            if stream.write_all(&output).await.is_err() {
                return;
            }
            output.clear();
        }
    }
}

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(BODY))))
}

/// hyper's HTTP/1.1 hello-world, keep-alive or not as the client asks.
async fn http(stream: TcpStream) {
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(HyperTimer::new())
        .serve_connection(HyperIo::new(stream), service_fn(hello))
        .await;
}
