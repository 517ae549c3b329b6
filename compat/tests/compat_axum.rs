//! axum on tokiwa through `tokiwa_compat::axum::serve`, queried by
//! hyper-util's pooled client; every test on both drivers.

#[macro_use]
mod http_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::{BodyExt, Full};
use http_support::{client, TestClient};
use hyper::body::Bytes;
use hyper::Request;
use tokiwa::io::AsyncWriteExt;
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::sync::{oneshot, Notify};

#[derive(serde::Deserialize)]
struct Sum {
    a: i64,
    b: i64,
}

#[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
struct Total {
    total: i64,
}

fn app(hits: Arc<AtomicUsize>) -> Router {
    Router::new()
        .route(
            "/count",
            get(|State(hits): State<Arc<AtomicUsize>>| async move {
                (hits.fetch_add(1, Ordering::SeqCst) + 1).to_string()
            }),
        )
        .route(
            "/sum",
            post(|Json(sum): Json<Sum>| async move {
                Json(Total {
                    total: sum.a + sum.b,
                })
            }),
        )
        .route(
            "/stream",
            get(|| async {
                let chunks =
                    (0..100).map(|i| Ok::<_, Infallible>(Bytes::from(format!("chunk {i}\n"))));
                axum::body::Body::from_stream(futures::stream::iter(chunks))
            }),
        )
        .with_state(hits)
}

async fn listen() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

async fn get_body(client: &TestClient, uri: String) -> (u16, Bytes) {
    let res = client.get(uri.parse().unwrap()).await.unwrap();
    let status = res.status().as_u16();
    (status, res.into_body().collect().await.unwrap().to_bytes())
}

async fn routes(http2: bool) {
    let hits = Arc::new(AtomicUsize::new(0));
    let (listener, addr) = listen().await;
    tokiwa::spawn(tokiwa_compat::axum::serve(listener, app(hits.clone())).into_future());
    let client = client(http2);

    for i in 1..=5 {
        let (status, body) = get_body(&client, format!("http://{addr}/count")).await;
        assert_eq!(status, 200);
        assert_eq!(body, i.to_string());
    }
    assert_eq!(hits.load(Ordering::SeqCst), 5);

    let req = Request::post(format!("http://{addr}/sum"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(br#"{"a": 40, "b": 2}"#)))
        .unwrap();
    let res = client.request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    let total: Total = serde_json::from_slice(&body).unwrap();
    assert_eq!(total, Total { total: 42 });

    let (status, body) = get_body(&client, format!("http://{addr}/stream")).await;
    assert_eq!(status, 200);
    let expected: String = (0..100).map(|i| format!("chunk {i}\n")).collect();
    assert_eq!(body, expected);

    let (status, _) = get_body(&client, format!("http://{addr}/missing")).await;
    assert_eq!(status, 404);
}

use std::future::IntoFuture as _;

driver_test! {
    async fn state_json_and_stream_http1() {
        routes(false).await;
    }
}

driver_test! {
    async fn state_json_and_stream_http2() {
        routes(true).await;
    }
}

/// A request in flight when the shutdown signal comes is finished (full
/// 200 response) before the server future returns.
async fn graceful_shutdown(http2: bool) {
    let entered = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let router = Router::new().route(
        "/slow",
        get({
            let (entered, release) = (entered.clone(), release.clone());
            || async move {
                entered.notify_one();
                release.notified().await;
                "finished"
            }
        }),
    );
    let (listener, addr) = listen().await;
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let server = tokiwa::spawn(
        tokiwa_compat::axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stop_rx.await;
            })
            .into_future(),
    );

    let client = client(http2);
    let request =
        tokiwa::spawn(async move { get_body(&client, format!("http://{addr}/slow")).await });
    entered.notified().await;
    stop_tx.send(()).unwrap();
    tokiwa::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !server.is_finished(),
        "the server returned with a request in flight"
    );
    // New connections are no longer accepted.
    let late = tokiwa::time::timeout(Duration::from_millis(200), async {
        let mut s = TcpStream::connect(addr).await?;
        s.write_all(b"GET /slow HTTP/1.1\r\nhost: x\r\n\r\n")
            .await?;
        let mut buf = [0; 1];
        tokiwa::io::AsyncReadExt::read(&mut s, &mut buf).await
    })
    .await;
    assert!(
        !matches!(late, Ok(Ok(n)) if n > 0),
        "a connection made after the signal was served"
    );

    release.notify_one();
    let (status, body) = request.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(body, "finished");
    tokiwa::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the server did not return after its last request")
        .unwrap()
        .unwrap();
}

driver_test! {
    async fn graceful_shutdown_finishes_in_flight_http1() {
        graceful_shutdown(false).await;
    }
}

driver_test! {
    async fn graceful_shutdown_finishes_in_flight_http2() {
        graceful_shutdown(true).await;
    }
}

driver_test! {
    /// Half a request, then a reset (SO_LINGER 0): that connection ends,
    /// the server goes on.
    async fn peer_reset_mid_request() {
        let hits = Arc::new(AtomicUsize::new(0));
        let (listener, addr) = listen().await;
        tokiwa::spawn(tokiwa_compat::axum::serve(listener, app(hits.clone())).into_future());
        for _ in 0..10 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"POST /sum HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"a\": ")
                .await
                .unwrap();
            tokiwa::time::sleep(Duration::from_millis(10)).await;
            s.set_zero_linger().unwrap();
            drop(s);
        }
        let (status, body) = get_body(&client(false), format!("http://{addr}/count")).await;
        assert_eq!(status, 200);
        assert_eq!(body, "1");
    }
}
