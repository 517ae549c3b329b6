//! `axum::serve` on tokiwa.
//!
//! axum's own `serve` exists only with axum's `tokio` feature (it accepts on
//! a `tokio::net::TcpListener` and spawns with `tokio::spawn`). This is the
//! same function on tokiwa, with the same shape, so that moving an app is
//! one changed call:
//!
//! ```ignore
//! let listener = tokiwa::net::TcpListener::bind("0.0.0.0:3000").await?;
//! tokiwa_compat::axum::serve(listener, app)          // was: axum::serve
//!     .with_graceful_shutdown(async { /* a signal */ })
//!     .await?;
//! ```
//!
//! It takes what `axum::serve` takes: a `Router`, a `MethodRouter`, or
//! `into_make_service()`. (`ConnectInfo` is compiled only with axum's
//! `tokio` feature, so `into_make_service_with_connect_info` is not
//! available; a make-service that reads [`IncomingStream::remote_addr`]
//! can put the address in a request extension instead.)
//! Each accepted connection is served on its own tokiwa task by hyper-util's
//! `auto` builder (HTTP/1 with upgrades, or HTTP/2 by its preface), through
//! [`TokiwaIo`] and [`TokiwaExecutor`].
//!
//! Shutdown follows axum's design (axum `src/serve/mod.rs`): two watch
//! channels. Every connection task holds a clone of the *signal* sender and
//! waits for its receivers to be gone, which happens when the shutdown
//! signal fires; it then tells hyper to shut the connection down gracefully
//! (finish the request in flight, refuse new ones, send HTTP/2 GOAWAY) and
//! keeps driving it to the end. Every task also holds a *close* receiver;
//! the server stops accepting at the signal, and returns once the close
//! sender sees no receiver left, that is once every connection is done.
//!
//! Accept errors never end the server: a connection that died in the
//! backlog (`ECONNABORTED`, ...) is skipped, and anything else (`EMFILE`,
//! `ENFILE`, `ENOBUFS`) waits 100 ms, as axum does (with 1 s), so that
//! finishing connections can free descriptors.

use std::convert::Infallible;
use std::fmt;
use std::future::{poll_fn, Future, IntoFuture};
use std::io;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::sync::watch;
use tower::ServiceExt as _;
use tower_service::Service;

use crate::hyper::{TokiwaExecutor, TokiwaIo};

/// How long the accept loop waits after an error that is not about one
/// connection (out of descriptors or memory).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// A connection being accepted, handed to the make-service (as
/// `axum::serve::IncomingStream` is).
#[derive(Debug)]
pub struct IncomingStream<'a> {
    io: &'a TokiwaIo<TcpStream>,
    remote_addr: SocketAddr,
}

impl IncomingStream<'_> {
    /// The accepted stream.
    pub fn io(&self) -> &TcpStream {
        self.io.inner()
    }

    /// The peer's address.
    pub fn remote_addr(&self) -> SocketAddr {
        self.remote_addr
    }
}

impl Service<IncomingStream<'_>> for axum::Router<()> {
    type Response = axum::Router<()>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<axum::Router<()>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: IncomingStream<'_>) -> Self::Future {
        // `with_state` turns every route into its final form once per
        // connection rather than once per request (as axum does).
        std::future::ready(Ok(self.clone().with_state(())))
    }
}

impl Service<IncomingStream<'_>> for axum::routing::MethodRouter<()> {
    type Response = axum::routing::MethodRouter<()>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: IncomingStream<'_>) -> Self::Future {
        std::future::ready(Ok(self.clone().with_state(())))
    }
}

/// Serves `make_service` on `listener` until the returned future is
/// dropped (or, with [`Serve::with_graceful_shutdown`], until a signal).
/// The tokiwa form of `axum::serve`.
pub fn serve<M, S>(listener: TcpListener, make_service: M) -> Serve<M, S>
where
    M: for<'a> Service<IncomingStream<'a>, Error = Infallible, Response = S>,
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    Serve {
        listener,
        make_service,
        _marker: PhantomData,
    }
}

/// The future-to-be of [`serve`]: `.await` it (it implements
/// [`IntoFuture`]), or add a shutdown signal first.
#[must_use = "futures must be awaited or polled"]
pub struct Serve<M, S> {
    listener: TcpListener,
    make_service: M,
    _marker: PhantomData<fn() -> S>,
}

impl<M, S> Serve<M, S> {
    /// Stops at `signal`: no new connections, the open ones finish their
    /// requests in flight, then the future returns.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<M, S, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        WithGracefulShutdown {
            listener: self.listener,
            make_service: self.make_service,
            signal,
            _marker: PhantomData,
        }
    }

    /// The listener's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl<M, S> fmt::Debug for Serve<M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

/// [`Serve`] with a shutdown signal.
#[must_use = "futures must be awaited or polled"]
pub struct WithGracefulShutdown<M, S, F> {
    listener: TcpListener,
    make_service: M,
    signal: F,
    _marker: PhantomData<fn() -> S>,
}

impl<M, S, F> WithGracefulShutdown<M, S, F> {
    /// The listener's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl<M, S, F> fmt::Debug for WithGracefulShutdown<M, S, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithGracefulShutdown")
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

/// The future [`serve`] runs (boxed, so that its type can be named).
pub struct ServeFuture(Pin<Box<dyn Future<Output = io::Result<()>> + Send>>);

impl Future for ServeFuture {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll(cx)
    }
}

impl fmt::Debug for ServeFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeFuture").finish_non_exhaustive()
    }
}

impl<M, S> IntoFuture for Serve<M, S>
where
    M: for<'a> Service<IncomingStream<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<IncomingStream<'a>>>::Future: Send,
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Output = io::Result<()>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> ServeFuture {
        ServeFuture(Box::pin(run(
            self.listener,
            self.make_service,
            std::future::pending(),
        )))
    }
}

impl<M, S, F> IntoFuture for WithGracefulShutdown<M, S, F>
where
    M: for<'a> Service<IncomingStream<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<IncomingStream<'a>>>::Future: Send,
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
    F: Future<Output = ()> + Send + 'static,
{
    type Output = io::Result<()>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> ServeFuture {
        ServeFuture(Box::pin(run(self.listener, self.make_service, self.signal)))
    }
}

/// Accepts until `signal`, then waits for every connection to finish.
async fn run<M, S, F>(listener: TcpListener, mut make_service: M, signal: F) -> io::Result<()>
where
    M: for<'a> Service<IncomingStream<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<IncomingStream<'a>>>::Future: Send,
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
    F: Future<Output = ()> + Send + 'static,
{
    // Connections wait for `signal_rx` to be dropped; the server waits for
    // every `close_rx` clone to be dropped.
    let (signal_tx, signal_rx) = watch::channel(());
    let (close_tx, close_rx) = watch::channel(());
    let mut signal = pin!(signal);

    loop {
        let mut accept = pin!(accept(&listener));
        let accepted = poll_fn(|cx| {
            if signal.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            accept.as_mut().poll(cx).map(Some)
        })
        .await;
        let Some((stream, remote_addr)) = accepted else {
            break;
        };
        serve_connection(
            &mut make_service,
            &signal_tx,
            &close_rx,
            stream,
            remote_addr,
        )
        .await;
    }

    drop(listener);
    drop(signal_rx);
    drop(close_rx);
    close_tx.closed().await;
    Ok(())
}

/// The next connection; errors are absorbed (see the module docs).
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(_) => tokiwa::time::sleep(ACCEPT_BACKOFF).await,
        }
    }
}

/// An accept error about the one connection being accepted (the listener
/// itself is fine).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Makes the connection's service and spawns the task that serves it.
async fn serve_connection<M, S>(
    make_service: &mut M,
    signal_tx: &watch::Sender<()>,
    close_rx: &watch::Receiver<()>,
    stream: TcpStream,
    remote_addr: SocketAddr,
) where
    M: for<'a> Service<IncomingStream<'a>, Error = Infallible, Response = S> + Send + 'static,
    for<'a> <M as Service<IncomingStream<'a>>>::Future: Send,
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    let io = TokiwaIo::new(stream);
    let Ok(()) = poll_fn(|cx| make_service.poll_ready(cx)).await;
    let Ok(service) = make_service
        .call(IncomingStream {
            io: &io,
            remote_addr,
        })
        .await;
    let service =
        TowerToHyperService::new(service.map_request(|req: Request<Incoming>| req.map(Body::new)));
    let signal_tx = signal_tx.clone();
    let close_rx = close_rx.clone();

    tokiwa::spawn(async move {
        let mut builder = Builder::new(TokiwaExecutor::new());
        // HTTP/2 WebSockets (RFC 8441) need the CONNECT protocol, as in axum.
        builder.http2().enable_connect_protocol();
        let mut conn = pin!(builder.serve_connection_with_upgrades(io, service));
        let mut shutdown = pin!(signal_tx.closed());
        let mut shutting_down = false;
        // A connection error (a peer that reset mid-request, a malformed
        // request) ends only this connection; there is no one to tell.
        let _ = poll_fn(|cx| {
            if !shutting_down && shutdown.as_mut().poll(cx).is_ready() {
                shutting_down = true;
                conn.as_mut().graceful_shutdown();
            }
            conn.as_mut().poll(cx)
        })
        .await;
        drop(close_rx);
    });
}
