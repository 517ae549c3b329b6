#![cfg(feature = "full")]
//! The `bytes::BufMut` receives of the Unix types: `UnixStream::
//! try_read_buf` (and its halves'), `UnixDatagram::{recv_buf,
//! try_recv_buf, recv_buf_from, try_recv_buf_from}` and
//! `pipe::Receiver::try_read_buf`, with the readiness rules of their
//! slice-taking forms.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::ErrorKind;

use bytes::BytesMut;
use support::net::TempSocketPath;
use tokiwa::io::AsyncWriteExt;
use tokiwa::net::unix::pipe;
use tokiwa::net::{UnixDatagram, UnixStream};

/// Retries `f` after `ready` until it stops saying `WouldBlock`.
async fn retry<T, R>(mut ready: impl FnMut() -> R, mut f: impl FnMut() -> std::io::Result<T>) -> T
where
    R: std::future::Future<Output = std::io::Result<()>>,
{
    loop {
        ready().await.unwrap();
        match f() {
            Ok(v) => return v,
            Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
            Err(e) => panic!("{e}"),
        }
    }
}

rt_test! {
    fn stream_try_read_buf() {
        rt().block_on(async {
            let (mut a, b) = UnixStream::pair().unwrap();
            let mut buf = Vec::with_capacity(32);
            let err = b.try_read_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            a.write_all(b"hello").await.unwrap();
            let n = retry(|| b.readable(), || b.try_read_buf(&mut buf)).await;
            assert_eq!((n, &buf[..]), (5, &b"hello"[..]));

            // The halves read into a buffer too.
            a.write_all(b"!").await.unwrap();
            let (read, _write) = b.into_split();
            let n = retry(|| read.readable(), || read.try_read_buf(&mut buf)).await;
            assert_eq!((n, &buf[..]), (1, &b"hello!"[..]));

            // End of file.
            drop(a);
            let n = retry(|| read.readable(), || read.try_read_buf(&mut buf)).await;
            assert_eq!(n, 0);
        });
    }

    fn datagram_recv_buf_and_try_recv_buf() {
        rt().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            let mut buf = Vec::with_capacity(64);
            let err = b.try_recv_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            a.send(b"one").await.unwrap();
            a.send(b"two!").await.unwrap();
            assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 3);
            let n = retry(|| b.readable(), || b.try_recv_buf(&mut buf)).await;
            assert_eq!(n, 4);
            assert_eq!(buf, b"onetwo!");
        });
    }

    fn datagram_recv_buf_from_names_the_sender() {
        rt().block_on(async {
            // An unnamed sender (a socket pair).
            let (a, b) = UnixDatagram::pair().unwrap();
            a.send(b"anon").await.unwrap();
            let mut buf = BytesMut::with_capacity(64);
            let (n, from) = b.recv_buf_from(&mut buf).await.unwrap();
            assert_eq!(n, 4);
            assert!(from.is_unnamed());
            assert_eq!(&buf[..], b"anon");

            // A sender bound to a path.
            let path = TempSocketPath::new("uds-read-buf-sender");
            let named = UnixDatagram::bind(path.path()).unwrap();
            let target = TempSocketPath::new("uds-read-buf-target");
            let receiver = UnixDatagram::bind(target.path()).unwrap();
            let err = receiver.try_recv_buf_from(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            named.send_to(b"named", target.path()).await.unwrap();
            let (n, from) = retry(|| receiver.readable(), || receiver.try_recv_buf_from(&mut buf)).await;
            assert_eq!(n, 5);
            assert_eq!(from.as_pathname(), Some(path.path()));
            assert_eq!(&buf[..], b"anonnamed");
        });
    }

    fn pipe_receiver_try_read_buf() {
        rt().block_on(async {
            let (mut tx, rx) = pipe::pipe().unwrap();
            let mut buf = Vec::with_capacity(16);
            let err = rx.try_read_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            tx.write_all(b"piped").await.unwrap();
            let n = retry(|| rx.readable(), || rx.try_read_buf(&mut buf)).await;
            assert_eq!((n, &buf[..]), (5, &b"piped"[..]));

            drop(tx);
            let n = retry(|| rx.readable(), || rx.try_read_buf(&mut buf)).await;
            assert_eq!(n, 0);
        });
    }
}
