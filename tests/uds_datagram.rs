#![cfg(feature = "full")]
//! Unix-domain datagrams: `pair`, bound sockets with `send_to` /
//! `recv_from`, `unbound` plus `connect`, the poll_ and try_ forms,
//! readiness, errors, and the std conversions.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::ErrorKind;
use std::net::Shutdown;

use support::net::TempSocketPath;
use tokiwa::io::{Interest, ReadBuf};
use tokiwa::net::UnixDatagram;

rt_test! {
    fn pair_send_and_recv() {
        rt().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            a.send(b"first").await.unwrap();
            a.send(b"second").await.unwrap();
            let mut buf = [0u8; 16];
            assert_eq!(b.recv(&mut buf).await.unwrap(), 5);
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"second");
            assert!(a.peer_addr().unwrap().is_unnamed());
        });
    }

    fn bound_sockets_send_to_and_recv_from() {
        rt().block_on(async {
            let tx_path = TempSocketPath::new("dgram-tx");
            let rx_path = TempSocketPath::new("dgram-rx");
            let tx = UnixDatagram::bind(&tx_path).unwrap();
            let rx = UnixDatagram::bind(&rx_path).unwrap();
            assert_eq!(rx.local_addr().unwrap().as_pathname(), Some(rx_path.path()));

            assert_eq!(tx.send_to(b"hello", &rx_path).await.unwrap(), 5);
            let mut buf = [0u8; 16];
            let (n, from) = rx.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"hello");
            assert_eq!(from.as_pathname(), Some(tx_path.path()));

            // Reply to the sender's address.
            rx.send_to(b"back", from.as_pathname().unwrap()).await.unwrap();
            let n = tx.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"back");

            // An unbound socket can send; its address is unnamed.
            let anon = UnixDatagram::unbound().unwrap();
            anon.send_to(b"anon", &rx_path).await.unwrap();
            let (_, from) = rx.recv_from(&mut buf).await.unwrap();
            assert!(from.is_unnamed());
        });
    }

    fn connect_then_send_and_recv() {
        rt().block_on(async {
            let path = TempSocketPath::new("dgram-connect");
            let server = UnixDatagram::bind(&path).unwrap();
            let client = UnixDatagram::unbound().unwrap();
            client.connect(&path).unwrap();
            assert_eq!(client.peer_addr().unwrap().as_pathname(), Some(path.path()));
            client.send(b"c").await.unwrap();
            let mut buf = [0u8; 4];
            assert_eq!(server.recv(&mut buf).await.unwrap(), 1);

            // Connecting to a path nobody bound is the OS error.
            let missing = TempSocketPath::new("dgram-missing");
            assert_eq!(client.connect(&missing).unwrap_err().kind(), ErrorKind::NotFound);
            let err = client.send_to(b"x", &missing).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
        });
    }

    fn poll_forms() {
        rt().block_on(async {
            let rx_path = TempSocketPath::new("dgram-poll");
            let rx = UnixDatagram::bind(&rx_path).unwrap();
            let (a, b) = UnixDatagram::pair().unwrap();

            poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
            assert_eq!(poll_fn(|cx| a.poll_send(cx, b"p")).await.unwrap(), 1);
            poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
            let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 8];
            let mut rb = ReadBuf::uninit(&mut storage);
            poll_fn(|cx| b.poll_recv(cx, &mut rb)).await.unwrap();
            assert_eq!(rb.filled(), b"p");

            let tx = UnixDatagram::unbound().unwrap();
            assert_eq!(poll_fn(|cx| tx.poll_send_to(cx, b"to", &rx_path)).await.unwrap(), 2);
            let mut rb = ReadBuf::uninit(&mut storage);
            let from = poll_fn(|cx| rx.poll_recv_from(cx, &mut rb)).await.unwrap();
            assert_eq!(rb.filled(), b"to");
            assert!(from.is_unnamed());
        });
    }

    fn try_forms_readiness_and_shutdown() {
        rt().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            let mut buf = [0u8; 8];
            assert_eq!(b.try_recv(&mut buf).unwrap_err().kind(), ErrorKind::WouldBlock);
            // A fresh pair is writable without waiting for the reactor.
            assert_eq!(a.try_send(b"t").unwrap(), 1);
            let ready = b.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
            assert!(ready.is_readable() || ready.is_writable());
            b.readable().await.unwrap();
            let (n, from) = b.try_recv_from(&mut buf).unwrap();
            assert_eq!((n, from.is_unnamed()), (1, true));

            let path = TempSocketPath::new("dgram-try");
            let rx = UnixDatagram::bind(&path).unwrap();
            let tx = UnixDatagram::unbound().unwrap();
            tx.writable().await.unwrap();
            assert_eq!(tx.try_send_to(b"ts", &path).unwrap(), 2);
            rx.readable().await.unwrap();
            assert_eq!(rx.try_recv(&mut buf).unwrap(), 2);

            // try_io / async_io with a raw syscall.
            a.async_io(Interest::WRITABLE, || socket2::SockRef::from(&a).send(b"raw"))
                .await
                .unwrap();
            let mut raw = [std::mem::MaybeUninit::<u8>::uninit(); 8];
            let n = b
                .async_io(Interest::READABLE, || socket2::SockRef::from(&b).recv(&mut raw))
                .await
                .unwrap();
            assert_eq!(n, 3);
            let err = b
                .try_io(Interest::READABLE, || socket2::SockRef::from(&b).recv(&mut raw))
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            // After shutting down writing, sends fail with the OS error.
            a.shutdown(Shutdown::Write).unwrap();
            assert_eq!(a.send(b"x").await.unwrap_err().kind(), ErrorKind::BrokenPipe);
            assert!(a.take_error().unwrap().is_none());
        });
    }

    fn many_datagrams_through_a_pair() {
        rt().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            let sender = tokiwa::spawn(async move {
                for i in 0..1000u32 {
                    a.send(&i.to_le_bytes()).await.unwrap();
                }
                a
            });
            let mut buf = [0u8; 4];
            for i in 0..1000u32 {
                assert_eq!(b.recv(&mut buf).await.unwrap(), 4);
                assert_eq!(u32::from_le_bytes(buf), i);
            }
            drop(sender.await.unwrap());
        });
    }

    fn std_round_trip() {
        rt().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            let std_a = a.into_std().unwrap();
            let mut buf = [0u8; 1];
            assert_eq!(std_a.recv(&mut buf).unwrap_err().kind(), ErrorKind::WouldBlock);
            let a = UnixDatagram::from_std(std_a).unwrap();
            let a = UnixDatagram::try_from(a.into_std().unwrap()).unwrap();
            a.send(b"s").await.unwrap();
            b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf, b"s");
            assert!(format!("{a:?}").contains("UnixDatagram"));
        });
    }
}
