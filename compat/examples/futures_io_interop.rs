//! futures-io's combinators on tokiwa's sockets, through
//! `tokiwa_compat`'s `.compat()` and `.compat_write()`.
//!
//! ```text
//! cargo run -p tokiwa-compat --example futures_io_interop                    # serve on 127.0.0.1:7000
//! cargo run -p tokiwa-compat --example futures_io_interop -- --self-test     # serve, check one client, exit 0
//! ```
//!
//! The server reads lines with `futures::io::BufReader` and `lines()` and
//! answers each with its upper-case form; the self-test's client sends a
//! `futures::io::Cursor` with `futures::io::copy` and reads the answers
//! back with `lines()`. (In `compat/examples/`: it belongs to the
//! `tokiwa-compat` package, whose dev-dependencies enable tokiwa's `full`.)
use std::net::SocketAddr;
use std::time::Duration;

use futures::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use futures::{AsyncReadExt, StreamExt};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa_compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

#[tokiwa::main]
async fn main() -> std::io::Result<()> {
    let arg = std::env::args().nth(1);
    let self_test = arg.as_deref() == Some("--self-test");
    let addr = match (&arg, self_test) {
        (Some(addr), false) => addr.clone(),
        (_, true) => "127.0.0.1:0".to_owned(),
        (None, false) => "127.0.0.1:7000".to_owned(),
    };
    let listener = TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    let server = tokiwa::spawn(serve(listener));
    if !self_test {
        println!("futures_io_interop: listening on {local}");
        return server.await?;
    }
    tokiwa::time::timeout(Duration::from_secs(10), client(local))
        .await
        .map_err(|_| std::io::Error::other("self-test timed out"))??;
    println!("futures_io_interop: self-test passed");
    Ok(())
}

/// Accepts forever; each connection's lines come back upper-cased.
async fn serve(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (socket, peer) = listener.accept().await?;
        tokiwa::spawn(async move {
            if let Err(e) = shout(socket).await {
                eprintln!("futures_io_interop: {peer}: {e}");
            }
        });
    }
}

/// A tokiwa `TcpStream` as a futures-io stream, split with futures'
/// `AsyncReadExt::split`, read with futures' `BufReader::lines`.
async fn shout(socket: TcpStream) -> std::io::Result<()> {
    let (reader, mut writer) = socket.compat().split();
    let mut lines = BufReader::new(reader).lines();
    while let Some(line) = lines.next().await {
        writer
            .write_all(format!("{}\n", line?.to_uppercase()).as_bytes())
            .await?;
    }
    writer.close().await
}

/// The self-test's client: `futures::io::copy` out, `lines()` back.
async fn client(addr: SocketAddr) -> std::io::Result<()> {
    let (reader, writer) = TcpStream::connect(addr).await?.into_split();
    let text = "hello\nfutures-io\non tokiwa\n";
    let send = async {
        let mut writer = writer.compat_write();
        futures::io::copy(futures::io::Cursor::new(text), &mut writer).await?;
        writer.close().await
    };
    let receive = async {
        let mut replies = Vec::new();
        let mut lines = BufReader::new(reader.compat()).lines();
        while let Some(line) = lines.next().await {
            replies.push(line?);
        }
        Ok::<_, std::io::Error>(replies)
    };
    let (sent, replies) = tokiwa::join!(send, receive);
    sent?;
    let replies = replies?;
    if replies != ["HELLO", "FUTURES-IO", "ON TOKIWA"] {
        return Err(std::io::Error::other(format!(
            "unexpected replies {replies:?}"
        )));
    }
    Ok(())
}
