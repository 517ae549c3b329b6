// The `echo_compat` workload: `tcp_echo` with both ends going through
// tokiwa-compat's futures-io adapter.
//
// Compiled only for tokiwa (by `main.rs`, inside `on_tokiwa`): it needs
// `tokiwa_compat`. The plain variant is `workloads_net.rs`'s
// `tcp_echo_round` itself; the compat variant runs the same measured
// window (`echo_with`) with every `TcpStream` wrapped with `.compat()`
// (tokio-style -> futures-io) and driven with
// `futures::io::{AsyncReadExt, AsyncWriteExt}`, so the two differ only in
// the adapter's cost.

use super::rt;

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::TcpStream;
use tokiwa_compat::{Compat, TokioAsyncReadCompatExt};

use super::net::{echo_with, Echoer};
use super::w::{build, in_task};
use crate::columns::Column;
use crate::echo_round::{EchoRound, EchoShape};
use crate::Flavour;

/// The plain variant: exactly the `tcp_echo` row's round.
pub fn plain_round(shape: EchoShape, column: Column) -> EchoRound {
    super::net::tcp_echo_round(shape, column)
}

/// The compat variant: one measured window like `tcp_echo_round`, every
/// stream seen through `Compat<TcpStream>` as a futures-io reader/writer.
pub fn compat_round(shape: EchoShape, column: Column) -> EchoRound {
    let runtime = build(Flavour::MultiThread, column);
    let round = in_task(&runtime, move || async move {
        echo_with::<ThroughCompat>(shape).await
    });
    drop(runtime);
    round
}

/// Both ends through `Compat<TcpStream>`.
struct ThroughCompat(Compat<TcpStream>);

impl Echoer for ThroughCompat {
    fn client(stream: TcpStream) -> ThroughCompat {
        ThroughCompat(stream.compat())
    }

    async fn round_trip(&mut self, out: &[u8], back: &mut [u8]) {
        self.0.write_all(out).await.expect("client write");
        self.0.read_exact(back).await.expect("client read");
    }

    async fn serve(stream: TcpStream, msg: usize) {
        stream.set_nodelay(true).expect("server nodelay");
        let mut stream = stream.compat();
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
