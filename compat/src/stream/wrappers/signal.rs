use std::io;

use tokiwa::signal::unix::{signal, Signal, SignalKind};

super::wrapper! {
    /// A [`Signal`] as a `Stream` of its deliveries (tokio-stream's
    /// `SignalStream`).
    SignalStream(Signal) -> (),
    |signal, cx| signal.poll_recv(cx)
}

super::wrapper! {
    /// `SIGINT` (Ctrl-C in a terminal) as a `Stream` of its deliveries: the
    /// Linux counterpart of tokio-stream's Windows-only `CtrlCStream` (see
    /// the [module docs](super)). `new` takes the `Signal`; most code wants
    /// [`CtrlCStream::ctrl_c`] instead.
    CtrlCStream(Signal) -> (),
    |signal, cx| signal.poll_recv(cx)
}

impl CtrlCStream {
    /// Registers for `SIGINT` and wraps the listener. Fails as
    /// `tokiwa::signal::unix::signal` does (outside a runtime with the I/O
    /// driver enabled).
    pub fn ctrl_c() -> io::Result<Self> {
        signal(SignalKind::interrupt()).map(CtrlCStream::new)
    }
}
