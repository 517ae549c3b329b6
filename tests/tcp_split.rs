#![cfg(feature = "full")]
//! Splitting a `TcpStream`: borrowed halves, owned halves on separate
//! tasks, `reunite` (and its error on halves of different streams), the
//! write half's shutdown on drop, and `forget`.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::ErrorKind;

use tokiwa::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokiwa::net::{TcpListener, TcpStream};

async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = tokiwa::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

rt_test! {
    fn borrowed_halves_read_and_write_concurrently() {
        rt().block_on(async {
            let (mut client, mut server) = pair().await;
            let (mut r, mut w) = client.split();
            assert_eq!(r.peer_addr().unwrap(), w.peer_addr().unwrap());
            assert_eq!(r.local_addr().unwrap(), w.local_addr().unwrap());
            let write = async {
                w.write_all(b"ping").await.unwrap();
                w.writable().await.unwrap();
                assert!(w.ready(Interest::WRITABLE).await.unwrap().is_writable());
                w.try_write(b"!").unwrap();
                w.shutdown().await.unwrap();
            };
            let echo = async {
                let mut got = Vec::new();
                server.read_to_end(&mut got).await.unwrap();
                server.write_all(&got).await.unwrap();
            };
            let read = async {
                let mut buf = [0u8; 5];
                r.read_exact(&mut buf).await.unwrap();
                buf
            };
            let ((), (), buf) = tokiwa::join!(write, echo, read);
            assert_eq!(&buf, b"ping!");
        });
    }

    fn owned_halves_on_separate_tasks_then_reunite() {
        rt().block_on(async {
            let (client, mut server) = pair().await;
            let (mut r, mut w) = client.into_split();
            assert_eq!(r.local_addr().unwrap(), w.local_addr().unwrap());
            let writer = tokiwa::spawn(async move {
                w.write_all(b"hello").await.unwrap();
                w
            });
            let echo = tokiwa::spawn(async move {
                let mut buf = [0u8; 5];
                server.read_exact(&mut buf).await.unwrap();
                server.write_all(&buf).await.unwrap();
                server
            });
            let reader = tokiwa::spawn(async move {
                let mut buf = [0u8; 5];
                r.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"hello");
                r
            });
            let w = writer.await.unwrap();
            let r = reader.await.unwrap();
            let mut server = echo.await.unwrap();

            // Reunited, the stream is whole again and was not shut down.
            let mut client = r.reunite(w).unwrap();
            client.write_all(b"again").await.unwrap();
            let mut buf = [0u8; 5];
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"again");

            // And reunite works from the write half too.
            let (r, w) = client.into_split();
            let client = w.reunite(r).unwrap();
            drop(client);
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        });
    }

    fn reunite_rejects_halves_of_different_streams() {
        rt().block_on(async {
            let (a, _a_peer) = pair().await;
            let (b, _b_peer) = pair().await;
            let (ar, aw) = a.into_split();
            let (br, bw) = b.into_split();
            let err = ar.reunite(bw).unwrap_err();
            assert_eq!(
                err.to_string(),
                "tried to reunite halves that are not from the same socket"
            );
            // The error hands both halves back intact.
            let (ar, bw) = (err.0, err.1);
            let a = ar.reunite(aw).unwrap();
            let b = bw.reunite(br).unwrap();
            assert_ne!(a.local_addr().unwrap(), b.local_addr().unwrap());
        });
    }

    fn dropping_the_owned_write_half_shuts_down_writing() {
        rt().block_on(async {
            let (client, mut server) = pair().await;
            let (mut r, mut w) = client.into_split();
            w.write_all(b"last words").await.unwrap();
            drop(w);
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"last words");
            // Reading still works after the write side is gone.
            server.write_all(b"reply").await.unwrap();
            let mut buf = [0u8; 5];
            r.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"reply");
        });
    }

    fn forget_keeps_the_write_side_open() {
        rt().block_on(async {
            let (client, mut server) = pair().await;
            let (r, w) = client.into_split();
            w.forget();
            // No EOF yet: the read half still owns an open socket, so the
            // peer can write to it.
            server.write_all(b"x").await.unwrap();
            let mut buf = [0u8; 1];
            let mut r = r;
            r.read_exact(&mut buf).await.unwrap();
            // Once the read half goes, the socket closes.
            drop(r);
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        });
    }

    fn owned_read_half_try_read_and_peek() {
        rt().block_on(async {
            let (client, mut server) = pair().await;
            let (mut r, w) = client.into_split();
            server.write_all(b"abc").await.unwrap();
            let mut buf = [0u8; 3];
            let mut n = 0;
            while n < 3 {
                n = r.peek(&mut buf).await.unwrap();
            }
            r.readable().await.unwrap();
            assert_eq!(r.try_read(&mut buf).unwrap(), 3);
            assert_eq!(&buf, b"abc");
            assert_eq!(
                r.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            w.writable().await.unwrap();
            assert_eq!(w.try_write(b"z").unwrap(), 1);
            let mut one = [0u8; 1];
            server.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"z");
            let stream: &TcpStream = r.as_ref();
            assert_eq!(stream.peer_addr().unwrap(), server.local_addr().unwrap());
        });
    }
}
