//! The futures of [`AsyncWriteExt::write_buf`](super::AsyncWriteExt::write_buf)
//! (one write from a `bytes::Buf`) and
//! [`write_all_buf`](super::AsyncWriteExt::write_all_buf) (until it is
//! empty).
//!
//! A writer that says it writes vectored is given up to 64 of the buffer's
//! chunks at once; others get one chunk per write. The buffer is advanced
//! by every write as it completes, so `write_all_buf` is cancellation safe:
//! after a drop the buffer holds exactly what was not written.
use std::future::Future;
use std::io::{self, IoSlice};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Buf;
use pin_project_lite::pin_project;

use crate::io::AsyncWrite;

/// The most chunks passed to one vectored write (tokio's figure).
const MAX_CHUNKS: usize = 64;

/// One write of `buf`'s next bytes; advances `buf` by what was written.
fn poll_write_buf<W, B>(
    writer: Pin<&mut W>,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>>
where
    W: AsyncWrite + ?Sized,
    B: Buf,
{
    let n = if writer.is_write_vectored() {
        let mut chunks = [IoSlice::new(&[]); MAX_CHUNKS];
        let count = buf.chunks_vectored(&mut chunks);
        ready!(writer.poll_write_vectored(cx, &chunks[..count]))?
    } else {
        ready!(writer.poll_write(cx, buf.chunk()))?
    };
    buf.advance(n);
    Poll::Ready(Ok(n))
}

pin_project! {
    /// Future for the [`write_buf`](super::AsyncWriteExt::write_buf) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct WriteBuf<'a, W, B> {
        writer: &'a mut W,
        buf: &'a mut B,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn write_buf<'a, W, B>(writer: &'a mut W, buf: &'a mut B) -> WriteBuf<'a, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    WriteBuf {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W, B> Future for WriteBuf<'_, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        if !me.buf.has_remaining() {
            return Poll::Ready(Ok(0));
        }
        poll_write_buf(Pin::new(&mut **me.writer), cx, &mut **me.buf)
    }
}

pin_project! {
    /// Future for the [`write_all_buf`](super::AsyncWriteExt::write_all_buf) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct WriteAllBuf<'a, W, B> {
        writer: &'a mut W,
        buf: &'a mut B,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn write_all_buf<'a, W, B>(writer: &'a mut W, buf: &'a mut B) -> WriteAllBuf<'a, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    WriteAllBuf {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W, B> Future for WriteAllBuf<'_, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.project();
        while me.buf.has_remaining() {
            match ready!(poll_write_buf(
                Pin::new(&mut **me.writer),
                cx,
                &mut **me.buf
            )) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}
