// The http_hello server, written once against the tokio API and hyper.
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`, and `HyperIo`/`HyperTimer` to
// hyper-util's `TokioIo`/`TokioTimer` or tokiwa-compat's
// `TokiwaIo`/`TokiwaTimer`. The load comes from `http_rows.rs`'s
// one-thread epoll load generator, which knows nothing of either runtime.

use super::rt;
use super::{HyperIo, HyperTimer};

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};

use crate::columns::Column;
use crate::http_rows::{load, pin_to, pinned, HttpRound, HttpShape, BODY, SERVER_WORKERS};

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(BODY))))
}

/// Serves hello-world over HTTP/1.1 on a fresh `SERVER_WORKERS`-worker
/// runtime of `column`, loads it with `shape`, and returns what the client
/// measured.
pub fn http_hello_round(column: Column, shape: HttpShape) -> HttpRound {
    let mut builder = rt::runtime::Builder::new_multi_thread();
    builder
        .worker_threads(SERVER_WORKERS)
        .thread_name(format!("http-{}", column.label()))
        .enable_all();
    if pinned() {
        // Every runtime thread (worker, and the blocking pool or poll
        // thread if any) on the first CPU; the load thread takes the second.
        builder.on_thread_start(|| pin_to(0));
    }
    super::configure(&mut builder, column);
    let runtime = builder
        .build()
        .unwrap_or_else(|e| panic!("{}: {e}", column.label()));
    super::check(&runtime, column).unwrap_or_else(|e| panic!("{}: {e}", column.label()));

    let listener = runtime
        .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("local_addr");
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            rt::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(HyperTimer::new())
                    .serve_connection(HyperIo::new(stream), service_fn(hello))
                    .await;
            });
        }
    });
    let before = super::counters(runtime.handle());
    let mut round = load(addr, shape);
    if let (Some(before), Some(after)) = (before, super::counters(runtime.handle())) {
        let d = after - before;
        let requests = (round.latencies_ns.len() + shape.conns * shape.warm_up) as f64;
        round.per_request = Some((d.parks as f64 / requests, d.ring_enters as f64 / requests));
    }
    drop(runtime);
    round
}
