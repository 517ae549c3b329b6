//! TCP echo under churn: clients send messages of random sizes and check
//! every byte that comes back; now and then a client drops its connection
//! in the middle of a message, and the server must shed it cleanly.
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::task::JoinSet;

use crate::rng::Rng;
use crate::stats::{ClientPhase, Stats, ECHO_CLIENTS};

pub async fn run(stats: Arc<Stats>) {
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(e) => return stats.fail(format!("echo: bind: {e}")),
    };
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    let mut clients = JoinSet::new();
    for id in 0..ECHO_CLIENTS {
        clients.spawn(client(stats.clone(), addr, id));
    }
    let mut connections = JoinSet::new();
    loop {
        tokiwa::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => {
                    connections.spawn(serve(stats.clone(), socket));
                }
                Err(e) => return stats.fail(format!("echo: accept: {e}")),
            },
            // Reap finished connections as they end, so the set stays small.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            // Clients stop between connections, once the load stops; the
            // server accepts until the last one has, since a client may
            // connect just before it sees the stop.
            _ = clients.join_next() => if clients.is_empty() {
                break;
            },
        }
    }
    drop(listener);
    // The server's side of each connection ends with its client's.
    while connections.join_next().await.is_some() {}
}

/// One connection, server side: everything read is written back.
async fn serve(stats: Arc<Stats>, mut socket: TcpStream) {
    let mut buf = vec![0; 16 * 1024];
    loop {
        let n = match socket.read(&mut buf).await {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) => return expected_on_abort(&stats, "server read", e),
        };
        if let Err(e) = socket.write_all(&buf[..n]).await {
            return expected_on_abort(&stats, "server write", e);
        }
    }
}

/// A client dropping its connection mid-message may reset it; any other
/// error is a failure.
fn expected_on_abort(stats: &Stats, what: &str, e: io::Error) {
    match e.kind() {
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => {}
        _ => stats.fail(format!("echo: {what}: {e}")),
    }
}

/// One client: connections of a random number of messages, until stopped.
async fn client(stats: Arc<Stats>, addr: SocketAddr, id: usize) {
    let mut rng = Rng::new(id as u64 + 1);
    let mut sent = Vec::new();
    let mut received = Vec::new();
    while !stats.stopping() {
        stats.set_phase(id, ClientPhase::Connecting, 0);
        let mut stream = match TcpStream::connect(addr).await {
            Ok(stream) => stream,
            Err(e) => return stats.fail(format!("echo: connect: {e}")),
        };
        for _ in 0..1 + rng.below(50) {
            // Mostly small messages, one in four up to 16 KiB.
            let len = if rng.one_in(4) {
                1 + rng.below(16 * 1024)
            } else {
                1 + rng.below(256)
            } as usize;
            sent.clear();
            sent.extend((0..len).map(|_| rng.next_u64() as u8));
            if rng.one_in(200) {
                stats.set_phase(id, ClientPhase::Aborting, len / 2);
                // Half a message, then the connection is dropped.
                if let Err(e) = stream.write_all(&sent[..len / 2]).await {
                    return stats.fail(format!("echo: client write: {e}"));
                }
                Stats::add(&stats.echo_disconnects, 1);
                break;
            }
            stats.set_phase(id, ClientPhase::Writing, len);
            if let Err(e) = stream.write_all(&sent).await {
                return stats.fail(format!("echo: client write: {e}"));
            }
            stats.set_phase(id, ClientPhase::Reading, len);
            received.resize(len, 0);
            if let Err(e) = stream.read_exact(&mut received).await {
                return stats.fail(format!("echo: client read of {len} bytes: {e}"));
            }
            if received != sent {
                return stats.fail(format!("echo: {len} bytes came back changed"));
            }
            Stats::add(&stats.echo_messages, 1);
            Stats::add(&stats.echo_clients[id], 1);
            Stats::add(&stats.echo_bytes, len as u64);
        }
    }
    stats.set_phase(id, ClientPhase::Done, 0);
}
