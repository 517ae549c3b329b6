#![cfg(feature = "full")]
//! `UdpSocket::{recv_buf, try_recv_buf, recv_buf_from, try_recv_buf_from}`:
//! receiving datagrams into a `bytes::BufMut`'s spare capacity, with the
//! readiness rules of `recv` and `try_recv`.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::ErrorKind;

use bytes::{BufMut, BytesMut};
use tokiwa::net::UdpSocket;

/// Two sockets connected to each other.
async fn connected_pair() -> (UdpSocket, UdpSocket) {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    (a, b)
}

/// Waits for readability and retries `f` until it stops saying
/// `WouldBlock`.
async fn when_readable<T>(sock: &UdpSocket, mut f: impl FnMut() -> std::io::Result<T>) -> T {
    loop {
        sock.readable().await.unwrap();
        match f() {
            Ok(v) => return v,
            Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
            Err(e) => panic!("{e}"),
        }
    }
}

rt_test! {
    fn recv_buf_appends_one_datagram_each() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            a.send(b"one").await.unwrap();
            a.send(b"two!").await.unwrap();
            let mut buf = Vec::with_capacity(64);
            assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 3);
            assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 4);
            // Datagram boundaries are kept; the second is appended.
            assert_eq!(buf, b"onetwo!");
            // A buffer with no spare capacity is grown.
            let mut empty = Vec::new();
            a.send(b"grown").await.unwrap();
            assert_eq!(b.recv_buf(&mut empty).await.unwrap(), 5);
            assert_eq!(empty, b"grown");
        });
    }

    fn try_recv_buf_would_block_then_receives() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            let mut buf = BytesMut::with_capacity(32);
            buf.put_u8(b'>');
            let err = b.try_recv_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            assert_eq!(&buf[..], b">");

            a.send(b"ping").await.unwrap();
            let n = when_readable(&b, || b.try_recv_buf(&mut buf)).await;
            assert_eq!(n, 4);
            assert_eq!(&buf[..], b">ping");
        });
    }

    fn recv_buf_from_names_the_sender() {
        rt().block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b_addr = b.local_addr().unwrap();
            a.send_to(b"from a", b_addr).await.unwrap();
            let mut buf = Vec::with_capacity(64);
            let (n, from) = b.recv_buf_from(&mut buf).await.unwrap();
            assert_eq!((n, from), (6, a.local_addr().unwrap()));
            assert_eq!(buf, b"from a");

            let err = b.try_recv_buf_from(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            let c = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            c.send_to(b"from c", b_addr).await.unwrap();
            let (n, from) = when_readable(&b, || b.try_recv_buf_from(&mut buf)).await;
            assert_eq!((n, from), (6, c.local_addr().unwrap()));
            assert_eq!(buf, b"from afrom c");
        });
    }
}
