#![cfg(feature = "full")]
//! `TcpListener`, `TcpSocket` and address resolution: accept storms,
//! `poll_accept`, the errors of `bind` and `connect` (address in use,
//! connection refused, invalid and unresolvable addresses), the std
//! conversions, and `lookup_host`.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::future::poll_fn;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};

use support::net::{is_os_error, raise_nofile_limit};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::{lookup_host, TcpListener, TcpSocket, TcpStream};

/// A local port nothing listens on: bound, then closed.
fn closed_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

rt_test! {
    fn accept_storm_of_500_connections() {
        raise_nofile_limit();
        rt().block_on(async {
            const N: usize = 500;
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut clients = tokiwa::task::JoinSet::new();
            for i in 0..N {
                clients.spawn(async move {
                    let mut stream = TcpStream::connect(addr).await.unwrap();
                    stream.write_all(&(i as u32).to_le_bytes()).await.unwrap();
                    // Wait for the server to close, so every connection is
                    // known to have been accepted.
                    let mut rest = Vec::new();
                    stream.read_to_end(&mut rest).await.unwrap();
                });
            }
            let mut seen = vec![false; N];
            for _ in 0..N {
                let (mut stream, peer) = listener.accept().await.unwrap();
                assert_eq!(peer, stream.peer_addr().unwrap());
                let mut id = [0u8; 4];
                stream.read_exact(&mut id).await.unwrap();
                let id = u32::from_le_bytes(id) as usize;
                assert!(!seen[id], "connection {id} accepted twice");
                seen[id] = true;
            }
            while let Some(res) = clients.join_next().await {
                res.unwrap();
            }
            assert!(seen.iter().all(|s| *s));
        });
    }

    fn poll_accept_and_accept_from_a_std_client() {
        rt().block_on(async {
            let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = std::thread::spawn(move || {
                let mut s = std::net::TcpStream::connect(addr).unwrap();
                s.write_all(b"std").unwrap();
                let mut back = Vec::new();
                s.read_to_end(&mut back).unwrap();
                back
            });
            let (mut stream, _) = poll_fn(|cx| listener.poll_accept(cx)).await.unwrap();
            let mut buf = [0u8; 3];
            stream.read_exact(&mut buf).await.unwrap();
            stream.write_all(&buf).await.unwrap();
            drop(stream);
            assert_eq!(client.join().unwrap(), b"std");
        });
    }

    fn address_in_use_is_the_os_error() {
        rt().block_on(async {
            let first = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = first.local_addr().unwrap();
            let err = TcpListener::bind(addr).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
            assert!(is_os_error(&err, libc::EADDRINUSE));

            // The same through `TcpSocket`.
            let socket = TcpSocket::new_v4().unwrap();
            let err = socket.bind(addr).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
        });
    }

    fn connection_refused_is_the_os_error() {
        rt().block_on(async {
            let addr = closed_port();
            let err = TcpStream::connect(addr).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err:?}");

            let socket = TcpSocket::new_v4().unwrap();
            let err = socket.connect(addr).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err:?}");
        });
    }

    fn connect_tries_each_address_and_returns_the_last_error() {
        rt().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let good = listener.local_addr().unwrap();
            let bad = closed_port();

            // The refused address first, then the listening one.
            let addrs = [bad, good];
            let stream = TcpStream::connect(&addrs[..]).await.unwrap();
            assert_eq!(stream.peer_addr().unwrap(), good);

            // Only refused addresses: the last error comes back.
            let addrs = [bad, closed_port()];
            let err = TcpStream::connect(&addrs[..]).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused);

            // No address at all.
            let none: [SocketAddr; 0] = [];
            let err = TcpStream::connect(&none[..]).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert_eq!(err.to_string(), "could not resolve to any address");
        });
    }

    fn invalid_addresses_are_errors() {
        rt().block_on(async {
            // Not an address, and not a resolvable name either.
            let err = TcpListener::bind("not an address").await.unwrap_err();
            let _ = err.kind();
            let err = TcpStream::connect("256.0.0.1:80").await.unwrap_err();
            let _ = err.kind();
            // A port out of range does not parse as an address.
            assert!(TcpStream::connect("127.0.0.1:70000").await.is_err());
            // Binding an address this host does not have.
            let err = TcpListener::bind("192.0.2.1:0").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrNotAvailable);
        });
    }

    fn every_to_socket_addrs_form_binds() {
        rt().block_on(async {
            let l = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
            assert!(l.local_addr().unwrap().is_ipv4());
            TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).await.unwrap();
            TcpListener::bind((IpAddr::V4(Ipv4Addr::LOCALHOST), 0)).await.unwrap();
            TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
            TcpListener::bind(String::from("127.0.0.1:0")).await.unwrap();
            TcpListener::bind((String::from("127.0.0.1"), 0)).await.unwrap();
            TcpListener::bind(&&"127.0.0.1:0").await.unwrap();
            TcpListener::bind(("localhost", 0)).await.unwrap();
            // IPv6 only where the host has it.
            if let Ok(l) = TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).await {
                let addr = l.local_addr().unwrap();
                assert!(addr.is_ipv6());
                let (client, server) = tokiwa::join!(TcpStream::connect(addr), l.accept());
                client.unwrap();
                server.unwrap();
            }
        });
    }

    fn lookup_host_literals_and_names() {
        rt().block_on(async {
            let addrs: Vec<_> = lookup_host("127.0.0.1:8080").await.unwrap().collect();
            assert_eq!(addrs, vec![SocketAddr::from(([127, 0, 0, 1], 8080))]);
            let addrs: Vec<_> = lookup_host(("::1", 53)).await.unwrap().collect();
            assert_eq!(addrs, vec![SocketAddr::from((Ipv6Addr::LOCALHOST, 53))]);
            // `localhost` goes through the resolver on the blocking pool.
            let addrs: Vec<_> = lookup_host("localhost:1").await.unwrap().collect();
            assert!(!addrs.is_empty());
            assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 1));
            // A name that cannot exist (RFC 6761 reserves `.invalid`).
            assert!(lookup_host("nonexistent.invalid:80").await.is_err());
        });
    }

    fn tcp_socket_options_connect_and_listen() {
        rt().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_reuseaddr(true).unwrap();
            assert!(socket.reuseaddr().unwrap());
            socket.set_reuseport(true).unwrap();
            assert!(socket.reuseport().unwrap());
            socket.set_keepalive(true).unwrap();
            assert!(socket.keepalive().unwrap());
            socket.set_send_buffer_size(64 * 1024).unwrap();
            assert!(socket.send_buffer_size().unwrap() >= 64 * 1024);
            socket.set_recv_buffer_size(64 * 1024).unwrap();
            assert!(socket.recv_buffer_size().unwrap() >= 64 * 1024);
            socket.set_nodelay(true).unwrap();
            assert!(socket.nodelay().unwrap());
            socket.set_zero_linger().unwrap();
            assert_eq!(socket.linger().unwrap(), Some(std::time::Duration::ZERO));
            socket.set_tos_v4(0x10).unwrap();
            assert_eq!(socket.tos_v4().unwrap(), 0x10);
            assert!(socket.take_error().unwrap().is_none());
            socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = socket.local_addr().unwrap();
            let listener = socket.listen(16).unwrap();
            assert_eq!(listener.local_addr().unwrap(), addr);

            // A second listener on the same port through SO_REUSEPORT.
            let twin = TcpSocket::new_v4().unwrap();
            twin.set_reuseport(true).unwrap();
            twin.bind(addr).unwrap();
            let _twin = twin.listen(16).unwrap();

            // Bind before connect picks the local address.
            let client = TcpSocket::new_v4().unwrap();
            client.bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let local = client.local_addr().unwrap();
            let stream = client.connect(addr).await.unwrap();
            assert_eq!(stream.local_addr().unwrap(), local);

            // `from_std_stream` + raw descriptors.
            use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
            let std_socket = socket2::Socket::new(
                socket2::Domain::IPV4,
                socket2::Type::STREAM.nonblocking(),
                None,
            )
            .unwrap();
            let socket = TcpSocket::from_std_stream(std_socket.into());
            let fd = socket.into_raw_fd();
            // SAFETY: `fd` was just released by `into_raw_fd`.
            let socket = unsafe { TcpSocket::from_raw_fd(fd) };
            assert_eq!(socket.as_raw_fd(), fd);
            drop(socket.connect(addr).await.unwrap());
        });
    }

    fn listener_std_round_trip_and_options() {
        rt().block_on(async {
            let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            std_listener.set_nonblocking(true).unwrap();
            let listener = TcpListener::from_std(std_listener).unwrap();
            listener.set_ttl(33).unwrap();
            assert_eq!(listener.ttl().unwrap(), 33);
            let addr = listener.local_addr().unwrap();
            assert!(format!("{listener:?}").contains("TcpListener"));

            let std_listener = listener.into_std().unwrap();
            // Still non-blocking: nobody is connecting.
            assert_eq!(std_listener.accept().unwrap_err().kind(), ErrorKind::WouldBlock);
            let listener = TcpListener::try_from(std_listener).unwrap();
            let (client, accepted) = tokiwa::join!(TcpStream::connect(addr), listener.accept());
            let (server, peer) = accepted.unwrap();
            assert_eq!(peer, client.unwrap().local_addr().unwrap());
            drop(server);
        });
    }
}

#[test]
#[should_panic(expected = "there is no reactor running")]
fn bind_outside_a_runtime_panics_like_tokio() {
    support::quiet_panics(&["there is no reactor running"]);
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let _ = TcpListener::from_std(std_listener);
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "Registering a blocking socket")]
fn from_std_rejects_a_blocking_socket_in_debug_builds() {
    support::quiet_panics(&["Registering a blocking socket"]);
    let rt = support::Flavor::current_thread().build();
    let _guard = rt.enter();
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let _ = TcpListener::from_std(std_listener);
}
