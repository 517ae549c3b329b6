#![cfg(feature = "full")]
//! Unix-domain streams: `pair`, listener accept on a path and in the
//! abstract namespace, peer credentials, half-close and EOF, split and
//! reunite, the `try_*` and readiness API, connect errors, `UnixSocket`,
//! and the std conversions.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::{ErrorKind, IoSlice, Read, Write};

use support::net::TempSocketPath;
use tokiwa::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokiwa::net::{UnixListener, UnixSocket, UnixStream};

rt_test! {
    fn pair_echo_both_ways() {
        rt().block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            a.write_all(b"ping").await.unwrap();
            let mut buf = [0u8; 4];
            b.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"ping");
            b.write_all(b"pong").await.unwrap();
            a.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"pong");
            assert!(a.local_addr().unwrap().is_unnamed());
            assert!(a.peer_addr().unwrap().is_unnamed());
        });
    }

    fn pair_starts_writable_not_readable() {
        rt().block_on(async {
            let (a, b) = UnixStream::pair().unwrap();
            // Writable without waiting for the reactor; not readable.
            assert_eq!(a.try_write(b"hi").unwrap(), 2);
            let mut buf = [0u8; 4];
            assert_eq!(
                UnixStream::pair().unwrap().0.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            b.readable().await.unwrap();
            assert_eq!(b.try_read(&mut buf).unwrap(), 2);
        });
    }

    fn peer_cred_is_this_process() {
        rt().block_on(async {
            let (a, _b) = UnixStream::pair().unwrap();
            let cred = a.peer_cred().unwrap();
            // SAFETY: plain getters without arguments.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            assert_eq!(cred.uid(), uid);
            assert_eq!(cred.gid(), gid);
            assert_eq!(cred.pid(), Some(std::process::id() as i32));

            // And for a connection accepted from a listener.
            let path = TempSocketPath::new("cred");
            let listener = UnixListener::bind(&path).unwrap();
            let (client, accepted) = tokiwa::join!(UnixStream::connect(&path), listener.accept());
            let (server, _) = accepted.unwrap();
            assert_eq!(server.peer_cred().unwrap().uid(), uid);
            assert_eq!(client.unwrap().peer_cred().unwrap().pid(), cred.pid());
        });
    }

    fn listener_accepts_on_a_path() {
        rt().block_on(async {
            let path = TempSocketPath::new("accept");
            let listener = UnixListener::bind(&path).unwrap();
            assert_eq!(listener.local_addr().unwrap().as_pathname(), Some(path.path()));
            let server = tokiwa::spawn(async move {
                let mut served = 0;
                for _ in 0..10 {
                    let (mut stream, addr) = listener.accept().await.unwrap();
                    assert!(addr.is_unnamed());
                    let mut buf = [0u8; 5];
                    stream.read_exact(&mut buf).await.unwrap();
                    stream.write_all(&buf).await.unwrap();
                    served += 1;
                }
                served
            });
            for _ in 0..10 {
                let mut client = UnixStream::connect(&path).await.unwrap();
                assert_eq!(client.peer_addr().unwrap().as_pathname(), Some(path.path()));
                client.write_all(b"hello").await.unwrap();
                let mut buf = [0u8; 5];
                client.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"hello");
            }
            assert_eq!(server.await.unwrap(), 10);
        });
    }

    fn abstract_namespace_and_poll_accept() {
        rt().block_on(async {
            let name = format!("\0tokiwa-abstract-{}-{}", std::process::id(), FLAVOR);
            let listener = UnixListener::bind(&name).unwrap();
            let addr = listener.local_addr().unwrap();
            assert_eq!(addr.as_abstract_name(), Some(&name.as_bytes()[1..]));
            let connect = UnixStream::connect_addr(&addr);
            let accept = poll_fn(|cx| listener.poll_accept(cx));
            let (client, accepted) = tokiwa::join!(connect, accept);
            let mut client = client.unwrap();
            let (mut server, _) = accepted.unwrap();
            client.write_all(b"abs").await.unwrap();
            let mut buf = [0u8; 3];
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"abs");
        });
    }

    fn half_close_eof_repeats_and_peer_drop_wakes_reader() {
        rt().block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            a.write_all(b"bye").await.unwrap();
            a.shutdown().await.unwrap();
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"bye");
            let mut buf = [0u8; 4];
            for _ in 0..3 {
                assert_eq!(b.read(&mut buf).await.unwrap(), 0);
            }
            // The other direction still works.
            b.write_all(b"ok").await.unwrap();
            a.read_exact(&mut buf[..2]).await.unwrap();

            // A reader parked on the reactor wakes with EOF when the peer goes.
            let (tx, rx) = tokiwa::sync::oneshot::channel();
            let reader = tokiwa::spawn(async move {
                let mut buf = [0u8; 4];
                let mut read = std::pin::pin!(a.read(&mut buf));
                assert!(futures::poll!(read.as_mut()).is_pending());
                tx.send(()).unwrap();
                read.await
            });
            rx.await.unwrap();
            drop(b);
            assert_eq!(reader.await.unwrap().unwrap(), 0);
        });
    }

    fn split_into_split_and_reunite() {
        rt().block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            {
                let (mut r, mut w) = a.split();
                let write = async {
                    w.write_all(b"split").await.unwrap();
                };
                let echo = async {
                    let mut buf = [0u8; 5];
                    b.read_exact(&mut buf).await.unwrap();
                    b.write_all(&buf).await.unwrap();
                };
                let read = async {
                    let mut buf = [0u8; 5];
                    r.read_exact(&mut buf).await.unwrap();
                    buf
                };
                let ((), (), got) = tokiwa::join!(write, echo, read);
                assert_eq!(&got, b"split");
            }

            let (r, mut w) = a.into_split();
            let reader = tokiwa::spawn(async move {
                let mut r = r;
                let mut buf = [0u8; 3];
                r.read_exact(&mut buf).await.unwrap();
                (r, buf)
            });
            b.write_all(b"own").await.unwrap();
            w.write_all(b"w").await.unwrap();
            let (r, buf) = reader.await.unwrap();
            assert_eq!(&buf, b"own");
            let a = r.reunite(w).unwrap();

            let (c, _d) = UnixStream::pair().unwrap();
            let (ar, aw) = a.into_split();
            let (cr, cw) = c.into_split();
            let err = ar.reunite(cw).unwrap_err();
            assert_eq!(
                err.to_string(),
                "tried to reunite halves that are not from the same socket"
            );
            let a = err.0.reunite(aw).unwrap();
            let _c = cr.reunite(err.1).unwrap();

            // Dropping an owned write half shuts writing down.
            let (_ar, aw) = a.into_split();
            drop(aw);
            let mut rest = Vec::new();
            b.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"w");
        });
    }

    fn try_read_write_vectored_and_readiness() {
        rt().block_on(async {
            let (a, b) = UnixStream::pair().unwrap();
            a.writable().await.unwrap();
            let n = a
                .try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])
                .unwrap();
            assert_eq!(n, 4);
            let ready = b.ready(Interest::READABLE).await.unwrap();
            assert!(ready.is_readable());
            let (mut x, mut y) = ([0u8; 1], [0u8; 3]);
            let mut bufs = [std::io::IoSliceMut::new(&mut x), std::io::IoSliceMut::new(&mut y)];
            assert_eq!(b.try_read_vectored(&mut bufs).unwrap(), 4);
            assert_eq!((&x, &y), (b"a", b"bcd"));
            assert_eq!(b.try_read(&mut x).unwrap_err().kind(), ErrorKind::WouldBlock);

            poll_fn(|cx| a.poll_write_ready(cx)).await.unwrap();
            a.try_write(b"z").unwrap();
            poll_fn(|cx| b.poll_read_ready(cx)).await.unwrap();
            let n = b
                .async_io(Interest::READABLE, || {
                    let mut one = [std::mem::MaybeUninit::<u8>::uninit(); 1];
                    socket2::SockRef::from(&b).recv(&mut one)
                })
                .await
                .unwrap();
            assert_eq!(n, 1);
            let err = b
                .try_io(Interest::READABLE, || {
                    let mut one = [std::mem::MaybeUninit::<u8>::uninit(); 1];
                    socket2::SockRef::from(&b).recv(&mut one)
                })
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            assert!(a.take_error().unwrap().is_none());
        });
    }

    fn connect_errors_are_the_os_errors() {
        rt().block_on(async {
            let missing = TempSocketPath::new("missing");
            let err = UnixStream::connect(&missing).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);

            // A socket file with nobody listening: refused.
            let stale = TempSocketPath::new("stale");
            drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
            let err = UnixStream::connect(&stale).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused);

            // Binding an existing path: address in use.
            let path = TempSocketPath::new("inuse");
            let _listener = UnixListener::bind(&path).unwrap();
            let err = UnixListener::bind(&path).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);

            // A path too long for `sun_path`.
            let long = "x".repeat(200);
            assert_eq!(
                UnixListener::bind(&long).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
        });
    }

    fn unix_socket_listen_connect_and_type_errors() {
        rt().block_on(async {
            let path = TempSocketPath::new("unixsocket");
            let socket = UnixSocket::new_stream().unwrap();
            socket.bind(&path).unwrap();
            let listener = socket.listen(8).unwrap();
            let (client, accepted) = tokiwa::join!(
                UnixSocket::new_stream().unwrap().connect(&path),
                listener.accept()
            );
            let mut client = client.unwrap();
            let (mut server, _) = accepted.unwrap();
            client.write_all(b"us").await.unwrap();
            let mut buf = [0u8; 2];
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"us");

            assert!(UnixSocket::new_datagram().unwrap().listen(1).is_err());
            assert!(UnixSocket::new_datagram().unwrap().connect(&path).await.is_err());
            assert!(UnixSocket::new_stream().unwrap().datagram().is_err());
            UnixSocket::new_datagram().unwrap().datagram().unwrap();
        });
    }

    fn std_round_trips() {
        rt().block_on(async {
            let (a, b) = UnixStream::pair().unwrap();
            let mut std_a = a.into_std().unwrap();
            let mut one = [0u8; 1];
            assert_eq!(std_a.read(&mut one).unwrap_err().kind(), ErrorKind::WouldBlock);
            std_a.write_all(b"s").unwrap();
            let a = UnixStream::from_std(std_a).unwrap();
            let _a = UnixStream::try_from(a.into_std().unwrap()).unwrap();
            let mut b = b;
            b.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"s");

            let path = TempSocketPath::new("stdlistener");
            let std_listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
            std_listener.set_nonblocking(true).unwrap();
            let listener = UnixListener::from_std(std_listener).unwrap();
            let std_listener = listener.into_std().unwrap();
            assert_eq!(std_listener.accept().unwrap_err().kind(), ErrorKind::WouldBlock);
            let listener = UnixListener::try_from(std_listener).unwrap();
            assert!(listener.take_error().unwrap().is_none());
            assert!(format!("{listener:?}").contains("UnixListener"));
        });
    }
}
