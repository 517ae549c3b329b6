#![cfg(feature = "full")]
//! `runtime::is_rt_shutdown_err`: the error of a resource whose runtime
//! was dropped is recognised, whichever runtime polls it; other errors are
//! not.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io;

use tokiwa::net::{TcpListener, UdpSocket};
use tokiwa::runtime::is_rt_shutdown_err;

rt_test! {
    fn resource_of_a_dropped_runtime_fails_with_the_shutdown_error() {
        let first = rt();
        let (listener, socket) = first.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            (listener, socket)
        });
        drop(first);

        rt().block_on(async {
            let err = listener.accept().await.unwrap_err();
            assert!(is_rt_shutdown_err(&err), "{err:?}");
            let mut buf = [0u8; 8];
            let err = socket.recv_from(&mut buf).await.unwrap_err();
            assert!(is_rt_shutdown_err(&err), "{err:?}");
        });
    }

    /// tokio's `try_*` methods never look at the shutdown flag: readiness
    /// seen before the runtime went away still lets them run the syscall
    /// (so data already received can be read), and only the waits report
    /// the shutdown (tokio's `tcp_accept_ready.rs`).
    fn try_read_after_the_runtime_dropped_still_reads_received_data() {
        let first = rt();
        let (stream, mut peer) = first.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (stream, _) = listener.accept().await.unwrap();
            (stream, peer)
        });
        std::io::Write::write_all(&mut peer, b"hello").unwrap();
        // Wait for the readiness the driver reports, then drop the runtime.
        first.block_on(stream.readable()).unwrap();
        drop(first);

        let mut buf = [0u8; 8];
        assert_eq!(stream.try_read(&mut buf).unwrap(), 5);
        assert_eq!(&buf[..5], b"hello");
        // Nothing left: the read clears the readiness; the wait that
        // follows reports the shutdown instead of hanging.
        let err = stream.try_read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        let err = rt().block_on(stream.readable()).unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err:?}");
    }

    fn other_errors_are_not_the_shutdown_error() {
        let rt = rt();
        let handle = rt.spawn(std::future::pending::<()>());
        handle.abort();
        let cancelled: io::Error = rt.block_on(handle).unwrap_err().into();
        assert!(!is_rt_shutdown_err(&cancelled));

        let panicked = rt.spawn(async { panic!("boom") });
        let panicked: io::Error = rt.block_on(panicked).unwrap_err().into();
        assert!(!is_rt_shutdown_err(&panicked));

        assert!(!is_rt_shutdown_err(&io::Error::other("some other error")));
        assert!(!is_rt_shutdown_err(&io::Error::from(io::ErrorKind::TimedOut)));
        let suffixed = "A Tokio 1.x context was found, but it is being shutdown. (more)";
        assert!(!is_rt_shutdown_err(&io::Error::other(suffixed)));
    }
}
