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
