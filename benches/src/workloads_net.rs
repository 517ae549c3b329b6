// The network workload, written once against the tokio API.
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`, and this file names the runtime only
// through `rt::`.
//
// `tcp_echo_round` builds its own runtime, so the caller needs no runtime
// type; setup (binding, connecting, accepting, warm-up round trips) and
// shutdown happen outside the measured window. The window itself is
// `echo_with`, generic over how each end uses its stream ([`Echoer`]), so
// the `echo_compat` rows (`workloads_echo_compat.rs`) run the same code
// through tokiwa-compat's adapter.

use super::rt;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::sync::watch;
use std::future::Future;
use std::time::Instant;

use super::w::{build, in_task, Countdown};
use crate::columns::Column;
use crate::echo_round::{EchoRound, EchoShape};
use crate::Flavour;

/// How both ends of an echo connection use their stream.
pub trait Echoer: Send + Sized + 'static {
    /// The client's end, from its connected stream.
    fn client(stream: TcpStream) -> Self;
    /// Sends `out` and reads the echo into `back`.
    fn round_trip<'a>(
        &'a mut self,
        out: &'a [u8],
        back: &'a mut [u8],
    ) -> impl Future<Output = ()> + Send + 'a;
    /// The server's end: echoes whatever arrives until the peer closes.
    fn serve(stream: TcpStream, msg: usize) -> impl Future<Output = ()> + Send;
}

/// The plain row: tokio's `AsyncReadExt`/`AsyncWriteExt` on the stream.
struct Plain(TcpStream);

impl Echoer for Plain {
    fn client(stream: TcpStream) -> Plain {
        Plain(stream)
    }

    async fn round_trip(&mut self, out: &[u8], back: &mut [u8]) {
        self.0.write_all(out).await.expect("client write");
        self.0.read_exact(back).await.expect("client read");
    }

    async fn serve(mut stream: TcpStream, msg: usize) {
        stream.set_nodelay(true).expect("server nodelay");
        let mut buf = vec![0u8; msg];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) => return,
                Ok(n) => stream.write_all(&buf[..n]).await.expect("server write"),
                Err(e) => panic!("server read: {e}"),
            }
        }
    }
}

/// One measured window of `shape.conns` clients doing `shape.msg`-byte round
/// trips against an echo server, all on one fresh multi-thread runtime.
pub fn tcp_echo_round(shape: EchoShape, column: Column) -> EchoRound {
    let runtime = build(Flavour::MultiThread, column);
    let round = in_task(
        &runtime,
        move || async move { echo_with::<Plain>(shape).await },
    );
    drop(runtime);
    round
}

/// One measured window of `shape.conns` clients of kind `E` against an
/// echo server of kind `E`, on the current runtime.
pub async fn echo_with<E: Echoer>(shape: EchoShape) -> EchoRound {
    let EchoShape {
        conns,
        msg,
        warmup,
        window,
    } = shape;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local_addr");
    let server = rt::spawn(async move {
        let mut connections = Vec::with_capacity(conns);
        for _ in 0..conns {
            let (stream, _) = listener.accept().await.expect("accept");
            connections.push(rt::spawn(E::serve(stream, msg)));
        }
        for c in connections {
            c.await.expect("server connection");
        }
    });

    // Every client connects and warms up, reports ready, then waits for the
    // shared deadline, so the window opens for all of them at once.
    let ready = Countdown::new(conns);
    let (deadline_tx, deadline_rx) = watch::channel::<Option<Instant>>(None);
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            let ready = ready.clone();
            let mut deadline_rx = deadline_rx.clone();
            rt::spawn(async move {
                let stream = TcpStream::connect(addr).await.expect("connect");
                stream.set_nodelay(true).expect("client nodelay");
                let mut stream = E::client(stream);
                let out = vec![0x5au8; msg];
                let mut back = vec![0u8; msg];
                for _ in 0..warmup {
                    stream.round_trip(&out, &mut back).await;
                }
                ready.done();
                let deadline = deadline_rx
                    .wait_for(Option::is_some)
                    .await
                    .expect("deadline")
                    .expect("is_some");

                let mut rtts_ns = Vec::with_capacity(1024);
                loop {
                    let sent = Instant::now();
                    if sent >= deadline {
                        break;
                    }
                    stream.round_trip(&out, &mut back).await;
                    rtts_ns.push(sent.elapsed().as_nanos() as u64);
                }
                (rtts_ns, Instant::now())
            })
        })
        .collect();

    ready.wait().await;
    let handle = rt::runtime::Handle::current();
    let counters_before = super::counters(&handle);
    let cpu_before = crate::echo_round::process_cpu();
    let start = Instant::now();
    deadline_tx.send_replace(Some(start + window));
    let mut rtts_ns = Vec::new();
    let mut end = start;
    for client in clients {
        // The client's stream is dropped here, which ends its server task.
        let (rtts, finished) = client.await.expect("client");
        rtts_ns.extend_from_slice(&rtts);
        end = end.max(finished);
    }
    let cpu = crate::echo_round::process_cpu() - cpu_before;
    let counters = super::counters(&handle)
        .zip(counters_before)
        .map(|(after, before)| after - before);
    server.await.expect("server");
    EchoRound {
        rtts_ns,
        elapsed: end - start,
        counters,
        cpu,
    }
}
