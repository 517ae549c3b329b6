//! [`copy_bidirectional()`]: two [`CopyBuffer`]s, one per direction,
//! polled together.
//!
//! Each direction runs a copy to the end of its reader, then shuts down
//! the opposite writer (so the peer sees end of file), then is done. The
//! future completes when both directions are done, or at the first error.
use super::copy::CopyBuffer;
use crate::io::{AsyncRead, AsyncWrite};

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// Where one direction of the transfer stands.
enum Direction {
    Copying(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

impl Direction {
    /// Advances from `from` to `to`; returns the byte count once done.
    fn poll<A, B>(
        &mut self,
        cx: &mut Context<'_>,
        from: &mut A,
        to: &mut B,
    ) -> Poll<io::Result<u64>>
    where
        A: AsyncRead + Unpin + ?Sized,
        B: AsyncWrite + Unpin + ?Sized,
    {
        loop {
            match self {
                Direction::Copying(buf) => {
                    let n = ready!(buf.poll_copy(cx, Pin::new(&mut *from), Pin::new(&mut *to)))?;
                    *self = Direction::ShuttingDown(n);
                }
                Direction::ShuttingDown(n) => {
                    let n = *n;
                    ready!(Pin::new(&mut *to).poll_shutdown(cx))?;
                    *self = Direction::Done(n);
                }
                Direction::Done(n) => return Poll::Ready(Ok(*n)),
            }
        }
    }
}

/// Copies between `a` and `b` in both directions at once, until both have
/// ended.
///
/// Bytes read from `a` are written to `b` and the other way round. When one
/// side reports end of file, the other side is shut down (see
/// [`shutdown`](crate::io::AsyncWriteExt::shutdown)) and that direction
/// stops; the other direction carries on. The future completes once both
/// directions have been shut down, with the byte counts `(a to b, b to a)`.
///
/// Each direction has an 8 KiB buffer; use
/// [`copy_bidirectional_with_sizes`] to choose the sizes.
///
/// # Errors
///
/// `Interrupted` reads and writes are retried. Any other read, write, flush
/// or shutdown error is returned at once; bytes read but not yet written
/// at that point are lost.
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    transfer(
        a,
        b,
        CopyBuffer::new(super::DEFAULT_BUF_SIZE),
        CopyBuffer::new(super::DEFAULT_BUF_SIZE),
    )
    .await
}

/// [`copy_bidirectional`] with buffers of the given sizes.
///
/// # Panics
///
/// Panics if either size is zero.
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    transfer(
        a,
        b,
        CopyBuffer::new(a_to_b_buf_size),
        CopyBuffer::new(b_to_a_buf_size),
    )
    .await
}

async fn transfer<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b: CopyBuffer,
    b_to_a: CopyBuffer,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    let mut a_to_b = Direction::Copying(a_to_b);
    let mut b_to_a = Direction::Copying(b_to_a);
    poll_fn(|cx| {
        // Both directions are polled on every wake-up; a finished one
        // keeps answering its count.
        let forward = a_to_b.poll(cx, a, b)?;
        let backward = b_to_a.poll(cx, b, a)?;
        let forward = ready!(forward);
        let backward = ready!(backward);
        Poll::Ready(Ok((forward, backward)))
    })
    .await
}

#[cfg(all(test, feature = "rt"))]
mod tests {
    use super::*;
    use crate::io::{duplex, AsyncReadExt, AsyncWriteExt};

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        crate::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn both_directions_with_eof_on_each_side() {
        block_on(async {
            // client <-> (a | proxy | b) <-> server
            let (mut client, mut a) = duplex(64);
            let (mut b, mut server) = duplex(64);
            let proxy =
                crate::spawn(
                    async move { copy_bidirectional_with_sizes(&mut a, &mut b, 16, 7).await },
                );

            client.write_all(&[1; 100]).await.unwrap();
            let mut got = [0u8; 100];
            server.read_exact(&mut got).await.unwrap();
            assert_eq!(got, [1; 100]);

            server.write_all(b"reply").await.unwrap();
            let mut reply = [0u8; 5];
            client.read_exact(&mut reply).await.unwrap();
            assert_eq!(&reply, b"reply");

            // The client ends its side: the server sees end of file, and
            // can still answer.
            client.shutdown().await.unwrap();
            let mut rest = Vec::new();
            server.read_to_end(&mut rest).await.unwrap();
            assert!(rest.is_empty());
            server.write_all(b"late").await.unwrap();
            let mut late = [0u8; 4];
            client.read_exact(&mut late).await.unwrap();
            assert_eq!(&late, b"late");

            // The server ends its side too: the proxy finishes with both
            // counts, and the client sees end of file.
            server.shutdown().await.unwrap();
            assert_eq!(proxy.await.unwrap().unwrap(), (100, 9));
            let mut rest = Vec::new();
            client.read_to_end(&mut rest).await.unwrap();
            assert!(rest.is_empty());
        });
    }

    #[test]
    fn an_error_ends_the_transfer() {
        block_on(async {
            let (mut client, mut a) = duplex(64);
            let (mut b, server) = duplex(64);
            // The server goes away: writing to it is a broken pipe.
            drop(server);
            client.write_all(b"lost").await.unwrap();
            let err = copy_bidirectional(&mut a, &mut b).await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        });
    }

    #[test]
    #[should_panic]
    fn zero_size_panics() {
        let (mut a, mut b) = duplex(1);
        let _ = futures::executor::block_on(copy_bidirectional_with_sizes(&mut a, &mut b, 0, 1));
    }
}
