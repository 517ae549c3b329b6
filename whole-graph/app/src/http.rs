//! The application's HTTP face: an axum router served with `axum::serve`
//! over HTTP/1 and HTTP/2 (axum's own `tokio` feature: its accept loop, hyper's connection tasks
//! and timers all run on tokiwa).
//!
//! - `GET /hello`: JSON naming the I/O driver the handler runs on and the
//!   client's address (so a test can see which connection carried it).
//! - `GET /stream`: a streamed body; its first chunk goes out at once, the
//!   rest only after `POST /release`, so a client that sees the first chunk
//!   before it asks for the release proves the body was not buffered.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::ReceiverStream;

/// `GET /hello`'s answer.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Hello {
    pub greeting: String,
    /// The driver of the runtime the handler ran on (`Debug` of tokiwa's
    /// `tokio::runtime::Driver`).
    pub driver: String,
    /// The client's end of the connection that carried the request.
    pub peer: SocketAddr,
}

/// The first chunk of `GET /stream`.
pub const FIRST_CHUNK: &str = "first\n";
/// What follows it once released.
pub const REST: [&str; 2] = ["second\n", "third\n"];

#[derive(Clone, Default)]
struct AppState {
    release: Arc<Notify>,
}

/// The application's routes.
pub fn router() -> Router {
    Router::new()
        .route("/hello", get(hello))
        .route("/stream", get(stream))
        .route("/release", post(release))
        .with_state(AppState::default())
}

async fn hello(ConnectInfo(peer): ConnectInfo<SocketAddr>) -> Json<Hello> {
    Json(Hello {
        greeting: "hello from axum".to_owned(),
        driver: format!("{:?}", tokio::runtime::Handle::current().driver()),
        peer,
    })
}

async fn stream(State(state): State<AppState>) -> Body {
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(1);
    tokio::spawn(async move {
        if tx
            .send(Ok(Bytes::from_static(FIRST_CHUNK.as_bytes())))
            .await
            .is_err()
        {
            return;
        }
        state.release.notified().await;
        for chunk in REST {
            if tx
                .send(Ok(Bytes::from_static(chunk.as_bytes())))
                .await
                .is_err()
            {
                return;
            }
        }
    });
    Body::from_stream(ReceiverStream::new(rx))
}

async fn release(State(state): State<AppState>) -> StatusCode {
    state.release.notify_one();
    StatusCode::NO_CONTENT
}

/// The router served on a loopback port until [`Server::stop`].
pub struct Server {
    pub addr: SocketAddr,
    shutdown: oneshot::Sender<()>,
    task: JoinHandle<io::Result<()>>,
}

impl Server {
    /// Binds `127.0.0.1:0` and serves [`router`] there with `axum::serve`.
    pub async fn start() -> io::Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app = router().into_make_service_with_connect_info::<SocketAddr>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Ok(Server {
            addr,
            shutdown,
            task,
        })
    }

    /// `http://<addr><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Shuts the server down gracefully and waits for its accept loop.
    pub async fn stop(self) -> io::Result<()> {
        let _ = self.shutdown.send(());
        self.task.await.expect("axum::serve's task panicked")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{on_every_runtime, Config};
    use futures::StreamExt;
    use http_body_util::{BodyExt, Empty};
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;

    fn reqwest_client() -> reqwest::Client {
        // `no_proxy`: loopback requests must not go to a proxy named in the
        // environment.
        reqwest::Client::builder().no_proxy().build().unwrap()
    }

    #[test]
    fn reqwest_gets_json_from_axum() {
        on_every_runtime("reqwest_gets_json_from_axum", |config: Config| async move {
            let server = Server::start().await.unwrap();
            let client = reqwest_client();
            let response = client.get(server.url("/hello")).send().await.unwrap();
            assert_eq!(response.status(), reqwest::StatusCode::OK);
            assert_eq!(
                response.headers()["content-type"],
                "application/json",
                "axum's Json sets the content type"
            );
            let hello: Hello = response.json().await.unwrap();
            assert_eq!(hello.greeting, "hello from axum");
            // The handler ran on the same tokiwa runtime, on its driver.
            assert_eq!(hello.driver, format!("{:?}", config.driver));
            assert!(hello.peer.ip().is_loopback());

            let missing = client.get(server.url("/nowhere")).send().await.unwrap();
            assert_eq!(missing.status(), reqwest::StatusCode::NOT_FOUND);
            server.stop().await.unwrap();
        });
    }

    #[test]
    fn reqwest_reads_a_streamed_body_chunk_by_chunk() {
        on_every_runtime("reqwest_reads_a_streamed_body", |_| async move {
            let server = Server::start().await.unwrap();
            let client = reqwest_client();
            let response = client.get(server.url("/stream")).send().await.unwrap();
            assert_eq!(response.status(), reqwest::StatusCode::OK);
            let mut body = response.bytes_stream();

            // The rest of the body is held back until the release below,
            // so this chunk can only arrive if the body really streams.
            let mut received = Vec::new();
            while received.len() < FIRST_CHUNK.len() {
                let chunk = body.next().await.expect("body ended early").unwrap();
                received.extend_from_slice(&chunk);
            }
            assert_eq!(received, FIRST_CHUNK.as_bytes());

            let released = client.post(server.url("/release")).send().await.unwrap();
            assert_eq!(released.status(), reqwest::StatusCode::NO_CONTENT);

            while let Some(chunk) = body.next().await {
                received.extend_from_slice(&chunk.unwrap());
            }
            assert_eq!(
                String::from_utf8(received).unwrap(),
                "first\nsecond\nthird\n"
            );
            server.stop().await.unwrap();
        });
    }

    #[test]
    fn hyper_util_pooled_client_multiplexes_one_connection() {
        on_every_runtime("hyper_util_pooled_client", |config: Config| async move {
            let server = Server::start().await.unwrap();
            // HTTP/2 (h2c, which axum::serve speaks beside HTTP/1): the pool
            // lets one connection be established per host and hands it to
            // every request, concurrent ones included. (HTTP/1's pool races
            // a new connection against the return of the idle one, so which
            // connection a request gets is timing there, on tokio as well.)
            let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new())
                .http2_only(true)
                .build_http();
            let uri: hyper::Uri = server.url("/hello").parse().unwrap();
            let get = |client: Client<_, Empty<Bytes>>, uri: hyper::Uri| async move {
                let response = client.get(uri).await.unwrap();
                assert_eq!(response.status(), hyper::StatusCode::OK);
                assert_eq!(response.version(), hyper::Version::HTTP_2);
                let body = response.into_body().collect().await.unwrap().to_bytes();
                serde_json::from_slice::<Hello>(&body).unwrap()
            };

            // Ten at once, then ten one after another.
            let concurrent: Vec<_> = (0..10)
                .map(|_| tokio::spawn(get(client.clone(), uri.clone())))
                .collect();
            let mut answers = Vec::new();
            for request in concurrent {
                answers.push(request.await.unwrap());
            }
            for _ in 0..10 {
                answers.push(get(client.clone(), uri.clone()).await);
            }

            let peers: Vec<SocketAddr> = answers.iter().map(|hello| hello.peer).collect();
            assert!(
                peers.iter().all(|peer| *peer == peers[0]),
                "requests went over more than one connection: {peers:?}"
            );
            assert!(answers
                .iter()
                .all(|hello| hello.driver == format!("{:?}", config.driver)));
            drop(client);
            server.stop().await.unwrap();
        });
    }
}
