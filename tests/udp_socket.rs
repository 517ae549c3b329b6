#![cfg(feature = "full")]
//! `UdpSocket`: connected send/recv, send_to/recv_from, peek, the poll_
//! and try_ forms, readiness, a refused destination, sharing through an
//! `Arc`, options and the std conversions.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::ErrorKind;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use tokiwa::io::{Interest, ReadBuf};
use tokiwa::net::UdpSocket;

/// Two sockets connected to each other.
async fn connected_pair() -> (UdpSocket, UdpSocket) {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    (a, b)
}

/// Retries `f` after `readable()` until it stops saying `WouldBlock`.
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
    fn connected_send_and_recv() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
            assert_eq!(a.send(b"hello").await.unwrap(), 5);
            let mut buf = [0u8; 32];
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"hello");
            // Datagram boundaries are kept.
            b.send(b"one").await.unwrap();
            b.send(b"two!").await.unwrap();
            assert_eq!(a.recv(&mut buf).await.unwrap(), 3);
            assert_eq!(a.recv(&mut buf).await.unwrap(), 4);
            assert_eq!(&buf[..4], b"two!");
        });
    }

    fn send_to_and_recv_from() {
        rt().block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b_addr = b.local_addr().unwrap();
            a.send_to(b"to b", b_addr).await.unwrap();
            // Any `ToSocketAddrs` works as the target.
            a.send_to(b"again", format!("127.0.0.1:{}", b_addr.port()))
                .await
                .unwrap();
            let mut buf = [0u8; 16];
            let (n, from) = b.recv_from(&mut buf).await.unwrap();
            assert_eq!((&buf[..n], from), (&b"to b"[..], a.local_addr().unwrap()));
            let (n, _) = b.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"again");

            let none: [SocketAddr; 0] = [];
            let err = a.send_to(b"x", &none[..]).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
        });
    }

    fn peek_peek_from_and_peek_sender() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            a.send(b"peeked").await.unwrap();
            let mut buf = [0u8; 16];
            assert_eq!(b.peek_sender().await.unwrap(), a.local_addr().unwrap());
            let (n, from) = b.peek_from(&mut buf).await.unwrap();
            assert_eq!((&buf[..n], from), (&b"peeked"[..], a.local_addr().unwrap()));
            assert_eq!(b.peek(&mut buf).await.unwrap(), 6);
            assert_eq!(b.try_peek(&mut buf).unwrap(), 6);
            assert_eq!(b.try_peek_from(&mut buf).unwrap().1, a.local_addr().unwrap());
            assert_eq!(b.try_peek_sender().unwrap(), a.local_addr().unwrap());
            assert_eq!(
                poll_fn(|cx| b.poll_peek_sender(cx)).await.unwrap(),
                a.local_addr().unwrap()
            );

            let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 16];
            let mut rb = ReadBuf::uninit(&mut storage);
            poll_fn(|cx| b.poll_peek(cx, &mut rb)).await.unwrap();
            assert_eq!(rb.filled(), b"peeked");
            let mut rb = ReadBuf::uninit(&mut storage);
            let from = poll_fn(|cx| b.poll_peek_from(cx, &mut rb)).await.unwrap();
            assert_eq!((rb.filled(), from), (&b"peeked"[..], a.local_addr().unwrap()));

            // Still there after all that peeking.
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"peeked");
        });
    }

    fn poll_forms() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
            assert_eq!(poll_fn(|cx| a.poll_send(cx, b"p1")).await.unwrap(), 2);
            let target = b.local_addr().unwrap();
            assert_eq!(poll_fn(|cx| a.poll_send_to(cx, b"p2", target)).await.unwrap(), 2);

            poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
            let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 8];
            let mut rb = ReadBuf::uninit(&mut storage);
            poll_fn(|cx| b.poll_recv(cx, &mut rb)).await.unwrap();
            assert_eq!(rb.filled(), b"p1");
            let mut rb = ReadBuf::uninit(&mut storage);
            let from = poll_fn(|cx| b.poll_recv_from(cx, &mut rb)).await.unwrap();
            assert_eq!((rb.filled(), from), (&b"p2"[..], a.local_addr().unwrap()));
        });
    }

    fn try_forms_and_readiness() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            let mut buf = [0u8; 8];
            // Nothing has arrived: `WouldBlock`, never a wait.
            assert_eq!(b.try_recv(&mut buf).unwrap_err().kind(), ErrorKind::WouldBlock);

            a.writable().await.unwrap();
            assert!(a.ready(Interest::WRITABLE).await.unwrap().is_writable());
            assert_eq!(a.try_send(b"t1").unwrap(), 2);
            assert_eq!(a.try_send_to(b"t2", b.local_addr().unwrap()).unwrap(), 2);

            let n = when_readable(&b, || b.try_recv(&mut buf)).await;
            assert_eq!(&buf[..n], b"t1");
            let (n, from) = when_readable(&b, || b.try_recv_from(&mut buf)).await;
            assert_eq!((&buf[..n], from), (&b"t2"[..], a.local_addr().unwrap()));

            // `try_io` / `async_io` with a raw syscall.
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
        });
    }

    fn refused_destination_is_reported_to_the_receiver() {
        rt().block_on(async {
            let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            // A port nobody listens on: bound, then closed.
            let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            let closed_addr = closed.local_addr().unwrap();
            drop(closed);
            sock.connect(closed_addr).await.unwrap();
            sock.send(b"anyone?").await.unwrap();
            // The ICMP port-unreachable comes back as an error on the
            // socket; `recv` waits for it (ERROR interest) and returns it.
            let mut buf = [0u8; 8];
            let err = sock.recv(&mut buf).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err:?}");
        });
    }

    fn a_loop_on_an_always_ready_socket_yields_to_other_tasks() {
        // In a spawned task, so that on one worker the other task can run
        // only if this one yields.
        rt().block_on(async {
            tokiwa::spawn(async {
            let (a, b) = connected_pair().await;
            let mut buf = [0u8; 8];
            // One round first, so both sockets have seen their readiness.
            a.send(b"warm").await.unwrap();
            b.recv(&mut buf).await.unwrap();
            let other_ran = Arc::new(AtomicBool::new(false));
            {
                let other_ran = other_ran.clone();
                tokiwa::spawn(async move { other_ran.store(true, SeqCst) });
            }
            // Loopback delivers during `send`, so neither call ever waits:
            // only the cooperative budget can make this task yield.
            let mut rounds = 0;
            while !other_ran.load(SeqCst) {
                a.send(b"spin").await.unwrap();
                assert_eq!(b.recv(&mut buf).await.unwrap(), 4);
                rounds += 1;
                assert!(rounds < 10_000, "the loop never yielded");
            }
            })
            .await
            .unwrap();
        });
    }

    fn shared_through_an_arc() {
        rt().block_on(async {
            let (a, b) = connected_pair().await;
            let a = Arc::new(a);
            let b = Arc::new(b);
            let rx = {
                let b = b.clone();
                tokiwa::spawn(async move {
                    let mut total = 0;
                    let mut buf = [0u8; 8];
                    for _ in 0..100 {
                        total += b.recv(&mut buf).await.unwrap();
                    }
                    total
                })
            };
            let tx = {
                let a = a.clone();
                tokiwa::spawn(async move {
                    for _ in 0..100 {
                        a.send(b"1234").await.unwrap();
                    }
                })
            };
            tx.await.unwrap();
            assert_eq!(rx.await.unwrap(), 400);
        });
    }

    fn options_and_std_round_trip() {
        rt().block_on(async {
            let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            sock.set_broadcast(true).unwrap();
            assert!(sock.broadcast().unwrap());
            sock.set_ttl(17).unwrap();
            assert_eq!(sock.ttl().unwrap(), 17);
            sock.set_multicast_loop_v4(false).unwrap();
            assert!(!sock.multicast_loop_v4().unwrap());
            sock.set_multicast_ttl_v4(3).unwrap();
            assert_eq!(sock.multicast_ttl_v4().unwrap(), 3);
            sock.set_tos_v4(0x10).unwrap();
            assert_eq!(sock.tos_v4().unwrap(), 0x10);
            assert!(sock.take_error().unwrap().is_none());
            assert_eq!(sock.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);

            // Multicast membership on the any-interface of a v4 socket.
            let any = UdpSocket::bind("0.0.0.0:0").await.unwrap();
            let group = Ipv4Addr::new(239, 255, 0, 77);
            if any.join_multicast_v4(group, Ipv4Addr::UNSPECIFIED).is_ok() {
                any.leave_multicast_v4(group, Ipv4Addr::UNSPECIFIED).unwrap();
            }
            if let Ok(v6) = UdpSocket::bind((Ipv6Addr::LOCALHOST, 0)).await {
                v6.set_multicast_loop_v6(false).unwrap();
                assert!(!v6.multicast_loop_v6().unwrap());
                let group6: Ipv6Addr = "ff02::1:77".parse().unwrap();
                if v6.join_multicast_v6(&group6, 0).is_ok() {
                    v6.leave_multicast_v6(&group6, 0).unwrap();
                }
            }

            let addr = sock.local_addr().unwrap();
            let std_sock = sock.into_std().unwrap();
            let mut buf = [0u8; 1];
            // Still non-blocking.
            assert_eq!(std_sock.recv(&mut buf).unwrap_err().kind(), ErrorKind::WouldBlock);
            let sock = UdpSocket::from_std(std_sock).unwrap();
            let sock = UdpSocket::try_from(sock.into_std().unwrap()).unwrap();
            assert_eq!(sock.local_addr().unwrap(), addr);
            assert!(format!("{sock:?}").contains("UdpSocket"));

            let err = UdpSocket::bind(addr).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
        });
    }
}
