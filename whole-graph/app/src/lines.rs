//! A line protocol over TCP, framed with tokio-util's `Framed` and
//! `LinesCodec`: the server answers each line in upper case, and closes the
//! connection after answering `bye`.

use std::io;
use std::net::SocketAddr;

use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::codec::{Framed, LinesCodec};

/// The longest line the server accepts.
pub const MAX_LINE: usize = 1024;

/// Binds `127.0.0.1:0` and serves the protocol there, a task per
/// connection, until the returned task is aborted.
pub async fn serve() -> io::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream));
        }
    });
    Ok((addr, task))
}

async fn answer(stream: TcpStream) {
    let mut lines = Framed::new(stream, LinesCodec::new_with_max_length(MAX_LINE));
    while let Some(Ok(line)) = lines.next().await {
        if lines.send(line.to_uppercase()).await.is_err() || line == "bye" {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;

    #[test]
    fn framed_lines_codec_over_tcp() {
        on_every_runtime("framed_lines_codec", |_| async move {
            let (addr, server) = serve().await.unwrap();
            let stream = TcpStream::connect(addr).await.unwrap();
            let mut lines = Framed::new(stream, LinesCodec::new());

            // Two lines in one write: the codec splits them on the far side.
            lines.feed("hello".to_owned()).await.unwrap();
            lines.feed("tokiwa".to_owned()).await.unwrap();
            SinkExt::<String>::flush(&mut lines).await.unwrap();
            assert_eq!(lines.next().await.unwrap().unwrap(), "HELLO");
            assert_eq!(lines.next().await.unwrap().unwrap(), "TOKIWA");

            // A line longer than a read buffer arrives whole.
            let long = "x".repeat(MAX_LINE);
            lines.send(long.clone()).await.unwrap();
            assert_eq!(lines.next().await.unwrap().unwrap(), long.to_uppercase());

            lines.send("bye".to_owned()).await.unwrap();
            assert_eq!(lines.next().await.unwrap().unwrap(), "BYE");
            assert!(lines.next().await.is_none(), "the server closes after bye");

            server.abort();
            assert!(server.await.unwrap_err().is_cancelled());
        });
    }
}
