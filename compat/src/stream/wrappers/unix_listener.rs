use std::io;

use tokiwa::net::{UnixListener, UnixStream};

super::wrapper! {
    /// A [`UnixListener`] as a `Stream` of accepted connections, which
    /// never ends; an accept error is an item (tokio-stream's
    /// `UnixListenerStream`).
    UnixListenerStream(UnixListener) -> io::Result<UnixStream>,
    |listener, cx| listener.poll_accept(cx).map(|r| Some(r.map(|(stream, _)| stream)))
}
