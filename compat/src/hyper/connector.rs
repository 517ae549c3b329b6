//! A client connector: `http://host:port` to a `tokiwa::net::TcpStream`.
//!
//! hyper-util's `HttpConnector` does this job on tokio's reactor; this one
//! resolves with tokiwa's `lookup_host` (through `TcpStream::connect`, which
//! tries each resolved address in turn), bounds the whole resolve-and-connect
//! with tokiwa's timer, and turns Nagle off, as `HttpConnector` does by
//! default for request/response traffic. No TLS: an `https` URI is an
//! error (`ErrorKind::Unsupported`); a TLS connector wraps this one.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokiwa::net::TcpStream;

use super::TokiwaIo;

/// A `tower_service::Service<http::Uri>` that connects plain-HTTP URIs with
/// [`tokiwa::net::TcpStream`].
///
/// Errors are `io::Error`s: `InvalidInput` (no host), `Unsupported`
/// (a scheme other than `http`), `TimedOut` (the connect timeout), or the
/// resolver's/socket's own.
#[derive(Clone, Debug)]
pub struct TokiwaConnector {
    connect_timeout: Option<Duration>,
    nodelay: bool,
}

impl Default for TokiwaConnector {
    fn default() -> TokiwaConnector {
        TokiwaConnector::new()
    }
}

impl TokiwaConnector {
    /// No connect timeout, `TCP_NODELAY` on.
    pub fn new() -> TokiwaConnector {
        TokiwaConnector {
            connect_timeout: None,
            nodelay: true,
        }
    }

    /// Bounds name resolution plus connecting; `None` (the default) waits
    /// as long as the kernel does.
    pub fn set_connect_timeout(&mut self, timeout: Option<Duration>) {
        self.connect_timeout = timeout;
    }

    /// Whether connected sockets get `TCP_NODELAY` (default: yes).
    pub fn set_nodelay(&mut self, nodelay: bool) {
        self.nodelay = nodelay;
    }
}

/// The host and port a plain-HTTP URI names (port 80 by default).
fn host_port(uri: &http::Uri) -> io::Result<(String, u16)> {
    match uri.scheme_str() {
        Some("http") | None => {}
        Some("https") => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "https is not supported by TokiwaConnector (wrap it in a TLS connector)",
            ))
        }
        Some(other) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("unsupported URI scheme `{other}`"),
            ))
        }
    }
    let host = uri
        .host()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "URI has no host"))?;
    // An IPv6 literal comes bracketed (`[::1]`); the resolver wants it bare.
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((host.to_owned(), uri.port_u16().unwrap_or(80)))
}

impl tower_service::Service<http::Uri> for TokiwaConnector {
    type Response = TokiwaIo<TcpStream>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<TokiwaIo<TcpStream>>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let (host, port) = host_port(&uri)?;
            let connect = TcpStream::connect((host.as_str(), port));
            let stream = match this.connect_timeout {
                Some(limit) => tokiwa::time::timeout(limit, connect).await.map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("connecting to {host}:{port} timed out after {limit:?}"),
                    )
                })??,
                None => connect.await?,
            };
            if this.nodelay {
                stream.set_nodelay(true)?;
            }
            Ok(TokiwaIo::new(stream))
        })
    }
}

#[cfg(feature = "hyper-legacy-client")]
impl hyper_util::client::legacy::connect::Connection for TokiwaIo<TcpStream> {
    fn connected(&self) -> hyper_util::client::legacy::connect::Connected {
        hyper_util::client::legacy::connect::Connected::new()
    }
}

#[cfg(test)]
mod tests {
    use super::host_port;

    #[test]
    fn host_and_port_from_uris() {
        let hp = |s: &str| host_port(&s.parse().unwrap());
        assert_eq!(
            hp("http://example.com/x").unwrap(),
            ("example.com".into(), 80)
        );
        assert_eq!(
            hp("http://127.0.0.1:8080").unwrap(),
            ("127.0.0.1".into(), 8080)
        );
        assert_eq!(hp("http://[::1]:9/").unwrap(), ("::1".into(), 9));
        assert_eq!(
            hp("https://example.com").unwrap_err().kind(),
            std::io::ErrorKind::Unsupported
        );
        assert_eq!(
            hp("/relative").unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
    }
}
