//! An axum app on tokiwa: `tokiwa_compat::axum::serve` where an app on
//! tokio calls `axum::serve`; everything else is unchanged axum.
//!
//! ```text
//! cargo run -p tokiwa-compat --features axum --example axum_app                # serves 127.0.0.1:3000, Ctrl-C stops it
//! cargo run -p tokiwa-compat --features axum --example axum_app -- --self-test
//! ```
//!
//! `--self-test` serves on 127.0.0.1:0, fetches both routes with hyper's
//! client on tokiwa, checks the bodies, shuts the server down gracefully
//! and exits 0 (CI runs it).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::routing::get;
use axum::Router;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::Request;
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa_compat::hyper::TokiwaIo;

fn app() -> Router {
    let visits = Arc::new(AtomicU64::new(0));
    Router::new()
        .route("/", get(|| async { "Hello from axum on tokiwa!" }))
        .route(
            "/hello/{name}",
            get(
                |State(visits): State<Arc<AtomicU64>>, Path(name): Path<String>| async move {
                    let n = visits.fetch_add(1, Ordering::Relaxed) + 1;
                    format!("Hello, {name}! (visitor {n})")
                },
            ),
        )
        .with_state(visits)
}

async fn fetch(addr: SocketAddr, path: &str) -> Result<String, Box<dyn std::error::Error>> {
    let stream = TcpStream::connect(addr).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokiwaIo::new(stream)).await?;
    tokiwa::spawn(conn);
    let req = Request::get(path)
        .header("host", addr.to_string())
        .body(Empty::<Bytes>::new())?;
    let res = sender.send_request(req).await?;
    if res.status() != 200 {
        return Err(format!("{path}: {}", res.status()).into());
    }
    Ok(String::from_utf8(
        res.into_body().collect().await?.to_bytes().to_vec(),
    )?)
}

async fn self_test(listener: TcpListener) -> Result<(), Box<dyn std::error::Error>> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokiwa::sync::oneshot::channel::<()>();
    let server = tokiwa::spawn(
        tokiwa_compat::axum::serve(listener, app())
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    let root = fetch(addr, "/").await?;
    let hello = fetch(addr, "/hello/tokiwa").await?;
    if root != "Hello from axum on tokiwa!" || hello != "Hello, tokiwa! (visitor 1)" {
        return Err(format!("unexpected bodies: {root:?}, {hello:?}").into());
    }
    let _ = stop.send(());
    server.await??;
    println!("self-test passed: {root:?}, {hello:?}");
    Ok(())
}

use std::future::IntoFuture as _;

#[tokiwa::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--self-test") {
        return self_test(TcpListener::bind("127.0.0.1:0").await?).await;
    }
    let listener = TcpListener::bind("127.0.0.1:3000").await?;
    println!("listening on http://{}", listener.local_addr()?);
    tokiwa_compat::axum::serve(listener, app())
        .with_graceful_shutdown(async {
            let _ = tokiwa::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
