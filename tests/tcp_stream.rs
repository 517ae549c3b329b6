#![cfg(feature = "full")]
//! `TcpStream`: echo with one and with many clients, a large checksummed
//! transfer, half-close, EOF, peer drop, vectored writes, peek, the `try_*`
//! and readiness API, socket options and the std conversions.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::pin::pin;

use support::net::{pattern, Checksum};
use tokiwa::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, Interest, ReadBuf};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::sync::oneshot;

/// A connected pair: (client, server side).
async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = tokiwa::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

/// An echo server on an ephemeral port: every connection is copied back
/// to itself until EOF, then the write side is shut down.
async fn echo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokiwa::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            tokiwa::spawn(async move {
                let (mut r, mut w) = stream.split();
                tokiwa::io::copy(&mut r, &mut w).await.unwrap();
                w.shutdown().await.unwrap();
            });
        }
    });
    addr
}

/// Connects to `addr`, sends `msg`, half-closes and reads everything back.
async fn echo_once(addr: SocketAddr, msg: Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let (mut r, mut w) = stream.split();
    let write = async {
        w.write_all(&msg).await.unwrap();
        w.shutdown().await.unwrap();
    };
    let mut back = Vec::new();
    let read = r.read_to_end(&mut back);
    let ((), n) = tokiwa::join!(write, read);
    assert_eq!(n.unwrap(), msg.len());
    assert_eq!(back, msg);
}

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn zero_io_events_per_busy_tick_panics() {
    tokiwa::runtime::Builder::new_multi_thread().max_io_events_per_busy_tick(0);
}

#[test]
#[should_panic(expected = "max_io_events_per_tick must be non-zero")]
fn zero_io_events_per_tick_panics() {
    tokiwa::runtime::Builder::new_current_thread().max_io_events_per_tick(0);
}

rt_test! {
    /// A worker that always has tasks to run takes one event per look
    /// (`max_io_events_per_busy_tick(1)`): the rest wait in the kernel,
    /// and every client's round trips still complete.
    fn one_event_per_busy_look_loses_no_readiness() {
        let rt = builder().max_io_events_per_busy_tick(1).build().unwrap();
        for _ in 0..4 {
            rt.spawn(async {
                loop {
                    tokiwa::task::yield_now().await;
                }
            });
        }
        rt.block_on(async {
            let addr = echo_server().await;
            let mut clients = tokiwa::task::JoinSet::new();
            for i in 0..16u64 {
                clients.spawn(async move {
                    for round in 0..8 {
                        echo_once(addr, pattern(64, i * 8 + round)).await;
                    }
                });
            }
            while let Some(res) = clients.join_next().await {
                res.unwrap();
            }
        });
    }

    fn echo_one_client() {
        rt().block_on(async {
            let addr = echo_server().await;
            echo_once(addr, b"hello tokiwa".to_vec()).await;
        });
    }

    fn echo_200_concurrent_clients() {
        rt().block_on(async {
            let addr = echo_server().await;
            let mut clients = tokiwa::task::JoinSet::new();
            for i in 0..200u64 {
                clients.spawn(echo_once(addr, pattern(1000 + i as usize * 37, i)));
            }
            let mut done = 0;
            while let Some(res) = clients.join_next().await {
                res.unwrap();
                done += 1;
            }
            assert_eq!(done, 200);
        });
    }

    fn transfer_64_mib_with_checksum() {
        const BLOCK: usize = 1 << 20;
        const BLOCKS: u64 = 64;
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            let sender = tokiwa::spawn(async move {
                let mut sum = Checksum::new();
                for i in 0..BLOCKS {
                    let block = pattern(BLOCK, i + 1);
                    sum.update(&block);
                    client.write_all(&block).await.unwrap();
                }
                client.shutdown().await.unwrap();
                sum
            });
            let mut sum = Checksum::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = server.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                sum.update(&buf[..n]);
            }
            let sent = sender.await.unwrap();
            assert_eq!(sum.len(), BLOCK as u64 * BLOCKS);
            assert_eq!(sum, sent);
        });
    }

    fn half_close_then_peer_reads_eof_and_can_still_write() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            client.write_all(b"request").await.unwrap();
            client.shutdown().await.unwrap();

            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"request");

            // The other direction is still open.
            server.write_all(b"response").await.unwrap();
            drop(server);
            let mut back = Vec::new();
            client.read_to_end(&mut back).await.unwrap();
            assert_eq!(back, b"response");
        });
    }

    fn read_after_eof_returns_zero_repeatedly() {
        rt().block_on(async {
            let (mut client, server) = pair().await;
            drop(server);
            let mut buf = [0u8; 16];
            for _ in 0..5 {
                assert_eq!(client.read(&mut buf).await.unwrap(), 0);
            }
            // `try_read` agrees, and readiness reports the closed read side.
            assert_eq!(client.try_read(&mut buf).unwrap(), 0);
            let ready = client.ready(Interest::READABLE).await.unwrap();
            assert!(ready.is_read_closed());
        });
    }

    fn dropping_the_peer_wakes_a_parked_reader() {
        rt().block_on(async {
            let (mut client, server) = pair().await;
            let (parked_tx, parked_rx) = oneshot::channel();
            let reader = tokiwa::spawn(async move {
                let mut buf = [0u8; 8];
                let mut read = pin!(client.read(&mut buf));
                // The first poll finds nothing and parks on the reactor.
                assert!(futures::poll!(read.as_mut()).is_pending());
                parked_tx.send(()).unwrap();
                read.await
            });
            parked_rx.await.unwrap();
            drop(server);
            assert_eq!(reader.await.unwrap().unwrap(), 0);
        });
    }

    fn write_to_a_reset_peer_is_an_error_not_a_panic() {
        rt().block_on(async {
            let (mut client, server) = pair().await;
            // An abortive close: the peer answers further data with RST.
            server.set_zero_linger().unwrap();
            drop(server);
            let chunk = vec![7u8; 64 * 1024];
            let err = loop {
                match client.write(&chunk).await {
                    Ok(_) => continue,
                    Err(e) => break e,
                }
            };
            assert!(
                matches!(
                    err.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ),
                "{err:?}"
            );
        });
    }

    fn vectored_writes() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            assert!(tokiwa::io::AsyncWrite::is_write_vectored(&client));
            let bufs = [IoSlice::new(b"hello"), IoSlice::new(b", "), IoSlice::new(b"world")];
            // An empty socket buffer on loopback takes all 12 bytes at once.
            assert_eq!(client.write_vectored(&bufs).await.unwrap(), 12);
            let n = client
                .try_write_vectored(&[IoSlice::new(b"!"), IoSlice::new(b"?")])
                .unwrap();
            assert_eq!(n, 2);
            drop(client);
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"hello, world!?");
        });
    }

    fn peek_does_not_consume() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            client.write_all(b"abcdef").await.unwrap();
            let mut buf = [0u8; 6];
            let mut seen = 0;
            while seen < 6 {
                seen = server.peek(&mut buf).await.unwrap();
            }
            assert_eq!(&buf, b"abcdef");

            // `poll_peek` fills a `ReadBuf` (uninitialised memory is fine).
            let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 4];
            let mut rb = ReadBuf::uninit(&mut storage);
            let n = poll_fn(|cx| server.poll_peek(cx, &mut rb)).await.unwrap();
            assert_eq!(n, 4);
            assert_eq!(rb.filled(), b"abcd");

            // Borrowed and owned halves peek too.
            let (mut r, _w) = server.split();
            assert_eq!(r.peek(&mut buf).await.unwrap(), 6);

            let mut all = [0u8; 6];
            server.read_exact(&mut all).await.unwrap();
            assert_eq!(&all, b"abcdef");
        });
    }

    fn poll_read_into_uninitialised_memory_initialises_only_what_it_read() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            client.write_all(b"hello").await.unwrap();
            // hyper lends a fresh `ReadBuf` over uninitialised memory on
            // every read: the stream must not zero the rest of it.
            let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
            let mut rb = ReadBuf::uninit(&mut storage);
            while rb.filled().len() < 5 {
                poll_fn(|cx| std::pin::Pin::new(&mut server).poll_read(cx, &mut rb))
                    .await
                    .unwrap();
            }
            assert_eq!(rb.filled(), b"hello");
            assert_eq!(rb.initialized().len(), 5);
        });
    }

    fn try_read_write_and_readiness() {
        rt().block_on(async {
            let (client, server) = pair().await;
            let mut buf = [0u8; 32];
            // Nothing queued: the readiness the accept assumed is proven
            // wrong by this very call, which reports `WouldBlock`.
            let err = server.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);

            client.writable().await.unwrap();
            assert_eq!(client.try_write(b"ping").unwrap(), 4);

            let mut got = 0;
            while got < 4 {
                let ready = server
                    .ready(Interest::READABLE | Interest::WRITABLE)
                    .await
                    .unwrap();
                if ready.is_readable() {
                    match server.try_read(&mut buf[got..]) {
                        Ok(n) => got += n,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => panic!("{e}"),
                    }
                } else {
                    server.readable().await.unwrap();
                }
            }
            assert_eq!(&buf[..4], b"ping");

            // Vectored `try_read`.
            client.try_write(b"xyz").unwrap();
            let (mut a, mut b) = ([0u8; 1], [0u8; 2]);
            let mut n = 0;
            while n < 3 {
                server.readable().await.unwrap();
                let mut bufs = [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)];
                match server.try_read_vectored(&mut bufs) {
                    Ok(m) => n += m,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!((&a, &b), (b"x", b"yz"));

            // `poll_read_ready` / `poll_write_ready`.
            poll_fn(|cx| client.poll_write_ready(cx)).await.unwrap();
            client.try_write(b"!").unwrap();
            poll_fn(|cx| server.poll_read_ready(cx)).await.unwrap();
        });
    }

    fn try_io_and_async_io_with_a_raw_syscall() {
        rt().block_on(async {
            let (client, server) = pair().await;
            let sent = client
                .async_io(Interest::WRITABLE, || {
                    socket2::SockRef::from(&client).send(b"raw")
                })
                .await
                .unwrap();
            assert_eq!(sent, 3);
            let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 8];
            let n = server
                .async_io(Interest::READABLE, || socket2::SockRef::from(&server).recv(&mut buf))
                .await
                .unwrap();
            assert_eq!(n, 3);
            // Nothing left: `try_io` reports `WouldBlock` (from the closure
            // or because readiness is already clear).
            let err = server
                .try_io(Interest::READABLE, || {
                    socket2::SockRef::from(&server).recv(&mut buf)
                })
                .unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        });
    }

    fn addresses_options_and_std_round_trip() {
        rt().block_on(async {
            let (client, server) = pair().await;
            assert_eq!(client.peer_addr().unwrap(), server.local_addr().unwrap());
            assert_eq!(client.local_addr().unwrap(), server.peer_addr().unwrap());

            client.set_nodelay(true).unwrap();
            assert!(client.nodelay().unwrap());
            client.set_ttl(42).unwrap();
            assert_eq!(client.ttl().unwrap(), 42);
            assert_eq!(client.linger().unwrap(), None);
            client.set_zero_linger().unwrap();
            assert_eq!(client.linger().unwrap(), Some(std::time::Duration::ZERO));
            #[allow(deprecated)]
            client.set_linger(None).unwrap();
            assert_eq!(client.linger().unwrap(), None);
            client.set_quickack(true).unwrap();
            assert!(client.take_error().unwrap().is_none());
            assert!(format!("{client:?}").contains("TcpStream"));

            // Into std and back: still connected, still non-blocking.
            let mut std_client = client.into_std().unwrap();
            let mut buf = [0u8; 1];
            assert_eq!(
                std_client.read(&mut buf).unwrap_err().kind(),
                std::io::ErrorKind::WouldBlock
            );
            std_client.write_all(b"s").unwrap();
            let client = TcpStream::from_std(std_client).unwrap();
            let mut server = server;
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"s");
            let client = TcpStream::try_from(client.into_std().unwrap()).unwrap();
            client.into_std().unwrap().shutdown(Shutdown::Both).unwrap();
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        });
    }

    fn poll_read_and_write_through_async_traits() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            let mut w = pin!(&mut client);
            let n = poll_fn(|cx| tokiwa::io::AsyncWrite::poll_write(w.as_mut(), cx, b"abc"))
                .await
                .unwrap();
            assert_eq!(n, 3);
            poll_fn(|cx| tokiwa::io::AsyncWrite::poll_flush(w.as_mut(), cx))
                .await
                .unwrap();
            let mut storage = [0u8; 3];
            let mut rb = ReadBuf::new(&mut storage);
            let mut r = pin!(&mut server);
            while rb.filled().len() < 3 {
                poll_fn(|cx| tokiwa::io::AsyncRead::poll_read(r.as_mut(), cx, &mut rb))
                    .await
                    .unwrap();
            }
            assert_eq!(rb.filled(), b"abc");
            // A second shutdown is fine.
            client.shutdown().await.unwrap();
            client.shutdown().await.unwrap();
            let mut more = [0u8; 1];
            assert_eq!(server.read(&mut more).await.unwrap(), 0);
        });
    }
}
