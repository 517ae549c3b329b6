//! A line-based chat server on tokiwa: every line a client sends goes to
//! every other client, through one `tokiwa::sync::broadcast` channel.
//!
//! ```text
//! cargo run --example chat --features full                    # serve on 127.0.0.1:6142
//! cargo run --example chat --features full -- 127.0.0.1:9000  # or on this address
//! cargo run --example chat --features full -- --self-test     # serve, check two clients, exit 0
//! ```
//!
//! Try it with two `nc 127.0.0.1 6142`. Each client is first greeted with
//! `welcome <its address>`; after that it is subscribed and sees the lines
//! of the others as `<their address>: <line>`.
use std::net::SocketAddr;
use std::time::Duration;

use tokiwa::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokiwa::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::sync::broadcast;

/// A chat line and who sent it.
type Message = (SocketAddr, String);

#[tokiwa::main]
async fn main() -> std::io::Result<()> {
    let arg = std::env::args().nth(1);
    let self_test = arg.as_deref() == Some("--self-test");
    let addr = match (&arg, self_test) {
        (Some(addr), false) => addr.clone(),
        (_, true) => "127.0.0.1:0".to_owned(),
        (None, false) => "127.0.0.1:6142".to_owned(),
    };
    let listener = TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    let server = tokiwa::spawn(serve(listener));
    if !self_test {
        println!("chat: listening on {local}");
        return server.await?;
    }
    tokiwa::time::timeout(Duration::from_secs(10), self_test_clients(local))
        .await
        .map_err(|_| std::io::Error::other("self-test timed out"))??;
    println!("chat: self-test passed");
    Ok(())
}

/// Accepts forever; each client gets a task and a receiver.
async fn serve(listener: TcpListener) -> std::io::Result<()> {
    let (tx, _) = broadcast::channel::<Message>(1024);
    loop {
        let (socket, peer) = listener.accept().await?;
        let tx = tx.clone();
        tokiwa::spawn(async move {
            if let Err(e) = client(socket, peer, tx).await {
                eprintln!("chat: {peer}: {e}");
            }
        });
    }
}

/// One client: its lines to the channel, the others' lines to it.
async fn client(
    socket: TcpStream,
    peer: SocketAddr,
    tx: broadcast::Sender<Message>,
) -> std::io::Result<()> {
    let mut rx = tx.subscribe();
    let (reader, mut writer) = socket.into_split();
    writer
        .write_all(format!("welcome {peer}\n").as_bytes())
        .await?;
    let mut lines = BufReader::new(reader).lines();
    loop {
        tokiwa::select! {
            line = lines.next_line() => match line? {
                Some(line) => {
                    let _ = tx.send((peer, line));
                }
                None => return Ok(()),
            },
            message = rx.recv() => match message {
                Ok((from, line)) if from != peer => {
                    writer.write_all(format!("{from}: {line}\n").as_bytes()).await?;
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    writer.write_all(format!("({n} lines skipped)\n").as_bytes()).await?;
                }
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
        }
    }
}

/// The self-test: two clients; a line from the first reaches the second.
async fn self_test_clients(addr: SocketAddr) -> std::io::Result<()> {
    let (mut alice, alice_addr, _alice_lines) = connect(addr).await?;
    let (_bob, _, mut bob_lines) = connect(addr).await?;
    alice.write_all(b"hello, bob\n").await?;
    let line = bob_lines.next_line().await?.unwrap_or_default();
    if line != format!("{alice_addr}: hello, bob") {
        return Err(std::io::Error::other(format!("bob got {line:?}")));
    }
    Ok(())
}

/// Connects and waits for the welcome, after which the client is
/// subscribed; returns the write half, the client's address and the read
/// half's lines.
async fn connect(
    addr: SocketAddr,
) -> std::io::Result<(OwnedWriteHalf, SocketAddr, Lines<BufReader<OwnedReadHalf>>)> {
    let stream = TcpStream::connect(addr).await?;
    let local = stream.local_addr()?;
    let (reader, writer) = stream.into_split();
    let mut lines = BufReader::new(reader).lines();
    let welcome = lines.next_line().await?.unwrap_or_default();
    if welcome != format!("welcome {local}") {
        return Err(std::io::Error::other(format!(
            "unexpected greeting {welcome:?}"
        )));
    }
    Ok((writer, local, lines))
}
