//! hyper's hello-world server on tokiwa.
//!
//! ```text
//! cargo run -p tokiwa-compat --features hyper --example hyper_hello            # serves 127.0.0.1:3000
//! cargo run -p tokiwa-compat --features hyper --example hyper_hello -- --self-test
//! ```
//!
//! `--self-test` serves on 127.0.0.1:0, fetches `/` with hyper's
//! connection-level client on tokiwa, checks the body and exits 0 (CI
//! runs it).

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa_compat::hyper::{TokiwaIo, TokiwaTimer};

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

/// Accepts forever, one task per connection.
async fn serve(listener: TcpListener) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => continue,
        };
        tokiwa::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokiwaTimer::new())
                .serve_connection(TokiwaIo::new(stream), service_fn(hello))
                .await;
        });
    }
}

async fn self_test(addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let stream = TcpStream::connect(addr).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokiwaIo::new(stream)).await?;
    tokiwa::spawn(conn);
    let req = Request::get("/")
        .header("host", addr.to_string())
        .body(Empty::<Bytes>::new())?;
    let res = sender.send_request(req).await?;
    let status = res.status();
    let body = res.into_body().collect().await?.to_bytes();
    if status != 200 || &body[..] != b"Hello, World!" {
        return Err(format!("unexpected response: {status} {body:?}").into());
    }
    println!(
        "self-test passed: {status} {:?}",
        String::from_utf8_lossy(&body)
    );
    Ok(())
}

#[tokiwa::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let test = std::env::args().any(|a| a == "--self-test");
    let listener = TcpListener::bind(if test {
        "127.0.0.1:0"
    } else {
        "127.0.0.1:3000"
    })
    .await?;
    let addr = listener.local_addr()?;
    if test {
        tokiwa::spawn(serve(listener));
        return self_test(addr).await;
    }
    println!("listening on http://{addr}");
    serve(listener).await;
    Ok(())
}
