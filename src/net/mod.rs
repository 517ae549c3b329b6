//! TCP, UDP and Unix-domain sockets, with tokio's API.
//!
//! * [`TcpListener`], [`TcpStream`] and [`TcpSocket`] (`tcp/`), with the
//!   borrowed and owned halves of a stream in [`tcp`];
//! * [`UdpSocket`] (`udp.rs`);
//! * [`UnixListener`], [`UnixStream`], [`UnixDatagram`] and [`UnixSocket`]
//!   (`unix/`), with the halves, [`unix::SocketAddr`] and [`unix::UCred`]
//!   in [`unix`];
//! * [`ToSocketAddrs`] and [`lookup_host`] (`addr.rs`, `lookup_host.rs`).
//!
//! # Design
//!
//! Every socket type is a thin shell around a `PollEvented<S>`, where `S`
//! is the standard library's socket type in non-blocking mode
//! (`std::net::TcpStream`, `std::os::unix::net::UnixDatagram`, ...). The
//! shell adds no state of its own: an operation is the plain non-blocking
//! syscall, retried by the registration (`runtime/driver/registration.rs`)
//! after each `WouldBlock` once the reactor reports readiness again. So
//! the error a call returns is exactly the one the kernel gave (refused,
//! reset, broken pipe, address in use), and nothing here can panic on a
//! network fault.
//!
//! Sockets are created non-blocking and close-on-exec in one `socket(2)`
//! call through `socket2`, which also provides every socket option; the
//! standard types are then built from the `socket2::Socket` without
//! `unsafe`. TCP accepts use `accept4(2)` with `SOCK_NONBLOCK`, so an
//! accepted connection costs one syscall.
//!
//! A freshly accepted stream, and each end of a fresh pair, is *assumed*
//! ready before the reactor has said so (tokio does the same): its first
//! read tries the socket at once instead of waiting for the poll thread's
//! first event. A wrong guess costs one `WouldBlock`, which clears it.
//!
//! Faults keep the socket usable where the kernel does: an accept that
//! fails with `EMFILE` returns the error *without* clearing the listener's
//! readiness, so the next `accept` retries the syscall and succeeds once a
//! descriptor is free (the pending connection stays queued; an
//! edge-triggered reactor would not report it again).
//!
//! Only the Linux flavour of everything exists: tokiwa runs on Linux.
mod addr;
#[cfg(feature = "io-util")]
mod buf_mut;
mod evented;
mod lookup_host;
mod split;
mod util;

pub mod tcp;
mod udp;
pub mod unix;

pub use addr::ToSocketAddrs;
pub use lookup_host::lookup_host;
pub use tcp::listener::TcpListener;
pub use tcp::socket::TcpSocket;
pub use tcp::stream::TcpStream;
pub use udp::UdpSocket;
pub use unix::datagram::socket::UnixDatagram;
pub use unix::listener::UnixListener;
pub use unix::socket::UnixSocket;
pub use unix::stream::UnixStream;
