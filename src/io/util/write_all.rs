//! The future of [`AsyncWriteExt::write_all`](super::AsyncWriteExt::write_all),
//! and the loop the integer writers share: write until every byte is
//! accepted.
//!
//! A writer that accepts zero bytes of a non-empty buffer can take no more:
//! that is `WriteZero`. Not cancellation safe: a future dropped half-way
//! leaves an unknown prefix written.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncWrite;

pin_project! {
    /// Future for the [`write_all`](super::AsyncWriteExt::write_all) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct WriteAll<'a, W: ?Sized> {
        writer: &'a mut W,
        // What is left to write.
        buf: &'a [u8],
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn write_all<'a, W>(writer: &'a mut W, buf: &'a [u8]) -> WriteAll<'a, W>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    WriteAll {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

/// Writes `buf[*written..]` until all of `buf` is written.
/// `Interrupted` errors are retried.
pub(super) fn poll_write_all<W: AsyncWrite + ?Sized>(
    mut writer: Pin<&mut W>,
    cx: &mut Context<'_>,
    buf: &[u8],
    written: &mut usize,
) -> Poll<io::Result<()>> {
    while *written < buf.len() {
        match writer.as_mut().poll_write(cx, &buf[*written..]) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
            Poll::Ready(Ok(n)) => *written += n.min(buf.len() - *written),
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
        }
    }
    Poll::Ready(Ok(()))
}

impl<W> Future for WriteAll<'_, W>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.project();
        let mut written = 0;
        let result = poll_write_all(Pin::new(&mut **me.writer), cx, me.buf, &mut written);
        // Keep only what is left, so a later poll does not write twice.
        *me.buf = &mem::take(me.buf)[written..];
        result
    }
}
