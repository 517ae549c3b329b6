use std::io;

use tokiwa::net::{TcpListener, TcpStream};

super::wrapper! {
    /// A [`TcpListener`] as a `Stream` of accepted connections, which never
    /// ends; an accept error is an item, and the stream goes on after it
    /// (tokio-stream's `TcpListenerStream`).
    TcpListenerStream(TcpListener) -> io::Result<TcpStream>,
    |listener, cx| listener.poll_accept(cx).map(|r| Some(r.map(|(stream, _)| stream)))
}
