#![cfg(feature = "full")]
//! `TcpStream::try_read_buf` and the halves' (`split`, `into_split`):
//! reading into a `bytes::BufMut`'s spare capacity, with `try_read`'s
//! readiness rules.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::ErrorKind;

use bytes::{BufMut, BytesMut};
use tokiwa::io::AsyncWriteExt;
use tokiwa::net::{TcpListener, TcpStream};

/// A connected pair: (client, server side).
async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = tokiwa::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

/// Waits for readability and retries `f` until it stops saying
/// `WouldBlock`.
async fn when_readable(stream: &TcpStream, mut f: impl FnMut() -> std::io::Result<usize>) -> usize {
    loop {
        stream.readable().await.unwrap();
        match f() {
            Ok(n) => return n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
            Err(e) => panic!("{e}"),
        }
    }
}

rt_test! {
    fn try_read_buf_appends_what_arrived() {
        rt().block_on(async {
            let (mut client, server) = pair().await;
            let mut buf = Vec::with_capacity(64);
            buf.extend_from_slice(b">>");
            // Nothing sent yet: not ready.
            let err = server.try_read_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            assert_eq!(buf, b">>");

            client.write_all(b"hello").await.unwrap();
            let n = when_readable(&server, || server.try_read_buf(&mut buf)).await;
            assert_eq!(n, 5);
            assert_eq!(buf, b">>hello");
        });
    }

    fn try_read_buf_grows_a_full_buffer_and_takes_bytes_mut() {
        rt().block_on(async {
            let (mut client, server) = pair().await;
            client.write_all(b"abc").await.unwrap();
            // No spare capacity at all: `chunk_mut` grows the Vec.
            let mut vec = Vec::new();
            let n = when_readable(&server, || server.try_read_buf(&mut vec)).await;
            assert_eq!((n, &vec[..]), (3, &b"abc"[..]));

            client.write_all(b"defg").await.unwrap();
            let mut bytes = BytesMut::with_capacity(2);
            bytes.put_u8(b'>');
            let mut got = 0;
            while got < 4 {
                got += when_readable(&server, || server.try_read_buf(&mut bytes)).await;
            }
            assert_eq!(&bytes[..], b">defg");
        });
    }

    fn try_read_buf_says_zero_at_end_of_file() {
        rt().block_on(async {
            let (client, server) = pair().await;
            drop(client);
            let mut buf = Vec::with_capacity(16);
            let n = when_readable(&server, || server.try_read_buf(&mut buf)).await;
            assert_eq!(n, 0);
            assert!(buf.is_empty());
        });
    }

    fn halves_try_read_buf() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            client.write_all(b"borrowed").await.unwrap();
            {
                let (read, _write) = server.split();
                let mut buf = Vec::with_capacity(16);
                let mut got = 0;
                while got < 8 {
                    read.readable().await.unwrap();
                    match read.try_read_buf(&mut buf) {
                        Ok(n) => got += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                assert_eq!(buf, b"borrowed");
            }

            client.write_all(b"owned").await.unwrap();
            let (read, _write) = server.into_split();
            let mut buf = BytesMut::with_capacity(16);
            let mut got = 0;
            while got < 5 {
                read.readable().await.unwrap();
                match read.try_read_buf(&mut buf) {
                    Ok(n) => got += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!(&buf[..], b"owned");
        });
    }
}
