//! A TCP echo server on tokiwa: every byte a client sends comes back.
//!
//! ```text
//! cargo run --example echo --features full                        # serve on 127.0.0.1:8080
//! cargo run --example echo --features full -- 127.0.0.1:9000      # or on this address
//! cargo run --example echo --features full -- --self-test         # serve, check one client, exit 0
//! ```
//!
//! Try it with `nc 127.0.0.1 8080`. Plain tokiwa: the same code compiles
//! against tokio with `tokio = { package = "tokiwa", ... }` renamed back.
use std::time::Duration;

use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::{TcpListener, TcpStream};

#[tokiwa::main]
async fn main() -> std::io::Result<()> {
    let arg = std::env::args().nth(1);
    let self_test = arg.as_deref() == Some("--self-test");
    let addr = match (&arg, self_test) {
        (Some(addr), false) => addr.clone(),
        (_, true) => "127.0.0.1:0".to_owned(),
        (None, false) => "127.0.0.1:8080".to_owned(),
    };
    let listener = TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    let server = tokiwa::spawn(serve(listener));
    if !self_test {
        println!("echo: listening on {local}");
        return server.await?;
    }
    tokiwa::time::timeout(Duration::from_secs(10), client(local))
        .await
        .map_err(|_| std::io::Error::other("self-test timed out"))??;
    println!("echo: self-test passed");
    Ok(())
}

/// Accepts forever; each connection is echoed by its own task.
async fn serve(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (mut socket, peer) = listener.accept().await?;
        tokiwa::spawn(async move {
            let (mut reader, mut writer) = socket.split();
            if let Err(e) = tokiwa::io::copy(&mut reader, &mut writer).await {
                eprintln!("echo: {peer}: {e}");
            }
        });
    }
}

/// The self-test's client: 64 KiB out, the same 64 KiB back.
async fn client(addr: std::net::SocketAddr) -> std::io::Result<()> {
    let mut stream = TcpStream::connect(addr).await?;
    let sent: Vec<u8> = (0..64 * 1024u32).map(|i| (i % 251) as u8).collect();
    let (mut reader, mut writer) = stream.split();
    let send = async {
        writer.write_all(&sent).await?;
        writer.shutdown().await
    };
    let mut got = Vec::new();
    let (sent_result, read_result) = tokiwa::join!(send, reader.read_to_end(&mut got));
    sent_result?;
    read_result?;
    if got != sent {
        return Err(std::io::Error::other("the echo differs from what was sent"));
    }
    Ok(())
}
